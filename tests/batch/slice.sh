#!/bin/sh
# Recording and slicing (issue 8): slices of hand-derived fixtures hold the
# statements that matter and leave the unrelated ones out; the memory-bug
# fixtures' crash slices hold their root causes; prune, deps, sbreak all
# and bad input.
. tests/lib.sh

# rec NAME BIN STOPLINE CMDS...: record main up to STOPLINE, then CMDS.
rec() {
	_bin=$1 _stop=$2
	shift 2
	_f=$(basename "$_bin" | sed 's/-O[02]$//')
	set -- -ex 'break main' -ex run -ex 'record on' -ex "break $_f.c:$_stop" -ex continue "$@"
	qz "$@" "$_bin"
}

# member NAME LINE: `info slice` lists FILE:LINE; nonmember: it does not.
member() { expect "$1" "^  [a-z_]+\.c:$2 #"; }
nonmember() { expect_not "$1" "^  [a-z_]+\.c:$2 #"; }

for O in O0 O2; do
	# Two accumulators: a's slice has its loop and init, never b's.
	rec $B/sl_accum-$O 18 -ex 'slice sl_accum.c:15' -ex 'info slice 1'
	expect "accum-$O head" '^Slice 1 from sl_accum\.c:15#8: [0-9]+ statements, [0-9]+ edges$'
	member "accum-$O a+=" 15
	member "accum-$O loop" 14
	member "accum-$O a=0" 11
	expect_rc "accum-$O rc" 0

	# A value through twice() and back; an unrelated value stays out.
	rec $B/sl_func-$O 38 -ex 'slice sl_func.c:33' -ex 'info slice 1'
	member "func-$O z=y+3" 32
	member "func-$O return r" 12
	member "func-$O x" 29
	nonmember "func-$O unrelated" 30
	nonmember "func-$O u" 34
	# u lives across keep(), which saves and restores callee-saved
	# registers: keep's statements must not join u's slice.
	rec $B/sl_func-$O 38 -ex 'slice sl_func.c:36' -ex 'info slice 1'
	member "saved-$O u" 34
	nonmember "saved-$O keep s=" 22
	nonmember "saved-$O keep s+=" 23
	nonmember "saved-$O keep return" 24
	nonmember "saved-$O helper" 17
	nonmember "saved-$O x" 29

	# memcpy carries src.x to dst.x, byte-exact: src.y stays out.
	rec $B/sl_memcpy-$O 22 -ex 'slice sl_memcpy.c:21' -ex 'info slice 1'
	member "memcpy-$O src.x" 18
	nonmember "memcpy-$O src.y" 19

	# Only control: v = 10 under if (flag).
	rec $B/sl_ctrl-$O 16 -ex 'slice sl_ctrl.c:15' -ex 'info slice 1'
	member "ctrl-$O if" 13
	member "ctrl-$O flag" 11
	nonmember "ctrl-$O other" 12

	# Recursion: every level's test and product.
	rec $B/sl_rec-$O 21 -ex 'slice sl_rec.c:19' -ex 'info slice 1'
	member "rec-$O product" 12
	member "rec-$O test" 10
	nonmember "rec-$O unrelated" 17

	# A switch through a jump table: the case is control dependent on it.
	rec $B/sl_switch-$O 29 -ex 'slice sl_switch.c:28' -ex 'info slice 1' -ex 'deps 1 sl_switch.c:15'
	member "switch-$O case 2" 15
	member "switch-$O switch" 12
	nonmember "switch-$O other" 27
	nonmember "switch-$O case 1" 14
	expect "switch-$O control edge" '^sl_switch\.c:15#1 -> sl_switch\.c:12#1 control$'
done

