#!/bin/sh
# explain: the last stop (a NULL dereference, an abort inside free called
# from the user's code, a smashed return address, a breakpoint), a slice's
# chain back to its roots, one instance's dependences with the outcome of
# the conditions they ran under; and clear errors on bad input.
. tests/lib.sh
BIN=$B/bug_nullp-O0

qz -ex explain $BIN
expect_rc "explain with no process fails" 1
expect "explain with no process says so" 'error: The program is not being run: there is no stop to explain'

qz -ex 'break find_entry' -ex run -ex explain $BIN
expect "explain at a breakpoint" 'reached a breakpoint you set; the statement there has not run yet'
expect "explain at a breakpoint: where" 'stopped in find_entry \(bug_nullp.c:18\), the statement'
expect "explain at a breakpoint: the statement" '^    for \(int i = 0; i < 3; i\+\+\)$'

qz -ex run -ex explain $BIN
expect "explain a SIGSEGV: the signal" 'received signal SIGSEGV \(Segmentation fault\)'
expect "explain a SIGSEGV: NULL plus a field offset" 'used the address 0x8, which is NULL plus a small offset'
expect "explain a SIGSEGV: where" 'running in main \(bug_nullp.c:30\), the statement'
expect "explain a SIGSEGV: the statement" '^    sum \+= e->value;$'

qz -ex run -ex explain $B/bug_dfree-O0
expect "explain an abort: the signal" 'SIGABRT \(Aborted\)'
expect "explain an abort: what abort means" 'double free'
expect "explain an abort: the library function called" 'inside free, a function of libc\.so\.6'
expect "explain an abort: the user's call site" 'called from [a-z_]+ \(bug_dfree\.c:[0-9]+\), the statement'
expect "explain an abort: the call site's text" '^    free\('

qz -ex run -ex explain $B/bug_stack-O0
expect "explain a smashed return: non-canonical" 'non-canonical'
expect "explain a smashed return: the closing brace" 'At a closing brace the function returns'

qz -ex 'break main' -ex run -ex 'record on' -ex continue -ex 'slice bug_nullp.c:30 e' \
	-ex 'explain 1 bug_nullp.c:28' -ex 'explain 1 bug_nullp.c:21' \
	-ex 'explain 1 bug_nullp.c:19#7' -ex 'explain slice 1' $BIN
expect "explain an edge: the returned value" '^    uses the value returned by find_entry at bug_nullp.c:21#1, which ran only because the condition at bug_nullp.c:18#[0-9]+ was false'
expect "explain an edge: the argument" 'uses k, whose value was set at bug_nullp.c:27#3'
expect "explain an edge: return NULL ran because the loop ended" '^bug_nullp.c:21#1 \(return NULL;\)$'
expect "explain an edge: the key test ran because the loop test was true" '^    It ran only because the condition at bug_nullp.c:18#7 was true\.$'
expect "explain an edge: i++ ran because the key did not match" 'uses i, whose value was set at bug_nullp.c:18#7, which ran only because the condition at bug_nullp.c:19#6 was false'
expect "explain slice: the question" 'Slice 1 answers: which statements that ran could have affected bug_nullp.c:30#3 \(criterion: bug_nullp.c:30 e\)'
expect "explain slice: starts at the criterion" '^1\. bug_nullp.c:30#3 \(sum \+= e->value;\)$'
expect "explain slice: e from line 28, returned by find_entry" '^    uses e \(set at bug_nullp.c:28#3\), whose value was returned by find_entry at bug_nullp.c:21#1, which ran only because the condition at bug_nullp.c:18#8 was false\.$'
expect "explain slice: the callee's argument" 'uses an argument that main passed to find_entry at bug_nullp.c:28#3'
expect "explain slice: roots" '^Roots \(where the chain begins: they depend on nothing recorded\): bug_nullp.c:27#1$'
expect_not "explain slice: no error" 'error:'

qz -ex 'break main' -ex run -ex 'record on' -ex continue -ex 'slice' -ex 'explain 1 bug_nullp.c:30' $BIN
expect "explain: the if on the key's length was true" 'It ran only because the condition at bug_nullp.c:29#3 was true'

qz -ex 'explain slice 1' $BIN
expect "explain slice with no slices" 'error: No slice number 1'
qz -ex 'break main' -ex run -ex 'record on' -ex continue -ex 'slice' -ex 'explain slice 9' $BIN
expect "explain slice: bad id" 'error: No slice number 9 \("info slices" lists them\)'
qz -ex 'explain slice x' $BIN
expect "explain slice: not a number" 'error: Expected a slice number, not "x"'
qz -ex 'break main' -ex run -ex 'record on' -ex continue -ex 'slice' -ex 'explain 1 bug_nullp.c:5' $BIN
expect "explain: a line not in the slice" 'error: bug_nullp.c:5 is not in slice 1'
qz -ex 'break main' -ex run -ex 'record on' -ex continue -ex 'slice' -ex 'explain 1 bug_nullp.c:30#0' $BIN
expect "explain: instance 0 is refused" 'error: Expected FILE:LINE or FILE:LINE#N, not "bug_nullp.c:30#0"'
qz -ex 'break main' -ex run -ex 'record on' -ex continue -ex 'slice' -ex 'explain 1' $BIN
expect "explain ID without a statement" 'error: Usage: explain ID FILE:LINE\[#N\]'
qz -ex 'break main' -ex run -ex checkpoint -ex 'record on' -ex continue -ex 'slice' -ex 'rollback 1' \
	-ex 'explain slice 1' $BIN
expect "explain: a slice whose recording a rollback cut back" 'error: Slice 1 was computed on a recording that has since been cut back'
qz -ex 'explain what' $BIN
expect "explain: unknown argument" 'error: Usage: explain \[--json\] \| explain slice ID'
expect_rc "explain: unknown argument fails" 1
qz -ex run -ex kill -ex explain $BIN
expect "explain after kill" 'error: The program is not being run'
qz -ex run -ex continue -ex explain $BIN
expect "explain after a fatal signal ended it" 'ended by signal SIGSEGV'
no_leftover "explain leaves no process" $BIN

# -O2 keeps variables in registers: DWARF's location list names them
qz -ex 'break main' -ex run -ex 'record on' -ex continue -ex slice -ex 'explain slice 1' $B/bug_dfree-O2
expect "explain names a register variable" 'uses backup \(a variable the compiler keeps in register r[0-9a-z]+\), set at bug_dfree\.c:25#1'

# a byte-by-byte copy over a return address: one sentence, not eight; a
# statement's later instances are not explained again
qz -ex 'break main' -ex run -ex 'record on' -ex continue -ex 'slice $pc' -ex 'explain slice 1' $B/ov_ret-O0
expect "explain groups the pieces of one value" '^    uses the return address of rename_one, set piece by piece by ov_ret.c:[0-9]+ #30-#37 \(8 instances\)\.$'
expect_count "explain says each statement once" 1 '^[0-9]+\. ov_ret.c:[0-9]+#[0-9]+ \(dst\[i\] = src\[i\];\)$'
expect "explain counts what it passed over" '^\([0-9]+ more instances of the statements above were passed over'
