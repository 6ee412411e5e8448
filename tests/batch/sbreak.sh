#!/bin/sh
# sbreaks are breakpoints (issue 23): listed by info breakpoints, disabled,
# deleted, kept across a rollback; sdelete takes them with the slice. And
# switch/suppress rows keep runtime addresses after the program exits, as
# gdb's breakpoint rows do; help works without a program.
. tests/lib.sh
BIN=$B/sl_rec-O0

qz -ex 'break main' -ex run -ex 'record on' -ex 'break sl_rec.c:20' -ex continue -ex 'slice sl_rec.c:19' \
	-ex 'sbreak 1 sl_rec.c:11' -ex 'info breakpoints' -ex 'delete 2' -ex run -ex checkpoint -ex c \
	-ex 'rollback 1' -ex c -ex 'info breakpoints' -ex 'disable 3' -ex run -ex c $BIN
expect "sbreak announce with its number" '^Slice breakpoint 3 on slice 1: 1 statement instances; it takes effect'
expect "sbreak row" '^3       sbreak         keep y                      slice 1 at sl_rec\.c:11 \(1 instance\)$'
expect_count "sbreak hit before and after a rollback" 2 '^Slice breakpoint, slice 1, sl_rec\.c:11#1$'
expect "sbreak hit count" '^	breakpoint already hit 2 times$'
expect "disabled sbreak: the run ends" 'exited normally'

qz -ex 'break main' -ex run -ex 'record on' -ex 'break sl_rec.c:20' -ex continue -ex 'slice sl_rec.c:19' \
	-ex 'sbreak all 1' -ex 'sdelete 1' -ex 'info breakpoints' -ex 'delete 1 2' -ex run $BIN
expect_not "sdelete takes the slice's sbreak" 'sbreak +keep'
expect_not "no stop after sdelete" '^Slice breakpoint, '
qz -ex 'break main' -ex run -ex 'record on' -ex 'break sl_rec.c:20' -ex continue -ex 'slice sl_rec.c:19' \
	-ex 'sbreak all 1' -ex 'delete 3' -ex 'delete 1 2' -ex run $BIN
expect_not "delete removes an sbreak" '^Slice breakpoint, '

qz -ex 'switch alter_bl.c:11' -ex run -ex 'info breakpoints' $B/alter_bl-O0
expect "a switch row after exit keeps the runtime address" '^1       switch         keep y   0x0000555555555[0-9a-f]{3} at alter_bl.c:11 '
OUT=$(timeout 20 $QZDB --batch -ex help 2>&1 </dev/null); RC=$?
expect "help without a program" '^switch +-- Invert the branch on a line'
[ $RC = 0 ] && pass "help without a program succeeds" || fail "help without a program succeeds" "status $RC"
