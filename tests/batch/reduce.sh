#!/bin/sh
# reduce: shrinking failing inputs (reduce/). On three fixtures with known
# minimal inputs (a parser crashing on a nested construct in a long
# document read from a file, a crash on a long argument, a calculator
# reading stdin): plain ddmin and guided reduction both reach the 1-minimal
# input, which still fails the same way (checked again by reduce itself
# and by gdb), guided with fewer runs; the oracle accepts no other
# failure; stated conditions; bad input; Ctrl-C keeps the best so far.
. tests/lib.sh
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
NEST_LINE=$(grep -n 'the bug \*/' tests/fixtures/rd_nest.c | cut -d: -f1)
AT_LINE=$(grep -n 'and another: SIGSEGV' tests/fixtures/rd_nest.c | cut -d: -f1)
DIV_LINE=$(grep -n 'return a / b;' tests/fixtures/rd_calc.c | cut -d: -f1)
ABORT_LINE=$(grep -n "case '!': abort" tests/fixtures/rd_calc.c | cut -d: -f1)
ARG=$(cat tests/fixtures/rd_arg.txt)

# runs N: the number of runs the last reduction printed
runs() { printf '%s\n' "$OUT" | sed -n 's/^(in \([0-9]*\) runs, .*/\1/p'; }

# expect_runs NAME N: the last reduction took exactly N runs
expect_runs() {
	_r=$(runs)
	if [ "$_r" = "$2" ]; then pass "$1"; else fail "$1" "$_r runs, wanted $2"; fi
}

# expect_guided_runs NAME N: the same, where N was measured: a guided
# search follows the failing run's slice, which goes through libc's string
# functions, and glibc picks those by CPU (N with its EVEX versions, on
# AVX-512 machines); elsewhere the count differs and is not checked.
expect_guided_runs() {
	if grep -qw avx512bw /proc/cpuinfo && grep -qw avx512vl /proc/cpuinfo; then
		expect_runs "$1" "$2"
	else
		skip "$1" "the count was measured with libc's AVX-512 string functions"
	fi
}

# expect_guided NAME REGEX: a line of the guided search's log, where its
# figures were measured (as expect_guided_runs)
expect_guided() {
	if grep -qw avx512bw /proc/cpuinfo && grep -qw avx512vl /proc/cpuinfo; then
		expect "$1" "$2"
	else
		skip "$1" "the figures were measured with libc's AVX-512 string functions"
	fi
}

# fewer NAME A B: A < B (both numbers)
fewer() {
	if [ -n "$2" ] && [ -n "$3" ] && [ "$2" -lt "$3" ]; then pass "$1"
	else fail "$1" "guided $2 runs, plain $3: guided should need fewer"; fi
}

# min_is NAME FILE TEXT: the minimised file holds exactly TEXT
min_is() {
	if [ "$(cat "$2" 2>/dev/null)" = "$3" ]; then pass "$1"
	else fail "$1" "$2 holds \"$(cat "$2" 2>/dev/null)\", wanted \"$3\""; fi
}

qz -ex 'help reduce' $B/rd_calc-O0
expect "help reduce: usage" 'reduce file ARGN \| stdin FILE \| arg N'
expect "help reduce: --by" '--by bytes\|lines\|tokens'
expect "help reduce: --plain" '--plain'
expect "help reduce: the default oracle" 'same source line with the same two callers'
expect "help reduce: conditions" '--signal SIG.*--exit N|--exit N'
expect "help reduce: --at" '--at FILE:LINE'
expect "help reduce: --output" '--output REGEX'

