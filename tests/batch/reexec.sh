#!/bin/sh
# Re-execution from a checkpoint beyond any recorded region (ckpt/rx*.c,
# issue 19) on tests/fixtures/reexec.c, which reads stdin and a file,
# rewrites the file, asks time(), clock_gettime() (vDSO calls), getpid()
# and rand() seeded from the nanoseconds, prints them, then crashes:
#   - after the crash, reverse-continue to a breakpoint before it shows
#     the values the run printed (a re-run that made these calls again
#     would see the rewritten file and other nanoseconds), twice back;
#     continuing forward reproduces the same crash with the same values;
#   - the log holds time() and clock_gettime() as system calls (the vDSO
#     patched);
#   - the past altered (a read's count changed) diverges from the log:
#     stopped with the message, live from there;
#   - the same with the pagemap and hash checkpoint methods forced;
#   - set exec-direction reverse with re-execution alone: continue and
#     next go back;
#   - refusals: a program that started a thread; no checkpoint-interval
#     leaves reverse-continue to the recorder's message.
. tests/lib.sh
BIN=$B/reexec-O0
D=$B/reexec
mkdir -p $D
IN=$D/in.txt
F=$D/file.txt
echo hello >$IN

# session METHOD CMDS...: a run to the crash with automatic checkpoints
# every 5 ms, then CMDS (the file is made afresh: the program rewrites it).
session() {
	m=$1
	shift
	echo filedata >$F
	qz -ex "set checkpoint-method $m" -ex 'set checkpoint-interval 5' \
	   -ex "run $F 30000000 < $IN" "$@" $BIN
}

# part FROM [TO]: the lines of $ALL from the marker `=== FROM` to `=== TO`
# (or to the end).
part() {
	if [ -n "$2" ]; then printf '%s\n' "$ALL" | sed -n "/^=== $1\$/,/^=== $2\$/p"
	else printf '%s\n' "$ALL" | sed -n "/^=== $1\$/,\$p"; fi
}

# The values the run printed, as patterns for print's output.
printed() {
	line=$(printf '%s\n' "$OUT" | grep -m1 '^line=hello file=')
	T=$(printf '%s\n' "$line" | sed -n 's/.* t=\([0-9]*\) .*/\1/p')
	NS=$(printf '%s\n' "$line" | sed -n 's/.* ns=\([0-9]*\) .*/\1/p')
	PID=$(printf '%s\n' "$line" | sed -n 's/.* pid=\([0-9]*\) .*/\1/p')
	R=$(printf '%s\n' "$line" | sed -n 's/.* r=\([0-9]*\)$/\1/p')
	VALS="file = \"filedata\", .*t = $T, ns = $NS, pid = $PID, r = $R\}"
}

run_main() {
	session "$1" -ex 'break note' -ex 'echo === rc1\n' -ex 'reverse-continue' -ex 'print *s' \
	   -ex 'echo === rc2\n' -ex 'reverse-continue' -ex 'print *s' \
	   -ex 'echo === fwd\n' -ex 'continue' -ex 'continue' -ex 'print s' -ex 'info reexec' \
	   -ex 'maint print-reexec-log'
	ALL=$OUT
}

