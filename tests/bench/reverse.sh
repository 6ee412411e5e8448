#!/bin/sh
# Reverse execution benchmarks (issue 19), called from tests/bench.sh.
#   reverse-watch   tests/bench/revwatch.c recorded from `sink = 0` to its
#                   return (a loop of N iterations between mark's write and
#                   the end), then `watch mark` (software: gdb's hardware
#                   watchpoints do not fire while it replays here) and
#                   `reverse-continue` back to mark's write: (time with the
#                   reverse-continue - time without) / instructions gone
#                   back, in us per instruction; qzdb over about 1 million
#                   instructions (QN iterations), gdb's `record full` over
#                   about 90 000 (GN): it records at tens of us an
#                   instruction, so 1 million would take it minutes
#   reverse-step-10M  the same program recorded over about 10 million
#                   instructions (undo limit unlimited), then RS
#                   reverse-steps from the end: (time with them - time
#                   without) / RS, in ms per reverse-step (qzdb only: gdb's
#                   record full cannot hold 10 million instructions in
#                   reasonable time or memory)
# Environment: QZDB, GDB, RUNS, QUICK; QN (default 110000; QUICK 22000),
# GN (10000; QUICK 2000), BN (1110000; QUICK 220000), RS (1000).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
if [ "${QUICK:-0}" = 1 ]; then QN=${QN:-22000} GN=${GN:-2000} BN=${BN:-220000}; fi
QN=${QN:-110000} GN=${GN:-10000} BN=${BN:-1110000} RS=${RS:-1000}
. tests/bench/lib.sh
BIN=$B/revwatch
[ $BIN -nt tests/bench/revwatch.c ] ||
	gcc -g -O0 -Wl,-z,now -o $BIN tests/bench/revwatch.c || { echo "reverse: build failed"; exit 1; }

rec="-ex 'break 10' -ex run -ex 'record on' -ex 'break 14' -ex continue"
back="-ex 'set can-use-hw-watchpoints 0' -ex 'watch mark' -ex reverse-continue -ex 'info record'"
# back_of N: the instructions reverse-continue goes back over for N
# iterations, as qzdb's `info record` counts them (gdb's numbering is the same).
back_of() {
	eval "qzx $rec $back -ex 'info record' $BIN $1" 2>&1 | awk '
		/^Current instruction number is/ { c = $5 + 0 }
		/^Highest recorded instruction number is/ { h = $6 + 0 }
		END { if (h > c) print h - c }'
}
QI=$(back_of $QN) GI=$(back_of $GN)
if [ -z "$QI" ] || [ -z "$GI" ]; then
	echo "reverse-watch: n/a (calibration failed)"
else
	echo "reverse-watch: qzdb goes back $QI instructions, gdb $GI"
	qf() { eval "qzx $rec $back $BIN $QN"; }
	qb() { eval "qzx $rec $BIN $QN"; }
	gf() {
		gdbx -ex 'break 10' -ex run -ex 'record full' -ex 'set record full insn-number-max unlimited' \
			-ex 'break 14' -ex continue -ex 'set can-use-hw-watchpoints 0' -ex 'watch mark' \
			-ex reverse-continue --args $BIN $GN
	}
	gb() {
		gdbx -ex 'break 10' -ex run -ex 'record full' -ex 'set record full insn-number-max unlimited' \
			-ex 'break 14' -ex continue --args $BIN $GN
	}
	FMUST='^New value = 0$' FNOT='rror|No more reverse' BMUST='Breakpoint 2, main' BNOT='rror'
	figure reverse-watch us/insn "$GI" "$QI"
	# gdb's recording costs it seconds that vary more than its
	# reverse-continue does: its own clock around the command too
	gt() {
		gdbx -ex 'break 10' -ex run -ex 'record full' -ex 'set record full insn-number-max unlimited' \
			-ex 'break 14' -ex continue -ex 'set can-use-hw-watchpoints 0' -ex 'watch mark' \
			-ex 'python import time; t0 = time.time()' -ex reverse-continue \
			-ex 'python print("RCTIME %d" % ((time.time() - t0) * 1e9))' --args $BIN $GN
	}
	: >$LOG/reverse-watch-gdb-clock.ns
	k=0
	while [ $k -lt "$RUNS" ]; do
		gt 2>&1 </dev/null | sed -n 's/^RCTIME //p' >>$LOG/reverse-watch-gdb-clock.ns
		k=$((k + 1))
	done
	stats <$LOG/reverse-watch-gdb-clock.ns | awk -v n="$GI" '{
		printf "reverse-watch-gdb-clock: gdb %.2f us/insn (%.2f-%.2f) timed by its own clock around reverse-continue\n",
			$2 / n / 1000, $1 / n / 1000, $3 / n / 1000 }'
	sed -n 's/^Applied [0-9]* entries in .* (\(.*\) us each)\./reverse-watch-undo: qzdb applies an undo entry in \1 us (info record, the undo alone)/p' \
		$LOG/reverse-watch-qf.out 2>/dev/null | tail -1
fi

# reverse-step latency at the end of a long recording (qzdb only)
steps=""
k=0
while [ $k -lt "$RS" ]; do steps="$steps -ex reverse-step"; k=$((k + 1)); done
long="-ex 'set record undo-limit unlimited' $rec"
rsf() { eval "qzx $long $steps -ex 'info record' $BIN $BN"; }
rsb() { eval "qzx $long $BIN $BN"; }
t_with=$(best rs10m '^Current instruction number' 'rror|No more' rsf)
t_without=$(best rs10m-base 'Breakpoint 2, main' 'rror' rsb)
insns=$(sed -n 's/^Highest recorded instruction number is \([0-9]*\).*/\1/p' $LOG/rs10m.out)
if [ -n "$t_with" ] && [ -n "$t_without" ]; then
	awk -v a="$t_with" -v b="$t_without" -v n="$RS" -v i="$insns" 'BEGIN {
		printf "reverse-step-10M: qzdb %.3f ms/reverse-step at the end of %s recorded instructions (medians: %.2f s with %d, %.2f s without)\n",
			(a - b) / n / 1e6, i, a / 1e9, n, b / 1e9 }'
else
	echo "reverse-step-10M: n/a (a run failed: see $LOG/rs10m*.out)"
fi
