#!/bin/sh
# Resizes never reach a stopped program: 20 window resizes between a
# checkpoint and a rollback, the program (which counts its SIGWINCHs)
# gets none, and the rollback gives back exactly the checkpoint's
# registers and stack memory (compared in the session file the UI wrote).
cd "$(dirname "$0")/../.." || exit 1
. tests/tui/common.sh
fixtures_build || exit 1
BIN=$B/winch-O0
S=$B/tui-resize
rm -rf $S
mkdir -p $S
F=$(cd $S && pwd)/storm.qzs

tui_start 80 24 -- --record-session "$F" "$BIN"
type_cmd 'break work'
type_cmd 'run'
see "stopped in work" 'stopped at winch.c'
type_cmd 'checkpoint'
see "checkpoint taken" 'Checkpoint 1 at'
type_cmd 'info registers'
type_cmd 'x/16xg $sp'
type_cmd 'continue'
see "went on to the next call" 'work \(i=1\)'
sizes="100x30 60x16 120x40 80x24 90x20 70x18 132x43 80x25 61x17 110x35"
n=0 ok=0
for round in 1 2; do
	for s in $sizes; do
		w=${s%x*} h=${s#*x}
		$TMUX_CMD resize-window -t 0 -x "$w" -y "$h"
		n=$((n + 1))
		_i=0   # laid out again: the status line is the new last row
		while [ $_i -lt 100 ]; do
			_s=$(screen)
			[ "$(printf '%s\n' "$_s" | wc -l)" = "$h" ] &&
				printf '%s\n' "$_s" | tail -n 1 | grep -q 'stopped at winch.c' && break
			sleep 0.05
			_i=$((_i + 1))
		done
		[ $_i -lt 100 ] && ok=$((ok + 1))
	done
done
[ "$n" = 20 ] && [ "$ok" = 20 ] && pass "20 resizes, each laid out again" ||
	fail "20 resizes, each laid out again" "$ok of $n seen"
$TMUX_CMD resize-window -t 0 -x 80 -y 24
wait_for 'stopped at winch.c' >/dev/null
type_cmd 'print winches'
see "no SIGWINCH reached the stopped program" '^\$1 = 0$'
type_cmd 'rollback 1'
see "rolled back" 'stopped at winch.c'
type_cmd 'info registers'
type_cmd 'x/16xg $sp'
type_cmd 'print winches'
see "still none after the rollback" '^\$2 = 0$'
type_cmd 'quit'
see "quit" '^QZDB-EXITED 0'
no_leftover "no process left" "$BIN"
tui_end

# block N CMD: the output of the N-th CMD in the session file
block() {
	awk -v want="(qzdb) $2" -v n="$1" '
		/^\(qzdb\) / { on = ($0 == want && ++k == n); next }
		on { print }' "$F"
}
a=$(block 1 'info registers') b=$(block 2 'info registers')
if [ -n "$a" ] && [ "$a" = "$b" ] && echo "$a" | grep -q '^rip '; then
	pass "registers after the rollback equal the checkpoint's"
else
	fail "registers after the rollback equal the checkpoint's" \
		"$(printf '%s\n' "$a" > $S/a; printf '%s\n' "$b" > $S/b; diff $S/a $S/b | head -8)"
fi
a=$(block 1 'x/16xg $sp') b=$(block 2 'x/16xg $sp')
if [ -n "$a" ] && [ "$a" = "$b" ] && echo "$a" | grep -q '^0x'; then
	pass "stack memory after the rollback equals the checkpoint's"
else
	fail "stack memory after the rollback equals the checkpoint's" "'$a' vs '$b'"
fi
