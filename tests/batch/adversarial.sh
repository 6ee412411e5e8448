#!/bin/sh
# Session files from a stranger (tests/adversarial/*.qzs, plus big and
# path-trick files made here): each replayed under --check and under --step
# (keys from stdin) is refused with a clear error or is harmless. Every
# file that tries to write or run something aims at one marker file outside
# the scratch directory; it must never appear. No raw escape byte reaches
# the terminal.
. tests/lib.sh
ROOT=$(pwd)
BIN=$B/bug_nullp-O0
A=$ROOT/$B/adv            # the scratch directory the files are replayed in
OUTSIDE=$ROOT/$B/adv-outside
MARK=$OUTSIDE/MARKER
rm -rf "$A" "$OUTSIDE"
mkdir -p "$A" "$OUTSIDE"
for f in tests/adversarial/*.qzs; do
	sed "s|@MARK@|$MARK|g" "$f" > "$A/$(basename "$f")"
done
cp $BIN "$A/prog"
ln -s /bin/sh "$A/sh-link"
ESC=$(printf '\033')

# replay NAME MODE [OPTIONS]: replay $A/NAME.qzs from $A; OUT and RC set.
replay() {
	_n=$1 _m=$2
	shift 2
	if [ "$_m" = step ]; then
		OUT=$(cd "$A" && yes '' | head -50 | timeout 30 "$ROOT/qzdb" --replay "$_n.qzs" --step "$@" 2>&1)
	else
		OUT=$(cd "$A" && timeout 30 "$ROOT/qzdb" --replay "$_n.qzs" --check "$@" 2>&1 </dev/null)
	fi
	RC=$?
}

# harmless NAME MODE: finished (no crash, no hang), nothing written or
# run outside, no raw escape on the terminal.
harmless() {
	[ $RC -le 1 ] && pass "$1 $2: finishes (status $RC)" || fail "$1 $2: finishes" "status $RC"
	[ -e "$MARK" ] && fail "$1 $2: nothing written or run" "$MARK exists" ||
		pass "$1 $2: nothing written or run"
	case $OUT in *"$ESC"*) fail "$1 $2: no raw escape byte" "ESC in the output" ;;
	*) pass "$1 $2: no raw escape byte" ;; esac
	rm -f "$MARK"
}

# refused NAME REGEX: under both modes, status 1 and one line matching REGEX.
refused() {
	for m in check step; do
		replay "$1" $m
		expect_rc "$1 $m: refused" 1
		expect "$1 $m: the refusal says why" "$2"
		harmless "$1" $m
	done
}

P='the session names the program .*not a regular file inside the session file.s directory; refused\. .*--program PATH'
refused prog-sh "prog-sh\.qzs: $P"
refused prog-dotdot "\"\.\./\.\./.*bin/sh\", which is not"
refused prog-link "\"sh-link\", which is not"
refused prog-dir "prog-dir\.qzs: the session names the program \"\.\""
U='\(replay with --allow-unsafe to allow it\)\.$'
refused attach "^error: attach\.qzs:5: a replayed session may not run .attach.: it attaches to another process $U"
expect_not "attach: replay stops at the refusal" '^after$'
refused bind "may not run .bind.: it changes the key bindings $U"
refused shell "may not run .shell.: it runs a shell command $U"
refused bang "may not run .!.: it runs a shell command $U"
refused pipe "may not run .pipe.: it runs a shell command $U"
refused make "may not run .make.: it runs make $U"
refused cd "may not run .cd.: it changes qzdb.s directory $U"
refused run-redirect "may not run .run.: it redirects the program.s output to a file $U"
refused set-args-redirect "may not run .set args.: it redirects the program.s output to a file $U"
refused save "may not run .save session.: it writes a file $U"
refused dump "may not run .maint dump-state.: it writes a file $U"
refused crash "may not run .maint crash-at-breakpoint.: it crashes qzdb $U"
refused nested "may not run .save session.: it writes a file $U"
refused debugdir "may not run .set debug-file-directory.: it makes qzdb read another directory $U"
refused theme "may not run .theme.: it reads a file the session names $U"
# Neither command exists in qzdb: refused by name all the same.
refused env-ld "may not run .set environment.: it changes how the program.s libraries are loaded $U"
refused source "may not run .source.: it runs commands from a file outside the session.s directory $U"

# Item 2: code the file writes into the program (set var) and jumps to
# (set var $pc, continue) runs sandboxed: its exec of a shell and its own
# write open of the marker (../adv-outside/MARKER from $A) are denied and
# reported; the program exits as the code asks. Under --check the replay
# stops at continue's output, which differs from the file's.
for m in check step; do
	replay shellcode $m
	expect "shellcode $m: the code ran" '^=> 0x[0-9a-f]+ <find_entry>:'
	expect "shellcode $m: its exec denied and reported" '^\[sandbox: denied execve\("/bin/sh"\)\]$'
	expect "shellcode $m: its write denied and reported" \
		'^\[sandbox: denied open\("\.\./adv-outside/MARKER"\) for writing\]$'
	expect "shellcode $m: the program exits" '^\[Inferior 1 \(process [0-9]+\) exited normally\]$'
	harmless shellcode $m
done

# Item 4: #@ arg lines crashed the replay.
for m in check step; do
	replay args $m
	expect_rc "args $m: replays" 0
	expect "args $m: all 40 arguments" 'a0 a1 .* a39"?\.?$'
	harmless args $m
done
# Item 9: delete with a huge range returns at once; numbers are checked.
for m in check step; do
	replay delete-range $m
	expect_rc "delete-range $m: replays" 0
	expect "delete-range $m: range error" 'A breakpoint number must be between 1 and 2147483647'
	harmless delete-range $m
	replay numbers $m
	expect "numbers $m: list" 'Line number 99999999999 out of range'
	harmless numbers $m
done
# Item 6: escape sequences in captions, saved output and commands are shown
# visibly, in the replay and in --check's difference.
for m in check step; do
	replay escapes $m
	expect "escapes $m: caption shown visibly" '^# caption \^\[\]0;owned\^G \^\[\[2J$'
	harmless escapes $m
	replay utf8 $m
	harmless utf8 $m
done
replay escapes check
expect "escapes: --check's difference shows the saved bytes visibly" '^hi \^\[\]0;owned-title\^G\^\[\[2J\^\[\[31m\\x9b2J$'

# Bytes from files and from the program shown by qzdb itself: a source
# line (list) holding escapes shows them as ^[, a string (print, x/s) as
# gdb does, \033; the program's own output is its own.
printf '#include <stdio.h>\n/* title: \033]0;owned\007 clear: \033[2J */\nint main(void)\n{\n\tconst char *s = "\\033]0;x\\007";\n\tputs("done");\n\treturn s[0] == 27 ? 0 : 1;\n}\n' > "$A/ctl.c"
if (cd "$A" && cc -g -O0 -o ctl ctl.c); then
	qz -ex 'list 1,4' -ex 'break 6' -ex run -ex 'print s' -ex 'x/s s' "$A/ctl"
	expect "list: control bytes of a source line shown as ^[" '^2[[:space:]]+/\* title: \^\[\]0;owned\^G clear: \^\[\[2J \*/$'
	expect "print: escapes in a string as gdb shows them" '^\$1 = 0x[0-9a-f]+ "\\033\]0;x\\a"$'
	expect "x/s: the same" '^0x[0-9a-f]+:[[:space:]]+"\\033\]0;x\\a"$'
	case $OUT in *"$ESC"*) fail "list and print: no raw escape byte" "ESC in the output" ;;
	*) pass "list and print: no raw escape byte" ;; esac
