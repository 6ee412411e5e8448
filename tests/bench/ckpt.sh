#!/bin/sh
# Checkpoint benchmark (called by tests/bench.sh). Program: ckpt_bench-O0,
# a 64 MiB heap written once, then written again between two stops.
#   checkpoint-rollback-64m  cost of checkpoint + rollback around a
#       continue that dirties 64 MiB: (time of `break mark`, `run`,
#       `checkpoint`, `continue`, `rollback 1`) - (time of `break mark`,
#       `run`, `continue`), so the write-protect faults of the continue
#       count too; gdb: the same with `checkpoint` / `restart 1`. When
#       gdb's checkpoint does not work here, the kernel's share of a
#       fork-based checkpoint is measured instead (tests/bench/fork_ckpt.c:
#       fork + copy-on-write of the heap + killing the original), a lower
#       bound of gdb's cost.
#   checkpoint-rollback-64m-own  qzdb's own times for that checkpoint and
#       rollback (of the last run), and the rest: mostly the write-protect
#       faults of the continue (the first write to each page after a
#       checkpoint), the dirty-page tracking's price, as fork's is its
#       copy-on-write faults.
#   checkpoint-rollback-1page  median checkpoint and rollback times with 1
#       page dirty (40 of each, `maint checkpoint-stats`); target < 1 ms.
#   checkpoint-space  bytes held by a checkpoint (`info checkpoints`: its
#       pages and their index) after 64 MiB (16384 pages) of mixed bytes
#       were dirtied, against 16384 x 4 KiB; target within 10%.
#       -fill: the same after a memset (pre-images repeating one byte:
#       held as the byte, so far less; no target).
#   checkpoint-rollback-512m  as -64m with 512 MiB dirtied, qzdb and
#       gdb (`checkpoint` / `restart 1`) interleaved round by round, the
#       bare-fork floor (fork_ckpt 512) measured in each round; goal: at
#       least as fast as gdb, within 1.5x of the floor. -own: qzdb's own
#       checkpoint and rollback times and its write faults.
#   checkpoint-rollback-512m-mixed  the same with every page of mixed
#       bytes (ckpt_bench mode 3): the memset above leaves pre-images that
#       repeat one byte, which qzdb holds without a copy (ckpt/blob.c), so
#       this one shows the cost where every pre-image is copied.
#   checkpoint-512m-clean  `checkpoint` of a program holding 512 MiB: the
#       first (goal under 5 ms), the write-protection of every page it
#       leaves to the protector thread (done in the background, or before
#       the program next runs: here a stepi, which waits for what is
#       left), and a second after that stepi (`maint checkpoint-stats`,
#       median of RUNS); gdb: wall time of its `checkpoint` (fork)
#       there, against the same without it.
#   checkpoint-fault  the price of one write fault after a checkpoint:
#       64 MiB, every other page written once (8192 pages, none adjacent,
#       so every one faults alone), (that continue after `checkpoint` -
#       the same without) / 8192; gdb: its copy-on-write per page after
#       `checkpoint` the same way.
# QUICK=1: 3 runs a figure, 256 MiB for the 512m figures (BIGMB).
# Wall times: the median of RUNS, pinned (tests/bench/lib.sh).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
. tests/bench/lib.sh
BIN=$B/ckpt_bench-O0
if [ "${QUICK:-0}" = 1 ]; then BIGMB=${BIGMB:-256}; else BIGMB=${BIGMB:-512}; fi
fixtures_build || { echo "ckpt bench: fixture build failed"; exit 1; }
gcc -O2 -o $B/fork_ckpt tests/bench/fork_ckpt.c || exit 1

# wall TAG CMD...: the median wall time in microseconds of RUNS runs, the
# output of the last in $LOG/TAG.out.
wall() {
	_w=$(best "$@") && echo $((_w / 1000))
}

ms() { awk -v u="$1" 'BEGIN { printf "%.1f", u / 1000 }'; }

# 1. 64 MiB dirtied between checkpoint and rollback
q_full=$(wall qz-ck64 '' '' qzx -ex 'break mark' -ex run -ex checkpoint -ex continue \
	-ex 'rollback 1' -ex 'maint checkpoint-stats' $BIN 64)
