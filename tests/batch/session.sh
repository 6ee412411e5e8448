#!/bin/sh
# Session files: --record-session, save session, --replay with --check and
# --step, comments as captions, and a replayed file treated as data
# (malformed files, a changed program, a program outside the file's
# directory, refused commands; tests/batch/adversarial.sh has the rest).
. tests/lib.sh
BIN=$B/bug_nullp-O0
S=$B/sess
rm -rf $S
mkdir -p $S

qz --record-session $S/rec.qzs -ex 'break find_entry' -ex 'run' -ex 'bt' \
	-ex 'print *table@2' -ex 'continue' -ex 'info breakpoints' $BIN
OUT=$(cat $S/rec.qzs)
expect "record: header" '^# qzdb session$'
expect "record: version" '^#@ version 1$'
expect "record: program relative to the file" '^#@ program \.\./bug_nullp-O0$'
expect "record: build-id" '^#@ build-id [0-9a-f]{40}$'
expect "record: command line" '^\(qzdb\) print \*table@2$'
expect "record: its output" '^\$1 = \{\{key = 0x[0-9a-f]+ "alpha", value = 1\}'
expect "record: backtrace lines are output" '^#1  0x[0-9a-f]+ in main \(\) at'
expect "record: end marker" '^#@ end$'

OUT=$(timeout 60 ./qzdb --program $BIN --replay $S/rec.qzs --check 2>&1); RC=$?
expect_rc "replay --check of an unchanged session" 0
expect "replay shows the commands" '^\(qzdb\) continue$'
expect "replay shows the output" 'Breakpoint 1, find_entry \(key=0x[0-9a-f]+ "gamma"\)'
no_leftover "replay leaves no process" $BIN

# A recording cut off when qzdb died (no "#@ end", the last output cut
# short): replayed up to its last complete command, with a warning.
grep -v '^#@ end$' $S/rec.qzs | head -c -40 > $S/cut.qzs
OUT=$(timeout 60 ./qzdb --program $BIN --replay $S/cut.qzs --check 2>&1); RC=$?
expect_rc "cut recording: replayed (--check)" 0
expect "cut recording: warns" '^warning: .*cut\.qzs: truncated: the file ends without its "#@ end" line; replaying its 5 complete commands\.$'
expect "cut recording: replays the complete commands" '^\(qzdb\) continue$'
expect_not "cut recording: not the cut one" '^\(qzdb\) info breakpoints$'
printf '# qzdb session\n#@ version 1\n#@ program ../bug_nullp-O0\n(qzdb) info breakpoints\nNo breakp' > $S/cut1.qzs
OUT=$(timeout 60 ./qzdb --program $BIN --replay $S/cut1.qzs 2>&1); RC=$?
expect_rc "cut in the first command: status" 0
expect "cut in the first command: nothing to replay" 'replaying its 0 complete commands\.$'
printf '# qzdb session\n#@ version 1\n#@ prog' > $S/cut2.qzs
OUT=$(timeout 60 ./qzdb --program $BIN --replay $S/cut2.qzs 2>&1); RC=$?
expect_rc "cut in the header: refused" 1
expect "cut in the header: names the line" 'cut2\.qzs:3: unknown header field "prog"'

sed 's/value = 2}}/value = 5}}/' $S/rec.qzs > $S/changed.qzs
OUT=$(timeout 60 ./qzdb --program $BIN --replay $S/changed.qzs --check 2>&1); RC=$?
expect_rc "replay --check stops at a difference" 1
_l=$(grep -n '^(qzdb) print \*table@2$' $S/changed.qzs | cut -d: -f1)
expect "difference names the line and command" "changed\\.qzs:$_l: the output of \`print \\*table@2\` differs\\."
expect "difference shows the saved output" 'value = 5\}\}$'
expect_not "nothing runs after the difference" '^\(qzdb\) continue$'

# Comments are captions; output lines keep process ids out of the check.
awk '/^\(qzdb\) bt$/ { print "# The stack shows who called find_entry."; print "#"; }
     /^\(qzdb\) continue$/ { print "# Go on to the next lookup." } { print }' \
	$S/rec.qzs > $S/annotated.qzs
OUT=$(timeout 60 ./qzdb --program $BIN --replay $S/annotated.qzs --check 2>&1); RC=$?
expect_rc "annotated session still checks" 0
expect "caption shown before its command" '^# The stack shows who called find_entry\.$'

