#!/bin/sh
# Instruction and system-call semantics in slices (issue 23, items 5 and 7):
# the dynamic linker's lazy-binding trampoline adds no dependences (a slice
# is the same with and without LD_BIND_NOW=1), and the memory system calls
# write has its writer.
. tests/lib.sh

# lazy_slice BIN [now]: the slice of sink in sl_lazy, as members and counts.
lazy_slice() {
	if [ -n "$2" ]; then
		OUT=$(LD_BIND_NOW=1 timeout 60 $QZDB --batch -ex 'break main' -ex run -ex 'record on' \
			-ex 'break sl_lazy.c:23' -ex continue -ex 'slice sl_lazy.c:22' -ex 'info slice 1 full' \
			"$1" 2>&1 </dev/null)
	else
		qz -ex 'break main' -ex run -ex 'record on' -ex 'break sl_lazy.c:23' -ex continue \
			-ex 'slice sl_lazy.c:22' -ex 'info slice 1 full' "$1"
	fi
	printf '%s\n' "$OUT" | grep -E '^(Slice 1 |  )' | sort
}

for O in O0 O2; do
	lazy=$(lazy_slice $B/sl_lazy-$O)
	now=$(lazy_slice $B/sl_lazy-$O now)
	OUT=$lazy
	expect "lazy-$O sliced" '^Slice 1 from sl_lazy\.c:22#1: [0-9]+ statements, [0-9]+ edges$'
	expect "lazy-$O strfromd" '^  sl_lazy\.c:20 '
	if [ "$lazy" = "$now" ]; then
		pass "lazy-$O same as LD_BIND_NOW=1"
	else
		fail "lazy-$O same as LD_BIND_NOW=1" "lazy / bind-now:"
		printf '%s\n--\n%s\n' "$lazy" "$now" | sed 's/^/    | /'
	fi
done

