#!/bin/sh
# Benchmarks of qzdb against gdb (run by `make bench` after building ./qzdb).
# One line per figure:
#   NAME: qzdb VALUE UNIT, gdb VALUE UNIT, speedup Rx     (R = gdb cost / qzdb cost)
# Figures (and qzs-parse, an absolute one: tests/bench/qzs.sh):
#   cond-break-hit  `break work if i < 0` (never true) on loop-O0 20000, `run`:
#                   (time of that batch run - time of a plain `run`) / 20000
#   stepi           `break main`, `run`, `stepi 20000` on loop-O0 20000:
#                   (that time - time of `break main`, `run`) / 20000
#   thread-break-hit  cond-break-hit with four threads (tests/bench/threads.sh)
# Every time is the best (minimum) of RUNS runs (default 3).
# Environment: QZDB (default ./qzdb), GDB (default gdb), RUNS, N (default 20000).
# Nothing is pinned here (qzdb pins itself).
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
GDB=${GDB:-gdb}
RUNS=${RUNS:-3}
N=${N:-20000}
BIN=$B/loop-O0
LOG=$B/bench
mkdir -p "$LOG"
fixtures_build || { echo "bench: fixture build failed"; exit 1; }

# best TAG MUST MUSTNOT gdb|qz ARGS...: run gdb -nx -batch ARGS or qzdb --batch
# ARGS RUNS times (stdin
# /dev/null, output to $LOG/TAG.out), print the minimum wall time in ns. Print
# nothing (return 1) if a run times out, its output has no line matching the
# extended regex MUST or has one matching MUSTNOT (empty: no such check).
best() {
	_tag=$1 _must=$2 _mustnot=$3 _dbg=$4
	shift 4
	if [ "$_dbg" = gdb ]; then
		set -- "$GDB" -nx -batch -iex 'set debuginfod enabled off' \
			-ex 'set pagination off' -ex 'set confirm off' "$@"
	else
		set -- "$QZDB" --batch "$@"
	fi
	_best=""
	_r=0
	while [ $_r -lt "$RUNS" ]; do
		_t0=$(date +%s%N)
		timeout 300 "$@" >"$LOG/$_tag.out" 2>&1 </dev/null
		_rc=$?
		_t1=$(date +%s%N)
		[ $_rc -ge 124 ] && return 1
		[ -n "$_must" ] && ! grep -Eq -- "$_must" "$LOG/$_tag.out" && return 1
		[ -n "$_mustnot" ] && grep -Eq -- "$_mustnot" "$LOG/$_tag.out" && return 1
		_d=$((_t1 - _t0))
		if [ -z "$_best" ] || [ $_d -lt "$_best" ]; then _best=$_d; fi
		_r=$((_r + 1))
	done
	echo "$_best"
}

# per FULL BASE: (FULL - BASE) / N in microseconds, 2 decimals; empty if
# either is missing or the difference is not positive.
per() {
	[ -n "$1" ] && [ -n "$2" ] || return 0
	awk -v f="$1" -v b="$2" -v n="$N" 'BEGIN { if (f > b) printf "%.2f\n", (f - b) / n / 1000 }'
}

# report NAME UNIT QZ GDB
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
g_full=$(best gdb-cond "$exited" "Breakpoint 1,|$bad" gdb -ex "break work if i < 0" -ex run --args $BIN $N)
g_base=$(best gdb-cond-base "$exited" "$bad" gdb -ex run --args $BIN $N)
q=""
if [ $have_qz = 1 ]; then
	q_full=$(best qz-cond "$exited" "Breakpoint 1,|$bad" qz -ex "break work if i < 0" -ex run $BIN $N)
	q_base=$(best qz-cond-base "$exited" "$bad" qz -ex run $BIN $N)
	q=$(per "$q_full" "$q_base")
fi
report cond-break-hit us/hit "$q" "$(per "$g_full" "$g_base")"

# 2. stepi
g_full=$(best gdb-stepi "$atmain" "$notend" gdb -ex "break main" -ex run -ex "stepi $N" --args $BIN $N)
g_base=$(best gdb-stepi-base "$atmain" "$notend" gdb -ex "break main" -ex run --args $BIN $N)
q=""
if [ $have_qz = 1 ]; then
	q_full=$(best qz-stepi "$atmain" "$notend" qz -ex "break main" -ex run -ex "stepi $N" $BIN $N)
	q_base=$(best qz-stepi-base "$atmain" "$notend" qz -ex "break main" -ex run $BIN $N)
	q=$(per "$q_full" "$q_base")
fi
report stepi us/step "$q" "$(per "$g_full" "$g_base")"

# 3. startup-large: launch to the first prompt with all symbols usable, on the
# program of bench/gen.sh (200 units, >100 000 lines, gcc -g -O0, built once
# into $B/large/prog): `break` on a function of the last unit and `info line`
# on one of a middle unit, in batch mode; best of RUNS, in milliseconds.
ms() {
	[ -n "$1" ] && awk -v t="$1" 'BEGIN { printf "%.1f\n", t / 1000000 }'
}
LARGE=$B/large/prog
if sh bench/gen.sh "$B/large" >"$LOG/gen-large.out" 2>&1; then
	set -- -ex 'break u199_f17' -ex 'info line u100_f7'
	g=$(best gdb-startup 'Breakpoint 1 at' "$bad" gdb "$@" "$LARGE")
	q=""
	[ $have_qz = 1 ] && q=$(best qz-startup 'Breakpoint 1 at' "$bad" qz "$@" "$LARGE")
	report startup-large ms "$(ms "$q")" "$(ms "$g")"
else
	echo "bench: large program build failed (see $LOG/gen-large.out)"
	report startup-large ms "" ""
fi
. tests/bench/watch.sh   # 4. watch-hw (where debug registers fire), watch-pageprot
sh tests/bench/alter.sh
. tests/bench/solib.sh   # dlopen-cycle (shared libraries)

# 4. checkpoints: tests/bench/ckpt.sh (64 MiB dirty vs gdb or a fork baseline, 1 page, space)
sh tests/bench/ckpt.sh

# 4. thread-break-hit: the same with four threads (tests/bench/threads.sh)
. tests/bench/threads.sh
sh tests/bench/slice.sh
sh tests/bench/tui.sh
sh tests/bench/qzs.sh     # qzs-parse: session files (absolute, no gdb)