qz -ex 'break find_entry' -ex 'run' -ex 'finish' -ex "save session $S/saved.qzs" $BIN
expect "save session reports" "^Saved 3 commands to $S/saved\.qzs\.$"
OUT=$(grep -c '^(qzdb) ' $S/saved.qzs)
[ "$OUT" = 3 ] && pass "save session writes the commands so far" || fail "save session writes the commands so far" "$OUT commands"
OUT=$(timeout 60 ./qzdb --program $BIN --replay $S/saved.qzs --check 2>&1); RC=$?
expect_rc "saved session replays and checks" 0
expect "finish value replayed" '^Value returned is \$1 = '

OUT=$(printf '\n\nq\n' | timeout 60 ./qzdb --program $BIN --replay $S/rec.qzs --step 2>&1); RC=$?
expect_rc "step mode stops on q" 0
expect "step mode ran the first commands" '^Breakpoint 1, find_entry'
expect_not "step mode stopped before bt" '^#0  find_entry'
expect "step mode prompts" 'space or Enter: run, b: back, q: stop'
OUT=$(printf '\nb\nq\n' | timeout 60 ./qzdb --program $BIN --replay $S/rec.qzs --step 2>&1)
expect "back without a checkpoint says so" 'Cannot go back|back one step'

# b in --step goes back with hidden checkpoints: the session's own
# checkpoint keeps its number, the command re-run prints the same, and
# nothing of the going back shows in the listing or the transcript.
qz --record-session $S/ck.qzs -ex 'break find_entry' -ex run -ex checkpoint -ex next -ex next \
	-ex 'print i' -ex 'rollback 1' -ex 'print key' -ex 'info checkpoints' \
	-ex "save session $S/ck-step.qzs" $BIN
rm -f $S/ck-step.qzs
OUT=$(printf '\n\n\n\n\nb\n\n\n\n\n\n\n' | timeout 60 ./qzdb --program $BIN --replay $S/ck.qzs --step --allow-unsafe 2>&1)
expect "step back: says so" '^\[back one step\]$'
expect "step back: the session's checkpoint keeps number 1" '^Checkpoint 1 at bug_nullp\.c:18 '
N=$(printf '%s\n' "$OUT" | grep -Ec '^20[[:space:]]+return &table\[i\];$')
[ "$N" = 2 ] && pass "step back: the re-run next prints the same line" ||
	fail "step back: the re-run next prints the same line" "seen $N times"
expect "step back: rollback 1 is the session's checkpoint" '^\$2 = 0x[0-9a-f]+ "alpha"$'
expect "step back: info checkpoints marks the session's as current" '^\* 1 '
expect_not "step back: no hidden checkpoint listed" '^[ *] (-|[2-9])'
OUT=$(cat $S/ck-step.qzs 2>&1)
expect "step back: save session in the replay wrote the file" '^\(qzdb\) info checkpoints$'
expect_not "step back: no quiet checkpoint or rollback in the transcript" '^\(qzdb\) (rollback [^1]|checkpoint .)'
N=$(grep -c '^(qzdb) checkpoint$' $S/ck-step.qzs)
[ "$N" = 1 ] && pass "step back: only the session's own checkpoint in the transcript" ||
	fail "step back: only the session's own checkpoint in the transcript" "$N checkpoint commands"
OUT=$(printf '\n\n\nb\n\n\n\n\n\n\n\n\n\n' | timeout 60 ./qzdb --program $BIN --replay $S/ck.qzs --step --allow-unsafe 2>&1)
N=$(printf '%s\n' "$OUT" | grep -c '^Checkpoint 1 at bug_nullp\.c:18 ')
[ "$N" = 2 ] && pass "step back over checkpoint: it gets number 1 again" ||
	fail "step back over checkpoint: it gets number 1 again" "Checkpoint 1 seen $N times"
expect_not "step back over checkpoint: no checkpoint 2" '^Checkpoint 2'
expect "step back over checkpoint: rollback 1 still works" '^\$2 = 0x[0-9a-f]+ "alpha"$'

# --check ignores what depends on where qzdb runs (the checkpoint's page
# count, the warning about inherited terminals and pipes) but not the rest.
cp examples/nullp.qzs $S/norm.qzs 2>/dev/null && sh examples/build.sh && {
	sed -i 's/^#@ program build\//#@ program ..\/..\/..\/examples\/build\//' $S/norm.qzs
	sed -i 's/^\(Checkpoint 1 at nullp.c:29\) (.*)$/\1 (99 pages, 396 KiB)/' $S/norm.qzs
	sed -i '/^Checkpoint 1 at nullp.c:29/a warning: a rollback does not undo: output already written to a terminal or pipe (fd 7) stays written.' $S/norm.qzs
	OUT=$(timeout 120 ./qzdb --program examples/build/nullp --replay $S/norm.qzs --check 2>&1); RC=$?
	expect_rc "check ignores page counts and the fd warning" 0
	sed 's/^Checkpoint 1 at nullp.c:29/Checkpoint 2 at nullp.c:29/' $S/norm.qzs > $S/norm2.qzs
	OUT=$(timeout 120 ./qzdb --program examples/build/nullp --replay $S/norm2.qzs --check 2>&1); RC=$?
	expect_rc "check still catches a changed checkpoint number" 1
	expect "check names the checkpoint line" 'the output of `checkpoint` differs'
}

