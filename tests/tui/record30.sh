#!/bin/sh
# A 30-action session in the UI, written with --record-session, holds
# exactly what the user did, in order: the commands typed and the ones
# the keys ran (F5 run, F10 next, F9 break/delete, F2 checkpoint, F11
# step, S-F11 finish), none of the panes' refreshes, none of the UI's own
# commands (scrolling, search, goto, F6, panes, theme, colour, redraw);
# and `--replay --check` replays it without a difference.
cd "$(dirname "$0")/../.." || exit 1
. tests/tui/common.sh
fixtures_build || exit 1
BIN=$B/bug_nullp-O0
S=$B/tui-record30
rm -rf $S
mkdir -p $S
F=$(cd $S && pwd)/ui30.qzs

tui_start 80 24 -- --record-session "$F" "$BIN"
type_cmd 'break find_entry'                        # 1
keys F5                                            # 2
see "r30: F5 runs" 'stopped at bug_nullp.c:18'
keys F10                                           # 3
see "r30: F10 steps" 'stopped at bug_nullp.c:19'
keys Escape j k g G                                # 4-8
keys /                                             # 9
keys -l 'table\[i\]'
keys Enter
keys n                                             # 10
keys :                                             # 11
keys -l '20'
keys Enter
see "r30: :20" 'line 20/'
keys F9                                            # 12
see "r30: F9 sets a breakpoint" 'Breakpoint 2 at'
keys F9                                            # 13
keys F6                                            # 14
type_cmd 'pane show locals'                        # 15
type_cmd 'bt'                                      # 16
type_cmd 'up'                                      # 17
type_cmd 'down'                                    # 18
type_cmd 'print key'                               # 19
type_cmd 'info locals'                             # 20
keys Escape F2                                     # 21
see "r30: F2 checkpoint" 'Checkpoint 1 at'
keys F10                                           # 22
type_cmd 'print i'                                 # 23
keys C-l                                           # 24
type_cmd 'theme light'                             # 25
type_cmd 'color status white blue'                 # 26
keys Escape F11                                    # 27
keys S-F11                                         # 28
see "r30: finish" 'Value returned'
type_cmd 'info breakpoints'                        # 29
type_cmd 'rollback 1'                              # 30
see "r30: rolled back" 'stopped at bug_nullp.c:19'
type_cmd 'delete'                                  # 31
type_cmd 'continue'                                # 32
see "r30: the program crashes on" 'SIGSEGV'
type_cmd 'quit'
see "r30: quit" '^QZDB-EXITED 0'
tui_end

got=$(grep '^(qzdb) ' "$F" | sed 's/^(qzdb) //' | sed 's/^break .*bug_nullp\.c:20$/break FILE:20/')
want="break find_entry
run
next
break FILE:20
delete 2
bt
up
down
print key
info locals
checkpoint
next
print i
step
finish
info breakpoints
rollback 1
delete
continue
quit"
[ "$got" = "$want" ] && pass "r30: the file holds exactly the user's commands, in order" ||
	fail "r30: the file holds exactly the user's commands, in order" \
		"$(printf '%s\n' "$want" > $S/want; printf '%s\n' "$got" > $S/got; diff $S/want $S/got)"
OUT=$(timeout 60 $QZDB --program "$BIN" --replay "$F" --check 2>&1 </dev/null); RC=$?
expect_rc "r30: --check of the 30-action session passes" 0
[ $RC = 0 ] || printf '%s\n' "$OUT" | tail -12 | sed 's/^/    | /'
no_leftover "r30: no process left" "$BIN"
