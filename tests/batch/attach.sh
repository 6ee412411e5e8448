#!/bin/sh
# attach PID / qzdb -p PID / detach: a running process is stopped where it
# is, breakpoints work, and after detach (or quit) it runs on and finishes
# normally with no int3 left behind. Bad input: missing pid, a pid already
# traced, garbage.
. tests/lib.sh
BIN=$B/sleeper-O0
SOUT=$B/sleeper.out

# start_sleeper N: run the fixture in the background for N ticks of 100 ms.
start_sleeper() {
	$BIN "$1" > $SOUT 2>&1 &
	SPID=$!
	# until the shell's child has become the sleeper (a loaded machine is slow)
	_i=0
	while [ $_i -lt 100 ] && [ "$(readlink /proc/$SPID/exe 2>/dev/null)" != "$(readlink -f $BIN)" ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	sleep 0.3   # let it reach its loop
}

# finished NAME N: the sleeper exited 0 after all N ticks.
finished() {
	wait $SPID
	_rc=$?
	if [ $_rc = 0 ] && grep -q "^sleeper done $2\$" $SOUT; then
		pass "$1"
	else
		fail "$1" "exit status $_rc, output: $(cat $SOUT)"
	fi
}

start_sleeper 25
qz -ex "attach $SPID" -ex bt -ex 'info sharedlibrary' -ex 'break tick' -ex c -ex bt \
   -ex 'p ticks' -ex c -ex 'info breakpoints' -ex detach -ex 'info program' $BIN
expect "attach message" "^Attaching to process $SPID\$"
if libc_dbg; then   # gdb's shape with libc6-dbg
	expect "stopped in libc's sleep" '^__GI___clock_nanosleep \(clock_id=clock_id@entry=0, flags=flags@entry=0, req=0x[0-9a-f]+, rem=0x0\) at ../sysdeps/unix/sysv/linux/clock_nanosleep.c:[0-9]+$'
else
	expect "stopped in libc's sleep" '^0x[0-9a-f]{16} in (clock_nanosleep|nanosleep)[^ ]* \(\) from /lib/x86_64-linux-gnu/libc.so.6$'
fi
expect "attach bt reaches main" '^#[1-3]  0x[0-9a-f]{16} in main \(argc=2, argv=0x[0-9a-f]+\) at tests/fixtures/sleeper.c:2[34]$'
expect "attach reads libraries" ' /lib/x86_64-linux-gnu/libc.so.6$'
expect "breakpoint after attach" '^Breakpoint 1, tick \(i=[0-9]+\) at tests/fixtures/sleeper.c:14$'
expect "bt at the breakpoint" '^#1  0x[0-9a-f]{16} in main \(argc=2, argv=0x[0-9a-f]+\) at tests/fixtures/sleeper.c:22$'
expect "hit twice" 'breakpoint already hit 2 times'
expect "detached" "^\[Inferior 1 \(process $SPID\) detached\]\$"
expect_rc "attach session rc" 0
finished "runs on after detach at a breakpoint" 25

# qzdb -p PID, no program named: read from /proc/PID/exe; the end of the
# batch detaches rather than kills
start_sleeper 20
qz -p $SPID -ex 'break sleeper.c:15' -ex c -ex 'p i' -ex 'up' -ex 'p i'
expect "-p attaches" "^Attaching to process $SPID\$"
expect "-p finds the program's source" '^Breakpoint 1, tick \(i=[0-9]+\) at tests/fixtures/sleeper.c:15$'
expect "locals after attach" '^\$2 = [0-9]+$'
expect "batch end reports the detach" "^\[Inferior 1 \(process $SPID\) detached\]\$"
expect_rc "-p rc" 0
finished "batch end detaches" 20

# quit after attach detaches too, and the breakpoint's int3 is gone
start_sleeper 20
qz -ex "attach $SPID" -ex 'break tick' -ex c -ex quit $BIN
expect "quit after attach: hit" '^Breakpoint 1, tick'
finished "quit detaches, no int3 left" 20

# kill after attach kills it, as gdb
start_sleeper 50
qz -ex "attach $SPID" -ex kill $BIN
expect "kill after attach" "^\[Inferior 1 \(process $SPID\) killed\]\$"
wait $SPID
[ $? = 137 ] && pass "killed process is gone" || fail "killed process is gone" "status $?"

# bad input
qz -ex 'attach 999999999' $BIN
expect "attach missing pid" '^error: ptrace: No such process\.$'
expect_rc "attach missing pid rc" 1
qz -p 999999999
expect "-p missing pid" '^error: ptrace: No such process\.$'
expect_rc "-p missing pid rc" 1
qz -ex 'attach 12x' -ex 'attach' -ex 'attach -5' $BIN
expect "attach garbage" '^error: Illegal process-id: 12x\.$'
expect "attach without pid" '^error: Argument required \(process-id to attach\)\.$'
expect "attach negative" '^error: Illegal process-id: -5\.$'
if command -v gdb >/dev/null 2>&1; then
	start_sleeper 30
	gdb -nx -batch -p $SPID -ex 'shell sleep 6' >/dev/null 2>&1 &
	GPID=$!
	# gdb's attach takes its time on a loaded machine: wait until it holds
	for i in $(seq 100); do
		grep -q '^TracerPid:[[:space:]]*[1-9]' /proc/$SPID/status 2>/dev/null && break
		sleep 0.2
	done
	qz -ex "attach $SPID" $BIN
	expect "already traced: why" "^Process $SPID is already traced by process [0-9]+\.$"
	expect "already traced: ptrace error" '^error: ptrace: Operation not permitted\.$'
	wait $GPID
	finished "the other tracer's process unharmed" 30
fi
start_sleeper 10
qz -ex "attach $SPID" $B/basic-O0
expect "attach to another program warns" '^warning: process runs .*/sleeper-O0, not the program loaded \(.*/basic-O0\)'
finished "attach with the wrong program detaches at the end" 10
start_sleeper 20
qz -ex 'start' -ex "attach $SPID" $BIN 5
expect "attach while debugging refused" '^error: The program is already being debugged'
finished "refused attach leaves it alone" 20
no_leftover "no leftover sleeper" $BIN
