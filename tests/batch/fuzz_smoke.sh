#!/bin/sh
# Fuzz smoke test: build the libFuzzer harnesses (make fuzz-build, clang
# with ASan and UBSan) and run each for FUZZ_SMOKE_SECONDS (20) over its
# seeds; any crash, hang, leak or sanitizer report is a failure, named by
# the sanitizer's summary line. Skipped without clang.
. tests/lib.sh
secs=${FUZZ_SMOKE_SECONDS:-20}
F=$B/fuzz

if ! command -v "${FUZZ_CC:-clang}" >/dev/null 2>&1; then
	echo "# fuzz: clang not available"
	exit 0
fi
mkdir -p $F
if ! make -s fuzz-build > $F/build.log 2>&1; then
	for h in expr elf; do
		fail "fuzz-$h" "build failed: $(grep -m1 -E 'error|cannot find' $F/build.log)"
	done
	exit 0
fi

for h in expr elf; do
	corpus=$F/smoke-$h
	rm -rf "$corpus"
	mkdir -p "$corpus"
	log=$F/smoke-$h.log
	timeout $((secs + 120)) $F/fuzz_$h -max_total_time="$secs" -timeout=10 \
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
