#!/bin/sh
# detect_machine (issue 20): heap calls seen inside the emulator. While the
# memory watcher runs the program in the recorder's emulator, free's entry
# and malloc/calloc/realloc's entry and return are handled there, without
# a ptrace stop (detect/heap-machine.c). Checked on det_libcall (blocks a
# library allocates: strdup called directly, from a helper, from a qsort
# callback; realloc(NULL); calloc; recursion; memalign, aligned_alloc and
# posix_memalign on chunks freed before), at -O0 and -O2, with each
# of its bugs: the reports, stops and chains are exactly those of the
# single-step engine (every heap call a trap on the process), and the
# double free's and invalid free's those of native breakpoints (the heap
# classes alone with the allocator's internal stops; but for the address,
# also with qzheap's allocator); info detect counts the calls seen inside; a user's
# breakpoint on malloc still stops; next over a malloc, stepi inside it
# keep the model right. By default (maint emulator skip-libs) library
# code runs without the per-instruction hook (a block hook looks at each
# block; one holding an instruction the emulator leaves to the CPU runs on
# the CPU up to it): the same output as hooked (maint emulator hook-libs);
# fdlist runs right so (a block hook's stop left rip at the block before). Hot loops that touch no memory (det_spin at -O2)
# run without the emulator's per-instruction hook: the overflow after them
# is still found, a breakpoint set inside one later stops there and next
# steps as the single-step engine does, a loop that never ends still
# gets its SIGALRM (the machine's time limit), and a loop of several blocks
# the time limit stops goes on from where it was (its result as natively).
. tests/lib.sh
. tests/detect-lib.sh

# the output without what differs between runs (pids, argv's address:
# the watcher's glibc tunable lengthens the environment)
norm() {
	printf '%s\n' "$OUT" | sed -E 's/process [0-9]+/process N/; s/argv=0x[0-9a-f]+/argv=A/' |
		grep -v '^Memory accesses:' | grep -v '^Library code runs without'
}

same() { expect_same "$@"; }   # NAME A B: two outputs are equal

_lbl=$(line det_libcall.c 'return strdup(s);')
_dbl=$(line det_libcall.c 'free(q.a);')
_inner=$(line det_libcall.c '"inner") == 0 ?')
_first=$(line det_libcall.c 'free(p.a);')
_pm=$(line det_libcall.c 'posix_memalign(&al')
for o in O0 O2; do
	b=$B/det_libcall-$o
	for bug in none leak double inner aligned; do
		qz -ex 'detect on' -ex run -ex 'info detect' $b $bug
		raw=$OUT emu=$(norm | grep -v '^Cost:')
		expect "$o $bug: heap calls inside the emulator" '; [0-9]{2,} heap calls seen inside the emulator, without a stop\.$'
		qz -ex 'maint emulator off' -ex 'detect on' -ex run -ex 'info detect' $b $bug
		expect_not "$o $bug: none inside without the emulator" 'inside the emulator'
		same "$o $bug: as the single-step engine" "$emu" "$(norm | grep -v '^Cost:')"
		OUT=$raw
		expect "$o $bug: library code without the hook by default" '^Library code runs without the per-instruction hook: [0-9]{3,} blocks so far, [1-9][0-9]* of them run on the CPU'
		qz -ex 'maint emulator hook-libs' -ex 'detect on' -ex run -ex 'info detect' $b $bug
		expect_not "$o $bug: library code hooked when told" '^Library code runs without'
		same "$o $bug: as with library code hooked" "$emu" "$(norm | grep -v '^Cost:')"
		OUT=$raw
		case $bug in
		none) OUT=$raw; expect_not "$o none: no report" "$report"; expect "$o none: exits" "$normal" ;;
		double) OUT=$emu
			expect "$o double: the report" "^Double free of $hex \(2 bytes, allocated at det_libcall.c:$_lbl by strdup, freed at det_libcall.c:$_first\) at det_libcall.c:$_dbl$"
			dbl=$(printf '%s\n' "$emu" | grep -E "$report")
			qz -ex 'set detect-preload off' -ex 'detect on double-free invalid-free leak' \
			   -ex run $b $bug
			same "$o double: as native breakpoints" "$dbl" "$(norm | grep -E "$report")"
			# qzheap's allocator (detect_preload.sh) places the block elsewhere
			qz -ex 'detect on double-free invalid-free leak' -ex run $b $bug
			same "$o double: as with qzheap's allocator, but the address" \
			     "$(printf '%s\n' "$dbl" | sed -E "s/$hex/ADDR/g")" \
			     "$(norm | grep -E "$report" | sed -E "s/$hex/ADDR/g")" ;;
		aligned) OUT=$emu
			[ $o = O0 ] && expect "$o aligned: a posix_memalign'd block leaked" "^Memory leak of $hex \(40 bytes, allocated at det_libcall.c:$_pm by posix_memalign\), not freed at exit$"
			expect_not "$o aligned: nothing else" '^(Dangling|Heap buffer|Invalid|Double)' ;;
		inner) OUT=$emu
			expect "$o inner: the report" "^Invalid free of $hex, 1 bytes into a [0-9]+-byte block allocated at det_libcall.c:[0-9]+ by strdup, at det_libcall.c:$_inner$" ;;
		esac
	done
