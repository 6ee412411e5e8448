#!/bin/sh
# Checkpoints: checkpoint/rollback/cdelete/info checkpoints, rollback after
# an exit or a crash (the process is held), the core workflow on a crash,
# automatic checkpoints and the budget, bad input.
. tests/lib.sh
BIN=$B/ckpt_prop-O0
NULLP=$B/bug_nullp-O0

qz -ex checkpoint $BIN
expect "checkpoint before run" '^error: The program is not being run\.$'
expect_rc "checkpoint before run fails" 1

qz -ex 'rollback 1' $BIN
expect "rollback before run" '^error: The program is not being run\.$'

qz -ex 'break mark' -ex run -ex 'rollback 9' $BIN
expect "rollback 9 without checkpoints" '^error: No checkpoint number 9\.$'
expect_rc "rollback 9 fails" 1

qz -ex 'break mark' -ex run -ex 'rollback' -ex 'rollback x' -ex 'cdelete 4' -ex 'checkpoint now' $BIN
expect "rollback needs an id" '^error: Argument required \(checkpoint id\)\.$'
expect "rollback bad id" '^error: Invalid checkpoint id "x"\.$'
expect "cdelete unknown" '^error: No checkpoint number 4\.$'
expect "checkpoint takes no argument" '^error: checkpoint takes no argument\.$'

qz -ex 'info checkpoints' $BIN
expect "no checkpoints" '^No checkpoints\.$'

# The basic cycle: output shape, info, rollback any number of times with
# other commands in between, cdelete.
qz -ex 'break mark' -ex run -ex c -ex checkpoint -ex 'info checkpoints' \
   -ex c -ex 'print counter' -ex 'rollback 1' -ex 'print counter' -ex 'print round' \
   -ex 'set var counter = 100' -ex next -ex 'rollback 1' -ex 'print counter' \
   -ex c -ex 'rollback 1' -ex 'print counter' -ex 'cdelete 1' -ex 'info checkpoints' \
   -ex 'rollback 1' $BIN
expect "checkpoint line" '^Checkpoint 1 at ckpt_prop\.c:[0-9]+ \([0-9]+ pages, [0-9]+ KiB\)$'
expect "info checkpoints header" '^  Id +Time +Pages +Held +Found by +Where$'
expect "what rollback cannot undo" '^warning: a rollback does not undo: output already written to a terminal or pipe \(fd [0-9, ]+\) stays written\.$'
n=$(printf '%s\n' "$OUT" | grep -c '^warning: a rollback does not undo')
[ "$n" = 1 ] && pass "said once" || fail "said once" "$n times"
expect "info checkpoints row" '^\* 1 +[0-9.]+ s +[0-9]+ +[0-9]+ KiB +(undo|pagemap|hash) +ckpt_prop\.c:[0-9]+$'
expect "value before rollback" '^\$1 = 3$'
expect "rollback reports the frame" '^#0  mark \(round=1\) at tests/fixtures/ckpt_prop\.c:[0-9]+$'
expect "rollback shows the source line" '^30	'
expect "value after rollback" '^\$2 = 1$'
expect "argument after rollback" '^\$3 = 1$'
expect "rollback after set var" '^\$4 = 1$'
expect "rollback third time" '^\$5 = 1$'
expect "round 2 printed again" '^round 2 counter 3 '
expect "cdelete then none" '^No checkpoints\.$'
expect "rollback to a deleted checkpoint" '^error: No checkpoint number 1\.$'
n=$(printf '%s\n' "$OUT" | grep -c '^round 2 counter 3 fd -1 ftell 10000')
[ "$n" = 2 ] && pass "round 2 output repeats identically" || fail "round 2 output repeats identically" "$n times"
no_leftover "no leftover after checkpoints" $BIN

# Rollback after exit: the process is held at _exit while checkpoints exist.
qz -ex 'break mark' -ex run -ex c -ex c -ex checkpoint -ex 'delete' -ex c -ex c \
   -ex 'print counter' -ex 'rollback 1' -ex 'print counter' -ex c $BIN
