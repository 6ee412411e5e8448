#!/bin/sh
# The include graph of qzdb's own sources only goes downward (ARCHITECTURE.md):
# each folder may include the folders listed for it below and its own files,
# nothing else. A new back-edge (core including a module, debug information
# including the process layer, ...) fails here with the line that adds it.
cd "$(dirname "$0")/../.."

# The modules: top-level folders with a cmd-*.c (as the Makefile finds them).
mods=$(ls -d */cmd-*.c 2>/dev/null | cut -d/ -f1 | sort -u | tr '\n' ' ')
core="util proc dinfo value target cmd"
# The sideways edges: a module reading another's narrow, read-only header
# (named here, one by one; the module it reads stays below it, no cycle).
edges="reduce:slice/slice-input.h detect:slice/view.h"

# folder: the folders it may include from
allowed() {
	case "$1" in
	util)   echo "" ;;
	proc)   echo "util" ;;
	dinfo)  echo "util" ;;
	value)  echo "util dinfo" ;;
	target) echo "util proc dinfo value" ;;
	cmd)    echo "util proc dinfo value target" ;;
	app)    echo "$core $mods" ;;
	tui)    echo "$core $mods app" ;;
	*)      case " $mods " in   # a module: core only, never another module
		*" $1 "*) echo "$core" ;;
		esac ;;
	esac
}

# the folder a source file belongs to
folder_of() {
	case "$1" in
	core/*/*) d=${1#core/}; echo "${d%%/*}" ;;
	*/*) echo "${1%%/*}" ;;
	*) echo app ;;
	esac
}

files=$(ls core/*/*.[ch] tui/*.[ch] modules.c modules.h 2>/dev/null)
for m in $mods; do files="$files $(ls $m/*.[ch])"; done
bad=0
n=0
for f in $files; do
	from=$(folder_of "$f")
	ok=" $(allowed "$from") $from "
	for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
		case "$inc" in
		*/*) to=${inc%%/*} ;;
		*) [ -f "$(dirname "$f")/$inc" ] && continue
		   if [ -f "$inc" ]; then to=app; else   # modules.h at the top
		   echo "FAIL layers: $f includes \"$inc\", which is not in its folder"
		   bad=$((bad + 1)); continue; fi ;;
		esac
		n=$((n + 1))
		case " $edges " in *" $from:$inc "*) continue ;; esac
		case "$ok" in
		*" $to "*) ;;
		*) line=$(grep -n "#[[:space:]]*include[[:space:]]*\"$inc\"" "$f" | head -1 | cut -d: -f1)
		   echo "FAIL layers: $f:$line ($from) includes \"$inc\" ($to): $from may include only:$(allowed "$from")"
		   bad=$((bad + 1)) ;;
		esac
	done
done
[ "$n" -gt 100 ] || { echo "FAIL layers: only $n cross-folder includes found: is the tree there?"; exit 0; }
[ "$bad" -eq 0 ] && echo "PASS layers: $n cross-folder includes, all downward"
