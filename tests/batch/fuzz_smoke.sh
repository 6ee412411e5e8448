#!/bin/sh
# Fuzz smoke test: build the libFuzzer harnesses (make fuzz-build, clang
# with ASan and UBSan) and run each over its seed corpus once (-runs=0), so
# the result is the same on every run: every seed, including the inputs
# that once crashed qzdb, must pass without crash, hang, leak or sanitizer
# report; fuzz_qzs replays each seed with the sandbox on, and must have
# seen its denials. Random exploration is `make fuzz` (FUZZ_SECONDS
# each). Skipped without clang.
. tests/lib.sh
secs=${FUZZ_SMOKE_SECONDS:-20}
F=$B/fuzz

if ! command -v "${FUZZ_CC:-clang}" >/dev/null 2>&1; then
	echo "# fuzz: clang not available"
	exit 0
fi
mkdir -p $F
if ! make -s fuzz-build > $F/build.log 2>&1; then
	for h in expr elf qzs spec; do
		fail "fuzz-$h" "build failed: $(grep -m1 -E 'error|cannot find' $F/build.log)"
	done
	exit 0
fi

for h in expr elf qzs spec; do
	corpus=$F/smoke-$h
	rm -rf "$corpus"
	mkdir -p "$corpus"
	log=$F/smoke-$h.log
	timeout $((secs + 300)) $F/fuzz_$h -runs=0 -timeout=30 \
		-artifact_prefix=$F/smoke-$h- $(cat tests/fuzz/$h.options 2>/dev/null) \
		"$corpus" tests/fuzz/seeds/$h > "$log" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then
		pass "fuzz-$h"
	else
		why=$(grep -m1 -E '^SUMMARY: |ERROR: libFuzzer: |runtime error: ' "$log")
		fail "fuzz-$h" "${why:-exit status $rc} (log: $log)"
	fi
done

# fuzz_qzs replays every seed as --replay does, sandbox forced on: the
# seeds that run code writing or exec'ing (tests/adversarial/shellcode.qzs)
# were denied, and the harness counted the reports.
log=$F/smoke-qzs.log
if grep -q 'no replays: the sandbox is not available' "$log"; then
	skip "fuzz-qzs replays sandboxed" "$(grep -m1 'no replays' "$log")"
elif grep -Eq 'fuzz_qzs: [1-9][0-9]* sandbox denials reported' "$log"; then
	pass "fuzz-qzs replays sandboxed"
else
	fail "fuzz-qzs replays sandboxed" \
		"$(grep -m1 -E 'no replays|sandbox denials' "$log" || echo 'no report') (log: $log)"
fi
