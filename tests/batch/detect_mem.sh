#!/bin/sh
# detect_mem (issue 20): the read and write events, the program's own loads
# and stores checked against the heap's shadow while the recorder's engine
# runs it. A use after free of a small block (det_uaf) and a heap overflow
# and over-read by plain loops (det_heapov) at -O0 and -O2: the right line,
# the block's sites, the chain from the pointer back to malloc; fixed
# versions and other programs silent; the single-step fallback finds the
# same; a second thread turns the events off with a warning. The uninit
# class (in detect on): a branch on a malloc'd slot nothing wrote, and on
# a stack variable set on one path only, at -O0 and -O2; the buffer
# read(2) fills is defined; fixed versions silent.
. tests/lib.sh
. tests/detect-lib.sh

uaf() {
	_b=$B/det_uaf-$1 _use=$(line det_uaf.c 'n += p->key > 0') _loop=$(line det_uaf.c 'p = p->next)')
	_a=$(line det_uaf.c 'malloc(sizeof *n)') _f=$(line det_uaf.c '	free(n);')
	_r=$(line det_uaf.c 'recent = a;')
	# -O2 inlines node_drop's free as a tail call: its site is main's call
	[ $1 = O2 ] && _f=$(line det_uaf.c 'node_drop(a, fixed)')
	qz -ex 'detect on' -ex 'set detect-record on' -ex run -ex 'info detect' -ex continue $_b
	expect "uaf-$1 report" "^Dangling pointer dereference: read of 4 bytes at $hex, 0 bytes into a 24-byte block allocated at det_uaf.c:$_a by malloc and freed at det_uaf.c:$_f by free, at det_uaf.c:$_use$"
	expect "uaf-$1 stops at the load" "^$_use	+n \+= p->key > 0;$"
	expect "uaf-$1 chain: the global that kept the pointer" "^read pointer ← .*recent = a \(det_uaf.c:$_r(, copy)?\) ← .*malloc \(det_uaf.c:$_a\)$"
	expect "uaf-$1 info detect: the engine" '^Memory accesses: the emulate engine runs the program; [0-9]+ of its instructions checked, read 1 write 0 events'
	expect "uaf-$1 continue: the next field read" "^Dangling pointer dereference: read of 8 bytes at $hex, 16 bytes into a 24-byte block .* at det_uaf.c:$_loop$"
	qz -ex 'detect on' -ex run $_b fixed
	expect_not "uaf-fixed-$1 no report" "$report"
	expect "uaf-fixed-$1 exits normally" "$normal"
	# the heap-call classes alone cannot see it
	qz -ex 'detect on double-free invalid-free leak' -ex run $_b
	expect_not "uaf-$1 unseen without the class" "$report"
}

overflow() {
	_b=$B/det_heapov-$1 _st=$(line det_heapov.c 'v[i] = i * i') _ld=$(line det_heapov.c 't += s[i]')
	_a=$(line det_heapov.c 'malloc(n * sizeof *v)') _s=$(line det_heapov.c 'malloc(24)')
	qz -ex 'detect on' -ex 'set detect-record on' -ex run -ex continue $_b
	expect "overflow-$1 store report" "^Heap buffer overflow: write of 4 bytes at $hex, 4 bytes past the end of a 36-byte block allocated at det_heapov.c:$_a by malloc, at det_heapov.c:$_st$"
	expect "overflow-$1 stops at the store" "^$_st	+v\[i\] = i \* i;$"
	expect "overflow-$1 store chain: through the index arithmetic to malloc" "^write pointer ← (v\[i\] = i \* i \(det_heapov.c:$_st\) ← int \*v = malloc\(n \* sizeof \*v\) \(det_heapov.c:$_a\) ← )?malloc \(det_heapov.c:$_a\)$"
	expect "overflow-$1 load report" "^Heap buffer overflow: read of 1 bytes at $hex, 1 bytes past the end of a 24-byte block allocated at det_heapov.c:$_s by malloc, at det_heapov.c:$_ld$"
	expect "overflow-$1 load chain" "^read pointer ← .* ← char \*s = malloc\(24\) \(det_heapov.c:$_s\) ← malloc \(det_heapov.c:$_s\)$"
	_for=$(line det_heapov.c 'i < n + !fixed')
	expect_not "overflow-$1 a loop's increments are one link" "\(det_heapov.c:($_for|$_ld)\) ← [^←]*\(det_heapov.c:($_for|$_ld)\)"
	qz -ex 'detect on' -ex run $_b fixed
	expect_not "overflow-fixed-$1 no report" "$report"
	expect "overflow-fixed-$1 exits normally" "$normal"
}

