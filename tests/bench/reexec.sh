#!/bin/sh
# Re-execution's system-call log (ckpt/rx-log.c), called by tests/bench.sh.
#   syscall-log  `set checkpoint-interval 100000` (logging on, no checkpoint
#       taken in the run) then `run` of sysloop N (N getppid calls): (that
#       time - a plain `run`) / N, per call: two stops a call (entry, exit)
#       and the log. gdb: `catch syscall getppid` with an ignore count over
#       N (every entry and exit stops in gdb and is counted), the nearest
#       it has to seeing every call.
#   vdso-log  the same for N clock_gettime calls, answered by the vDSO
#       without the kernel: qzdb patches them into system calls while it
#       logs. gdb sees none of them (its figure is its plain run's noise).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
. tests/bench/lib.sh
[ "${QUICK:-0}" = 1 ] && N=${N:-5000}
N=${N:-20000}
SBIN=$B/sysloop
gcc -O2 -o $SBIN tests/bench/sysloop.c || { echo "reexec bench: build failed"; exit 1; }

FMUST="^done $N" FNOT='rror' BMUST="^done $N" BNOT='rror'
qf() { qzx -ex 'set checkpoint-interval 100000' -ex run $SBIN $N; }
qb() { qzx -ex run $SBIN $N; }
gf() { gdbx -ex 'catch syscall getppid' -ex 'ignore 1 10000000' -ex run --args $SBIN $N; }
gb() { gdbx -ex run --args $SBIN $N; }
figure syscall-log us/call $N

qf() { qzx -ex 'set checkpoint-interval 100000' -ex run $SBIN $N vdso; }
qb() { qzx -ex run $SBIN $N vdso; }
gf() { gdbx -ex run --args $SBIN $N vdso; }
gb() { gdbx -ex run --args $SBIN $N vdso; }
figure vdso-log us/call $N