# At -O0 the exact shapes: instances, the library copy, the data edge.
rec $B/sl_accum-O0 18 -ex 'slice sl_accum.c:15' -ex 'info slice 1'
nonmember "accum-O0 b+=" 16
nonmember "accum-O0 b=0" 12
expect "accum-O0 instances" '^  sl_accum\.c:15 #1,#2,#3,#4,#5,#6,#7,#8$'
rec $B/sl_memcpy-O0 22 -ex 'slice sl_memcpy.c:21' -ex 'info slice 1' -ex 'deps 1 sl_memcpy.c:21'
member "memcpy-O0 library copy" 20
expect "memcpy-O0 edge" '^sl_memcpy\.c:21#1 -> sl_memcpy\.c:20#1 data dst\.x$'
rec $B/sl_ctrl-O0 16 -ex 'slice sl_ctrl.c:15' -ex 'info slice 1' -ex 'deps 1 sl_ctrl.c:14'
member "ctrl-O0 v=10" 14
nonmember "ctrl-O0 v=0" 10
expect "ctrl-O0 control edge" '^sl_ctrl\.c:14#1 -> sl_ctrl\.c:13#1 control$'
rec $B/sl_rec-O0 21 -ex 'slice sl_rec.c:19' -ex 'info slice 1'
expect "rec-O0 levels" '^  sl_rec\.c:10 #1,#2,#3,#4,#5$'
expect "rec-O0 products" '^  sl_rec\.c:12 #1,#2,#3,#4$'
expect "rec-O0 base" '^  sl_rec\.c:11 #1$'

# Criteria: a variable (its bytes at the end of the instance), a register.
rec $B/sl_ctrl-O0 16 -ex 'slice sl_ctrl.c:15 v' -ex 'info slice 1'
expect "var criterion" '^Slice 1 from sl_ctrl\.c:15#1: '
member "var criterion v=10" 14
member "var criterion if" 13
nonmember "var criterion other" 12
rec $B/sl_accum-O0 18 -ex 'slice sl_accum.c:15 3 $eax' -ex 'info slice 1'
expect "reg criterion" '^Slice 1 from sl_accum\.c:15#3: '
member "reg criterion a+=" 15
nonmember "reg criterion b+=" 16

# prune: the loop counter's data edges go, the slice is recomputed. Data
# edges name the local they go through.
rec $B/sl_accum-O0 18 -ex 'slice sl_accum.c:15' -ex 'deps 1 sl_accum.c:15#8' \
	-ex 'prune 1 i' -ex 'echo PRUNED\n' -ex 'deps 1 sl_accum.c:15#8'
before=$(printf '%s\n' "$OUT" | sed '/^PRUNED/q')
after=$(printf '%s\n' "$OUT" | sed '1,/^PRUNED/d')
OUT=$before expect "prune before: edge through i" '^sl_accum\.c:15#8 -> sl_accum\.c:14#8 data i$'
OUT=$before expect "edge names a" '^sl_accum\.c:15#8 -> sl_accum\.c:15#7 data a$'
OUT=$after expect_not "prune after: no edge through i" 'data i$'
OUT=$after expect "prune after: control stays" '^sl_accum\.c:15#8 -> sl_accum\.c:14#8 control$'
OUT=$after expect "prune after: a stays" '^sl_accum\.c:15#8 -> sl_accum\.c:15#7 data a$'
expect "prune recomputed" '^Slice 1 from sl_accum\.c:15#8: 3 statements, [0-9]+ edges$'
rec $B/sl_accum-O0 18 -ex 'slice sl_accum.c:15' -ex 'prune 1 $rax' -ex 'info slice 1'
expect "prune a register" '^Slice 1 from sl_accum\.c:15#8: [0-9]+ statements, [0-9]+ edges$'

