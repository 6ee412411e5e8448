#!/bin/sh
# The bundled examples: each crashes when run plainly, and each annotated
# walkthrough session replays with the same output (--check).
. tests/lib.sh
sh examples/build.sh || { fail "examples build" "examples/build.sh failed"; exit 0; }
for p in stack dfree heap dangle nullp; do
	examples/build/$p > /dev/null 2>&1
	rc=$?
	[ $rc -gt 128 ] && pass "example $p crashes when run plainly" ||
		fail "example $p crashes when run plainly" "exit status $rc"
done
for s in examples/*.qzs; do
	OUT=$(timeout 120 ./qzdb --replay "$s" --check 2>&1); RC=$?
	expect_rc "walkthrough $s replays unchanged" 0
	[ $RC = 0 ] || printf '%s\n' "$OUT" | tail -20 | sed 's/^/    | /'
done
OUT=$(sh examples/demo.sh < /dev/null 2>&1); RC=$?
expect_rc "make demo without a terminal" 0
