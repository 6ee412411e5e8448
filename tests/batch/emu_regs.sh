#!/bin/sh
# emu_regs (issue 20, speed): the emulator's hooks read general registers
# and fs/gs base with a load from where Unicorn keeps them (slice/emu-regs.c
# finds that place with a probe and checks it), not through uc_reg_read;
# `maint emulator-regs api` forces uc_reg_read. Both ways give the same
# output: the detectors' reports, stops and every count of info detect,
# on fixtures of each kind and on a real program (gzip), and the emulate
# recording engine's records, slices and registers.
. tests/lib.sh
. tests/detect-lib.sh

norm() {
	sed -E 's/process [0-9]+/process N/; s/argv=0x[0-9a-f]+/argv=A/' | grep -v '^Cost:'
}

# On this machine the probe finds the registers (else every comparison
# below would compare the fallback with itself).
qz -ex 'maint emulator-regs' -ex 'detect on' -ex run -ex 'maint emulator-regs' $B/det_spin-O2 200
expect "before a machine: none probed" '^no emulated machine made yet\.$'
expect "the probe found the registers" "^general registers read from Unicorn's CPU state at 0x"
qz -ex 'maint emulator-regs sideways'
expect "a bad argument: usage" '^error: Usage: maint emulator-regs \[direct\|api\]$'

# both NAME STDIN RUN ARGS...: detect on, RUN, two continues and info
# detect, read directly and through uc_reg_read: the same output
both() {
	_name=$1 _stdin=$2 _run=$3
	shift 3
	for _how in direct api; do
		OUT=$(printf '%s\n' "$_stdin" | timeout 120 $QZDB --batch \
			-ex "maint emulator-regs $_how" -ex 'detect on' -ex "$_run" -ex continue \
			-ex continue -ex 'info detect' "$@" 2>&1 | norm)
		[ $_how = direct ] && _direct=$OUT
	done
	expect_same "$_name: read directly as through uc_reg_read" "$_direct" "$OUT"
	OUT=$_direct
}

for o in O0 O2; do
	both "overflow $o" x run $B/det_overflow-$o x y
	expect "overflow $o: the strcpy report" '^Heap buffer overflow: strcpy of 12 bytes'
	both "taint $o" x run $B/det_taint-$o
	expect "taint $o: propagation turned on" '^Definedness: [2-9] loads of undefined bytes'
	both "uninit $o" x run $B/det_uninit-$o
	expect "uninit $o: the report" '^Uninitialised value used by'
	both "nullp $o" x run $B/det_nullp-$o
	expect "nullp $o: the report" '^NULL pointer dereference'
	both "dangle $o" x run $B/det_dangle-$o
	expect "dangle $o: the report" '^Dangling pointer'
done
both "spin O2" x run $B/det_spin-O2 200000 over
expect "spin O2: the overflow" '^Heap buffer overflow: write of 4 bytes'

# A real program: most of its instructions touch memory through registers
seq 1 3000 > $B/emu_regs-seq.txt
both "gzip" x "run -c $B/emu_regs-seq.txt > /dev/null" /usr/bin/gzip
expect "gzip: ran to its end" '^\[Inferior 1 \(process N\) exited normally\]$'
expect "gzip: instructions checked" '^Memory accesses: the emulate engine ran the program; [1-9][0-9]* of its'

# The recorder: records (every address), slices, registers after a region
recorded() {
	printf '%s\n' "$OUT" | grep -Ev '^(Breakpoint [0-9]+ at|\[Inferior|\[Detaching|\[New Thread)' | norm
}
for o in O0 O2; do
	for _how in direct api; do
		qz -ex "maint emulator-regs $_how" -ex 'set record engine emulate' -ex 'break cover' \
			-ex run -ex 'record on' -ex finish -ex 'info registers' -ex 'info record' \
			-ex 'maint print-record' \
			-ex slice -ex 'info slice 1' -ex continue $B/rec_cover-$o
		[ $_how = direct ] && _direct=$(recorded)
	done
	expect "rec_cover $o: recorded with the emulator" '^Recording: o[nf]f* \(engine: emulate\)'
	expect_same "rec_cover $o: the same records and registers" "$_direct" "$(recorded)"
	for _how in direct api; do
		qz -ex "maint emulator-regs $_how" -ex 'break main' -ex run -ex 'record on' -ex continue \
			-ex 'maint print-record' -ex slice -ex 'info slice 1' $B/sl_func-$o
		[ $_how = direct ] && _direct=$(recorded)
	done
	expect_same "sl_func $o: the same records and slice" "$_direct" "$(recorded)"
done
