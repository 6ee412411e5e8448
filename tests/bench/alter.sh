#!/bin/sh
# Benchmark of switch and suppress (issue 6), called from tests/bench.sh.
# On alter_loop-O0 (a loop whose `if` line and `total +=` line each run once
# per iteration), per execution of the altered statement:
#   alter-switch    `switch alter_loop.c:L all` vs gdb's manual way: a
#                   breakpoint on L whose commands evaluate the condition and
#                   `jump` to the other branch
#   alter-suppress  `suppress alter_loop.c:L all` vs gdb: a breakpoint on L
#                   whose commands `jump *END` (END: where line L's code ends)
# cost = (time of that run - time of a plain run) / iterations.
# gdb's manual switch (an `if` in breakpoint commands) costs milliseconds
# per execution, so it runs GN iterations (default N/10), once; everything
# else runs N (default 20000) iterations, the median of RUNS (tests/bench/lib.sh). Also alter-none: a plain `run` under qzdb against the program run
# directly (no alteration armed, no traps: the same speed).
# Environment: QZDB, GDB, RUNS, N, GN.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
N=${N:-20000}
GN=${GN:-$((N / 10))}
. tests/bench/lib.sh
BIN=$B/alter_loop-O0
SRC=tests/fixtures/alter_loop.c
fixtures_build || { echo "bench: fixture build failed"; exit 1; }
L_SW=$(grep -n 'SWITCH' $SRC | cut -d: -f1)
L_SUP=$(grep -n 'SUPPRESS' $SRC | cut -d: -f1)
ok='exited normally'

# per FULL BASE ITER: microseconds per iteration, 2 decimals.
per() {
	[ -n "$1" ] && [ -n "$2" ] || return 0
	awk -v f="$1" -v b="$2" -v n="$3" 'BEGIN { if (f > b) printf "%.2f\n", (f - b) / n / 1000 }'
}

report() {
	_gn=${4:-$N}
	_s=n/a
	if [ -n "$2" ] && [ -n "$3" ]; then
		_s=$(awk -v q="$2" -v g="$3" 'BEGIN { if (q > 0) printf "%.1fx\n", g / q; else print "n/a" }')
	fi
	echo "$1: qzdb ${2:-n/a} us/exec (N=$N), gdb ${3:-n/a} us/exec (N=$_gn, jump in commands), speedup $_s"
}

END=$(gdb -nx -batch -ex "info line alter_loop.c:$L_SUP" $BIN 2>/dev/null |
	sed -n 's/.*and ends at 0x[0-9a-f]* <\([a-z_]*+[0-9]*\)>.*/\1/p')
GS=$LOG/alter-switch.gdb
printf 'break alter_loop.c:%s\ncommands\nsilent\nif (i %% 2 == 0)\njump %s\nelse\njump %s\nend\nend\nrun\n' \
	"$L_SW" "$L_SUP" $((L_SW + 1)) >"$GS"
GP=$LOG/alter-suppress.gdb
printf 'break alter_loop.c:%s\ncommands\nsilent\njump *(%s)\nend\nrun\n' "$L_SUP" "$END" >"$GP"

q_base=$(best qz-alter-base "$ok" "" qzx -ex run $BIN $N)
q_sw=$(best qz-alter-switch "$ok" "" qzx -ex "switch alter_loop.c:$L_SW all" \
	-ex 'set alter-verbose off' -ex run $BIN $N)
q_sup=$(best qz-alter-suppress "$ok" "" qzx -ex "suppress alter_loop.c:$L_SUP all" \
	-ex 'set alter-verbose off' -ex run $BIN $N)
g_base_gn=$(best gdb-alter-base-gn "$ok" "" gdbx -ex run --args $BIN $GN)
_runs=$RUNS
RUNS=1   # gdb's manual switch costs milliseconds an execution
g_sw=$(best gdb-alter-switch "$ok" "" gdbx -x "$GS" --args $BIN $GN)
RUNS=$_runs
g_base=$(best gdb-alter-base "$ok" "" gdbx -ex run --args $BIN $N)
g_sup=$(best gdb-alter-suppress "$ok" "" gdbx -x "$GP" --args $BIN $N)
report alter-switch "$(per "$q_sw" "$q_base" $N)" "$(per "$g_sw" "$g_base_gn" $GN)" $GN
report alter-suppress "$(per "$q_sup" "$q_base" $N)" "$(per "$g_sup" "$g_base" $N)"

native=$(best native-alter "$ok" "" sh -c "$BIN $N && echo 'exited normally'")
ms() { [ -n "$1" ] && awk -v t="$1" 'BEGIN { printf "%.1f\n", t / 1000000 }'; }
echo "alter-none: qzdb run $(ms "$q_base") ms, native $(ms "$native") ms (N=$N, no alteration armed)"
