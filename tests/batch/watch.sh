#!/bin/sh
# Watchpoints (core/target/watch.c) on tests/fixtures/watchme.c: hardware watch,
# rwatch and awatch on globals, struct fields, a local (deleted when its
# frame exits), 8- and 16-byte and unaligned ranges, the software fallback,
# interplay with breakpoints, next, libc writes and displaced instructions,
# the breakpoint-table commands, and bad input; and on
# tests/fixtures/pwsegv.c, a program with its own SIGSEGV handler and
# mprotect/munmap/mmap/read calls on the watched pages.
#
# Every check runs twice: with the mechanism the machine offers (debug
# registers where they fire, else page protection), then with debug
# registers forced off (page protection, core/target/pagewatch.c), so every
# machine tests the fallback; the two passes must print the same.
. tests/lib.sh
BIN=$B/watchme-O0
SEGV=$B/pwsegv-O0
HIT='^main \(argc=1, argv=0x[0-9a-f]+\) at tests/fixtures/watchme.c'

# How the second pass turns the debug registers off: "env" (the temporary
# platform stub: debug registers only with QZ_TMP_DR set) or "maint"
# (-ex 'maint set debug-registers off', once core/proc/platform.c has it).
NO_DR=maint

PFX=""
MODE=default
pass() { echo "PASS $PFX$1"; }
fail() { echo "FAIL $PFX$1: $2"; }
qz() {
	if [ $MODE = default ]; then
		OUT=$(timeout 60 $QZDB --batch "$@" 2>&1 </dev/null)
	elif [ $NO_DR = maint ]; then
		OUT=$(timeout 60 $QZDB --batch -ex 'maint set debug-registers off' "$@" 2>&1 </dev/null)
	else
		OUT=$(env -u QZ_TMP_DR timeout 60 $QZDB --batch "$@" 2>&1 </dev/null)
	fi
	RC=$?
}
# keep NAME: save this run's output (process ids masked) to compare passes.
keep() {
	printf '%s\n' "$OUT" | sed -E 's/process [0-9]+/process N/' >"$B/watch-$MODE-$1.out"
}

