#!/bin/sh
# run-suite.sh DIR SUITE: run one test program or script (from tests/run.sh),
# its lines into DIR/SUITE.txt and its wall seconds into DIR/SUITE.txt.secs
# (tests/run.sh lists the slowest); a crash or time-out counts as a failure.
dir=$1
unset QZ_SUITE   # each suite marks its own programs (tests/lib.sh)
t=$2
f="$dir/$(echo "$t" | tr / _).txt"
start=$(date +%s)
case "$t" in
*.sh) timeout 900 sh "$t" > "$f.part" 2>&1 ;;
*) timeout 900 "$t" > "$f.part" 2>&1 ;;
esac
rc=$?
[ $rc -ne 0 ] && echo "FAIL $t: exit status $rc" >> "$f.part"
echo "$(( $(date +%s) - start )) $t" > "$f.secs"
mv "$f.part" "$f"
