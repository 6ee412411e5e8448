#!/bin/sh
# README.md stands alone and names only what exists: no link or path
# outside the repository, and every command it names in `backticks` (the
# first word of a span) is one that `help` knows. Words that are not
# commands (shell tools, pane names, file names, argument words) are
# listed below, so a new one is a decision, not an accident.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

outside=$(grep -nE '\]\((https?:|/|\.\./)|https?://|\.\./' README.md)
[ -z "$outside" ] && pass "README links nothing outside the repository" ||
	fail "README links nothing outside the repository" "$outside"

not_cmds=" make qzdb gcc apt-get sudo ulimit sh tmux send-keys capture-pane
 locals stack regs bps disasm deps ckpts slices chain main control returned changed
 breakpoint error: if all once x=x@entry=5 system() func::var arr@N
 examples tests themes man gdb p->next printed regcomp
 dst dst.x genstr heap malloc's name ret thread-local ov_ret.c:9 "
not_cmds=" $(echo $not_cmds) "
bad="" n=0
for w in $(grep -o '`[a-z][^`]*`' README.md | sed 's/^`//; s/`$//' | awk '{ print $1 }' |
	   sed 's/\[.*//' | sort -u); do
	case "$not_cmds" in *" $w "*) continue ;; esac
	case "$w" in */*|*.c|*.qzs|*.sh|*.theme|*.h) continue ;; esac   # paths
	n=$((n + 1))
	$QZDB --batch -ex "help $w" >/dev/null 2>&1 || bad="$bad $w"
done
[ -z "$bad" ] && [ "$n" -gt 40 ] && pass "README's $n command words are commands" ||
	fail "README's command words are commands" "$n words; unknown:$bad"

# The same for the manual page's bold command names.
bad=""
for w in $(sed '/^\.SH SEE ALSO/q' qzdb.1 | grep -oE '^\.(BI|BR) "?[a-z]+' | awk '{ print $2 }' |
	   tr -d '"' | sort -u); do
	$QZDB --batch -ex "help $w" >/dev/null 2>&1 || bad="$bad $w"
done
[ -z "$bad" ] && pass "qzdb.1's commands are commands" ||
	fail "qzdb.1's commands are commands" "unknown:$bad"
