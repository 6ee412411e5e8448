#!/bin/sh
# Bad input gets a clear error and nothing is lost: missing or non-ELF
# programs, no debug info, unknown commands, bad locations, commands that
# need a process, a debuggee killed from outside, no process left behind.
. tests/lib.sh

qz -ex run /nonexistent/prog
expect "missing program" '^error: /nonexistent/prog: No such file or directory\.$'
expect_rc "missing program exit 1" 1

printf 'not a program\n' > $B/notelf
chmod +x $B/notelf
qz -ex run $B/notelf
expect "not ELF" 'not in executable format: file format not recognized'
expect_rc "not ELF exit 1" 1

head -c 100 $B/basic-O0 > $B/truncated
qz -ex 'break main' $B/truncated
expect "truncated ELF refused" '^error: '

qz -ex 'break main' -ex run -ex 'bt' -ex 'stepi' -ex 'info registers rip' -ex 'disassemble' $B/basic-nodebug
expect "no debug info said" '^\(No debugging symbols found in '
expect "break without debug info" '^Breakpoint 1 at 0x[0-9a-f]+$'
expect "stop without debug info" '^Breakpoint 1, 0x[0-9a-f]{16} in main \(\)$'
expect "bt without debug info" '^#0  0x[0-9a-f]{16} in main \(\)$'
expect "stepi without debug info" '^0x[0-9a-f]{16} in main \(\)$'
expect "disassemble without debug info" '^Dump of assembler code for function main:$'
qz -ex 'break basic.c:20' $B/basic-nodebug
expect "line break needs line info" '^error: No symbol table is loaded\.  Use the "file" command\.$'

# A pc in no module at all (jumped through a bad pointer): clear errors,
# no crash of qzdb.
qz -ex 'break main' -ex 'run' -ex 'set var $pc = 0x1000' -ex 'next' -ex 'step' -ex 'bt 1' -ex 'kill' $B/basic-O0
expect "next where no function is" '^error: Cannot find bounds of current function$'
expect "bt from nowhere" '^#0  0x0000000000001000 in \?\? \(\)$'
expect "still in control after it" '^\[Inferior 1 \(process [0-9]+\) killed\]$'

qz -ex 'frobnicate' $B/basic-O0
expect "unknown command" '^error: Undefined command: "frobnicate"\.  Try "help"\.$'
expect_rc "unknown command exit 1" 1
qz -ex 'info frobs' $B/basic-O0
expect "unknown info command" '^error: Undefined info command: "frobs"\.  Try "help info"\.$'
qz -ex 's' -ex 'n' -ex 'c' -ex 'finish' -ex 'bt' -ex 'kill' -ex 'stepi' -ex 'info registers' $B/basic-O0
expect "needs a process" '^error: The program is not being run\.$'
n=$(printf '%s\n' "$OUT" | grep -c 'not being run')
[ "$n" -eq 6 ] && pass "every command needing a process says so" || fail "every command needing a process says so" "$n of 6"
expect "bt without a process" '^error: No stack\.$'
expect "registers without a process" '^error: The program has no registers now\.$'
qz -ex 'info locals' -ex 'frame 1' $B/basic-O0
expect "locals without a process" '^error: No frame selected\.$'
expect "frame without a process" '^error: No stack\.$'
qz -ex 'break nosuch.c:3' -ex 'break nosuchfunc' -ex 'break basic.c:0x' -ex 'condition 9 x' -ex 'until nosuch' $B/basic-O0
expect "bad file" '^error: No source file named nosuch\.c\.$'
expect "bad function" '^error: Function "nosuchfunc" not defined\.$'
expect "bad breakpoint number" '^error: No breakpoint number 9\.$'
qz -ex 'break main if (((' $B/basic-O0
expect "bad condition" '^error: A syntax error in expression'
qz -ex 'help' -ex 'help break' -ex 'help info' $B/basic-O0
expect "help lists commands" '^break +-- Set a breakpoint at LOCATION'
expect "help CMD" '^Usage: break \[LOCATION\] \[if CONDITION\]$'
expect "help info lists subcommands" '^info breakpoints +-- '
qz -ex 'c' -ex 'cont' -ex 'b main' -ex 'i b' -ex 'tb square' -ex 'dis 1' -ex 'info b' $B/basic-O0
expect "abbreviations" '^2 +breakpoint +del  y '
qz -ex 'de' $B/basic-O0
expect "ambiguous abbreviation" '^error: Ambiguous command "de": delete, deps, detach, detect\.$'

