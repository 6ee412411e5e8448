#!/bin/sh
# Agreement with gdb on real programs (issue 25): the same commands in gdb
# (the oracle) and qzdb on the same binaries, outputs compared command by
# command, exactly, after only these normalisations:
#   - gdb's batch-mode query "Make breakpoint pending ... [answered N; input
#     not from terminal]" and qzdb's hint "(Use "set breakpoint pending on"
#     ...)" in its place are removed, as is qzdb's "error: " prefix;
#   - gdb's libthread_db chatter is removed, process ids become PID;
#   - hex numbers at or above 0x7ff000000000 (stack, libc) become 0xSTACK:
#     gdb starts the program with a slightly different environment.
# Fixture: tests/fixtures/gdbagree/ (main.c, util.c and mix.h, whose inline
# functions have code on the same line numbers as the .c files).
#   sh tests/batch/gdbagree.sh
#   QZ_DIFF_ONLY='gdbagree-break-*' sh tests/batch/gdbagree.sh
# A case's files stay in tests/build/diff/NAME.* for a look.
. "$(dirname "$0")/../diff/common.sh"

if ! command -v "$GDB" >/dev/null 2>&1; then
	skip gdbagree "gdb (the oracle) is not installed"
	exit 0
fi

# agree (tests/diff/common.sh): the same commands in both, compared one by one.


F=tests/fixtures/gdbagree
for o in O0 O2; do
	bin=$B/gdbagree-$o

	# Cause 1: break FILE:LINE through each unit's file table, every line
	# of each file (mix.h's code shares line numbers with the .c files;
	# at -O2 its inlined copies make several locations).
	for f in main.c util.c mix.h; do
		seq 1 "$(wc -l <"$F/$f")" | sed "s/.*/break $f:&/" |
			agree "gdbagree-break-$f-$o" $bin
	done
	# the same program with DWARF 4 line tables (file numbers from 1)
	d4=$B/gdbagree-dwarf4-$o
	if [ ! "$d4" -nt $F/main.c ] || [ ! "$d4" -nt $F/util.c ] || [ ! "$d4" -nt $F/mix.h ]; then
		gcc -g -gdwarf-4 -$o -o "$d4" $F/*.c || fail "gdbagree-dwarf4-$o" "cannot build"
	fi
	for f in main.c mix.h; do
		seq 1 "$(wc -l <"$F/$f")" | sed "s/.*/break $f:&/" |
			agree "gdbagree-break-dwarf4-$f-$o" "$d4"
	done
	# and where they stop (the first hits of a few lines)
	agree "gdbagree-break-stops-$o" $bin <<-'E'
	break mix.h:11
	break util.c:21
	break main.c:24
	info breakpoints
	run
	bt
	continue
	bt
	continue
	bt
	E
done

# Causes 6 and 8: whatis does not evaluate its operand (*nothing is NULL);
# ptype and whatis keep typedef names, const, volatile, pointer stars and
# array suffixes as gdb does and resolve one typedef level as gdb does.
for o in O0 O2; do
	agree "gdbagree-types-$o" $B/gdbagree-$o <<-'E'
	- break main.c:46
	- run
	whatis nothing
	whatis *nothing
	ptype *nothing
	print sizeof(*nothing)
	whatis nothing[3]
	whatis alias
	ptype alias
	whatis label
	ptype label
	whatis grid
	ptype grid
	whatis grid[0]
	ptype grid[0]
	whatis grid[0][0]
	ptype grid[0][0]
	whatis u32
	ptype u32
	whatis grid_t
	ptype grid_t
	whatis name_t
	ptype name_t
	whatis &grid
	whatis &label
	whatis ticks
	whatis &ticks
	ptype ticks
	whatis util_names
	ptype util_names
	whatis util_names[1]
	whatis util_grid
	ptype util_grid
	whatis *argv
	whatis argv[0][0]
	whatis (u32)1
	whatis (grid_t *)0
	whatis *(grid_t *)0
	whatis step_all
	ptype step_all
	whatis &step_all
	whatis *step_all
	whatis total + 1
	whatis n > 1
	whatis -grid[0][0]
	whatis grid[0][0] * 2
	ptype struct hooks
	whatis struct hooks
	whatis (char)n
	whatis 1.5
	whatis 'a'
	whatis "abc"
	whatis *label
	ptype name_all
	ptype (name_t *)0
	whatis (name_t *)0
	ptype (u32 *)0
	ptype &grid
	whatis &grid[1]
	whatis 1/0
	whatis total = 99
	print total == 99
	whatis nothing[100000]
	whatis ~grid[1][1]
	ptype (const u32 *)0
	whatis (const u32 *)0
	whatis (volatile u32)1
	whatis (char * const)0
	ptype (const name_t)label
	print (const u32)5
	whatis (const char *)label
	E