expect "exit reported" '^\[Inferior 1 \(process [0-9]+\) exited normally\]$'
expect "held at exit" '^The process is held at its exit for rollback \(1 checkpoint\)\.$'
expect "no process while held" '^error: The program is not being run\.$'
expect "rollback after exit" '^#0  mark \(round=2\) at tests/fixtures/ckpt_prop\.c:[0-9]+$'
expect "state after rollback from exit" '^\$2 = 3$'
n=$(printf '%s\n' "$OUT" | grep -c '^done$')
[ "$n" = 2 ] && pass "program runs to the end twice" || fail "program runs to the end twice" "$n times"
expect_rc "exit rollback status" 1
no_leftover "no leftover after exit hold" $BIN

# Deleting the last checkpoint while held lets the process go.
qz -ex 'break mark' -ex run -ex checkpoint -ex delete -ex c -ex 'cdelete 1' -ex 'rollback 1' $BIN
expect "gone after last cdelete" '^error: The program is not being run\.$'
no_leftover "no leftover after cdelete while held" $BIN

# The core workflow: stop before the crash, checkpoint, crash, roll back,
# change the predicate's input, continue: no crash; roll back again,
# change the pointer instead: no crash.
# The core workflow: stop before the crash, checkpoint, crash, roll back,
# switch the predicate; roll back again, suppress the faulty statement.
qz -ex 'break 29 if k == 2' -ex run -ex checkpoint -ex c -ex 'rollback 1' -ex 'delete' \
   -ex 'switch bug_nullp.c:29' -ex c -ex 'rollback 1' -ex 'delete' \
   -ex 'suppress bug_nullp.c:30' -ex c $NULLP
expect "switch after rollback fires" '^Switched bug_nullp\.c:29 #1: true -> false$'
expect "suppress after rollback fires" '^Suppressed bug_nullp\.c:30 #1$'
n=$(printf '%s\n' "$OUT" | grep -c '^sum 4$')
[ "$n" = 2 ] && pass "switch and suppress both avoid the crash" || fail "switch and suppress both avoid the crash" "$n normal sums"
qz -ex 'break 29 if k == 2' -ex run -ex checkpoint -ex c -ex 'rollback 1' -ex c -ex c \
   -ex 'rollback 1' -ex 'delete' -ex 'set var keys[2] = keys[3]' -ex c \
   -ex 'rollback 1' -ex 'set var e = &table[0]' -ex c $NULLP
expect "crash reported" '^Program received signal SIGSEGV, Segmentation fault\.$'
expect "crash held" '^The process is held for rollback while checkpoints exist\.$'
expect "rollback after crash" '^#0  main \(\) at tests/fixtures/bug_nullp\.c:29$'
expect "predicate changed: no crash" '^sum 4$'
expect "pointer changed: no crash" '^sum 5$'
n=$(printf '%s\n' "$OUT" | grep -c 'exited normally')
[ "$n" = 2 ] && pass "both alternatives run to the end" || fail "both alternatives run to the end" "$n exits"
no_leftover "no leftover after crash workflow" $NULLP

# A debuggee killed from outside between checkpoint and rollback.
out=$( (echo 'break mark'; echo run; echo checkpoint; sleep 1;
	kill -9 $(ours ckpt_prop-O0); sleep 0.3; echo 'rollback 1'; echo 'rollback 1'; echo quit) |
	timeout 60 $QZDB $BIN 2>&1)
OUT=$out
expect "killed from outside reported" 'Program terminated with signal SIGKILL, Killed\.'
expect "killed: clear error" '^error: The program is gone \(it exited or was killed\): its checkpoints went with it\.$'
no_leftover "no leftover after outside kill" $BIN

# Automatic checkpoints and the budget.
# (Started at main: before it, a loaded machine may leave the first
# ones in the dynamic loader.)
qz -ex 'break main' -ex run -ex 'set checkpoint-interval 10' -ex 'break 20' -ex c \
   -ex 'info checkpoints' -ex 'rollback 2' -ex 'print i' -ex c $B/loop-O0 100000000
