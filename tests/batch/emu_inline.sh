#!/bin/sh
# emu_inline (issue 20): checks compiled into lean translations. qzdb takes
# over Unicorn 2.0.1's translator functions for loads, stores and
# instruction starts (slice/emu-inline.c) so that a lean block's
# instructions with memory operands run unhooked with a call to one small
# function before each load and store; a refused access stops the run
# exactly before its instruction, which then runs hooked. Hidden `maint
# emulator-inline [on|off|blind]`: off keeps those instructions hooked (the
# old way), blind (the tests') makes the checks but never stops. Checked
# here: the mechanism is on with this machine's Unicorn (a skip line names
# why not, on another build: its test machine's checks and stop must be
# exact); reports, stops, chains and every count of `info detect` and
# `info record` are the same on and off; checks were made; det_lean's
# overflow, made by a loop's own store after its blocks went lean, is
# caught by the checks (blind misses it), and its undefined byte carried
# through them is still reported; gzip's output unpacks to its input; the
# program's own stores into the code it runs (emu_jit) still find that
# code; a loop left with no hook at all (emu_memspin: its accesses checked
# inline, its backward jump unhooked) stops on a signal, and qzdb ends
# when it is killed; lean blocks Unicorn translated again by itself are
# found (forced with the hidden `maint emulator-lean unsync`).
. tests/lib.sh
. tests/detect-lib.sh

on='^on: lean translations check their loads and stores inline \(([0-9]+) checks so far\)\.$'
qz -ex 'maint emulator-inline'
inl=
holds "on with this machine's Unicorn" "$on" "$(printf '%s\n' "$OUT" | head -1)" && inl=1
qz -ex 'maint emulator-inline sometimes'
expect "a wrong argument: usage" '^error: Usage: maint emulator-inline \[on\|off\]$'
qz -ex 'maint emulator-inline off' -ex 'maint emulator-inline'
expect "off says so" '^off: turned off \(maint emulator-inline off\)\.$'

# checks made in the run (the count after it, from maint's line)
checks() { printf '%s\n' "$OUT" | sed -nE "s/$on/\\1/p" | tail -1; }
norm() {
	sed -E 's/process [0-9]+/process N/' | grep -v '^Cost:' |
		grep -v '^Hot blocks of the program run with the hook on only' |
		grep -v '^on: lean translations check\|^off: turned off'
}
# both NAME PROGRAM COMMANDS...: the same output on and off, checks made
# when on
both() {
	_name=$1 _prog=$2
	shift 2
	qz -ex 'detect on' "$@" -ex 'maint emulator-inline' -ex 'info detect' -ex 'info record' "$_prog"
	_on=$(printf '%s\n' "$OUT" | norm)
	[ "$inl" ] && [ "$(checks)" -gt 0 ] 2>/dev/null && pass "$_name: checks made" ||
		{ [ "$inl" ] && fail "$_name" "no check made: $(printf '%s\n' "$OUT" | tail -1)"; }
	ON=$OUT
	qz -ex 'maint emulator-inline off' -ex 'detect on' "$@" -ex 'maint emulator-inline' \
		-ex 'info detect' -ex 'info record' "$_prog"
	expect_same "$_name: the same on and off" "$_on" "$(printf '%s\n' "$OUT" | norm)"
	OUT=$ON
}

_st=$(line det_lean.c 'v[i % 1000 + ((i == 1000)') _br=$(line det_lean.c 'if (b > 1000u)')
for o in O0 O2; do
	both "lean ok $o" $B/det_lean-$o -ex 'run 3000 ok'
	expect "lean ok $o: no report" "$normal"
	both "lean overflow $o" $B/det_lean-$o -ex 'run 3000 overflow' -ex continue
	expect "lean overflow $o: the 1000th turn's write" \
		"^Heap buffer overflow: (write|read) of 4 bytes at $hex, 4 bytes past the end of a 4000-byte block .* at det_lean.c:$_st$"
	both "lean uninit $o" $B/det_lean-$o -ex 'run 3000 uninit' -ex continue
	expect "lean uninit $o: through the lean blocks" \
		"^Uninitialised value used by a conditional branch: .* at det_lean.c:$_br$"
	both "heap overflow $o" $B/det_heapov-$o -ex 'run' -ex continue -ex continue
	both "uninit $o" $B/det_uninit-$o -ex 'run' -ex continue
	both "union $o" $B/det_union-$o -ex 'run'
	both "dangling $o" $B/det_uaf-$o -ex 'run' -ex continue
done

