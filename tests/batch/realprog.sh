#!/bin/sh
# A real program nobody here wrote, built from source in the test run:
# jansson's json_process.c (Debian's libjansson4 ships it as an example;
# it is the test driver of the jansson library), at -O0. Its use_conf()
# formats `TEST_DIR/input` into `char filename[1024]` with sprintf, so a
# test directory name of 1,100 characters smashes the stack and the
# function crashes when it returns. The slice from the crash holds the
# sprintf, info overflows names it and the buffer, explain names them,
# suppressing the sprintf avoids the crash.
. tests/lib.sh
SRC=/usr/share/doc/libjansson4/examples/json_process.c
BIN=$B/json_process-O0
if [ ! -f $SRC ] || [ ! -f /usr/include/jansson.h ]; then
	skip "real program json_process" "needs $SRC (libjansson4) and jansson.h (libjansson-dev)"
	exit 0
fi
[ $BIN -nt $SRC ] || gcc -g -O0 -o $BIN $SRC -ljansson || { fail "json_process builds" "gcc failed"; exit 0; }
L=$(grep -n 'sprintf(filename, "%s%cinput", test_path, dir_sep);' $SRC | cut -d: -f1)
DIR=/tmp/qzdb-no-such-dir-$(printf '%01100d' 0 | tr 0 d)   # 1,122 bytes: with "/input" 1,129

timeout 60 sh -c '"$0" "$1" >/dev/null 2>&1' $BIN "$DIR" 2>/dev/null; RC=$?
[ $RC = 139 ] && pass "json_process crashes on a long test directory" ||
	fail "json_process crashes on a long test directory" "status $RC"

qz -ex 'break use_conf' -ex run -ex 'record on' -ex continue -ex slice -ex 'info slice 1' \
	-ex 'info overflows' -ex explain $BIN "$DIR"
expect "json_process: the crash is use_conf's return" "^0x[0-9a-f]+ in use_conf \(test_path="
expect "json_process: the slice holds the sprintf" "^  json_process.c:$L #1$"
expect "json_process: overflow names the statement and the buffer" \
	"^json_process.c:$L #1 \(in sprintf\) wrote 1,129 bytes into filename\[1024\] \(a local of use_conf\): 105 past its end, over "
expect "json_process: explain names the writer of the return address" \
	"^From the recording: the function returned through the return address of use_conf \(the text \"dddddddd\"\), last written by json_process.c:$L #1 "
expect "json_process: explain names the overflow as the cause" \
	"^Those bytes were written past the end of an object: json_process.c:$L #1 \(in sprintf\) wrote 1,129 bytes into filename\[1024\]"
qz -ex "suppress json_process.c:$L" -ex run $BIN "$DIR"
expect "json_process: suppressing the sprintf" "^Suppressed json_process.c:$L #1$"
expect "json_process: no crash, the program's own error" '^\[Inferior 1 \(process [0-9]+\) exited with code 02\]$'