done

# Cause 10: commands that failed. info symbol, info address, info line
# *$pc, list -, bt -N, print ::var, output, break *FUNC, info scope.
# (A line "O0: CMD" is for -O0 only: at -O2 gdb's info scope of the
# inlined step_all also lists the abstract origin's variables as optimized
# out, which qzdb does not model.)
for o in O0 O2; do
	sed "/^O[02]: /{ /^$o: /!d; s/^$o: //; }" <<-'E' | agree "gdbagree-commands-$o" $B/gdbagree-$o
	info address main
	info address total
	info symbol main
	info symbol 0
	break *step_all
	O0: info scope step_all
	info scope main.c:40
	info scope nosuch
	- break util_mix
	- run
	info line *$pc
	info symbol $pc
	info symbol &total
	info symbol &grid[1][1]
	info symbol (char *)&total + 2
	info address util_mix
	info address a
	info address r
	info address total
	info address grid
	info address nosuch
	print ::total
	print ::grid
	print ::nosuch
	output total
	output grid[1]
	output/x total
	output nosuch
	bt -1
	bt -2
	list -
	list -
	list util_mix
	list -
	info scope util_mix
	info scope util.c:21
	info symbol printf
	info address printf
	info address global_hooks
	info address util_names
	info symbol util_names
	info line *step_all
	info symbol step_all+3
	info symbol total
	output util_names
	output/x grid
	print ::util_counter
	print global_hooks.calls
	E
done

# The new commands are in the command table with their help.
for c in "info symbol" "info address" "info scope" "output" "call" "set unwindonsignal"; do
	qz -ex "help $c" $B/gdbagree-O0
	expect "gdbagree-help-$(echo "$c" | tr ' ' -)" "^$c -- [A-Z]"
done

# Engine bug: continuing from a breakpoint on an execve syscall
# instruction wrote the old image's int3 into the new image (SIGTRAP
# there, or a crash in ld.so). util_raw_exec's own syscall lies in the
# program, mapped at the same place after the exec; the new program
# (argv x y z w: it execs "x", which fails) must stop there again, as in gdb.
for o in O0 O2; do
	at=$($GDB -batch -nx -ex 'x/12i util_raw_exec' $B/gdbagree-$o 2>/dev/null |
		sed -n 's/^ *0x[0-9a-f]* <\(util_raw_exec+[0-9]*\)>:\tsyscall.*/\1/p')
	if [ -z "$at" ]; then
		fail "gdbagree-exec-$o" "no syscall instruction found in util_raw_exec"
		continue
	fi
	agree "gdbagree-exec-$o" $B/gdbagree-$o x y z w <<-E
	break *$at
	run
	continue
	x/2xb \$pc
	stepi
	print \$rax
	info breakpoints
	E
done
# The same with the breakpoint on libc's execve syscall (gdb, which cannot
# plant it again at the exec, stops there instead): the new program runs.
A=$($GDB -batch -nx -ex 'break main' -ex 'run' -ex 'x/2i execve' --args $B/gdbagree-O0 2>/dev/null |
	sed -n 's/^ *\(0x[0-9a-f]*\) <[_A-Za-z]*execve+[0-9]*>:\tsyscall.*/\1/p')
if [ -n "$A" ]; then
	qz -ex 'break main' -ex 'run' -ex "break *$A" -ex 'continue' -ex 'continue' -ex 'continue' \
		$B/gdbagree-O0 a b
	expect "gdbagree-exec-libc: the new program reaches main" '^Breakpoint 1, main \(argc=2,'
	expect "gdbagree-exec-libc: and ends normally" '^\[Inferior 1 \(process [0-9]+\) exited normally\]$'
	expect_not "gdbagree-exec-libc: no stray trap" 'SIGTRAP|SIGSEGV|SIGILL'
else
	fail "gdbagree-exec-libc" "no syscall instruction found in execve"
