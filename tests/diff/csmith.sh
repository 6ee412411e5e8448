#!/bin/sh
# Trace invariants between -O0 and -O2 builds of random programs (Debug2,
# see DESIGN.md "Tests"). csmith generates small terminating C programs with
# fixed seeds; each is built at -O0 and -O2 (tests/build/csmith/) and stepped
# in qzdb from func_1 (the generated code proper: main first runs
# crc32_gentab, thousands of steps in csmith.h) with `frame`, `info args` and
# `info locals` at every stop, until the trace returns to main. Checks:
#   lines   every line of the program's file stepped on at -O2 is stepped on
#           at -O0;
#   params  every parameter value (not a pointer, not <optimized out>) shown
#           at -O2 for a function is shown for that parameter at -O0;
#   scope   every local listed at -O2 at a line is listed at -O0 at that line
#           (lines stepped on at both levels).
# and csmith-sSEED-run: qzdb neither crashes, hangs nor errs, stops where gdb
# does after `break func_1`, `run`, and its trace does not break off.
# A violation is looked up in gdb's traces of the same binaries (same
# commands, empty debug-file-directory): if gdb at -O0 shows what qzdb's -O0
# trace lacks, or gdb at -O2 does not show what qzdb's -O2 trace does, it is
# qzdb's: FAIL. Otherwise it is the compiler's: a line "# compiler: ...".
#   sh tests/diff/csmith.sh
#   CSMITH_N=10 CSMITH_SEED0=100 sh tests/diff/csmith.sh   # other programs
#   CSMITH_STEPS=2000      step cap (a program whose -O0 trace does not get
#                          back to main within it is skipped)
# Files per program in tests/build/csmith/sSEED*: .c, -O0, -O2, .cmds, and
# per debugger and level .qz-O0 / .gdb-O2 ... (raw output) and .tr (trace).
. "$(dirname "$0")/common.sh"
LC_ALL=C
export LC_ALL

N=${CSMITH_N:-4}
SEED0=${CSMITH_SEED0:-1}
STEPS=${CSMITH_STEPS:-1000}
CS=$B/csmith
mkdir -p "$CS"

if ! csmith_found; then
	fail csmith-setup "csmith or its headers (Debian csmith, libcsmith-dev) not installed"
	exit 0
fi
if ! qz_available; then
	fail csmith-setup "qzdb not built"
	exit 0
fi

# gen_cmds CAP >FILE: break func_1, run, then CAP steps, with markers and
# frame, info args, info locals at every stop
gen_cmds() {
	printf '%s\n' 'break func_1' 'echo @@STEP 0\n' run
	_i=0
	while :; do
		printf '%s\n' 'echo @@FRAME\n' frame 'echo @@ARGS\n' 'info args' 'echo @@LOCALS\n' 'info locals'
		_i=$((_i + 1))
		[ $_i -gt "$1" ] && break
		printf 'echo @@STEP %s\\n\nstep\n' $_i
	done
}
cmds=$CS/steps.cmds
gen_cmds "$STEPS" >"$cmds"