uninit() {
	_b=$B/det_uninit-$1 _cmp=$(line det_uninit.c 'c->n[i] > c->n[best]') _use=$(line det_uninit.c 'if (flag)')
	_a=$(line det_uninit.c 'malloc(sizeof(struct counts))')
	# -O2 inlines counts_new into main: the site is its line there
	[ $1 = O2 ] && _a=$(line det_uninit.c 'counts_new(fixed);')
	OUT=$(echo x | timeout 60 $QZDB --batch -ex 'detect on uninit' -ex 'set detect-record on' -ex run \
		-ex continue -ex 'info detect' $_b 2>&1)
	expect "uninit-$1 heap report" "^Uninitialised value used by (a conditional branch|an address): it was read from 8 bytes into a 32-byte block allocated at det_uninit.c:$_a by malloc, which nothing wrote, at det_uninit.c:$_cmp$"
	expect "uninit-$1 stops at the comparison" "^$_cmp	+if \(c->n\[i\] > c->n\[best\]\)$"
	expect_count "uninit-$1 one report a site" 1 "at det_uninit.c:$_cmp$"
	if [ $1 = O0 ]; then
		expect "uninit-$1 chain: back to the allocation" "^uninit value ← if \(c->n\[i\] > c->n\[best\]\) \(det_uninit.c:$_cmp\) ← malloc, never written \(det_uninit.c:$_a\)$"
		# at -O2 v lives in a register that holds an old, defined value
		expect "uninit-$1 stack report" "^Uninitialised value used by a conditional branch: it was read from the stack at $hex, which nothing wrote, at det_uninit.c:$_use$"
	fi
	expect "uninit-$1 info detect" '^Memory accesses: the emulate engine (runs|ran) the program; [0-9]+ of its instructions checked'
	OUT=$(echo x | timeout 60 $QZDB --batch -ex 'detect on uninit' -ex run $_b fixed 2>&1)
	expect_not "uninit-fixed-$1 no report (read(2) fills buf)" '^Uninitialised'
	expect "uninit-fixed-$1 exits normally" "$normal"
}

# uninit's fast path: per-instruction propagation only while a register
# holds an undefined byte (det_taint). An undefined slot carried through
# mix's loop after the loop ran unhooked (-O2: the load stops the machine
# and hooks it again), one kept in a register across strlen, each
# deciding a branch; read(2)'s and memset's buffers defined; the switch
# counted; the single-step engine and skip-libs report the same (-O2).
taint() {
	_b=$B/det_taint-$1 _mix=$(line det_taint.c 'if (b > 1000u)') _slot=$(line det_taint.c 'if (c + n > 10)')
	_a=$(line det_taint.c 'malloc(4 * sizeof *slot)')
	# -O0 keeps b and c in the stack frame: the origin is still the slot's
	_o1="4 bytes into a 16-byte block allocated at det_taint.c:$_a by malloc" _o2="8 ${_o1#4 }"
	OUT=$(echo x | timeout 60 $QZDB --batch -ex 'detect on uninit' -ex run -ex continue \
		-ex continue -ex 'info detect' $_b 2>&1)
	expect "taint-$1 through the loop" "^Uninitialised value used by a conditional branch: it was read from $_o1, which nothing wrote, at det_taint.c:$_mix$"
	expect "taint-$1 across strlen" "^Uninitialised value used by a conditional branch: it was read from $_o2, which nothing wrote, at det_taint.c:$_slot$"
	expect_count "taint-$1 two reports" 2 '^Uninitialised value'
	expect "taint-$1 read(2) defines its buffer" '^read x$'
	expect "taint-$1 propagation turned on by loads" '^Definedness: [2-9] loads of undefined bytes into a register turned per-instruction propagation on; [0-9]+ instructions propagated\.$'
	[ $1 = O2 ] && expect "taint-$1 mix's loop ran unhooked" '^Hot loops touching no memory run unchecked so far: [1-9]'
	expect "taint-$1 memset defines its block" '^memset y$'
	# propagation turned on after code ran re-plans the hooks (library code
	# hooked again): its translations are dropped, not Unicorn's whole code
	# buffer (a flush memsets all of its 1 GiB: qzdb's peak RSS over 1 GiB)
	echo x | /usr/bin/time -f 'rss %M' -o $B/taint-$1.rss timeout 60 $QZDB --batch \
		-ex 'detect on uninit' -ex run $_b >/dev/null 2>&1
	expect_rss_under "taint-$1 re-plan without a flush" 262144 $B/taint-$1.rss
	if [ $1 = O2 ]; then   # (seconds at -O0)
		_fast="$OUT"
		OUT=$(echo x | timeout 60 $QZDB --batch -ex 'maint emulator skip-libs' -ex 'detect on uninit' \
			-ex run -ex continue -ex continue -ex 'info detect' $_b 2>&1)
		expect_same "taint-$1 library code unhooked (skip-libs): the same reports" \
			"$(echo "$_fast" | grep '^Uninit')" "$(echo "$OUT" | grep '^Uninit')"
		expect "taint-$1 skip-libs: it ran so" '^Library code runs without the per-instruction hook: [1-9]'
		OUT=$(echo x | timeout 60 $QZDB --batch -ex 'maint emulator off' -ex 'detect on uninit' \
			-ex run -ex continue -ex continue $_b 2>&1)
		expect_same "taint-$1 single-step engine: the same reports" \
			"$(echo "$_fast" | grep '^Uninit')" "$(echo "$OUT" | grep '^Uninit')"
	fi
	OUT=$(echo x | timeout 60 $QZDB --batch -ex 'detect on uninit' -ex run $_b fixed 2>&1)
	expect_not "taint-fixed-$1 no report" '^Uninitialised'
	expect "taint-fixed-$1 exits normally" "$normal"
}

