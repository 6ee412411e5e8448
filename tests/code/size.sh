#!/bin/sh
# No C source of qzdb's own over 1,000 lines (ARCHITECTURE.md: a file is one
# job; about 800 lines is the aim). Tests and fixtures are not counted.
cd "$(dirname "$0")/../.."
max=1000
n=0
bad=0
for f in core/*/*.[ch] alter/*.[ch] ckpt/*.[ch] slice/*.[ch] tui/*.[ch] modules.[ch]; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	l=$(wc -l < "$f")
	if [ "$l" -gt "$max" ]; then
		echo "FAIL size: $f has $l lines (at most $max)"
		bad=$((bad + 1))
	fi
done
[ "$n" -gt 50 ] || { echo "FAIL size: only $n source files found: is the tree there?"; exit 0; }
[ "$bad" -eq 0 ] && echo "PASS size: $n source files, none over $max lines"
