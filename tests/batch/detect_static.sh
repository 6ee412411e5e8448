#!/bin/sh
# detect_static (issue 20): the detectors in statically linked programs.
# libc's allocator and string functions are then inside the program: the
# heap sites are its own symbols (no dynamic linker binds them, qzheap.so
# cannot be preloaded), and only the program's own code (its line table)
# is checked for memory accesses. Each detector fixture built -static at
# -O0 and -O2 gives the same reports and stops as the dynamic build
# (addresses aside); the fixed programs are silent; -static-pie too; a
# static program without debug information keeps the heap events and says
# that memory accesses are not checked; a stripped one says that the
# allocator cannot be found.
. tests/lib.sh
. tests/detect-lib.sh
S=$B/static
[ -x $B/det_uninit-nodebug ] || fixtures_build || exit 1
mkdir -p $S
if ! printf 'int main(void){return 0;}\n' | gcc -static -x c -o $S/probe - 2>/dev/null; then
	skip "detect_static" "gcc -static cannot link here (no libc.a: libc6-dev)"
	exit 0
fi

# build NAME OPT KIND: tests/build/static/NAME-OPT (-static -g), -pie
# (-static-pie -g), -nodebug (-static) or -stripped; rebuilt when the
# fixture is newer.
build() {
	_out=$S/$1-$2$3
	[ "$_out" -nt "$F/$1.c" ] && return 0
	case $3 in
	"") gcc -static -g -$2 -o "$_out" "$F/$1.c" ;;
	-pie) gcc -static-pie -g -$2 -o "$_out" "$F/$1.c" ;;
	-nodebug) gcc -static -$2 -o "$_out" "$F/$1.c" ;;
	-stripped) gcc -static -$2 -s -o "$_out" "$F/$1.c" ;;
	esac
}

# reports BIN ARGS: the reports and the stop lines of a run to the end
# (continue after each stop), addresses as HEX; not the lines of libc's
# sources (the dynamic libc has them with libc6-dbg, the static one not).
reports() {
	_b=$1
	shift
	echo x | timeout 60 $QZDB --batch -ex 'detect on' -ex run -ex continue -ex continue \
		"$_b" "$@" 2>&1 | grep -E "$report|^[0-9]+	" | grep -v '	\.*/.*: No such file' |
		sed -E 's/0x[0-9a-f]+/HEX/g'
}

# same_as_dynamic NAME OPT N ARGS: the static build's reports and stops are
# the dynamic build's, N reports (0: a fixed program, silent).
same_as_dynamic() {
	_fx=$1 _o=$2 _want=$3
	shift 3
	build $_fx $_o "" || { fail "$_fx-$_o static build" "gcc failed"; return; }
	_dyn=$(reports $B/$_fx-$_o "$@")
	_st=$(reports $S/$_fx-$_o "$@")
	OUT=$_st
	expect_count "$_fx-$_o $* static: $_want reports" $_want "$report"
	expect_same "$_fx-$_o $* static: as the dynamic build" "$_dyn" "$_st"
}

for o in O0 O2; do
	same_as_dynamic bug_dfree $o 1                 # double-free
	same_as_dynamic det_badfree $o 1 interior      # invalid-free inside a block
	same_as_dynamic det_badfree $o 1 stack         # and of a stack address
	same_as_dynamic det_libcall $o 1 double        # strdup's blocks charged to the program
	same_as_dynamic det_leak $o 2                  # leak at exit
	same_as_dynamic det_nullp $o 1                 # null-deref
	same_as_dynamic det_heapov $o 2                # heap-overflow: the program's own accesses
	same_as_dynamic bug_heap $o 2                  # and strcpy's (libwrite)
	same_as_dynamic det_stack $o 1 long            # stack-overflow
	same_as_dynamic det_uaf $o 2                   # dangling
	same_as_dynamic det_uninit $o $([ $o = O0 ] && echo 2 || echo 1)   # uninit (-O0: a flag too)
	same_as_dynamic det_dfree_fixed $o 0           # the fixed programs: silent
	for p in det_heapov det_uaf det_uninit det_leak det_stack; do
		same_as_dynamic $p $o 0 fixed
	done
done

# The right line, spelled out once (the dynamic suite checks the rest).
_f=$(line bug_dfree.c 'free(r->name)') _a=$(line bug_dfree.c 'strdup(name)')
qz -ex 'detect on' -ex run -ex 'info detect' $S/bug_dfree-O0
expect "dfree static report" "^Double free of $hex \(5 bytes, allocated at bug_dfree.c:$_a by strdup, freed at bug_dfree.c:$_f\) at bug_dfree.c:$_f$"
expect "dfree static stops on the caller's line" "^$_f	+free\(r->name\);$"
expect "dfree static: the start event" '^Events seen this run: malloc [0-9]+ calloc [0-9]+ realloc 0 free [1-9][0-9]* start 1 '
expect "dfree static: info detect says how heap calls are seen" "^Heap calls: a static program: internal stops on the allocator's entries in the program \(qzheap.so cannot be preloaded into it\)\.$"
expect "dfree static: memory accesses watched" '^Memory accesses: the emulate engine runs the program'
# the emulator hooks the program's own code, not the libc linked into it
expect "dfree static: libc's code runs without the per-instruction hook" '^Library code runs without the per-instruction hook: [1-9]'

