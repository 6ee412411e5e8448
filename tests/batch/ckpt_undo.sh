#!/bin/sh
# The undo-log checkpoint engine (ckpt/undo.c, ckpt/undo-roll.c) on
# tests/fixtures/ckpt_undo.c and ckpt_prop.c: after every rollback the
# dump of registers and writable memory equals, byte for byte, the dump
# taken at the checkpoint and the checkpoint's own image, with nested
# checkpoints sharing pre-images, after deleting one (its pre-images
# merged), across munmap/mremap of written regions, dropped pages, a
# trimmed heap, mprotect, threads and a fork child, pre-images held as
# the word they repeat (and, forced, not); a drop qzdb cannot
# see coming is said; 64 MiB dirtied (512 MiB with SLOW=1) costs a few
# hundred faults, not one a page; a detached or killed qzdb leaves no
# program waiting on a fault, and a killed one no int3 (the guard puts
# them back: the program runs to its normal exit); the protection a
# checkpoint leaves to the background is done before the program runs
# (checked with the protector off); the fallback, forced, still works.
. tests/lib.sh
D=$B/ckpt-undo
mkdir -p $D

if ! $QZDB --batch -ex 'set checkpoint-method undo' -ex 'break mark' -ex run -ex checkpoint \
	$B/ckpt_prop-O0 2>&1 | grep -q '^Checkpoint 1 at'; then
	skip "undo engine" "no synchronous userfaultfd qzdb can hold here (privilege, Linux 6.4)"
	exit 0
fi

# same NAME FILE1 FILE2: byte-identical and not trivially small.
same() {
	if [ ! -s "$2" ] || [ ! -s "$3" ]; then
		fail "$1" "missing dump"
	elif cmp -s "$2" "$3"; then
		pass "$1"
	else
		fail "$1" "$(cmp "$2" "$3" | head -1)"
	fi
}

# lines MARK: the program's lines after "=== MARK" up to the next marker.
lines() {
	printf '%s\n' "$OUT" | awk -v m="=== $1" '$0 == m { on = 1; next } /^=== / { on = 0 }
		on && (/^round / || /^done$/)'
}

