#!/bin/sh
# libc with its separate debug information (libc6-dbg): a stop in fgets,
# bt, finish, print stdout, info sharedlibrary, step into libc calls (an
# IFUNC's too), each compared with gdb on the same program in the same run;
# a hostile debug file (truncated, corrupted) under a fake build-id
# directory gives a warning, never a crash.
. tests/lib.sh
BIN=$B/libc_fgets-O0
IN=$B/libcdbg-input.txt
LIBC=$(readlink -f /lib/x86_64-linux-gnu/libc.so.6)
ID=$(readelf -n "$LIBC" 2>/dev/null | sed -n 's/.*Build ID: *//p')
DBG=/usr/lib/debug/.build-id/$(echo "$ID" | cut -c1-2)/$(echo "$ID" | cut -c3-).debug
if [ -z "$ID" ] || [ ! -r "$DBG" ]; then
	skip "libc with debug info" "libc6-dbg is not installed (no $DBG)"
	exit 0
fi
printf 'hello\n' > $IN

# vs_gdb NAME ARGS...: qzdb's and gdb's outputs, all lines but gdb's
# thread-library notes, with stack addresses masked (the environments
# differ), must be the same. qzdb's output stays in $OUT.
vs_gdb() {
	_name=$1
	shift
	qz "$@"
	if ! command -v gdb >/dev/null 2>&1; then pass "$_name (no gdb)"; return; fi
	_drop='^\[Thread debugging|^Using host libthread_db|^$|^\[Inferior 1|^\[New Thread|^\[Thread .* exited\]'
	_mask='s/0x7ffffff[0-9a-f]{5}/STACK/g; s/\(LWP [0-9]+\)/(LWP N)/; s/^error: //'
	_q=$(printf '%s\n' "$OUT" | grep -Ev -- "$_drop" | sed -E "$_mask")
	_g=$(timeout 60 gdb -nx -batch -iex 'set debuginfod enabled off' "$@" 2>&1 </dev/null |
		grep -Ev -- "$_drop" | sed -E "$_mask")
	if [ -n "$_q" ] && [ "$_q" = "$_g" ]; then
		pass "$_name"
	else
		fail "$_name" "differs from gdb"
		printf '%s\n' "$_q" > $B/libcdbg-q.txt
		printf '%s\n' "$_g" > $B/libcdbg-g.txt
		diff $B/libcdbg-q.txt $B/libcdbg-g.txt | sed 's/^/    /'
	fi
}

vs_gdb "stop in fgets, bt, finish, print stdout, libraries as gdb" \
	-ex 'break fgets' -ex "run < $IN" -ex bt -ex finish -ex 'print stdout' \
	-ex 'print *stdin' -ex 'info sharedlibrary' $BIN
expect "stop in fgets with its arguments" '^Breakpoint 1, _IO_fgets \(buf=0x[0-9a-f]+ "", n=256, fp=0x[0-9a-f]+ <_IO_2_1_stdin_>\) at ./libio/iofgets.c:[0-9]+$'
expect "libc's source is absent" '^[0-9]+	./libio/iofgets.c: No such file or directory\.$'
expect "finish: the value" '^Value returned is \$1 = 0x[0-9a-f]+ "hello\\n"$'
expect "print stdout" '^\$2 = \(FILE \*\) 0x[0-9a-f]+ <_IO_2_1_stdout_>$'
expect "libc has debug info" "^0x[0-9a-f]{16}  0x[0-9a-f]{16}  Yes         /lib/x86_64-linux-gnu/libc.so.6\$"
expect_not "no library lacks it" '^\(\*\)'

# Stepping out of main: __libc_start_call_main is defined in a header, and
# libc6-dbg's compressed DWARF 5 line tables credit its rows to it (their
# file numbers read from the decompressed table, as gdb reads them).
vs_gdb "next out of main into libc_start_call_main.h as gdb" \
	-ex 'break 18' -ex "run < $IN" -ex next -ex next -ex bt -ex 'info line' $BIN
expect "out of main: the header's name" '^__libc_start_call_main \(main=main@entry=0x[0-9a-f]+ <main>, argc=argc@entry=1, argv=argv@entry=0x[0-9a-f]+\) at ../sysdeps/nptl/libc_start_call_main.h:[0-9]+$'

