# Sourced by tests/bench.sh (uses its figure, qzx, gdbx, BIN, N).
#
# watch-hw: a hardware watchpoint on `sink`, written with a new value once
# per iteration of loop-O0's N-iteration loop, with an ignore count larger
# than N so every hit traps, is checked, counted and resumed, and the
# program runs to its exit (checked: `info breakpoints` then says the
# watchpoint was hit N times): (time of that run - time of a plain `run`)
# / N, per hit. Only where the debug registers fire.
#
# watch-pageprot: `watch watched` on wloop-O0 (written once per 1000
# iterations: gdb 10000 iterations, 10 triggers; qzdb 500000, 500: its
# cost per trigger is too small to see over 10) with debug registers
# off (page protection, core/target/pagewatch.c), from `break main` to the exit
# with an ignore count (checked: hit 10 times), against gdb's software
# watchpoint (`set can-use-hw-watchpoints 0`) on the same program: (time
# of that run - time of `break main`, `run`, `continue` to the exit) / 10,
# in us per trigger.

# Do debug registers fire here? The capability probe says.
bench_dr_works() {
	$QZDB --batch -ex 'info platform' | grep -q '^Debug registers, write watch: *yes$'
}

wbad='rror|ndefined command|No symbol|Old value|^Watchpoint 1'
if bench_dr_works; then
	qf() { qzx -ex "watch sink" -ex "ignore 1 1000000" -ex run -ex "info breakpoints" $BIN $N; }
	qb() { qzx -ex run $BIN $N; }
	gf() { gdbx -ex "watch sink" -ex "ignore 1 1000000" -ex run -ex "info breakpoints" --args $BIN $N; }
	gb() { gdbx -ex run --args $BIN $N; }
	FMUST="already hit $N times" FNOT=$wbad BMUST=$exited BNOT=$bad
	figure watch-hw us/hit $N
else
	echo "watch-hw: skipped (the debug registers do not fire on this machine)"
fi

# gdb's software watchpoint single-steps: about a second a trigger.
WBIN=$B/wloop-O0
qf() { qzx -ex 'maint set debug-registers off' -ex 'break main' -ex run -ex 'watch watched' \
	-ex 'ignore 2 1000' -ex c -ex 'info breakpoints' $WBIN 500000; }
qb() { qzx -ex 'maint set debug-registers off' -ex 'break main' -ex run -ex c $WBIN 500000; }
gf() { gdbx -ex 'set can-use-hw-watchpoints 0' -ex 'break main' -ex run -ex 'watch watched' \
	-ex 'ignore 2 1000' -ex c -ex 'info breakpoints' --args $WBIN 10000; }
gb() { gdbx -ex 'break main' -ex run -ex c --args $WBIN 10000; }
FMUST='already hit (10|500) times' FNOT=$wbad BMUST=$exited BNOT=$bad
figure watch-pageprot us/trigger 10 500
