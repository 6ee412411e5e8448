#!/bin/sh
# Benchmark of input reduction (issue 21), run by tests/bench.sh: a real
# program nobody here wrote with a real failing input of over 1,000
# characters: jansson's json_process.c (Debian's libjansson4 example),
# whose use_conf() overflows filename[1024] with a 1,122-character test
# directory (tests/batch/realprog.sh). Plain ddmin and guided reduction of
# that argument, one after the other: runs (the same on every run of the
# bench: the search is deterministic), wall time, the size reached.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
. tests/bench/lib.sh
SRC=/usr/share/doc/libjansson4/examples/json_process.c
if [ ! -f $SRC ] || [ ! -f /usr/include/jansson.h ]; then
	echo "reduce-real: n/a (needs libjansson4's example and libjansson-dev)"
	exit 0
fi
D=$LOG/reduce
mkdir -p $D
QZDB=$(realpath "$QZDB")   # the runs happen in $D
gcc -g -O0 -o $D/json_process $SRC -ljansson || { echo "reduce-real: n/a (build failed)"; exit 0; }
ARG=/tmp/qzdb-no-such-dir-$(printf '%01100d' 0 | tr 0 d)
for how in plain guided; do
	opt=; [ $how = plain ] && opt=--plain
	t0=$(date +%s%N)
	(cd $D && qzx -ex "reduce arg 1 $opt" ./json_process "$ARG" > $how.out 2>&1)
	t1=$(date +%s%N)
	runs=$(sed -n 's/^(in \([0-9]*\) runs, .*/\1/p' $D/$how.out)
	size=$(sed -n 's/^Reduced .* to \([0-9]*\) bytes .*/\1/p' $D/$how.out)
	echo "$how ${runs:-?} $(( (t1 - t0) / 1000000 )) ${size:-?}"
done > $D/figures
awk '{ r[$1] = $2; t[$1] = $3; s[$1] = $4 } END {
	printf "reduce-real: json_process, 1122-byte argument: plain ddmin %s runs, %.1f s, to %s bytes; guided %s runs, %.1f s, to %s bytes; guided/plain runs %.2f\n",
		r["plain"], t["plain"] / 1000, s["plain"], r["guided"], t["guided"] / 1000, s["guided"],
		(r["plain"] > 0) ? r["guided"] / r["plain"] : 0 }' $D/figures
