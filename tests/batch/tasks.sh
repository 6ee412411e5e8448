#!/bin/sh
# Walkthroughs with exercises: `caption`, `task` and `expect` typed while
# recording become "#@ caption", "#@ task", "#@ expect" lines and "#@ done"
# follows the first command at which every expectation holds; --check
# checks the recorded answer meets them; a file's directives are untrusted
# (length limits, patterns compiled by regcomp with errors on their line,
# no back-references, only commands that change nothing).
. tests/lib.sh
fixtures_build || exit 1
BIN=$B/bug_nullp-O0
S=$B/tasks
rm -rf $S
mkdir -p $S
cp $BIN $S/prog

for c in caption task expect; do
	qz -ex "help $c"
	expect_rc "help $c" 0
done

F=$S/rec.qzs
(cd $S && timeout 60 ../../../$QZDB --batch --record-session rec.qzs \
	-ex 'break find_entry' -ex run -ex 'caption We stop in find_entry.' \
	-ex 'task Go on to the call for "delta".' -ex 'expect print key => "delta"' \
	-ex 'expect info line => ^Line 18 ' -ex continue -ex continue -ex 'print key' \
	-ex 'task Print the table entry it compares first.' -ex 'expect printed => "alpha"' \
	-ex 'print table[0]' -ex 'bt' ./prog >/dev/null 2>&1)
OUT=$(cat $F)
expect "caption written as a directive" '^#@ caption We stop in find_entry\.$'
expect "task written as a directive" '^#@ task Go on to the call for "delta"\.$'
expect "expect written as a directive" '^#@ expect print key => "delta"$'
expect_not "no caption/task/expect commands" '^\(qzdb\) (caption|task|expect) '
n=$(grep -n '^#@ done' $F | head -n 1 | cut -d: -f1)
prev=$(sed -n "$((n - 3)),$((n - 1))p" $F)
echo "$prev" | grep -q '"delta"' && pass "#@ done follows the command that met the task" ||
	fail "#@ done follows the command that met the task" "before it: $prev"
expect_count "two tasks, two dones" 2 '^#@ done$'
OUT=$($QZDB --replay $F --check 2>&1); RC=$?
expect_rc "the teacher's answer passes --check" 0
expect "the replay shows the task" '^# Task: Go on to the call for "delta"\.$'
expect "the caption shows before it" '^# We stop in find_entry\.$'

# an answer that does not reach the state fails --check, naming the task
sed 's/^#@ expect print key => "delta"$/#@ expect print key => "beta"/' $F > $S/wrong.qzs
OUT=$($QZDB --replay $S/wrong.qzs --check 2>&1); RC=$?
expect_rc "a wrong answer fails --check" 1
expect "the failure names the task's line" 'wrong\.qzs:[0-9]+: the recorded answer does not meet the task'"'"'s expectations: `print key` printed: .*"delta"'

# untrusted directives: each refused with its line
P=$S/plain.qzs
(cd $S && timeout 60 ../../../$QZDB --batch --record-session plain.qzs -ex 'break find_entry' \
	-ex run -ex bt ./prog >/dev/null 2>&1)
bad() {   # bad NAME LINE PATTERN: a copy of plain.qzs with LINE after the header
	{ sed -n 1,5p $P; printf '%s\n' "$2"; sed -n '6,$p' $P; } > $S/bad.qzs
	OUT=$($QZDB --replay $S/bad.qzs --check 2>&1); RC=$?
	[ $RC != 0 ] && printf '%s\n' "$OUT" | grep -Eq -- "$3" && pass "$1" ||
		fail "$1" "status $RC: $(printf '%s\n' "$OUT" | head -3)"
}
{ sed -n 1,5p $P; printf '#@ task T\n#@ expect print 1 => a([\n'; sed -n '6,$p' $P; } > $S/bad.qzs
OUT=$($QZDB --replay $S/bad.qzs --check 2>&1); RC=$?
expect "a regex that does not compile: its line" 'bad\.qzs:7: bad pattern "a\(\[": '
bad "a back-reference is refused" '#@ expect print 1 => (a*)*\1' 'bad\.qzs:6: (an expectation outside a task|a pattern may not use back-references)'
{ sed -n 1,5p $P; printf '#@ task T\n#@ expect print 1 => (a|b)\\1\n'; sed -n '6,$p' $P; } > $S/bad.qzs
OUT=$($QZDB --replay $S/bad.qzs --check 2>&1); RC=$?
expect "back-references refused" 'bad\.qzs:7: a pattern may not use back-references'
bad "an expectation outside a task" '#@ expect print 1 => 1' 'bad\.qzs:6: an expectation outside a task'
bad "#@ done without a task" '#@ done' 'bad\.qzs:6: "#@ done" without a task'
bad "a caption too long" "#@ caption $(printf 'x%.0s' $(seq 1 600))" 'bad\.qzs:6: a caption is 1 to 500 bytes'
bad "a task never done" '#@ task Never ends' 'bad\.qzs:6: the task has no "#@ done"'
{ sed -n 1,5p $P; printf '#@ task T\n#@ expect next => 1\n#@ done\n'; sed -n '6,$p' $P; } > $S/bad.qzs
OUT=$($QZDB --replay $S/bad.qzs --check 2>&1); RC=$?
expect "an expectation must change nothing" 'bad\.qzs:7: an expectation.s command must change nothing'
expect_rc "... and the replay runs nothing" 1
expect_not "... nothing of it ran" 'Breakpoint 1 at'

# recording: expect without a task, a bad pattern, a command that steps
qz -ex 'expect print 1 => 1' $BIN
expect "expect needs a task" 'No task: "task TEXT" first\.'
qz -ex 'task T' -ex 'expect print 1 => a([' -ex 'expect step => x' $BIN
expect "expect reports a bad pattern" 'expect: bad pattern "a\(\["'
expect "expect refuses a command that changes things" 'expect: an expectation.s command must change nothing'
