#!/bin/sh
# Issue 18's long recordings, only with SLOW=1 (about 30 s): 100 million
# instructions recorded by the emulate engine, the trace streamed to its
# compressed file; qzdb's peak resident memory must stay under 256 MiB and
# the file under 4 bytes per instruction. Two regions: rec_libc's string
# and stdio calls (glibc's SSE2 functions), and sl_long-O0's loop, which
# starts a statement instance every 3 instructions (the instance tables
# go to their compressed file: slice/trace-tab.c).
. tests/lib.sh
if [ "${SLOW:-0}" != 1 ]; then
	skip "100M recordings" "SLOW=1 runs them"
	exit 0
fi

# long NAME ARGS...: record, then check count, file and peak RSS.
long() {
	_n=$1
	shift
	/usr/bin/time -f 'rss %M' -o $B/recslow.rss timeout 600 $QZDB --batch "$@" > $B/recslow.out 2>&1 </dev/null
	OUT=$(cat $B/recslow.out)
	expect "$_n: 100M recorded" '^Recorded 1[0-9]{8} instructions'
	expect "$_n: trace file" 'zstd-compressed to [0-9]+ bytes \(([0-3]\.[0-9]+|4\.000) bytes per instruction\)'
	expect "$_n: instance tables on disk" '^Statement-instance tables: .* \(0\.[0-9]+ bytes per instruction\)\.$'
	expect_rss_under "$_n: under 256 MiB" 262144 $B/recslow.rss
}

long libc -ex 'set record-libc baseline' -ex 'break work' -ex run -ex 'record on' \
	-ex 'break rec_libc.c:53' -ex continue -ex 'info record' $B/rec_libc-O2 92000
long loop -ex 'break main' -ex run -ex 'set var n = 8500000' -ex 'record on' \
	-ex 'break sl_long.c:38' -ex continue -ex 'info record' $B/sl_long-O0
