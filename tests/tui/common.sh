# Helpers for the full-screen UI's screen tests (sourced): qzdb runs in a
# detached tmux server of its own, keys go in with send-keys, the screen
# comes back with capture-pane (-e: with its colour codes). Waits poll the
# screen until the expected text shows, with a time limit, never a fixed
# sleep.
. tests/lib.sh
NSESS=0
TMUX_CMD="tmux -L qzdbtest-$$"
TH=$(mktemp -d /tmp/qzdb-tui-XXXXXX)   # HOME of the UI under test
QZ_ABS=$(cd "$(dirname "$QZDB")" && pwd)/$(basename "$QZDB")

# tui_start W H ENV... -- ARGS...: start qzdb ARGS in a W x H terminal,
# inside a shell that reports qzdb's exit status when it ends.
tui_start() {
	_w=$1 _h=$2
	shift 2
	_env=""
	while [ "$1" != "--" ]; do _env="$_env $1"; shift; done
	shift
	$TMUX_CMD kill-server 2>/dev/null
	NSESS=$((NSESS + 1))   # a fresh server: the old one may still be exiting
	TMUX_CMD="tmux -L qzdbtest-$$-$NSESS"
	$TMUX_CMD new-session -d -x "$_w" -y "$_h" \
		"env HOME=$TH TERM=tmux-256color $_env $QZ_ABS $*; echo QZDB-EXITED \$?; sleep 30"
	wait_for '\(qzdb\)|too small' || true   # keys typed before start-up may be lost
}

screen() { $TMUX_CMD capture-pane -p -t 0 "$@" 2>/dev/null; }
keys() { $TMUX_CMD send-keys -t 0 "$@"; }
# type TEXT: literal text then Enter
type_cmd() { $TMUX_CMD send-keys -t 0 -l "$1"; $TMUX_CMD send-keys -t 0 Enter; }

# wait_for PATTERN [OPTS]: poll the screen (capture OPTS) up to 20 s (a
# loaded or sanitised run is slow; a screen that is right ends it at once).
wait_for() {
	_i=0
	while [ $_i -lt 200 ]; do
		screen $2 | grep -Eq -- "$1" && return 0
		sleep 0.1
		_i=$((_i + 1))
	done
	return 1
}

# see NAME PATTERN [OPTS]: the screen shows PATTERN (waiting for it).
see() {
	if wait_for "$2" "$3"; then
		pass "$1"
	else
		fail "$1" "no /$2/ on the screen:"
		screen | sed 's/^/    | /'
	fi
}

# row_of PATTERN: the first screen row (with colour codes) whose text
# matches PATTERN.
row_of() {
	n=$(screen | grep -nE -- "$1" | head -n 1 | cut -d: -f1)
	[ -n "$n" ] && screen -e | sed -n "${n}p"
}

# row_sgr NAME PATTERN SGR: the row of PATTERN carries the colour code SGR
# (e.g. 46: a cyan background), given a moment to be drawn.
row_sgr() {
	_i=0
	while [ $_i -lt 50 ] && ! row_of "$2" | grep -q "\[[0-9;]*$3m"; do
		sleep 0.1
		_i=$((_i + 1))
	done
	if row_of "$2" | grep -q "\[[0-9;]*$3m"; then pass "$1"; else
		fail "$1" "row /$2/ lacks colour $3: $(row_of "$2" | cat -v)"; fi
}

# not_see NAME PATTERN: the screen does not show PATTERN now.
not_see() {
	if screen | grep -Eq -- "$2"; then
		fail "$1" "unexpected /$2/ on the screen:"
		screen | sed 's/^/    | /'
	else
		pass "$1"
	fi
}

tui_end() {
	$TMUX_CMD kill-server 2>/dev/null
	rm -rf "$TH"
}
