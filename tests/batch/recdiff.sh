#!/bin/sh
# The emulate recording engine (issue 18) against the single-step engine,
# its oracle: every slice fixture recorded with both gives the same records
# (pc, statement instance, control parent, every address), the same slice
# and the same program output; at -O0 and -O2, PIE and static, with a
# signal, a fork and a thread started before the region. rec_cover's
# instructions leave the same registers and output as native execution.
. tests/lib.sh

# The lines both engines must agree on: records, slices, program output
# (qzdb's own stop reports and `info record` differ in pid and engine).
recorded() {
	printf '%s\n' "$OUT" | grep -Ev '^(Recording:|Emulated|Not emulating|Breakpoint [0-9]+ at|\[Inferior|\[Detaching|\[New Thread)'
}

# same NAME BIN ARGS...: record with each engine, compare.
same() {
	_name=$1 _bin=$2
	shift 2
	qz -ex 'set record engine step' "$@" -ex 'info record' -ex 'maint print-record' \
		-ex slice -ex 'info slice 1' "$_bin"
	_a=$(recorded)
	_na=$(printf '%s\n' "$OUT" | grep -Ec '^[0-9]+ 0x')
	qz -ex 'set record engine emulate' "$@" -ex 'info record' -ex 'maint print-record' \
		-ex slice -ex 'info slice 1' "$_bin"
	_b=$(recorded)
	if [ "$_na" -lt 500 ]; then
		fail "$_name" "only $_na records: the region did not run"
	elif ! printf '%s\n' "$OUT" | grep -q '^Recording: o[nf]f* (engine: emulate)'; then
		fail "$_name" "the emulate engine did not run"
	else
		expect_same "$_name ($_na records)" "$_a" "$_b" "the engines differ"
	fi
}

whole() { same "$1" "$2" -ex 'break main' -ex run -ex 'record on' -ex continue; }

# Every slice fixture at -O0, the ones whose -O2 code differs most at -O2
# (single-stepping is the slow half of each comparison).
for f in sl_accum sl_ctrl sl_rec bug_dfree bug_heap bug_nullp; do
	whole "$f-O0" $B/$f-O0
done
for O in O0 O2; do
	for f in sl_func sl_memcpy sl_switch bug_stack sig; do
		whole "$f-$O" $B/$f-$O
	done
	# A fork inside the region (the child is detached, the parent waits).
	whole "forkit-$O" $B/forkit-$O
	# A thread sleeps in read() from before the region to after it; the
	# region calls glibc's vector string functions and stdio.
	same "rec_libc-$O" $B/rec_libc-$O -ex 'break work' -ex run -ex 'record on' -ex finish
	same "rec_cover-$O" $B/rec_cover-$O -ex 'break cover' -ex run -ex 'record on' -ex finish \
		-ex 'info registers' -ex continue
done

# Switches and suppressions fire from their sites while the emulator runs.
same "switch-O0" $B/bug_heap-O0 -ex 'switch bug_heap.c:13 all' -ex 'break main' -ex run \
	-ex 'record on' -ex continue
expect "switch fired" '^Switched bug_heap\.c:13 #2: true -> false$'
same "suppress-O0" $B/bug_stack-O0 -ex 'suppress bug_stack.c:18 all' -ex 'break main' -ex run \
	-ex 'record on' -ex continue
expect "suppress fired" '^Suppressed bug_stack\.c:18 #2$'

# Code the program writes and then runs (the decoder must read it from the
# emulator's memory), and a SIGSEGV handler that unprotects the page.
whole ckpt_jit-O0 $B/ckpt_jit-O0
whole pwsegv-O0 $B/pwsegv-O0

# Static builds: no PLT, no ld.so, glibc's IFUNCs resolved by the program.
static() {
	[ $B/$1-static -nt tests/fixtures/$1.c ] ||
		gcc -g -O2 -static -o $B/$1-static tests/fixtures/$1.c -lpthread 2>/dev/null
}
if static sl_func && static rec_libc; then
	whole sl_func-static $B/sl_func-static
	same rec_libc-static $B/rec_libc-static -ex 'break work' -ex run -ex 'record on' -ex finish
else
	skip "static builds" "no static glibc"
fi

# Registers and memory after the covered instructions equal native
# execution: the program's checksum and cpu line are those of a native run.
for O in O0 O2; do
	native=$($B/rec_cover-$O)
	qz -ex 'break cover' -ex run -ex 'record on' -ex finish -ex 'info record' -ex continue $B/rec_cover-$O
	got=$(printf '%s\n' "$OUT" | grep -E '^(cpu|checksum) ')
	if [ -n "$native" ] && [ "$got" = "$native" ]; then
		pass "cover-$O output as native"
	else
		fail "cover-$O output as native" "native: $native; recorded: $got"
	fi
	expect "cover-$O some native steps" '^Emulated [0-9]+ instructions, ran [1-9][0-9]* natively\.$'