# The five memory bugs: record from main to the crash, slice the crash.
for O in O0 O2; do
	qz -ex 'break main' -ex run -ex 'record on' -ex continue -ex slice -ex 'info slice 1' \
		-ex 'deps 1 bug_stack.c:20' $B/bug_stack-$O
	expect "stack-$O crash" 'SIGSEGV'
	member "stack-$O strcpy" 18
	[ $O = O0 ] && expect "stack-$O edge to strcpy" "^bug_stack\\.c:20#3 -> bug_stack\\.c:18#3 data greet's saved rbp$"
	expect "stack-$O smashed pc origin" '^The pc was loaded from memory by `ret` at 0x[0-9a-f]+ \(bug_stack\.c:(20#3|31#1)\): new pc 0x[0-9a-f]+\.$'
	[ $O = O0 ] && expect "stack-$O overwriter" '^The return address at 0x[0-9a-f]+ was 0x[0-9a-f]+; bug_stack\.c:18#3 overwrote it\.$'

	qz -ex 'break main' -ex run -ex 'record on' -ex continue -ex slice -ex 'info slice 1' \
		-ex 'deps 1 bug_dfree.c:32#4' $B/bug_dfree-$O
	expect "dfree-$O criterion" '^Slice 1 from bug_dfree\.c:32#4: '
	member "dfree-$O shallow copy" 26
	expect "dfree-$O edge to the first free" '^bug_dfree\.c:32#4 -> bug_dfree\.c:32#2 data heap block 0x[0-9a-f]+\+8 \(24 usable bytes\)$'
	[ $O = O0 ] && expect "dfree-$O malloc's tcache is thread-local storage" \
		'^bug_dfree\.c:32#4 -> bug_dfree\.c:17#1 data thread-local storage at fs-0x[0-9a-f]+$'

	qz -ex 'break main' -ex run -ex 'record on' -ex continue -ex slice -ex 'info slice 1' \
		-ex 'deps 1 bug_heap.c:12#3' $B/bug_heap-$O
	member "heap-$O overflowing write" 14
	member "heap-$O loop bound" 13
	expect "heap-$O edge to the write" '^bug_heap\.c:12#3 -> bug_heap\.c:14#12 data malloc.s size field of the heap block at 0x[0-9a-f]+$'

	qz -ex 'break main' -ex run -ex 'record on' -ex continue -ex slice -ex 'info slice 1' $B/bug_dangle-$O
	member "dangle-$O write through dangling" 38
	member "dangle-$O free reused" 36

	qz -ex 'break main' -ex run -ex 'record on' -ex continue -ex slice -ex 'info slice 1' \
		-ex 'deps 1 bug_nullp.c:30' $B/bug_nullp-$O
	expect "nullp-$O criterion" '^Slice 1 from bug_nullp\.c:30#3: '
	member "nullp-$O predicate" 29
	member "nullp-$O find" 28
	expect "nullp-$O control edge" '^bug_nullp\.c:30#3 -> bug_nullp\.c:29#3 control$'
	[ $O = O0 ] && expect "nullp-$O data edge names e" '^bug_nullp\.c:30#3 -> bug_nullp\.c:28#3 data e$'
done

# sbreak all: a new run stops at exactly the slice's instances, in order.
qz -ex 'break main' -ex run -ex 'record on' -ex 'break sl_rec.c:20' -ex continue \
	-ex 'slice sl_rec.c:19' -ex 'sbreak all 1' -ex 'delete 1 2' -ex run \
	-ex c -ex c -ex c -ex c -ex c -ex c -ex c -ex c -ex c -ex c -ex c -ex c -ex c -ex c -ex c -ex c -ex c \
	$B/sl_rec-O0
