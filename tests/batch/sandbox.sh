#!/bin/sh
# The sandbox (Landlock + seccomp) around a launched program: `set sandbox
# on` and --replay. The fixture does its legitimate work (reads its input,
# writes its output in the scratch directory, prints) and then tries what
# must be denied: a write in $HOME, a directory outside scratch, execve of
# /bin/sh, a TCP connect to 127.0.0.1, ptrace, SIGTERM to its parent.
. tests/lib.sh
fixtures_build || { fail "fixtures build" "gcc failed"; exit 1; }
BIN=$B/sandboxed-O0
T=$(pwd)/$B/sandbox
rm -rf $T "$B/sandbox.qzs" "$B/sandbox-"*.qzs
mkdir -p $T/home $T/scratch
echo "hello input" > $T/in.txt
MARK=$T/marker
touch $MARK
export HOME=$T/home

# Files newer than the marker outside the scratch directory (the test's
# own files excepted): proof that nothing was written elsewhere.
written_outside() {
	find $T -mindepth 1 -newer $MARK ! -path "$T/scratch" ! -path "$T/scratch/*" \
		! -name rec.out 2>/dev/null
}

denials() {
	expect "$1: program's input read" '^read: hello input$'
	expect "$1: output written in scratch" '^legit work: ok$'
	expect "$1: write in HOME denied with EPERM" '^write outside: EPERM$'
	expect "$1: write in HOME reported" "^\[sandbox: denied open\(\"$T/home/evil\"\) for writing\]$"
	expect "$1: mkdir outside scratch denied by Landlock" '^mkdir outside: EACCES$'
	expect "$1: execve denied" '^execve: EPERM$'
	expect "$1: execve reported" '^\[sandbox: denied execve\("/bin/sh"\)\]$'
	expect_not "$1: no shell ran" 'SHELL-RAN'
	expect "$1: socket denied" '^socket: EPERM$'
	expect "$1: socket reported" '^\[sandbox: denied socket\(AF_INET\)\]$'
	expect "$1: ptrace denied" '^ptrace: EPERM$'
	expect "$1: ptrace reported" '^\[sandbox: denied ptrace\(PTRACE_TRACEME\)\]$'
	expect "$1: kill of the parent denied" '^kill parent: EPERM$'
	expect "$1: kill reported" '^\[sandbox: denied kill\(pid [0-9]+, SIGTERM\)\]$'
	expect "$1: a signal to itself still works" '^raise: ok$'
	expect "$1: program finished" '^done$'
}

qz --scratch $T/scratch -ex 'set sandbox on' -ex 'show sandbox' -ex run -ex continue \
	$BIN $T/in.txt $T/scratch/out.txt
expect_rc "set sandbox on: batch succeeds" 0
expect "show sandbox names the scratch directory" "writes only under $T/scratch;"
denials "set sandbox on"
OUT=$(cat $T/scratch/out.txt 2>&1)
expect "output file has the program's result" '^processed hello input$'
[ ! -e $T/home/evil ] && pass "no file in HOME" || fail "no file in HOME" "$T/home/evil exists"
OUT=$(written_outside)
[ -z "$OUT" ] && pass "nothing written outside scratch" || fail "nothing written outside scratch" "$OUT"

qz --scratch $T/scratch --allow-network -ex 'set sandbox on' -ex run -ex continue \
	$BIN $T/in.txt $T/scratch/out.txt 1
expect "--allow-network: socket allowed" '^socket: ok$'
expect "--allow-network: connect reaches loopback (refused, not denied)" '^connect: ECONNREFUSED$'
expect_not "--allow-network: nothing reported about sockets" 'denied (socket|connect)'
expect "--allow-network: execve still denied" '^execve: EPERM$'

qz -ex 'set sandbox on' -ex 'show sandbox' -ex 'set sandbox off' -ex 'show sandbox' $BIN
expect "default scratch is a fresh directory" 'writes only under /.*/qzdb-scratch-[A-Za-z0-9]{6};'
expect "set sandbox off" '^The sandbox is off'
SCR=$(printf '%s\n' "$OUT" | sed -n 's/.*writes only under \(.*\); no exec.*/\1/p')
[ -n "$SCR" ] && [ ! -e "$SCR" ] && pass "an empty scratch directory qzdb made is removed" ||
	fail "an empty scratch directory qzdb made is removed" "$SCR"

# A checkpoint inside the sandbox (qzdb's injected calls pass the filter),
# recorded as a session; the denials are part of the transcript.
(cd $B && timeout 60 ../../qzdb --batch --record-session sandbox.qzs --scratch $T/scratch \
	-ex 'set sandbox on' -ex 'break stage' -ex run -ex checkpoint -ex delete \
	-ex continue -ex continue -ex 'rollback 1' -ex continue -ex continue \
	sandboxed-O0 > $T/rec.out 2>&1 </dev/null)
OUT=$(cat $T/rec.out)
expect "checkpoint in the sandbox" '^Checkpoint 1 at sandboxed\.c:'
expect "rollback in the sandbox" '^#0  stage \(n=1\)'
N=$(grep -c '^\[sandbox: denied execve' $T/rec.out)
[ "$N" = 2 ] && pass "denials again after the rollback" || fail "denials again after the rollback" "$N reports"
N=$(grep -c '^done$' $T/rec.out)
[ "$N" = 2 ] && pass "program finished twice" || fail "program finished twice" "$N"
OUT=$(cat $B/sandbox.qzs)
expect "denials in the transcript" '^\[sandbox: denied execve\("/bin/sh"\)\]$'

OUT=$(timeout 60 $QZDB --replay $B/sandbox.qzs --check --scratch $T/scratch 2>&1); RC=$?
expect_rc "replay --check of the sandboxed session" 0
expect "replay names the scratch directory" "sandboxed; it may write only under $T/scratch"
denials "replay"

# Without `set sandbox on` in the file, a replay is sandboxed all the same.
grep -v '^(qzdb) set sandbox on$' $B/sandbox.qzs > $B/sandbox-noset.qzs
OUT=$(timeout 60 $QZDB --replay $B/sandbox-noset.qzs --check --scratch $T/scratch 2>&1); RC=$?
expect_rc "replay without set sandbox on still checks" 0
denials "replay without set sandbox"

# A session cannot turn the sandbox off.
sed 's/^(qzdb) set sandbox on$/(qzdb) set sandbox off/' $B/sandbox.qzs > $B/sandbox-off.qzs
OUT=$(timeout 60 $QZDB --replay $B/sandbox-off.qzs --scratch $T/scratch 2>&1); RC=$?
expect "replayed set sandbox off is refused" '^error: The sandbox stays on in a replayed session'
expect_not "replayed set sandbox off: nothing ran unconfined" '^write outside: ok|SHELL-RAN'
OUT=$(timeout 10 $QZDB --batch --unsandboxed $BIN 2>&1); RC=$?
expect_rc "--unsandboxed without --replay is a usage error" 2

[ ! -e $T/home/evil ] && [ ! -e $T/home/evil.d ] && pass "HOME untouched after every run" ||
	fail "HOME untouched after every run" "$(ls $T/home)"
OUT=$(written_outside)
[ -z "$OUT" ] && pass "nothing written outside scratch after every run" ||
	fail "nothing written outside scratch after every run" "$OUT"
