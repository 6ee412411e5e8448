#!/bin/sh
# alter (issue 6): switch, suppress, instance counting and call breakpoints
# on the five memory-bug fixtures. Each crashes when run plainly; switching
# the guarding predicate for the right instance makes it exit normally and
# another instance does not; suppressing the faulty statement makes it exit
# normally; break free/malloc/strcpy with call conditions stop at the call
# sites. Bad input gives clear errors and alters nothing.
. tests/lib.sh
F=tests/fixtures
# line FILE TEXT: the first line of the fixture containing TEXT (fixed string)
line() { grep -nF -- "$2" "$F/$1" | head -1 | cut -d: -f1; }
crashed='^Program (received|terminated with) signal SIG(SEGV|ABRT)'
normal='^\[Inferior 1 \(process [0-9]+\) exited normally\]$'

# crash_switch_suppress NAME O SW_LINE GOOD BAD SUP_LINE SUP_SEL
crash_switch_suppress() {
	_n=$1 _o=$2 _bin=$B/$1-$2
	qz -ex run $_bin
	expect "$_n-$_o plain run crashes" "$crashed"
	qz -ex "switch $_n.c:$3 $4" -ex run -ex 'info breakpoints' $_bin
	expect "$_n-$_o switch #$4 announce" "^Switch 1 at $_n.c:$3, instance $4\.$"
	expect "$_n-$_o switch #$4 fires" "^Switched $_n.c:$3 #$4: (true -> false|false -> true)$"
	expect "$_n-$_o switch #$4 exits normally" "$normal"
	expect "$_n-$_o switch info row" "^1 +switch +keep y +0x[0-9a-f]+ at $_n.c:$3 instance $4$"
	expect "$_n-$_o switch fired count" '^	fired 1 time$'
	qz -ex "switch $_n.c:$3 $5" -ex run $_bin
	expect "$_n-$_o switch #$5 fires" "^Switched $_n.c:$3 #$5: "
	expect "$_n-$_o switch #$5 still crashes" "$crashed"
	[ -n "$6" ] || return 0
	qz -ex "suppress $_n.c:$6 $7" -ex run $_bin
	expect "$_n-$_o suppress fires" "^Suppressed $_n.c:$6 #"
	expect "$_n-$_o suppress exits normally" "$normal"
	expect_not "$_n-$_o suppress no crash" "$crashed"
}

for O in O0 O2; do
	# NULL deref for the 3rd key ("delta"): the predicate on strlen guards it
	crash_switch_suppress bug_nullp $O "$(line bug_nullp.c 'if (strlen(keys[k]) > 4)')" 3 1 \
		"$(line bug_nullp.c 'sum += e->value;')" 3
	# double free: the 2nd record is copied shallowly; the backup free too
	crash_switch_suppress bug_dfree $O "$(line bug_dfree.c 'if (recs[i]->id == 1)')" 2 1 \
		"$(line bug_dfree.c 'record_free(backup);')" once
	# dangling write: the 4th message (level 2) is remembered
	crash_switch_suppress bug_dangle $O "$(line bug_dangle.c 'if (msgs[i]->level > 1)')" 4 2 \
		"$(line bug_dangle.c 'strcpy(repeat->text')" all
	# stack overflow by the 3rd name: the length test lets it through
	crash_switch_suppress bug_stack $O "$(line bug_stack.c 'if (strlen(names[i]) < 80)')" 3 1
done
# heap overflow: k=1 (n=6) evaluates `i <= n` as instances 7..14; its 7th
# test (i=6, #13) lets a[6] be written over the next chunk's size. At -O0.
crash_switch_suppress bug_heap O0 "$(line bug_heap.c 'for (int i = 0; i <= n; i++)')" 13 3 \
	"$(line bug_heap.c 'a[i] = i * i;')" 12
# suppressing the strcpy call (its 3rd execution) at -O0
qz -ex "suppress bug_stack.c:$(line bug_stack.c 'strcpy(buf, name);') 3" -ex run $B/bug_stack-O0
expect "bug_stack suppress strcpy #3" '^Suppressed bug_stack.c:18 #3$'
expect "bug_stack suppress exits normally" "$normal"
expect "bug_stack suppressed copy prints empty name" '^hello $'

