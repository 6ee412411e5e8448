#!/bin/sh
# Recording and slicing benchmarks (issue 8), called from tests/bench.sh.
#   record-rate   the same region (loop-O0: main to its last line, N2
#                 iterations) under qzdb's `record on` and gdb's `record
#                 full`: (time with recording - time without) / instructions
#   slice-time    a 1-million-instruction recording of sl_long-O0, then a
#                 slice from each of its last 20 statements: the time of each
#                 slice as qzdb measures it (best and worst of the 20)
#   bytes-per-insn  from `info record` after the long recording
# Environment: QZDB, GDB, RUNS, N2 (default 2000). Times: the median of RUNS.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
N2=${N2:-2000}
. tests/bench/lib.sh
fixtures_build || { echo "bench: fixture build failed"; exit 1; }

BIN=$B/loop-O0
STOP=loop.c:20
q_rec=$(best qz-rec '' '' qzx -ex 'break main' -ex run -ex 'record on' -ex "break $STOP" \
	-ex continue -ex 'info record' $BIN $N2)
insns=$(sed -n 's/^Recorded \([0-9]*\) instructions.*/\1/p' "$LOG/qz-rec.out")
q_base=$(best qz-rec-base '' '' qzx -ex 'break main' -ex run -ex "break $STOP" -ex continue $BIN $N2)
g_rec=$(best gdb-rec '' '' gdbx -ex 'break main' -ex run -ex 'record full' -ex 'set record full insn-number-max unlimited' \
	-ex "break $STOP" -ex continue -ex 'info record' --args $BIN $N2)
g_insns=$(sed -n 's/^Log contains \([0-9]*\) instructions.*/\1/p' "$LOG/gdb-rec.out")
g_base=$(best gdb-rec-base '' '' gdbx -ex 'break main' -ex run -ex "break $STOP" -ex continue --args $BIN $N2)
if [ -n "$q_rec" ] && [ -n "$g_rec" ] && [ -n "$insns" ] && [ -n "$g_insns" ]; then
	awk -v q="$q_rec" -v qb="$q_base" -v g="$g_rec" -v gb="$g_base" -v n="$insns" -v gn="$g_insns" 'BEGIN {
		qu = (q - qb) / n / 1000; gu = (g - gb) / gn / 1000
		printf "record-rate: qzdb %.2f us/insn, gdb %.2f us/insn, speedup %.2fx (%d vs %d instructions)\n", qu, gu, gu / qu, n, gn }'
else
	echo "record-rate: qzdb n/a, gdb n/a, speedup n/a (a run failed; see $LOG/qz-rec.out, $LOG/gdb-rec.out)"
fi

# Slices from the last 20 statements of a long recording.
set -- -ex 'break main' -ex run -ex 'record on' -ex 'break sl_long.c:38' -ex continue -ex 'info record'
l=18
while [ $l -le 37 ]; do
	set -- "$@" -ex "slice sl_long.c:$l"
	l=$((l + 1))
done
set -- "$@" -ex 'info slices'
_runs=$RUNS
RUNS=1
best qz-slice '' '' qzx "$@" $B/sl_long-O0 >/dev/null
RUNS=$_runs
sed -n 's/^Recorded \([0-9]*\) instructions.*(\([0-9.]*\) bytes per instruction).*/bytes-per-insn: qzdb \2 bytes\/insn over \1 instructions (Qzdb: 13.65 KB per 1000)/p' "$LOG/qz-slice.out"
awk '/^Slice [0-9]+ from .* in [0-9.]+ s$/ { t = $(NF - 1); n++; s += t; if (t > max) max = t; if (min == "" || t < min) min = t }
	END { if (n) printf "slice-time: %d slices, best %.3f s, mean %.3f s, worst %.3f s (goal: under 1 s each)\n", n, min, s / n, max;
	      else print "slice-time: n/a (see tests/build/bench/qz-slice.out)" }' "$LOG/qz-slice.out"