grep -q '^#0  mark (round=0)' $LOG/qz-ck64.out || q_full=""
q_own=$(grep '^last checkpoint' $LOG/qz-ck64.out)
q_base=$(wall qz-ck64-base '' '' qzx -ex 'break mark' -ex run -ex continue $BIN 64)
q=""
[ -n "$q_full" ] && q=$((q_full - q_base))
g_full=$(wall gdb-ck64 '' '' gdbx -ex 'break mark' -ex run -ex checkpoint -ex continue \
	-ex 'restart 1' --args $BIN 64)
g_base=$(wall gdb-ck64-base '' '' gdbx -ex 'break mark' -ex run -ex continue --args $BIN 64)
fb=$($B/fork_ckpt 64)   # the floor: a bare fork with copy-on-write
if grep -q 'mark (round=0)' $LOG/gdb-ck64.out && ! grep -qi 'error' $LOG/gdb-ck64.out; then
	g=$((g_full - g_base))
	peer="gdb $(ms $g) ms"
else
	why=$(grep -m1 -i "error\|couldn" $LOG/gdb-ck64.out | sed 's/^.*gdb-[0-9.]*\///' | cut -c1-80)
	g=$fb
	peer="gdb n/a (its checkpoint fails here: $why; the floor stands in)"
fi
if [ -n "$q" ]; then
	verdict=$(awk -v q="$q" -v g="$g" -v f="$fb" 'BEGIN { printf "speedup %.2fx, floor %.1f ms (bare fork + copy-on-write), qzdb/floor %.2fx, %s",
		g / q, f / 1000, q / f, q <= g ? "ok" : "SLOWER" }')
	echo "checkpoint-rollback-64m: qzdb $(ms $q) ms, $peer, $verdict"
else
	echo "checkpoint-rollback-64m: qzdb failed (see $LOG/qz-ck64.out), $peer"
fi
ck_us=$(echo "$q_own" | awk '{ print $3 }')
rb_us=$(echo "$q_own" | awk '{ print $7 }')
if [ -n "$q" ] && [ -n "$ck_us" ] && [ -n "$rb_us" ]; then
	rest=$(awk -v q="$q" -v c="$ck_us" -v r="$rb_us" 'BEGIN { printf "%.1f", (q - c - r) / 1000 }')
	echo "checkpoint-rollback-64m-own: ${q_own}; rest (write-protect faults while running, ...) $rest ms"
else
	echo "checkpoint-rollback-64m-own: ${q_own:-n/a}"
fi

# 2. one page dirty: 40 checkpoints and 40 rollbacks
S=$LOG/ck1.x
{
	echo 'break mark'; echo run; echo checkpoint
	i=0
	while [ $i -lt 40 ]; do echo continue; echo checkpoint; echo 'maint checkpoint-stats'; i=$((i + 1)); done
	while [ $i -lt 80 ]; do echo continue; echo 'rollback 41'; echo 'maint checkpoint-stats'; i=$((i + 1)); done
	echo 'info checkpoints'
} > $S
timeout 300 $QZDB --batch -x $S $BIN 64 1 > $LOG/qz-ck1.out 2>&1
med() { sort -n | awk '{ a[NR] = $1 } END { if (NR) printf "%.0f", a[int((NR + 1) / 2)]; else print "" }'; }
ck=$(grep '^last checkpoint' $LOG/qz-ck1.out | head -40 | awk '{ print $3 }' | med)
rb=$(grep '^last checkpoint' $LOG/qz-ck1.out | tail -40 | awk '{ print $7 }' | med)
pages=$(grep '^. 20 ' $LOG/qz-ck1.out | awk '{ print $4 " pages, " $5 " KiB, " $7 }')
if [ -n "$ck" ] && [ -n "$rb" ]; then
	ok=$(awk -v c="$ck" -v r="$rb" 'BEGIN { print (c < 1000 && r < 1000) ? "ok" : "OVER 1 ms" }')
	echo "checkpoint-rollback-1page: checkpoint $ck us, rollback $rb us (median of 40; checkpoint 20 held $pages), $ok"