for m in auto pagemap hash; do
	if [ $m = pagemap ] && ! $QZDB --batch -ex 'set checkpoint-method pagemap' -ex 'break main' \
		-ex run -ex checkpoint $BIN 2>&1 | grep -q '^Checkpoint 1 at'; then
		skip "pagemap" "no PAGEMAP_SCAN here (Linux 6.7)"
		continue
	fi
	run_main $m
	OUT=$ALL
	printed
	if [ -z "$NS" ]; then
		fail "$m: the run printed its values" "no line=... in output"
		printf '%s\n' "$OUT" | sed 's/^/    | /' | head -20
		continue
	fi
	expect "$m: the original crash" '^Program received signal SIGSEGV, Segmentation fault\.$'
	OUT=$(part rc1 rc2)
	expect "$m: reverse-continue stops at the last hit before the crash" \
		'^Breakpoint 1, note \(s=0x[0-9a-f]+, step=2\) at .*reexec\.c:[0-9]+$'
	expect "$m: stdin, the file as read, time, ns, pid, rand as the run printed" \
		"^\\\$1 = \\{line = \"hello\", .*$VALS"
	OUT=$(part rc2 fwd)
	expect "$m: reverse-continue again: the hit before" \
		'^Breakpoint 1, note \(s=0x[0-9a-f]+, step=1\) at .*reexec\.c:[0-9]+$'
	expect "$m: the same values there" "^\\\$2 = \\{line = \"hello\", .*$VALS"
	OUT=$(part fwd)
	expect "$m: forward: the next hit" '^Breakpoint 1, note \(s=0x[0-9a-f]+, step=2\)'
	expect "$m: forward: the same crash" '^Program received signal SIGSEGV, Segmentation fault\.$'
	expect "$m: the same crash line" '^[0-9]+		\*p = note\(&s, 2\);   /\* the crash \*/$'
	expect "$m: the same values at the crash" "^\\\$3 = \\{line = \"hello\", .*$VALS"
	expect "$m: time() logged as a system call" '^ *[0-9]+ time\(0x0, .*\) = '"$T"', 0 bytes$'
	expect "$m: clock_gettime() logged with its 16 bytes" \
		'^ *[0-9]+ clock_gettime\(0x0, .*\) = 0, 16 bytes$'
	expect "$m: getpid() logged" '^ *[0-9]+ getpid\(.*\) = '"$PID"', 0 bytes$'
	[ "$(cat $F)" = changed ] && pass "$m: the run's own rewrite of the file, once" ||
		fail "$m: the run's own rewrite of the file, once" "file holds: $(cat $F)"
	# No call to feed back is possible by timing: the interval's alarm
	# firing while qzdb handles the program's last system call stops it
	# right after that call, and the checkpoint taken there has nothing
	# after it to feed back (hash checkpoints, a loaded machine: now and
	# then). Runs that never feed back fail all three tries.
	_fed='^System-call stops: [0-9]+; calls fed back: [1-9][0-9]*\.$' _try=1
	while ! printf '%s\n' "$OUT" | grep -Eq "$_fed" && [ $_try -lt 3 ]; do
		run_main $m
		OUT=$(part fwd)
		_try=$((_try + 1))
	done
	expect "$m: calls fed back" "$_fed"
done

# The past altered: the read asks for 3 bytes where the run asked for 31.
RL=$(grep -n 'ssize_t n = read(fd, s.file, want);' tests/fixtures/reexec.c | cut -d: -f1)
session auto -ex "break $RL" -ex 'reverse-continue' -ex 'set var want = 3' -ex 'continue' \
	-ex 'info reexec'
expect "divergence: back at the read" '^Breakpoint 1, main \(.*\) at .*reexec\.c:'"$RL"'$'
expect "divergence: said, with both calls" \
	'^warning: re-execution diverged at system call [0-9]+: the program made read\(0x3, 0x[0-9a-f]+, 0x3\) where the run made read\(0x3, 0x[0-9a-f]+, 0x1f\) = 9; the logged rest of the run is dropped and the program runs live from here\.$'
expect "divergence: stopped in the read" '^0x[0-9a-f]+ in .*read'
expect "divergence: the log ends there" \
	'^System calls logged: [0-9]+ \(.*\); the program has made [0-9]+ of them\.$'

# set exec-direction reverse with re-execution alone (no recording): the
# forward commands go back; forward again, the same crash.
session auto -ex 'break note' -ex 'set exec-direction reverse' -ex 'show exec-direction' \
	-ex 'echo === back\n' -ex 'continue' -ex 'next' -ex 'set exec-direction forward' \
	-ex 'echo === fwd\n' -ex 'continue' -ex 'continue'
ALL=$OUT
expect "exec-direction: accepted" '^Reverse\.$'
OUT=$(part back fwd)
expect "exec-direction: continue goes back to the last hit" \
	'^Breakpoint 1, note \(s=0x[0-9a-f]+, step=2\) at .*reexec\.c:[0-9]+$'
expect "exec-direction: next goes back to the call" '^main \(.*\) at .*reexec\.c:[0-9]+$'
OUT=$(part fwd)
expect "exec-direction: forward, the hit again" '^Breakpoint 1, note \(s=0x[0-9a-f]+, step=2\)'
expect "exec-direction: forward, the same crash" '^Program received signal SIGSEGV, Segmentation fault\.$'

