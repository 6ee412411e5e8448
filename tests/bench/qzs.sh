#!/bin/sh
# Benchmark of the session-file parser (issue 16), called from
# tests/bench.sh: an absolute figure, not a ratio to gdb (gdb has no
# session files). qzs_parse_text over 1,000,000 output lines (must be
# under 1 s: the parser is linear) and over one 60 MiB line; best of RUNS.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
RUNS=${RUNS:-3}
mkdir -p $B
make -s libqzcore.a || { echo "qzs-parse: qzdb n/a, gdb n/a, speedup n/a (build failed)"; exit 0; }
LIBS="-ldwarf $(pkg-config --libs libelf capstone ncursesw 2>/dev/null) -lZydis -lz"
${CC:-cc} -O2 -std=gnu11 -Icore -o $B/bench-qzs-parse tests/bench/qzs_parse.c libqzcore.a $LIBS ||
	{ echo "qzs-parse: qzdb n/a, gdb n/a, speedup n/a (build failed)"; exit 0; }
$B/bench-qzs-parse 1000000 "$RUNS" || echo "qzs-parse: qzdb n/a, gdb n/a, speedup n/a (refused)"
