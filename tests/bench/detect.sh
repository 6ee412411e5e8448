#!/bin/sh
# Benchmark of the bug detectors (issue 20), run by tests/bench.sh: every
# shipped class on (`detect on`: the read and write events and uninit's
# definedness put the program under the recorder's emulator) and the
# heap-call classes alone (`detect on double-free invalid-free leak`: the
# program native with qzheap.so's allocator preloaded, no stop per heap
# call; and with `set detect-preload off`, an internal stop at each heap
# call's entry and return) and every class but uninit (`detect off
# uninit`: what definedness costs) and every
# class with library code hooked instruction by instruction (`maint
# emulator hook-libs`, the default before: the block hook's gain), the program run to
# completion, against
# Valgrind's memcheck on the same program, pinned and interleaved
# (tests/bench/lib.sh), median of RUNS. Two workloads of
# tests/bench/heapwork.c: allocation-bound (AN rounds of 4 mallocs, a
# strdup and 5 frees, no work) and work-bound (WN rounds with work between
# allocations). Each line: the native run, qzdb's plain `run`, qzdb with
# every detector, with the heap-call classes, memcheck, and the ratios
# memcheck / detectors (above 1: faster than memcheck) and the detectors'
# overhead over the plain run.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
. tests/bench/lib.sh
if [ "${QUICK:-0}" = 1 ]; then AN=${AN:-5000} WN=${WN:-500}; fi
AN=${AN:-20000} WN=${WN:-2000} WW=${WW:-20000}
HW=$B/heapwork
gcc -g -O2 -o $HW tests/bench/heapwork.c || { echo "detect-all: n/a (heapwork build failed)"; exit 0; }
if ! command -v valgrind >/dev/null; then
	echo "detect-all: n/a (valgrind is not installed: apt-get install valgrind)"
	exit 0
fi
ok='^heapwork [0-9]+ [0-9]+: [0-9]+$'
bad='^error|^(Stack|Heap) buffer overflow|^Double free|^Invalid free|^Memory leak|^NULL pointer|^Dangling|^Uninitialised|ndefined command'

native() { $HW "$@"; }
qzrun() { qzx -ex run --args $HW "$@"; }
qzdetect() { qzx -ex 'detect on' -ex run --args $HW "$@"; }
qzhooked() { qzx -ex 'maint emulator hook-libs' -ex 'detect on' -ex run --args $HW "$@"; }
qzheap() { qzx -ex 'detect on double-free invalid-free leak' -ex run --args $HW "$@"; }
qznouninit() { qzx -ex 'detect on' -ex 'detect off uninit' -ex run --args $HW "$@"; }
qzstops() { qzx -ex 'set detect-preload off' -ex 'detect on double-free invalid-free leak' -ex run --args $HW "$@"; }
memcheck() { valgrind --tool=memcheck --error-exitcode=3 -q $HW "$@"; }

# one_load NAME ARGS...: the four medians (s) and the two ratios
one_load() {
	_n=$1
	shift
	for t in native qzrun qzdetect qzhooked qzheap qzstops qznouninit memcheck; do
		best "$_n-$t" "$ok" "$bad" $t "$@" >/dev/null && continue
		# hook-libs is only a comparison: its column says nan, the others stand
		[ $t = qzhooked ] || { echo "$_n: n/a (a run failed: see $LOG/$_n-$t.out)"; return; }
		echo "$_n: hook-libs: a run failed (see $LOG/$_n-$t.out)"
		echo nan nan nan > "$LOG/$_n-$t.stats"
	done
	awk -v name="$_n" -v n="$(cat "$LOG/$_n-native.stats")" -v p="$(cat "$LOG/$_n-qzrun.stats")" \
	    -v d="$(cat "$LOG/$_n-qzdetect.stats")" -v m="$(cat "$LOG/$_n-memcheck.stats")" \
	    -v h="$(cat "$LOG/$_n-qzheap.stats")" -v u="$(cat "$LOG/$_n-qznouninit.stats")" \
	    -v k="$(cat "$LOG/$_n-qzhooked.stats")" -v s="$(cat "$LOG/$_n-qzstops.stats")" 'BEGIN {
		split(n, N); split(p, P); split(d, D); split(m, M); split(h, H); split(u, U); split(k, K)
		split(s, S)
		printf "%s: native %.3f s, qzdb run %.3f s, qzdb detect on %.3f s (%.3f-%.3f), with library code hooked (hook-libs) %.3f s (%.3f-%.3f), heap classes only %.3f s (%.3f-%.3f), heap classes with the allocator'"'"'s stops (detect-preload off) %.3f s, all but uninit %.3f s, memcheck %.3f s (%.3f-%.3f), memcheck/detect %.2fx, memcheck/hook-libs %.2fx, memcheck/heap-only %.2fx, memcheck/heap-stops %.2fx, memcheck/all-but-uninit %.2fx, detect overhead over run %.2fx, heap-only %.2fx\n",
			name, N[2] / 1e9, P[2] / 1e9, D[2] / 1e9, D[1] / 1e9, D[3] / 1e9, K[2] / 1e9,
			K[1] / 1e9, K[3] / 1e9, H[2] / 1e9, H[1] / 1e9, H[3] / 1e9, S[2] / 1e9,
			U[2] / 1e9, M[2] / 1e9, M[1] / 1e9, M[3] / 1e9, M[2] / D[2], M[2] / K[2], M[2] / H[2],
			M[2] / S[2], M[2] / U[2], D[2] / P[2], H[2] / P[2] }'
}

