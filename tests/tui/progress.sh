#!/bin/sh
# A long recording in the full-screen UI reports its progress in the status
# line (instructions and rate, once a second after half a second) instead
# of printing it on stderr, which wrote over the curses screen; the line
# goes when the command ends. About 30 million instructions of sl_long's
# loop: a few seconds.
cd "$(dirname "$0")/../.." || exit 1
. tests/tui/common.sh
fixtures_build || exit 1
tui_start 120 32 -- "$B/sl_long-O0"
type_cmd 'break main'
type_cmd 'run'
see "progress: at main" 'Breakpoint 1, main'
type_cmd 'set var n = 2500000'
type_cmd 'record on'
type_cmd 'break sl_long.c:38'
type_cmd 'continue'
see "progress: in the status line" '^ recording: [0-9]+ instructions, [0-9]+ per second, trace [0-9.]+ MiB \(C-c stops\)'
wait_for 'Breakpoint 2, main' >/dev/null ||   # slow under ASan
	wait_for 'Breakpoint 2, main' >/dev/null
see "progress: the region ends" 'Breakpoint 2, main'
not_see "progress: nothing on stderr over the screen" 'recording: [0-9]+ instructions'
not_see "progress: the line goes with the command" 'recording: [0-9]+ instructions.*C-c stops'
type_cmd 'quit'
see "progress: quit" '^QZDB-EXITED 0'
tui_end
