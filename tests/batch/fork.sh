#!/bin/sh
# Fork and exec: the parent is followed by default and the child runs free
# of breakpoints; follow-fork-mode child; exec loads the new program and
# its breakpoints hit.
. tests/lib.sh
BIN=$B/forkit-O0

# Default: follow the parent. The child's copy of the int3s is cleaned, so
# it runs to its end (all its output) and the parent still stops.
qz -ex 'break child_work' -ex 'break parent_work' -ex run -ex bt -ex c $BIN
expect "detach from the child" '^\[Detaching after fork from child process [0-9]+\]$'
for i in 1 2 3 4 5; do
	expect "child line $i" "^child line $i\$"
done
expect "child completes" '^child sum 15$'
expect_not "child breakpoint not hit" 'Breakpoint 1, child_work'
expect_not "child not killed by a trap" 'SIGTRAP'
expect "parent breakpoint hit" '^Breakpoint 2, parent_work \(st=1792\) at tests/fixtures/forkit.c:[0-9]+$'
expect "parent saw the exit code" '^parent saw 7$'
expect "parent exits" '^\[Inferior 1 \(process [0-9]+\) exited normally\]$'
no_leftover "no leftover (parent mode)" $BIN

# follow-fork-mode child: the child stops at its breakpoint.
qz -ex 'set follow-fork-mode child' -ex 'show follow-fork-mode' -ex 'break child_work' \
   -ex run -ex bt -ex next -ex c $BIN
expect "show follow-fork-mode" '^Debugger response to a program call of fork or vfork is "child"\.$'
expect "attaching to the child" '^\[Attaching after Thread 0x[0-9a-f]+ \(LWP [0-9]+\) fork to child process [0-9]+\]$'
expect "parent detached" '^\[Detaching after fork from parent process [0-9]+\]$'
expect "child hits its breakpoint" '^Thread 2\.1 "forkit-O0" hit Breakpoint 1, child_work \(n=5\) at tests/fixtures/forkit.c:[0-9]+$'
expect "child bt" '^#1  0x[0-9a-f]{16} in main \(argc=1, argv=0x[0-9a-f]+\) at tests/fixtures/forkit.c:[0-9]+$'
expect "next in the child" '^15	+for '
expect "parent finished unaffected" '^parent saw 7$'
expect "child exit code" '^\[Inferior 2 \(process [0-9]+\) exited with code 07\]$'
no_leftover "no leftover (child mode)" $BIN

# system() and vfork share the parent's memory until they exec: no int3 may
# be there meanwhile, and the breakpoints come back after.
qz -ex 'break child_work' -ex 'break parent_work' -ex 'run vfork' -ex c $BIN
expect "vfork detach" '^\[Detaching after vfork from child process [0-9]+\]$'
expect "system() runs its shell" '^from-shell$'
expect "system() status" '^system returned 0$'
expect "vfork child runs its breakpointed code" '^child line 2$'
expect "vfork child execs" '^vfork child exec$'
expect_not "vfork child breakpoint not reported" 'Breakpoint 1, child_work'
expect "breakpoints back after the vfork" '^Breakpoint 2, parent_work \(st=0\) at tests/fixtures/forkit.c:[0-9]+$'
expect "vfork status" '^vfork child status 0$'
no_leftover "no leftover (vfork)" $BIN

qz -ex 'set follow-fork-mode sideways' $BIN
expect "bad follow-fork-mode" '^error: Undefined item: "sideways"\.$'
expect_rc "bad follow-fork-mode status" 1

# exec: the new program's symbols are loaded and `break main` is found
# again in it.
qz -ex 'break main' -ex "run exec $B/basic-O0" -ex c -ex bt -ex 'next' -ex 'info line' -ex c $BIN
expect "first main" '^Breakpoint 1, main \(argc=3, argv=0x[0-9a-f]+\) at tests/fixtures/forkit.c:[0-9]+$'
expect "exec message" "^process [0-9]+ is executing new program: .*/tests/build/basic-O0\$"
expect "main of the new program" '^Breakpoint 1, main \(argc=1, argv=0x[0-9a-f]+\) at tests/fixtures/basic.c:53$'
expect "bt in the new program" '^#0  main \(argc=1, argv=0x[0-9a-f]+\) at tests/fixtures/basic.c:53$'
expect "next in the new program" '^55	'
expect "new program runs to the end" '^acc=.* argc=1$'
no_leftover "no leftover (exec)" $BIN
