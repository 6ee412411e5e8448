#!/bin/sh
# emu_stores (issue 20): Unicorn 2.0.1's stores on its fast path. Its
# dirty-page tracking is a stub, so every store went to a search for code
# to invalidate (about 60 ns a store); emu-patch.c makes the one
# instruction that marks pages so a no-op in the loaded library (hidden
# `maint emulator-stores fast|exact`). Checked here: the mend is made on
# this machine's Unicorn (a skip line names why not, on another build);
# detectors' and the recorder's output are the same with stores fast and
# exact; a program whose own stores rewrite code it runs in a writable and
# executable page (emu_jit: 200 rewrites, sum 19900) runs as natively,
# under `detect on` and under `record`, because such a mapping puts the
# original instruction back (without that the machine ran the first code
# each time: sum 0), or, when it cannot be put back (forced with the
# hidden `maint emulator-stores stuck`), keeps the mapping out of the
# machine so that the CPU runs it.
. tests/lib.sh
. tests/detect-lib.sh

fast='^Stores in the emulator take its fast path \(Unicorn 2\.0\.1 mended in place\)\.$'
wx='^Stores in the emulator take its slow path: a writable and executable mapping: stores look for the code they change\.$'

qz -ex 'detect on' -ex 'run ok' -ex 'maint emulator-stores' $B/det_uninit-O0
mended=
holds "the mend is made on this machine's Unicorn" "$fast" \
	"$(printf '%s\n' "$OUT" | grep '^Stores in the emulator' | head -1)" && mended=1

qz -ex 'maint emulator-stores sometimes'
expect "a wrong argument: usage" '^error: Usage: maint emulator-stores \[fast\|exact\]$'

# the same reports, stops and counts with stores fast and exact
norm() { sed -E 's/process [0-9]+/process N/' | grep -v '^Cost:'; }
# both NAME PROGRAM COMMANDS... (the program last on qzdb's command line:
# what follows it would be the program's arguments)
both() {
	_name=$1 _prog=$2
	shift 2
	qz -ex 'detect on' "$@" -ex 'info detect' -ex 'info record' "$_prog"
	_fast=$(printf '%s\n' "$OUT" | norm)
	qz -ex 'maint emulator-stores exact' -ex 'detect on' "$@" -ex 'info detect' -ex 'info record' \
		"$_prog"
	expect "$_name: exact says so" '^Stores in the emulator take its slow path: maint emulator-stores exact\.$'
	_exact=$(printf '%s\n' "$OUT" | grep -v '^Stores in the emulator' | norm)
	expect_same "$_name: the same with stores fast and exact" "$_fast" "$_exact"
}
for o in O0 O2; do
	both "heap overflow $o" $B/det_heapov-$o -ex 'run' -ex continue
	both "uninit $o" $B/det_uninit-$o -ex 'run' -ex continue
	both "lean overflow $o" $B/det_lean-$o -ex 'run 3000 overflow' -ex continue
done
seq 1 2000 >$B/emu_stores-seq.txt
both "gzip" "$(command -v gzip)" -ex "run -c $B/emu_stores-seq.txt > $B/emu_stores-gz.out" -ex continue
if gzip -dc $B/emu_stores-gz.out | cmp -s - $B/emu_stores-seq.txt; then
	pass "gzip: its output unpacks to its input"
else
	fail "gzip" "its output under detect on does not unpack to its input"
fi

# code rewritten by the program's own stores in a writable, executable page
for o in O0 O2; do
	qz -ex 'detect on' -ex 'run' -ex 'maint emulator-stores' $B/emu_jit-$o
	expect "jit $o: detect on runs the code as last written" '^sum 19900$'
	expect "jit $o: detect on ran to its end" "$normal"
	[ "$mended" ] && expect "jit $o: the mapping put the original back" "$wx"
	qz -ex 'break main' -ex 'run' -ex 'record' -ex 'next 30' -ex 'continue' $B/emu_jit-$o
	expect "jit $o: the recorder runs the code as last written" '^sum 19900$'
done

# the original cannot be put back (forced): such a mapping stays out of
# the machine and its instructions run on the CPU
stuck='^Stores in the emulator take its fast path \(Unicorn 2\.0\.1 mended in place\); its code could not be put back: writable and executable mappings run on the CPU\.$'
if [ "$mended" ]; then
	for o in O0 O2; do
		qz -ex 'maint emulator-stores stuck' -ex 'detect on' -ex 'run' -ex 'maint emulator-stores' \
			$B/emu_jit-$o
		expect "jit $o, stuck: detect on runs the code as last written" '^sum 19900$'
		expect "jit $o, stuck: says so" "$stuck"
		qz -ex 'maint emulator-stores stuck' -ex 'break main' -ex 'run' -ex 'record' -ex 'next 30' \
			-ex 'continue' $B/emu_jit-$o
		expect "jit $o, stuck: the recorder runs the code as last written" '^sum 19900$'
	done
fi

# put back and mended again by hand (the machine exists: no W+X mapping)
if [ "$mended" ]; then
	qz -ex 'detect on' -ex 'run ok' -ex 'maint emulator-stores exact' \
		-ex 'maint emulator-stores fast' $B/det_uninit-O0
	expect "exact then fast: fast again" "$fast"
fi
