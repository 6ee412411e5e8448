#!/bin/sh
# alter at statement level (issue 23): statements written over several
# lines or spread over several blocks, branchless -O2 predicates (setcc,
# cmov), conditions (`switch LINE if EXPR`), armed while the program runs,
# and gdb's jump (gdb is the oracle).
. tests/lib.sh
F=tests/fixtures
line() { grep -nF -- "$2" "$F/$1" | head -1 | cut -d: -f1; }
crashed='^Program (received|terminated with) signal SIG(SEGV|ABRT)'
normal='^\[Inferior 1 \(process [0-9]+\) exited normally\]$'

# A 3-line sprintf that runs past genstr[80] over the pointer after it:
# suppressing the whole call (its arguments on two more lines, stack
# arguments pushed and popped inside it) avoids the crash.
L_SPR=$(line ov_calc.c 'sprintf(genstr,')
for O in O0 O2; do
	qz -ex run $B/ov_calc-$O
	# -O2 keeps `arrays` in a constant, so the text overwrites it unread
	[ $O = O0 ] && expect "calc-$O crashes" "$crashed"
	[ $O = O2 ] && expect "calc-$O overflows" '^158 zero$'
	qz -ex "suppress ov_calc.c:$L_SPR" -ex run $B/ov_calc-$O
	expect "calc-$O multi-line call suppressed" "^Suppressed ov_calc.c:$L_SPR #1$"
	expect "calc-$O suppressed: nothing written, the pointer intact" '^0 zero$'
	expect "calc-$O suppressed: exits normally" "$normal"
done
# suppress on a later line of the call is the same statement's line table
# row only if it has code of its own; a line inside no statement has none
qz -ex "suppress ov_calc.c:$((L_SPR + 1))" $B/ov_calc-O0
expect "calc continuation line without code of its own" '^error: .*(no code|not a statement)'

# The renamer: `while (src[i] != 0 &&\n i < limit)` -- a condition over
# two lines switched as one; by a condition, armed after the run began.
L_W=$(line ov_ret.c 'while (src[i] != 0 &&')
qz -ex run $B/ov_ret-O0
expect "ret-O0 crashes" "$crashed"
qz -ex 'break rename_one' -ex run -ex continue -ex "switch ov_ret.c:$L_W if i == 15" \
	-ex 'info breakpoints' -ex 'delete 1' -ex continue $B/ov_ret-O0
expect "ret condition announce" "^Switch 2 at ov_ret.c:$L_W, every instance where i == 15\.$"
expect "ret condition row" '^	only where i == 15$'
expect "ret switched at the 16th test of the second call" "^Switched ov_ret.c:$L_W #[0-9]+: true -> false$"
expect "ret switched: the name cut to 15 bytes" '^renamed to a-new-name-far-$'
expect "ret switched: exits normally" "$normal"
n=$(printf '%s\n' "$OUT" | grep -c '^Switched')
[ "$n" = 1 ] && pass "ret condition fires once" || fail "ret condition fires once" "$n"
qz -ex "switch ov_ret.c:$L_W if nosuch > 1" -ex run $B/ov_ret-O0
expect "ret condition that cannot be evaluated is said" "cannot evaluate \"nosuch > 1\" here"
expect "ret condition that cannot be evaluated alters nothing" "$crashed"
qz -ex "switch ov_ret.c:$L_W if" $B/ov_ret-O0
expect "ret empty condition refused" '^error: Give a condition after "if"'

# -O2 branchless: a ?: compiled to cmovg, a comparison to setle
L_PICK=$(line alter_bl.c 'int *p = len > 4')
L_SMALL=$(line alter_bl.c 'int small = len < 5;')
qz -ex run $B/alter_bl-O2
expect "bl-O2 crashes" "$crashed"
qz -ex "switch alter_bl.c:$L_PICK" -ex "switch alter_bl.c:$L_SMALL" -ex run $B/alter_bl-O2
expect "bl-O2 cmov switched" "^Switched alter_bl.c:$L_PICK #1: true -> false \(branchless: flags flipped for its set/cmov at 0x[0-9a-f]+\)$"
expect "bl-O2 setcc switched" "^Switched alter_bl.c:$L_SMALL #1: false -> true \(branchless"
expect "bl-O2 setcc result flipped" '^short: 1$'
expect "bl-O2 cmov picked the other pointer" '^value 7$'
expect "bl-O2 switched exits normally" "$normal"
qz -ex "switch alter_bl.c:$L_PICK 2" -ex run $B/alter_bl-O2
expect "bl-O2 other instance: still crashes" "$crashed"
qz -ex "switch alter_bl.c:$L_PICK" -ex run $B/alter_bl-O0
expect "bl-O0 the same line by its branch" "^Switched alter_bl.c:$L_PICK #1: (true -> false|false -> true)$"
expect "bl-O0 switched exits normally" "$normal"

