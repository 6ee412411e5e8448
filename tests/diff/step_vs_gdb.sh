#!/bin/sh
# Differential test of stepping against gdb: the same command sequence runs in
# gdb and in qzdb, the stop locations must agree (see tests/diff/common.sh).
#   sh tests/diff/step_vs_gdb.sh                       # compare with ./qzdb
#   QZ_DIFF_SELFTEST=1 sh tests/diff/step_vs_gdb.sh    # gdb on both sides
#   QZ_DIFF_SHOW=1 sh tests/diff/step_vs_gdb.sh        # also print gdb's events
#   QZ_DIFF_ONLY='step-basic-*' sh tests/diff/step_vs_gdb.sh
# step/next sequences are cut at the first stop outside the fixture's source
# (libc's __libc_start_call_main after main returns) or at the exit.
CUT_EXIT=1
. "$(dirname "$0")/common.sh"

# fixture and arguments
for fx in basic "crash" "loop 5" multi; do
	set -- $fx
	n=$1
	shift
	for o in O0 O2; do
		for cmd in step next; do
			{ echo "break main"; echo run; rep 300 $cmd; } |
				diff_case "$cmd-$n-$o" $B/$n-$o "$@"
		done
	done
done

CUT_EXIT=0
for o in O0 O2; do
	bin=$B/basic-$o
	# (3) mixtures
	diff_case "mix-finish-basic-$o" $bin <<-'E'
	break fact
	run
	finish
	finish
	next
	next
	next
	E
	diff_case "mix-step-finish-basic-$o" $bin <<-'E'
	break square
	run
	step
	finish
	next
	step
	step
	finish
	next
	next
	next
	step
	E
	# at -O2 square and fact are inlined into main (break square fails, break
	# fact is never hit); push is inlined with an out-of-line copy and
	# note_directory stays a function, so these two mixtures hit at both
	diff_case "mix-finish-push-basic-$o" $bin <<-'E'
	break push
	run
	finish
	finish
	next
	next
	next
	step
	E
	diff_case "mix-note-basic-$o" $bin <<-'E'
	break note_directory
	run
	stepi
	finish
	next
	step
	step
	step
	stepi
	stepi
	nexti
	step
	E
	diff_case "mix-stepi-basic-$o" $bin <<-E
	break fact
	run
	$(rep 40 stepi)
	E
	diff_case "mix-nexti-basic-$o" $bin <<-E
	break main
	run
	$(rep 40 nexti)
	E
	diff_case "mix-stepi-nexti-basic-$o" $bin <<-'E'
	break sum_list
	run
	stepi
	stepi
	stepi
	nexti
	nexti
	nexti
	next
	stepi 5
	nexti 3
	step
	finish
	E
	diff_case "mix-start-basic-$o" $bin <<-'E'
	start
	next
	step
	next
	next
	step
	next
	finish
	next
	E
	diff_case "mix-multi-$o" $B/multi-$o <<-'E'
	break scale
	run
	step
	step
	step
	finish
	next
	step
	next
	next
	E

	# (5) until and advance in the loop
	bin=$B/loop-$o
	diff_case "until-loop-$o" $bin 5 <<-E
	break main
	run
	next
	next
	next
	next
	$(rep 8 until)
	E
	diff_case "until-body-loop-$o" $bin 5 <<-E
	break loop.c:18
	run
	$(rep 6 until)
	E
	diff_case "until-loc-loop-$o" $bin 5 <<-'E'
	break main
	run
	until 20
	next
	E
	diff_case "advance-loop-$o" $bin 5 <<-'E'
	break main
	run
	advance 18
	advance 9
	advance 20
	next
	next
	E
	diff_case "advance-work-loop-$o" $bin 5 <<-'E'
	break main
	run
	advance work
	until
	until
	until
	advance 18
	until 17
	E
done