# -O2: where the line table does not allow it, a clear message
qz -ex 'switch bug_heap.c:13' $B/bug_heap-O2
expect "heap-O2 loop test not switchable" "^error: bug_heap.c:13 leaves by falling through, not by a branch alone"
expect_rc "heap-O2 loop test status" 1
# -O2 spreads the inlined strcpy over three blocks with line 17's code
# between: the statement is skipped, the other line's code still runs
qz -ex 'suppress bug_stack.c:18 3' -ex run $B/bug_stack-O2
expect "stack-O2 split statement suppressed" '^Suppressed bug_stack.c:18 #3$'
expect "stack-O2 split statement: the buffer's own initialisation ran" '^hello $'
expect "stack-O2 split statement exits normally" "$normal"

# ---- call breakpoints ----
BIN=$B/bug_dfree-O0
L_FREE=$(line bug_dfree.c 'free(r->name);')
qz -ex 'break record_copy' -ex run -ex 'break free if arg1==r->name' -ex 'info breakpoints' \
   -ex continue -ex bt -ex 'print/x $pc' -ex continue -ex bt -ex continue $BIN
expect "free-arg announce" '^Breakpoint 2 at 0x[0-9a-f]+: free, stops at the call site if arg1==r->name\.$'
expect "free-arg info row" '^2 +breakpoint +keep y +0x0000555555555[0-9a-f]+ <free> \(stops at the call site\)$'
expect "free-arg info cond" '^	stop only if arg1==r->name$'
expect "free-arg first stop at call site" "^Breakpoint 2, free \(arg1=0x5555555593[0-9a-f]+\) called from 0x[0-9a-f]+ in record_free \(r=0x[0-9a-f]+\) at tests/fixtures/bug_dfree.c:$L_FREE$"
expect "free-arg first from the recs loop" "^#1  0x[0-9a-f]+ in main \(\) at tests/fixtures/bug_dfree.c:$(line bug_dfree.c 'record_free(recs[i]);')$"
expect "free-arg second from the backup" "^#1  0x[0-9a-f]+ in main \(\) at tests/fixtures/bug_dfree.c:$(line bug_dfree.c 'record_free(backup);')$"
expect "free-arg pc is the call" '^\$[0-9]+ = 0x5555555551f[0-9a-f]$'
expect "free-arg then the double free" 'double free detected'
n=$(printf '%s\n' "$OUT" | grep -c '^Breakpoint 2, free')
[ "$n" = 2 ] && pass "free-arg stops twice (the rerun call is not a hit)" || fail "free-arg stops twice (the rerun call is not a hit)" "$n stops"

# malloc if ret==X: X is the message that dangles (repeat), allocated in
# msg_new for the 4th text
BIN=$B/bug_dangle-O0
qz -ex "break bug_dangle.c:$(line bug_dangle.c 'if (repeat)')" \
   -ex run -ex 'print repeat' $BIN
X=$(printf '%s\n' "$OUT" | sed -n 's/^\$1 = (struct msg \*) \(0x[0-9a-f]*\)$/\1/p')
[ -n "$X" ] && pass "dangle repeat address" || fail "dangle repeat address" "no \$1 in: $OUT"
qz -ex "break malloc if ret==$X" -ex run -ex bt -ex 'info breakpoints' $BIN
expect "malloc-ret stop" "^Breakpoint 1, malloc \(arg1=0x1c\) returned $X in the call at bug_dangle.c:$(line bug_dangle.c 'malloc(sizeof *m)'); now at 0x[0-9a-f]+ in msg_new \(text=0x[0-9a-f]+ \"panic\", level=2\) at tests/fixtures/bug_dangle.c:"
expect "malloc-ret caller" "^#1  0x[0-9a-f]+ in main \(\) at tests/fixtures/bug_dangle.c:$(line bug_dangle.c 'msgs[i] = msg_new')$"
expect "malloc-ret hit count" '^	breakpoint already hit 1 time$'

# strcpy if write ADDR 8: ADDR is greet's return-address slot ($rbp+8 at -O0
# once greet's frame is set up); the 3rd copy overflows into it
BIN=$B/bug_stack-O0
qz -ex 'break greet' -ex run -ex 'delete 1' -ex 'break strcpy if write $rbp+8 8' -ex continue \
   -ex 'print name' -ex continue $BIN
