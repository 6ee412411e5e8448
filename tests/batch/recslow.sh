#!/bin/sh
# Issue 18's long recording, only with SLOW=1 (about 20 s): 100 million
# instructions of sl_long-O0 recorded by the emulate engine, the trace
# streamed to its compressed file; qzdb's peak resident memory must stay
# under 256 MiB and the file under 4 bytes per instruction.
. tests/lib.sh
if [ "${SLOW:-0}" != 1 ]; then
	skip "100M recording" "SLOW=1 runs it"
	exit 0
fi
/usr/bin/time -f 'rss %M' -o $B/recslow.rss timeout 600 $QZDB --batch -ex 'break main' -ex run \
	-ex 'set var n = 8500000' -ex 'record on' -ex 'break sl_long.c:38' -ex continue -ex 'info record' \
	$B/sl_long-O0 > $B/recslow.out 2>&1 </dev/null
OUT=$(cat $B/recslow.out)
expect "100M recorded" '^Recorded 10[0-9]{7} instructions'
expect "100M trace file" 'zstd-compressed to [0-9]+ bytes \(([0-3]\.[0-9]+|4\.00) bytes per instruction\)'
rss=$(sed -n 's/^rss //p' $B/recslow.rss)
if [ -n "$rss" ] && [ "$rss" -lt 262144 ]; then pass "100M under 256 MiB ($((rss / 1024)) MiB)"
else fail "100M under 256 MiB" "peak RSS $((${rss:-0} / 1024)) MiB"; fi
