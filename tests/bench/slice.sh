#!/bin/sh
# Recording and slicing benchmarks (issues 8 and 18), called from tests/bench.sh.
#   record        the same region (loop-O0: main to its last line) recorded by
#                 the emulate engine (N3 iterations), the single-step engine
#                 and gdb's `record full` (N2 iterations): (time with recording
#                 - time without) / instructions, and the ratios
#   record-libc   rec_libc-O2's work() (snprintf, strcpy, strcat, strlen,
#                 memcpy, memset, strcmp, strchr, fputs; NL rounds): emulate
#                 with glibc's own (AVX2/EVEX) string functions, emulate with
#                 `set record-libc baseline`, and single-step
#   slice-time    a 1-million-instruction recording of sl_long-O0, then a
#                 slice from each of its last 20 statements: the time of each
#                 slice as qzdb measures it (best and worst of the 20)
#   trace-bytes   from `info record`: bytes held in memory, and bytes in the
#                 compressed trace file (set record spill 4096), per instruction
#   record-1m, record-10m  sl_long-O0 with n = 85000 and 850000 (1 and 10
#                 million instructions) recorded and sliced whole: us/insn,
#                 trace B/insn, the run's peak RSS per instruction
#   slice-10m     the time of that slice over 10 million, as qzdb measures it
#   rss-100M      (SLOW=1 only) qzdb's peak RSS recording 100 million
#   slice-100M    (SLOW=1 only) one slice over those 100 million instructions
#                 of sl_long-O0: seconds as qzdb measures them, and the
#                 whole run's peak RSS (the slice's 93 million edges)
# Environment: QZDB, GDB, RUNS, N2 (default 2000), N3 (200000), NL (200).
# Times: the median of RUNS.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
N2=${N2:-2000}
N3=${N3:-200000}
NL=${NL:-200}
. tests/bench/lib.sh
fixtures_build || { echo "bench: fixture build failed"; exit 1; }

BIN=$B/loop-O0
STOP=loop.c:20
# us_per NS_WITH NS_WITHOUT INSNS: microseconds per instruction.
us_per() { awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN { if (n > 0) printf "%.3f", (a - b) / n / 1000 }'; }
# insns_of TAG: the instruction count `info record` printed.
insns_of() { sed -n 's/^Recorded \([0-9]*\) instructions.*/\1/p' "$LOG/$1.out" | tail -1; }

q_emu=$(best qz-emu '' '' qzx -ex 'break main' -ex run -ex 'record on' -ex "break $STOP" \
	-ex continue -ex 'info record' $BIN $N3)
q_emu_base=$(best qz-emu-base '' '' qzx -ex 'break main' -ex run -ex "break $STOP" -ex continue $BIN $N3)
q_step=$(best qz-rec '' '' qzx -ex 'set record engine step' -ex 'break main' -ex run -ex 'record on' \
	-ex "break $STOP" -ex continue -ex 'info record' $BIN $N2)
q_base=$(best qz-rec-base '' '' qzx -ex 'break main' -ex run -ex "break $STOP" -ex continue $BIN $N2)
g_rec=$(best gdb-rec '' '' gdbx -ex 'break main' -ex run -ex 'record full' -ex 'set record full insn-number-max unlimited' \
	-ex "break $STOP" -ex continue -ex 'info record' --args $BIN $N2)
g_insns=$(sed -n 's/^Log contains \([0-9]*\) instructions.*/\1/p' "$LOG/gdb-rec.out")
g_base=$(best gdb-rec-base '' '' gdbx -ex 'break main' -ex run -ex "break $STOP" -ex continue --args $BIN $N2)
eu=$(us_per "$q_emu" "$q_emu_base" "$(insns_of qz-emu)")
su=$(us_per "$q_step" "$q_base" "$(insns_of qz-rec)")
gu=$(us_per "$g_rec" "$g_base" "$g_insns")
if [ -n "$eu" ] && [ -n "$su" ] && [ -n "$gu" ]; then
	awk -v e="$eu" -v s="$su" -v g="$gu" -v n="$(insns_of qz-emu)" 'BEGIN {
		printf "record: emulate %.3f us/insn (%d instructions), step %.2f us/insn, gdb record full %.2f us/insn: %.0fx gdb, %.0fx engine step (goal: <= 0.2 us, >= 300x gdb)\n", e, n, s, g, g / e, s / e }'
else
	echo "record: n/a (a run failed; see $LOG/qz-emu.out, $LOG/qz-rec.out, $LOG/gdb-rec.out)"
fi

