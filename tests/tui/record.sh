#!/bin/sh
# A session recorded from the full-screen UI holds what the user did: the
# commands typed and the commands their keys ran (F5 as `run`, F10 as
# `next`), never the panes' own refreshes (`info locals` after each stop)
# nor the UI's own commands (scrolling, panes, colours); `--check` then
# replays it without a difference.
cd "$(dirname "$0")/../.." || exit 1
. tests/tui/common.sh
fixtures_build || exit 1
BIN=$B/bug_nullp-O0
S=$B/tui-record
rm -rf $S
mkdir -p $S
F=$(cd $S && pwd)/ui.qzs

tui_start 80 32 -- --record-session "$F" "$BIN"
type_cmd 'break find_entry'
see "record: break set" 'Breakpoint 1 at 0x[0-9a-f]+: file'
keys F5
see "record: F5 runs to the breakpoint" 'Breakpoint 1, find_entry'
type_cmd 'pane show locals'
see "record: locals pane shown" ' locals'
keys F10
see "record: F10 steps" '^   > +1[89] |B> +1[89] '
keys F10
keys Escape
keys j j k
type_cmd 'print i'
see "record: print typed after keys" '^\$1 = '
type_cmd 'color status white blue'
type_cmd 'quit'
see "record: quit" '^QZDB-EXITED 0'

cmds=$(grep '^(qzdb) ' "$F")
n() { printf '%s\n' "$cmds" | grep -c "$1"; }
[ "$(n '^(qzdb) info locals$')" = 0 ] && pass "record: no pane refresh in the file" ||
	fail "record: no pane refresh in the file" "$(n '^(qzdb) info locals$') info locals lines"
[ "$(n '^(qzdb) \(tui\|pane\|color\) ')" = 0 ] && pass "record: no UI-only command in the file" ||
	fail "record: no UI-only command in the file" "$(printf '%s\n' "$cmds" | grep '^(qzdb) \(tui\|pane\|color\) ' | head -3)"
[ "$(n '^(qzdb) run$')" = 1 ] && pass "record: F5 written as run" ||
	fail "record: F5 written as run" "commands: $(echo $cmds)"
[ "$(n '^(qzdb) next$')" = 2 ] && pass "record: F10 written as next, twice" ||
	fail "record: F10 written as next, twice" "commands: $(echo $cmds)"
[ "$(n '^(qzdb) print i$')" = 1 ] && pass "record: typed command kept" ||
	fail "record: typed command kept" "commands: $(echo $cmds)"
OUT=$(timeout 60 $QZDB --program "$BIN" --replay "$F" --check 2>&1 </dev/null); RC=$?
expect_rc "record: --check of the UI's session passes" 0
no_leftover "record: no process left" "$BIN"