got=$(printf '%s\n' "$OUT" | sed -n 's/^Slice breakpoint, slice 1, //p' | tr '\n' ' ')
want="sl_rec.c:18#1 sl_rec.c:9#1 sl_rec.c:10#1 sl_rec.c:12#1 sl_rec.c:9#2 sl_rec.c:10#2 sl_rec.c:12#2 sl_rec.c:9#3 sl_rec.c:10#3 sl_rec.c:12#3 sl_rec.c:9#4 sl_rec.c:10#4 sl_rec.c:12#4 sl_rec.c:9#5 sl_rec.c:10#5 sl_rec.c:11#1 sl_rec.c:19#1 "
if [ "$got" = "$want" ]; then pass "sbreak all order"; else fail "sbreak all order" "got: $got"; fi
expect "sbreak then exits" 'exited normally'
qz -ex 'break main' -ex run -ex 'record on' -ex 'break sl_rec.c:20' -ex continue \
	-ex 'slice sl_rec.c:19' -ex 'sbreak 1 sl_rec.c:11' -ex 'delete 1 2' -ex run -ex c $B/sl_rec-O0
expect "sbreak one" '^Slice breakpoint, slice 1, sl_rec\.c:11#1$'
expect "sbreak one then exits" 'exited normally'
no_leftover "sbreak no leftover" $B/sl_rec-O0
qz -ex 'break main' -ex run -ex 'record on' -ex 'break sl_rec.c:20' -ex continue \
	-ex 'slice sl_rec.c:19' -ex 'sbreak 1 10' -ex 'delete 1 2' -ex run -ex snext -ex snext -ex c $B/sl_rec-O0
got=$(printf '%s\n' "$OUT" | sed -n 's/^Slice breakpoint, slice 1, //p' | tr '\n' ' ')
if [ "$got" = "sl_rec.c:10#1 sl_rec.c:12#1 sl_rec.c:9#2 sl_rec.c:10#2 " ]; then pass "snext"; else fail "snext" "got: $got"; fi
qz -ex 'break main' -ex run -ex 'record on' -ex 'break sl_rec.c:20' -ex continue -ex 'slice sl_rec.c:19' -ex 'record off' -ex 'snext 1' $B/sl_rec-O0
expect "snext without counting" '^error: snext needs instances counted from the start of the run'

# info record, info slices, sdelete.
rec $B/sl_accum-O0 18 -ex 'info record' -ex 'slice sl_accum.c:15' -ex 'slice sl_accum.c:16' \
	-ex 'info slices' -ex 'sdelete 1' -ex 'info slices'
expect "info record" '^Recorded [0-9]+ instructions, [0-9]+ statement instances, [0-9]+ bytes held \([0-9.]+ bytes per instruction\)\.$'
expect "info record exact" '^Instance numbers are exact'
expect "info slices 2" '^Slice 2 from sl_accum\.c:16#8: '
expect "record off runs free" '^Slice 2 from'

# Bad input: clear errors, exit status 1.
qz -ex 'break main' -ex run -ex slice $B/sl_accum-O0
expect "bad nothing recorded" '^error: Nothing has been recorded'
expect_rc "bad nothing recorded rc" 1
rec $B/sl_accum-O0 18 -ex 'slice sl_accum.c:19'
expect "bad line never ran" '^error: sl_accum\.c:19 did not execute while recording\.$'
rec $B/sl_accum-O0 18 -ex 'slice sl_accum.c:15 99'
expect "bad instance" '^error: sl_accum\.c:15 has no instance #99 in the recording \(recorded: #1-#8\)\.$'
rec $B/sl_accum-O0 18 -ex 'slice sl_accum.c:15#0'
expect "bad instance 0" '^error: Instance numbers start at 1\.$'
rec $B/sl_accum-O0 18 -ex 'slice sl_accum.c:15 0x10 0'
expect "bad size" '^error: Bad size "0"\.$'
rec $B/sl_accum-O0 18 -ex 'slice sl_accum.c:15 nosuchvar'
expect "bad variable" '^error: No symbol "nosuchvar" in current context\.$'
rec $B/sl_accum-O0 18 -ex 'slice sl_accum.c:15' -ex 'prune 1 nosuch'
expect "bad prune name" "^error: No variable \"nosuch\" in main \\(the criterion's function\\) nor a global"
rec $B/sl_accum-O0 18 -ex 'slice nosuch.c:3'
expect "bad file" '^error: No source file named nosuch\.c\.$'
rec $B/sl_accum-O0 18 -ex 'slice sl_accum.c:15 $nosuch'
expect "bad register" '^error: Invalid or untracked register "\$nosuch"\.$'
rec $B/sl_accum-O0 18 -ex 'slice sl_accum.c:15' -ex 'deps 7 sl_accum.c:15' 
expect "bad slice id" '^error: No slice number 7\.$'
rec $B/sl_accum-O0 18 -ex 'slice sl_accum.c:15' -ex 'deps 1 sl_accum.c:16'
expect "bad deps not member" 'is not in slice 1\.$'
qz -ex 'record on' $B/sl_accum-O0
expect "bad record no process" '^error: The program is not being run\.$'
rec $B/sl_accum-O0 18 -ex 'record on'
expect "bad record twice" '^error: Recording is already on\.$'
rec $B/sl_accum-O0 18 -ex 'record sideways'
expect "bad record usage" '^error: Usage: record on'
no_leftover "no leftover" $B/sl_accum-O0

