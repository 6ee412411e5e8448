#!/bin/sh
# Recording memory out of RAM (issue 24, slice/spill.c, edges.c, rev-log.c)
# on sl_long-O0 with n = 15000 (180,000 instructions: a slice of 165,026
# edges, 40 compressed blocks; an undo log of 8 MB, all but its newest
# 2 MiB at most in the temporary file), three ways: temporary files in
# $TMPDIR (the default), `set record tmpfile off` and a TMPDIR that is no
# directory (both: memory, with one warning):
#   - the slice's edges: the count sl_long must give (11 n + 26), and
#     info slice, explain and a second slice print the same in all three;
#   - reverse execution across the spilled part of the undo log: record
#     goto to instruction 60 shows byte for byte (registers, writable
#     memory) the state dumped live there, instruction 100000 (in the
#     file's part) is the same reached backwards and forwards (entries
#     swapped in the file are written back), record goto end the end state,
#     a reverse-continue to iteration 1000 lands there with the loop's
#     values, in each of the three runs (runs differ in their random
#     bytes: each is compared with itself);
#   - an undo log past its limit drops its oldest entries alike with and
#     without the file, and comes back to the end state; a limit raised
#     once the file exists grows its ring and loses nothing;
#   - the files are unlinked from the start: the directory stays empty
#     while qzdb runs (its descriptors name deleted files) and after a kill.
. "$(dirname "$0")/../../tests/lib.sh"
BIN=$B/sl_long-O0
D=$B/spill-$$
mkdir -p $D/tmp
[ -n "$KEEP" ] || trap 'rm -rf $D' EXIT

# run TAG SETTING...: the whole session, its output in $D/TAG.out.
run() {
	_t=$1
	shift
	qz "$@" -ex 'break main' -ex run -ex 'set var n = 15000' -ex 'record on' \
		-ex 'stepi 60' -ex "maint dump-state $D/$_t-at60.bin" \
		-ex 'break sl_long.c:37' -ex continue -ex "maint dump-state $D/$_t-end.bin" \
		-ex 'info record' \
		-ex 'slice sl_long.c:36' -ex 'info slice 1' -ex 'explain slice 1' \
		-ex 'slice sl_long.c:14' -ex 'explain 2 sl_long.c:15' \
		-ex 'record goto 100000' -ex "maint dump-state $D/$_t-mid-back.bin" \
		-ex 'record goto 60' -ex "maint dump-state $D/$_t-goto60.bin" \
		-ex 'record goto 100000' -ex "maint dump-state $D/$_t-mid-fwd.bin" \
		-ex 'break sl_long.c:13 if i == 1000' -ex 'record goto end' -ex 'reverse-continue' \
		-ex 'print i' -ex 'print a' -ex 'print b' -ex 'print c' \
		-ex 'record goto end' -ex "maint dump-state $D/$_t-goto-end.bin" $BIN
	printf '%s\n' "$OUT" >$D/$_t.out
}
TMPDIR=$D/tmp run file
expect spill-edges-count '^Slice 1 from sl_long\.c:36#1: 25 statements, 165026 edges$'
expect spill-undo-in-file '^Undo log: [0-9]+ of its bytes in a temporary file, the newest [0-9]+ in memory\.$'
expect_not spill-no-warning 'warning: .*stay in memory'
expect spill-reverse-lands '^\$1 = 1000$'
expect spill-reverse-values '^\$2 = 499500$'

TMPDIR=$D/tmp run memory -ex 'set record tmpfile off'
expect_count spill-off-warned-once 1 'warning: temporary files are off \(set record tmpfile\): the recording, its undo log and slices stay in memory'
expect_not spill-off-no-undo-file 'of its bytes in a temporary file'
rmdir $D/tmp && : >$D/tmp   # the same TMPDIR for the program, no directory
TMPDIR=$D/tmp run ro
rm $D/tmp && mkdir $D/tmp
expect_count spill-ro-warned-once 1 "warning: no temporary file can be made in $D/tmp \\(Not a directory\\)"

# What a user sees is the same, files or not (the warning and info record's
# lines about where the bytes are aside).
same_out() { grep -v -e '^warning: ' -e 'temporary file' -e 'bytes held' $D/$1.out; }
for t in memory ro; do
	expect_same spill-same-output-$t "$(same_out file)" "$(same_out $t)"
done
for t in file memory ro; do
	if ! [ -s $D/$t-at60.bin ] || ! [ -s $D/$t-end.bin ] || cmp -s $D/$t-at60.bin $D/$t-end.bin; then
		fail spill-reverse-dumps-$t "no dumps, or the same at 60 and at the end"
	elif ! cmp -s $D/$t-at60.bin $D/$t-goto60.bin; then
		fail spill-reverse-goto60-$t "record goto 60 is not the state seen live at 60"
	elif ! [ -s $D/$t-mid-back.bin ] || ! cmp -s $D/$t-mid-back.bin $D/$t-mid-fwd.bin; then
		fail spill-reverse-mid-$t "instruction 100000 differs going back and coming forward"
	elif ! cmp -s $D/$t-end.bin $D/$t-goto-end.bin; then
		fail spill-reverse-goto-end-$t "record goto end is not the end state"
	else
		pass spill-reverse-states-$t
	fi