else
	fail "control-byte source builds" "cc failed"
fi

# Binary and huge files: clear errors, bounded time and memory.
printf '# qzdb session\n#@ version 1\n#@ program pr\000og\n#@ end\n' > "$A/nul.qzs"
refused nul 'nul\.qzs:3: binary data \(a NUL byte\)'
awk 'BEGIN { print "# qzdb session"; print "#@ version 1"; print "#@ program prog"
	print "(qzdb) echo x\\n"; for (i = 0; i < 1000000; i++) print "x" i; print "#@ end" }' > "$A/lines.qzs"
T0=$(date +%s%N)
replay lines check
T1=$(date +%s%N)
expect "1,000,000 output lines: loaded and checked" 'the output of `echo x\\n` differs'
[ $(( (T1 - T0) / 1000000 )) -lt 20000 ] && pass "1,000,000 output lines: no quadratic blow-up" ||
	fail "1,000,000 output lines: no quadratic blow-up" "$(( (T1 - T0) / 1000000 )) ms"
harmless lines check
{ printf '# qzdb session\n#@ version 1\n#@ program prog\n(qzdb) echo x\\n\n'
  head -c 100000000 /dev/zero | tr '\0' 'x'; printf '\n#@ end\n'; } > "$A/longline.qzs"
refused longline 'longline\.qzs: not a regular file of at most 64 MiB'
rm -f "$A/lines.qzs" "$A/longline.qzs"

# Nothing left behind outside the scratch directory.
[ -z "$(ls -A "$OUTSIDE")" ] && pass "nothing outside the scratch directory" ||
	fail "nothing outside the scratch directory" "$(ls "$OUTSIDE")"
no_leftover "no process left" "$A/prog"