# A thread: refused.
qz -ex 'set checkpoint-interval 5' -ex 'break started' -ex run -ex 'reverse-continue' \
	$B/ckpt_threads-O0
expect "threads: refused" \
	'^error: Cannot re-execute from a checkpoint: the program started a thread \(re-execution needs a single-threaded program\)\.$'

# Without automatic checkpoints nothing is logged: the recorder's message.
echo filedata >$F
qz -ex "run $F 1000 < $IN" -ex 'break note' -ex 'reverse-continue' -ex 'info reexec' $BIN
expect "no interval: the recorder's message" \
	'^error: Target native does not support this command \(reverse execution needs "record on" first\)\.$'
expect "no interval: nothing logged" '^No system calls logged'

# Reverse line steps by re-execution, against gdb's `record full` from
# line 67 to the crash (gdb's first reverse-step after the crash goes back
# over the faulting instruction, which it recorded as run: skipped), as
# function:line for frame lines and line for source lines.
MOVES="reverse-step reverse-step reverse-step reverse-finish reverse-next reverse-step reverse-step reverse-next"
stops() {   # the stops after the marker line, normalised
	sed -n '/^=== moves$/,/^=== end$/p' | sed -n \
		-e 's/^\(0x[0-9a-f]* in \)\{0,1\}\([a-z_]*\) (.*) at .*:\([0-9]*\)$/\2:\3/p' \
		-e 's/^\([0-9][0-9]*\)	.*/\1/p' | tr '\n' ' '
}
set --
for c in $MOVES; do set -- "$@" -ex "$c"; done
session auto -ex 'echo === moves\n' "$@" -ex 'echo === end\n' -ex 'print s.r' -ex 'continue'
QZ_OUT=$OUT
printed
OUT=$QZ_OUT
qz_stops=$(printf '%s\n' "$OUT" | stops)
expect "steps: the values there" "^\\\$1 = $R\$"
expect "steps: forward again to the same crash" '^Program received signal SIGSEGV, Segmentation fault\.$'
if command -v gdb >/dev/null 2>&1; then
	echo filedata >$F
	g=$(timeout 60 gdb -nx -batch -ex 'set pagination off' -ex 'break 67' \
		-ex "run $F 30000000 < $IN" -ex 'record full' -ex continue -ex reverse-step \
		-ex 'echo === moves\n' "$@" $BIN 2>&1)
	g_stops=$(printf '%s\n' "$g" | stops)
	if [ -n "$g_stops" ] && [ "$qz_stops" = "$g_stops" ]; then
		pass "steps: the same stops as gdb's record full ($(echo $g_stops | wc -w) lines)"
	else
		fail "steps: the same stops as gdb's record full" "qzdb: $qz_stops; gdb: $g_stops"
	fi
else
	skip "steps: against gdb" "no gdb"
fi
expect "steps: reverse-finish at the call" '^0x[0-9a-f]+ in main \(.*\) at .*reexec\.c:[0-9]+$'

# reverse-stepi needs the recorder.
session auto -ex 'reverse-stepi'
expect "reverse-stepi: the recorder's message" '^error: Target native does not support this command'

# Attached, logging on, then detached: the vDSO is the kernel's again.
vdso_sum() {
	python3 - "$1" <<'PY'
import sys, hashlib
pid = sys.argv[1]
for l in open("/proc/%s/maps" % pid):
    if l.rstrip().endswith("[vdso]"):
        lo, hi = (int(x, 16) for x in l.split()[0].split("-"))
        with open("/proc/%s/mem" % pid, "rb") as m:
            m.seek(lo)
            print(hashlib.sha1(m.read(hi - lo)).hexdigest())
PY
}
$BIN $F 4000000000 <$IN >/dev/null 2>&1 &
P=$!
sleep 0.2
before=$(vdso_sum $P)
qz -p $P -ex 'set checkpoint-interval 5' -ex 'info reexec' -ex detach
expect "attached: the vDSO patched while logging" '^vDSO: [1-9][0-9]* functions? made system calls'
after=$(vdso_sum $P)
if [ -n "$before" ] && [ "$before" = "$after" ]; then
	pass "detached: the vDSO as it was"
else
	fail "detached: the vDSO as it was" "sha1 before '$before', after '$after'"
fi
kill -9 $P 2>/dev/null
wait $P 2>/dev/null
exit 0