# Malformed files: a clear error naming the line, nothing run.
bad() {
	printf "$2" > $S/bad.qzs
	OUT=$(timeout 60 ./qzdb --program $BIN --replay $S/bad.qzs 2>&1); RC=$?
	expect_rc "$1: status" 1
	expect "$1: message" "$3"
}
bad "not a session file" 'hello\n' '^error: .*bad\.qzs:1: not a qzdb session file'
bad "unknown header field" '# qzdb session\n#@ version 1\n#@ colour red\n' 'bad\.qzs:3: unknown header field "colour red"'
bad "newer format" '# qzdb session\n#@ version 7\n' 'bad\.qzs:2: format version 7 is newer'
bad "output before a command" '# qzdb session\n#@ version 1\n#@ program ../bug_nullp-O0\nstray text\n' 'bad\.qzs:4: text before the first command'
bad "no program" '# qzdb session\n#@ version 1\n(qzdb) run\n' 'bad\.qzs:3: command before the header.s program'
bad "binary data" '# qzdb session\n#@ version 1\n\000\n' 'bad\.qzs:3: binary data'
head -c 4096 /dev/urandom > $S/random.qzs
OUT=$(timeout 60 ./qzdb --program $BIN --replay $S/random.qzs 2>&1); RC=$?
expect_rc "random bytes: status" 1
expect "random bytes: clear error" '^error: .*random\.qzs:[0-9]+: '
OUT=$(timeout 60 ./qzdb --program $BIN --replay $S/missing.qzs 2>&1); RC=$?
expect_rc "missing session file" 1
expect "missing session file message" 'missing\.qzs: No such file or directory'

# A different program is refused unless --force.
sed 's/^#@ build-id .*/#@ build-id 0000000000000000000000000000000000000000/' $S/rec.qzs > $S/other.qzs
OUT=$(timeout 60 ./qzdb --program $BIN --replay $S/other.qzs --check 2>&1); RC=$?
expect_rc "changed build-id refused" 1
expect "changed build-id message" 'has build-id [0-9a-f]+, the session was recorded with 0000'
OUT=$(timeout 60 ./qzdb --program $BIN --replay $S/other.qzs --check --force 2>&1); RC=$?
expect_rc "--force replays anyway" 0

# The program must be the one given (--program) or lie inside the file's
# directory tree: the recorded ../bug_nullp-O0 does not.
OUT=$(timeout 60 ./qzdb --replay $S/rec.qzs --check 2>&1); RC=$?
expect_rc "program outside the file's directory: refused" 1
expect "program outside the file's directory: names the path and --program" \
	'rec\.qzs: the session names the program "\.\./bug_nullp-O0", which is not a regular file inside the session file.s directory; refused\. .*--program PATH'
mkdir -p $S/in && cp $BIN $S/in/prog && sed 's|^#@ program .*|#@ program in/prog|' $S/rec.qzs > $S/inside.qzs
OUT=$(timeout 60 ./qzdb --replay $S/inside.qzs --check 2>&1); RC=$?
expect_rc "program inside the file's directory: replays" 0

