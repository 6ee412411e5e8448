#!/bin/sh
# Reverse execution in the full-screen UI (tmux, 100x34): the status line
# shows the keys that go back while recording and "replay: instruction N
# of M" in the past; Shift-F10 and Shift-F12 step back; C-g in the source
# and deps panes moves execution to a statement instance (goto-instance);
# the keys follow `bind`.
cd "$(dirname "$0")/../.." || exit 1
. tests/tui/common.sh
fixtures_build || exit 1
BIN=$B/rev_loop-O0

tui_start 100 34 -- "$BIN"
type_cmd 'break 32'
type_cmd 'run'
see "rev stopped" '^ stopped at rev_loop.c:32'
type_cmd 'record on'
type_cmd 'next'
see "rev keys shown while recording" 'REC [0-9]+ \(back: S-F10 S-F5\)'
not_see "rev no replay at the end" 'replay: instruction'
keys Escape
keys S-F10
see "rev S-F10 goes back" 'stopped at rev_loop.c:32 \| replay: instruction 0 of [0-9]+'
keys :
type_cmd 'stepi 40'
keys Escape
keys S-F12
see "rev S-F12 steps back" 'stopped at rev_loop.c:[0-9]+ \| replay: instruction [1-9][0-9]* of'
keys :
type_cmd 'record goto end'
see "rev end: no replay" 'stopped at rev_loop.c:33 '
not_see "rev end: replay gone" 'replay: instruction'
type_cmd 'slice rev_loop.c:23#5'
see "rev slice" 'slice 1: [0-9]+ stmts'
type_cmd 'tui goto 22'
keys Escape
keys C-g
see "rev C-g in source" '^After rev_loop\.c:22#5 \(instructions'
see "rev C-g replay" 'stopped at rev_loop.c:23 \| replay: instruction'
keys :
type_cmd 'tui goto 23'
type_cmd 'pane show deps'
see "rev deps pane" 'deps: slice 1, rev_loop.c:23'
keys Escape Tab
see "rev deps focused" 'replay: instruction [0-9]+ of .*\| deps'
keys j C-g
see "rev C-g in deps" 'stopped at rev_loop.c:22 \| replay: instruction 1[0-9][0-9] of'
keys :
type_cmd 'sdelete 1'   # the keys follow REC when the status line has room
type_cmd 'bind generic S-F10 next'
type_cmd 'bind generic S-F9 reverse-next'
type_cmd 'record goto end'
see "rev keys follow bind" 'REC [0-9]+ \(back: S-F9 S-F5\)'
type_cmd 'quit'
see "rev quit" '^QZDB-EXITED 0'
tui_end
