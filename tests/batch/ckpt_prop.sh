#!/bin/sh
# Checkpoint property test on tests/fixtures/ckpt_prop.c (globals, stack,
# small and mmap-sized heap, realloc growth, free/reallocate, a file read
# through stdio beyond its buffer, descriptors closed and reopened), for
# both dirty-page methods at -O0 and -O2: checkpoints at rounds 1, 3 and 4;
# after each rollback the dump of registers and every writable mapping
# equals, byte for byte, the dump taken at the checkpoint and the
# checkpoint's own image; continuing prints what the first run printed
# from that point. Then both methods side by side on one run must describe
# the same memory image at every checkpoint.
. tests/lib.sh
D=$B/ckpt-prop
mkdir -p $D

# seg MARK: the program's lines printed after "=== MARK" up to the next
# marker.
seg() {
	printf '%s\n' "$OUT" | awk -v m="=== $1" '$0 == m { on = 1; next } /^=== / { on = 0 }
		on && (/^round / || /^done$/)'
}

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

for opt in O0 O2; do
	BIN=$B/ckpt_prop-$opt
	for m in pagemap hash; do
		t="$opt $m"
		rm -f $D/*
		qz -ex "set checkpoint-method $m" -ex 'break mark' -ex run -ex c \
		   -ex checkpoint -ex "maint dump-state $D/s1" -ex c -ex c \
		   -ex checkpoint -ex "maint dump-state $D/s2" -ex c \
		   -ex checkpoint -ex "maint dump-state $D/s3" -ex delete \
		   -ex 'echo === first\n' -ex c \
		   -ex 'echo === r2\n' -ex 'rollback 2' -ex "maint dump-state $D/r2" \
		   -ex "maint dump-checkpoint 2 $D/c2" -ex c \
		   -ex 'echo === r1\n' -ex 'rollback 1' -ex "maint dump-state $D/r1" -ex c \
		   -ex 'echo === r3\n' -ex 'rollback 3' -ex "maint dump-state $D/r3" \
		   -ex "maint dump-checkpoint 3 $D/c3" -ex c \
		   -ex 'echo === r1b\n' -ex 'rollback 1' -ex 'rollback 1' -ex "maint dump-state $D/r1b" \
		   -ex "maint dump-checkpoint 1 $D/c1" -ex c -ex 'echo === end\n' $BIN
		expect "$t: checkpoints taken" '^Checkpoint 3 at ckpt_prop\.c:[0-9]+ '
		expect "$t: method used" "^Checkpoint 1 at "
		expect_not "$t: no errors" '^error:|^warning: (cannot|descriptor)'
		same "$t: dump after rollback 2" $D/s2 $D/r2
		same "$t: checkpoint 2 image" $D/s2 $D/c2
		same "$t: dump after rollback 1" $D/s1 $D/r1
		same "$t: dump after rollback 3" $D/s3 $D/r3
		same "$t: checkpoint 3 image" $D/s3 $D/c3
		same "$t: dump after rollback 1 twice" $D/s1 $D/r1b
		same "$t: checkpoint 1 image" $D/s1 $D/c1
		if cmp -s $D/s1 $D/s2; then fail "$t: states differ" "s1 = s2"; else pass "$t: states differ"; fi
		printf '%s\n' "$OUT" | awk '/^round / || /^done$/' | head -6 > $D/all
		seg first > $D/first
		for r in r2:3 r1:1 r3:4 r1b:1; do
			k=${r#*:}
			tail -n +$((k + 1)) $D/all > $D/want
			seg ${r%:*} > $D/got
			if [ -s $D/want ] && cmp -s $D/want $D/got; then
				pass "$t: output after ${r%:*} as the first time"
			else
				fail "$t: output after ${r%:*} as the first time" "$(diff $D/want $D/got | head -5)"
			fi
		done
		[ "$(wc -l < $D/all)" = 6 ] && pass "$t: first run complete" || fail "$t: first run complete" "$(cat $D/all)"
		no_leftover "$t: no leftover" $BIN
	done
	# Both methods on the same run: pagemap stores, hash checks.
	qz -ex 'set checkpoint-method both' -ex 'break mark' -ex run -ex c -ex checkpoint \
	   -ex c -ex c -ex checkpoint -ex 'rollback 1' -ex c -ex checkpoint -ex c -ex checkpoint $BIN
	n=$(printf '%s\n' "$OUT" | grep -Ec '^Dirty-page methods agree: pagemap [0-9]+ pages, hash [0-9]+ pages, same memory image$')
	[ "$n" = 4 ] && pass "$opt: both methods agree at 4 checkpoints" || fail "$opt: both methods agree at 4 checkpoints" "$n agreements"
	expect_not "$opt: no disagreement" 'DISAGREE'
done