expect "strcpy-write stop" "^Breakpoint 2, strcpy \(arg1=0x7ffffff[0-9a-f]+, arg2=0x[0-9a-f]+\) wrote 0x7ffffff[0-9a-f]+ \(8 bytes\) in the call at bug_stack.c:$(line bug_stack.c 'strcpy(buf, name);'); now at greet "
expect "strcpy-write the long name" '^\$1 = 0x[0-9a-f]+ "a-name-much-too-long'
n=$(printf '%s\n' "$OUT" | grep -c '^Breakpoint 2, strcpy')
[ "$n" = 1 ] && pass "strcpy-write stops once" || fail "strcpy-write stops once" "$n stops"
expect "strcpy-write then the crash" "$crashed"
# access to the tail of the long name (only its copy reads that far; the
# short names share an aligned block with its head, which strcpy's vector
# reads touch); a range too big for debug registers
qz -ex 'break strcpy if access names[2]+64 1' -ex run -ex 'print name' $BIN
expect "strcpy-access before run (global evaluated at the first call)" '^Breakpoint 1, strcpy \(arg1=0x[0-9a-f]+, arg2=0x555555556010\) accessed 0x555555556050 '
qz -ex 'break main' -ex run -ex 'break strcpy if access names[2]+64 1' -ex continue -ex 'print name' $BIN
expect "strcpy-access stop" '^Breakpoint 2, strcpy \(arg1=0x[0-9a-f]+, arg2=0x[0-9a-f]+\) accessed '
expect "strcpy-access on the long name" '^\$1 = 0x[0-9a-f]+ "a-name-much-too-long'
expect "strcpy-access announce (evaluated now)" '^Breakpoint 2 at 0x[0-9a-f]+: strcpy, stops at the call site if access names\[2\]\+64 1\.$'
qz -ex 'break strcpy if read 0x7fffffffe000 64' $BIN
expect "strcpy-read too big" '^error: 0x7fffffffe000 \(64 bytes\) needs more than the 4 debug registers; read watches at most 32 aligned bytes'
qz -ex 'break strcpy if write 0x7fffffffe000 70000' $BIN
expect "strcpy-write size limit" '^error: SIZE must be 1 to 65536 bytes\.$'
# 48 bytes from the return-address slot: too many for the debug registers,
# so the calls are single-stepped; only the long name's copy writes there
qz -ex 'break greet' -ex run -ex 'delete 1' -ex 'break strcpy if write $rbp+8 48' -ex continue \
   -ex 'print name' -ex continue $BIN
expect "strcpy-write stepped stop" "^Breakpoint 2, strcpy \(arg1=0x7ffffff[0-9a-f]+, arg2=0x[0-9a-f]+\) wrote 0x7ffffff[0-9a-f]+ \(48 bytes\) in the call at bug_stack.c:$(line bug_stack.c 'strcpy(buf, name);'); now at greet "
expect "strcpy-write stepped the long name" '^\$1 = 0x[0-9a-f]+ "a-name-much-too-long'
n=$(printf '%s\n' "$OUT" | grep -c '^Breakpoint 2, strcpy')
[ "$n" = 1 ] && pass "strcpy-write stepped stops once" || fail "strcpy-write stepped stops once" "$n stops"

# ---- instances ----
BIN=$B/bug_nullp-O0
L29=$(line bug_nullp.c 'if (strlen(keys[k]) > 4)')
L32=$(line bug_nullp.c 'printf("sum')
qz -ex "instance bug_nullp.c:$L29 watch" -ex "switch bug_nullp.c:$L29 3" -ex "break $L32" -ex run \
   -ex "instance bug_nullp.c:$L29" -ex "instance bug_nullp.c:$((L29 + 1))" $BIN
expect "instance watch" "^Counting instances of bug_nullp.c:$L29\.$"
expect "instance with watch and switch" "^Switched bug_nullp.c:$L29 #3: true -> false$"
expect "instance count" "^bug_nullp.c:$L29: instance 4$"
expect "instance unknown" "^bug_nullp.c:$((L29 + 1)): instance count not known"
# a loop test: entries (watch) and decisions (switch) count alike: 6 + 8
# tests before the corrupted heap aborts in the third malloc
BIN=$B/bug_heap-O0
L13=$(line bug_heap.c 'for (int i = 0; i <= n; i++)')
qz -ex "instance bug_heap.c:$L13 watch" -ex "break $(line bug_heap.c 'sum += tables')" -ex run -ex "instance bug_heap.c:$L13" $BIN
expect "instance loop test (entries)" "^bug_heap.c:$L13: instance 14$"
qz -ex "switch bug_heap.c:$L13 1000" -ex "break $(line bug_heap.c 'sum += tables')" -ex run -ex "instance bug_heap.c:$L13" $BIN
expect "instance loop test (decisions)" "^bug_heap.c:$L13: instance 14$"
# mid-run: counting starts late, so the count is not exact
BIN=$B/bug_nullp-O0
qz -ex "break $L29" -ex run -ex "instance bug_nullp.c:$L29 watch" -ex "switch bug_nullp.c:$L29 3" \
   -ex "switch bug_nullp.c:$L29" -ex continue $BIN
