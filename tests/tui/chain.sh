#!/bin/sh
# A detector's value propagation chain in the full-screen UI (tmux): the
# chain pane lists its links, one a row, and Enter on one shows its line
# in the source pane (vpc N), so the user walks from the double free back
# to the struct copy and the strdup.
cd "$(dirname "$0")/../.." || exit 1
. tests/tui/common.sh
fixtures_build || exit 1
BIN=$B/bug_dfree-O0
F=tests/fixtures/bug_dfree.c
copy=$(grep -n '\*c = \*r;' $F | cut -d: -f1)
total=$(wc -l < $F)
tui_start 120 40 -- "$BIN"
type_cmd 'detect on'
type_cmd 'set detect-record on'
type_cmd 'run'
see "chain: the detector's stop" 'stopped at bug_dfree.c:[0-9]+'
type_cmd 'pane show chain'
see "chain: the pane" 'value propagation chain \(Enter'
see "chain: a link a row" '^ 2  \*c = \*r \(bug_dfree\.c:[0-9]+, copy\)|  2  \*c = \*r \(bug_dfree'
keys Escape Tab Tab Tab
see "chain: focused" '\| chain \|'
keys Down Enter
see "chain: Enter shows the copy's line" "source: bug_dfree.c +line $copy/$total"
see "chain: and prints it" "^bug_dfree.c:$copy +\*c = \*r;"
# the chain's lines in the source pane in the theme's chain colour (the
# default theme: black on cyan, SGR 46); a line off the chain is not
row_sgr "chain: the copy's line in the chain colour" "^ *.?.?.? *$copy +\*c = \*r;" 46
row=$(row_of "^ *.?.?.? *$((copy - 1)) ")
if [ -n "$row" ] && ! printf '%s' "$row" | grep -q '\[[0-9;]*46m'; then
	pass "chain: the line before it is not"
else
	fail "chain: the line before it is not" "$(printf '%s' "$row" | cat -v)"
fi
type_cmd 'quit'
see "chain: quit" '^QZDB-EXITED 0'
no_leftover "chain: no process left" "$BIN"
tui_end