# --- the parser: a nested construct inside a long document (a file) ---
for o in O0 O2; do
	cp tests/fixtures/rd_nest.txt $T/doc.txt
	qz -ex 'reduce file 1 --plain --jobs 2' $B/rd_nest-$o $T/doc.txt
	expect "nest $o plain: the failure" "^The failure: SIGSEGV at rd_nest.c:$NEST_LINE( |$)"
	expect "nest $o plain: reduced" '^Reduced .*doc.txt from 982 to 3 bytes \(ddmin\)'
	expect_runs "nest $o plain: runs" 73
	min_is "nest $o plain: minimal input" $T/doc.txt.min '{{{'
	plain=$(runs)
	cp tests/fixtures/rd_nest.txt $T/doc.txt
	qz -ex 'reduce file 1 --jobs 2' $B/rd_nest-$o $T/doc.txt
	expect "nest $o guided: analysis" '^  analysis: [0-9]+ of 982 bytes relevant'
	expect "nest $o guided: step 1 kept the relevant bytes" '^  step1 +1 runs +[0-9]+ bytes'
	expect "nest $o guided: reduced" '^Reduced .*doc.txt from 982 to 3 bytes \(guided\)'
	min_is "nest $o guided: minimal input" $T/doc.txt.min '{{{'
	fewer "nest $o guided: fewer runs than plain" "$(runs)" "$plain"
	# 22 (20 with the breadth-first dependence tree, which a lexer breaks
	# into groups of a few bytes, see guide.c; 22 before ddmin's last
	# stage went on after each single-unit removal)
	[ $o = O0 ] && expect_guided_runs "nest $o guided: runs" 22
	# the control tree's first level: the items of the top group are its
	# loop's iterations, side by side; all but the nested one go at once
	[ $o = O0 ] && expect_guided "nest $o guided: the first level keeps the nested group" \
		'^  level1 +5 runs +19 bytes$'
	[ $o = O0 ] && nest_runs=$(runs) &&
		nest_analysis=$(printf '%s\n' "$OUT" | grep -m1 '^  analysis: ' | sed 's/ (slice.*//')
	# the result still fails the same way, and is 1-minimal: reducing it
	# again finds the same failure and removes nothing
	cp $T/doc.txt.min $T/again.txt
	qz -ex 'reduce file 1 --plain' $B/rd_nest-$o $T/again.txt
	expect "nest $o: the result fails the same way" "^The failure: SIGSEGV at rd_nest.c:$NEST_LINE( |$)"
	expect "nest $o: the result is 1-minimal" 'from 3 to 3 bytes'
done
# a breakpoint of the user's does not stop the guided analysis short
cp tests/fixtures/rd_nest.txt $T/doc.txt
qz -ex 'break item' -ex 'reduce file 1 --jobs 2' $B/rd_nest-O0 $T/doc.txt
a=$(printf '%s\n' "$OUT" | grep -m1 '^  analysis: ' | sed 's/ (slice.*//')
if [ -n "$a" ] && [ "$a" = "$nest_analysis" ]; then pass "nest guided past a breakpoint: the same analysis"
else fail "nest guided past a breakpoint: the same analysis" "'$a', without the breakpoint '$nest_analysis'"; fi
expect "nest guided past a breakpoint: the same result" 'from 982 to 3 bytes \(guided\)'
expect_runs "nest guided past a breakpoint: the same runs" "$nest_runs"
qz -ex 'break main' -ex 'run' -ex 'reduce file 1' $B/rd_nest-O0 $T/doc.txt
expect "guided with the program running: refused" 'error: reduce: the program is running: kill it first'
# gdb agrees on where the minimal input crashes
OUT=$(gdb -batch -ex run -ex bt --args $B/rd_nest-O0 $T/doc.txt.min 2>&1)
expect "nest: gdb sees the same crash" "SIGSEGV"
expect "nest: gdb sees the same line" "rd_nest.c:$NEST_LINE"