expect "automatic checkpoints" '^  2 +[0-9.]+ s +[0-9]+ .*loop\.c:[0-9]+ \(auto\)$'
expect "rollback to an automatic checkpoint" '^#0  .*loop\.c:[0-9]+$'
expect "loop ends again" '^Breakpoint 2, main .*loop\.c:20$'
qz -ex 'set checkpoint-interval x' $BIN
expect "bad interval" '^error: Usage: set checkpoint-interval MS\|off\.$'

# (2 MiB of mixed bytes written between the two: over the budget with
# any method; a memset's pages would be held as the byte they repeat.)
qz -ex 'set checkpoint-budget 1' -ex 'break mark' -ex run -ex checkpoint -ex c -ex checkpoint \
   -ex 'info checkpoints' -ex 'rollback 2' $B/ckpt_bench-O0 2 3
expect "budget thins the oldest" '^Checkpoint 1 deleted: checkpoint-budget of 1 MiB exceeded\.$'
expect "newest kept" '^\* 2 '
expect_not "oldest gone" '^.? 1 +[0-9.]+ s'
expect "rollback within budget" '^#0  mark \(round=1\)'
qz -ex 'set checkpoint-budget lots' $BIN
expect "bad budget" '^error: Usage: set checkpoint-budget MIB\|unlimited\.$'

qz -ex 'set checkpoint-method sometimes' $BIN
expect "bad method" '^error: Usage: set checkpoint-method auto\|undo\|pagemap\|hash\.$'
qz -ex 'break mark' -ex run -ex checkpoint -ex 'set checkpoint-method hash' $BIN
expect "method fixed while checkpoints exist" '^error: Delete the checkpoints first'
qz -ex 'set checkpoint-method hash' -ex 'break mark' -ex run -ex checkpoint -ex 'info checkpoints' $BIN
expect "hash method reported" ' hash +ckpt_prop\.c:[0-9]+$'

# A command file read by qzdb is inherited by the program: rolling back
# must not seek qzdb's own file (every command of the script runs).
S=$B/ckpt-script.x
printf '%s\n' 'break mark' run checkpoint continue 'rollback 1' continue 'rollback 1' \
	continue 'rollback 1' 'print counter' > $S
qz -x $S $BIN
expect "script runs to its end after rollbacks" '^\$1 = 0$'
n=$(printf '%s\n' "$OUT" | grep -c '^#0  mark (round=0)')
[ "$n" = 3 ] && pass "three rollbacks from a script" || fail "three rollbacks from a script" "$n rollbacks"

# A breakpoint in writable code (a JIT's page) that the program rewrites:
# the page is saved with the original byte under the int3, written back by
# the rollback with the int3 kept, and hit again.
JIT=$B/ckpt_jit-O0
qz -ex 'break jit_ready' -ex run $JIT
P=$(printf '%s\n' "$OUT" | sed -n 's/.*jit_ready (p=\(0x[0-9a-f]*\).*/\1/p' | head -1)
qz -ex 'break jit_ready' -ex run -ex finish -ex "break *$P" -ex checkpoint -ex c -ex c \
   -ex "x/2xb $P" -ex 'rollback 1' -ex "x/2xb $P" -ex "maint dump-state $B/ckpt-jit.1" \
   -ex "maint dump-checkpoint 1 $B/ckpt-jit.2" -ex c -ex 'print $pc == '"$P" -ex delete -ex c $JIT
expect "code rewritten before rollback" "^$P:	0xb8	0x2b$"
expect "original code after rollback" "^$P:	0xb8	0x2a$"
n=$(printf '%s\n' "$OUT" | grep -c "^Breakpoint 2, $(printf '0x%016x' $P) in")
[ "$n" = 3 ] && pass "int3 in a restored page hit again" || fail "int3 in a restored page hit again" "$n hits"
expect "stopped on it" '^\$1 = 1$'
expect "the rolled-back code runs" '^total 129$'
if cmp -s $B/ckpt-jit.1 $B/ckpt-jit.2; then pass "writable code page restored exactly"; else fail "writable code page restored exactly" "dumps differ"; fi

