# Sourced by tests/bench.sh (uses its best, per, report, BIN, N, have_qz).
# watch-hit: a hardware watchpoint on `sink`, written with a new value once
# per iteration of loop-O0's N-iteration loop, with an ignore count larger
# than N so every hit traps, is checked, counted and resumed, and the
# program runs to its exit (checked: `info breakpoints` then says the
# watchpoint was hit N times): (time of that run - time of a plain `run`)
# / N, per hit.
wbad='rror|ndefined command|No symbol|Old value|^Watchpoint 1'
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
report watch-hit us/hit "$q" "$(per "$g_full" "$g_base")"