# Definedness at byte grain (det_union): a union copied whole and its int
# half set (-O2: and with 0xffffffff00000000, or; a 4-byte move zeroes
# the upper half) is defined there, undefined in the pointer's upper half.
union_half() {
	_b=$B/det_union-$1 _a=$(line det_union.c 'malloc(8 * sizeof *stack)')
	_p=$(line det_union.c 'stack[3].pval != NULL')
	OUT=$(timeout 60 $QZDB --batch -ex 'detect on uninit' -ex run $_b 2>&1)
	expect_not "union-$1 the int half is defined: no report" '^Uninitialised'
	expect "union-$1 exits normally" "$normal"
	OUT=$(timeout 60 $QZDB --batch -ex 'detect on uninit' -ex run -ex continue $_b pval 2>&1)
	# its undefined half came, copy by copy, from stack[0], never written
	expect "union-$1 the pointer's upper half" "^Uninitialised value used by a conditional branch: it was read from 0 bytes into a 64-byte block allocated at det_union.c:$_a by malloc, which nothing wrote, at det_union.c:$_p$"
	expect_count "union-$1 one report" 1 '^Uninitialised'
}

for o in O0 O2; do
	uaf $o
	overflow $o
	uninit $o
	taint $o
	union_half $o
done

# detect on without names includes uninit; detect off uninit leaves it out.
_cmp=$(line det_uninit.c 'c->n[i] > c->n[best]')
OUT=$(echo x | timeout 60 $QZDB --batch -ex 'detect on' -ex run $B/det_uninit-O0 2>&1)
expect "detect on: every class" '^Detectors on: dangling double-free heap-overflow invalid-free leak null-deref stack-overflow uninit\.$'
expect "detect on: uninit reports" "^Uninitialised value used by a conditional branch: .* at det_uninit.c:$_cmp$"
OUT=$(echo x | timeout 60 $QZDB --batch -ex 'detect on' -ex 'detect off uninit' -ex run $B/det_uninit-O0 2>&1)
expect_not "detect off uninit: no uninit report" '^Uninitialised'
expect "detect off uninit: exits normally" "$normal"

# Without debug info: the same events, sites as addresses.
qz -ex 'detect on' -ex run $B/det_heapov-nodebug
expect "nodebug overflow found" "^Heap buffer overflow: write of 4 bytes at $hex, 4 bytes past the end of a 36-byte block allocated at $hex <squares\+[0-9]+> by malloc, at $hex <squares\+[0-9]+>$"

# The fallback engine (no emulator) sees the same access.
qz -ex 'maint emulator off' -ex 'detect on' -ex run -ex 'info detect' $B/det_uaf-O2
expect "single-step fallback: found" "^Dangling pointer dereference: read of 4 bytes at $hex, 0 bytes into a 24-byte block"
expect "single-step fallback: its engine" '^Memory accesses: the single-step engine runs the program'

# Turned on mid-run: blocks allocated from then on are watched.
_drop=$(line det_uaf.c 'node_drop(a, fixed)')
qz -ex "break det_uaf.c:$_drop" -ex run -ex 'detect on dangling' -ex continue $B/det_uaf-O0
expect "mid-run: no block known, nothing reported" "$normal"
expect_not "mid-run: no block known, no report" "$report"
qz -ex "break node_new" -ex run -ex 'detect on dangling' -ex 'delete' -ex continue $B/det_uaf-O0
expect "mid-run before the allocations: found" "^Dangling pointer dereference: read of 4 bytes"

# A rollback: the shadow is rebuilt from the restored heap model (the
# block is live again, then freed again): the same report, once more.
qz -ex 'detect on' -ex "break det_uaf.c:$_drop" -ex run -ex checkpoint -ex delete -ex continue \
   -ex 'rollback 1' -ex continue -ex 'info detect' $B/det_uaf-O0
expect_count "rollback: the use after free twice" 2 '^Dangling pointer dereference: read of 4 bytes'
expect "rollback: fired twice" '^dangling +yes +3 +2 +Dangling pointer dereference$'

# A second thread: the events go off with a warning, the run completes.
qz -ex 'detect on' -ex run -ex 'info detect' $B/thr4-O2
expect "threads: warning" '^warning: Memory-access detectors \(reads and writes\) are off for the rest of this run: the program started a thread'
expect "threads: info detect says why" 'off since the program started a thread\.$'
expect "threads: exits normally" "$normal"

# Programs with no heap bug: silent.
for p in values fdlist sl_memcpy ckpt_prop; do
	qz -ex 'detect on' -ex run $B/$p-O2
	expect_not "clean $p no report" "$report"
	expect "clean $p exits normally" "$normal"
done