# A region of libc string and stdio calls.
LB=$B/rec_libc-O2
LSTOP=rec_libc.c:53
set -- -ex 'break work' -ex run -ex 'record on' -ex "break $LSTOP" -ex continue -ex 'info record'
l_emu=$(best qz-libc-emu '' '' qzx "$@" $LB $NL)
l_base_emu=$(best qz-libc-baseline '' '' qzx -ex 'set record-libc baseline' "$@" $LB $NL)
l_step=$(best qz-libc-step '' '' qzx -ex 'set record engine step' "$@" $LB $NL)
l_none=$(best qz-libc-none '' '' qzx -ex 'break work' -ex run -ex "break $LSTOP" -ex continue $LB $NL)
le=$(us_per "$l_emu" "$l_none" "$(insns_of qz-libc-emu)")
lb=$(us_per "$l_base_emu" "$l_none" "$(insns_of qz-libc-baseline)")
ls_=$(us_per "$l_step" "$l_none" "$(insns_of qz-libc-step)")
nat=$(sed -n 's/^Emulated [0-9]* instructions, ran \([0-9]*\) natively.*/\1/p' "$LOG/qz-libc-emu.out")
if [ -n "$le" ] && [ -n "$lb" ] && [ -n "$ls_" ]; then
	awk -v e="$le" -v b="$lb" -v s="$ls_" -v nat="$nat" -v n="$(insns_of qz-libc-emu)" 'BEGIN {
		printf "record-libc: emulate %.3f us/insn (%d instructions, %d run natively: AVX2/EVEX string functions) = %.0fx engine step; with set record-libc baseline %.3f us/insn = %.0fx; step %.2f us/insn (goal: >= 30x)\n", e, n, nat, s / e, b, s / b, s }'
else
	echo "record-libc: n/a (see $LOG/qz-libc-*.out)"
fi

# Slices from the last 20 statements of a long recording.
set -- -ex 'break main' -ex run -ex 'record on' -ex 'break sl_long.c:38' -ex continue -ex 'info record'
l=18
while [ $l -le 37 ]; do
	set -- "$@" -ex "slice sl_long.c:$l"
	l=$((l + 1))
done
set -- "$@" -ex 'info slices'
_runs=$RUNS
RUNS=1
best qz-slice '' '' qzx "$@" $B/sl_long-O0 >/dev/null
RUNS=$_runs
sed -n 's/^Recorded \([0-9]*\) instructions.*(\([0-9.]*\) bytes per instruction).*/bytes-per-insn: qzdb \2 bytes\/insn held in memory over \1 instructions (Qzdb: 13.65 KB per 1000)/p' "$LOG/qz-slice.out"
awk '/^Slice [0-9]+ from .* in [0-9.]+ s$/ { t = $(NF - 1); n++; s += t; if (t > max) max = t; if (min == "" || t < min) min = t }
	END { if (n) printf "slice-time: %d slices, best %.3f s, mean %.3f s, worst %.3f s (goal: under 1 s each)\n", n, min, s / n, max;
	      else print "slice-time: n/a (see tests/build/bench/qz-slice.out)" }' "$LOG/qz-slice.out"

# The trace file: frames of 1 MiB (spill beyond 4 MiB), over a loop and over
# libc-heavy code.
RUNS=1 best qz-file '' '' qzx -ex 'set record spill 4194304' -ex 'break main' -ex run \
	-ex 'set var n = 850000' -ex 'record on' -ex 'break sl_long.c:38' -ex continue -ex 'info record' \
	$B/sl_long-O0 >/dev/null
RUNS=1 best qz-file-libc '' '' qzx -ex 'set record spill 4194304' -ex 'break work' -ex run \
	-ex 'record on' -ex "break $LSTOP" -ex continue -ex 'info record' $LB 2000 >/dev/null
for f in qz-file qz-file-libc; do
	sed -n 's/.*zstd-compressed to \([0-9]*\) bytes (\([0-9.]*\) bytes per instruction).*/trace-bytes: \2 bytes\/insn on disk (\1 bytes, zstd), '"$f"' (goal: <= 4)/p' "$LOG/$f.out"
done

