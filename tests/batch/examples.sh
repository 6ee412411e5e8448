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
# Each walkthrough goes from the crash to the cause with the Qzdb commands
# and shows the fix: a rollback, then a switch or suppression, no crash.
for p in stack dfree heap dangle nullp; do
	f=examples/$p.qzs
	for c in checkpoint 'rollback 1' explain; do
		grep -q "^(qzdb) $c" $f && pass "walkthrough $p uses $c" || fail "walkthrough $p uses $c" "not in $f"
	done
	grep -Eq '^\(qzdb\) (switch|suppress) ' $f && pass "walkthrough $p switches or suppresses" ||
		fail "walkthrough $p switches or suppresses" "not in $f"
	n=$(grep -c '^(qzdb) ' $f)
	[ "$n" -ge 10 ] && [ "$n" -le 20 ] && pass "walkthrough $p has 10-20 commands" ||
		fail "walkthrough $p has 10-20 commands" "$n"
	grep -Eq '^#( |$)' $f && pass "walkthrough $p is annotated" || fail "walkthrough $p is annotated" "no comments"
	grep -v '^#' $f | tail -3 | grep -Eq 'exited normally' && pass "walkthrough $p ends without the crash" ||
		fail "walkthrough $p ends without the crash" "last output: $(tail -3 $f)"
done
# The same from another directory and environment (sources are found near
# the program; stack addresses, which depend on the environment, are not shown).
HERE=$(pwd)
for p in nullp dangle; do
	OUT=$(cd /tmp && env -i PATH="$PATH" QZ_PAD=$(printf '%0200d' 0) timeout 120 "$HERE/qzdb" --replay "$HERE/examples/$p.qzs" --check 2>&1); RC=$?
	expect_rc "walkthrough $p replays from another directory" 0
	[ $RC = 0 ] || printf '%s\n' "$OUT" | tail -12 | sed 's/^/    | /'
done
OUT=$(sh examples/demo.sh < /dev/null 2>&1); RC=$?
expect_rc "make demo without a terminal" 0