# What cannot be undone is said at checkpoint time.
qz -ex 'break mark' -ex run -ex checkpoint -ex c -ex 'rollback 1' -ex kill $B/ckpt_limits-O0
expect "limits: sockets, shared mapping, child, thread" '^warning: a rollback does not undo: .*; 2 sockets; 1 writable shared mapping; 1 child process; 1 other thread \(only this one is saved\)\.$'
expect "limits: rollback still works" '^#0  mark \(\) at tests/fixtures/ckpt_limits\.c:[0-9]+$'
no_leftover "limits: no leftover" $B/ckpt_limits-O0

# maint checkpoint-stats reports the last checkpoint's and rollback's times.
qz -ex 'break main' -ex run -ex checkpoint -ex next -ex 'rollback 1' \
   -ex 'maint checkpoint-stats' $B/basic-O0
expect "checkpoint-stats times" '^last checkpoint [0-9.]+ us, last rollback [0-9.]+ us$'

# A checkpoint at a crash keeps the crash: its injected system calls must
# not turn the pending SIGSEGV into their own SIGTRAP (issue 16, item 13).
SIG=$B/ckpt_sig-O0
qz -ex run -ex checkpoint -ex explain -ex c $SIG
expect "crash checkpoint: explain names SIGSEGV" '^The program received signal SIGSEGV \(Segmentation fault\)\.$'
expect "crash checkpoint: explain has the address" '^It used the address 0x10, '
expect "crash checkpoint: continue dies of SIGSEGV" '^Program terminated with signal SIGSEGV, Segmentation fault\.$'
expect_not "crash checkpoint: no SIGTRAP" 'SIGTRAP'
# A handler sees the signal as the kernel gave it (code, address); rolled
# back to the crash from elsewhere (past it, or at the exit the handler
# reached with SIGSEGV blocked), continuing delivers it again the same way.
qz -ex 'break poke' -ex run -ex checkpoint -ex c -ex checkpoint -ex explain -ex c \
   -ex 'rollback 2' -ex explain -ex c -ex 'rollback 1' -ex c -ex c $SIG handler
n=$(printf '%s\n' "$OUT" | grep -c '^caught signal 11 code 1 addr 0x10$')
[ "$n" = 3 ] && pass "crash checkpoint: handler gets the original signal each time" ||
	fail "crash checkpoint: handler gets the original signal each time" "$n of 3"
n=$(printf '%s\n' "$OUT" | grep -c '^The program received signal SIGSEGV (Segmentation fault)\.$')
[ "$n" = 2 ] && pass "crash checkpoint: explain after rollback to the crash" ||
	fail "crash checkpoint: explain after rollback to the crash" "$n of 2"
expect_not "crash checkpoint: no SIGTRAP with a handler" 'SIGTRAP|code 0 addr'
qz -ex 'break poke' -ex run -ex checkpoint -ex c -ex checkpoint -ex 'rollback 1' -ex c \
   -ex 'rollback 2' -ex c -ex 'rollback 2' -ex explain -ex c $SIG
n=$(printf '%s\n' "$OUT" | grep -c '^Program terminated with signal SIGSEGV, Segmentation fault\.$')
[ "$n" = 2 ] && pass "crash checkpoint: rollback to it then continue dies of SIGSEGV" ||
	fail "crash checkpoint: rollback to it then continue dies of SIGSEGV" "$n of 2"
expect_not "crash checkpoint: no SIGTRAP after rollback" 'SIGTRAP'
no_leftover "crash checkpoint: no leftover" $SIG
# A --step walkthrough takes a hidden checkpoint before each command: at
# the crash, explain and continue still see the SIGSEGV, also after going
# back a step.
rm -f $B/ckpt-sig.qzs
qz --record-session $B/ckpt-sig.qzs -ex run -ex explain -ex continue $SIG
OUT=$(printf '\n\nb\n\n\n\n\n' | timeout 60 $QZDB --replay $B/ckpt-sig.qzs --step 2>&1)
n=$(printf '%s\n' "$OUT" | grep -c '^The program received signal SIGSEGV (Segmentation fault)\.$')
[ "$n" = 2 ] && pass "step walkthrough at a crash: explain names SIGSEGV, twice" ||
	fail "step walkthrough at a crash: explain names SIGSEGV, twice" "$n of 2"
