#!/bin/sh
# Redraw sends only what changed: after `next` at 120x40 the bytes curses
# writes to the terminal per redraw are a fraction of a full repaint
# (qzdb --tui-bench counts them on a virtual terminal; no timing here).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
fixtures_build || exit 1
OUT=$(timeout 60 $QZDB --tui-bench 20 $B/loop-O0 2>&1)
expect "bench runs" '^tui-redraw: 20 redraws after next at 120x40'
each=$(printf '%s\n' "$OUT" | sed -n 's/.*; \([0-9]*\) bytes to the terminal each, a full repaint \([0-9]*\) bytes/\1/p')
full=$(printf '%s\n' "$OUT" | sed -n 's/.*a full repaint \([0-9]*\) bytes/\1/p')
if [ -n "$each" ] && [ -n "$full" ] && [ "$each" -gt 0 ] && [ $((each * 2)) -lt "$full" ]; then
	pass "redraw sends only changes ($each of $full bytes)"
else
	fail "redraw sends only changes" "per redraw '$each', full '$full': $OUT"
fi
