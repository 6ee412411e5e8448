# Sourced by tests/bench.sh (uses its best, per, report, BIN, N, have_qz).
#
# watch-hw: a hardware watchpoint on `sink`, written with a new value once
# per iteration of loop-O0's N-iteration loop, with an ignore count larger
# than N so every hit traps, is checked, counted and resumed, and the
# program runs to its exit (checked: `info breakpoints` then says the
# watchpoint was hit N times): (time of that run - time of a plain `run`)
# / N, per hit. Only where the debug registers fire.
#
# watch-pageprot: `watch watched` on wloop-O0 (written once per 1000
# iterations of a 10000-iteration loop: 10 triggers) with debug registers
# off (page protection, core/target/pagewatch.c), from `break main` to the exit
# with an ignore count (checked: hit 10 times), against gdb's software
# watchpoint (`set can-use-hw-watchpoints 0`) on the same program: (time
# of that run - time of `break main`, `run`) / 10, in ms per trigger.

# Do debug registers fire here? The capability probe says.
bench_dr_works() {
	$QZDB --batch -ex 'info platform' | grep -q '^Debug registers, write watch: *yes$'
}

wbad='rror|ndefined command|No symbol|Old value|^Watchpoint 1'
if bench_dr_works; then
	wmust="already hit $N times"
	g_full=$(best gdb-watch "$wmust" "$wbad" gdb -ex "watch sink" -ex "ignore 1 1000000" -ex run \
		-ex "info breakpoints" --args $BIN $N)
	g_base=$(best gdb-watch-base "$exited" "$bad" gdb -ex run --args $BIN $N)
	q=""
	if [ $have_qz = 1 ]; then
		q_full=$(best qz-watch "$wmust" "$wbad" qz -ex "watch sink" -ex "ignore 1 1000000" -ex run \
			-ex "info breakpoints" $BIN $N)
		q_base=$(best qz-watch-base "$exited" "$bad" qz -ex run $BIN $N)
		q=$(per "$q_full" "$q_base")
	fi
	report watch-hw us/hit "$q" "$(per "$g_full" "$g_base")"
else
	echo "watch-hw: skipped (the debug registers do not fire on this machine)"
fi

# How qzdb is told not to use debug registers: TEMP env (the stub), later
# -ex 'maint set debug-registers off'.
WBIN=$B/wloop-O0
wmust='already hit 10 times'
wpage() {
	best -ex 'maint set debug-registers off' "$@"
}
ms10() {
	[ -n "$1" ] && [ -n "$2" ] && awk -v f="$1" -v b="$2" 'BEGIN { if (f > b) printf "%.3f\n", (f - b) / 10 / 1000000 }'
}
wg=$(RUNS=1 best gdb-wpage "$wmust" "$wbad" gdb -ex 'set can-use-hw-watchpoints 0' -ex 'break main' \
	-ex run -ex 'watch watched' -ex 'ignore 2 1000' -ex c -ex 'info breakpoints' --args $WBIN 10000)
wg_base=$(best gdb-wpage-base "$atmain" "$bad" gdb -ex 'break main' -ex run --args $WBIN 10000)
wq=""
if [ $have_qz = 1 ]; then
	wq_full=$(wpage qz-wpage "$wmust" "$wbad" qz -ex 'break main' -ex run -ex 'watch watched' \
		-ex 'ignore 2 1000' -ex c -ex 'info breakpoints' $WBIN 10000)
	wq_base=$(wpage qz-wpage-base "$atmain" "$bad" qz -ex 'break main' -ex run $WBIN 10000)
	wq=$(ms10 "$wq_full" "$wq_base")
fi
report watch-pageprot ms/trigger "$wq" "$(ms10 "$wg" "$wg_base")"
