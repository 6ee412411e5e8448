#!/bin/sh
# Shared libraries: breakpoints on libc functions set before `run`, pending
# breakpoints in a dlopened library across dlclose, info sharedlibrary,
# libc's local symbols from its debug file, a stripped library; compared
# with gdb (libc without debug info) where gdb does the same.
. tests/lib.sh
BIN=$B/bug_dfree-O0
DL=$B/dlopen_main-O0
LIBC='/lib/x86_64-linux-gnu/libc.so.6'
NODBG=$B/no-debug-files
mkdir -p $NODBG

# vs_gdb NAME REGEX ARGS...: run qzdb and gdb (libc without debug info)
# with the same -ex commands and [--args] program, both without libc's
# separate debug file (libcdbg.sh compares with it); the lines matching REGEX
# must be the same (stack addresses masked: the environments differ).
# qzdb's output stays in $OUT.
vs_gdb() {
	_name=$1 _re=$2
	shift 2
	qz -ex "set debug-file-directory $NODBG" "$@"
	if ! command -v gdb >/dev/null 2>&1; then pass "$_name (no gdb)"; return; fi
	_mask='s/0x7ff[ef][0-9a-f]{8}/0x7fff_stack/g'
	_q=$(printf '%s\n' "$OUT" | grep -E -- "$_re" | sed -E "$_mask")
	_g=$(timeout 60 gdb -nx -batch -iex 'set debuginfod enabled off' \
		-iex "set debug-file-directory $NODBG" "$@" 2>&1 </dev/null |
		grep -E -- "$_re" | sed -E "$_mask")
	if [ -n "$_q" ] && [ "$_q" = "$_g" ]; then
		pass "$_name"
	else
		fail "$_name" "differs from gdb"
		printf '%s\n' "$_q" | sed 's/^/    qzdb| /'
		printf '%s\n' "$_g" | sed 's/^/    gdb | /'
	fi
}

# break free / malloc before run: resolved again when libc loads
vs_gdb "libc stops, bt and libraries as gdb" \
	'^(Breakpoint [0-9]|#[0-9] |0x0000|[0-9]+       breakpoint|record_free|main)' \
	-ex 'break free' -ex 'break malloc' -ex run -ex bt -ex 'info breakpoints' \
	-ex 'info sharedlibrary' -ex 'delete 2' -ex c -ex bt -ex up -ex delete -ex finish $BIN
expect "break free before run (PLT)" '^Breakpoint 1 at 0x1030$'
expect "malloc stops in libc" "^Breakpoint 2, 0x[0-9a-f]{16} in malloc \(\) from $LIBC\$"
expect "bt from malloc: user call site" '^#1  0x[0-9a-f]{16} in record_new \(name=0x[0-9a-f]+ "alpha", id=0\) at tests/fixtures/bug_dfree.c:17$'
expect "info breakpoints: libc address" '^1       breakpoint     keep y   0x00007[0-9a-f]{11} <free>$'
expect "free stops in libc" "^Breakpoint 1, 0x[0-9a-f]{16} in free \(\) from $LIBC\$"
expect "bt from free: user call site" '^#1  0x[0-9a-f]{16} in record_free \(r=0x[0-9a-f]+\) at tests/fixtures/bug_dfree.c:32$'
expect "bt from free: main" '^#2  0x[0-9a-f]{16} in main \(\) at tests/fixtures/bug_dfree.c:47$'
expect "up from libc" '^32		free\(r->name\);$'
expect "finish from frame 1 above libc" '^main \(\) at tests/fixtures/bug_dfree.c:46$'
expect "sharedlibrary header" '^From                To                  Syms Read   Shared Object Library$'
expect "sharedlibrary libc" "^0x00007[0-9a-f]{11}  0x00007[0-9a-f]{11}  Yes \(\*\)     $LIBC\$"
expect "sharedlibrary ld.so" '^0x00007[0-9a-f]{11}  0x00007[0-9a-f]{11}  Yes \(\*\)     /lib64/ld-linux-x86-64.so.2$'
expect "sharedlibrary footnote" '^\(\*\): Shared library is missing debugging information\.$'
expect_rc "libc breakpoints rc" 0

# finish out of libc back to the caller
vs_gdb "finish from libc as gdb" '^(Breakpoint|record_free|Value)' \
	-ex 'break free' -ex run -ex finish $BIN
expect_not "finish from free: no Run till exit in batch mode" '^Run till exit'
expect "finish returns to record_free" '^record_free \(r=0x[0-9a-f]+\) at tests/fixtures/bug_dfree.c:33$'

# libc's local functions are named (symbols of its build-id debug file)
qz -ex "set debug-file-directory $NODBG" -ex run -ex bt $BIN
expect "crash inside libc" '^Program received signal SIGABRT, Aborted\.$'
expect "no debug file: bt names libc's exports" "^#[0-9]  0x[0-9a-f]{16} in abort \(\) from $LIBC\$"
qz -ex run -ex bt $BIN
# (frame 1 is the tail-call frame of __pthread_kill_internal, as in gdb)
expect "libc local function with its debug file" '^#6  0x[0-9a-f]{16} in _int_free \(av=0x[0-9a-f]+ <main_arena>, p=0x[0-9a-f]+, have_lock=have_lock@entry=0\) at ./malloc/malloc.c:[0-9]+$'
expect "bt reaches the user's double free" '^#8  0x[0-9a-f]{16} in record_free \(r=0x[0-9a-f]+\) at tests/fixtures/bug_dfree.c:32$'
expect_not "no unknown frames" '\?\?'

