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


# sl_sys: each use of bytes a system call wrote has the call in its slice
# (getcwd's buffer had no writer before: the slice stopped at cwd[0] = 0).
# Both engines (the records themselves differ inside clock_gettime's vDSO,
# whose retry loop depends on timing: recdiff.sh cannot compare them).
for O in O0 O2 step; do
	eng=emulate bin=$B/sl_sys-$O
	[ $O = step ] && eng=step bin=$B/sl_sys-O0
	qz -ex "set record engine $eng" -ex 'break main' -ex run -ex 'record on' \
	   -ex 'break sl_sys.c:37' -ex continue \
	   -ex 'slice sl_sys.c:29' -ex 'slice sl_sys.c:30' -ex 'slice sl_sys.c:31' \
	   -ex 'slice sl_sys.c:32' -ex 'slice sl_sys.c:33' -ex 'slice sl_sys.c:34' \
	   -ex 'info slice 1' -ex 'info slice 2' -ex 'info slice 3' -ex 'info slice 4' \
	   -ex 'info slice 5' -ex 'info slice 6' -ex 'info record' $bin
	all=$OUT
	n=1
	for call in getcwd:23 fstat:24 pipe:25 clock_gettime:26 uname:27 readlink:28; do
		OUT=$(printf '%s\n' "$all" | sed -n "/^Slice $n from/,/^Slice $((n + 1)) from/p" | sed '$d')
		expect "sys-$O ${call%:*} reaches the call" "^  sl_sys\.c:${call#*:} #"
		n=$((n + 1))
	done
	OUT=$(printf '%s\n' "$all" | sed -n '/^Slice 1 from/,/^Slice 2 from/p')
	expect_not "sys-$O getcwd's write kills cwd[0] = 0" '^  sl_sys\.c:22 #'
	OUT=$(printf '%s\n' "$all" | sed -n '/^Slice 3 from/,/^Slice 4 from/p')
	expect_not "sys-$O pipe's write kills fds[1] = -1" '^  sl_sys\.c:21 #'
	OUT=$all
	expect "sys-$O unknown reported once with its count" \
	       '^System calls whose memory effects are not modelled \(treated as writing nothing\): getcpu \(2 times\)\.$'
done
