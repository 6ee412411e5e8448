#!/bin/sh
# The UI's files form no cycle (ARCHITECTURE.md, tui/README.md): the event
# loop calls the panes, never the reverse. A module is a .c and its .h
# (tui/ui.c and tui/ui.h are one node); two graphs are checked:
#  - includes: A -> B when a file of A includes "B.h";
#  - references: A -> B when A's object file uses a symbol B's defines
#    (from nm over tui/*.o; skipped when the UI is not built), which
#    catches a call back up that a header declared elsewhere would hide.
# Each group of modules that reach each other is one FAIL line, and so is
# a pane file that includes a header of the loop's side.
cd "$(dirname "$0")/../.."

# cycles NAME: read "A B" edges on stdin, print the strongly connected
# groups of two or more modules, one a line.
cycles() {
	awk '
	{ if ($1 != $2) { e[$1, ++n[$1]] = $2 }; node[$1]; node[$2] }
	function reach(s,   stack, top, u, i, v) {
		delete seen; top = 0; stack[++top] = s
		while (top) {
			u = stack[top--]
			for (i = 1; i <= n[u]; i++) {
				v = e[u, i]
				if (!(v in seen)) { seen[v]; r[s, v]; stack[++top] = v }
			}
		}
	}
	END {
		for (s in node) reach(s)
		for (s in node) {
			if (s in done) continue
			g = s; k = 1
			for (t in node)
				if (t != s && ((s, t) in r) && ((t, s) in r)) { g = g " " t; done[t]; k++ }
			if (k > 1) print g
		}
	}'
}

# include edges between tui modules
inc_edges() {
	for f in tui/*.[ch]; do
		from=$(basename "$f"); from=${from%.*}
		sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"/]*\)\.h".*/\1/p' "$f" |
		while read -r to; do
			[ -f "tui/$to.h" ] && echo "$from $to"
		done
	done
}

# reference edges from the object files: who defines what, who uses it
ref_edges() {
	for o in tui/*.o; do
		m=$(basename "$o" .o)
		nm "$o" | awk -v m="$m" 'NF == 3 && $2 ~ /^[TDBR]$/ { print "def", $3, m }
			$1 == "U" { print "use", $2, m }'
	done | awk '$1 == "def" { d[$2] = $3; next } { u[$3, $2] }
		END { for (k in u) { split(k, a, SUBSEP); if (a[2] in d) print a[1], d[a[2]] } }' | sort -u
}

# The panes see the UI only through pane.h: they include the helpers
# below the loop, never the loop's own headers (ui.h, exec.h, ...).
pane_may="pane scrollback draw lines theme keymap lineedit slice-view"

bad=0
inc=$(inc_edges | sort -u)
for e in $(echo "$inc" | awk '$1 ~ /^pane-|^scrollback$/ { print $1 "," $2 }'); do
	from=${e%,*} to=${e#*,}
	case " $pane_may $from " in
	*" $to "*) ;;
	*) echo "FAIL tui-cycles: tui/$from includes \"$to.h\"; a pane includes only its own header and$(echo " $pane_may" | sed 's/ \([a-z-]*\)/ \1.h/g')"
	   bad=$((bad + 1)) ;;
	esac
done
for g in $(echo "$inc" | cycles | tr ' ' ','); do
	echo "FAIL tui-cycles: includes go round: $(echo "$g" | tr ',' ' ')"
	bad=$((bad + 1))
done
[ -n "$inc" ] || { echo "FAIL tui-cycles: no includes between tui files found"; exit 0; }
if ls tui/*.o >/dev/null 2>&1; then
	ref=$(ref_edges)
	for g in $(echo "$ref" | cycles | tr ' ' ','); do
		echo "FAIL tui-cycles: calls go round: $(echo "$g" | tr ',' ' ')"
		bad=$((bad + 1))
	done
	nref=$(echo "$ref" | grep -c .)
else
	nref=0
	echo "SKIP tui-cycles references: the UI is not built (make)"
fi
[ "$bad" -eq 0 ] && echo "PASS tui-cycles: $(echo "$inc" | grep -c .) include and $nref reference edges between tui modules, no cycle"
exit 0
