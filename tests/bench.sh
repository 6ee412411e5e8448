#!/bin/sh
# Benchmarks of qzdb against gdb (run by `make bench` after building ./qzdb;
# `make bench QUICK=1` runs a short version). One line per figure:
#   NAME: qzdb MED UNIT (MIN-MAX), gdb MED UNIT (MIN-MAX), speedup R[, floor F UNIT (WHAT), qzdb/floor X]
# R = gdb's median cost / qzdb's. Every run is pinned to one CPU (qzdb, gdb
# and the baselines alike), repeated RUNS times (default 5) and
# interleaved with the other debugger's (tests/bench/lib.sh).
#   cond-break-hit  `break work if i < 0` (never true) on loop-O0 N, `run`:
#                   (time of that batch run - time of a plain `run`) / N;
#                   floor: an int3 round trip under a bare ptrace loop
#   stepi           `break main`, `run`, `stepi N` on loop-O0 N:
#                   (that time - time of `break main`, `run`) / N; floor: a
#                   bare PTRACE_SINGLESTEP round trip (tests/bench/floor.c)
#   thread-break-hit  cond-break-hit with four threads (tests/bench/threads.sh)
# Environment: QZDB (default ./qzdb), GDB (default gdb), RUNS, N (default
# 20000; QUICK=1: 5000), QUICK, BENCH_CPU.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
[ "${QUICK:-0}" = 1 ] && N=${N:-5000}
N=${N:-20000}
. tests/bench/lib.sh
export QUICK RUNS N
BIN=$B/loop-O0
fixtures_build || { echo "bench: fixture build failed"; exit 1; }
gcc -O2 -o $B/floor tests/bench/floor.c || { echo "bench: floor build failed"; exit 1; }
echo "bench: pinned to CPU ${BENCH_PINNED:-none (taskset failed)}, $RUNS runs a figure, N=$N"

# per FULL BASE: (FULL - BASE) / N in microseconds, 2 decimals; empty if
# either is missing or the difference is not positive.
per() {
	[ -n "$1" ] && [ -n "$2" ] || return 0
	awk -v f="$1" -v b="$2" -v n="$N" 'BEGIN { if (f > b) printf "%.2f\n", (f - b) / n / 1000 }'
}

# report NAME UNIT QZ GDB: a figure without spread (one value each).
report() {
	_q=${3:-n/a} _g=${4:-n/a}
	[ "$_q" = n/a ] || _q="$_q $2"
	[ "$_g" = n/a ] || _g="$_g $2"
	_s=n/a
	if [ -n "$3" ] && [ -n "$4" ]; then
		_s=$(awk -v q="$3" -v g="$4" 'BEGIN { if (q > 0) printf "%.2fx\n", g / q; else print "n/a" }')
	fi
	echo "$1: qzdb $_q, gdb $_g, speedup $_s"
}

have_qz=0
[ -x "$QZDB" ] && have_qz=1

exited='exited normally'
bad='rror|ndefined command|not defined|No symbol'
# stepping must stop in main and not run the program to its end
atmain='Breakpoint 1, main'
notend="exited|not being run|$bad"

# 1. cond-break-hit: the condition is never true, so no stop, normal exit
qf() { qzx -ex "break work if i < 0" -ex run $BIN $N; }
qb() { qzx -ex run $BIN $N; }
gf() { gdbx -ex "break work if i < 0" -ex run --args $BIN $N; }
gb() { gdbx -ex run --args $BIN $N; }
FMUST=$exited FNOT="Breakpoint 1,|$bad" BMUST=$exited BNOT=$bad
FLOOR_CMD="$B/floor int3 $N" FLOOR_WHAT=int3-round-trip
figure cond-break-hit us/hit $N

# 2. stepi
qf() { qzx -ex "break main" -ex run -ex "stepi $N" $BIN $N; }
qb() { qzx -ex "break main" -ex run $BIN $N; }
gf() { gdbx -ex "break main" -ex run -ex "stepi $N" --args $BIN $N; }
gb() { gdbx -ex "break main" -ex run --args $BIN $N; }
FMUST=$atmain FNOT=$notend BMUST=$atmain BNOT=$notend
FLOOR_CMD="$B/floor step $N" FLOOR_WHAT=singlestep-round-trip
figure stepi us/step $N
FLOOR_CMD=""

