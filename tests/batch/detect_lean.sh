#!/bin/sh
# detect_lean (issue 20): the emulator's per-instruction cost in the
# program's own code, and library writers inside the emulator.
# Quick verdicts (slice/rec-emu.c): in the watcher's lean runs an
# instruction the hook has seen (no site or run target) keeps its decode id
# by pc, and one that touches no memory and is no call, return or indirect
# jump is only counted while no register holds an undefined byte; `maint
# emulator full-hook` looks at each in full (the old way). Both give the
# same output, reports and every count of info detect (instructions
# checked, hot loops, definedness switches and propagated instructions,
# events) on fixtures of each kind; a breakpoint set where verdicts were
# made stops there. Calls of memcpy, strcpy... at the program's PLT slots
# (detect/libwrite.c) are handled inside the emulator when no rule holds
# (sed made 75,000 internal stops): the reports, stops and events are the
# single-step engine's (each call a trap on the process).
. tests/lib.sh
. tests/detect-lib.sh

# The count of lean blocks made (detect_leanblk.sh) is only a count of
# work skipped: full-hook makes none.
norm() {
	sed -E 's/process [0-9]+/process N/; s/argv=0x[0-9a-f]+/argv=A/' | grep -v '^Cost:' |
		grep -v '^Hot blocks of the program run with the hook on only'
}

# run STDIN SETTING ARGS...: detect on with SETTING, three stops, info
# detect; the output in OUT
run() {
	_in=$1 _set=$2
	shift 2
	OUT=$(printf '%s\n' "$_in" | timeout 120 $QZDB --batch -ex "$_set" -ex 'detect on' -ex run \
		-ex continue -ex continue -ex 'info detect' "$@" 2>&1)
}

# both NAME STDIN ARGS...: the default and full-hook give the same output
both() {
	_name=$1 _stdin=$2
	shift 2
	run "$_stdin" 'maint emulator quick-hook' "$@"
	quick=$(printf '%s\n' "$OUT" | norm)
	expect "$_name: instructions checked" '^Memory accesses: the emulate engine ran the program; [1-9][0-9]* of its'
	run "$_stdin" 'maint emulator full-hook' "$@"
	expect_same "$_name: as with the full hook" "$quick" "$(printf '%s\n' "$OUT" | norm)"
	OUT=$quick
}

for o in O0 O2; do
	both "overflow $o" x $B/det_overflow-$o x y
	expect "overflow $o: the strcpy report" '^Heap buffer overflow: strcpy of 12 bytes'
	both "taint $o" x $B/det_taint-$o
	expect "taint $o: propagation turned on" '^Definedness: [2-9] loads of undefined bytes'
	both "uninit $o" x $B/det_uninit-$o
	expect "uninit $o: the report" '^Uninitialised value used by'
	both "libcall $o" x $B/det_libcall-$o double
	expect "libcall $o: the report" '^Double free of'
	both "stack $o" x $B/det_stack-$o
done
both "spin O2" x $B/det_spin-O2 200000 over
expect "spin O2: a hot loop ran unchecked" '^Hot loops touching no memory run unchecked so far: [1-9]'
expect "spin O2: the overflow" '^Heap buffer overflow: write of 4 bytes'
both "union O2" x $B/det_union-O2

# Verdicts made, then a breakpoint there: spin's loop ran once (at -O0
# its body touches memory: each instruction has a verdict; at -O2 the
# multiply and add touch none) before the breakpoint is set in it.
_call=$(line det_spin.c 'v[k] = spin(') _body=$(line det_spin.c 'x = x * 1103515245u + 12345u;')
for o in O0 O2; do
	qz -ex 'detect on' -ex "break det_spin.c:$_call" -ex run -ex continue \
		-ex "break det_spin.c:$_body" -ex continue -ex 'info breakpoints' $B/det_spin-$o 300
	expect "spin $o: a breakpoint set where verdicts were made stops" "^Breakpoint 2, .*det_spin.c:$_body$"
	expect "spin $o: once" '^	breakpoint already hit 1 time$'
done

# Library writers inside the emulator, against the single-step engine
_s=$(line det_overflow.c 'strcpy(buf')
for o in O0 O2; do
	qz -ex 'detect on' -ex 'run x y' -ex 'info detect' -ex 'bt 1' -ex continue $B/det_overflow-$o
	emu=$(printf '%s\n' "$OUT" | norm | grep -v '^Memory accesses:\|^Library code runs\|^Hot loops')
	expect "overflow $o: libwrite calls inside the emulator" '; [1-9][0-9]* calls of the library.s bulk writers \(memcpy\.\.\.\) seen inside the emulator, without a stop\.$'
	expect "overflow $o: stopped at the strcpy" "det_overflow.c:$_s$"
	qz -ex 'maint emulator off' -ex 'detect on' -ex 'run x y' -ex 'info detect' -ex 'bt 1' -ex continue \
		$B/det_overflow-$o
	expect_not "overflow $o: none inside without the emulator" 'inside the emulator'
	expect_same "overflow $o: as the single-step engine" "$emu" \
		"$(printf '%s\n' "$OUT" | norm | grep -v '^Memory accesses:\|^Library code runs\|^Hot loops')"
done
qz -ex 'detect on' -ex run -ex 'info detect' $B/sl_memcpy-O0
expect "sl_memcpy: no report" "$normal"
expect_not "sl_memcpy: nothing reported" "$report"
