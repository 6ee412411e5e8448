#!/bin/sh
# Differential test of watchpoints against gdb on tests/fixtures/watchme.c at
# -O0 and -O2: the sequence of stops (frame and line), the watchpoint
# messages and their Old/New values over several continues, for a watch on
# a global, on a struct field (also -location), a read and an access
# watchpoint, a watch set before `run`, a software watchpoint, a local
# whose frame exits, `next` over a watched write, disable/delete, and
# `info breakpoints`.
#   sh tests/diff/watch_vs_gdb.sh          (see common.sh for QZ_DIFF_*)
. "$(dirname "$0")/common.sh"

# gdb's hardware watchpoints are the oracle of these cases; where the
# debug registers do not trap (the probe says so) gdb never stops and there
# is no oracle: the cases are skipped, said why. qzdb's own watchpoints are
# tested on every machine by tests/batch/watch.sh, both mechanisms.
if $QZDB --batch -ex 'info platform' | grep -q '^Debug registers, write watch: *yes$'; then
	hw_case() { diff_case "$@"; }
else
	hw_case() {
		cat > /dev/null
		skip "$1" "debug registers do not trap on this machine: gdb's hardware watchpoints, the oracle, never stop"
	}
fi

for o in O0 O2; do
	bin=$B/watchme-$o
	hw_case "watch-global-$o" $bin <<-E
	break main
	run
	watch ticks
	$(rep 6 continue)
	info breakpoints
	E
	hw_case "watch-global-args-$o" $bin 7 <<-E
	break main
	run
	watch ticks
	$(rep 9 continue)
	E
	hw_case "watch-field-$o" $bin <<-E
	break main
	run
	watch pt.y
	watch -l pt.x
	$(rep 4 continue)
	info breakpoints
	E
	hw_case "watch-field-ptr-$o" $bin <<-E
	break move
	run
	watch p->y
	$(rep 4 continue)
	E
	hw_case "watch-before-run-$o" $bin <<-E
	watch ticks
	watch pair
	run
	$(rep 7 continue)
	info breakpoints
	E
	hw_case "watch-rerun-$o" $bin <<-E
	watch ticks
	run
	continue
	run
	continue
	info breakpoints
	E
	hw_case "rwatch-awatch-$o" $bin <<-E
	break main
	run
	rwatch reads
	awatch wide
	$(rep 6 continue)
	info breakpoints
	E
	hw_case "watch-wide-$o" $bin <<-E
	break main
	run
	watch wide
	watch pair
	$(rep 4 continue)
	E
	diff_case "watch-soft-$o" $bin <<-E
	break main
	run
	set can-use-hw-watchpoints 0
	watch ticks
	watch pt.y
	$(rep 5 continue)
	info breakpoints
	E
	hw_case "watch-disable-$o" $bin <<-E
	break main
	run
	watch ticks
	watch pt.y
	continue
	disable 2
	continue
	enable 2
	delete 3
	$(rep 3 continue)
	E
	hw_case "watch-cond-ignore-$o" $bin 9 <<-E
	break main
	run
	watch ticks if ticks > 10
	continue
	continue
	ignore 2 2
	continue
	info breakpoints
	E
	# Seven continues: up to move's last write. The eighth reaches memset,
	# whose masked vector store over pt also covers ticks at -O0 (masked-off
	# bytes), and some CPUs (AMD EPYC) then fire ticks' debug register too:
	# gdb checks only one fired register and misses pt.tag's change; qzdb
	# checks every one (tests/batch/watch.sh "masked store").
	hw_case "watch-bp-and-watch-$o" $bin <<-E
	break move
	break main
	run
	watch ticks
	watch pt.tag
	$(rep 7 continue)
	E
done
# -O0 only: the local lives in memory (at -O2 it is a register)
hw_case "watch-local-O0" $B/watchme-O0 <<-E
break bump
run
watch acc
$(rep 5 continue)
info breakpoints
E
hw_case "watch-next-O0" $B/watchme-O0 <<-E
break main
run
watch total
$(rep 10 next)
E
# -O2: a local in a register can only be watched in software
hw_case "watch-reg-local-O2" $B/watchme-O2 <<-E
break 40
run
watch i
info watchpoints
$(rep 4 continue)
E
# a disabled watchpoint on a local: deleted at the frame exit without a stop
hw_case "watch-local-disabled-O0" $B/watchme-O0 <<-E
break bump
run
watch acc
disable 2
continue
info breakpoints
E
hw_case "watch-local-deleted-O0" $B/watchme-O0 <<-E
break bump
run
watch acc
delete 2
continue
E
# next out of the frame of a watched local
hw_case "watch-local-next-O0" $B/watchme-O0 <<-E
break bump
run
watch acc
$(rep 6 next)
info watchpoints
E