# a pending breakpoint in a dlopened library, across dlclose and a new dlopen
vs_gdb "dlopen stops as gdb" '^(Breakpoint 1|#[0-9] |warning|1       breakpoint|plugin results)' \
	-ex 'set breakpoint pending on' -ex 'break plugin_add' -ex 'info breakpoints' \
	-ex run -ex bt -ex 'info sharedlibrary' -ex 'break dlopen_main.c:19' -ex c \
	-ex 'info breakpoints' -ex 'delete 2' -ex c -ex c --args $DL $B/libplugin.so
expect "pending announced" '^Breakpoint 1 \(plugin_add\) pending\.$'
expect "pending listed" '^1       breakpoint     keep y   <PENDING>  plugin_add$'
expect "dlopen hit" '^Breakpoint 1, plugin_add \(a=3, b=3\) at tests/fixtures/lib/plugin.c:6$'
expect "bt in library" '^#1  0x[0-9a-f]{16} in plugin_twice \(x=3\) at tests/fixtures/lib/plugin.c:13$'
expect "bt to the dlopen caller" '^#2  0x[0-9a-f]{16} in call_plugin \(path=0x[0-9a-f]+ "tests/build/libplugin.so", x=3\) at tests/fixtures/dlopen_main.c:17$'
expect "library listed with debug info" '^0x00007[0-9a-f]{11}  0x00007[0-9a-f]{11}  Yes         tests/build/libplugin.so$'
expect "unload warns" '^warning: Temporarily disabling breakpoints for unloaded shared library "tests/build/libplugin.so"$'
expect "pending again after dlclose" '^1       breakpoint     keep y   <PENDING>          plugin_add$'
expect "hit again after a new dlopen" '^Breakpoint 1, plugin_add \(a=5, b=5\) at tests/fixtures/lib/plugin.c:6$'
expect "dlopen program ends normally" '^plugin results 6 10$'
expect_rc "dlopen rc" 0

# a condition on a pending breakpoint is checked once the library is there
qz -ex 'set breakpoint pending on' -ex 'break plugin_add if a == 5' -ex run -ex 'info breakpoints' \
   $DL $B/libplugin.so
expect "pending with condition announced" '^Breakpoint 1 \(plugin_add if a == 5\) pending\.$'
expect "pending condition holds at the hit" '^Breakpoint 1, plugin_add \(a=5, b=5\) at tests/fixtures/lib/plugin.c:6$'
expect "pending condition kept" '^	stop only if a == 5$'

# FILE:LINE in a library, and step through its PLT into another function
vs_gdb "step through PLT as gdb" '^(Breakpoint 1,|plugin_|#[0-9] |Value)' \
	-ex 'set breakpoint pending on' -ex 'break plugin.c:13' -ex run -ex step -ex bt -ex finish \
	--args $DL $B/libplugin.so
expect "FILE:LINE pending then hit" '^Breakpoint 1, plugin_twice \(x=3\) at tests/fixtures/lib/plugin.c:13$'
expect "step through the library's PLT" '^plugin_add \(a=3, b=3\) at tests/fixtures/lib/plugin.c:6$'
expect "finish back in the library" '^Value returned is \$1 = 6$'

# a stripped library: symbols only
vs_gdb "stripped library as gdb" '^(Breakpoint 1,|#[0-9] |call_plugin|Single|which)' \
	-ex 'set breakpoint pending on' -ex 'break plugin_twice' -ex run -ex bt \
	-ex 'info sharedlibrary' -ex step --args $DL $B/libplugin-stripped.so
expect "stripped library hit" '^Breakpoint 1, 0x[0-9a-f]{16} in plugin_twice \(\) from tests/build/libplugin-stripped.so$'
expect "stripped library bt" '^#1  0x[0-9a-f]{16} in call_plugin \(path=0x[0-9a-f]+ "tests/build/libplugin-stripped.so", x=3\) at tests/fixtures/dlopen_main.c:17$'
expect "stripped library: no debug info" '^0x00007[0-9a-f]{11}  0x00007[0-9a-f]{11}  Yes \(\*\)     tests/build/libplugin-stripped.so$'
expect "step out of a stripped library" '^call_plugin \(path=0x[0-9a-f]+ "tests/build/libplugin-stripped.so", x=3\) at tests/fixtures/dlopen_main.c:18$'

# bad input
qz -ex 'break nosuch_fn' $DL
expect "unknown function refused by default" '^error: Function "nosuch_fn" not defined\.$'
expect "hint for pending" 'set breakpoint pending on'
expect_rc "unknown function rc" 1
qz -ex 'set breakpoint pending on' -ex 'break nosuch_fn' -ex 'run' -ex 'info breakpoints' $DL $B/libplugin.so
expect "never-resolved pending runs through" '^plugin results 6 10$'
expect "still pending after the run" '^1       breakpoint     keep y   <PENDING>  nosuch_fn$'
expect_rc "never-resolved pending rc" 0
qz -ex 'set breakpoint pending maybe' $DL
expect "bad pending value" '^error: "on", "off" or "auto" expected\.$'
qz -ex 'set breakpoint pending off' -ex 'break plugin_add' $DL
expect "pending off refuses" '^error: Function "plugin_add" not defined\.$'
expect_not "pending off: no hint" 'set breakpoint pending on'
qz -ex 'run' $DL $B/no-such-lib.so
expect "dlopen failure is the program's" 'dlopen: .*no-such-lib.so'
no_leftover "no leftover dlopen process" $DL
no_leftover "no leftover dfree process" $BIN

# The separate debug-file directory is a setting that can be read back.
qz -ex 'show debug-file-directory' -ex 'set debug-file-directory /nonexistent' \
   -ex 'show debug-file-directory' $B/basic-O0
expect "debug-file-directory default" '^The directory where separate debug symbols are searched for is "/usr/lib/debug"\.$'
expect "debug-file-directory set" '^The directory where separate debug symbols are searched for is "/nonexistent"\.$'