# The debuggee killed from outside: reported, qzdb goes on.
cat > $B/kill.cmds <<CMDS
break tick
run
continue
info breakpoints
run 1
continue
CMDS
( sleep 1.5; kill -KILL $(ours spin-O0) ) &
qz -x $B/kill.cmds $B/spin-O0
wait
expect "killed from outside" '^Program terminated with signal SIGKILL, Killed\.$'
expect "qzdb goes on after the kill" '^Breakpoint 1, tick \(\) at tests/fixtures/spin.c:'
no_leftover "no process left after batch" "$B/spin-O0"

qz -ex 'break tick' -ex 'run' -ex 'quit' $B/spin-O0
no_leftover "quit kills the program" "$B/spin-O0"
qz -ex 'break tick' -ex 'run' -ex 'kill' $B/spin-O0
no_leftover "kill kills the program" "$B/spin-O0"

# Detach: the program runs on unpatched (an int3 left behind would kill it
# with SIGTRAP on the next tick).
rm -f $B/spin.out
qz -ex 'break tick' -ex "run 1 >$B/spin.out" -ex 'next' -ex 'detach' $B/spin-O0
expect "detach message" '^\[Inferior 1 \(process [0-9]+\) detached\]$'
i=0
while [ $i -lt 50 ] && ! grep -q 'done' $B/spin.out 2>/dev/null; do sleep 0.2; i=$((i + 1)); done
if grep -q '^done 3$' $B/spin.out; then
	pass "detached program runs on unpatched"
else
	fail "detached program runs on unpatched" "$(cat $B/spin.out 2>/dev/null | tr '\n' ' ')"
fi

# A hostile DIE tree below the top level: the first lexical block of
# dwarf_blocks' work() gets a DW_AT_sibling pointing at itself (libdwarf
# loops on one). qzdb checks each DIE as its walk passes it (not the whole
# tree at startup): the DIEs before it and the rest of the unit stay
# usable, the walk of that level ends there, nothing hangs.
SIBBIN=$B/dwarf_blocks-O0
SIBBAD=$B/dwarf_blocks-selfsib
if python3 - "$SIBBIN" "$SIBBAD" <<'PY'
import re, struct, subprocess, sys
src, dst = sys.argv[1], sys.argv[2]
info = subprocess.run(["readelf", "-wi", src], capture_output=True, text=True).stdout
# the first lexical block's offset and where its DW_AT_sibling sits
m = re.search(r"<2><([0-9a-f]+)>: Abbrev Number: \d+ \(DW_TAG_lexical_block\)\n(?:\s+<[0-9a-f]+>.*\n)*?\s+<([0-9a-f]+)>\s+DW_AT_sibling\s+: <0x([0-9a-f]+)>", info)
sec = subprocess.run(["readelf", "-SW", src], capture_output=True, text=True).stdout
s = re.search(r"\.debug_info\s+\S+\s+[0-9a-f]+\s+([0-9a-f]+)", sec)
cu = re.search(r"Compilation Unit @ offset (0x[0-9a-f]+|\d+):", info)
if not (m and s and cu):
    sys.exit(1)
die, at, cu_off = int(m.group(1), 16), int(m.group(2), 16), int(cu.group(1), 0)
b = bytearray(open(src, "rb").read())
pos = int(s.group(1), 16) + at
if struct.unpack_from("<I", b, pos)[0] != int(m.group(3), 16) - cu_off:
    sys.exit(1)      # not a ref4 where readelf said
struct.pack_into("<I", b, pos, die - cu_off)
open(dst, "wb").write(b)
import os
os.chmod(dst, 0o755)
PY
then
	qz -ex 'break work' -ex run -ex 'info locals' -ex bt -ex 'ptype main' -ex 'break 19' \
		-ex continue -ex 'info locals' -ex continue $SIBBAD
	expect "self-pointing DW_AT_sibling: the stop, with the parameter before it" '^Breakpoint 1, work \(n=4\) at .*dwarf_blocks\.c:[0-9]+$'
	expect "self-pointing DW_AT_sibling: the rest of the unit is read" '^type = int \(void\)$'
	expect "self-pointing DW_AT_sibling: the local before it" '^total = '
	expect_not "self-pointing DW_AT_sibling: nothing after it" '^b = '
	expect "self-pointing DW_AT_sibling: the program runs to its end" 'exited normally'
	expect_rc "self-pointing DW_AT_sibling: no hang, no crash" 0
	qz -ex 'break 19' -ex run -ex 'info locals' $SIBBIN
	expect "the same binary undamaged: the second block's local" '^b = '
else
	fail "self-pointing DW_AT_sibling: the binary could be patched" "readelf's layout not understood"
fi
