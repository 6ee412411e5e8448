#!/bin/sh
# The recording asked about memory (issue 23): `info overflows` names each
# write that ran past its object (a global by sprintf, a local by a
# byte-by-byte copy loop over the caller's saved registers and return
# address); `who-wrote` gives each byte's last writer with the program's
# names; `info slice` stays compact on long loops.
. tests/lib.sh
F=tests/fixtures
line() { grep -nF -- "$2" "$F/$1" | head -1 | cut -d: -f1; }
rec() { qz -ex 'break main' -ex run -ex 'record on' -ex continue "$@"; }

L_SPR=$(line ov_calc.c 'sprintf(genstr,')
rec -ex 'info overflows' -ex 'who-wrote arrays' -ex 'who-wrote genstr[76]@8' \
	-ex 'who-wrote names[1]' $B/ov_calc-O0
expect "calc overflow: statement, library call, size, object" \
	"^ov_calc.c:$L_SPR #1 \(in sprintf\) wrote 159 bytes into genstr\[80\]: 79 past its end, over arrays, then 71 bytes past the end of the program's data$"
expect_count "calc: one overflow" 1 'past its end'
expect "calc who-wrote arrays: sprintf's statement" "^  arrays, 8 bytes: ov_calc.c:$L_SPR#1 \(in __[a-z0-9_]+\)$"
expect "calc who-wrote across an object's end: genstr's part" "^  genstr\[76\], 4 bytes: ov_calc.c:$L_SPR#1 \(in "
expect "calc who-wrote across an object's end: the next object" "^  arrays, 4 bytes: ov_calc.c:$L_SPR#1 "
expect "calc who-wrote: bytes nobody wrote while recording" '^  names\[1\], 8 bytes: not written while recording$'

L_CPY=$(line ov_ret.c 'dst[i] = src[i];')
rec -ex explain $B/ov_calc-O0
expect "explain calc: the pointer came from arrays, now text" \
	'^From the recording: the address it used was loaded from arrays \(the text "of a mod"\), last written by ov_calc.c:'"$L_SPR"' #1 \(`sprintf\(genstr,'
expect "explain calc: the overflow is the cause" \
	"^Those bytes were written past the end of an object: ov_calc.c:$L_SPR #1 \(in sprintf\) wrote 159 bytes into genstr\[80\]: 79 past its end, .*That write is the cause to fix\.$"

# at the crash rsp points at the return address `ret` read
rec -ex 'info overflows' -ex 'who-wrote *(long *)($rsp - 8)' -ex 'who-wrote *(long *)$rsp' \
	-ex 'slice' -ex 'info slice 1' -ex 'info slice 1 full' $B/ov_ret-O0
expect "ret overflow: the loop's instances, the local, what it ran over" \
	"^ov_ret.c:$L_CPY #6-#56 wrote 51 bytes into name\[16\] \(a local of rename_one\): 35 past its end, over rename_one's saved rbp, the return address of rename_one, "
expect "ret who-wrote: the saved rbp byte by byte" "^  rename_one's saved rbp, 8 bytes: ov_ret.c:$L_CPY#22-#29$"
expect "ret who-wrote: the return address byte by byte" "^  the return address of rename_one, 8 bytes: ov_ret.c:$L_CPY#30-#37$"
expect "ret compact info slice: a run with its count" "^  ov_ret.c:$L_CPY #22-#37 \(16\)$"
expect_not "ret compact info slice: no long lists" '#[0-9]+,#[0-9]+,#[0-9]+,#[0-9]+,#[0-9]+,#[0-9]+,#[0-9]+,#[0-9]+,#[0-9]+'
rec -ex explain $B/ov_ret-O0
expect "explain ret: the return address and its byte-wise writers" \
	'^From the recording: the function returned through the return address of rename_one \(the text "for-the-"\), last written by ov_ret.c:'"$L_CPY"' #30-#37 \(`dst\[i\] = src\[i\];`\), one byte at each instance\.$'
expect "explain ret: the local array written past its end" \
	"^Those bytes were written past the end of an object: ov_ret.c:$L_CPY #6-#56 wrote 51 bytes into name\[16\] \(a local of rename_one\)"
qz -ex 'break main' -ex run -ex 'who-wrote arrays' $B/ov_calc-O0
expect "who-wrote without a recording" '^error: Nothing has been recorded'
rec -ex 'who-wrote $rax' -ex 'who-wrote' $B/ov_calc-O0
expect "who-wrote of a register" 'is a register: who-wrote looks at memory'
expect "who-wrote without an argument" '^error: Usage: who-wrote'
rec -ex 'info overflows' $B/sl_accum-O0
expect "no overflow in a correct program" '^No recorded write ran past the object it started in'
rec -ex 'who-wrote *(char *)&arrays@12' $B/ov_calc-O0
expect ".bss past the last object is named, not called a library's" \
	"^  arrays\+8 \(past the end of arrays \(8 bytes\), in the rest of \.bss's last page\), 4 bytes: ov_calc.c:$L_SPR#1 "
rec -ex 'slice ov_ret.c:21 $rip' -ex 'info slice 1' $B/ov_ret-O0
expect "\$rip as the criterion of a ret: the return address's writers" "^  ov_ret.c:$L_CPY #30,#31,#32,#33,#34,#35,#36,#37$"

# deps groups a copy loop's edges; --json for info slice, deps, explain
rec -ex 'slice $pc' -ex 'deps 1 ov_ret.c:21' -ex 'deps 1 ov_ret.c:21 --json' -ex 'info slice 1 --json' \
	-ex 'explain --json' $B/ov_ret-O0
expect "deps: one line for the eight bytes" "^ov_ret.c:21#2 -> ov_ret.c:$L_CPY#30-#37 data the return address of rename_one \(8 edges\)$"
for what in deps slice explain; do
	case $what in
	deps) j=$(printf '%s\n' "$OUT" | grep '^{"from"') ;;
	slice) j=$(printf '%s\n' "$OUT" | grep '^{"slice"') ;;
	explain) j=$(printf '%s\n' "$OUT" | grep '^{"explain"') ;;
	esac
	if [ -n "$j" ] && printf '%s\n' "$j" | python3 -m json.tool >/dev/null 2>&1; then
		pass "$what --json is valid JSON"
	else
		fail "$what --json is valid JSON" "$j"
	fi
done
expect "deps --json names the place" '"through": "the return address of rename_one"'
expect "info slice --json lists every instance" "\"statement\": \"ov_ret.c:$L_CPY\", \"instances\": \[30, 31, 32, 33, 34, 35, 36, 37\]"

# a heap block: glibc's chunk sizes give its usable bytes; the loop's
# `i <= n` writes the next chunk's size field, and malloc aborts later
rec -ex 'info overflows' -ex explain $B/bug_heap-O0
expect "heap overflow: the loop, the block, malloc's header" \
	'^bug_heap.c:14 #6-#12 wrote 28 bytes into the heap block at 0x[0-9a-f]+ \(24 usable bytes\) \(allocated at bug_heap.c:12#2\): 4 past its end, over malloc.s size field of the heap block at 0x[0-9a-f]+$'
expect "explain an abort in malloc: the write past the block" \
	'^From the recording: a write ran past a malloc block into the bookkeeping malloc keeps beside it: bug_heap.c:14 #6-#12 '