# Spill: with at most 4 KiB of records in memory the rest goes to a
# temporary file, and the slice read back from it is the same.
qz -ex 'break main' -ex run -ex 'record on' -ex continue -ex slice -ex 'info slice 1' $B/bug_dfree-O0
whole=$(printf '%s\n' "$OUT" | grep -E '^(Slice|  )')
qz -ex 'set record spill 4096' -ex 'break main' -ex run -ex 'record on' -ex continue -ex 'info record' \
	-ex slice -ex 'info slice 1' $B/bug_dfree-O0
expect "spill happened" '^[0-9]+ bytes of records spilled to a temporary file, zstd-compressed to [0-9]+ bytes'
spilled=$(printf '%s\n' "$OUT" | grep -E '^(Slice|  )')
if [ -n "$whole" ] && [ "$whole" = "$spilled" ]; then pass "spilled slice is the same"; else fail "spilled slice is the same" "differs"; fi
qz -ex 'set record spill 12' $B/bug_dfree-O0
expect "bad spill size" '^error: Usage: set record spill BYTES'

# Recording changes nothing the user sees: stops, breakpoints, stepping,
# signals, crashes and exits print the same with and without it.
same_rec() {
	_name=$1 _bin=$2
	shift 2
	qz -ex 'break main' -ex run "$@" $_bin
	_a=$(printf '%s\n' "$OUT" | sed 's/process [0-9]*/process N/')
	qz -ex 'break main' -ex run -ex 'record on' "$@" $_bin
	_b=$(printf '%s\n' "$OUT" | sed 's/process [0-9]*/process N/')
	if [ "$_a" = "$_b" ]; then pass "$_name"; else fail "$_name" "output differs with recording"; fi
}
for O in O0 O2; do
	same_rec "transparent stepping-$O" $B/basic-$O -ex next -ex next -ex step -ex step -ex finish \
		-ex 'break fact' -ex c -ex c -ex bt -ex delete -ex c
	same_rec "transparent until/advance-$O" $B/basic-$O -ex until -ex 'advance fact' \
		-ex 'tbreak square' -ex c -ex 'stepi 5' -ex 'nexti 3' -ex c
	same_rec "transparent signals-$O" $B/sig-$O -ex c -ex c -ex c
	same_rec "transparent crash-$O" $B/crash-$O -ex c -ex bt -ex c
done

# A slice whose recording a rollback cut back cannot be pruned (recomputed);
# it can still be listed.
qz -ex 'break main' -ex run -ex checkpoint -ex 'record on' -ex c -ex slice \
   -ex 'rollback 1' -ex 'prune 1 e' -ex 'info slices' $B/bug_nullp-O0
expect "prune of a cut-back slice refused" 'error: Slice 1 was computed on a recording that has since been cut back'
expect "cut-back slice still listed" '^Slice 1 from bug_nullp\.c:30#3'
