#!/bin/sh
# Source and code: list, info line, info source, disassemble, print basics
# and conditions on registers and globals.
. tests/lib.sh
BIN=$B/basic-O0

qz -ex 'list 10,12' -ex 'list' -ex 'list -' $BIN
expect "list A,B" '^10	};$'
expect "list A,B last" '^12	int counter = 0;$'
expect "list continues" '^13	static long total = 5;$'
n=$(printf '%s\n' "$OUT" | grep -c '^1[0-2]	')
[ "$n" -eq 6 ] && pass "list - goes back" || fail "list - goes back" "$n lines 10-12"

qz -ex 'list fact' $BIN
expect "list FUNC centres on its line" '^18	'
expect "list FUNC shows 10 lines" '^27	}$'
qz -ex 'list nosuch.c:3' $BIN
expect "list bad file" '^error: No source file named nosuch\.c\.$'

qz -ex 'break note_directory' -ex 'run' -ex 'list' $BIN
expect "list after a stop centres on it" '^26		return n \* fact\(n - 1\);$'

qz -ex 'info line fact' -ex 'info line 5' -ex 'info line basic.c:58' -ex 'info line 9999' $BIN
expect "info line FUNC" '^Line 23 of "tests/fixtures/basic.c" starts at address 0x[0-9a-f]+ <fact> and ends at 0x[0-9a-f]+ <fact\+[0-9]+>\.$'
expect "info line without code" '^Line 5 of "tests/fixtures/basic.c" is at address 0x[0-9a-f]+ <square> but contains no code\.$'
expect "info line FILE:LINE" '^Line 58 of "tests/fixtures/basic.c" starts at address '
expect "info line past the end" '^error: Line number 9999 is out of range for "tests/fixtures/basic.c"\.$'

qz -ex 'break sum_list' -ex 'run' -ex 'info line' -ex 'info source' $BIN
expect "info line at the stop" '^Line 4[5-7] of "tests/fixtures/basic.c" starts at address 0x5555'
expect "info source" '^Current source file is tests/fixtures/basic.c$'
expect "info source path" '^Located in /.*/tests/fixtures/basic.c$'
expect "info source lines" '^Contains 68 lines\.$'

qz -ex 'disassemble square' -ex 'break square' -ex 'run' -ex 'disassemble' -ex 'disassemble /r $pc' $BIN
expect "disassemble header" '^Dump of assembler code for function square:$'
expect "disassemble rows" '^   0x0000000000001169 <\+0>:	push'
expect "disassemble marks the pc" '^=> 0x0000555555555[0-9a-f]+ <\+[0-9]+>:	'
expect "disassemble end" '^End of assembler dump\.$'

qz -ex 'break work if $rdi == 5' -ex 'run' -ex 'print i' -ex 'print/x $pc' -ex 'print sink' -ex 'break 18 if sink > 10 && i < 7' -ex 'continue' -ex 'print i' -ex 'print $' -ex 'print $$2' $B/loop-O0 20
expect "condition on a register" '^Breakpoint 1, work \(i=5\) at tests/fixtures/loop.c:9$'
expect "print a parameter" '^\$1 = 5$'
expect "print/x \$pc" '^\$2 = 0x5555555551[0-9a-f]+$'
expect "condition on a global and a local" '^Breakpoint 2, main \(argc=2, argv=0x[0-9a-f]+\) at tests/fixtures/loop.c:18$'
expect "value history" '^\$5 = 5$'
expect "value history back" '^\$6 = 13$'

qz -ex 'print counter' -ex 'print greeting' -ex 'print &counter' $BIN
expect "print a global before run" '^\$1 = 0$'
expect "print a string global before run" '^\$2 = 0x[0-9a-f]+ "hello"$'
expect "print an address" '^\$3 = \(int \*\) 0x[0-9a-f]+ <counter>$'