# libc's abort path: raise calls __pthread_kill, which jumps (a tail call
# inside its inlined __pthread_kill_internal) to
# __pthread_kill_implementation; gdb shows the jump's frame, rebuilt from
# the call sites, and the entry values found through it (signo@entry=6).
vs_gdb "abort: the tail-call frame and entry values as gdb" \
	-ex run -ex continue -ex bt -ex 'info frame' -ex up -ex 'info frame' -ex up -ex 'info frame' \
	-ex 'frame 1' -ex 'info locals' -ex 'print signo' $B/sig-O0
expect "abort: the tail-call frame" '^#1  0x[0-9a-f]{16} in __pthread_kill_internal \(signo=6, threadid=<optimized out>\) at ./nptl/pthread_kill.c:[0-9]+$'
expect "abort: an entry value through it" '^#0  __pthread_kill_implementation \(threadid=<optimized out>, signo=signo@entry=6, no_tid=no_tid@entry=0\)'
expect "abort: info frame says so" '^ tail call frame, caller of frame at 0x[0-9a-f]+$'

# A function in two libraries (libc's munmap and ld.so's own): one
# breakpoint, two locations, each enabled and disabled alone (gdb's
# "y-" for an enabled location of a disabled breakpoint); gdb's words for
# bad location numbers; the stop names the location (Breakpoint 2.1).
vs_gdb "break munmap: two locations, disable N.M, as gdb" \
	-ex 'break mark' -ex run -ex continue -ex 'break munmap' -ex 'info breakpoints' \
	-ex 'disable 2.2' -ex 'info breakpoints' -ex 'disable 2' -ex 'info breakpoints' \
	-ex 'enable 2' -ex 'disable 2.1-2' -ex 'info breakpoints' -ex 'disable 2.3' \
	-ex 'disable 2.0' -ex 'disable 2.2-1' -ex 'disable 7.1' -ex 'enable 2.1' \
	-ex continue -ex 'info breakpoints' $B/ckpt_undo-O0
expect "munmap: two locations" '^Breakpoint 2 at 0x[0-9a-f]+: munmap\. \(2 locations\)$'
expect "munmap: each named by the symbol" '^2\.2 +n +0x[0-9a-f]{16} in munmap at ../sysdeps/unix/syscall-template.S:[0-9]+$'
expect "munmap: the location stops alone" 'hit Breakpoint 2\.1, __GI_munmap \(\) at '

# break free: libc's free and the 57 calls of free inlined in ld.so, as
# gdb lists them (58 locations). ld.so's and libc's DWARF are indexed on
# demand; the units that may hold inlined calls come from a name index
# built once and cached by build-id under $XDG_CACHE_HOME/qzdb/.
CACHE=$B/libcdbg-cache
rm -rf $CACHE
# locs: the breakpoint line and the locations' numbers and addresses (gdb
# names ld.so's by <function+offset>, qzdb by the inlined function's line)
locs() {
	printf '%s\n' "$1" | grep -E '^Breakpoint 2 at|^2\.[0-9]+ ' | awk '/^Breakpoint/ { print; next } { print $1, $2, $3 }'
}
free_session() {
	OUT=$(cd . && XDG_CACHE_HOME=$PWD/$CACHE timeout 60 $QZDB --batch -ex 'break main' -ex run \
		-ex 'break free' -ex 'info breakpoints' -ex continue -ex bt \
		$B/det_dfree_fixed-O0 2>&1 </dev/null)
	RC=$?
}
free_session
FIRST=$OUT
G=$(timeout 60 gdb -nx -batch -iex 'set debuginfod enabled off' -ex 'break main' -ex run \
	-ex 'break free' -ex 'info breakpoints' -ex continue -ex bt $B/det_dfree_fixed-O0 2>&1 </dev/null)
expect "break free: 58 locations" '^Breakpoint 2 at 0x[0-9a-f]+: free\. \(58 locations\)$'
expect "break free: ld.so's inlined calls" '^2\.58 +y +0x[0-9a-f]{16} in free at ../include/rtld-malloc.h:50$'
locs "$OUT" > $B/libcdbg-locs-q.txt
locs "$G" > $B/libcdbg-locs-g.txt
if cmp -s $B/libcdbg-locs-q.txt $B/libcdbg-locs-g.txt; then
	pass "break free: the locations' addresses are gdb's"