checks() {
qz -ex 'break main' -ex run -ex 'watch total' -ex c -ex c -ex 'info breakpoints' $BIN
expect "global announce" '^Hardware watchpoint 2: total$'
expect "global first change" '^Old value = 0$'
expect "global new value" '^New value = 1$'
expect "global second change" '^New value = 3$'
expect "global stops after the write" "$HIT:41\$"
expect "global source line" '^41[[:space:]]+ticks \+= i;$'
expect_not "global unchanged write is silent" '^New value = 0$'
expect "global info row" '^2 +hw watchpoint +keep y {22}total$'
expect "global info hits" 'breakpoint already hit 2 times$'
expect_rc "global exit status" 0
keep global

qz -ex 'break main' -ex run -ex 'watch total' -ex c -ex c -ex c -ex c -ex c $BIN
expect "global last change" '^New value = 13$'
expect "global stop after bump" "$HIT:45\$"
expect "global runs to exit" '^\[Inferior 1 \(process [0-9]+\) exited normally\]$'

qz -ex 'break main' -ex run -ex 'watch pt.y' -ex 'watch -l pt.x' -ex c -ex c -ex c $BIN
expect "field -location announce" '^Hardware watchpoint 3: -location pt.x$'
expect "field x first" '^Hardware watchpoint 3: -location pt.x$'
expect "field stop in move" '^move \(p=0x[0-9a-f]+ <pt>, dx=3\) at tests/fixtures/watchme.c:32$'
expect "field y value" '^New value = 6$'
expect "field y stop" '^33	'

qz -ex 'break move' -ex run -ex 'watch p->y' -ex 'info watchpoints' -ex c -ex c -ex c $BIN
expect "through a pointer" '^Hardware watchpoint 2: p->y$'
expect "through a pointer hit" '^New value = 6$'
expect "through a pointer, local p: deleted at return" '^Watchpoint 2 deleted because the program has left the block in$'

qz -ex 'break bump' -ex run -ex 'watch acc' -ex c -ex c -ex c -ex c -ex 'info breakpoints' -ex c $BIN
expect "local announce" '^Hardware watchpoint 2: acc$'
expect "local change" '^New value = 13$'
expect "local deleted" '^Watchpoint 2 deleted because the program has left the block in$'
expect "local deleted, second line" '^which its expression is valid\.$'
expect "local stop in the caller" "$HIT:44\$"
expect_not "local gone from the table" '^2 +hw watchpoint'
expect "local then runs to exit" 'exited normally'
keep local

qz -ex 'break main' -ex run -ex 'rwatch reads' -ex 'awatch wide' -ex c -ex c -ex c -ex c -ex c -ex c -ex 'info breakpoints' $BIN
expect "rwatch announce" '^Hardware read watchpoint 2: reads$'
expect "awatch announce" '^Hardware access \(read/write\) watchpoint 3: wide$'
expect "rwatch value" '^Value = 0$'
keep rwatch
expect "rwatch stop mid-line" '^0x[0-9a-f]+ in main \(argc=1, argv=0x[0-9a-f]+\) at tests/fixtures/watchme.c:42$'
expect "awatch 8-byte write" '^New value = 1234605616436508552$'
expect "info read watchpoint row" '^2 +read watchpoint keep y {22}reads$'
expect "info acc watchpoint row" '^3 +acc watchpoint  keep y {22}wide$'
expect "info wide Type column" '^Num +Type {12}Disp Enb Address {12}What$'

qz -ex 'break main' -ex run -ex 'watch pair' -ex c -ex c $BIN
expect "16-byte range: second half" '^New value = \{0, 7\}$'
expect "16-byte range: first half" '^New value = \{9, 7\}$'

qz -ex 'break main' -ex run -ex 'watch *(int *)((char *)&pair + 6)' -ex c -ex c $BIN
expect "unaligned range split" '^New value = 458752$'
expect "unaligned range: unchanged write silent" 'exited normally'

qz -ex 'break 48' -ex run -ex 'watch pair' -ex c $BIN
expect "write in a displaced instruction" "$HIT:49\$"

qz -ex 'break 50' -ex run -ex 'watch pt.tag' -ex 'watch pt.x' -ex c -ex bt $BIN
expect "memset in libc: old value" '^Old value = 4$'
expect "memset in libc: new value" '^New value = 0$'
if libc_dbg; then   # gdb's shape with libc6-dbg
	expect "memset in libc: stops in libc" '^__memset_[a-z0-9_]+ \(\) at ../sysdeps/x86_64/multiarch/memset-vec-unaligned-erms.S:[0-9]+$'
else
	expect "memset in libc: stops in libc" '^0x[0-9a-f]+ in .* from /lib/x86_64-linux-gnu/libc.so.6$'
fi
expect "memset in libc: every watchpoint the write hit" '^Hardware watchpoint 3: pt.x$'
expect "memset in libc: bt reaches main" '^#1  0x[0-9a-f]+ in main \(argc=1, argv=0x[0-9a-f]+\) at tests/fixtures/watchme.c:50$'

# memset's masked vector store over pt also covers the bytes of a value
# next to it (ticks, at -O0): some CPUs fire that value's register too.
# Every fired register is checked: pt.tag's change is reported, ticks'
# unchanged value is not (gdb checks one and may miss pt.tag).
qz -ex 'break 50' -ex run -ex 'watch ticks' -ex 'watch pt.tag' -ex c $BIN
expect "masked store: the changed value reported" '^New value = 0$'
expect_not "masked store: the unchanged neighbour silent" '^Old value = 6$'

qz -ex 'break main' -ex run -ex 'watch total' -ex next -ex next -ex next -ex next -ex next -ex next -ex next $BIN
expect "next stops at the watchpoint" '^Hardware watchpoint 2: total$'
expect "next: watch report has the frame" "$HIT:41\$"

qz -ex 'break move' -ex 'break main' -ex run -ex 'watch ticks' -ex c -ex c -ex c -ex c -ex c $BIN
expect "breakpoint and watchpoint: watch" '^New value = 6$'
expect "breakpoint and watchpoint: breakpoint" '^Breakpoint 1, move \('

qz -ex 'break main' -ex run -ex 'set can-use-hw-watchpoints 0' -ex 'show can-use-hw-watchpoints' -ex 'watch total' -ex c -ex 'info breakpoints' $BIN
expect "software announce" '^Watchpoint 2: total$'
expect_not "software is not hardware" '^Hardware watchpoint'
expect "software setting shown" "^Debugger's willingness to use watchpoint hardware is 0\\.\$"
expect "software hit" '^New value = 1$'
expect "software stop" "$HIT:41\$"
expect "software info row" '^2 +watchpoint +keep y {22}total$'

qz -ex 'break main' -ex run -ex 'watch pair' -ex 'watch wide' -ex 'watch total' -ex 'watch pt.y' -ex 'rwatch reads' -ex c -ex c -ex c -ex c -ex c $BIN
expect "out of registers: said so" '^Not enough free debug registers for pt.y \(it needs 1 debug register, 4 of 4 are in use\): using a software watchpoint'
expect "out of registers: software" '^Watchpoint 5: pt.y$'
expect "out of registers: rwatch refused" '^error: Cannot set a hardware read/access watchpoint on reads: it needs 1 debug register, 4 of 4 are in use\.$'
expect "out of registers: software hit" '^Watchpoint 5: pt.y$'
expect "out of registers: hardware still hit" '^New value = 13$'
expect_rc "out of registers: exit status" 1

qz -ex 'break main' -ex run -ex 'watch pair[0]@5' -ex c $BIN
expect "too large: said so" '^Not enough free debug registers for pair\[0\]@5 \(it needs more than the 4 debug registers\): using a software watchpoint'
expect "too large: software" '^Watchpoint 2: pair\[0\]@5$'
expect "too large: hit" '^New value = \{0, 0, 0, 0, 4294967296\}$'

qz -ex 'break main' -ex run -ex 'watch *(int *)0' -ex c $BIN
expect "unreadable now: set anyway, as gdb" '^Hardware watchpoint 2: \*\(int \*\)0$'
expect "unreadable now: runs on" 'exited normally'
expect_rc "unreadable now: exit status" 0

qz -ex 'watch ticks' -ex 'info breakpoints' -ex run -ex c -ex run -ex c -ex 'info breakpoints' $BIN
expect "before run: hardware" '^Hardware watchpoint 1: ticks$'
expect "before run: narrow Address" '^1 +hw watchpoint +keep y {14}ticks$'
expect "before run: hit" '^New value = 3$'
expect "rerun: hit counts start again" 'breakpoint already hit 2 times$'

qz -ex 'break main' -ex run -ex 'watch pt.x' -ex 'watch pt.y' -ex 'disable 2' -ex 'break 46' -ex c -ex 'enable 2' -ex 'delete 3' -ex c -ex c $BIN
expect "disabled watchpoint silent" '^Hardware watchpoint 3: pt.y$'
expect_not "disabled watchpoint: no hit" '^New value = 3$'
expect "enabled again: old value re-read" '^Old value = 3$'
expect "enabled again: hit" '^New value = 7$'
expect_not "deleted watchpoint silent" '^New value = 14$'

qz -ex 'break main' -ex run -ex 'watch ticks if ticks > 10' -ex c -ex 'info breakpoints' $BIN 9
expect "condition" '^New value = 15$'
expect "condition row" '^	stop only if ticks > 10$'
keep condition
qz -ex 'break main' -ex run -ex 'watch ticks' -ex 'ignore 2 3' -ex c $BIN 9
expect "ignore" '^New value = 10$'

# detach clears the debug registers (one left armed would kill the program
# with SIGTRAP at its next write of ticks)
rm -f $B/spin-watch.out
qz -ex 'break tick' -ex "run 1 >$B/spin-watch.out" -ex 'watch ticks' -ex 'detach' $B/spin-O0
expect "detach with a watchpoint" '^\[Inferior 1 \(process [0-9]+\) detached\]$'
i=0
while [ $i -lt 100 ] && ! grep -q 'done' $B/spin-watch.out 2>/dev/null; do sleep 0.2; i=$((i + 1)); done
if grep -q '^done 3$' $B/spin-watch.out; then
	pass "detached program runs on without debug registers"
else
	fail "detached program runs on without debug registers" "$(tr '\n' ' ' <$B/spin-watch.out 2>/dev/null)"
fi

# bad input
qz -ex 'watch 3' $BIN
expect "constant" "^error: Cannot watch constant value \`3'\\.\$"
expect_rc "constant exit status" 1
qz -ex 'watch' $BIN
expect "no expression" '^error: Argument required \(expression to compute\)\.$'
qz -ex 'watch nosuch' $BIN
expect "unknown variable" '^error: No symbol "nosuch" in current context\.$'
qz -ex 'watch total +' $BIN
expect "syntax error" '^error: A syntax error in expression'
qz -ex 'set can-use-hw-watchpoints 0' -ex 'rwatch total' -ex 'awatch total' $BIN
expect "rwatch with hardware off" "^error: Can't set read/access watchpoint when hardware watchpoints are disabled\\.\$"
qz -ex 'rwatch total+1' $BIN
expect "rwatch of an rvalue over memory, as gdb" '^Hardware read watchpoint 1: total\+1$'
qz -ex 'watch -l total+1' $BIN
expect "-location of an rvalue" '^error: Attempt to take address of value not located in memory\.$'
qz -ex 'watch total+wide' -ex 'info watchpoints' -ex 'delete 1' -ex 'info watchpoints' $BIN
expect "rvalue over two globals" '^Hardware watchpoint 1: total\+wide$'
expect "info watchpoints empty" '^No watchpoints\.$'
qz -ex 'set can-use-hw-watchpoints x' $BIN
expect "bad setting" '^error: integer x out of range$'

# A program with its own SIGSEGV handler: it protects the page of pg1
# read-only, writes to it and unprotects it in the handler; pg1.near is on
# that page, pg2.far on another that read() also writes. The program's own
# faults reach it (gdb stops on them: SIGSEGV nostop here), ours never do.
qz -ex 'handle SIGSEGV nostop noprint' -ex 'break main' -ex run -ex 'watch pg1.near' \
	-ex 'watch pg2.far' -ex c -ex c -ex c -ex c -ex c -ex c -ex c -ex c -ex 'info watchpoints' $SEGV
expect "own SIGSEGV: program output" '^faults 3 near 30 far 7 buf 3 in piped mapped 6$'
expect "own SIGSEGV: same-page watch" '^New value = 30$'
expect "own SIGSEGV: same-page stop" '^main \(\) at tests/fixtures/pwsegv.c:59$'
expect "own SIGSEGV: other-page watch" '^New value = 300$'
expect "own SIGSEGV: after read() into the page" '^New value = 7$'
expect "own SIGSEGV: hit counts" 'breakpoint already hit 4 times$'
expect "own SIGSEGV: exits" 'exited normally'
keep segv
# its fault is reported where it happens, as without watchpoints
qz -ex 'break main' -ex run -ex 'watch pg1.near' -ex c -ex c -ex c $SEGV
expect "own SIGSEGV: reported" '^Program received signal SIGSEGV, Segmentation fault\.$'
expect "own SIGSEGV: at the program's write" '^0x[0-9a-f]+ in main \(\) at tests/fixtures/pwsegv.c:57$'
expect "own SIGSEGV: then the watch" '^New value = 10$'
keep segv-stop
# deleting a watchpoint gives the pages back: no fault the handler would count
qz -ex 'handle SIGSEGV nostop noprint' -ex 'break main' -ex run -ex 'watch pg2.far' -ex c \
	-ex 'delete 2' -ex c $SEGV
expect "delete restores protection" '^faults 3 near 30 far 7 buf 3 in piped mapped 6$'
# a watched page unmapped and mapped again (MAP_FIXED) stays watched
qz -ex 'handle SIGSEGV nostop noprint' -ex 'break remap' -ex run -ex next -ex 'watch -l mapped[1]' \
	-ex c -ex c -ex c $SEGV
expect "munmap and mmap again: first write" '^New value = 5$'
expect "munmap and mmap again: write to the new mapping" '^New value = 6$'
expect "munmap and mmap again: stop after it" '^remap \(\) at tests/fixtures/pwsegv.c:46$'
expect "munmap and mmap again: exits" 'mapped 6$'
}

checks
PFX="[no debug registers] "
MODE=nodr
checks
PFX=""
for t in global rwatch local condition segv segv-stop; do
	if cmp -s "$B/watch-default-$t.out" "$B/watch-nodr-$t.out"; then
		pass "same output without debug registers: $t"
	else
		fail "same output without debug registers: $t" "$(diff "$B/watch-default-$t.out" "$B/watch-nodr-$t.out" | head -20)"
	fi
done
no_leftover "no process left" $BIN
