#!/bin/sh
# Run every test: build the fixtures at -O0 and -O2, then the unit test
# binaries (tests/unit/test_*), then the batch and differential test scripts
# (tests/batch/*.sh, tests/diff/*.sh). Every check prints one line starting
# with PASS or FAIL; failures are shown as they come; the last line is
# "N passed, N failed".
cd "$(dirname "$0")/.."
. tests/lib.sh
fixtures_build || { echo "0 passed, 1 failed"; exit 1; }
out=$B/results.txt
one=$B/one.txt
: > "$out"

# run_one NAME CMD...: run a test program or script, keep its lines, show
# its failures, and count a crash or time-out as a failure of its own.
run_one() {
	_name=$1
	shift
	timeout 900 "$@" > "$one" 2>&1
	_rc=$?
	cat "$one" >> "$out"
	grep -A12 '^FAIL' "$one" | head -200
	if [ $_rc -ne 0 ]; then
		echo "FAIL $_name: exit status $_rc" | tee -a "$out"
	fi
	printf '%s: %s passed\n' "$_name" "$(grep -c '^PASS' "$one")" >&2
}

for t in tests/unit/test_*; do
	case "$t" in *.c) continue ;; esac
	[ -x "$t" ] && run_one "$t" "$t"
done
for t in tests/batch/*.sh tests/diff/*.sh tests/tui/*.sh; do
	case "$t" in */common.sh) continue ;; esac   # helpers, not tests
	[ -f "$t" ] && run_one "$t" sh "$t"
done
p=$(grep -c '^PASS' "$out")
f=$(grep -c '^FAIL' "$out")
echo "$p passed, $f failed"
[ "$f" -eq 0 ]