expect "step walkthrough at a crash: went back" '^\[back one step\]$'
expect "step walkthrough at a crash: continue dies of SIGSEGV" '^Program terminated with signal SIGSEGV, Segmentation fault\.$'
expect_not "step walkthrough at a crash: no SIGTRAP" 'SIGTRAP'
no_leftover "step walkthrough at a crash: no leftover" $SIG

# A program that closes every descriptor above 2 (a daemon's
# close_range(3, ~0U, 0)) or puts files over the high numbers (dup2)
# between checkpoint and rollback: qzdb's userfaultfd is not the
# program's to close, and the rollback is complete (issue 16, item 12).
CL=$B/ckpt_close-O0
D=$B/ckpt-close
mkdir -p $D
for mode in close dup2; do
	rm -f $D/*
	qz -ex 'break ready' -ex 'break closed' -ex run -ex checkpoint -ex "maint dump-state $D/s1" \
	   -ex c -ex 'rollback 1' -ex "maint dump-state $D/r1" -ex c -ex 'rollback 1' \
	   -ex "maint dump-state $D/r2" -ex c -ex c $CL $mode
	expect_not "$mode: no error" '^error:|^warning: (cannot|descriptor)'
	if [ -s $D/s1 ] && cmp -s $D/s1 $D/r1 && cmp -s $D/s1 $D/r2; then
		pass "$mode: rollbacks complete"
	else
		fail "$mode: rollbacks complete" "dumps differ or missing"
	fi
	expect "$mode: the program runs on as before" '^counter 42 heap bb read '
	no_leftover "$mode: no leftover" $CL
done
# The program holds no descriptor of qzdb's: it sees what a shell gives it.
rm -f $D/fds
(echo 'break ready'; echo run; echo checkpoint; sleep 1;
	ls -l /proc/$(ours ckpt_close-O0 | head -1)/fd > $D/fds 2>/dev/null; echo kill; echo quit) |
	timeout 60 $QZDB $CL > /dev/null 2>&1
if [ -s $D/fds ] && ! grep -q userfaultfd $D/fds; then
	pass "no userfaultfd descriptor in the program"
else
	fail "no userfaultfd descriptor in the program" "$(grep userfaultfd $D/fds)"
fi
no_leftover "fds: no leftover" $CL

# Rollback across thread creation ends the threads started since (their
# stacks go with the rollback); continuing starts them again and the
# program finishes as the first time. A thread of the checkpoint that
# has exited since: the rollback is refused, nothing changed (issue 16,
# item 14).
for opt in O0 O2; do
	TH=$B/ckpt_threads-$opt
	D=$B/ckpt-thr
	mkdir -p $D
	rm -f $D/*
	qz -ex 'break ready' -ex 'break started' -ex run -ex checkpoint -ex "maint dump-state $D/s1" \
	   -ex c -ex 'info threads' -ex 'rollback 1' -ex 'info threads' -ex "maint dump-state $D/r1" \
	   -ex c -ex c -ex 'rollback 1' -ex "maint dump-state $D/r2" -ex 'info threads' -ex delete \
	   -ex c $TH
	expect "$opt threads: two ended" '^Ended 2 threads started after checkpoint 1\.$'
	n=$(printf '%s\n' "$OUT" | grep -c '^\* 1    Thread .* ready () at ')
	[ "$n" = 2 ] && pass "$opt threads: one thread left after rollback" ||
		fail "$opt threads: one thread left after rollback" "$n of 2"
	expect_not "$opt threads: no thread 2 or 3 after rollback" '^  [2-9]    Thread .* ready \(\)|^error:'
	if [ -s $D/s1 ] && cmp -s $D/s1 $D/r1 && cmp -s $D/s1 $D/r2; then
		pass "$opt threads: rollbacks complete"
	else
		fail "$opt threads: rollbacks complete" "dumps differ or missing"
	fi
	n=$(printf '%s\n' "$OUT" | grep -c '^results 1 2$')
	[ "$n" = 2 ] && pass "$opt threads: runs again correctly, twice" ||
		fail "$opt threads: runs again correctly, twice" "$n of 2"
	expect "$opt threads: ends normally" 'exited normally\]$'
	no_leftover "$opt threads: no leftover" $TH
done
qz -ex 'break started' -ex run -ex checkpoint -ex c -ex "maint dump-state $D/h1" -ex 'rollback 1' \
   -ex "maint dump-state $D/h2" -ex 'info checkpoints' $TH
expect "threads: refused when one has exited" '^error: Thread LWP [0-9]+ of checkpoint 1 has exited since: a rollback cannot bring it back \(nothing was changed\)\.$'
expect "threads: still held at the exit" '^\* 1 '
if [ -s $D/h1 ] && cmp -s $D/h1 $D/h2; then
	pass "threads: refusal changed nothing"
else
	fail "threads: refusal changed nothing" "dumps differ or missing"
fi
no_leftover "threads: refusal: no leftover" $TH

# Watchpoints by page protection (core/pagewatch.c, debug registers
# forced off so every machine uses them): the page of a watched global
# lost PROT_WRITE (watch) or every access (rwatch, awatch). A write the
# watch caught is undone by a rollback, whether the watch was set before
# or after the checkpoint, with either dirty-page method; the memory is
# the checkpoint's, byte for byte, and the watch still fires afterwards.
W=$B/watchme-O0
D=$B/ckpt-pw
mkdir -p $D
pwq() { qz -ex 'maint set debug-registers off' -ex "set checkpoint-method $m" "$@" $W; }
same() {
	if [ -s $D/s1 ] && cmp -s $D/s1 $D/r1; then pass "$1"; else fail "$1" "dumps differ or missing"; fi
}
# pwcase NAME ARM WHEN RAN BACK NEXT N HIT: ARM the watch before or after
# the checkpoint (WHEN), run on to the next hit, print total (RAN), roll
# back: total is BACK, ticks (same page) NEXT; continuing hits N times in
# all (lines HIT). Memory dumped at the checkpoint and after the rollback.
pwcase() {
	rm -f $D/*
	if [ "$3" = before ]; then
		pwq -ex 'break main' -ex run -ex checkpoint -ex "maint dump-state $D/s1" -ex "$2" -ex c \
		    -ex c -ex 'print total' -ex 'rollback 1' -ex "maint dump-state $D/r1" \
		    -ex 'print total' -ex 'print ticks' -ex c
	else
		pwq -ex 'break main' -ex run -ex "$2" -ex c -ex checkpoint -ex "maint dump-state $D/s1" \
		    -ex c -ex 'print total' -ex 'rollback 1' -ex "maint dump-state $D/r1" \
		    -ex 'print total' -ex 'print ticks' -ex c
	fi
	expect "$m: $1: the access ran" "^\\\$1 = $4\$"
	expect "$m: $1: rolled back" "^\\\$2 = $5\$"
	expect "$m: $1: its neighbour too" "^\\\$3 = $6\$"
	expect_count "$m: $1: fires again after rollback" "$7" "$8"
	same "$m: $1: memory as at the checkpoint"
	expect_not "$m: $1: no error" '^error:'
}
for m in auto hash; do
	pwcase "watch set after checkpoint" 'watch total' before 3 0 0 2 '^New value = 1$'
	pwcase "watch armed at checkpoint" 'watch total' after 3 1 0 2 '^New value = 3$'
	pwcase "rwatch (no access) at checkpoint" 'rwatch reads' after 1 0 0 3 '^Value = 0$'
	pwcase "awatch (no access) at checkpoint" 'awatch reads' after 1 0 0 3 '^Value = 0$'
done
no_leftover "page-protection watches: no leftover" $W