# trace SRCBASE MAINLINE CALLLINE <RAW >TRACE: the trace of a debugger's
# output, up to the first stop back in main (a line of main after the call of
# func_1, CALLLINE, or the checksum code in csmith.h), the exit or the step
# cap. Stops on the lines of main from MAINLINE to CALLLINE, which -O2 code
# visits in the middle of func_1, are left out; a stop's function is the one
# the debugger names (at -O2 gdb says main for some of func_N's lines).
#   S idx func file line      a stop (file: base name)
#   A idx func name value     a parameter (frame line or info args)
#   L idx file line name      a local (info locals)
#   END main|exit|cap|lost N  how the trace ended, at step N
trace() {
	awk -v src="$1" -v mainline="$2" -v callline="$3" -v cap="$TRACE_CAP" '
	function base(f) { sub(/.*\//, "", f); return f }
	# "[0xPC in ]func (args) at FILE:LINE" or "... from LIB": sets F_func
	# F_file F_line F_args, returns 1 if it is a frame line
	function frame(s,   at) {
		F_func = ""; F_file = ""; F_line = ""; F_args = ""
		sub(/^0x[0-9a-f]+ in /, "", s)
		if (s !~ /^[A-Za-z_][A-Za-z0-9_.]* \(/) return 0
		F_func = s; sub(/ .*/, "", F_func); sub(/\..*/, "", F_func)
		if (match(s, / at [^ ]+:[0-9]+$/)) {
			at = substr(s, RSTART + 4)
			F_args = substr(s, length(F_func) + 1, RSTART - length(F_func) - 1)
			F_line = at; sub(/.*:/, "", F_line)
			F_file = base(at); sub(/:[0-9]+$/, "", F_file)
			return 1
		}
		return s ~ /\)( from [^ ]+)?$/
	}
	function finish(how) { if (!done) print "END " how " " idx; done = 1 }
	function stop(func, file, line, args) {
		have = 1
		if (file == "") { finish("lost"); return }
		if (file == src && line + 0 >= mainline) {
			if (line + 0 > callline) finish("main")
			else have = 0   # main around the call: left out
			return
		}
		# in csmith.h: main with inlined code of the checksum loops, or
		# the checksum functions themselves
		if (file != src && nstops > 0 &&
		    func ~ /^(main|transparent_crc|crc32_8bytes|crc32_byte|platform_main_end)$/) {
			finish("main")
			return
		}
		nstops++; sfunc = func; sfile = file; sline = line; recorded = 1
		print "S " idx " " func " " file " " line
		frameargs(args)
	}
	# NAME[@entry] and VALUE of a parameter; for "p=p@entry=V" the value V
	function arg(nm, v) {
		sub(/@entry$/, "", nm)
		if (index(v, nm "@entry=") == 1) v = substr(v, length(nm) + 8)
		print "A " idx " " sfunc " " nm " " v
	}
	# "( a=1, b=2 '\''x'\'')": one A record per parameter
	function frameargs(s,   n, parts, i, nm, v) {
		sub(/^ *\(/, "", s); sub(/\) *$/, "", s)
		gsub(/, [A-Za-z_][A-Za-z0-9_]*(@entry)?=/, "\001&", s)
		n = split(s, parts, "\001, ")
		for (i = 1; i <= n; i++) {
			if (!match(parts[i], /^[A-Za-z_][A-Za-z0-9_]*(@entry)?=/)) continue
			arg(substr(parts[i], 1, RLENGTH - 1), substr(parts[i], RLENGTH + 1))
		}
	}
	BEGIN { done = 0; nstops = 0; mode = "stop"; idx = -1; moved = 0 }
	done { next }
	{ sub(/\r$/, "") }
	# per step: the step (its output says whether it stopped at a line),
	# "frame" (where: function, file, line, parameters), info args, locals
	/^@@STEP [0-9]+$/ { idx = $2; mode = "stop"; moved = 0; have = 0; recorded = 0; next }
	/^@@FRAME$/ { mode = "frame"; next }
	/^@@ARGS$/ { mode = "args"; next }
	/^@@LOCALS$/ { mode = "locals"; next }
	/^\[Inferior [0-9]+ \(process [0-9]+\) exited/ { finish("exit"); next }
	/^Program (received|terminated with) signal / { finish("lost"); next }
	mode == "stop" {
		s = $0
		sub(/^(Temporary breakpoint|Breakpoint) [0-9.]+, /, "", s)
		if (frame(s) || $0 ~ /^(0x[0-9a-f]+\t)?[0-9]+(\t|$)/) moved = 1
		next
	}
	mode == "frame" && moved && !have && /^#0  / {
		s = $0; sub(/^#0  /, "", s)
		if (frame(s)) stop(F_func, F_file, F_line, F_args)
		next
	}
	mode == "args" && recorded && /^[A-Za-z_][A-Za-z0-9_]*(@entry)? = / {
		v = $0; sub(/^[^ ]+ = /, "", v)
		arg($1, v); next
	}
	mode == "locals" && recorded && /^[A-Za-z_][A-Za-z0-9_]* = / {
		print "L " idx " " sfile " " sline " " $1; next
	}
	END { finish(idx >= cap ? "cap" : "lost") }
	'
}

# sets of a trace: lines SRC <TR, params <TR, scope SRC <TR (sorted, unique)
lines_of() { awk -v f="$1" '$1 == "S" && $4 == f { print $5 }' | sort -u; }
params_of() {
	awk '$1 == "A" {
		v = $0; sub(/^A [^ ]+ [^ ]+ [^ ]+ /, "", v)
		# pointers, aggregates, <optimized out>, <error...>, "..."
		if (v ~ /^(0x|\(|\{|<|\.\.\.)/ || v ~ /^-?[0-9]+ <[^ >]*>$/) next
		print $3 " " $4 " " v
	}' | sort -u
}
scope_of() { awk -v f="$1" '$1 == "L" && $3 == f { print $4 " " $5 }' | sort -u; }

# set_of KIND SRC TRACE
set_of() {
	case $1 in
	lines) lines_of "$2" <"$3" ;;
	params) params_of <"$3" ;;
	scope) scope_of "$2" <"$3" ;;
	esac
}

# gdb_trace P O CMDS: gdb's trace of $P-$O in $P.gdb-$O.tr (once per run)
gdb_trace() {
	[ -s "$1.gdb-$2.tr" ] && return
	gdb_run_cached "$3" "$1.gdb-$2" "$1-$2"
	trace "$(basename "$1").c" "$mainline" "$callline" <"$1.gdb-$2" >"$1.gdb-$2.tr"
}

# qz_trace P O CMDS: run qzdb on $P-$O, its trace in $P.qz-$O.tr; adds what
# went wrong to $bad (hard=1 if there is no trace to check)
qz_trace() {
	timeout 60 $QZDB --batch -x "$3" "$1-$2" >"$1.qz-$2" 2>"$1.qz-$2.err" </dev/null
	_rc=$?
	trace "$(basename "$1").c" "$mainline" "$callline" <"$1.qz-$2" >"$1.qz-$2.tr"
	_repro="$QZDB --batch -x $3 $1-$2"
	if [ $_rc -ge 124 ]; then
		hard=1
		bad="$bad
    -$2: exit status $_rc ($([ $_rc = 124 ] && echo 'timed out, 60 s' || echo crashed)): $_repro"
	fi
	# errors other than stepping past the end
	_errs=$(grep -v -e 'The program is not being run' -e 'No symbol table info available' \
		-e 'No frame selected' "$1.qz-$2.err" | sort | uniq -c | head -5)
	[ -n "$_errs" ] && bad="$bad
    -$2: unexpected errors ($1.qz-$2.err): $_repro
$(printf '%s\n' "$_errs" | sed 's/^/    | /')"
	_first=$(awk '$1 == "S" && $2 == 0 { print $3 " " $4 ":" $5 }' "$1.qz-$2.tr")
	case $_first in
	"func_1 "*) ;;
	"") hard=1; bad="$bad
    -$2: no stop after break func_1, run: $_repro" ;;
	*)
		# gdb shows func_1 (the function of the breakpoint) even where
		# calls inlined into it start at the same address
		_gfirst="(not run)"
		if [ "$2" = O2 ]; then
			gdb_trace "$1" O2 "$3"
			_gfirst=$(awk '$1 == "S" && $2 == 0 { print $3 " " $4 ":" $5 }' "$1.gdb-O2.tr")
		fi
		[ "$_first" = "$_gfirst" ] || bad="$bad
    -$2: break func_1, run stops in $_first, gdb in ${_gfirst:-?}: $_repro" ;;
	esac
	# a step that does not stop at a line (nor exits) while gdb's does
	_end=$(tail -1 "$1.qz-$2.tr")
	case $_end in
	"END lost "*)
		gdb_trace "$1" "$2" "$3"
		_gend=$(tail -1 "$1.gdb-$2.tr")
		[ "${_gend% *}" = "END lost" ] || bad="$bad
    -$2: the trace breaks off at step ${_end##* } (no stop at a source line, see $1.qz-$2), gdb's goes on ($_gend): $_repro" ;;
	esac
}

