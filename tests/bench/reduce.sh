#!/bin/sh
# Benchmark of input reduction (issue 21), run by tests/bench.sh: a real
# program nobody here wrote with a real failing input of over 1,000
# characters: jansson's json_process.c (Debian's libjansson4 example),
# whose use_conf() overflows filename[1024] with a 1,122-character test
# directory (tests/batch/realprog.sh). Plain ddmin and guided reduction of
# that argument, one after the other: runs (the same on every run of the
# bench: the search is deterministic), wall time, the size reached.
#
# And GNU bc with the bug of the dissertation's Table 4.3 (bc-1.06's
# more_arrays() initialises the grown array table up to the count of
# variables, v_count, not of arrays: a heap overflow once a program has
# more variables than arrays and more than 32 arrays; free() then aborts):
# Debian's bc 1.07.1 source (apt-get source, no system change: a private
# source list) with that one loop bound put back, and a 1,918-byte
# statistics program in bc's language that uses 70 variables and 70
# arrays (generated below: the BugBench input is not available), by bytes
# and by tokens. SLOW=1: plain ddmin takes tens of thousands of runs.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
. tests/bench/lib.sh
D=$LOG/reduce
mkdir -p $D
D=$(realpath $D)   # the runs happen in $D: paths into it must hold there
QZDB=$(realpath "$QZDB")   # the runs happen in $D

# bc_build: $D/bc/bc-1.07.1/bc/bc with bc-1.06's more_arrays bug, or 1.
bc_build() {
	S=$D/bc
	[ -x $S/bc-1.07.1/bc/bc ] && return 0
	mkdir -p $S/lists/partial
	echo 'deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main' \
		> $S/src.list
	o="-o Dir::Etc::SourceList=$S/src.list -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists=$S/lists"
	(cd $S && timeout 300 apt-get -qq $o update && timeout 300 apt-get -qq $o source --download-only bc=1.07.1-3) \
		>$S/fetch.log 2>&1 || return 1
	(cd $S && tar xzf bc_1.07.1.orig.tar.gz) || return 1
	# the bug: the new elements' loop runs to v_count (bc-1.06)
	awk '/^more_arrays/ { m = 1 } m && /for \(; indx < a_count; indx\+\+\)/ { sub(/a_count/, "v_count"); m = 0 } { print }' \
		$S/bc-1.07.1/bc/storage.c > $S/storage.c && mv $S/storage.c $S/bc-1.07.1/bc/storage.c
	grep -q 'indx < v_count; indx++)$' $S/bc-1.07.1/bc/storage.c || return 1
	(cd $S/bc-1.07.1 && ./configure -q CFLAGS='-g -O0' && make -s -C lib && make -s -C bc) \
		>$S/build.log 2>&1
}

# bc_input: 70 variables set from a fixed pseudo-random sequence, a
# function, 70 arrays each set from a variable, a closing print.
bc_input() {
	awk 'BEGIN {
		s = 7; printf "/* sample statistics */\nscale=4\n"
		for (i = 0; i < 70; i++) { s = (s * 1103515245 + 12345) % 2147483648
			printf "v%02d=%d*%d+%d\n", i, s % 99 + 1, s % 9 + 1, i }
		printf "define mean(n){\n  auto i,s\n  s=0\n  for(i=0;i<n;i++) s=s+x[i]\n  return (s/n)\n}\n"
		for (j = 0; j < 70; j++) printf "a%02d[%d]=v%02d+%d\n", j, j % 5, j, j
		printf "print \"done\\n\"\n" }'
}

# reduce_both NAME WHAT PROG ARGS...: plain, then guided reduction of WHAT
# (a `reduce` operand); "NAME how runs ms bytes" lines.
reduce_both() {
	name=$1 what=$2
	shift 2
	for how in plain guided; do
		opt=; [ $how = plain ] && opt=--plain
		[ -n "$REINPUT" ] && eval "$REINPUT"
		t0=$(date +%s%N)
		# plain ddmin on bc takes longer than qzx's 10 minutes, pinned
		(cd $D && timeout 3600 "$QZDB" --batch -ex "reduce $what $opt" "$@" > $name-$how.out 2>&1)
		t1=$(date +%s%N)
		runs=$(sed -n 's/^(in \([0-9]*\) runs, .*/\1/p' $D/$name-$how.out)
		size=$(sed -n 's/^Reduced .* to \([0-9]*\) bytes .*/\1/p' $D/$name-$how.out)
		echo "$how ${runs:-?} $(( (t1 - t0) / 1000000 )) ${size:-?}"
	done
}

# figure_of NAME TEXT <FIGURES
figure_of() {
	awk -v name="$1" -v text="$2" '{ r[$1] = $2; t[$1] = $3; s[$1] = $4 } END {
	printf "%s: %s: plain ddmin %s runs, %.1f s, to %s bytes; guided %s runs, %.1f s, to %s bytes; guided/plain runs %.2f\n",
		name, text, r["plain"], t["plain"] / 1000, s["plain"], r["guided"], t["guided"] / 1000, s["guided"],
		(r["plain"] > 0) ? r["guided"] / r["plain"] : 0 }'
}

if [ "${SLOW:-0}" != 1 ]; then
	echo "reduce-bc: skipped (SLOW=1 runs it: plain ddmin takes tens of thousands of runs, about half an hour pinned)"
elif bc_build; then
	REINPUT="bc_input > $D/bc-input.txt"
	bc_input > $D/bc-input.txt
	for by in bytes tokens; do
		reduce_both bc-$by "stdin $D/bc-input.txt --by $by" $D/bc/bc-1.07.1/bc/bc -q > $D/bc-$by-figures
		figure_of reduce-bc-$by "GNU bc 1.07.1 with bc-1.06's more_arrays overflow, $(wc -c < $D/bc-input.txt)-byte program, by $by" < $D/bc-$by-figures
	done
	REINPUT=
else
	echo "reduce-bc: n/a (Debian's bc source could not be fetched or built: $D/bc/*.log)"
fi

SRC=/usr/share/doc/libjansson4/examples/json_process.c
if [ ! -f $SRC ] || [ ! -f /usr/include/jansson.h ]; then
	echo "reduce-real: n/a (needs libjansson4's example and libjansson-dev)"
	exit 0
fi
gcc -g -O0 -o $D/json_process $SRC -ljansson || { echo "reduce-real: n/a (build failed)"; exit 0; }
ARG=/tmp/qzdb-no-such-dir-$(printf '%01100d' 0 | tr 0 d)
reduce_both json "arg 1" ./json_process "$ARG" > $D/figures
figure_of reduce-real "json_process, 1122-byte argument" < $D/figures