done
# An undo log past its limit (4 MB): the oldest entries go, their bytes
# are punched out of the file; the oldest kept instruction shows the same
# loop values with the file as without, and record goto end comes back to
# the end state.
# bounded TAG SETTING...: that session, the values in $D/TAG.vals.
bounded() {
	_t=$1
	shift
	TMPDIR=$D/tmp qz "$@" -ex 'set record undo-limit 4000000' -ex 'break main' -ex run \
		-ex 'set var n = 15000' -ex 'record on' -ex 'break sl_long.c:37' -ex continue \
		-ex "maint dump-state $D/$_t-end.bin" -ex 'info record' -ex 'record goto begin' \
		-ex 'print i' -ex 'print a' -ex 'print b' -ex 'print c' -ex 'info registers rip' \
		-ex 'record goto end' -ex "maint dump-state $D/$_t-back.bin" $BIN
	printf '%s\n' "$OUT" | grep -E '^\$[0-9]|^rip' >$D/$_t.vals
}
bounded bfile
expect spill-bounded-dropped 'limit 4000000 bytes; [0-9]+ oldest dropped'
expect spill-bounded-in-file '^Undo log: [0-9]+ of its bytes in a temporary file'
bounded bmemory -ex 'set record tmpfile off'
if [ "$(wc -l <$D/bfile.vals)" = 5 ] && cmp -s $D/bfile.vals $D/bmemory.vals; then
	pass spill-bounded-oldest-same
else
	fail spill-bounded-oldest-same "the oldest kept instruction differs: $(cat $D/bfile.vals) / $(cat $D/bmemory.vals)"
fi
for t in bfile bmemory; do
	if [ -s $D/$t-end.bin ] && cmp -s $D/$t-end.bin $D/$t-back.bin; then
		pass spill-bounded-back-to-end-$t
	else
		fail spill-bounded-back-to-end-$t "record goto end after goto begin is not the end state"
	fi
done

# A limit raised after the file was made: the ring the file is (the size
# of what the limit keeps) grows, moving what it holds, and reverse
# execution still reaches instruction 60 byte for byte, and 300000 alike
# both ways.
TMPDIR=$D/tmp qz -ex 'set record undo-limit 5000000' -ex 'break main' -ex run -ex 'set var n = 50000' \
	-ex 'record on' -ex 'stepi 60' -ex "maint dump-state $D/g60.bin" -ex 'break sl_long.c:14' \
	-ex 'ignore 2 5500' -ex continue -ex 'delete 2' -ex 'info record' \
	-ex 'set record undo-limit unlimited' -ex 'break sl_long.c:37' -ex continue \
	-ex "maint dump-state $D/gend.bin" -ex 'record goto 300000' -ex "maint dump-state $D/gmid1.bin" \
	-ex 'record goto 60' -ex "maint dump-state $D/ggoto60.bin" -ex 'record goto 300000' \
	-ex "maint dump-state $D/gmid2.bin" -ex 'record goto end' -ex "maint dump-state $D/ggoto-end.bin" $BIN
expect spill-grown-file-early 'limit 5000000 bytes\.$'
expect spill-grown-file-early-in-file '^Undo log: [0-9]+ of its bytes in a temporary file'
if [ -s $D/g60.bin ] && cmp -s $D/g60.bin $D/ggoto60.bin && cmp -s $D/gend.bin $D/ggoto-end.bin &&
	[ -s $D/gmid1.bin ] && cmp -s $D/gmid1.bin $D/gmid2.bin; then
	pass spill-grown-ring
else
	fail spill-grown-ring "after the ring grew, a record goto does not give the state seen"
fi

# Unlinked from the start: nothing in the directory while a long recording
# runs (its descriptors name deleted files there), nor after a kill -9.
TMPDIR=$D/tmp $QZDB --batch -ex 'break main' -ex run -ex 'set var n = 2000000' -ex 'record on' \
	-ex 'break sl_long.c:37' -ex continue $BIN >/dev/null 2>&1 </dev/null &
pid=$!
i=0
while [ $i -lt 100 ] && ! ls -l /proc/$pid/fd 2>/dev/null | grep -q "$D/tmp/.*(deleted)"; do
	sleep 0.05
	i=$((i + 1))
done
if ls -l /proc/$pid/fd 2>/dev/null | grep -q "$D/tmp/.*(deleted)" && [ -z "$(ls -A $D/tmp)" ]; then
	pass spill-unlinked-while-running
else
	fail spill-unlinked-while-running "no deleted file of $D/tmp open, or a name left: $(ls -A $D/tmp)"
fi
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
if [ -z "$(ls -A $D/tmp)" ]; then pass spill-nothing-after-kill; else fail spill-nothing-after-kill "$(ls -A $D/tmp)"; fi

# the hidden setting's bad value is a clear error
qz -ex 'set record tmpfile perhaps'
expect spill-tmpfile-bad-value '^error: Usage: set record tmpfile on\|off$'