# check NAME KIND P SRC: the invariant KIND on the traces of program P
check() {
	_name=$1 _kind=$2 _p=$3 _src=$4
	set_of "$_kind" "$_src" "$_p.qz-O2.tr" >"$_p.$_kind-O2"
	set_of "$_kind" "$_src" "$_p.qz-O0.tr" >"$_p.$_kind-O0"
	if [ "$_kind" = scope ]; then
		# only lines stepped on at both levels
		lines_of "$_src" <"$_p.qz-O0.tr" >"$_p.both"
		awk 'NR == FNR { l[$1] = 1; next } $1 in l' "$_p.both" "$_p.$_kind-O2" >"$_p.$_kind-O2.x"
		mv "$_p.$_kind-O2.x" "$_p.$_kind-O2"
	fi
	comm -23 "$_p.$_kind-O2" "$_p.$_kind-O0" >"$_p.$_kind-viol"
	if [ ! -s "$_p.$_kind-viol" ]; then
		pass "$_name"
		return
	fi
	gdb_trace "$_p" O0 "$_p.cmds"
	gdb_trace "$_p" O2 "$_p.cmds"
	set_of "$_kind" "$_src" "$_p.gdb-O0.tr" >"$_p.$_kind-gdb-O0"
	set_of "$_kind" "$_src" "$_p.gdb-O2.tr" >"$_p.$_kind-gdb-O2"
	# qzdb's -O0 trace lacks what gdb's has; qzdb's -O2 trace has what gdb's lacks
	comm -12 "$_p.$_kind-viol" "$_p.$_kind-gdb-O0" | sed 's/^/-O0 trace lacks (gdb -O0 has it): /' >"$_p.$_kind-bad"
	comm -13 "$_p.$_kind-gdb-O0" "$_p.$_kind-viol" | comm -23 - "$_p.$_kind-gdb-O2" |
		sed 's/^/-O2 trace has (gdb -O2 has not): /' >>"$_p.$_kind-bad"
	comm -13 "$_p.$_kind-gdb-O0" "$_p.$_kind-viol" | comm -12 - "$_p.$_kind-gdb-O2" >"$_p.$_kind-compiler"
	while IFS= read -r _v; do
		echo "# compiler: $_name: at -O2 not at -O0 (gdb agrees): $_kind $_v"
	done <"$_p.$_kind-compiler"
	if [ -s "$_p.$_kind-bad" ]; then
		_what=line
		[ "$_kind" = params ] && _what="func param value"
		[ "$_kind" = scope ] && _what="line local"
		fail "$_name" "$(wc -l <"$_p.$_kind-bad") violation(s) that gdb does not share ($_what), traces in $_p.{qz,gdb}-O{0,2}.tr:"
		head -20 "$_p.$_kind-bad" | sed 's/^/    /'
	else
		pass "$_name"
	fi
}