else
	fail "break free: the locations' addresses are gdb's" "differ"
	diff $B/libcdbg-locs-q.txt $B/libcdbg-locs-g.txt | head -10 | sed 's/^/    /'
fi
stop() { printf '%s\n' "$1" | grep -E '^Breakpoint 2\.|^#[0-9]'; }
if [ -n "$(stop "$OUT")" ] && [ "$(stop "$OUT" | sed -E 's/0x7ffff[0-9a-f]{7}/X/g')" = \
	"$(stop "$G" | sed -E 's/0x7ffff[0-9a-f]{7}/X/g')" ]; then
	pass "break free: the stop and bt as gdb"
else
	fail "break free: the stop and bt as gdb" "differ"
	stop "$OUT" | sed 's/^/    q: /'
	stop "$G" | sed 's/^/    g: /'
fi
LIBC_INL=$CACHE/qzdb/$ID.inl
[ -s "$LIBC_INL" ] && [ "$(head -c 7 "$LIBC_INL")" = QZINLIX ] &&
	pass "name index cached by build-id" || fail "name index cached by build-id" "no $LIBC_INL"
SIZE=$(wc -c < "$LIBC_INL")
# a second session reads the index: the same locations
free_session
[ "$OUT" = "$FIRST" ] && pass "cached index: the same session" ||
	fail "cached index: the same session" "output differs"
