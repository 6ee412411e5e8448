#!/bin/sh
# Long engine work in the full-screen UI (tmux). A reduction: while it runs, the status line
# shows its progress (runs done, best size so far) instead of a bare
# "running", nothing is written over the screen on stderr, and Ctrl-C
# stops it keeping the best input so far, as in plain mode. A long
# recording shows its instructions there the same way (progress.sh).
cd "$(dirname "$0")/../.." || exit 1
. tests/tui/common.sh
fixtures_build || exit 1
BIN=$B/rd_calc-O0
T=$B/tui-reduce
mkdir -p $T
# slow runs (each sleeps half a second a line) so that the reduction lasts
{ i=0; while [ $i -lt 10 ]; do echo "1 s 500"; i=$((i + 1)); done; echo "8 / 0"; } > $T/slow.txt
rm -f $T/slow.txt.min
tui_start 100 30 -- "$BIN"
type_cmd "reduce stdin $T/slow.txt --plain --jobs 4"
see "reduce ui: progress in the status line" '^ reduce: [0-9]+ runs, [0-9]+ s, best [0-9]+ bytes \(C-c stops\)'
not_see "reduce ui: no progress line over the screen" '^reduce: [0-9]+ runs'
# Ctrl-C once a smaller input is found (86 bytes at first)
wait_for '^ reduce: .*best ([0-9]|[1-7][0-9]) bytes' >/dev/null
keys C-c
see "reduce ui: Ctrl-C keeps the best so far" 'Interrupted: the best so far for standard input from [0-9]+ to [0-9]+ bytes'
see "reduce ui: the status line is back" '^ not started'
if [ -s $T/slow.txt.min ] && [ "$(wc -c < $T/slow.txt.min)" -lt "$(wc -c < $T/slow.txt)" ]; then
	pass "reduce ui: the best so far is written"
else
	fail "reduce ui: the best so far is written" "$(ls -l $T/slow.txt.min 2>&1)"
fi
type_cmd 'quit'
see "reduce ui: quit" '^QZDB-EXITED 0'
tui_end

