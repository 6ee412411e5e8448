# thread-break-hit (sourced by tests/bench.sh: figure, qzx, gdbx, N):
# `break tick if v < 0` (never true) in thrloop-O0, four threads calling
# tick() N/4 times each; every hit stops all four threads and resumes them.
# (time of that run - time of a plain `run`) / N.
TBIN=$B/thrloop-O0
qf() { qzx -ex "break tick if v < 0" -ex run $TBIN $N; }
qb() { qzx -ex run $TBIN $N; }
gf() { gdbx -ex "break tick if v < 0" -ex run --args $TBIN $N; }
gb() { gdbx -ex run --args $TBIN $N; }
FMUST=$exited FNOT="Breakpoint 1,|$bad" BMUST=$exited BNOT=$bad
figure thread-break-hit us/hit $N