fi

# Cause 4: a display that names locals is shown only where the selected
# frame is inside their block (not in other functions, not after its loop
# for a loop variable, not in callers after finish), with "(cannot be
# evaluated in the current context)" in info display; up/down show none;
# finish prints "Value returned" after the displays. Cause 11: in batch
# mode a new display is not shown at once, finish prints no "Run till
# exit from", bt N no "(More stack frames follow...)", as gdb -batch.
for o in O0 O2; do
	agree "gdbagree-display-$o" $B/gdbagree-$o <<-'E'
	- break step_all
	- break util_mix
	- break main.c:25
	run
	display n
	display total
	display/x ticks
	continue
	display i
	display acc + i
	next
	next
	up
	down
	bt 1
	info display
	- delete 3
	- tbreak main.c:28
	continue
	info display
	continue
	info display
	next
	finish
	info display
	E
done

# Cause 3: statics of other compilation units are found, as gdb finds them
# (the frame's own unit first, then the globals, then every unit's statics).
for o in O0 O2; do
	agree "gdbagree-statics-$o" $B/gdbagree-$o <<-'E'
	print util_counter
	print global_hooks
	- break main
	- run
	print global_hooks.allocate
	print global_hooks
	print util_counter
	print &global_hooks
	whatis global_hooks
	print sizeof(global_hooks)
	ptype global_hooks
	print grid
	- break util_mix
	- continue
	print grid[1]
	print global_hooks.calls
	E
done

# Cause 1 on random programs: csmith's (Debian csmith) with the seeds where
# qzdb put breakpoints in safe_math.h's lines or credited csmith.h's rows
# to the program (DWARF 5 file 1); every line of the program.
if ! csmith_found; then
	skip gdbagree-csmith "csmith or its headers (Debian csmith) not installed"
else
	CS=$B/csmith-agree
	mkdir -p $CS
	for seed in 6 8; do
		c=$CS/s$seed.c
		# shellcheck disable=SC2086
		[ -s $c ] || csmith -s $seed $CSMITH_OPTS -o $c >/dev/null 2>&1
		for o in O0 O2; do
			bin=$CS/s$seed-$o
			[ "$bin" -nt "$c" ] || gcc -g -$o -w -I$CSMITH_INC -o $bin $c
			seq 1 "$(wc -l <$c)" | sed "s/.*/break s$seed.c:&/" |
				agree "gdbagree-break-csmith-s$seed-$o" $bin
		done
	done
fi

# Cause 5: info frame as gdb prints it: the registers the frame saved (from
# the CFI), "called by ..., caller of ..." on one line, Arglist/Locals at
# gdb's frame base (rbp after push %rbp; mov %rsp,%rbp, else rsp - 8 or
# rsp), an inlined call's frame ("inlined into frame N", unknown address),
# at a function's first instruction, after its push and in a caller.
for o in O0 O2; do
	agree "gdbagree-info-frame-$o" $B/gdbagree-$o <<-'E'
	- break *util_mix
	- break *util_mix+1
	- break mix.h:11
	- break util_hash
	run
	info frame
	continue
	info frame
	continue
	info frame
	up
	info frame
	up
	info frame
	continue
	info frame
	finish
	info frame
	E
done

# Cause 10: a bare `info line` shows gdb's last_line_listed (the stop's
# line, the first of a listing, the line after the last info line); a bare
# LINE that is not in the current file is "No line N in the current
# file."; several locations of a bare LINE are named by the file's path.
for o in O0 O2; do
	agree "gdbagree-lines-$o" $B/gdbagree-$o <<-'E'
	- break util_mix
	- run
	info line
	info line
	list
	info line
	info line
	up
	info line
	info line 20
	info line
	break 99
	tbreak 99
	advance 99
	until 99
	- break mix_step
	- continue
	break 12
	frame
	info line
	E
done

# finish prints the value a function returned in every class of the SysV
# ABI: structs in rax/rdx, in xmm0/xmm1 or both, large ones in memory,
# unions, floats, chars, _Bool (tests/fixtures/retvals.c).
{
	for f in make_ints make_doubles make_mixed make_floats make_big make_chars \
		make_num half scale first low_byte neg16 is_even sum8 mix_args label; do
		echo "- break $f"
	done
	echo "- run"
	for i in $(seq 16); do echo finish; echo "- continue"; done
} | agree "gdbagree-finish-values-O0" $B/retvals-O0

