#!/bin/sh
# Running: run/start/kill/continue, exit codes, arguments and redirection,
# stepping commands, finish, until, advance, signals.
. tests/lib.sh
BIN=$B/basic-O0

qz -ex run $BIN
expect "run to exit" '^acc=.* argc=1$'
expect "exited normally" '^\[Inferior 1 \(process [0-9]+\) exited normally\]$'
expect_rc "run exit status" 0

qz -ex 'run' $B/io-O0
expect "exit code in octal like gdb" 'exited with code 03\]$'

printf 'one\ntwo\n' > $B/io-in.txt
qz -ex "run a b <$B/io-in.txt >$B/io-out.txt" $B/io-O0
expect "run args and stdin redirect" '^lines=2 args=2$'
if cmp -s $B/io-in.txt $B/io-out.txt; then pass "stdout redirect"; else fail "stdout redirect" "output differs"; fi

qz -ex 'start' -ex 'next' -ex 'next' -ex 'step' -ex 'step' -ex 'bt' -ex 'finish' $BIN
expect "start" '^Temporary breakpoint 1, main \(argc=1, argv=0x[0-9a-f]+\) at tests/fixtures/basic.c:53$'
expect "next" '^55	'
expect "next 2" '^57	'
expect "step enters square" '^square \(x=0\) at tests/fixtures/basic.c:18$'
expect "bt frame 0" '^#0  square \(x=0\) at tests/fixtures/basic.c:18$'
expect "bt frame 1" '^#1  0x[0-9a-f]{16} in main \(argc=1, argv=0x[0-9a-f]+\) at tests/fixtures/basic.c:58$'
# gdb -batch prints no "Run till exit from ..." (gdb prints it for a terminal)
expect_not "finish run till exit: not in batch mode" '^Run till exit'
expect "finish location" '^0x[0-9a-f]{16} in main \(argc=1, argv=0x[0-9a-f]+\) at tests/fixtures/basic.c:58$'
expect "finish value" '^Value returned is \$1 = 0$'

qz -ex 'break push' -ex run -ex finish $BIN
expect "finish pointer value" '^Value returned is \$1 = \(struct node \*\) 0x[0-9a-f]+$'

qz -ex 'break fact if n == 1' -ex run -ex 'bt' -ex finish -ex finish $BIN
expect "recursion bt" '^#4  0x[0-9a-f]+ in fact \(n=5\)'
expect "finish out of recursion" '^Value returned is \$1 = 1$'
expect "finish second level" '^Value returned is \$2 = 2$'

qz -ex 'break 58' -ex run -ex 'next 2' -ex 'info line' $BIN
expect "next N" '^57	'
expect_not "next N: only the last stop is shown (gdb)" '^59	'
qz -ex 'break 58' -ex 'run' -ex 'delete' -ex 'until' -ex 'until' -ex 'until' $BIN
expect "until leaves the loop" '^61	'

qz -ex 'break 58' -ex 'run' -ex 'delete' -ex 'advance 62' $BIN
expect "advance" '^main \(argc=1, argv=0x[0-9a-f]+\) at tests/fixtures/basic.c:62$'

qz -ex 'break 58' -ex 'run' -ex 'stepi' -ex 'nexti 3' -ex 'info registers rip' $BIN
expect "stepi mid-line" '^0x[0-9a-f]{16}	58	'
expect "nexti over the call" '^59	'
expect "info registers rip" '^rip +0x[0-9a-f]+ +0x[0-9a-f]+ <main\+[0-9]+>$'

qz -ex 'run' -ex 'continue' $B/crash-O0
expect "crash reported" '^Program received signal SIGSEGV, Segmentation fault\.$'
expect "crash terminates on continue" '^Program terminated with signal SIGSEGV, Segmentation fault\.$'
qz -ex 'run' -ex 'bt' $B/crash-O0
expect "bt from libc crash reaches user code" '^#[12]  0x[0-9a-f]+ in name_len \(r=0x[0-9a-f]+\) at tests/fixtures/crash.c:13$'
expect "bt reaches main" 'in main \(argc=1, argv=0x[0-9a-f]+\) at tests/fixtures/crash.c:35$'
qz -ex 'run' -ex 'bt' $B/crash-O0 null
expect "crash in user code" '^Program received signal SIGSEGV'
expect "crash location" '^[0-9]+		return \*p \+ 1;$'

qz -ex 'run' -ex 'continue' -ex 'continue' $B/sig-O0
expect "signal stop" '^Program received signal SIGUSR1, User defined signal 1\.$'
expect "signal passed on" '^got=10$'
expect "abort" '^Program received signal SIGABRT, Aborted\.$'
# (gdb -batch prints no table after handle: info signals shows the row)
qz -ex 'handle SIGUSR1 nostop noprint' -ex 'info signals SIGUSR1' -ex 'run' $B/sig-O0
expect "handle table row" '^SIGUSR1 +No	No	Yes		User defined signal 1$'
expect_count "handle: no table in batch mode, as gdb -batch" 1 '^Signal +Stop	Print'
expect_not "nostop noprint hides it" 'SIGUSR1, User'
expect "nostop still passes" '^got=10$'
qz -ex 'handle SIGUSR1 nopass' -ex 'run' -ex 'continue' $B/sig-O0
expect "nopass swallows the signal" '^got=0$'
qz -ex 'info signals SIGINT' $BIN
expect "info signals" '^SIGINT +Yes	Yes	No		Interrupt$'

qz -ex 'break square' -ex 'run' -ex 'run' -ex 'info breakpoints' $BIN
expect "run again restarts" 'breakpoint already hit 2 times'
qz -ex 'break square' -ex 'run' -ex 'kill' -ex 'info breakpoints' -ex 'run' $BIN
expect "kill" '^\[Inferior 1 \(process [0-9]+\) killed\]$'
no_leftover "no process after kill and batch end" "$BIN"
