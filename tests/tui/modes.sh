#!/bin/sh
# The keys' rule (help keys): no plain letter changes the program, and a
# command typed in normal mode is that command, never the keys its letters
# are bound to. For every lower-case letter bound in a pane that begins a
# command name (read from `help keys` and `help`, so a new binding is
# checked too), typing that command in the source pane runs it; typing
# `continue` continues and takes no checkpoint; typed slowly (the view key
# acts, then the next letter makes it a command) the view goes back.
cd "$(dirname "$0")/../.." || exit 1
. tests/tui/common.sh
fixtures_build || exit 1
BIN=$B/bug_nullp-O0

keys_help=$($QZDB --batch -ex 'help keys' 2>&1)
# the rule is written where the keys are listed
echo "$keys_help" | grep -q 'no plain letter changes the program' &&
	pass "help keys states the rule" || fail "help keys states the rule" "no rule in help keys"

# Every binding of a letter is a view action (a test that lists them, so
# a new letter binding must be one of these or fail here).
view='tui (focus-cmd|focus-output|focus-next|focus-source|line-up|line-down|page-up|page-down|top|bottom|search-prompt|search-next|search-prev|current|slice-numbers|cycle|help)( |$)'
bad=$(echo "$keys_help" | awk '/^Actions/ { exit } /^  [A-Za-z] / { print }' | grep -Ev "^  [A-Za-z] +$view")
nletters=$(echo "$keys_help" | awk '/^Actions/ { exit } /^  [A-Za-z] / { print }' | wc -l)
[ -z "$bad" ] && [ "$nletters" -gt 3 ] && pass "no letter changes the program ($nletters letter bindings)" ||
	fail "no letter changes the program" "$nletters letters; not view actions: $bad"

# The lower-case letters bound anywhere, and a command each begins.
letters=$(echo "$keys_help" | awk '/^Actions/ { exit } /^  [a-z] / { print $1 }' | sort -u)
cmds=$($QZDB --batch -ex help 2>&1 | awk '/ -- / { print $1 }')
words=""
for l in $letters; do
	w=$(echo "$cmds" | grep "^$l" | grep -v '^kill$' | head -n 1)
	[ -n "$w" ] && words="$words $w"
done
[ -n "$words" ] && pass "bound letters that begin commands: $words" ||
	fail "bound letters that begin commands" "none found in: $letters"

tui_start 80 24 -- "$BIN"
see "the first screen's hint" '^F1 help · : command · q quit$'
type_cmd 'break find_entry'
type_cmd 'run'
see "stopped at find_entry" 'Breakpoint 1, find_entry'
keys Escape
see "source focused" 'source \| theme'
keys -l 'continue'
keys Enter
see "continue typed in normal mode continues" 'find_entry \(key=0x[0-9a-f]+ "gamma"\)'
see "continue reached the breakpoint again" 'stopped at bug_nullp.c:18'
type_cmd 'info checkpoints'
see "continue took no checkpoint" '^No checkpoints\.'
for w in $words; do
	keys Escape
	keys -l "$w"
	keys Enter
	see "'$w' typed in normal mode is the command" "^\\(qzdb\\) $w\$"
done

# Slowly: n acts alone (searching again), e makes "ne" a command.
keys Escape
type_cmd 'tui goto 5'
keys Escape
wait_for 'line 5/34' >/dev/null
keys j
see "j alone moves the cursor" 'line 6/34'
keys n
see "n alone searches again" 'No previous search'
keys -l 'ext'
keys Enter
see "next typed slowly is next" '^\(qzdb\) next$'
see "the view went back" 'line 6/34|line 1[89]/34'
keys Escape g
see "g goes to the top" 'line 1/34'
keys -l 'kill'
keys Enter
see "kill typed in normal mode" '^\(qzdb\) kill$'
see "kill killed" '^ not started|exited|killed'
type_cmd 'quit'
see "quit" '^QZDB-EXITED 0'
no_leftover "no process left" "$BIN"
tui_end