done

# The fallback, forced: single-stepping, said so, same slice.
qz -ex 'maint emulator off' -ex 'break main' -ex run -ex 'record on' -ex continue -ex 'info record' \
	-ex slice -ex 'info slice 1' $B/sl_accum-O0
expect "forced fallback engine" '^Recording: o[nf]f* \(engine: single-step\)\.$'
expect "forced fallback said" '^Not emulating: the emulator is turned off'
expect "forced fallback slices" '^Slice 1 from sl_accum\.c:'
# Watchpoints are checked by single-stepping: the engine steps aside.
qz -ex 'break main' -ex run -ex 'watch sink2' -ex 'record on' -ex continue -ex 'info record' $B/sl_rec-O0
expect "watchpoint fallback" '^Not emulating: watchpoints are set'
expect "watchpoint still fires" '^(Hardware )?[Ww]atchpoint [0-9]+: sink2'
qz -ex 'set record engine fast' $B/sl_accum-O0
expect "bad engine" '^error: Usage: set record engine emulate\|step'

# glibc's SSE2 string functions (set record-libc baseline) are emulated:
# far fewer native steps, and again the same records with both engines.
same "rec_libc-baseline" $B/rec_libc-O2 -ex 'set record-libc baseline' -ex 'break work' -ex run \
	-ex 'record on' -ex finish
n=$(printf '%s\n' "$OUT" | sed -n 's/^Emulated [0-9]* instructions, ran \([0-9]*\) natively\.$/\1/p')
if [ -n "$n" ] && [ "$n" -lt 100 ]; then pass "baseline libc mostly emulated ($n native)"
else fail "baseline libc mostly emulated" "ran ${n:-?} natively"; fi
qz -ex 'set record-libc fast' $B/sl_accum-O0
expect "bad record-libc" '^error: Usage: set record-libc baseline\|vector'

# Progress: a region or a slice over half a second prints on stderr once
# a second.
qz -ex 'set record progress on' -ex 'break main' -ex run -ex 'set var n = 850000' -ex 'record on' \
	-ex 'break sl_long.c:38' -ex continue -ex 'info record' -ex 'slice sl_long.c:37' $B/sl_long-O0
expect "progress line" '^recording: [0-9]+ instructions, [0-9]+ per second, trace [0-9.]+ MiB$'
expect "long recording" '^Recorded 10[0-9]{6} instructions'
expect "slice progress line" '^slicing: [0-9]+ of 10[0-9]{6} instructions \([0-9]+%\), [0-9]+ per second$'

# A thread started inside the region: the recorder follows one thread and
# holds the others, so it stops before the clone, says so, and the program
# runs on to its end (it used to wait for ever in pthread_join).
for eng in emulate step; do
	qz -ex "set record engine $eng" -ex 'break main' -ex run -ex 'record on' -ex continue \
		-ex 'info record' -ex slice $B/thr4-O0
	expect "thread in the region ($eng): refused" \
		'^warning: the program starts a thread \(clone3?\) at 0x[0-9a-f]+: qzdb records one thread, so recording stops here'
	expect "thread in the region ($eng): runs on" '^sum 30$'
	expect "thread in the region ($eng): what was recorded stays" '^Slice 1 from thr4\.c:[0-9]+#1: '
done

# Code rewritten in place (a load, then mov eax, 7 at the same address):
# the decode cache drops what it decoded from a page the program writes, so
# the second call reads nothing and x = 9 stays out of b's slice.
for eng in emulate step; do
	qz -ex "set record engine $eng" -ex 'break main' -ex run -ex 'record on' -ex 'break 24' \
		-ex continue -ex 'slice smc.c:23' -ex 'info slice 1' -ex continue $B/smc-O0
	expect "code rewritten in place ($eng): sliced" '^  smc\.c:17 #1$'
	expect_not "code rewritten in place ($eng): decoded again" '^  smc\.c:21 #1$'
	expect "code rewritten in place ($eng): output" '^5 7$'
done

# A signal sent while the emulator runs (the process is stopped meanwhile)
# stops it, as Ctrl-C would: what was recorded stays.
$QZDB --batch -ex 'break main' -ex run -ex 'set var n = 85000000' -ex 'record on' \
	-ex 'break sl_long.c:38' -ex continue -ex 'info record' $B/sl_long-O0 > $B/recdiff-int.txt 2>&1 &
qpid=$!
sleep 1.5
signal_ours sl_long-O0 INT $qpid
OUT=$(cat $B/recdiff-int.txt)
expect "interrupt stops the emulator" '^Program received signal SIGINT, Interrupt\.$'
expect "interrupt keeps the recording" '^Recorded [1-9][0-9]+ instructions'
