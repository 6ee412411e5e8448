#!/bin/sh
# Run every test: build the fixtures at -O0 and -O2, then the unit test
# binaries (tests/unit/test_*), the batch, differential and UI test
# scripts (tests/batch/*.sh, tests/diff/*.sh, tests/tui/*.sh) and the
# code checks (tests/code/: layers, tui-cycles, size, cloexec), JOBS at a
# time (default: the number of CPUs). Every check prints one line starting
# with PASS, FAIL or SKIP (with the reason); failures and skips are shown
# as they come; the last line is "N passed, N failed" (", N skipped" when
# a check could not run on this machine).
cd "$(dirname "$0")/.."
. tests/lib.sh
fixtures_build || { echo "0 passed, 1 failed"; exit 1; }
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
out=$B/results.txt
dir=$B/suites
rm -rf "$dir"
mkdir -p "$dir"

# The suites, slowest first so that the parallel run ends together: by
# the seconds each took in the last run here ($B/suite-times), else the
# known slow ones first.
suites() {
	for t in tests/batch/fuzz_smoke.sh tests/batch/detect.sh tests/diff/values_vs_gdb.sh \
		 tests/diff/break_vs_gdb.sh tests/unit/test_* tests/batch/*.sh \
		 tests/diff/*.sh tests/tui/*.sh tests/code/*.sh; do
		case "$t" in
		*.c|*/common.sh) continue ;;   # sources and helpers, not tests
		esac
		[ -f "$t" ] && echo "$t"
	done | awk '!seen[$0]++'
}

# by_time: the suite list on stdin, slowest first by the last run's times
# (suites without one keep their place, ahead of the timed ones)
by_time() {
	awk -v times="$B/suite-times" 'BEGIN {
		while ((getline l < times) > 0) { split(l, f, " "); t[f[2]] = f[1] }
	} { s = ($0 in t) ? t[$0] : 1e9; printf "%s %d %s\n", s, NR, $0 }' |
		sort -k1,1gr -k2,2n | cut -d' ' -f3-
}

suites | by_time > "$dir/list"
# each suite's lines go to its own file (tests/run-suite.sh); shown in order
xargs -P "$JOBS" -n 1 sh tests/run-suite.sh "$dir" < "$dir/list"
: > "$out"
while read -r t; do
	f="$dir/$(echo "$t" | tr / _).txt"
	[ -f "$f" ] || echo "FAIL $t: did not run" > "$f"
	cat "$f" >> "$out"
	grep -A12 '^FAIL' "$f" | head -200
	grep '^SKIP' "$f"
	printf '%s: %s passed\n' "$t" "$(grep -c '^PASS' "$f")" >&2
done < "$dir/list"
# the slowest suites, for whoever keeps make test under its 5-minute
# budget (and for the next run's order)
cat "$dir"/*.secs 2>/dev/null > "$B/suite-times"
sort -rn "$B/suite-times" | head -6 |
	awk '{ printf "slowest: %4ds %s\n", $1, $2 }' >&2
p=$(grep -c '^PASS' "$out")
f=$(grep -c '^FAIL' "$out")
s=$(grep -c '^SKIP' "$out")
if [ "$s" -gt 0 ]; then
	echo "$p passed, $f failed, $s skipped"
else
	echo "$p passed, $f failed"
fi
[ "$f" -eq 0 ]
