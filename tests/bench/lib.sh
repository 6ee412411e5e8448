# Shared by every benchmark script (sourced after tests/lib.sh): one way to
# time a run, so that qzdb, gdb and every baseline are measured alike.
#  - Pinned: the benchmark pins itself (and so every program it starts:
#    qzdb, gdb, the debuggee, a baseline) to one CPU, BENCH_CPU (default the
#    last one); qzdb's own pinning then stays on that CPU.
#  - Repeated: RUNS times (default 5; QUICK=1: 3), the figure is the
#    median, printed with the minimum and maximum.
#  - Interleaved: `figure` runs its four commands in turn, round by round,
#    so that a slow minute of the machine hits qzdb and gdb alike.
# Environment: QZDB, GDB, RUNS, QUICK, BENCH_CPU.
GDB=${GDB:-gdb}
if [ "${QUICK:-0}" = 1 ]; then RUNS=${RUNS:-3}; else RUNS=${RUNS:-5}; fi
LOG=$B/bench
mkdir -p "$LOG"
if [ -z "$BENCH_PINNED" ]; then
	BENCH_CPU=${BENCH_CPU:-$(($(nproc 2>/dev/null || echo 1) - 1))}
	taskset -c -p "$BENCH_CPU" $$ >/dev/null 2>&1 && BENCH_PINNED=$BENCH_CPU
	export BENCH_CPU BENCH_PINNED
fi

# gdbx ARGS: gdb in batch mode, as a user would run it for the same work;
# qzx ARGS: qzdb's. Both give up after 10 minutes (status 124).
gdbx() {
	timeout 600 "$GDB" -nx -batch -iex 'set debuginfod enabled off' -ex 'set pagination off' \
		-ex 'set confirm off' "$@"
}
qzx() { timeout 600 "$QZDB" --batch "$@"; }

# bench_run TAG MUST MUSTNOT CMD...: run CMD once (a program or a shell
# function; stdin /dev/null, output in $LOG/TAG.out); print its wall time
# in ns. Nothing, status 1, if it timed out (status 124 or more), its output
# lacks a line matching the extended regex MUST or has one matching MUSTNOT
# (an empty pattern is no check).
bench_run() {
	_tag=$1 _must=$2 _not=$3
	shift 3
	_t0=$(date +%s%N)
	"$@" >"$LOG/$_tag.out" 2>&1 </dev/null
	_rc=$?
	_t1=$(date +%s%N)
	[ $_rc -ge 124 ] && return 1
	[ -n "$_must" ] && ! grep -Eq -- "$_must" "$LOG/$_tag.out" && return 1
	[ -n "$_not" ] && grep -Eq -- "$_not" "$LOG/$_tag.out" && return 1
	echo $((_t1 - _t0))
}

# stats: "min median max" of the numbers on stdin (nothing if none).
stats() {
	sort -g | awk '{ a[NR] = $1 } END { if (NR) print a[1], a[int((NR + 1) / 2)], a[NR] }'
}

# best TAG MUST MUSTNOT CMD...: the median wall time (ns) of RUNS runs of CMD;
# min, median and max go to $LOG/TAG.stats. Nothing if a run fails.
best() {
	_btag=$1
	: >"$LOG/$_btag.ns"
	_r=0
	while [ $_r -lt "$RUNS" ]; do
		bench_run "$@" >>"$LOG/$_btag.ns" || return 1
		_r=$((_r + 1))
	done
	stats <"$LOG/$_btag.ns" | tee "$LOG/$_btag.stats" | awk '{ print $2 }'
}

# figure NAME UNIT DIV [QDIV]: the cost per DIV of a piece of work under qzdb and
# under gdb, from four functions the caller defines: qf and qb (qzdb with
# the work, and without it), gf and gb (gdb's). Round by round, each of the
# four runs once; a round gives (f - b) / DIV in microseconds for each
# debugger (QDIV for qzdb's, when its commands do more of the same work
# than gdb's could in reasonable time). The checks: FMUST/FNOT for qf and
# gf, BMUST/BNOT for qb and gb.
# Prints NAME: qzdb MED UNIT (MIN-MAX), gdb MED UNIT (MIN-MAX), speedup R
# (R: the ratio of the medians, gdb's cost / qzdb's). With FLOOR_CMD (a
# program printing the floor's cost in UNIT: the kernel round trip the work
# cannot avoid) and FLOOR_WHAT, the floor is measured in each round too and
# its median printed with qzdb's ratio to it.
figure() {
	_name=$1 _unit=$2 _div=$3 _qdiv=${4:-$3}
	: >"$LOG/$_name.qz"
	: >"$LOG/$_name.gdb"
	: >"$LOG/$_name.floor"
	_r=0 _ok=1
	while [ $_r -lt "$RUNS" ]; do
		_qf=$(bench_run "$_name-qf" "$FMUST" "$FNOT" qf) || _ok=0
		_gf=$(bench_run "$_name-gf" "$FMUST" "$FNOT" gf) || _ok=0
		_qb=$(bench_run "$_name-qb" "$BMUST" "$BNOT" qb) || _ok=0
		_gb=$(bench_run "$_name-gb" "$BMUST" "$BNOT" gb) || _ok=0
		[ $_ok = 1 ] || break
		[ -z "$FLOOR_CMD" ] || $FLOOR_CMD >>"$LOG/$_name.floor"
		awk -v f="$_qf" -v b="$_qb" -v n="$_qdiv" 'BEGIN { printf "%.3f\n", (f - b) / n / 1000 }' >>"$LOG/$_name.qz"
		awk -v f="$_gf" -v b="$_gb" -v n="$_div" 'BEGIN { printf "%.3f\n", (f - b) / n / 1000 }' >>"$LOG/$_name.gdb"
		_r=$((_r + 1))
	done
	if [ $_ok = 0 ]; then
		echo "$_name: n/a (a run failed: see $LOG/$_name-*.out)"
		return 1
	fi
	_floor=""
	[ -s "$LOG/$_name.floor" ] && _floor="$(stats <"$LOG/$_name.floor" | awk '{ print $2 }') $FLOOR_WHAT"
	report_stats "$_name" "$_unit" "$(stats <"$LOG/$_name.qz")" "$(stats <"$LOG/$_name.gdb")" "$_floor"
}

# report_stats NAME UNIT "QMIN QMED QMAX" "GMIN GMED GMAX" ["FLOOR WHAT"]
report_stats() {
	echo "$3 $4" | awk -v name="$1" -v unit="$2" -v floor="$5" '{
		s = ($2 > 0) ? sprintf("%.2fx", $5 / $2) : "n/a"
		printf "%s: qzdb %.2f %s (%.2f-%.2f), gdb %.2f %s (%.2f-%.2f), speedup %s",
			name, $2, unit, $1, $3, $5, unit, $4, $6, s
		if (floor != "") {
			split(floor, f, " ")
			printf ", floor %.2f %s (%s), qzdb/floor %.2fx", f[1], unit, substr(floor, length(f[1]) + 2), $2 / f[1]
		}
		printf "\n" }'
}