# (O0-fg: the write-protection a checkpoint or rollback leaves to the
# protector thread is all done before the program runs instead)
qzb() {
	if [ "$fg" = 1 ]; then qz -ex 'set checkpoint-undo-background off' "$@"; else qz "$@"; fi
}
for v in O0 O2 O0-fg; do
	opt=${v%-fg}
	fg=0
	[ "$v" = "$opt" ] || fg=1
	BIN=$B/ckpt_undo-$opt
	t="undo $v"
	rm -f $D/*
	# Nested: checkpoints at rounds 1, 2 and 4; the pages written after
	# all three are saved once (in 3), rollbacks in any order.
	qzb -ex 'break mark' -ex run -ex c -ex checkpoint -ex "maint dump-state $D/s1" \
	   -ex c -ex checkpoint -ex "maint dump-state $D/s2" -ex c -ex c -ex checkpoint \
	   -ex "maint dump-state $D/s3" -ex 'info checkpoints' -ex delete -ex 'echo === first\n' -ex c \
	   -ex 'echo === r2\n' -ex 'rollback 2' -ex "maint dump-state $D/r2" -ex c \
	   -ex 'echo === r1\n' -ex 'rollback 1' -ex "maint dump-state $D/r1" \
	   -ex "maint dump-checkpoint 3 $D/c3" -ex c \
	   -ex 'echo === r3\n' -ex 'rollback 3' -ex "maint dump-state $D/r3" \
	   -ex "maint dump-checkpoint 1 $D/c1" -ex "maint dump-checkpoint 2 $D/c2" -ex c \
	   -ex 'echo === end\n' $BIN
	expect "$t: engine named" '^\* 3 +[0-9.]+ s +0 +0 KiB +undo +ckpt_undo\.c:[0-9]+$'
	expect "$t: a checkpoint copies nothing" '^Checkpoint 3 at ckpt_undo\.c:[0-9]+ \(0 pages, 0 KiB\)$'
	expect_not "$t: no errors" '^error:|^warning: (cannot|descriptor|[0-9]+ pages were dropped)'
	same "$t: rollback 2 (munmap, mremap, dropped pages since)" $D/s2 $D/r2
	same "$t: rollback 1 after rollback 2" $D/s1 $D/r1
	same "$t: rollback 3 after rollback 1" $D/s3 $D/r3
	same "$t: checkpoint 3 image from 1" $D/s3 $D/c3
	same "$t: checkpoint 1 image from 3" $D/s1 $D/c1
	same "$t: checkpoint 2 image from 3" $D/s2 $D/c2
	# (its output goes to a pipe, buffered: each run to the end prints
	# everything from round 1 at its exit, the buffer rolled back too)
	lines first > $D/all
	for r in r2 r1 r3; do
		lines $r > $D/got
		if [ "$(wc -l < $D/all)" = 8 ] && cmp -s $D/all $D/got; then
			pass "$t: output after $r as the first time"
		else
			fail "$t: output after $r as the first time" "$(diff $D/all $D/got | head -5)"
		fi
	done
	no_leftover "$t: no leftover" $BIN

	# Deleting the middle checkpoint merges its pre-images into the
	# older one; deleting the newest (the base) keeps it until the next.
	rm -f $D/*
	qzb -ex 'break mark' -ex run -ex c -ex checkpoint -ex "maint dump-state $D/s1" \
	   -ex c -ex checkpoint -ex c -ex c -ex checkpoint -ex "maint dump-state $D/s3" -ex delete \
	   -ex c -ex 'cdelete 2' -ex 'info checkpoints' -ex 'rollback 1' -ex "maint dump-state $D/r1" \
	   -ex 'rollback 3' -ex "maint dump-state $D/r3" -ex 'cdelete 3' -ex c -ex 'rollback 1' \
	   -ex "maint dump-state $D/r1b" -ex 'rollback 2' $BIN
	expect_not "$t: deleted one gone" '^.? 2 +[0-9.]+ s'
	same "$t: rollback 1 after deleting 2" $D/s1 $D/r1
	same "$t: rollback 3 after deleting 2" $D/s3 $D/r3
	same "$t: rollback 1 after deleting 2 and 3" $D/s1 $D/r1b
	expect "$t: deleted checkpoint refused" '^error: No checkpoint number 2\.$'
	no_leftover "$t: deletion: no leftover" $BIN
done

# A region (16 pages of 0x0d) unmapped by a raw system call (not through
# libc) after the checkpoint: qzdb could not save it first; the rollback
# says exactly which range reads as zeros, and everything else is back
# (the dumps differ in those 65536 bytes only).
rm -f $D/*
qz -ex 'break mark' -ex run -ex c -ex c -ex c -ex c -ex checkpoint -ex "maint dump-state $D/s1" \
   -ex delete -ex c -ex 'rollback 1' -ex "maint dump-state $D/r1" -ex 'print/x areas[3]' \
   $B/ckpt_undo-O0 raw
expect "raw munmap: said" '^warning: 16 pages were dropped by a system call qzdb did not stop at'
d=$(printf '%s\n' "$OUT" | sed -n 's/^\$1 = \(0x[0-9a-f]*\)$/\1/p')
e=$(printf '0x%x' $((d + 65536)) 2>/dev/null)
expect "raw munmap: the range named" "not saved first: $d-$e read as zeros after this rollback, not as at checkpoint 1; the rest is as it was\.\$"
expect "raw munmap: rollback still done" '^#0  mark \(round=4\)'
n=$(cmp -l $D/s1 $D/r1 2>&1 | awk '$2 == 15 && $3 == 0 { z++ } END { print NR, z + 0 }')
if [ "$n" = "65536 65536" ]; then
	pass "raw munmap: all else back"
else
	fail "raw munmap: all else back" "differing bytes, of them 0x0d to 0: $n (want 65536 65536)"
fi

# The user's own breakpoint on munmap still stops the program there (the
# engine stops at it too, to save what it drops).
qz -ex 'break mark' -ex run -ex c -ex checkpoint -ex 'break munmap' -ex c -ex bt -ex delete -ex c \
   -ex 'rollback 1' -ex "maint dump-state $D/r1" $B/ckpt_undo-O0
if libc_dbg; then   # gdb's shape with libc6-dbg (libc's munmap and ld.so's: "Breakpoint 2.1")
	expect "user breakpoint on munmap" '^Thread 1 "ckpt_undo-O0" hit Breakpoint 2\.1, __GI_munmap \(\) at ../sysdeps/unix/syscall-template.S:[0-9]+$'
else
	expect "user breakpoint on munmap" '^Thread 1 "ckpt_undo-O0" hit Breakpoint 2, 0x[0-9a-f]+ in munmap \(\)'
fi
expect "called from the program" '^#1  0x[0-9a-f]+ in step \(round=2'
expect "and runs on to its end" '^done$'

# The property test's program under the undo engine.
BIN=$B/ckpt_prop-O0
rm -f $D/*
qz -ex 'set checkpoint-method undo' -ex 'break mark' -ex run -ex c -ex checkpoint \
   -ex "maint dump-state $D/s1" -ex c -ex c -ex checkpoint -ex "maint dump-state $D/s2" -ex c \
   -ex checkpoint -ex "maint dump-state $D/s3" -ex delete -ex c -ex 'rollback 2' \
   -ex "maint dump-state $D/r2" -ex c -ex 'rollback 1' -ex "maint dump-state $D/r1" -ex c \
   -ex 'rollback 3' -ex "maint dump-state $D/r3" -ex 'rollback 1' -ex 'rollback 1' \
   -ex "maint dump-state $D/r1b" $BIN
for i in 1 2 3; do same "prop: rollback $i" $D/s$i $D/r$i; done
same "prop: rollback 1 twice" $D/s1 $D/r1b

# The kernel refusing write-protection (forced: as after a second of
# EAGAIN on end): the ranges are copied at once instead, said in a
# warning and listed by info checkpoints; the same rollbacks hold.
rm -f $D/*
qz -ex 'set checkpoint-undo-protect off' -ex 'break mark' -ex run -ex c -ex checkpoint \
   -ex "maint dump-state $D/s1" -ex c -ex c -ex checkpoint -ex "maint dump-state $D/s2" -ex c \
   -ex checkpoint -ex "maint dump-state $D/s3" -ex delete -ex c -ex 'rollback 2' \
   -ex "maint dump-state $D/r2" -ex c -ex 'rollback 1' -ex "maint dump-state $D/r1" -ex c \
   -ex 'rollback 3' -ex "maint dump-state $D/r3" -ex 'info checkpoints' $BIN
for i in 1 2 3; do same "protection refused: rollback $i" $D/s$i $D/r$i; done
expect "protection refused: said" \
	'^warning: the kernel refused to write-protect 0x[0-9a-f]+-0x[0-9a-f]+.* for a second: copied now instead'
expect "protection refused: info checkpoints lists the ranges" \
	'^Write-protection refused by the kernel for [0-9]+ ranges? \([0-9]+ pages, copied instead\): 0x'
expect_count "protection refused: said once a range" 1 \
	'^warning: the kernel refused to write-protect'

# Forced fallback: with the undo engine off, auto takes the next one and
# the same rollbacks hold.
rm -f $D/*
qz -ex 'set checkpoint-undo off' -ex 'break mark' -ex run -ex c -ex checkpoint \
   -ex "maint dump-state $D/s1" -ex 'info checkpoints' -ex c -ex c -ex 'rollback 1' \
   -ex "maint dump-state $D/r1" $B/ckpt_undo-O0
expect "fallback: another method" '^\* 1 +[0-9.]+ s +[0-9]+ +[0-9]+ KiB +(pagemap|hash) +ckpt_undo\.c'
same "fallback: rollback" $D/s1 $D/r1
qz -ex 'break mark' -ex run -ex checkpoint -ex 'set checkpoint-undo off' $BIN
expect "fallback: fixed while checkpoints exist" '^error: Delete the checkpoints first'

# exec while checkpoints exist: they are discarded with a message (their
# image went with the old program), a rollback to one says so and never
# puts back a stale image; a checkpoint of the new program works. Both
# engines: the undo log, and the fallback forced.
for eng in undo fallback; do
	[ $eng = undo ] && set_eng='set checkpoint-method undo' || set_eng='set checkpoint-undo off'
	rm -f $D/*
	qz -ex "$set_eng" -ex 'break main' -ex "run exec $B/ckpt_prop-O0" -ex checkpoint -ex checkpoint \
	   -ex c -ex 'info checkpoints' -ex 'rollback 1' -ex 'rollback 9' -ex 'break mark' -ex c \
	   -ex checkpoint -ex "maint dump-state $D/s3" -ex c -ex c -ex 'rollback 3' \
	   -ex "maint dump-state $D/r3" -ex bt $B/forkit-O0
	expect "exec ($eng): checkpoints discarded, said" \
		'^Checkpoints discarded: process [0-9]+ executed a new program, the memory they hold went with the old one\.$'
	expect "exec ($eng): none left" '^No checkpoints\.$'
	expect "exec ($eng): rollback to one refused" \
		'^error: Checkpoint 1 was discarded when the process executed a new program\.$'
	expect "exec ($eng): an unknown id is still unknown" '^error: No checkpoint number 9\.$'
	expect "exec ($eng): the new program's checkpoint" '^Checkpoint 3 at ckpt_prop\.c'
	same "exec ($eng): the new program's rollback" $D/s3 $D/r3
	expect "exec ($eng): in the new program after it" '^#0  mark \(.*ckpt_prop\.c'
done

# Dirtying a large heap: a few hundred faults (runs doubled), every page
# saved, the memory back byte for byte.
for mb in 64 ${SLOW:+512}; do
	rm -f $D/*
	qz -ex 'break mark' -ex run -ex checkpoint -ex "maint dump-state $D/s1" -ex continue \
	   -ex 'maint checkpoint-stats' -ex 'rollback 1' -ex "maint dump-state $D/r1" $B/ckpt_bench-O0 $mb
	same "$mb MiB: memory back" $D/s1 $D/r1
	f=$(printf '%s\n' "$OUT" | sed -n 's/^undo log: \([0-9]*\) write faults, \([0-9]*\) pages saved in [0-9.]* ms$/\1 \2/p')
	pages=$((mb * 256))
	if [ -n "$f" ] && [ "${f% *}" -lt 1000 ] && [ "${f#* }" -ge $pages ]; then
		pass "$mb MiB: runs, not a fault a page ($f)"
	else
		fail "$mb MiB: runs, not a fault a page" "faults, pages: ${f:-none} (want < 1000, >= $pages)"
	fi
	no_leftover "$mb MiB: no leftover" $B/ckpt_bench-O0
done


# Same-filled pre-images (ckpt/blob.c ckpt_blob_fill): a page repeating
# one 8-byte word is held as that word, without a copy. On
# tests/fixtures/ckpt_fill.c (zeros, a byte, words, more distinct words
# than the table holds, pages one byte off at the start, middle and end,
# mixed pages): nested checkpoints, rollbacks in any order and a deleted
# checkpoint give the memory back byte for byte, with the fills on and
# forced off (set checkpoint-undo-fill off); maint checkpoint-stats counts
# the pages held as a word (none when off).
FBIN=$B/ckpt_fill-O0
# fills: the count of maint checkpoint-stats' last "undo log fills" line.
fills() {
	printf '%s\n' "$OUT" | sed -n 's/^undo log fills: \([0-9]*\) of those pages.*/\1/p' | tail -1
}