done
# A block hook's stop: the machine's rip is the block's (Unicorn 2.0.1
# leaves it at the previous block's call, which then ran twice: fdlist's
# readdir returned to 0x3).
for o in O0 O2; do
	qz -ex 'detect on' -ex run -ex 'info detect' $B/fdlist-$o
	expect_not "fdlist $o skip-libs: no report" "$report"
	expect "fdlist $o skip-libs: the program's own output" '^fds: 0 1 2$'
	expect "fdlist $o skip-libs: library code ran so" '^Library code runs without the per-instruction hook: [1-9]'
done
qz -ex 'detect on' -ex run $B/det_libcall-O2 leak
expect "O2 leak: the strdup'd block, charged to the program's call" "^Memory leak of $hex \([0-9] bytes, allocated at det_libcall.c:[0-9]+ by strdup\), not freed at exit$"

# A user's breakpoint on malloc stops there (the machine leaves the call
# to the process), and the run then goes on with the same findings.
qz -ex 'detect on' -ex 'break malloc' -ex run -ex 'delete' -ex continue $B/det_libcall-O0 double
expect "break malloc: stops" '^Breakpoint 1(\.[0-9]+)?, .*malloc'
expect "break malloc: then the double free" "^Double free of $hex \(2 bytes, allocated at det_libcall.c:$_lbl by strdup"

# next over a call of malloc (its return is also next's stop), stepi
# into it (the single-step engine runs it: the awaited return is planted)
_dm=$(line det_libcall.c 'int *p = malloc(sizeof *p);')
qz -ex 'detect on' -ex "break det_libcall.c:$_dm" -ex run -ex next -ex next -ex 'stepi 3' -ex delete \
	-ex continue -ex 'info detect' $B/det_libcall-O0 double
expect "next over malloc: the double free still found" "^Double free of $hex \(2 bytes, allocated at det_libcall.c:$_lbl by strdup, freed at det_libcall.c:$_first\) at det_libcall.c:$_dbl$"
expect_not "next over malloc: no false report" '^(Invalid free|Heap buffer overflow|Dangling pointer)'
qz -ex 'detect on' -ex "break det_libcall.c:$_dm" -ex run -ex 'stepi 12' -ex delete -ex continue $B/det_libcall-O0
expect_not "stepi inside malloc: no report" "$report"
expect "stepi inside malloc: exits" "$normal"

_put=$(line det_spin.c 'v[i] = x;') _dm=$(line det_spin.c 'malloc(4 * sizeof *v)')
_call=$(line det_spin.c 'v[k] = spin(') _body=$(line det_spin.c 'x = x * 1103515245u + 12345u;')
for o in O0 O2; do
	want=$($B/det_spin-$o 200000 over 2>/dev/null | head -1)
	qz -ex 'detect on' -ex run -ex 'info detect' -ex continue $B/det_spin-$o 200000 over
	expect "spin $o: the overflow after the hot loops" "^Heap buffer overflow: write of 4 bytes at $hex, 4 bytes past the end of a 16-byte block allocated at det_spin.c:$_dm by malloc, at det_spin.c:$_put$"
	expect "spin $o: the loops' result as natively" "^$want$"
	[ $o = O2 ] && expect "spin $o: a hot loop ran unchecked" '^Hot loops touching no memory run unchecked so far: [1-9]'
	if [ $o = O2 ]; then   # the time limit stops a loop of several blocks: it goes on right
		want=$($B/det_spin-$o 30000001 branchy)
		qz -ex 'detect on' -ex run $B/det_spin-$o 30000001 branchy
		expect "spin $o: a loop stopped by the time limit goes on as natively" "^$want$"
	fi
	qz -ex 'detect on' -ex run $B/det_spin-$o 1000 forever
	expect "spin $o: a loop without end still gets its signal" "$normal"
	for eng in on off; do
		qz -ex "maint emulator $eng" -ex 'detect on' -ex "break det_spin.c:$_call" -ex run -ex continue \
			-ex "break det_spin.c:$_body" -ex continue -ex next -ex next -ex 'info breakpoints' $B/det_spin-$o 3000
		[ $eng = on ] && emu=$(norm)
	done
	OUT=$emu
	expect "spin $o: a breakpoint set in a hot loop stops" "^Breakpoint 2, .*det_spin.c:$_body$"
	same "spin $o: next in it as the single-step engine" "$emu" "$(norm)"
done

# The time limit (while a hot loop runs unhooked) stopping the machine
# often (every 20 µs instead of 100 ms): the work-bound bench load runs
# to its native result with no report. Stopped by uc_emu_stop from the
# timer's thread, the machine went on from a stale rip (false double frees
# at heapwork.c:39, returns to garbage: about 1 run in 2 at this limit).
HW=$B/detect-machine-heapwork
gcc -g -O2 -o $HW tests/bench/heapwork.c
want=$($HW 50 20000)
for i in 1 2 3; do
	qz -ex 'maint emulator-time-limit 20' -ex 'detect on' -ex run $HW 50 20000
	expect "time limit of 20 us, run $i: the native result" "^$want\$"
	expect_not "time limit of 20 us, run $i: no report" "$report"
done
qz -ex 'maint emulator-time-limit 0'
expect "maint emulator-time-limit 0: refused" '^error: Usage: maint emulator-time-limit USEC'