# --- oracle strictness ---
cp tests/fixtures/rd_nest.txt $T/doc.txt
qz -ex 'reduce file 1 --plain --jobs 2' $B/rd_nest-O0 $T/doc.txt
expect "strict: a SIGSEGV on another line was seen" "^Not accepted: SIGSEGV at rd_nest.c:$AT_LINE "
expect "strict: and not accepted" '^Minimal input: "\{\{\{"$'
cp tests/fixtures/rd_nest.txt $T/doc.txt
qz -ex 'reduce file 1 --plain --jobs 2 --signal SIGSEGV' $B/rd_nest-O0 $T/doc.txt
expect "strict: --signal SIGSEGV alone accepts the other line" '^Minimal input: "@"$'
cp tests/fixtures/rd_calc.txt $T/calc.txt
qz -ex 'reduce stdin '$T/calc.txt' --plain --jobs 2' $B/rd_calc-O0
expect "strict: another signal was seen" "^Not accepted: SIGABRT at rd_calc.c:$ABORT_LINE "
expect "strict: and not accepted" '^Minimal input: "4/0"$'

# --- the calculator: standard input ---
for o in O0 O2; do
	cp tests/fixtures/rd_calc.txt $T/calc.txt
	qz -ex "reduce stdin $T/calc.txt --plain --jobs 2" $B/rd_calc-$o
	expect "calc $o plain: the failure" "^The failure: SIGFPE at rd_calc.c:$DIV_LINE( |$)"
	expect_runs "calc $o plain: runs" 33
	min_is "calc $o plain: minimal input" $T/calc.txt.min '4/0'
	plain=$(runs)
	qz -ex "reduce stdin $T/calc.txt --jobs 2" $B/rd_calc-$o
	expect "calc $o guided: step 1" '^  step1 +1 runs +[0-9]+ bytes'
	min_is "calc $o guided: minimal input" $T/calc.txt.min '4/0'
	fewer "calc $o guided: fewer runs than plain" "$(runs)" "$plain"
	# 29 (the lines are the iterations of main's loop, side by side: the
	# first level keeps the crashing line, the next its bytes (fgets read
	# them at once) down to 3; 23 with the breadth-first dependence tree, which
	# split the line by its readers; 30 while ddmin's last stage started
	# over after each removal; 27 before the recorder tracked k0-k7 (issue
	# 23): libc's EVEX memchr finds each newline through a mask register,
	# so where the crashing line starts depends on the earlier lines'
	# chunks, and the slice says so).
	[ $o = O0 ] && expect_guided_runs "calc $o guided: runs" 29
done
qz -ex "reduce stdin $T/calc.txt --by lines --plain" $B/rd_calc-O0
expect "calc --by lines: one line" '^Reduced standard input from 477 to 7 bytes \(ddmin\)'
expect_runs "calc --by lines: runs" 9
qz -ex "reduce stdin $T/calc.txt --by lines" $B/rd_calc-O0
expect "calc --by lines guided: the relevant line alone" '^Reduced standard input from 477 to 7 bytes \(guided\)'
expect_guided_runs "calc --by lines guided: runs" 8   # 26 of 53 lines relevant: see above; one level of 26 (4 with the breadth-first tree)
qz -ex "reduce stdin $T/calc.txt --by tokens --plain" $B/rd_calc-O0
expect "calc --by tokens" '^Minimal input: "84/0"$'
expect_runs "calc --by tokens: runs" 40

# --- a long command-line argument ---
# qz_in: qz run from $T, where an argument's reduction writes PROG.argN.min
QZ_ABS=$(cd "$(dirname "$QZDB")" && pwd)/$(basename "$QZDB")
qz_in() {
	OUT=$(cd $T && timeout 60 "$QZ_ABS" --batch "$@" 2>&1 </dev/null)
	RC=$?
}
for o in O0 O2; do
	bin=$(pwd)/$B/rd_arg-$o
	qz_in -ex 'reduce arg 1 --plain --jobs 2' $bin "$ARG"
	expect "arg $o plain: the failure" '^The failure: SIGSEGV at rd_arg.c:'
	expect "arg $o plain: 13 bytes" 'from 348 to 13 bytes \(ddmin\)'
	expect_runs "arg $o plain: runs" 88
	min_is "arg $o plain: written where qzdb runs" $T/rd_arg-$o.arg1.min '=bcdefghijklm'
	plain=$(runs)
	qz_in -ex 'reduce arg 1 --jobs 2' $bin "$ARG"
	expect "arg $o guided: 13 bytes" 'from 348 to 13 bytes \(guided\)'
	fewer "arg $o guided: fewer runs than plain" "$(runs)" "$plain"
	# (no exact count: libc's vector string functions read whole aligned
	# blocks, so which neighbouring bytes count as used follows where the
	# stack puts the argument, which follows the program's path)
	qz_in -ex 'reduce arg 1 --plain' $bin "$(cat $T/rd_arg-$o.arg1.min)"
	expect "arg $o: the result fails the same way, 1-minimal" 'from 13 to 13 bytes'
