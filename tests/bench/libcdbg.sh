#!/bin/sh
# Benchmark of libc's separate debug information (libc6-dbg), sourced by
# tests/bench.sh (uses its figure, qzx, gdbx):
#   startup-libc-dbg  `break fgets`, `run`, `bt`, `finish` on libc_fgets-O0
#                     (libc's debug file read for the first time at the
#                     stop): the whole session's wall time, in ms.
#   startup-no-libc   `break main`, `run`, `bt`: nothing inside libc is
#                     looked at, so its debug file is never read.
LBIN=$B/libc_fgets-O0
LIN=$B/libcdbg-input.txt
printf 'hello\n' >$LIN
if libc_dbg; then
	qf() { qzx -ex 'break fgets' -ex "run < $LIN" -ex bt -ex finish $LBIN; }
	gf() { gdbx -ex 'break fgets' -ex "run < $LIN" -ex bt -ex finish $LBIN; }
	qb() { :; }
	gb() { :; }
	FMUST='^Value returned is \$1 = ' FNOT='' BMUST='' BNOT=''
	figure startup-libc-dbg ms 1000
else
	echo "startup-libc-dbg: n/a (libc6-dbg is not installed)"
fi
qf() { qzx -ex 'break main' -ex "run < $LIN" -ex bt $LBIN; }
gf() { gdbx -ex 'break main' -ex "run < $LIN" -ex bt $LBIN; }
FMUST='^#0  main \(\) at' FNOT=''
figure startup-no-libc ms 1000
unset FMUST FNOT BMUST BNOT