one_load detect-all-allocs $AN 0
one_load detect-all-work $WN $WW

# Real programs nobody here wrote, run over a generated file (seq 1 SEQ):
# gzip and sed, natively, under `detect on` and under memcheck. The
# heapwork loads flatter the emulator (their work is one hot loop touching
# no memory, which runs unhooked); in these most instructions of the
# program's own code touch memory, as in real programs. Also with lean
# translations off (`maint emulator-lean off`: every instruction of the
# program's own code keeps the code hook, as before them), and with the
# inline checks off (`maint emulator-inline off`: lean blocks hook their
# instructions with memory operands, and a write hook sees the stores of
# library code).
if [ "${QUICK:-0}" = 1 ]; then SEQ=${SEQ:-30000}; fi
SEQ=${SEQ:-200000}
IN=$B/detect-bench-seq.txt
seq 1 "$SEQ" >"$IN"
ended='exited normally|exited with code'
real_load() {
	_n=$1 _prog=$2 _args=$3
	rnative() { sh -c "$_prog $_args >/dev/null"; }
	rdetect() { qzx -ex 'detect on' -ex "run $_args > /dev/null" "$_prog"; }
	rnolean() { qzx -ex 'maint emulator-lean off' -ex 'detect on' -ex "run $_args > /dev/null" "$_prog"; }
	rnoinline() { qzx -ex 'maint emulator-inline off' -ex 'detect on' -ex "run $_args > /dev/null" "$_prog"; }
	rmemcheck() { sh -c "valgrind --tool=memcheck --error-exitcode=3 -q $_prog $_args >/dev/null"; }
	for t in rnative rdetect rnolean rnoinline rmemcheck; do
		_must=""
		[ $t = rdetect ] || [ $t = rnolean ] || [ $t = rnoinline ] && _must=$ended
		best "$_n-$t" "$_must" "$bad" $t >/dev/null && continue
		echo "$_n: n/a (a run failed: see $LOG/$_n-$t.out)"
		return
	done
	awk -v name="$_n" -v seq="$SEQ" -v n="$(cat "$LOG/$_n-rnative.stats")" \
	    -v d="$(cat "$LOG/$_n-rdetect.stats")" -v m="$(cat "$LOG/$_n-rmemcheck.stats")" \
	    -v l="$(cat "$LOG/$_n-rnolean.stats")" -v i="$(cat "$LOG/$_n-rnoinline.stats")" 'BEGIN {
		split(n, N); split(d, D); split(m, M); split(l, L); split(i, I)
		printf "%s (seq 1 %d): native %.3f s, qzdb detect on %.3f s (%.3f-%.3f), without lean translations %.3f s (%.3f-%.3f), without inline checks %.3f s (%.3f-%.3f), memcheck %.3f s (%.3f-%.3f), memcheck/detect %.2fx (goal: above 1), lean gain %.2fx, inline gain %.2fx\n",
			name, seq, N[2] / 1e9, D[2] / 1e9, D[1] / 1e9, D[3] / 1e9, L[2] / 1e9, L[1] / 1e9,
			L[3] / 1e9, I[2] / 1e9, I[1] / 1e9, I[3] / 1e9, M[2] / 1e9, M[1] / 1e9, M[3] / 1e9,
			M[2] / D[2], L[2] / D[2], I[2] / D[2] }'
}
real_load detect-all-gzip "$(command -v gzip)" "-c $IN"
real_load detect-all-sed "$(command -v sed)" "s/1/x/g $IN"
