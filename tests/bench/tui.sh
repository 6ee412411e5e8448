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

# tui-follow: following a dependence edge (and back) in the UI at 120x40:
# the move, the panes reading the engine and the drawing, in CPU time
# (budget: 5 ms), in the slice of ui_twofile's crash.
line=$(QZ_TUI_BENCH=follow timeout 120 $QZDB --tui-bench "${TUI_N:-300}" $B/ui_twofile-O0 2>&1 | grep '^tui-follow:')
ms=$(echo "$line" | sed -n 's/.*: \([0-9.]*\) ms CPU each (0 failed).*/\1/p')
if [ -z "$ms" ]; then
	echo "tui-follow: qzdb n/a, gdb n/a, speedup n/a (the bench did not run: $line)"
else
	verdict=$(awk -v m="$ms" 'BEGIN { print (m < 5) ? "within the 5 ms budget" : "OVER the 5 ms budget" }')
	echo "tui-follow: qzdb $ms ms/edge followed, gdb n/a, speedup n/a ($verdict)"
fi

# tui-next-e2e: the same seen from outside, the whole UI process in a real
# terminal (tmux, 120x40): CPU time (user + system, /usr/bin/time) of
# `break main`, `run`, N x `next` from a -x script in the UI minus that of
# the same script in batch mode, divided by N: the UI's cost per step
# including the pty, the runner thread and the terminal output.
command -v tmux >/dev/null && [ -x /usr/bin/time ] || exit 0
NE=${TUI_NEXTS:-1000}
S=$B/bench/tui-next.cmds
mkdir -p "$B/bench"
{ echo 'break main'; echo 'run 100000'; i=0
  while [ $i -lt "$NE" ]; do echo next; i=$((i + 1)); done
  echo kill; echo quit; } > "$S"
T="tmux -L qzdbbench-$$"
rm -f "$B/bench/tui.time" "$B/bench/batch.time"
$T new-session -d -x 120 -y 40 "env HOME=$B/bench TERM=tmux-256color /usr/bin/time -f '%U %S' -o $B/bench/tui.time $QZDB -x $S $B/loop-O0"
i=0
while [ $i -lt 600 ] && ! [ -s "$B/bench/tui.time" ]; do sleep 0.1; i=$((i + 1)); done
$T kill-server 2>/dev/null
/usr/bin/time -f '%U %S' -o "$B/bench/batch.time" $QZDB --batch -x "$S" $B/loop-O0 >/dev/null 2>&1
if [ -s "$B/bench/tui.time" ] && [ -s "$B/bench/batch.time" ]; then
	awk -v n="$NE" 'NR == FNR { u = $1 + $2; next } { b = $1 + $2 }
		END { printf "tui-next-e2e: qzdb %.3f ms/next (UI %.2f s - batch %.2f s over %d nexts), gdb n/a, speedup n/a\n", (u - b) * 1000 / n, u, b, n }' \
		"$B/bench/tui.time" "$B/bench/batch.time"
else
	echo "tui-next-e2e: qzdb n/a (the UI run did not finish), gdb n/a, speedup n/a"
fi
