#!/bin/sh
# Breakpoints: set by function, line, file:line and address; tbreak, delete,
# disable/enable, condition, ignore, info breakpoints with hit counts.
. tests/lib.sh
for O in O0 O2; do
	BIN=$B/basic-$O

	qz -ex 'break note_directory' -ex run -ex 'info breakpoints' $BIN
	expect "bp-func-$O announce" '^Breakpoint 1 at 0x[0-9a-f]+: file tests/fixtures/basic.c, line 3[01]\.$'
	expect "bp-func-$O hit" '^Breakpoint 1, note_directory \(name=(name@entry=)?0x[0-9a-f]+ "usr", mtime=(mtime@entry=)?1000\) at tests/fixtures/basic.c:3[01]$'
	expect "bp-func-$O source line" '^3[01]	'
	expect "bp-func-$O info header" '^Num +Type +Disp Enb Address +What$'
	expect "bp-func-$O info row" '^1 +breakpoint +keep y +0x00005555555[0-9a-f]+ in note_directory at tests/fixtures/basic.c:3[01]$'
	expect "bp-func-$O hit count" 'breakpoint already hit 1 time$'
	expect_rc "bp-func-$O exit status" 0

	qz -ex 'tbreak note_directory' -ex run -ex 'info breakpoints' -ex continue $BIN
	expect "tbreak-$O announce" '^Temporary breakpoint 1 at '
	expect "tbreak-$O hit" '^Temporary breakpoint 1, note_directory \(.*\) at tests/fixtures/basic.c:3[01]$'
	expect "tbreak-$O deleted" '^No breakpoints or watchpoints\.$'
	expect "tbreak-$O exits" '^\[Inferior 1 \(process [0-9]+\) exited normally\]$'
done

BIN=$B/basic-O0
qz -ex 'break basic.c:19' -ex run -ex 'print x' -ex continue -ex 'print x' $BIN
expect "bp-line announce" '^Breakpoint 1 at 0x[0-9a-f]+: file tests/fixtures/basic.c, line 19\.$'
expect "bp-line hit" '^Breakpoint 1, square \(x=0\) at tests/fixtures/basic.c:19$'
expect "bp-line second hit" '^Breakpoint 1, square \(x=1\) at tests/fixtures/basic.c:19$'
expect "bp-line print" '^\$2 = 1$'

qz -ex 'break 57' -ex 'info breakpoints' $BIN
expect "bp-bare-line default file is main's" 'file tests/fixtures/basic.c, line 57\.$'

qz -ex 'break basic.c:56' $BIN
expect "bp-blank-line moves to next line" 'file tests/fixtures/basic.c, line 57\.$'

qz -ex 'break square if x == 3' -ex run -ex 'print x' -ex 'info breakpoints' $BIN
expect "bp-cond stops when true" '^Breakpoint 1, square \(x=3\) at '
expect "bp-cond shows condition" '	stop only if x == 3$'
expect "bp-cond counts only true hits" 'breakpoint already hit 1 time$'

qz -ex 'break square' -ex 'ignore 1 2' -ex run -ex 'info breakpoints' $BIN
expect "ignore message" '^Will ignore next 2 crossings of breakpoint 1\.$'
expect "ignore skips two" '^Breakpoint 1, square \(x=2\) at '
expect "ignore counts crossings" 'breakpoint already hit 3 times$'

qz -ex 'break square' -ex 'run' -ex 'continue 3' $BIN
expect "continue N" '^Will ignore next 2 crossings of breakpoint 1\.  Continuing\.$'
expect "continue N stops at the 4th" '^Breakpoint 1, square \(x=3\) at '

qz -ex 'break square' -ex 'break fact' -ex 'disable 1' -ex run -ex 'info breakpoints' -ex 'enable 1' -ex 'delete 2' -ex 'info breakpoints' $BIN
expect "disable skips" '^Breakpoint 2, fact \(n=5\)'
expect "disabled row" '^1 +breakpoint +keep n '
expect "delete keeps the other row" '^1 +breakpoint +keep y '

ADDR=$(gdb -nx -batch -ex 'break sum_list' -ex run -ex 'p/x $pc' $BIN 2>/dev/null | sed -n 's/^\$1 = //p')
qz -ex "break *$ADDR" -ex run -ex 'bt 1' $BIN
expect "bp-addr at gdb's sum_list address" "^Breakpoint 1, sum_list \\(head=0x[0-9a-f]+\\) at tests/fixtures/basic.c:4[45]\$"

qz -ex 'break square' -ex 'break square' -ex 'run' $BIN
expect "two bps at one address: first reported" '^Breakpoint 1, square'

qz -ex 'break counter_nosuch' $BIN
expect "unknown function" '^error: Function "counter_nosuch" not defined\.$'
expect_rc "unknown function exit 1" 1
qz -ex 'break nosuch.c:3' $BIN
expect "unknown file" '^error: No source file named nosuch\.c\.$'
qz -ex 'break basic.c:9999' $BIN
expect "line past the end" '^error: No line 9999 in file "basic.c"\.$'
qz -ex 'delete 7' $BIN
expect "delete unknown" '^error: No breakpoint number 7\.$'
qz -ex 'break square if nosuchvar == 1' -ex 'run' $BIN
expect "condition error reported" 'No symbol "nosuchvar" in current context'
