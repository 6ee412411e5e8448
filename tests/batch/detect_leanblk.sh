#!/bin/sh
# detect_leanblk (issue 20): lean translations. In the watcher's lean runs
# a block of the program's own code run 256 times is translated again with
# only the instructions that need the per-instruction hook hooked (memory
# operands, calls, returns, indirect and backward jumps, sites, run
# targets, awaited returns, a backward jump's landing); the rest run as
# plain machine code and are counted per block. `maint emulator-lean off`
# (hidden) keeps every instruction hooked, `maint emulator full-hook` looks
# at each in full: all three give the same output, reports and counts of
# info detect, but the line that counts the lean blocks made (only a count
# of work skipped: it exists with lean translations alone). det_lean's
# bugs sit in a loop whose blocks went lean in the first pass: a heap
# overflow on the 1000th turn of the second, an undefined byte carried
# through the lean blocks' register-only instructions (propagation must
# drop them: a report in main), a breakpoint set on a register-only
# instruction of a lean block once it is lean (it stops: the machine
# forgets its pages and translations at each stop's region end anyway, and
# sites that change drop lean blocks), a hot loop touching no memory
# (never lean).
# Also on gzip (a real program) with a small input.
. tests/lib.sh
. tests/detect-lib.sh

made='^Hot blocks of the program run with the hook on only the instructions that need it: [1-9][0-9]* made so far\.$'
norm() {
	sed -E 's/process [0-9]+/process N/' | grep -v '^Cost:' |
		grep -v '^Hot blocks of the program run with the hook on only'
}

# three NAME STDIN RUN PROGRAM: lean (the default), lean off and full-hook
# agree, info record's count of instructions emulated included (a lean
# block's unhooked ones are credited as it starts, less those past a
# stop); lean blocks were made (unless NOMADE is set); the default's
# output in OUT
three() {
	_name=$1 _in=$2 _run=$3
	shift 3
	OUT=$(printf '%s\n' "$_in" | timeout 120 $QZDB --batch -ex 'detect on' -ex "$_run" -ex continue \
		-ex 'info detect' -ex 'info record' "$@" 2>&1)
	lean=$OUT
	[ "${NOMADE:-}" ] || expect "$_name: lean blocks made" "$made"
	for _set in 'maint emulator-lean off' 'maint emulator full-hook'; do
		OUT=$(printf '%s\n' "$_in" | timeout 120 $QZDB --batch -ex "$_set" -ex 'detect on' \
			-ex "$_run" -ex continue -ex 'info detect' -ex 'info record' "$@" 2>&1)
		expect_not "$_name: none made with $_set" "$made"
		expect_same "$_name: as with $_set" "$(printf '%s\n' "$lean" | norm)" \
			"$(printf '%s\n' "$OUT" | norm)"
	done
	OUT=$lean
}

_st=$(line det_lean.c 'v[i % 1000 + ((i == 1000)') _br=$(line det_lean.c 'if (b > 1000u)')
_acc=$(line det_lean.c 'acc += h >> 3;')
for o in O0 O2; do
	three "ok $o" x 'run 3000 ok' $B/det_lean-$o
	expect "ok $o: no report" "$normal"
	three "overflow $o" x 'run 3000 overflow' $B/det_lean-$o
	expect "overflow $o: the 1000th turn's write" \
		"^Heap buffer overflow: (write|read) of 4 bytes at $hex, 4 bytes past the end of a 4000-byte block .* at det_lean.c:$_st$"
	three "uninit $o" x 'run 3000 uninit' $B/det_lean-$o
	expect "uninit $o: through the lean blocks" \
		"^Uninitialised value used by a conditional branch: .* at det_lean.c:$_br$"
	# blocks made lean in the first pass; a breakpoint on a register-only
	# instruction there (at -O2) stops in the second
	qz -ex 'detect on' -ex 'break pause_here' -ex 'run 3000 ok' -ex 'info detect' \
		-ex "break det_lean.c:$_acc" -ex continue -ex 'print i' $B/det_lean-$o
	expect "break $o: lean blocks before it" "$made"
	expect "break $o: stops in the second pass" "^Breakpoint 2, pass .*det_lean.c:$_acc$"
	expect "break $o: on its first turn" '^\$1 = 0$'
done

# a hot loop that touches no memory runs with no hook at all: never lean
# (a lean block there would hook its backward jump again, and count it:
# gzip's case below fails then)
NOMADE=1
three "spin O2" x "run 200000 over" $B/det_spin-O2
NOMADE=
expect "spin O2: a hot loop ran unchecked" '^Hot loops touching no memory run unchecked so far: [1-9]'
expect "spin O2: emulated" '^Emulated [0-9]+ instructions'

# a real program: gzip over a few thousand lines
seq 1 4000 > $B/leanblk-seq.txt
three "gzip" x "run -c $B/leanblk-seq.txt > /dev/null" "$(command -v gzip)"
expect "gzip: no report" "$normal"