for mode in on off; do
	rm -f $D/*
	# checkpoints at rounds 0, 1 and 2; rollbacks 2, 1, 3, 1 (3 deleted
	# first in the second half: its pre-images merged into 2's)
	qz -ex 'set checkpoint-method undo' -ex "set checkpoint-undo-fill $mode" -ex 'break mark' \
	   -ex run -ex checkpoint -ex "maint dump-state $D/s1" -ex c -ex checkpoint \
	   -ex "maint dump-state $D/s2" -ex c -ex checkpoint -ex "maint dump-state $D/s3" -ex c \
	   -ex 'maint checkpoint-stats' -ex 'rollback 2' -ex "maint dump-state $D/r2" \
	   -ex 'rollback 1' -ex "maint dump-state $D/r1" -ex 'rollback 3' -ex "maint dump-state $D/r3" \
	   -ex c -ex 'rollback 1' -ex "maint dump-state $D/r1b" -ex c -ex 'delete 3' -ex 'rollback 2' \
	   -ex "maint dump-state $D/r2b" -ex 'maint checkpoint-stats' $FBIN
	same "fill $mode: rollback 2" $D/s2 $D/r2
	same "fill $mode: rollback 1" $D/s1 $D/r1
	same "fill $mode: rollback 3 (forward again)" $D/s3 $D/r3
	same "fill $mode: rollback 1 after running on" $D/s1 $D/r1b
	same "fill $mode: rollback 2 with 3 deleted" $D/s2 $D/r2b
	n=$(fills)
	# each epoch saves 316 pages: 7 of them never a fill (one byte off,
	# mixed); of the 300 distinct words only those the table still holds
	if [ $mode = off ]; then
		[ "$n" = 0 ] && pass "fill off: none held as a word" || fail "fill off: none held as a word" "fills: ${n:-no line}"
	elif [ -n "$n" ] && [ "$n" -gt 0 ]; then
		pass "fill on: pages held as a word ($n)"
	else
		fail "fill on: pages held as a word" "fills: ${n:-no line}"
		printf '%s\n' "$OUT" | sed 's/^/    | /' | head -40
	fi
done

# The save agent (ckpt/agent.c): a task in the program's address space
# saves the pre-images there and moves them back at a rollback to the
# base; forced off, qzdb saves them itself. Both ways byte for byte, under
# nested checkpoints, a delete, rollbacks along a path and back to the
# base after running on (the agent's own rollback: the last one).
# agent_line: maint checkpoint-stats' last "save agent:" line.
agent_line() {
	printf '%s\n' "$OUT" | grep '^save agent:' | tail -1
}
# (With fills on too: the agent holds runs repeating one word as the word
# and writes it back.)
for am in on on-fill off; do
	mode=${am%-fill}
	fill=off
	[ "$am" = "$mode" ] || fill=on
	rm -f $D/*
	qz -ex 'set checkpoint-method undo' -ex "set checkpoint-undo-fill $fill" \
	   -ex "set checkpoint-undo-agent $mode" -ex 'break mark' \
	   -ex run -ex checkpoint -ex "maint dump-state $D/s1" -ex c -ex checkpoint \
	   -ex "maint dump-state $D/s2" -ex c -ex checkpoint -ex "maint dump-state $D/s3" -ex c \
	   -ex 'rollback 2' -ex "maint dump-state $D/r2" -ex 'rollback 1' -ex "maint dump-state $D/r1" \
	   -ex 'rollback 3' -ex "maint dump-state $D/r3" -ex c -ex 'delete 3' -ex 'rollback 2' \
	   -ex "maint dump-state $D/r2b" -ex c -ex 'rollback 2' -ex "maint dump-state $D/r2c" \
	   -ex 'maint checkpoint-stats' $FBIN
	same "agent $am: rollback 2" $D/s2 $D/r2
	same "agent $am: rollback 1" $D/s1 $D/r1
	same "agent $am: rollback 3 (forward again)" $D/s3 $D/r3
	same "agent $am: rollback 2 with 3 deleted" $D/s2 $D/r2b
	same "agent $am: rollback 2 again after running on (to the base)" $D/s2 $D/r2c
	line=$(agent_line)
	if [ $mode = off ]; then
		[ -z "$line" ] && pass "agent off: none started" || fail "agent off: none started" "$line"
	elif printf '%s\n' "$line" | grep -Eq '^save agent: pid [0-9]+, [1-9][0-9]* pages saved in the program, [1-9][0-9]* rollbacks by it \([1-9]'; then
		pass "agent $am: it saved and rolled back, moving the pages"
	else
		fail "agent $am: it saved and rolled back, moving the pages" "${line:-no line}"
		printf '%s\n' "$OUT" | sed 's/^/    | /' | head -40
	fi
done

# A memset written again with another byte: the agent's runs repeat one
# word, held as the word and written back by its rollback.
rm -f $D/*
qz -ex 'break mark' -ex run -ex checkpoint -ex "maint dump-state $D/s1" -ex c -ex 'rollback 1' \
   -ex "maint dump-state $D/r1" -ex 'maint checkpoint-stats' $B/ckpt_bench-O0 2
same "agent: rollback of a memset (runs held as a word)" $D/s1 $D/r1
expect "agent: that rollback was its own" '^save agent: pid [0-9]+, [1-9][0-9]* pages saved in the program, 1 rollbacks by it'

# The agent killed while the program is stopped: qzdb's fault thread
# takes over (the program does not wait on a fault), and what the agent
# saved before is read from its store.
rm -f $D/*
mkfifo $D/in
$QZDB $FBIN < $D/in > $D/kill.out 2>&1 &
Q=$!
exec 7> $D/in
printf '%s\n' 'set checkpoint-method undo' 'set checkpoint-undo-fill off' 'break mark' run checkpoint \
	"maint dump-state $D/s1" c 'echo === ran\n' >&7
i=0
while [ $i -lt 100 ] && ! grep -q '^=== ran' $D/kill.out; do sleep 0.1; i=$((i + 1)); done
PROG=$(pgrep -P $Q -x ckpt_fill-O0)
AG=$(pgrep -P "${PROG:-1}" -x qzdb-agent)
[ -n "$AG" ] && kill -9 $AG
printf '%s\n' c 'rollback 1' "maint dump-state $D/r1" 'maint checkpoint-stats' c c c c 'echo === end\n' quit >&7
exec 7>&-
i=0
while [ $i -lt 100 ] && kill -0 $Q 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
kill -9 $Q 2>/dev/null
wait $Q 2>/dev/null
[ -n "$AG" ] && pass "agent killed: it was there (pid $AG)" || fail "agent killed: it was there" "$(tail -3 $D/kill.out)"
same "agent killed: rollback 1 from what it saved before" $D/s1 $D/r1
OUT=$(cat $D/kill.out)
expect "agent killed: qzdb saves instead" '^save agent: ended \([1-9][0-9]* pages saved in the program before\); qzdb saves$'
expect "agent killed: the program runs on to its end" '\[Inferior 1 \(process [0-9]+\) exited normally\]$'

# Never a program left waiting on a fault: attached, checkpoint, then
# qzdb detaches (quit) or is killed; the program keeps writing.
progress() {   # PID: running, never found waiting on a fault, in 5 looks over 1 s
	_ok=1
	for i in 1 2 3 4 5; do
		sleep 0.2
		st=$(awk '{ print $3 }' /proc/$1/stat 2>/dev/null)
		grep -q handle_userfault /proc/$1/wchan 2>/dev/null && _ok=0
		[ "$st" = R ] || _ok=0
	done
	[ $_ok = 1 ]
}
# Wait (20 s at most) for qzdb's "Checkpoint 1 at" in $D/att.out (callers
# empty the file themselves: a background job's redirection may run after
# the first look, and the last case's line would be seen).
checkpoint_taken() {
	i=0
	while [ $i -lt 200 ] && ! grep -q 'Checkpoint 1 at' $D/att.out; do
		sleep 0.1
		i=$((i + 1))
	done
}
# (64 MiB: a run of about 50 s, so that it is still in its loop when looked
# at: at its end it would meet the int3s a SIGKILLed qzdb leaves, a known
# limit written in ckpt/README.md)
for how in quit kill; do
	$B/ckpt_bench-O0 64 > /dev/null 2>&1 &
	P=$!
	sleep 0.3
	if [ $how = quit ]; then
		timeout 60 $QZDB --batch -p $P -ex checkpoint -ex 'info checkpoints' -ex detach > $D/att.out 2>&1
	else
		: > $D/att.out   # not by the job's redirection: it may come late
		(echo checkpoint; echo continue; exec sleep 30) 2>/dev/null | $QZDB -p $P >> $D/att.out 2>&1 &
		Q=$!   # qzdb itself (the last of the pipeline)
		# killed once the checkpoint is taken and the program runs again
		# (a fixed wait ran out on a busy machine before the attach ended)
		checkpoint_taken
		sleep 0.3
		kill -9 $Q 2>/dev/null
		wait $Q 2>/dev/null
	fi
	if grep -q 'Checkpoint 1 at' $D/att.out && progress $P; then
		pass "$how while attached: the program runs on"
	else
		fail "$how while attached: the program runs on" "$(grep -v '^$' $D/att.out | tail -3)
$(awk '{ print $3 }' /proc/$P/stat) $(cat /proc/$P/wchan)"
	fi
	kill -9 $P 2>/dev/null
	wait $P 2>/dev/null
done

# Killed while attached, with int3s in the program (the engine's on _exit
# and libc's munmap/brk..., the user's on free): the guard process puts
# their bytes back, and the program runs on to its normal exit (its last
# rounds, free's munmap and _exit, after qzdb is gone). A run of about 4 s.
$B/ckpt_bench-O0 2 > /dev/null 2>&1 &
P=$!
sleep 0.2
: > $D/att.out   # checkpoint_taken must not see the last case's line
(echo 'break free'; echo checkpoint; echo continue; exec sleep 30) 2>/dev/null | $QZDB -p $P >> $D/att.out 2>&1 &
Q=$!
checkpoint_taken
sleep 0.3
G=$(pgrep -P $Q -x qzdb-guard)   # qzdb's guard process
AG=$(pgrep -P $P -x qzdb-agent)   # the save agent, a child of the program's
kill -9 $Q 2>/dev/null
sleep 0.5
AGST=$([ -n "$AG" ] && awk '{ print $3 }' /proc/$AG/stat 2>/dev/null)
wait $P
rc=$?
if [ -n "$AG" ] && { [ -z "$AGST" ] || [ "$AGST" = Z ]; }; then
	pass "killed while attached: the save agent was there, and ended with qzdb"
else
	fail "killed while attached: the save agent was there, and ended with qzdb" "agent: ${AG:-none} ${AGST}"
fi
if [ $rc = 0 ] && grep -q 'Checkpoint 1 at' $D/att.out; then
	pass "killed while attached: the program runs on to its normal exit"
else
	fail "killed while attached: the program runs on to its normal exit" \
		"status $rc (133: SIGTRAP at an int3 left behind); guard: ${G:-none}; $(tail -2 $D/att.out)"
fi
i=0
while [ -n "$G" ] && [ $i -lt 20 ] && kill -0 $G 2>/dev/null; do
	sleep 0.1
	i=$((i + 1))
done
if [ -n "$G" ] && ! kill -0 $G 2>/dev/null; then
	pass "killed while attached: the guard was there, and is gone"
else
	fail "killed while attached: the guard was there, and is gone" "guard: ${G:-none}"
fi
exit 0   # (the status of the last wait is the killed program's)