# jump, with gdb as the oracle: to the line after the sprintf
L_RET=$(line ov_calc.c 'return (int)strlen(genstr);')
L_OLD=$(line ov_calc.c 'char *old_ary = arrays[0];')
for spec in "$L_RET" "$L_OLD"; do
	qz -ex "break ov_calc.c:$L_SPR" -ex run -ex "jump $spec" $B/ov_calc-O0
	mine=$(printf '%s\n' "$OUT" | grep -E '^(Line|[0-9]+ |\[Inferior|Program)' | sed 's/process [0-9]*/process N/')
	theirs=$(timeout 60 gdb -q -batch -nx -ex "break ov_calc.c:$L_SPR" -ex run -ex "jump $spec" \
		$B/ov_calc-O0 2>&1 | grep -E '^(Line|[0-9]+ |\[Inferior|Program)' | sed 's/process [0-9]*/process N/')
	[ -n "$mine" ] && [ "$mine" = "$theirs" ] && pass "jump $spec agrees with gdb" ||
		fail "jump $spec agrees with gdb" "qzdb: $mine / gdb: $theirs"
done
expect "jump out of the function asks as gdb" "^Line $L_OLD is not in \`report'\.  Jump anyway\? \(y or n\) \[answered Y; input not from terminal\]$"
qz -ex "break ov_calc.c:$L_SPR" -ex run -ex "jump *0x5555555551c5" $B/ov_calc-O0
expect "jump *ADDR continues there" '^Continuing at 0x5555555551c5\.$'
qz -ex 'jump 10' $B/ov_calc-O0
expect "jump without a process" '^error: The program is not being run\.$'
qz -ex 'break main' -ex run -ex 'jump' $B/ov_calc-O0
expect "jump without an argument" '^error: Argument required \(starting address\)\.$'

# an instance already past: what would work
L_CPY=$(line ov_ret.c 'dst[i] = src[i];')
qz -ex "instance ov_ret.c:$L_CPY watch" -ex 'break rename_one' -ex run -ex checkpoint -ex continue \
	-ex "suppress ov_ret.c:$L_CPY 3" -ex "suppress ov_ret.c:$L_CPY 20" $B/ov_ret-O0
expect "an instance already executed names the checkpoint before it" \
	"^error: Instance 3 of ov_ret.c:$L_CPY already executed \(now at #5\); rollback to a checkpoint before it: one was taken when the line had run 0 times \(\`info checkpoints\`\), then suppress again\.$"
expect "a later instance can still be armed" "^Suppression 2 at ov_ret.c:$L_CPY, instance 20\.$"
qz -ex 'break rename_one' -ex run -ex "switch ov_ret.c:$(line ov_ret.c 'while (src[i] != 0 &&') 3" $B/ov_ret-O0
expect "a count not known mid-run is refused" '^error: The instance count of ov_ret.c:[0-9]+ is not known mid-run'

# a predicate in a function inlined at two call sites (-O2): both copies
L_INL=$(line alter_inl.c PREDICATE)
for O in O0 O2; do
	qz -ex "switch alter_inl.c:$L_INL all" -ex run $B/alter_inl-$O abcdef
	expect "inl-$O first call switched" "^Switched alter_inl.c:$L_INL #1: true -> false$"
	expect "inl-$O second call switched" "^Switched alter_inl.c:$L_INL #2: true -> false$"
	expect "inl-$O neither counted" '^hits 0$'
	qz -ex "switch alter_inl.c:$L_INL 2" -ex run $B/alter_inl-$O abcdef
	expect "inl-$O only the second copy's instance" '^hits 1$'
done
qz -ex "suppress alter_inl.c:$((L_INL + 1)) all" -ex run $B/alter_inl-O2 abcdef
expect_count "inl-O2 suppress: each inlined copy" 2 "^Suppressed alter_inl.c:$((L_INL + 1)) #[12]$"
expect "inl-O2 suppressed: nothing counted" '^hits 0$'

# armed mid-run with an instance number: the recording counted the line
# from the start of the run, so the number is known
qz -ex 'break main' -ex run -ex 'record on' -ex 'break rename_one' -ex c -ex c \
	-ex "suppress ov_ret.c:$L_CPY 3" -ex "suppress ov_ret.c:$L_CPY 22" -ex 'delete 1 2' \
	-ex 'info breakpoints' -ex c $B/ov_ret-O0
expect "mid-run, recorded: an instance past is refused" "^error: Instance 3 of ov_ret.c:$L_CPY already executed \(now at #5\)"
expect "mid-run, recorded: a later instance is armed" "^Suppression 3 at ov_ret.c:$L_CPY, instance 22\.$"
expect "mid-run, recorded: the count goes on from the recording's" '^	instances so far: 5$'
expect "mid-run, recorded: it fires at that instance" "^Suppressed ov_ret.c:$L_CPY #22$"

# what cannot be suppressed says why and what would work
L_W=$(line ov_ret.c 'while (src[i] != 0 &&')
qz -ex "suppress ov_ret.c:$L_W" -ex "suppress ov_ret.c:$(line ov_ret.c 'return printf(')" $B/ov_ret-O0
expect "a loop header is refused with what works" "^error: ov_ret.c:$L_W cannot be suppressed: it is a loop \(its code branches back\); switch its condition, or suppress a statement of its body \(jl 0x[0-9a-f]+ at 0x[0-9a-f]+\)\.$"