# libwrite's sites in a static program are glibc's IRELATIVE PLT slots,
# which libc's own calls use too (strdup tail-calls memcpy): only the
# program's calls count, as many as in the dynamic build.
lw_count() {
	timeout 60 $QZDB --batch -ex 'detect on' -ex 'break _exit' -ex run -ex 'info detect' \
		"$@" 2>&1 | grep -oE 'libwrite [0-9]+'
}
for p in det_overflow det_libcall; do
	build $p O2 ""
	OUT=$(lw_count $S/$p-O2 fixed)
	expect_same "$p-O2 static: the program's libwrite calls, as the dynamic build's" \
		"$(lw_count $B/$p-O2 fixed)" "$OUT"
	[ $p = det_overflow ] && expect "$p-O2 static: its strcpy and memcpy calls seen" '^libwrite [1-9]'
done

# Chains (a recording from the entry): the same links as the dynamic
# build's, through the struct copy and back to where NULL was made.
chain() {
	timeout 60 $QZDB --batch -ex 'detect on' -ex 'set detect-record on' -ex run \
		-ex 'info vpc' "$1" 2>&1 | grep ' ← ' | sed -E 's/0x[0-9a-f]+/HEX/g'
}
for p in bug_dfree det_nullp; do
	OUT=$(chain $S/$p-O0)
	expect_count "$p static chain" 2 ' ← '
	expect_same "$p static chain: as the dynamic build" "$(chain $B/$p-O0)" "$OUT"
done

# Turned on mid-run: the same, from then on.
qz -ex 'break main' -ex run -ex 'detect on' -ex continue -ex 'info detect' $S/bug_dfree-O0
expect "mid-run static: found" "^Double free of $hex \(5 bytes, allocated at bug_dfree.c:$_a by strdup, freed at bug_dfree.c:$_f\) at bug_dfree.c:$_f$"
expect "mid-run static: info detect says how heap calls are seen" "^Heap calls: a static program: internal stops"

# The heap-call classes alone would preload qzheap.so: a static program
# falls back to the allocator's stops, and says so.
qz -ex 'detect on double-free invalid-free leak' -ex run -ex 'info detect' $S/bug_dfree-O2
expect "heap classes alone: found" "^Double free of $hex \(5 bytes, allocated at bug_dfree.c:$_a by strdup"
expect "heap classes alone: the fallback said" '^Heap calls: a static program: .*qzheap.so cannot be preloaded'

# -static-pie: libc's malloc and _exit are local symbols there.
build bug_dfree O0 -pie
build det_leak O0 -pie
OUT=$(reports $S/bug_dfree-O0-pie)
expect_same "static-pie dfree: as the dynamic build" "$(reports $B/bug_dfree-O0)" "$OUT"
OUT=$(reports $S/det_leak-O0-pie)
expect_count "static-pie leak: the two leaks" 2 '^Memory leak of HEX \(4 bytes, allocated at det_leak.c:[0-9]+ by malloc\)'

# Without debug information: the heap events (sites as addresses, libc's
# functions counted as the program's: strdup's malloc is charged to
# strdup), and a clear word that memory accesses are not checked (libc's
# code cannot be told from the program's: its allocator would be
# reported).
build bug_dfree O0 -nodebug
build det_heapov O0 -nodebug
qz -ex 'detect on' -ex run -ex 'info detect' $S/bug_dfree-O0-nodebug
expect "nodebug static: double free found" "^Double free of $hex \(5 bytes, allocated at $hex <strdup\+[0-9]+> by malloc, freed at $hex <record_free\+[0-9]+>\) at $hex <record_free\+[0-9]+>$"
expect "nodebug static: accesses not checked, said" "^warning: Memory accesses are not checked: a static program without debug information, whose own code cannot be told from libc's \(build it with -g\)\.$"
expect "nodebug static: info detect says it" "^Memory accesses: not checked: a static program without debug information"
qz -ex 'detect on' -ex run $S/det_heapov-O0-nodebug fixed
expect_not "nodebug static: no report from libc's own code" "$report"
expect "nodebug static: runs to the end" "$normal"

# Stripped: no symbol names the allocator: said, never silent.
build det_leak O0 -stripped
qz -ex 'detect on' -ex run -ex 'info detect' $S/det_leak-O0-stripped
expect "stripped static: warned" "^warning: Heap events are not seen: a static program without a symbol table \(stripped\): the detectors cannot find its allocator \(malloc, free\.\.\.\)\.$"
expect "stripped static: info detect says it" "^Heap calls: not seen: a static program without a symbol table \(stripped\)"
expect "stripped static: runs to the end" "$normal"
