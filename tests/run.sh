#!/bin/sh
# Run every test: build the fixtures at -O0 and -O2, then the unit test
# binaries (tests/unit/test_*), then the batch and differential test scripts
# (tests/batch/*.sh, tests/diff/*.sh). Every check prints one line starting
# with PASS or FAIL; the last line is "N passed, N failed".
cd "$(dirname "$0")/.."
. tests/lib.sh
fixtures_build || { echo "0 passed, 1 failed"; exit 1; }
out=tests/build/results.txt
: > "$out"
for t in tests/unit/test_*; do
	case "$t" in *.c) continue ;; esac
	[ -x "$t" ] || continue
	timeout 120 "$t" 2>&1 | tee -a "$out" | grep -E '^FAIL' || true
	[ $? -gt 1 ] && echo "FAIL $t: crashed or timed out" | tee -a "$out"
done
for t in tests/batch/*.sh tests/diff/*.sh; do
	[ -f "$t" ] || continue
	timeout 600 sh "$t" 2>&1 | tee -a "$out" | grep -E '^FAIL' || true
done
p=$(grep -c '^PASS' "$out")
f=$(grep -c '^FAIL' "$out")
echo "$p passed, $f failed"
[ "$f" -eq 0 ]
