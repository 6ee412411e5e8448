#!/bin/sh
# tui-redraw: the CPU time of the full-screen UI's redraw after `next` at
# 120x40 (budget: 5 ms). `qzdb --tui-bench N` runs the UI on a virtual
# terminal (curses writing to a file), steps loop-O0 with `next` N times
# and measures with getrusage, per step, what the UI does after it: the
# panes reading the engine (frame, locals, backtrace) and the drawing. It
# also reports the bytes sent to the terminal per redraw against a full
# repaint (only changed cells go out). gdb's TUI has no such hook: n/a.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
fixtures_build || { echo "tui-redraw: fixture build failed"; exit 1; }
line=$(timeout 120 $QZDB --tui-bench "${TUI_N:-500}" $B/loop-O0 2>&1 | grep '^tui-redraw:')
ms=$(echo "$line" | sed -n 's/.*: \([0-9.]*\) ms CPU each.*/\1/p')
if [ -z "$ms" ]; then
	echo "tui-redraw: qzdb n/a, gdb n/a, speedup n/a (the bench did not run)"
	exit 0
fi
verdict=$(awk -v m="$ms" 'BEGIN { print (m < 5) ? "within the 5 ms budget" : "OVER the 5 ms budget" }')
echo "tui-redraw: qzdb $ms ms/redraw, gdb n/a, speedup n/a ($verdict)"
echo "  ${line#tui-redraw: }"