# a damaged index (cut short, garbage, another version, another build-id,
# unit offsets that are no units) is rebuilt: the same output, no crash
cp "$LIBC_INL" $B/libcdbg-inl.good
for kind in short garbage version buildid units; do
	cp $B/libcdbg-inl.good "$LIBC_INL"
	case $kind in
	short) head -c 100 $B/libcdbg-inl.good > "$LIBC_INL" ;;
	garbage) head -c 5000 /dev/urandom > "$LIBC_INL" ;;
	version) printf '\377' | dd of="$LIBC_INL" bs=1 seek=8 conv=notrunc 2>/dev/null ;;
	buildid) printf '0' | dd of="$LIBC_INL" bs=1 seek=16 conv=notrunc 2>/dev/null ;;
	units)   # every unit offset: the format holds, the offsets are no units'
		NU=$(od -An -tu4 -j $((16 + ${#ID})) -N4 "$LIBC_INL" | tr -d ' ')
		head -c $((NU * 8)) /dev/zero | tr '\0' '\377' |
			dd of="$LIBC_INL" bs=1 seek=$((20 + ${#ID})) conv=notrunc 2>/dev/null ;;
	esac
	free_session
	[ "$OUT" = "$FIRST" ] && [ "$RC" -le 1 ] && pass "damaged index ($kind): rebuilt, same session" ||
		fail "damaged index ($kind): rebuilt, same session" "exit status $RC or output differs"
	[ "$(wc -c < "$LIBC_INL")" = "$SIZE" ] && pass "damaged index ($kind): file rewritten" ||
		fail "damaged index ($kind): file rewritten" "size $(wc -c < "$LIBC_INL"), wanted $SIZE"
done
# no place to keep it (the cache directory is a file): the whole DWARF is
# indexed instead, the same locations
rm -rf $CACHE && : > $CACHE
free_session
[ "$OUT" = "$FIRST" ] && pass "no cache directory: the same session" ||
	fail "no cache directory: the same session" "output differs"
rm -rf $CACHE $B/libcdbg-inl.good

vs_gdb "step into fgets and strlen (an IFUNC), next, finish as gdb" \
	-ex 'break main' -ex "run < $IN" -ex next -ex step -ex bt -ex step \
	-ex next -ex finish -ex step -ex step -ex bt -ex step -ex finish -ex next \
	-ex step -ex bt -ex finish $BIN
expect "step into fgets" '^_IO_fgets \(buf=0x[0-9a-f]+ "", n=256, fp=0x[0-9a-f]+ <_IO_2_1_stdin_>\) at ./libio/iofgets.c:[0-9]+$'
expect "step into strlen's implementation" '^__strlen_[a-z0-9]+ \(\) at ../sysdeps/x86_64/multiarch/strlen-[a-z0-9]+.S:[0-9]+$'
expect "once per file, then 'in'" '^[0-9]+	in ./libio/iofgets.c$'
expect_rc "libc stepping rc" 0

# A hostile debug file found by build-id: cut short, or with its DWARF
# overwritten. Warnings; the session goes on with what it could read.
FAKE=$B/libcdbg-fake
for kind in truncated corrupted; do
	rm -rf $FAKE
	mkdir -p $FAKE/.build-id/$(echo "$ID" | cut -c1-2)
	F=$FAKE/.build-id/$(echo "$ID" | cut -c1-2)/$(echo "$ID" | cut -c3-).debug
	if [ $kind = truncated ]; then
		head -c 300000 "$DBG" > $F
	else
		cp "$DBG" $F
		chmod u+w $F
		head -c 1048576 /dev/zero | tr '\0' '\377' |
			dd of=$F bs=1 seek=40000 conv=notrunc 2>/dev/null
	fi
	qz -ex "set debug-file-directory $FAKE" -ex 'break fgets' -ex "run < $IN" -ex bt \
		-ex finish -ex 'print stdout' -ex 'info sharedlibrary' -ex continue $BIN
	expect "$kind debug file: stops in fgets" '^Breakpoint 1, '
	expect "$kind debug file: a warning" '^warning: '
	expect "$kind debug file: bt reaches main" '^#1  0x[0-9a-f]{16} in main \(\) at tests/fixtures/libc_fgets.c:15$'
	expect "$kind debug file: runs to the end" '^\[Inferior 1 \(process [0-9]+\) exited normally\]$'
	[ "$RC" -le 1 ] && pass "$kind debug file: no crash" ||
		fail "$kind debug file: no crash" "exit status $RC"
done
rm -rf $FAKE

# Any library's debug file by .gnu_debuglink (here in the library's .debug
# directory), checked by its CRC: a changed file is refused with a warning.
L=$B/libcdbg-link
rm -rf $L && mkdir -p $L/.debug
objcopy --only-keep-debug $B/libplugin.so $L/.debug/libplugin-linked.debug &&
	objcopy --strip-debug --add-gnu-debuglink=$L/.debug/libplugin-linked.debug \
		$B/libplugin.so $L/libplugin-linked.so
vs_gdb "debuglink: a stripped library's debug file as gdb" \
	-ex 'set breakpoint pending on' -ex 'break plugin_add' -ex run -ex bt -ex finish \
	--args $B/dlopen_main-O0 $L/libplugin-linked.so
expect "debuglink: line info" '^Breakpoint 1, plugin_add \(a=3, b=3\) at tests/fixtures/lib/plugin.c:6$'
printf 'x' | dd of=$L/.debug/libplugin-linked.debug bs=1 seek=100 conv=notrunc 2>/dev/null
qz -ex 'set breakpoint pending on' -ex 'break plugin_add' -ex run -ex bt \
	--args $B/dlopen_main-O0 $L/libplugin-linked.so
expect "debuglink: CRC mismatch warned" '^warning: the debug information found in ".*libplugin-linked.debug" does not match ".*libplugin-linked.so" \(CRC mismatch\)\.$'
expect "debuglink: CRC mismatch: symbols only" '^Breakpoint 1, 0x[0-9a-f]{16} in plugin_add \(\) from .*libplugin-linked.so$'
rm -rf $L

# Nothing looked at in libc: its debug file is known, not read; the first
# frame inside libc reads it.
qz -ex 'break main' -ex "run < $IN" -ex bt -ex next -ex 'maint debug-files' \
   -ex 'break fgets' -ex c -ex 'maint debug-files' $BIN
expect "lazy: known, not read while nothing in libc is looked at" \
	"^/lib/x86_64-linux-gnu/libc.so.6: $DBG: lines not read, DWARF not read\$"
expect "lazy: read at the first stop inside libc" \
	"^/lib/x86_64-linux-gnu/libc.so.6: $DBG: lines read, DWARF read\$"
no_leftover "no leftover process" $BIN