expect "instance mid-run watch" "^Counting instances of bug_nullp.c:$L29 from now on"
expect "switch N mid-run refused" "^error: The instance count of bug_nullp.c:$L29 is not known mid-run"

# ---- delete, disable, enable, verbose ----
qz -ex "switch bug_nullp.c:$L29 3" -ex 'disable 1' -ex run -ex 'info breakpoints' $BIN
expect "disabled switch row" "^1 +switch +keep n "
expect_not "disabled switch does not fire" '^Switched'
expect "disabled switch crash" "$crashed"
qz -ex "switch bug_nullp.c:$L29 3" -ex 'disable 1' -ex 'enable 1' -ex run $BIN
expect "enabled switch fires" '^Switched bug_nullp.c:29 #3'
qz -ex "switch bug_nullp.c:$L29 3" -ex 'delete 1' -ex run -ex 'info breakpoints' $BIN
expect_not "deleted switch does not fire" '^Switched'
expect "deleted switch gone" '^No breakpoints or watchpoints\.$'
qz -ex "suppress bug_nullp.c:$((L29 + 1)) all" -ex 'set alter-verbose off' -ex run -ex 'info breakpoints' $BIN
expect_not "verbose off silent" '^Suppressed'
expect "verbose off still suppresses" '^sum 0$'
expect "suppress all fired 3 times" '^	fired 3 times$'
# delete while stopped lifts the sites: the program runs as without it
qz -ex "switch bug_nullp.c:$L29 all" -ex "tbreak $L29" -ex run -ex 'delete 1' -ex continue $BIN
expect_not "delete mid-run no switch" '^Switched'
expect "delete mid-run crash" "$crashed"
# rerun: counts start again
qz -ex "switch bug_nullp.c:$L29 3" -ex run -ex run $BIN
n=$(printf '%s\n' "$OUT" | grep -c '^Switched bug_nullp.c:29 #3')
[ "$n" = 2 ] && pass "rerun switches again" || fail "rerun switches again" "$n"

# ---- bad input: clear errors, nothing altered ----
qz -ex "switch bug_nullp.c:$((L29 + 1))" -ex 'info breakpoints' -ex run $BIN
expect "switch no branch" "^error: bug_nullp.c:$((L29 + 1)) has no branch to switch \(its code has one way out: 0x[0-9a-f]+ \(line 27\), and no condition with two outcomes\)\.$"
expect_rc "switch no branch status" 1
qz -ex "suppress bug_nullp.c:$L32" -ex "suppress bug_nullp.c:$((L32 - 1))" $BIN
expect "suppress no code" "^error: Line $((L32 - 1)) of \"bug_nullp.c\" has no code \(not a statement\)\.$"
qz -ex 'suppress bug_nullp.c:31' -ex 'info breakpoints' $BIN
expect "suppress brace" '^error: Line 31 of "bug_nullp.c" has no code'
qz -ex "switch bug_nullp.c:$L29 99" -ex "suppress bug_nullp.c:$((L29 + 1)) 50" -ex run $BIN
expect "instance never occurs: no switch" "$crashed"
expect_not "instance never occurs: nothing fired" '^(Switched|Suppressed)'
qz -ex "switch bug_nullp.c:$L29 99" -ex "suppress bug_nullp.c:$((L29 + 1)) all" -ex 'set alter-verbose off' -ex run $BIN
expect "instance never occurred warning" "^warning: Switch 1 at bug_nullp.c:$L29: instance 99 never occurred \(the run had 4\)\.$"
qz -ex 'break no_such_function if arg1==1' -ex 'info breakpoints' $BIN
expect "call bp unknown function" '^error: Function "no_such_function" not defined\.$'
expect "call bp unknown function: nothing added" '^No breakpoints or watchpoints\.$'
qz -ex 'break free if arg7==1' $B/bug_dfree-O0
expect "arg7 is an ordinary condition" '^error: No symbol "arg7" in current context\.|^Breakpoint 1 at'
qz -ex 'break free if arg1==' $B/bug_dfree-O0
expect "call bp missing value" '^error: A value is missing'
qz -ex "switch bug_nullp.c:$L29 0" -ex "switch bug_nullp.c:$L29 sometimes" -ex 'switch nosuch.c:3' \
   -ex 'switch bug_nullp.c:9999' -ex 'switch' -ex 'instance bug_nullp.c:29 please' $BIN