done

# --- stated conditions ---
printf 'a=1; b{ c=2;' > $T/open.txt
qz -ex 'reduce file 1 --exit 2 --plain' $B/rd_nest-O0 $T/open.txt
expect "--exit 2: an unterminated group" '^Minimal input: "\{"$'
qz -ex "reduce stdin $T/calc.txt --at rd_calc.c:$DIV_LINE --plain" $B/rd_calc-O0
expect "--at: reaching the division" '^Minimal input: "[0-9]/[0-9]"$'
printf '12 * 12\n' > $T/sum.txt
qz -ex "reduce stdin $T/sum.txt --output ^144\$ --plain" $B/rd_calc-O0
expect "--output: the sum still 144" '^Minimal input: "12\*12"$'
qz -ex "reduce stdin $T/sum.txt --signal SIGSEGV" $B/rd_calc-O0
expect_rc "a condition the original does not meet fails" 1
expect "a condition the original does not meet: says so" 'error: reduce: the original input does not meet the condition \(it ended with exit status 0\); nothing reduced'

# without debug information: the oracle is the signal alone, and guided
# falls back to ddmin, saying why
cp tests/fixtures/rd_nest.txt $T/doc.txt
qz -ex 'reduce file 1 --jobs 2' $B/rd_nest-nodebug $T/doc.txt
expect "no debug info: the signal alone" '^The failure: SIGSEGV \(the same in 5 runs'
expect "no debug info: guided falls back" '^  \(the failing run could not be analysed: .*; plain ddmin\)$'
expect "no debug info: reduced by ddmin" '^Reduced .* from 982 to 1 bytes \(ddmin\)'
expect_runs "no debug info: runs" 16

# --- bad input ---
printf '1 + 2\n' > $T/fine.txt
qz -ex "reduce stdin $T/fine.txt" $B/rd_calc-O0
expect_rc "no failure: exit 1" 1
expect "no failure: says so" 'error: reduce: the program does not fail on the original input \(exit status 0\); nothing reduced'
test -e $T/fine.txt.min && fail "no failure: no .min" "written" || pass "no failure: no .min"
rm -f $T/count
# (its counter file is outside the runs' scratch directory: not confined)
qz -ex 'reduce arg 2 --no-sandbox' $B/rd_flaky-O0 $T/count input
expect "nondeterministic: reported" 'error: reduce: the failure is not deterministic: [0-9] of 5 runs of the original input ended with'
printf '1 ~ 1\n' > $T/hang.txt
qz -ex "reduce stdin $T/hang.txt --timeout 1" $B/rd_calc-O0
expect "hang: reported" 'error: reduce: the program does not end on the original input \(timeout after 1 s\)'
qz -ex "reduce stdin $T/nonexistent" $B/rd_calc-O0
expect "unreadable: missing file" "error: reduce: cannot read $T/nonexistent: No such file or directory"
qz -ex "reduce stdin $T" $B/rd_calc-O0
expect "unreadable: a directory" "error: reduce: cannot read $T: Is a directory"
qz -ex 'reduce stdin /dev/zero' $B/rd_calc-O0
expect "not a regular file: a device" 'error: reduce: /dev/zero is not a regular file'
mkfifo $T/fifo
qz -ex "reduce stdin $T/fifo" $B/rd_calc-O0
expect "not a regular file: a FIFO (no waiting for a writer)" "error: reduce: $T/fifo is not a regular file"
truncate -s 17M $T/huge
qz -ex "reduce stdin $T/huge" $B/rd_calc-O0
expect "too large" "error: reduce: $T/huge is too large \(17825792 bytes; at most 16777216\)"
qz -ex 'reduce file 2' $B/rd_nest-O0 $T/doc.txt
expect "bad ARGN" 'error: reduce: the argument number must be between 1 and 1, not "2"'
qz -ex 'reduce file 1 --by words' $B/rd_nest-O0 $T/doc.txt
expect "bad --by" 'error: reduce: --by takes bytes, lines or tokens, not "words"'
qz -ex 'reduce file 1 --frob 2' $B/rd_nest-O0 $T/doc.txt
expect "unknown option" 'error: reduce: unknown option "--frob"'
qz -ex 'reduce bogus 1' $B/rd_nest-O0 $T/doc.txt
expect "unknown what" 'error: reduce: "bogus" is not file, stdin or arg'
qz -ex 'reduce arg 1' $B/rd_calc-O0
expect "no arguments" 'error: reduce: the program has no arguments'

