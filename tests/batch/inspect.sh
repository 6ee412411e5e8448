#!/bin/sh
# Inspecting state: ptype, whatis, x, display, set var, FILE::var and
# FUNC::var, info frame, backtrace full, registers, entry values, signal
# frames, a smashed stack, and expression errors.
. tests/lib.sh
BIN=$B/basic-O0

qz -ex 'break sum_list' -ex 'run' -ex 'ptype head' -ex 'whatis head' -ex 'ptype struct node' -ex 'whatis *head' -ex 'ptype struct nosuch' -ex 'whatis greeting' $BIN
expect "ptype expands a struct behind a pointer" '^type = struct node \{$'
expect "ptype members" '^    struct node \*next;$'
expect "ptype suffix" '^\} \*$'
expect "whatis" '^type = struct node \*$'
expect "whatis deref" '^type = struct node$'
expect "ptype unknown struct" '^error: No struct type named nosuch\.$'
expect "whatis const char *" '^type = const char \*$'

qz -ex 'break sum_list' -ex 'run' -ex 'x/4xw head' -ex 'x/2dg head' -ex 'x/s greeting' -ex 'x/2i $pc' -ex 'x/3xb &counter' -ex 'x' $BIN
expect "x/4xw" '^0x5555555[0-9a-f]+:	0x00000004	0x00000000	0x[0-9a-f]{8}	0x00005555$'
expect "x/2dg" '^0x5555555[0-9a-f]+:	4	93824992[0-9]+$'
expect "x/s" '^0x[0-9a-f]+:	"hello"$'
expect "x/i marks the pc" '^=> 0x[0-9a-f]+ <sum_list\+[0-9]+>:	'
expect "x/xb with a symbol" '^0x[0-9a-f]+ <counter>:	0xe8	0x03	0x00$'
expect "x continues" '^0x[0-9a-f]+ <counter\+3>:	0x00	0x00	0x00$'
qz -ex 'x/4x 0' $BIN
expect "x at an unreadable address" '^error: Cannot access memory at address 0x0$'

qz -ex 'break sum_list' -ex 'run' -ex 'display s' -ex 'display/x counter' -ex 'next' -ex 'info display' -ex 'undisplay 1' -ex 'next' -ex 'display nosuch' -ex 'info display' $BIN
expect "display after a step" '^2: /x counter = 0x3e8$'
expect "info display" '^2:   y  /x counter$'
# gdb -batch does not show a new display at once (a terminal would)
n=$(printf '%s\n' "$OUT" | grep -c '^1: s = ')
[ "$n" -eq 1 ] && pass "undisplay stops it" || fail "undisplay stops it" "$n displays of s"
expect "display of an unknown name: gdb's error" '^error: No symbol "nosuch" in current context\.$'
expect_not "display of an unknown name: no display made" 'nosuch$'

qz -ex 'break note_directory' -ex 'run' -ex 'set var counter = 7' -ex 'print counter' -ex 'set mtime = 5' -ex 'info args' -ex 'print counter = counter * 2' -ex 'print $rax = 3' -ex 'print $rax' -ex 'finish' $BIN
expect "set var" '^\$1 = 7$'
expect "set without var" '^mtime = 5$'
expect "assignment in print" '^\$2 = 14$'
expect "register assignment" '^\$4 = 3$'

qz -ex 'break note_directory' -ex 'run' -ex 'print basic.c::total' -ex "print 'basic.c'::counter" -ex 'print main::acc' -ex 'print nosuchfn::x' $BIN
expect "FILE::var" '^\$1 = 5$'
expect "quoted FILE::var" '^\$2 = 0$'
expect "FUNC::var from a caller's frame" '^\$3 = 30$'
expect "unknown scope" '^error: No symbol "nosuchfn" in current context\.$'

qz -ex 'break sum_list' -ex 'run' -ex 'bt full' -ex 'up' -ex 'info frame' $BIN
expect "bt full locals" '^        acc = 150$'
expect "info frame" '^Stack level 1, frame at 0x7fff[0-9a-f]+:$'
expect "info frame pc line" '^ rip = 0x5555555[0-9a-f]+ in main \(tests/fixtures/basic.c:63\); saved rip = 0x7ffff'
expect "info frame args" '^ Arglist at 0x7fff[0-9a-f]+, args: argc=1, argv=0x7fff[0-9a-f]+$'

qz -ex 'break square' -ex 'run' -ex 'info registers rip eflags cs fs_base' -ex 'info registers xmm0 st0 mxcsr' -ex 'info all-registers' $BIN
expect "info registers rip" '^rip            0x5555555[0-9a-f]+      0x5555555[0-9a-f]+ <square\+7>$'
expect "eflags decoded" '^eflags         0x[0-9a-f]+ +\[ [A-Z ]+\]$'
expect "segment register" '^cs             0x33                51$'
expect "fs_base" '^fs_base        0x7ffff'
expect "xmm union" '^xmm0           \{v8_bfloat16 = \{.*uint128 = 0x[0-9a-f]+\}$'
expect "st0" '^st0            [-0-9.e+a-z]+ +\(raw 0x[0-9a-f]{20}\)$'
expect "mxcsr flags" '^mxcsr          0x1f80              \[ IM DM ZM OM UM PM \]$'
expect "all-registers has x87 control" '^fctrl          0x37f               895$'

qz -ex 'break note_directory' -ex 'run' -ex 'bt 1' $B/basic-O2
expect "entry values in the frame line" '^#0  note_directory \(name=name@entry=0x[0-9a-f]+ "usr", mtime=mtime@entry=1000\)'

qz -ex 'break on_usr1' -ex 'handle SIGUSR1 nostop noprint' -ex 'run' -ex 'bt' -ex 'finish' $B/sig-O0
expect "signal frame in bt" '^#1  <signal handler called>$'
expect "bt through the signal frame to main" '^#[0-9]  0x[0-9a-f]+ in main \(\) at tests/fixtures/sig.c:1[67]$'
expect "finish out of a handler" '^<signal handler called>$'

qz -ex 'run' -ex 'bt' $B/smash-O0
expect "smashed stack: crash at the return" '^Program received signal SIGSEGV, Segmentation fault\.$'
expect "smashed return address shown" '^#1  0x6161616161616161 in \?\? \(\)$'
expect_not "backtrace stops at the bad address" '^#2 '

qz -ex 'print *(int *)0' -ex 'print nosuch' -ex 'print 1 / 0' -ex 'print (1 + ' -ex 'print 1 +* 2 )' $BIN
expect "null dereference" '^error: Cannot access memory at address 0x0$'
expect "unknown symbol" '^error: No symbol "nosuch" in current context\.$'
expect "division by zero" '^error: Division by zero$'
expect "syntax error at the end" "^error: A syntax error in expression, near \`'\\.$"
expect "syntax error points at the rest" "^error: A syntax error in expression, near \`\\)'\\.$"