# 3. startup-large: launch to the first prompt with all symbols usable, on the
# program of bench/gen.sh (200 units, >100 000 lines, gcc -g -O0, built once
# into $B/large/prog): `break` on a function of the last unit and `info line`
# on one of a middle unit, in batch mode; the median of RUNS, in ms.
ms3() { [ -s "$1" ] && awk '{ printf "%.3f %.3f %.3f\n", $1 / 1e6, $2 / 1e6, $3 / 1e6 }' "$1"; }
LARGE=$B/large/prog
if sh bench/gen.sh "$B/large" >"$LOG/gen-large.out" 2>&1; then
	set -- -ex 'break u199_f17' -ex 'info line u100_f7'
	best gdb-startup 'Breakpoint 1 at' "$bad" gdbx "$@" "$LARGE" >/dev/null
	best qz-startup 'Breakpoint 1 at' "$bad" qzx "$@" "$LARGE" >/dev/null
	if [ -s "$LOG/qz-startup.stats" ] && [ -s "$LOG/gdb-startup.stats" ]; then
		report_stats startup-large ms "$(ms3 "$LOG/qz-startup.stats")" "$(ms3 "$LOG/gdb-startup.stats")"
	else
		echo "startup-large: n/a (a run failed: see $LOG/qz-startup.out, $LOG/gdb-startup.out)"
	fi
else
	echo "startup-large: n/a (the large program's build failed: see $LOG/gen-large.out)"
fi
# startup-16mb: the same generator with 320 more struct types every unit
# describes (16.9 MB of debug info, as a project with a large common
# header), `break main`, `run`, `bt`; qzdb and gdb in turn, round by round.
BIG16=$B/large16/prog
if TYPES=320 sh bench/gen.sh "$B/large16" >"$LOG/gen-large16.out" 2>&1; then
	mb=$(size -A "$BIG16" | awk '/^\.debug/ { s += $2 } END { printf "%.1f", s / 1e6 }')
	: >"$LOG/qz-16mb.ns"
	: >"$LOG/gdb-16mb.ns"
	set -- -ex 'break main' -ex run -ex bt
	r=0
	while [ $r -lt "$RUNS" ]; do
		bench_run qz-16mb '^#0  main \(\)' "$bad" qzx "$@" "$BIG16" >>"$LOG/qz-16mb.ns" || break
		bench_run gdb-16mb '^#0  main \(\)' "$bad" gdbx "$@" "$BIG16" >>"$LOG/gdb-16mb.ns" || break
		r=$((r + 1))
	done
	if [ $r = "$RUNS" ]; then
		stats <"$LOG/qz-16mb.ns" >"$LOG/qz-16mb.stats"
		stats <"$LOG/gdb-16mb.ns" >"$LOG/gdb-16mb.stats"
		report_stats "startup-16mb ($mb MB of debug info)" ms "$(ms3 "$LOG/qz-16mb.stats")" \
			"$(ms3 "$LOG/gdb-16mb.stats")" | sed 's/$/ (goal: >= 2x)/'
	else
		echo "startup-16mb: n/a (a run failed: see $LOG/qz-16mb.out, $LOG/gdb-16mb.out)"
	fi
else
	echo "startup-16mb: n/a (the program's build failed: see $LOG/gen-large16.out)"
fi
. tests/bench/watch.sh   # 4. watch-hw (where debug registers fire), watch-pageprot
sh tests/bench/alter.sh
. tests/bench/solib.sh   # dlopen-cycle (shared libraries)
. tests/bench/libcdbg.sh # startup-libc-dbg, startup-no-libc (libc6-dbg read lazily)

# 4. checkpoints: tests/bench/ckpt.sh (checkpoint-rollback-64m vs gdb or a
# fork baseline, checkpoint-rollback-1page, checkpoint-space)
sh tests/bench/ckpt.sh

# 4. thread-break-hit: the same with four threads (tests/bench/threads.sh)
. tests/bench/threads.sh
sh tests/bench/slice.sh
sh tests/bench/reverse.sh   # reverse-watch vs gdb record full, reverse-step-10M
sh tests/bench/tui.sh
sh tests/bench/qzs.sh     # qzs-parse: session files (absolute, no gdb)
sh tests/bench/detect.sh  # detect-all-*: the detectors against valgrind memcheck
sh tests/bench/reduce.sh  # reduce-real: plain vs guided reduction on a real program
sh tests/bench/reexec.sh  # syscall-log, vdso-log: re-execution's system-call log