# --- from the shell ---
cp tests/fixtures/rd_calc.txt $T/calc.txt
rm -f $T/calc.txt.min
$QZDB --reduce "stdin $T/calc.txt --plain --jobs 2" $B/rd_calc-O0 >$T/out 2>$T/err
RC=$?
expect_rc "--reduce: exit 0" 0
min_is "--reduce: the .min" $T/calc.txt.min '4/0'
$QZDB --reduce "stdin $T/fine.txt" $B/rd_calc-O0 >$T/out 2>&1
RC=$?
expect_rc "--reduce with no failure: exit 1" 1

# --- Ctrl-C keeps the best so far; progress once a second on stderr ---
{ i=0; while [ $i -lt 10 ]; do echo "1 s 500"; i=$((i + 1)); done; echo "8 / 0"; } > $T/slow.txt
# emptied here: the background job's own 2> may run after the loop below
# first reads the file, which then held the last reduction's "best 3
# bytes" (an immediate Ctrl-C, before any smaller input: the flake)
: > $T/err
$QZDB --reduce "stdin $T/slow.txt --plain --jobs 5" $B/rd_calc-O0 >$T/out 2>$T/err &
pid=$!
# Ctrl-C once the search has found a smaller input (its progress line
# says so), with seconds of search left: each run sleeps half a second a
# line it keeps. Up to 90 s for that line (a Ctrl-C before any smaller
# input is a failure of the command: a different check).
i=0
while [ $i -lt 900 ] && ! grep -Eq '^reduce: .*best ([0-9]|[1-7][0-9]) bytes' $T/err; do
	sleep 0.1
	i=$((i + 1))
done
kill -INT $pid
wait $pid
RC=$?
OUT=$(cat $T/out)
expect_rc "Ctrl-C: the command still succeeds" 0
expect "Ctrl-C: the best so far" '^Interrupted: the best so far for standard input from [0-9]+ to [0-9]+ bytes'
if [ -s $T/slow.txt.min ] && [ "$(wc -c < $T/slow.txt.min)" -lt "$(wc -c < $T/slow.txt)" ] &&
   ! $B/rd_calc-O0 < $T/slow.txt.min >/dev/null 2>&1; then
	pass "Ctrl-C: the best so far is smaller and fails"
else
	fail "Ctrl-C: the best so far is smaller and fails" "$(cat $T/slow.txt.min 2>/dev/null | head -3)"
fi
OUT=$(cat $T/err)
expect "progress on stderr" '^reduce: [0-9]+ runs, [0-9]+ s, best [0-9]+ bytes$'
# before anything smaller is kept the best is the original, never 0 bytes
# (a "best 0 bytes" line during the original's runs sent the Ctrl-C above
# before any smaller input on a loaded machine: the flake of two sessions)
expect_not "progress: no best of 0 bytes" '^reduce: .*best 0 bytes$'

