# Shared helpers for test scripts (sourced, POSIX sh). Every check prints one
# line: "PASS name" or "FAIL name: why".
QZDB=${QZDB:-./qzdb}
B=tests/build
# This script's mark: the programs it starts inherit it, so that `ours`
# finds them and not those of a suite running beside it (tests/run.sh).
# (fixed width: the programs' environment, and so their stack addresses,
# stay the same from run to run; tests/diff caches gdb's output by it)
QZ_SUITE=${QZ_SUITE:-$(printf '%08d' $$)}
export QZ_SUITE

fixtures_build() {
	mkdir -p $B
	for src in tests/fixtures/*.c; do
		n=$(basename "$src" .c)
		for o in O0 O2; do
			bin=$B/$n-$o
			[ "$bin" -nt "$src" ] && continue
			gcc -g -$o -o "$bin" "$src" || return 1
		done
		[ "$B/$n-nodebug" -nt "$src" ] || gcc -O0 -o "$B/$n-nodebug" "$src" || return 1
	done
	# A directory tests/fixtures/NAME/ is one program of several compilation
	# units (its *.c files): tests/build/NAME-O0 and NAME-O2.
	for dir in tests/fixtures/*/; do
		[ -d "$dir" ] || continue
		[ "$dir" = tests/fixtures/lib/ ] && continue   # libraries, below
		n=$(basename "$dir")
		for o in O0 O2; do
			bin=$B/$n-$o
			fresh=1
			for src in "$dir"*.c; do [ "$bin" -nt "$src" ] || fresh=0; done
			[ $fresh = 1 ] && continue
			gcc -g -$o -o "$bin" "$dir"*.c || return 1
		done
	done
	# tests/fixtures/lib/NAME.c: shared library tests/build/libNAME.so (-g)
	# and a stripped copy libNAME-stripped.so.
	for src in tests/fixtures/lib/*.c; do
		[ -f "$src" ] || continue
		so=$B/lib$(basename "$src" .c).so
		[ "$so" -nt "$src" ] && continue
		gcc -g -O0 -shared -fPIC -o "$so" "$src" || return 1
		strip -o "${so%.so}-stripped.so" "$so" || return 1
	done
}

# libc_dbg: whether libc's separate debug file (libc6-dbg) is installed:
# gdb and qzdb then show libc's frames with arguments and source lines.
libc_dbg() {
	_id=$(readelf -n "$(readlink -f /lib/x86_64-linux-gnu/libc.so.6)" 2>/dev/null |
		sed -n 's/.*Build ID: *//p')
	[ -n "$_id" ] && [ -r "/usr/lib/debug/.build-id/$(echo "$_id" | cut -c1-2)/$(echo "$_id" | cut -c3-).debug" ]
}

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
# skip NAME WHY: a check this machine cannot run (WHY names what is missing).
skip() { echo "SKIP $1: $2"; }
# holds NAME PATTERN WHY: $OUT has a line matching PATTERN: pass NAME and
# true; else a skip line saying WHY and false (what another machine's
# build may lack: the checks that need it are then skipped).
holds() {
	if printf '%s\n' "$OUT" | grep -Eq -- "$2"; then
		pass "$1"
	else
		skip "$1" "$3"
		false
	fi
}

# qz NAME... : run qzdb --batch with the given arguments, output (stdout and
# stderr merged) in $OUT, exit status in $RC.
qz() {
	OUT=$(timeout 60 $QZDB --batch "$@" 2>&1 </dev/null)
	RC=$?
}

# expect NAME PATTERN: $OUT contains a line matching the extended regex.
expect() {
	if printf '%s\n' "$OUT" | grep -Eq -- "$2"; then
		pass "$1"
	else
		fail "$1" "no line matching /$2/ in output:"
		printf '%s\n' "$OUT" | sed 's/^/    | /' | head -40
	fi
}

# expect_rss_under NAME KB FILE: the peak RSS /usr/bin/time -f 'rss %M'
# wrote to FILE is under KB kilobytes.
expect_rss_under() {
	_rss=$(sed -n 's/^rss //p' "$3" 2>/dev/null | tail -1)
	if [ -n "$_rss" ] && [ "$_rss" -lt "$2" ]; then pass "$1 ($((_rss / 1024)) MiB)"
	else fail "$1" "peak RSS $((${_rss:-0} / 1024)) MiB"; fi
}

# expect_not NAME PATTERN: no line of $OUT matches.
expect_not() {
	if printf '%s\n' "$OUT" | grep -Eq -- "$2"; then
		fail "$1" "unexpected line matching /$2/:"
		printf '%s\n' "$OUT" | sed 's/^/    | /' | head -40
	else
		pass "$1"
	fi
}

# expect_same NAME A B [WHY]: A and B are equal, else their diff (WHY:
# what a difference means, "outputs differ" unless given).
expect_same() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1" "${4:-outputs differ}:"
		printf '%s\n' "$2" > $B/same-$$-a.txt
		printf '%s\n' "$3" > $B/same-$$-b.txt
		diff $B/same-$$-a.txt $B/same-$$-b.txt | head -20 | sed 's/^/    | /'
	fi
}

# expect_count NAME N PATTERN: exactly N lines of $OUT match.
expect_count() {
	_n=$(printf '%s\n' "$OUT" | grep -Ec -- "$3")
	if [ "$_n" = "$2" ]; then pass "$1"; else fail "$1" "$_n lines matching /$3/, wanted $2"; fi
}

# expect_rc NAME CODE: the last qz exited with CODE.
expect_rc() {
	if [ "$RC" = "$2" ]; then pass "$1"; else fail "$1" "exit status $RC, wanted $2"; fi
}

# signal_ours NAME SIG QPID: send SIG to this script's processes called
# NAME (ours), as a terminal's Ctrl-C would reach a program, and wait up to
# 20 s for the qzdb running it in the background (QPID) to end; false if
# it had not (it is then killed).
signal_ours() {
	for _p in $(ours "$1"); do kill -"$2" "$_p"; done
	_i=0
	while kill -0 "$3" 2>/dev/null && [ $_i -lt 100 ]; do sleep 0.2; _i=$((_i + 1)); done
	kill -0 "$3" 2>/dev/null || return 0
	kill -KILL "$3" 2>/dev/null
	return 1
}

# no_leftover NAME BIN: no process of that binary is alive.
# ours NAME: pids of processes called NAME started by this test script
# (they carry its QZ_SUITE mark) from this checkout (their working directory
# is ours), so that other suites and other checkouts' test runs on the same
# machine are neither counted nor killed.
ours() {
	for _p in $(pgrep -x "$1" 2>/dev/null); do
		[ "$(readlink /proc/$_p/cwd 2>/dev/null)" = "$(pwd -P)" ] &&
			tr '\0' '\n' < /proc/$_p/environ 2>/dev/null | grep -qx "QZ_SUITE=$QZ_SUITE" &&
			echo "$_p"
	done
}

no_leftover() {
	_comm=$(basename "$2" | cut -c1-15)
	_i=0   # a killed process may take a moment to be reaped
	while [ $_i -lt 20 ] && [ -n "$(ours "$_comm")" ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	_left=$(ours "$_comm")
	if [ -n "$_left" ]; then
		fail "$1" "process of $2 still alive"
		kill -9 $_left 2>/dev/null
	else
		pass "$1"
	fi
}
