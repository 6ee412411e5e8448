#!/bin/sh
# The capability probe (core/proc/platform.c) and the stepping primitive's
# fallback: `info platform`, the maintenance switches, and single steps over
# cpuid, rdtsc and xgetbv (tests/fixtures/hvinsn.c) that must stop at the
# very next instruction whether the machine's trap is on time or late, with
# the fallback forced (maint set step-traps off) and not. The recorder's
# count and slices through cpuid's result are checked the same way.
. tests/lib.sh
FORCE="maint set step-traps off"
PIE=0x555555554000   # where the PIE fixtures load with randomisation off

qz -ex 'info platform'
expect "platform: runs without a program" '^CPU: +(AuthenticAMD|GenuineIntel|[A-Za-z]+)'
for row in 'Kernel:' 'Hypervisor:' 'Debug registers, write watch:' \
	   'Debug registers, execute:' 'Single-step trap after cpuid:' \
	   'Single-step trap after rdtsc:' 'Single-step trap after xgetbv:' \
	   'XSAVE area:' 'userfaultfd write-protect:' 'PAGEMAP_SCAN:' 'Landlock:' \
	   'seccomp filters:' 'Probe took:'; do
	expect "platform row $row" "^$row +[^ ]"
done
expect "platform: cpuid trap is on time or late" '^Single-step trap after cpuid: +(on time|late)'
expect_rc "platform: exit status" 0

qz -ex 'maint set debug-registers off' -ex 'maint set step-traps off' -ex 'info platform' \
   -ex 'maint show debug-registers' -ex 'maint show step-traps'
expect "forced: debug registers" '^Debug registers, write watch: +(yes|no|unknown) \(forced off by maint set debug-registers off; watchpoints use page protection instead\)$'
expect "forced: cpuid steps" '^Single-step trap after cpuid: +(on time|late) \(forced off by maint set step-traps off; stepped by a temporary breakpoint\)$'
expect "forced: maint show" '^debug-registers: off \(forced\)$'
qz -ex 'maint set step-traps sideways'
expect "maint set: bad value" '^error: "on" or "off" expected\.$'
expect_rc "maint set: bad value fails" 1
qz -ex 'maint set warp-drive off'
expect "maint set: unknown capability" '^error: Undefined maint set command: "warp-drive off"'
qz -ex 'break main'
expect "no program: break refuses" '^error: No symbol table is loaded\.  Use the "file" command\.$'

# hv_next BIN: "ADDR NEXT" (file offsets, hex) for each cpuid, rdtsc and
# xgetbv of BIN's code: where a single step over it must stop.
hv_next() {
	objdump -d --no-show-raw-insn "$1" | awk '
		/^ +[0-9a-f]+:\t/ { a = $1; sub(":", "", a)
			if (want != "") { print want, a; want = "" }
			if ($2 == "cpuid" || $2 == "rdtsc" || $2 == "xgetbv") want = a }'
}

# hv_steps BIN [PRE]: stepi from main's breakpoint 200 times, printing the
# pc after each; the pcs (file offsets, hex) one a line.
hv_steps() {
	_x=$B/hvsteps.x
	: > "$_x"
	[ -n "$2" ] && echo "$2" >> "$_x"
	printf 'break main\nrun\n' >> "$_x"
	_i=0
	while [ $_i -lt 200 ]; do printf 'stepi\np/x $pc\n' >> "$_x"; _i=$((_i + 1)); done
	qz -x "$_x" "$1"
	printf '%s\n' "$OUT" | sed -n 's/^\$[0-9]* = \(0x[0-9a-f]*\)$/\1/p' | while read -r pc; do
		printf '%x\n' $((pc - PIE))
	done
}

# hv_check NAME BIN STEPS: every step that started on one of the
# instructions stopped right after it, and there were 9 such (3 loop
# iterations, 3 instructions).
hv_check() {
	hv_next "$2" > $B/hvnext.txt
	_bad=$(printf '%s\n' "$3" | awk 'NR == FNR { nx[$1] = $2; next }
		prev != "" && (prev in nx) { n++; if (nx[prev] != $1) { bad++; w = prev " -> " $1 " (want " nx[prev] ")" } }
		{ prev = $1 }
		END { printf "%d %d %s\n", n, bad, w }' $B/hvnext.txt -)
	_n=$1; set -- "$1" $_bad; _c=$2; _w=$3
	if [ "$2" -ge 9 ] && [ "$3" -eq 0 ]; then
		pass "$1"
	else
		shift 3; fail "$_n" "$_c steps over cpuid/rdtsc/xgetbv, $_w landed wrong: $*"
	fi
}

for o in O0 O2; do
	BIN=$B/hvinsn-$o
	plain=$(hv_steps $BIN)
	hv_check "stepi $o: each instruction once" $BIN "$plain"
	forced=$(hv_steps $BIN "$FORCE")
	hv_check "stepi $o, step traps forced off: each instruction once" $BIN "$forced"
	if [ "$plain" = "$forced" ] && [ -n "$plain" ]; then
		pass "stepi $o: the same 200 pcs with and without the fallback"
	else
		fail "stepi $o: the same 200 pcs with and without the fallback" "sequences differ"
	fi
done

# The recorder steps with the same primitive: its count must equal the
# number of single steps from main's breakpoint to line 36, and a slice of
# sum must reach cpuid's statement (line 9) through vendor_word's result.
for o in O0 O2; do
	BIN=$B/hvinsn-$o
	for pre in "" "$FORCE"; do
		how=${pre:+, forced}
		qz ${pre:+-ex "$pre"} -ex 'break main' -ex run -ex 'record on' -ex 'break 36' -ex c \
		   -ex 'info record' -ex 'slice sum' -ex 'info slice 1' $BIN
		n=$(printf '%s\n' "$OUT" | sed -n 's/^Recorded \([0-9]*\) instructions.*/\1/p')
		expect "record $o$how: slice holds cpuid's line" '^  hvinsn.c:9 #1,#2,#3$'
		[ -n "$n" ] || { fail "record $o$how: count" "no count in: $OUT"; continue; }
		qz ${pre:+-ex "$pre"} -ex 'break main' -ex 'break 36' -ex run -ex "stepi $((n - 1))" \
		   -ex 'p 424242' -ex stepi $BIN
		after=$(printf '%s\n' "$OUT" | sed -n '/^\$1 = 424242$/,$p')
		if printf '%s\n' "$OUT" | grep -q '^Breakpoint 2, ' &&
		   ! printf '%s\n' "$OUT" | sed '/^\$1 = 424242$/,$d' | grep -q '^Breakpoint 2, ' &&
		   printf '%s\n' "$after" | grep -q '^Breakpoint 2, main '; then
			pass "record $o$how: $n instructions, as stepping counts"
		else
			fail "record $o$how: $n instructions, as stepping counts" "line 36 not reached by exactly $n steps:"
			printf '%s\n' "$OUT" | tail -8 | sed 's/^/    | /'
		fi
	done
done
