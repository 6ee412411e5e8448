#!/bin/sh
# Tail-call frames (issue 25): at -O2 a call that ends a function is a
# jump, so its frame is gone; gdb 13 rebuilds it from the call sites'
# tail-call flags and qzdb does the same. Compared with gdb command by
# command (tests/diff/common.sh's agree) on tests/fixtures/tailcall.c:
#   - main -> top => middle => leaf: two frames rebuilt (bt, bt full, up,
#     down, frame N, info frame of each kind, registers and values in a
#     tail-call frame, finish from the callee and from a tail-call frame);
#   - main -> fork2 => left|right => join => leaf: only what both paths
#     share (join) is shown;
#   - an indirect jump (viaptr) and tail calls that reach themselves
#     (even/odd): no frames, no entry values.
# Without a tail-call frame, bt shows leaf called by main and finish never
# stops (it waits at the jump's address): each check fails.
#   sh tests/batch/tailcall.sh
. "$(dirname "$0")/../diff/common.sh"

if ! command -v "$GDB" >/dev/null 2>&1; then
	skip tailcall "gdb (the oracle) is not installed"
	exit 0
fi
BIN=$B/tailcall-O2
# the fixture must make the jumps this test is about
if ! objdump -d --no-show-raw-insn "$BIN" 2>/dev/null | grep -q 'jmp.*<middle>'; then
	skip tailcall "gcc made no tail call in $BIN"
	exit 0
fi

agree "tailcall-chain" $BIN <<-'E'
	- break leaf
	- run
	bt
	bt full
	bt 2
	bt -2
	up
	info frame
	print n
	print $pc
	print $sp
	info registers rip
	up
	info frame
	info locals
	info args
	down
	frame 3
	info frame
	frame 0
	info frame
	finish
	E

agree "tailcall-finish-from-tail-frame" $BIN <<-'E'
	- break leaf
	- run
	frame 2
	finish
	bt
	next
	E

agree "tailcall-two-paths" $BIN <<-'E'
	- break leaf
	- run
	- continue
	bt
	up
	info frame
	print n
	finish
	E

agree "tailcall-indirect-and-recursive" $BIN <<-'E'
	- break leaf
	- run
	- continue
	- continue
	bt
	info frame
	continue
	bt
	info frame
	E