# --- confined runs: where the kernel allows, a run writes only under the
# reduction's scratch directory (the program sees EPERM elsewhere); the
# runs that hold a 'w' try to create a file outside it ---
printf 'aawaxaawaa' > $T/w.txt
rm -f $T/escape
qz -ex 'reduce file 1 --plain --jobs 2' $B/rd_write-O0 $T/w.txt $T/escape
if printf '%s\n' "$OUT" | grep -q '^Runs are confined: '; then
	expect "confined: reduced" '^Reduced .*w.txt from 10 to 1 bytes \(ddmin\)'
	min_is "confined: minimal input" $T/w.txt.min 'x'
	if [ -e $T/escape ]; then fail "confined: no write outside" "$T/escape was created"
	else pass "confined: no write outside"; fi
else
	expect "not confined: says why" '^Runs are not confined: '
	skip "confined: no write outside" "this kernel cannot confine runs (Landlock or seccomp missing)"
fi
qz -ex 'reduce file 1 --plain --jobs 2 --no-sandbox' $B/rd_write-O0 $T/w.txt $T/escape
expect "--no-sandbox: said" '^Runs are not confined \(--no-sandbox\)\.$'
expect "--no-sandbox: reduced" '^Reduced .*w.txt from 10 to 1 bytes \(ddmin\)'
if [ -e $T/escape ]; then pass "--no-sandbox: the runs wrote outside"
else fail "--no-sandbox: the runs wrote outside" "$T/escape was not created"; fi

# --- a session file keeps the reduction's outcome; a replay does not
# search again but runs NAME.min, which must still fail the same way ---
mkdir -p $T/sess
cp $B/rd_nest-O0 $T/sess/rd_nest
cp tests/fixtures/rd_nest.txt $T/sess/doc.txt
(cd $T/sess && timeout 120 $OLDPWD/$QZDB --batch --record-session s.qzs -ex 'reduce file 1 --jobs 2' \
	./rd_nest doc.txt >/dev/null 2>&1)
if grep -q '^Reduced doc.txt from 982 to 3 bytes (guided): doc.txt.min$' $T/sess/s.qzs &&
   ! grep -q ' runs, \|Runs are confined' $T/sess/s.qzs; then
	pass "session: the outcome kept, not the runs and times"
else
	fail "session: the outcome kept, not the runs and times" "$(cat $T/sess/s.qzs)"
fi
OUT=$(cd $T/sess && timeout 120 $OLDPWD/$QZDB --replay s.qzs --check 2>&1); RC=$?
expect_rc "session: --check verifies the result" 0
expect "session: the replay ran the result" '^Reduced doc.txt from 982 to 3 bytes \(guided\): doc.txt.min$'
expect_not "session: the replay did not search" '^\(in [0-9]+ runs'
printf '{{' > $T/sess/doc.txt.min   # a result that no longer fails
OUT=$(cd $T/sess && timeout 120 $OLDPWD/$QZDB --replay s.qzs --check 2>&1); RC=$?
expect_rc "session: --check fails when the result no longer fails" 1
expect "session: says how it ended" 'doc.txt.min \(2 bytes\) no longer fails the same way: it ended with exit status'
rm -f $T/sess/doc.txt.min
OUT=$(cd $T/sess && timeout 120 $OLDPWD/$QZDB --replay s.qzs --check 2>&1); RC=$?
expect "session: a missing result, and why" "the session's result doc.txt.min cannot be read \\(reduce: cannot read doc.txt.min: No such file or directory\\.\\)"
# a stranger's session may not lift the confinement
sed 's/^(qzdb) reduce file 1 --jobs 2$/(qzdb) reduce file 1 --no-sandbox/' $T/sess/s.qzs > $T/sess/u.qzs
OUT=$(cd $T/sess && timeout 120 $OLDPWD/$QZDB --replay u.qzs --check 2>&1); RC=$?
expect "session: --no-sandbox refused in a replay" 'may not lift the confinement of the runs'