# Calls from expressions (issue 25, cause 10): print f(args) and call f(args)
# with integer, pointer, double, float, struct and union arguments and
# results in every SysV class, more than six integer arguments, string
# literals, nested calls, void results; errors as gdb words them; a
# breakpoint or a signal inside the called function (the program stays
# there, bt shows the dummy frame, finish and continue end the call); set
# unwindonsignal on (tests/fixtures/retvals.c).
for o in O0 O2; do
	agree "gdbagree-calls-$o" $B/retvals-$o <<-'E'
	print half(3.0)
	- break main
	- run
	print half(3.0)
	print half(3)
	call bump(1)
	print bump(1)
	print calls
	print sum6(1,2,3,4,5,6)
	print sum8(1,2,3,4,5,6,7,8)
	print mix_args(1, 2.5, 3, 0.25)
	print make_ints(1,2)
	print make_doubles(1,2)
	print make_mixed(3, 1.5)
	print make_floats(1, 2, 3)
	print make_big(5)
	print make_chars(65)
	print make_num(66)
	print scale(1.5, 2)
	print first("hello")
	print low_byte(0x1ff)
	print neg16(5)
	print is_even(4)
	print label()
	print *label()
	print length(label())
	print twice(make_ints(1,2))
	print half(1) + half(2)
	whatis half(1)
	print sizeof(make_big(1))
	print calls
	print half()
	print half(1,2)
	print nosuch(1)
	call calls
	call half(8)
	info frame
	- break stop_here
	print stop_here(4)
	bt
	print calls
	finish
	bt
	info frame
	next
	print stop_here(1)
	up
	down
	continue
	bt
	next
	print half(2) + stop_here(2)
	- delete
	print stop_here(7)
	print crash(0)
	bt
	print calls
	finish
	E
	agree "gdbagree-calls-unwind-$o" $B/retvals-$o <<-'E'
	- break main
	- run
	show unwindonsignal
	set unwindonsignal on
	show unwindonsignal
	print crash(0)
	bt
	print crash(0) + 1
	print calls
	next
	E
done

# Cause 2: next and step at -O0 and -O2: a breakpoint in a callee stops the
# next there (reported as a breakpoint hit), next N and step N print only
# their last stop, step into and out of inlined calls, until and advance
# into inlined code, finish out of an inlined frame up the stack.
for o in O0 O2; do
	agree "gdbagree-stepping-$o" $B/gdbagree-$o <<-'E'
	- break main
	- run
	next 2
	step 3
	bt
	- break util_mix
	next 4
	bt
	next
	step 2
	info frame
	until
	advance 28
	bt
	up
	finish
	next 3
	step 4
	next
	E
done

# Names only a symbol table has (gdb's minimal symbols): a program built
# without -g and libc without its debug file. A function is
# {<text variable, no debug info>} ADDR <sym> (an IFUNC's
# <text gnu-indirect-function variable, ...>); data without a type is
# refused in gdb's words.
agree "gdbagree-minsyms" $B/libc_fgets-nodebug <<-'E'
	print main
	whatis main
	print &main
	print/x main
	output main
	print nosuch
	break main
	- run
	print puts
	print fgets
	print index
	whatis puts
	print &fgets
	print stdout
	print count
	E

# Stepping where an inlined call's code is split in ranges that meet
# (zlib's enough.c at -O2, map() inlined into count()): gdb takes a range
# that begins where the one before ends for the same stretch of code, not
# a new entry into the call (block_starting_point_at), so `step` from
# inside map goes on to line 271 and `step 3` stops at 310, where a
# range start taken for an entry stopped at the call site (270, 315).
ENOUGH=/usr/share/doc/zlib1g-dev/examples/enough.c
if [ -f $ENOUGH ]; then
	E2=$B/gdbagree-enough-O2
	[ "$E2" -nt $ENOUGH ] || gcc -g -w -O2 -o $E2 $ENOUGH || fail gdbagree-enough "cannot build"
	agree "gdbagree-inline-ranges-meet" $E2 12 6 8 <<-'E'
	- break count
	- run
	step
	step
	info args
	step
	info frame
	stepi
	until
	step 4
	step 3
	info frame
	nexti
	step
	bt
	step 3
	bt
	E
fi