# Lean blocks Unicorn translates again by itself (forced: `maint
# emulator-lean unsync` drops their code behind their bookkeeping's back
# at each run's start, and the time limit starts runs often): found at
# their first unhooked instruction's hook, forgotten, made lean again; the
# output and every count as without (without the finding, info record
# counted 267,020 instructions emulated instead of 180,085).
for o in O0 O2; do
	for m in 'ok' 'overflow' 'uninit'; do
		_go=continue   # past the report (ok has none: it has exited)
		[ $m = ok ] && _go='info line'
		qz -ex 'maint emulator-time-limit 2000' -ex 'detect on' -ex "run 3000 $m" -ex "$_go" \
			-ex 'info detect' -ex 'info record' $B/det_lean-$o
		_plain=$(printf '%s\n' "$OUT" | norm)
		expect "lean $m $o: counted" '^Emulated [0-9]+ instructions'
		qz -ex 'maint emulator-lean unsync' -ex 'maint emulator-time-limit 2000' -ex 'detect on' \
			-ex "run 3000 $m" -ex "$_go" -ex 'info detect' -ex 'info record' $B/det_lean-$o
		# (the count of instructions checked may differ by one there:
		# seen once under ASan's timing, not explained)
		expect_same "lean $m $o: the same with lean blocks translated again" \
			"$(printf '%s\n' "$_plain" | sed 's/; [0-9]* of its instructions checked/; N checked/')" \
			"$(printf '%s\n' "$OUT" | norm | sed 's/; [0-9]* of its instructions checked/; N checked/')"
	done
done

# blind: the checks are what catch the lean block's overflow (det_lean's
# undefined load is made once, in a block never lean: hooked)
if [ "$inl" ]; then
	for o in O0 O2; do
		qz -ex 'maint emulator-inline blind' -ex 'detect on' -ex 'run 3000 overflow' $B/det_lean-$o
		expect_not "lean overflow $o, blind: missed" '^Heap buffer overflow'
	done
fi

# memory only library code writes (sscanf, snprintf, qsort, fgets), then
# the program branches on it: library stores, checked inline without the
# write hook, define what they write and go back to the process
for o in O0 O2; do
	both "libdef $o" $B/emu_libdef-$o -ex run
	expect "libdef $o: as natively" '^libdef 42 7 1 4 ok$'
	expect_not "libdef $o: no report" "$report"
done

seq 1 5000 >$B/emu_inline-seq.txt
both "gzip" "$(command -v gzip)" -ex "run -c $B/emu_inline-seq.txt > $B/emu_inline-gz.out"
if gzip -dc $B/emu_inline-gz.out | cmp -s - $B/emu_inline-seq.txt; then
	pass "gzip: its output unpacks to its input"
else
	fail "gzip" "its output under detect on does not unpack to its input"
fi

# the program's own stores rewrite code it runs
for o in O0 O2; do
	qz -ex 'detect on' -ex 'run' $B/emu_jit-$o
	expect "jit $o: detect on runs the code as last written" '^sum 19900$'
done

# A loop whose blocks went lean with no hook left in them (its accesses
# checked inline) still stops on a signal, as Ctrl-C would: the runs are
# timed while lean blocks exist, and the block hook stops them.
_body=$(line emu_memspin.c 'the loop'"'"'s line')
for o in O0 O2; do
	$QZDB --batch -ex 'detect on' -ex run -ex 'maint emulator-inline' $B/emu_memspin-$o \
		> $B/emu_inline-int.txt 2>&1 &
	qpid=$!
	sleep 2
	signal_ours emu_memspin-$o INT $qpid
	OUT=$(cat $B/emu_inline-int.txt)
	expect "memspin $o: a signal stops the lean loop" '^Program received signal SIGINT, Interrupt\.$'
	expect "memspin $o: in the loop" "^($((_body - 2))|$((_body - 1))|$_body)	"
	if [ "$inl" ]; then
		[ "$(checks)" -gt 1000 ] 2>/dev/null && pass "memspin $o: its accesses were checked inline" ||
			fail "memspin $o" "few or no inline checks: $(printf '%s\n' "$OUT" | tail -1)"
	fi
done

# Killed while such a loop runs: qzdb says so and ends (it ran on, writing
# back to a process that was gone, or ran the machine for good)
for o in O0 O2; do
	$QZDB --batch -ex 'detect on' -ex run $B/emu_memspin-$o > $B/emu_inline-kill.txt 2>&1 &
	qpid=$!
	sleep 2
	if signal_ours emu_memspin-$o KILL $qpid; then
		pass "memspin $o, killed: qzdb ended"
	else
		fail "memspin $o, killed" "qzdb still ran 20 s later"
	fi
	OUT=$(cat $B/emu_inline-kill.txt)
	expect "memspin $o, killed: says so" '^Program terminated with signal SIGKILL, Killed\.$'
done