# record-1m, record-10m: sl_long-O0's loop (n = 85,000 and 850,000: 1 and
# 10 million instructions) recorded, then one slice over all of it, each
# the median of RUNS: (time recording - time running to the same place)
# per instruction, the bytes `info record` says the trace holds per
# instruction, and the whole run's peak RSS per instruction (the issue's
# bound: 8 B/insn after a slice) -- the undo log of reverse execution
# (up to its 64 MiB limit) and the slice's edges included. slice-10m: that
# slice's time as qzdb measures it (`info slices`).
# rec_size TAG N [record]: one run to the loop's end, recorded and sliced
# with `record`; its peak RSS (KB) to $LOG/TAG.rss.
rec_size() {
	_t=$1 _n=$2
	if [ "$3" = record ]; then
		set -- -ex 'record on' -ex 'break sl_long.c:38' -ex continue -ex 'info record' \
			-ex 'slice sl_long.c:37' -ex 'info slices'
	else
		set -- -ex 'break sl_long.c:38' -ex continue
	fi
	/usr/bin/time -f '%M' -o "$LOG/$_t.rss" timeout 600 "$QZDB" --batch -ex 'break main' -ex run \
		-ex "set var n = $_n" "$@" $B/sl_long-O0 >"$LOG/$_t.out" 2>&1 </dev/null
}
for size in 1m:85000 10m:850000; do
	name=record-${size%%:*} n=${size#*:}
	: >"$LOG/$name.us"
	: >"$LOG/$name.kb"
	r=0
	while [ $r -lt "$RUNS" ]; do
		t0=$(date +%s%N)
		rec_size "$name" "$n" record || break
		t1=$(date +%s%N)
		rec_size "$name-base" "$n" || break
		t2=$(date +%s%N)
		insns=$(insns_of "$name")
		[ -n "$insns" ] || break
		# the base run does no slice: the slice's time is taken out
		st=$(awk '/^Slice 1 from .* in [0-9.]+ s$/ { print $(NF - 1) * 1e9 }' "$LOG/$name.out")
		awk -v a="$t0" -v b="$t1" -v c="$t2" -v s="${st:-0}" -v n="$insns" \
			'BEGIN { printf "%.4f\n", ((b - a) - (c - b) - s) / n / 1000 }' >>"$LOG/$name.us"
		cat "$LOG/$name.rss" >>"$LOG/$name.kb"
		r=$((r + 1))
	done
	if [ $r = "$RUNS" ]; then
		held=$(sed -n 's/^Recorded [0-9]* instructions.*(\([0-9.]*\) bytes per instruction).*/\1/p' "$LOG/$name.out")
		echo "$(stats <"$LOG/$name.us") $(stats <"$LOG/$name.kb")" | awk -v name="$name" -v n="$insns" -v held="$held" '{
			printf "%s: qzdb %.3f us/insn (%.3f-%.3f) over %d instructions, trace %s B/insn held, peak RSS %.0f MiB = %.1f B/insn (%.1f-%.1f) after a slice (goal: <= 8)\n",
				name, $2, $1, $3, n, held, $5 / 1024, $5 * 1024 / n, $4 * 1024 / n, $6 * 1024 / n }'
	else
		echo "$name: n/a (a run failed: see $LOG/$name.out)"
	fi
done
awk -v n="$(insns_of record-10m)" '/^Slice 1 from .* in [0-9.]+ s$/ {
	printf "slice-10m: %.2f s for one slice over %d instructions (goal: <= 2 s)\n", $(NF - 1), n; found = 1 }
	END { if (!found) print "slice-10m: n/a (see tests/build/bench/record-10m.out)" }' "$LOG/record-10m.out"

# Peak memory recording 100 million instructions (about 15 s each): SLOW=1.
# rss100 TAG ARGS...: one recording, its peak RSS.
rss100() {
	_t=$1
	shift
	/usr/bin/time -f 'rss %M' -o "$LOG/$_t.rss" timeout 600 "$QZDB" --batch "$@" \
		>"$LOG/$_t.out" 2>&1 </dev/null
	awk -v n="$(insns_of $_t)" -v t="$_t" '/^rss/ { printf "rss-100M: %.0f MiB peak recording %d instructions, %s (goal: < 256)\n", $2 / 1024, n, t }' "$LOG/$_t.rss"
}
if [ "${SLOW:-0}" = 1 ]; then
	rss100 libc-baseline -ex 'set record-libc baseline' -ex 'break work' -ex run -ex 'record on' \
		-ex "break $LSTOP" -ex continue -ex 'info record' $LB 92000
	rss100 sl_long-O0 -ex 'break main' -ex run -ex 'set var n = 8500000' -ex 'record on' \
		-ex 'break sl_long.c:38' -ex continue -ex 'info record' $B/sl_long-O0
	rss100 slice-100M -ex 'break main' -ex run -ex 'set var n = 8500000' -ex 'record on' \
		-ex 'break sl_long.c:38' -ex continue -ex 'info record' -ex 'slice sl_long.c:37' \
		-ex 'info slices' $B/sl_long-O0 >/dev/null
	awk -v n="$(insns_of slice-100M)" '/^Slice 1 from .* in [0-9.]+ s$/ {
		printf "slice-100M: %.2f s for one slice over %d instructions (goal: <= 20 s)\n", $(NF - 1), n; found = 1 }
		END { if (!found) print "slice-100M: n/a (see tests/build/bench/slice-100M.out)" }' "$LOG/slice-100M.out"
	awk '/^rss/ { printf "slice-100M: %.0f MiB peak recording and slicing\n", $2 / 1024 }' "$LOG/slice-100M.rss"
fi
