#!/bin/sh
# The UI with bad input and odd terminals: a missing theme (clear error,
# default kept), qzdbrc errors with their line number and bindings that
# work, a terminal too small, NO_COLOR, an 8-colour terminal, completion,
# history kept in ~/.qzdb_history, and UI commands in batch mode.
cd "$(dirname "$0")/../.." || exit 1
. tests/tui/common.sh
fixtures_build || exit 1
BIN=$B/basic-O0

# A missing theme, at start and at run time.
tui_start 80 24 -- --theme nosuch "$BIN"
see "missing --theme: error" "cannot open theme 'nosuch' .*nosuch.theme"
see "missing --theme: default kept" 'theme default \| F1'
type_cmd 'theme nosuch2'
see "missing theme: error" "cannot open theme 'nosuch2'"
see "missing theme: keeps" "keeping 'default'"
see "missing theme: default kept" 'theme default \| F1'
type_cmd 'theme ../x'
see "bad theme name" "bad theme name '../x'"
type_cmd 'color status red'
see "color usage" 'usage: color ELEMENT FG BG'
type_cmd 'color nosuch red blue'
see "color unknown element" "unknown element 'nosuch'"
type_cmd 'color status red puce'
see "color unknown colour" "unknown colour 'puce'"
type_cmd 'pane show nosuch'
see "pane unknown" 'No side pane "nosuch"'
type_cmd 'tui nosuch'
see "tui unknown action" 'Unknown UI action "nosuch"'
type_cmd 'bind source Hyper-x next'
see "bind unknown key" "bind: unknown key name 'Hyper-x'"
type_cmd 'pane show regs'
see "pane show regs" ' registers'
type_cmd 'pane hide regs'
wait_for 'pane hide regs'
sleep 0.2
not_see "pane hide regs" ' registers *$'
type_cmd 'quit'
see "quit after errors" '^QZDB-EXITED 0'

# qzdbrc: an unknown key name is reported with its line; good lines work.
mkdir -p "$TH/.config/qzdb"
cat > "$TH/.config/qzdb/qzdbrc" <<'RC'
# qzdb settings for the test
bind source F2 echo F2-WORKS\n
bind source Foo next
color status black yellow
bind generic F12 pane toggle bps
RC
tui_start 80 24 -- "$BIN"
see "qzdbrc unknown key with line number" "qzdbrc:3: bind: unknown key name 'Foo'"
keys Escape F2
see "qzdbrc binding works" '^F2-WORKS'
keys F12
see "qzdbrc generic binding" ' breakpoints'
see "qzdbrc color applied" '30m.\[43m not started' -e
keys :
type_cmd 'quit'
see "qzdbrc quit" '^QZDB-EXITED 0'
rm "$TH/.config/qzdb/qzdbrc"

# XDG_CONFIG_HOME is respected.
mkdir -p "$TH/xdg/qzdb"
echo 'bind nosuchpane x next' > "$TH/xdg/qzdb/qzdbrc"
tui_start 80 24 XDG_CONFIG_HOME=$TH/xdg -- "$BIN"
see "XDG_CONFIG_HOME qzdbrc" "xdg/qzdb/qzdbrc:1: bind: unknown pane 'nosuchpane'"
type_cmd 'quit'

# Too small: a message, not a crash; growing brings the UI back.
tui_start 50 12 -- "$BIN"
see "too small message" 'Terminal too small \(50x12\)'
$TMUX_CMD resize-window -t 0 -x 80 -y 24
see "grown back" 'source: basic.c'
$TMUX_CMD resize-window -t 0 -x 40 -y 10
see "shrunk again" 'Terminal too small \(40x10\)'
keys q
see "q quits when too small" '^QZDB-EXITED 0'

# NO_COLOR: attributes, no colours; TERM=screen: 8 colours only.
tui_start 80 24 NO_COLOR=1 -- "$BIN"
see "NO_COLOR mono theme" 'theme mono'
if screen -e | grep -q '\[3[0-7]m\|\[4[0-7]m\|38;5\|48;5'; then
	fail "NO_COLOR no colours" "colour codes on the screen"
else
	pass "NO_COLOR no colours"
fi
type_cmd 'quit'
tui_start 80 24 TERM=screen -- "$BIN"
see "TERM=screen runs" 'source: basic.c'
if screen -e | grep -q '38;5\|48;5'; then
	fail "TERM=screen 8 colours" "256-colour codes on the screen"
else
	pass "TERM=screen 8 colours"
fi
see "TERM=screen has colour" '\[4[0-7]m' -e
type_cmd 'quit'

# Completion and history.
tui_start 80 24 -- "$BIN"
keys -l 'brea'
keys Tab
see "complete command" '^\(qzdb\) break$'
keys -l 'fac'
keys Tab
see "complete function" '^\(qzdb\) break fact$'
keys Enter
see "completed command runs" 'Breakpoint 1 at .*line 24'
keys -l 'info br'
keys Tab
see "complete subcommand" '^\(qzdb\) info breakpoints$'
keys C-u
keys -l 'list basi'
keys Tab
see "complete file name" '^\(qzdb\) list basic.c$'
keys C-u
keys -l 'p'
keys Tab
see "several candidates listed" 'print.*ptype|ptype.*print'
keys C-u Up
see "history Up" '^\(qzdb\) break fact$'
keys C-u
type_cmd 'quit'
see "history quit" '^QZDB-EXITED 0'
if grep -q '^break fact *$' "$TH/.qzdb_history"; then
	pass "history saved"
else
	fail "history saved" "no 'break fact' in ~/.qzdb_history"
fi
tui_start 80 24 -- "$BIN"
keys Up
see "history loaded" '^\(qzdb\) quit$'
keys Up
see "history older" '^\(qzdb\) break fact$'
keys C-u
type_cmd 'quit'

# The terminal goes away (SIGHUP) while the program is stopped: qzdb
# leaves through its normal path and no process is left behind.
tui_start 80 24 -- "$B/spin-O0"
type_cmd 'break tick'
type_cmd 'run'
see "hangup: stopped" 'stopped at spin.c'
$TMUX_CMD kill-server 2>/dev/null
no_leftover "hangup: no process left" "$B/spin-O0"

# SIGTERM: a clean exit (terminal restored, program killed), status 0.
tui_start 80 24 -- "$B/spin-O0"
type_cmd 'break tick'
type_cmd 'run'
see "SIGTERM: stopped" 'stopped at spin.c'
shell=$($TMUX_CMD display-message -p -t 0 '#{pane_pid}')
kill -TERM $(pgrep -P "$shell" -x qzdb)
see "SIGTERM: clean exit" '^QZDB-EXITED 0'
not_see "SIGTERM: terminal restored" 'program output'
no_leftover "SIGTERM: no process left" "$B/spin-O0"

# A terminal curses does not know: the plain command line instead.
tui_start 80 24 TERM=nosuchterm -- "$BIN"
see "unknown TERM falls back" 'cannot show the full-screen UI; using the p'
type_cmd 'print 6*7'
see "unknown TERM plain CLI works" '^\$1 = 42'
type_cmd 'quit'
see "unknown TERM quit" '^QZDB-EXITED 0'
tui_end

# UI commands in batch mode: a clear error.
qz -ex 'theme light' "$BIN"
expect "batch theme error" 'error: "theme" works only in the full-screen UI.'
expect_rc "batch theme rc" 1
qz -ex 'tui toggle-break' "$BIN"
expect "batch tui error" 'error: "tui" works only in the full-screen UI.'