expect "bad selector 0" '^error: Expected all, once or an instance number >= 1, got "0"\.$'
expect "bad selector word" '^error: Expected all, once or an instance number >= 1, got "sometimes"\.$'
expect "bad file" '^error: No source file named nosuch.c\.$'
expect "line past the end" '^error: Line 9999 of "bug_nullp.c" has no code'
expect "no location" '^error: Give a location: FILE:LINE\.$'
expect "instance usage" '^error: Usage: instance FILE:LINE \[watch\]$'
no_leftover "alter no leftover" $BIN

# ---- branch shapes: ?:, &&, one-line if, while; a jump table refused ----
C=alter_cases.c
for O in O0 O2; do
	BIN=$B/alter_cases-$O
	qz -ex "switch $C:$(line $C TERNARY) all" -ex run $BIN
	expect "ternary-$O switched as a whole" '^pick -1 both 1 one 1 w 4 class 13$'
done
BIN=$B/alter_cases-O0
qz -ex "switch $C:$(line $C ANDAND) all" -ex run $BIN
expect "andand switched as a whole" '^pick 1 both 2 one 1 w 4 class 13$'
expect "andand fires once per test" "^Switched $C:$(line $C ANDAND) #3: "
expect_not "andand no fourth" "^Switched $C:$(line $C ANDAND) #4"
qz -ex "switch $C:$(line $C ONELINE) 1" -ex run $BIN
expect "one-line if switched" '^pick 1 both 1 one 2 w 4 class 13$'
expect "one-line if message" "^Switched $C:$(line $C ONELINE) #1: false -> true$"
qz -ex "switch $C:$(line $C WHILE) 1" -ex run $BIN
expect "while test switched" '^pick 1 both 1 one 1 w 0 class 13$'
expect "while message" "^Switched $C:$(line $C WHILE) #1: true -> false$"
qz -ex "switch $C:$(line $C JUMPTABLE)" -ex 'info breakpoints' $BIN
expect "jump table refused" "^error: $C:$(line $C JUMPTABLE) leaves through a jump table; a switch needs exactly two exits, it has: 0x[0-9a-f]+ \(line [0-9]+\)(, 0x[0-9a-f]+ \(line [0-9]+\)){6}, an indirect jump \(a jump table\)\.$"
expect "jump table names the cases" "0x[0-9a-f]+ \(line $(line $C 'case 0:')\), .*0x[0-9a-f]+ \(line $(line $C 'case 5:')\)"
expect "jump table nothing added" '^No breakpoints or watchpoints\.$'
# -O2 turns the one-line if into sete (iteration 0 folded away, so its
# first instance is i == 1): switched by flipping the flags sete reads
qz -ex "switch $C:$(line $C ONELINE)" -ex run $B/alter_cases-O2
expect "one-line if -O2 branchless" "^Switched $C:$(line $C ONELINE) #1: true -> false \(branchless: flags flipped for its set/cmov at 0x[0-9a-f]+\)$"
expect "one-line if -O2 branchless: the count not taken" '^pick 1 both 1 one 0 w 4 class 13$'

# `next` over a switched line: the step that reaches the jump switches it
BIN=$B/bug_nullp-O0
qz -ex "switch bug_nullp.c:$L29 1" -ex "break $L29" -ex run -ex next -ex 'print k' $BIN
expect "next switches" "^Switched bug_nullp.c:$L29 #1: true -> false$"
expect "next lands on the loop increment" '^27		for \(int k = 0; k < 4; k\+\+\) \{$'
expect "next still in the first iteration" '^\$1 = 0$'
no_leftover "alter no leftover at the end" $BIN
qz -ex "switch bug_nullp.c:$L29 3" -ex 'condition 1 k == 2' -ex 'ignore 1 2' $BIN
expect "condition on a switch refused" '^error: Breakpoint 1 is a switch entry; condition and ignore do not apply to it\.$'

# Watchpoints and watched calls never share the debug registers: with a
# hardware watchpoint armed, a watched call says it is not watched, and the
# watchpoint keeps working.
qz -ex 'break 27' -ex run -ex 'watch -l total' -ex 'break strcpy if write (char*)&total 4' \
   -ex c $B/bug_stack-O0
# Without working debug registers (as the probe's `info platform` says)
# nothing is shared: both are watched.
if $QZDB --batch -ex 'info platform' | grep -q '^Debug registers, write watch: *yes$'; then
	expect "dr shared: call says it is not watched" 'hardware watchpoints hold the debug registers; this call is not watched'
else
	expect_not "no debug registers: the call is watched too" 'this call is not watched'
fi
expect "dr shared: watchpoint still fires" '^New value = 10$'