seed=$SEED0
taken=0
tries=0
while [ $taken -lt "$N" ] && [ $tries -lt $((N * 4 + 4)) ]; do
	s=$seed
	seed=$((seed + 1))
	tries=$((tries + 1))
	p=$CS/s$s
	name=csmith-s$s
	# shellcheck disable=SC2086
	if ! csmith -s "$s" $CSMITH_OPTS -o "$p.c.new" >"$p.log" 2>&1; then
		echo "# $name: skipped: csmith failed"
		continue
	fi
	# keep the old file (and the binaries' times) when nothing changed
	if cmp -s "$p.c.new" "$p.c"; then rm -f "$p.c.new"; else mv "$p.c.new" "$p.c"; fi
	ok=1
	for o in O0 O2; do
		if [ ! "$p-$o" -nt "$p.c" ]; then
			gcc -g -w -$o -I"$CSMITH_INC" -o "$p-$o" "$p.c" >>"$p.log" 2>&1 || ok=0
		fi
		[ $ok = 1 ] || break
		# must terminate well under a second
		timeout 0.5 "$p-$o" >"$p.out-$o" 2>&1 || ok=0
		[ $ok = 1 ] || break
	done
	if [ $ok = 0 ]; then
		echo "# $name: skipped: does not build or run in 0.5 s at -$o"
		continue
	fi
	if ! cmp -s "$p.out-O0" "$p.out-O2"; then
		echo "# $name: skipped: -O0 and -O2 print different checksums (undefined behaviour)"
		continue
	fi
	# func_1 may be gone at -O2 (inlined and folded away); not qzdb's fault
	# if gdb does not find it either
	if ! $QZDB --batch -ex 'break func_1' "$p-O2" 2>&1 | grep -q '^Breakpoint 1 at' &&
		! $GDB -nx -batch -ex 'break func_1' "$p-O2" 2>&1 | grep -q '^Breakpoint 1 at'; then
		echo "# $name: skipped: no func_1 at -O2 (gdb agrees)"
		continue
	fi
	mainline=$(grep -n '^int main' "$p.c" | cut -d: -f1)
	callline=$(grep -n '^    func_1();' "$p.c" | cut -d: -f1)
	rm -f "$p".*.tr
	bad="" hard=0
	TRACE_CAP=$STEPS
	qz_trace "$p" O0 "$cmds"
	end0=$(tail -1 "$p.qz-O0.tr")
	case "$hard $end0" in
	"0 END main "*) ;;
	*)
		if [ -z "$bad" ]; then
			echo "# $name: skipped: the -O0 trace does not return to main in $STEPS steps ($end0)"
			continue
		fi
		taken=$((taken + 1))
		fail "$name-run" "qzdb misbehaved:$bad"
		continue ;;
	esac
	# the other runs stop soon after: at most twice the steps -O0 needs
	k=${end0##* }
	TRACE_CAP=$((2 * k + 20))
	[ $TRACE_CAP -gt "$STEPS" ] && TRACE_CAP=$STEPS
	gen_cmds $TRACE_CAP >"$p.cmds"
	qz_trace "$p" O2 "$p.cmds"
	taken=$((taken + 1))
	if [ -n "$bad" ]; then
		fail "$name-run" "qzdb misbehaved:$bad"
	else
		pass "$name-run"
	fi
	[ $hard = 1 ] && continue
	check "$name-lines" lines "$p" "s$s.c"
	check "$name-params" params "$p" "s$s.c"
	check "$name-scope" scope "$p" "s$s.c"
done
if [ $taken -lt "$N" ]; then
	fail csmith-programs "only $taken usable programs out of $tries seeds from $SEED0"
fi
