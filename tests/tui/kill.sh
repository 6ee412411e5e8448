#!/bin/sh
# The full-screen UI on SIGTERM and SIGHUP with an attached program (issue
# 16): stopped at a breakpoint or running, qzdb restores the program,
# detaches (the program runs on and prints what a plain run prints) and
# restores the terminal.
cd "$(dirname "$0")/../.." || exit 1
. tests/tui/common.sh
fixtures_build || exit 1
BIN=$B/kcount-O0
N=250   # 5 s: time for a slow (sanitised, loaded) UI to start and attach
REF=$($BIN $N)
KOUT=$B/tui-kill-prog.out

# attached_ui [-p]: the fixture in the background, the UI attached to it
# (-p: qzdb -p PID, which uses the plain command line's line editor).
attached_ui() {
	$BIN $N > $KOUT 2>&1 &
	KPID=$!
	sleep 0.2
	if [ "$1" = -p ]; then
		tui_start 80 24 -- -p $KPID $BIN
	else
		tui_start 80 24 -- $BIN
		type_cmd "attach $KPID"
	fi
	# keys typed before the attach's stop is complete still go to the
	# program (the stop in libc reads libc's debug file first)
	if [ "$1" = -p ]; then
		see "attached -p" '^\(qzdb\)'
	else
		see "attached" ' stopped '
	fi
}

# ends NAME SIGNAL [-p]: send it to qzdb; the UI ends cleanly, the terminal is
# the shell's again and the program finishes as a plain run does.
ends() {
	shell=$($TMUX_CMD display-message -p -t 0 '#{pane_pid}')
	kill -"$2" $(pgrep -P "$shell" -x qzdb)
	see "$1: clean exit" '^QZDB-EXITED 0'
	[ "$3" = -p ] || not_see "$1: terminal restored" 'program output'
	wait $KPID
	_rc=$?
	if [ $_rc = 0 ] && [ "$(cat $KOUT)" = "$REF" ]; then
		pass "$1: the program runs on unharmed"
	else
		fail "$1: the program runs on unharmed" "status $_rc, output '$(cat $KOUT)'"
	fi
}

attached_ui
type_cmd 'break mix'
type_cmd 'continue'
see "attached, stopped" 'Breakpoint 1, mix'
ends "SIGTERM at a breakpoint" TERM

attached_ui
type_cmd 'break mix if i < 0'
type_cmd 'continue'
sleep 0.5
ends "SIGHUP while running" HUP

# the plain command line waiting for a line: SIGHUP ends the input. Both
# lines are typed at once (one write to the terminal): the second, read
# with the first, waits for the next prompt (the line editor dropped it,
# which failed this check now and then when the keys came fast)
attached_ui -p
$TMUX_CMD send-keys -t 0 -l 'break mix' \; send-keys -t 0 Enter \; \
	send-keys -t 0 -l 'continue' \; send-keys -t 0 Enter
see "-p: stopped (two lines typed at once)" 'Breakpoint 1, mix'
ends "-p: SIGHUP at the prompt" HUP -p
tui_end