# A replayed file is data: the first refused command stops the replay
# with one line naming it and --allow-unsafe.
head -5 $S/rec.qzs > $S/evil.qzs
printf '(qzdb) echo before\\n\nbefore\n(qzdb) shell touch /tmp/qzdb-evil-shell\n(qzdb) echo after the shell\\n\n#@ end\n' >> $S/evil.qzs
rm -f /tmp/qzdb-evil-shell
OUT=$(timeout 60 ./qzdb --program $BIN --replay $S/evil.qzs 2>&1); RC=$?
expect "replay runs what comes before" '^before$'
expect "replay refuses shell in one line" '^error: .*evil\.qzs:8: a replayed session may not run `shell`: it runs a shell command \(replay with --allow-unsafe to allow it\)\.$'
expect_not "replay stops at a refused command" '^after the shell$'
expect_rc "refused command fails the replay" 1
[ -e /tmp/qzdb-evil-shell ] && fail "shell not run" "/tmp/qzdb-evil-shell exists" || pass "shell not run"
head -5 $S/rec.qzs > $S/evil2.qzs
printf '(qzdb) save session %s/x.qzs\n#@ end\n' $S >> $S/evil2.qzs
OUT=$(timeout 60 ./qzdb --program $BIN --replay $S/evil2.qzs 2>&1); RC=$?
expect "replay refuses save session" 'may not run `save session`: it writes a file'
[ -e $S/x.qzs ] && fail "save session refused: nothing written" "$S/x.qzs" || pass "save session refused: nothing written"
OUT=$(timeout 60 ./qzdb --program $BIN --replay $S/evil2.qzs --allow-unsafe 2>&1); RC=$?
expect_rc "--allow-unsafe lets it run" 0
[ -e $S/x.qzs ] && pass "--allow-unsafe: save session wrote" || fail "--allow-unsafe: save session wrote" "no $S/x.qzs"

OUT=$(timeout 10 ./qzdb --check $BIN 2>&1); RC=$?
expect_rc "--check without --replay is a usage error" 2

# Bad input to save session: a clear error, nothing written.
qz -ex 'save session' -ex 'save session /nonexistent/dir/x.qzs' $BIN
expect "save session without a file" '^error: Argument required \(file name\)\.$'
expect "save session to a missing directory" '^error: /nonexistent/dir/x\.qzs: No such file or directory\.$'
expect_rc "save session errors fail the batch" 1

# Safe writes: a symbolic link at the path is replaced, never followed;
# a failed save leaves the old file whole.
rm -rf $S/w && mkdir -p $S/w
echo precious > $S/w/target
ln -s target $S/w/link.qzs
qz -ex 'break find_entry' -ex "save session $S/w/link.qzs" $BIN
expect "save session through a link: saved" "^Saved 1 commands to $S/w/link\.qzs\.$"
[ "$(cat $S/w/target)" = precious ] && pass "save session does not follow a link" ||
	fail "save session does not follow a link" "target now: $(head -1 $S/w/target)"
[ -f $S/w/link.qzs ] && [ ! -L $S/w/link.qzs ] && pass "save session replaced the link by the file" ||
	fail "save session replaced the link by the file" "$(ls -l $S/w/link.qzs)"
ln -s target $S/w/rec-link.qzs
qz --record-session $S/w/rec-link.qzs -ex 'break find_entry' $BIN
[ "$(cat $S/w/target)" = precious ] && pass "--record-session does not follow a link" ||
	fail "--record-session does not follow a link" "target now: $(head -1 $S/w/target)"
[ -z "$(ls -A $S/w | grep '^\.')" ] && pass "no temporary file left" || fail "no temporary file left" "$(ls -A $S/w)"

# Recording under ulimit -f (SIGXFSZ ignored, EFBIG reported): qzdb goes
# on, the file keeps every complete command and stays a valid session.
OUT=$(sh -c "ulimit -f 1; exec timeout 60 ./qzdb --batch --record-session $S/w/full.qzs \
	-ex 'break find_entry' -ex run -ex 'info breakpoints' -ex 'disassemble main' \
	-ex 'disassemble find_entry' -ex 'echo still alive\\n' $BIN" 2>&1); RC=$?
expect "ulimit -f: a clear error" "^error: $S/w/full\.qzs: File too large: recording stopped; the file keeps every command completed before this one\.$"
expect "ulimit -f: qzdb goes on" '^still alive$'
[ $RC -lt 128 ] && pass "ulimit -f: not killed by SIGXFSZ" || fail "ulimit -f: not killed by SIGXFSZ" "status $RC"
OUT=$(tail -1 $S/w/full.qzs)
expect "ulimit -f: the file ends with its end marker" '^#@ end$'
OUT=$(grep '^(qzdb) ' $S/w/full.qzs)
expect "ulimit -f: the commands before the failure kept" '^\(qzdb\) run$'
OUT=$(timeout 60 ./qzdb --program $BIN --replay $S/w/full.qzs --check 2>&1); RC=$?
expect_rc "ulimit -f: what was kept replays and checks" 0
# qzdb survives SIGXFSZ, but the program it runs still gets the signal as
# in a shell (a handler, not SIG_IGN, which the program would inherit).
ROOT=$(pwd)
OUT=$(cd $S/w && sh -c "ulimit -f 1; exec timeout 60 $ROOT/qzdb --batch -ex run --args /bin/sh -c 'head -c 100000 /dev/zero > big; echo status \$?'" 2>&1)
expect "the program still dies of SIGXFSZ" '^status 153$'