else
	echo "checkpoint-rollback-1page: qzdb failed (see $LOG/qz-ck1.out)"
fi

# 3. space: checkpoints around the 64 MiB written again. The copies of
# those pages are held by checkpoint 2 (pagemap, hash: what they hold
# then) or by checkpoint 1 (undo: what they held before): the row with
# more.
# space NAME MODE CHECK: the line for ckpt_bench 64 MODE
space() {
	$QZDB --batch -ex 'break mark' -ex run -ex checkpoint -ex continue -ex checkpoint \
		-ex 'info checkpoints' $BIN 64 $2 > $LOG/qz-$1.out 2>&1
	line=$(grep '^. [12] ' $LOG/qz-$1.out | cut -c3- | sort -k4,4n | tail -1)
	p=$(echo "$line" | awk '{ print $4 }')
	k=$(echo "$line" | awk '{ print $5 }')
	if [ -n "$k" ]; then
		awk -v n="$1" -v p="$p" -v k="$k" -v check="$3" 'BEGIN { r = k * 1024 / (16384 * 4096);
			printf "%s: %d pages, %d KiB held for 16384 dirty pages (65536 KiB): ratio %.3f%s\n",
			n, p, k, r, !check ? "" : (r >= 0.9 && r <= 1.1) ? ", ok" : ", OUT OF 10%" }'
	else
		echo "$1: qzdb failed (see $LOG/qz-$1.out)"
	fi
}
space checkpoint-space 3 1
space checkpoint-space-fill 0 0

# 4. 512 MiB dirtied between checkpoint and rollback, against gdb and the floor
qf() { qzx -ex 'break mark' -ex run -ex checkpoint -ex continue -ex 'rollback 1' \
	-ex 'maint checkpoint-stats' $BIN $BIGMB; }
qb() { qzx -ex 'break mark' -ex run -ex continue $BIN $BIGMB; }
gf() { gdbx -ex 'break mark' -ex run -ex checkpoint -ex continue -ex 'restart 1' --args $BIN $BIGMB; }
gb() { gdbx -ex 'break mark' -ex run -ex continue --args $BIN $BIGMB; }
fork_ms() { $B/fork_ckpt $BIGMB | awk '{ printf "%.3f\n", $1 / 1000 }'; }
FMUST='mark \(round=0\)' FNOT='^error|Couldn|Cannot' BMUST='mark \(round=1\)' BNOT='' \
	FLOOR_CMD=fork_ms FLOOR_WHAT='bare fork + copy-on-write' \
	figure checkpoint-rollback-${BIGMB}m ms 1000 | tee $LOG/ck512.line
own=$(grep -h '^last checkpoint\|^undo log' $LOG/checkpoint-rollback-${BIGMB}m-qf.out | tr '\n' ';')
echo "checkpoint-rollback-${BIGMB}m-own: ${own:-n/a}"
awk -v big="$BIGMB" '/qzdb/ { split($0, a, "qzdb "); split(a[2], q, " "); split($0, b, "gdb "); split(b[2], g, " ");
	split($0, c, "floor "); split(c[2], f, " ");
	printf "checkpoint-rollback-%sm-goals: qzdb <= gdb %s, qzdb/floor %.2f (goal 1.5) %s\n", big,
		(q[1] <= g[1]) ? "ok" : "MISSED", q[1] / f[1], (q[1] / f[1] <= 1.5) ? "ok" : "MISSED" }' $LOG/ck512.line

# 4b. the same with mixed bytes: every pre-image copied
qf() { qzx -ex 'break mark' -ex run -ex checkpoint -ex continue -ex 'rollback 1' \
	-ex 'maint checkpoint-stats' $BIN $BIGMB 3; }
qb() { qzx -ex 'break mark' -ex run -ex continue $BIN $BIGMB 3; }
gf() { gdbx -ex 'break mark' -ex run -ex checkpoint -ex continue -ex 'restart 1' --args $BIN $BIGMB 3; }
gb() { gdbx -ex 'break mark' -ex run -ex continue --args $BIN $BIGMB 3; }
FMUST='mark \(round=0\)' FNOT='^error|Couldn|Cannot' BMUST='mark \(round=1\)' BNOT='' \
	FLOOR_CMD='' figure checkpoint-rollback-${BIGMB}m-mixed ms 1000
