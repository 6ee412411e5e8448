#!/bin/sh
# --replay of a session file in the full-screen UI (tmux, 80x32): the
# commands and their output in the command pane, the source pane at the
# stops, a comment as the caption in the status line; with --step nothing
# runs before a key, Space runs one command, Backspace goes back, C-x stops.
cd "$(dirname "$0")/../.." || exit 1
. tests/tui/common.sh
fixtures_build || exit 1
BIN=$B/bug_nullp-O0
S=$B/tui-sess
rm -rf $S
mkdir -p $S
qz --record-session $S/rec.qzs -ex 'break find_entry' -ex 'run' -ex 'bt' \
	-ex 'continue' -ex 'finish' $BIN
awk '/^\(qzdb\) bt$/ { print "# Who called find_entry." }
     /^\(qzdb\) finish$/ { print "# Back in main with the entry." } { print }' \
	$S/rec.qzs > $S/cap.qzs
F=$(cd $S && pwd)/cap.qzs

tui_start 80 32 -- --program "$BIN" --replay "$F"
see "replay commands in the pane" '^\(qzdb\) finish'
see "replay output in the pane" 'Value returned is \$1 = \(struct entry \*\)'
see "replay source follows the stop" '^  B> +18 +for \(int i = 0; i < 3; i\+\+\)|^   > +2[89] '
see "replay caption in status" 'Back in main with the entry'
see "replay done" 'replay done: Back in main'
type_cmd 'quit'
see "replay quit" '^QZDB-EXITED 0'
no_leftover "replay no process left" "$BIN"

tui_start 80 32 -- --program "$BIN" --replay "$F" --step
see "step waits" 'Space: run it, Backspace: back, C-x: stop'
not_see "step runs nothing first" 'Breakpoint 1 at'
keys Space
see "step key runs break" 'Breakpoint 1 at 0x[0-9a-f]+: file'
not_see "step only one command" 'Breakpoint 1, find_entry'
keys Space
see "step run stops in find_entry" '^  B> +18 '
keys Space
see "step caption" 'Who called find_entry\.'
see "step bt" '^#1  0x[0-9a-f]+ in main \(\)'
keys BSpace
see "step back" '\[back one step\]'
keys C-x
see "step stopped" 'replay done'
type_cmd 'quit'
see "step quit" '^QZDB-EXITED 0'
no_leftover "step no process left" "$BIN"
tui_end

# A session file's bind is refused in the UI too, the replay stops, and
# the key does nothing afterwards (nothing persists).
head -5 $S/rec.qzs > $S/bind.qzs
printf '(qzdb) bind generic C-y echo OWNED\\n\n(qzdb) echo AFTER\\n\nAFTER\n#@ end\n' >> $S/bind.qzs
tui_start 80 32 -- --program "$BIN" --replay "$(cd $S && pwd)/bind.qzs"
see "UI replay refuses bind" 'bind\.qzs:6: a replayed session may not'
see "UI replay stops at the refusal" 'replay stopped'
not_see "UI replay ran nothing after it" '^AFTER'
keys C-y
type_cmd 'echo CHECKED\n'
see "UI after the replay: commands run" '^CHECKED'
not_see "UI refused bind did not persist" '^OWNED'
type_cmd 'quit'
see "bind replay quit" '^QZDB-EXITED'
tui_end
