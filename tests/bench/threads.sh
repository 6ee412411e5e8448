# thread-break-hit (sourced by tests/bench.sh, which defines best, per,
# report, N, RUNS): `break tick if v < 0` (never true) in thrloop-O0, four
# threads calling tick() N/4 times each; every hit stops all four threads
# and resumes them. (time of that run - time of a plain `run`) / N.
TBIN=$B/thrloop-O0
g_full=$(best gdb-thr "$exited" "Breakpoint 1,|$bad" gdb -ex "break tick if v < 0" -ex run --args $TBIN $N)
g_base=$(best gdb-thr-base "$exited" "$bad" gdb -ex run --args $TBIN $N)
q=""
if [ $have_qz = 1 ]; then
	q_full=$(best qz-thr "$exited" "Breakpoint 1,|$bad" qz -ex "break tick if v < 0" -ex run $TBIN $N)
	q_base=$(best qz-thr-base "$exited" "$bad" qz -ex run $TBIN $N)
	q=$(per "$q_full" "$q_base")
fi
report thread-break-hit us/hit "$q" "$(per "$g_full" "$g_base")"