own=$(grep -h '^last checkpoint\|^undo log' $LOG/checkpoint-rollback-${BIGMB}m-mixed-qf.out | tr '\n' ';')
echo "checkpoint-rollback-${BIGMB}m-mixed-own: ${own:-n/a}"

# 5. checkpoint of a 512 MiB program, nothing dirty: the command, the
# write-protection it leaves (to the protector thread, finished before
# the program runs: here at the stepi that follows), and a second
# checkpoint after that stepi (a page or two written)
: > $LOG/ckclean.first
: > $LOG/ckclean.prot
: > $LOG/ckclean.wait
: > $LOG/ckclean.second
r=0
while [ $r -lt "$RUNS" ]; do
	qzx -ex 'break mark' -ex run -ex checkpoint -ex 'maint checkpoint-stats' -ex stepi \
		-ex 'maint checkpoint-stats' -ex checkpoint -ex 'maint checkpoint-stats' \
		$BIN $BIGMB > $LOG/ckclean.out 2>&1
	grep '^last checkpoint' $LOG/ckclean.out | sed -n 1p | awk '{ print $3 / 1000 }' >> $LOG/ckclean.first
	grep '^last checkpoint' $LOG/ckclean.out | sed -n 3p | awk '{ print $3 / 1000 }' >> $LOG/ckclean.second
	grep '^write-protection' $LOG/ckclean.out | sed -n 2p | awk '{ print $2 + $7 }' >> $LOG/ckclean.prot
	grep '^write-protection' $LOG/ckclean.out | sed -n 2p | awk '{ print $7 }' >> $LOG/ckclean.wait
	r=$((r + 1))
done
g_ck=$(best gdb-ckclean 'mark \(round=0\)' '' gdbx -ex 'break mark' -ex run -ex checkpoint --args $BIN $BIGMB)
g_no=$(best gdb-ckclean-base 'mark \(round=0\)' '' gdbx -ex 'break mark' -ex run --args $BIN $BIGMB)
first=$(stats < $LOG/ckclean.first) second=$(stats < $LOG/ckclean.second)
prot=$(stats < $LOG/ckclean.prot) wait=$(stats < $LOG/ckclean.wait)
echo "$first|$second|$g_ck|$g_no|$prot|$wait" | awk -F'|' -v big="$BIGMB" '{ split($1, a, " "); split($2, b, " ");
	split($5, p, " "); split($6, w, " ");
	g = ($3 != "" && $4 != "") ? sprintf("%.2f ms", ($3 - $4) / 1e6) : "n/a";
	printf "checkpoint-%sm-clean: qzdb first %.2f ms (%.2f-%.2f), %s; its write-protection of every page %.2f ms (%.2f-%.2f) more, in the background or before the program next runs (waited for at the stepi after it: %.2f ms); again after a stepi %.2f ms (%.2f-%.2f); gdb checkpoint (fork) %s\n",
		big, a[2], a[1], a[3], (a[2] < 5) ? "under 5 ms" : "OVER 5 ms", p[2], p[1], p[3], w[2],
		b[2], b[1], b[3], g }'

# 6. one write fault: 8192 pages written after the checkpoint, none adjacent
qf() { qzx -ex 'break mark' -ex run -ex checkpoint -ex continue -ex 'maint checkpoint-stats' $BIN 64 2; }
qb() { qzx -ex 'break mark' -ex run -ex continue $BIN 64 2; }
gf() { gdbx -ex 'break mark' -ex run -ex checkpoint -ex continue --args $BIN 64 2; }
gb() { gdbx -ex 'break mark' -ex run -ex continue --args $BIN 64 2; }
FMUST='mark \(round=1\)' FNOT='^error|Couldn|Cannot' BMUST='mark \(round=1\)' BNOT='' FLOOR_CMD='' \
	figure checkpoint-fault us 8192
grep -h '^undo log' $LOG/checkpoint-fault-qf.out | sed 's/^/checkpoint-fault-own: /'
