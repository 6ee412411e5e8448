#!/bin/sh
# Differential test of breakpoints against gdb: where breakpoints on
# functions, on FILE:LINE (every line of the fixtures) and on addresses are
# placed ("Breakpoint N at ADDR: file F, line L.") and where they stop; plus
# tbreak, delete, condition, ignore, info breakpoints, info line and bt.
#   sh tests/diff/break_vs_gdb.sh                       # compare with ./qzdb
#   QZ_DIFF_SELFTEST=1 sh tests/diff/break_vs_gdb.sh    # gdb on both sides
#   QZ_DIFF_SHOW=1 sh tests/diff/break_vs_gdb.sh        # also print gdb's events
#   QZ_DIFF_ONLY='break-line-basic-O0-*' sh tests/diff/break_vs_gdb.sh
#   QZ_DIFF_LINES='1 6 18 20 46' sh ...   only these lines for the line checks
# Addresses of breakpoints set before `run` are compared relocated (gdb prints
# 0x1189 before run; qzdb 0x555555555189).
. "$(dirname "$0")/common.sh"

nlines() { wc -l <"$1" | tr -d ' '; }
lines_of() {
	if [ -n "$QZ_DIFF_LINES" ]; then echo "$QZ_DIFF_LINES"; else seq 1 "$(nlines "$1")"; fi
}

for o in O0 O2; do
	bin=$B/basic-$o

	# (4a) functions, one at a time and all together
	for f in square fact note_directory sum_list push main; do
		diff_case "break-func-$f-basic-$o" $bin <<-E
		break $f
		run
		continue
		continue
		info breakpoints
		E
	done
	diff_case "break-funcs-all-basic-$o" $bin <<-E
	break square
	break fact
	break note_directory
	break sum_list
	run
	$(rep 25 continue)
	E
	diff_case "break-func-multi-$o" $B/multi-$o <<-E
	break scale
	break clamp
	break twice
	run
	$(rep 12 continue)
	E

	# (4b) every line of the fixtures: blank, comment, for, brace lines
	for n in $(lines_of tests/fixtures/basic.c); do
		diff_case "break-line-basic-$o-$n" $bin <<-E
		break basic.c:$n
		run
		continue
		continue
		E
	done
	for n in $(lines_of tests/fixtures/loop.c); do
		diff_case "break-line-loop-$o-$n" $B/loop-$o 5 <<-E
		break loop.c:$n
		run
		continue
		continue
		E
	done
	for n in $(lines_of tests/fixtures/multi/b.c); do
		diff_case "break-line-multi-b-$o-$n" $B/multi-$o <<-E
		break b.c:$n
		run
		continue
		E
	done
	# other spellings of a location
	diff_case "break-path-full-basic-$o" $bin <<-'E'
	break tests/fixtures/basic.c:31
	run
	E
	diff_case "break-path-suffix-basic-$o" $bin <<-'E'
	break fixtures/basic.c:47
	run
	continue
	E
	diff_case "break-line-only-basic-$o" $bin <<-'E'
	break 62
	run
	continue
	E
	diff_case "break-file-func-multi-$o" $B/multi-$o <<-'E'
	break b.c:scale
	run
	E

	# (4c) info line, then breakpoints on the addresses it gives (line starts
	# and, from x/2i, the second instruction of a line: a mid-line address)
	{
		echo "break main"
		echo "run"
		for n in $(lines_of tests/fixtures/basic.c); do echo "info line basic.c:$n"; done
		echo "info line square"
		echo "info line note_directory"
	} | diff_case "info-line-basic-$o" $bin
	if [ -n "$QZ_DIFF_SHOW" ] || qz_available; then
		p=$DIFFDIR/addrs-basic-$o
		{
			echo "break main"
			echo "run"
			for n in 18 19 20 24 26 31 32 37 40 45 46 47 48 62 63 64 67 68; do
				echo "info line basic.c:$n"
			done
		} >"$p.cmds"
		gdb_run_cached "$p.cmds" "$p.out" $bin
		starts=$(sed -n 's/^Line [0-9]* of ".*" starts at address \(0x[0-9a-f]*\) .* ends at \(0x[0-9a-f]*\) .*/\1/p' "$p.out")
		{
			echo "break main"
			echo "run"
			for a in $starts; do echo "x/2i $a"; done
		} >"$p.cmds2"
		gdb_run_cached "$p.cmds2" "$p.out2" $bin
		# the second instruction of each x/2i, if still inside that line
		mids=$(sed -n 's/^Line [0-9]* of ".*" starts at address \(0x[0-9a-f]*\) .* ends at \(0x[0-9a-f]*\) .*/\1 \2/p' "$p.out" |
			awk -v insns="$(grep -E '^ *(=> )?0x[0-9a-f]+ <' "$p.out2" | sed 's/^ *\(=> \)\{0,1\}//; s/ .*//' | tr '\n' ' ')" '
			function h(s,  n, i) { s = tolower(s); sub(/^0x/, "", s); n = 0
				for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
				return n }
			BEGIN { k = split(insns, I, " ") }
			{ for (i = 1; i < k; i++) if (I[i] == $1 && h(I[i + 1]) < h($2)) { print I[i + 1]; break } }')
		if [ -z "$starts" ]; then
			fail "break-addr-basic-$o" "no addresses from gdb's info line (see $p.out)"
		fi
		for a in $starts $mids; do
			diff_case "break-addr-basic-$o-$a" $bin <<-E
			break main
			run
			break *$a
			info line *$a
			continue
			continue
			E
		done
	else
		case "break-addr-basic-$o" in ${QZ_DIFF_ONLY:-*}) fail "break-addr-basic-$o" "qzdb not built" ;; esac
	fi

	# (4d) tbreak, delete, condition, ignore, info breakpoints, bt
	diff_case "break-cond-basic-$o" $bin <<-'E'
	break note_directory if mtime == 1000
	break push if key == 3
	run
	info breakpoints
	continue
	continue
	info breakpoints
	E
	diff_case "condition-basic-$o" $bin <<-'E'
	break push
	condition 1 key >= 3
	run
	continue
	continue
	info breakpoints
	condition 1
	E
	diff_case "ignore-basic-$o" $bin <<-'E'
	break push
	ignore 1 2
	run
	info breakpoints
	continue
	info breakpoints
	E
	diff_case "tbreak-basic-$o" $bin <<-'E'
	tbreak note_directory
	break sum_list
	run
	info breakpoints
	continue
	continue
	E
	diff_case "delete-basic-$o" $bin <<-'E'
	break push
	break note_directory
	break sum_list
	run
	delete 1
	continue
	info breakpoints
	delete
	info breakpoints
	continue
	E
	diff_case "bt-fact-basic-$o" $bin <<-'E'
	break fact if n == 2
	run
	bt
	finish
	bt
	E
	diff_case "bt-note-basic-$o" $bin <<-'E'
	break note_directory
	run
	bt
	E
	diff_case "bt-multi-$o" $B/multi-$o <<-'E'
	break clamp
	run
	bt
	continue
	bt
	E
	diff_case "cond-loop-$o" $B/loop-$o 5 <<-'E'
	break work if i == 3
	run
	bt
	info breakpoints
	continue
	E
	diff_case "crash-null-$o" $B/crash-$o null <<-'E'
	break check
	run
	continue
	bt
	continue
	E
done
