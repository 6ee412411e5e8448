#!/bin/sh
# detect on real programs nobody here wrote (the machine's own sort, sed,
# grep, find, awk, tar, ls, perl) running normally: no report but leaks
# (uninit's included: perl gave one once, a branch in Perl_block_end on a
# parser value whose int half -O2 merged into an undefined word with
# and/or; definedness is per byte there and for 4-byte writes now),
# and the leaks are Valgrind memcheck's "definitely lost" ones, block for
# block and byte for byte (direct and indirect), where Valgrind is
# installed. `detect on` includes the read and write events (the program
# runs under the recorder's emulator): a padding `nopl 0x0(%rax)` naming
# memory it never touches gave false overflows in grep and perl once. A
# false double free here once came from an allocator tail call
# (realloc(NULL) jumping to malloc) leaving a stale pending return.
. tests/lib.sh
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
bug='^(Double free|Invalid free|Heap buffer overflow|NULL pointer dereference|Dangling pointer|Stack buffer overflow|Uninitialised value)'

# totals FILE: "BLOCKS DIRECT INDIRECT" of the leak reports in qzdb's output
qz_totals() {
	awk '/^Memory leak of / {
		n++; s = $0; sub(/^[^(]*\(/, "", s); d += s + 0
		if (match($0, /\(and [0-9]+ bytes in/)) { t = substr($0, RSTART + 5); i += t + 0 }
	} END { printf "%d %d %d\n", n, d, i }' "$1"
}
# the same from Valgrind's "definitely lost" records (numbers with commas)
vg_totals() {
	sed 's/,//g' "$1" | awk '/definitely lost in loss record/ {
		sub(/^==[0-9]+== /, "")
		if ($2 == "(") { }   # not a form Valgrind prints
		if ($2 ~ /^\(/) { dd = $2; sub(/\(/, "", dd); d += dd; ii = $4; i += ii }
		else d += $1
		for (k = 1; k <= NF; k++) if ($k == "in") { n += $(k + 1); break }
	} END { printf "%d %d %d\n", n, d, i }'
}

printf 'pear\napple\nfig\n' > $T/in.txt
mkdir -p $T/tree/a $T/tree/b
: > $T/tree/a/x.h
: > $T/tree/b/y.c
# qzdb by an absolute path: the runs happen in $T
case $QZDB in /*) qzabs=$QZDB ;; *) qzabs=$PWD/$QZDB ;; esac
check() {
	name=$1
	shift
	p=$(command -v "$1") || { skip "real $name" "$1 is not installed"; return; }
	shift
	OUT=$(cd $T && timeout 120 $qzabs --batch -ex 'detect on' -ex run -ex 'info detect' --args $p "$@" 2>&1 </dev/null)
	expect_not "real $name: no report but leaks" "$bug"
	expect "real $name: ran to its end" '^Events seen this run: .* exit 1 '
	if ! command -v valgrind >/dev/null; then
		skip "real $name: leaks as Valgrind's" "valgrind is not installed"
		return
	fi
	printf '%s\n' "$OUT" > $T/qz.out
	(cd $T && valgrind --leak-check=full -q $p "$@" >/dev/null 2>$T/vg.out </dev/null)
	# reports beyond the 20 shown are counted by info detect
	q=$(qz_totals $T/qz.out)
	fired=$(printf '%s\n' "$OUT" | awk '$1 == "leak" { print $4 }')
	v=$(vg_totals $T/vg.out)
	if [ "${v%% *}" -gt 20 ]; then   # compare the count alone
		[ "$fired" = "${v%% *}" ] && pass "real $name: leaks as Valgrind's" ||
			fail "real $name: leaks as Valgrind's" "qzdb $fired blocks, valgrind $v"
	elif [ "$q" = "$v" ]; then
		pass "real $name: leaks as Valgrind's ($q)"
	else
		fail "real $name: leaks as Valgrind's" "qzdb (blocks direct indirect) $q, valgrind $v"
		sed 's/^/    | /' $T/vg.out | head -20
	fi
}

# programs CHECK: CHECK NAME PROGRAM ARGS... for each program but perl
programs() {
	$1 sort sort in.txt
	$1 sed sed 's/p/P/g' in.txt
	$1 grep grep -c p in.txt
	$1 find find tree -name '*.h'
	$1 awk awk '{ n += length($0) } END { print n }' in.txt
	$1 tar tar cf /dev/null tree
	$1 ls ls -l tree
}
programs check
check perl perl -e 'my %h = map { $_ => length } qw(a bb ccc); print join(",", sort keys %h), "\n"'
