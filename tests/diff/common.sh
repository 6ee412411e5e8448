# Shared helpers for the differential tests (tests/diff/*_vs_gdb.sh): run one
# command sequence in gdb (the oracle) and in qzdb, reduce both outputs to a
# sequence of events (stops, breakpoint messages, exits), compare.
# Sourced from the repository root by the scripts (POSIX sh).
#
# Environment:
#   QZDB=path             the debugger under test (default ./qzdb)
#   GDB=path              the oracle (default gdb)
#   QZ_DIFF_SELFTEST=1    run gdb on both sides (checks the extractor: all PASS)
#   QZ_DIFF_SHOW=1        print the gdb event sequence of every check (indented)
#   QZ_DIFF_ONLY=GLOB     run only the checks whose name matches the glob
#   QZ_DIFF_LIBC_DEBUG=1  let gdb read libc's separate debug info (libc6-dbg).
#                         By default gdb and qzdb are given an empty
#                         debug-file-directory, so libc has no line info and
#                         `step` steps over malloc/strlen/printf instead of
#                         entering them; set this if qzdb reads libc6-dbg.
#   QZ_DIFF_NOCACHE=1     do not reuse cached gdb output (tests/build/diff/cache)
#
# A check's files stay in tests/build/diff/NAME.{cmds,gdb,qz}{,.seq} for a look.
#
# Event lines (one per line, what is compared):
#   STOP func file:line [pc]      a stop: "Breakpoint N, f (..) at F:L", "f (..)
#                                 at F:L", a bare "L\t<src>" (same function) or
#                                 "0xPC\tL\t<src>" (stepi mid-line); file is the
#                                 base name; pc only where the debugger prints it.
#                                 For a bare line, func and file are those of the
#                                 last printed frame (gdb prints a bare line also
#                                 when an inlined callee returns to its caller).
#   BP N / TBP N                  precedes the STOP of a breakpoint hit
#   BPSET N file:line @addr       "Breakpoint N at 0x..: file F, line L." (a
#                                 pre-run PIE address is relocated by
#                                 0x555555554000 so both debuggers compare)
#   SIGNAL SIG / KILLED SIG / EXIT normally / EXIT code N
#   RET $N = value                "Value returned is ..." after finish
#   FRAME #N func file:line [pc]  bt lines
#   WATCH text                    "Hardware watchpoint 2: total" (set or hit)
#   VAL text                      "Old value = 3", "New value = 7", "Value = 3"
#   WATCHGONE N                   a watchpoint deleted when its frame exited
#   RAW text                      info line / info breakpoints output lines
#                                 (trailing blanks removed), some error messages
# Stops outside the binary's own source files (libc, PLT, no line info) end
# the sequence (the "cut"); with CUT_EXIT=1 an exit ends it silently too, so
# step/next sequences compare only the part inside the fixture's files.

cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
# gdb puts LINES and COLUMNS (its screen size: 24x80 in batch mode) into the
# program's environment; with both in every debugger's environment the
# program's stack starts at the same address under gdb and qzdb, so that
# uninitialised locals hold the same bytes in both.
# gdb also starts the program through /bin/sh, which reorders the
# environment; without the shell, gdb hands it over as qzdb does.
LINES=24 COLUMNS=80
export LINES COLUMNS
GDB_NOSHELL='set startup-with-shell off'
GDB=${GDB:-gdb}
DIFFDIR=$B/diff
mkdir -p "$DIFFDIR/cache"
CUT_EXIT=${CUT_EXIT:-0}
PIE_BASE=0x555555554000

if ! fixtures_build >"$DIFFDIR/build.log" 2>&1; then
	echo "FAIL diff-fixtures: fixture build failed:"
	sed 's/^/    /' "$DIFFDIR/build.log"
	exit 0
fi

# rep N WORD: print WORD on N lines (a command repeated N times).
rep() {
	_i=0
	while [ $_i -lt "$1" ]; do echo "$2"; _i=$((_i + 1)); done
}

# qz_available: true if the debugger under test can be run.
qz_available() {
	[ -n "$QZ_DIFF_SELFTEST" ] && return 0
	[ -x "$QZDB" ]
}

# srcs_of BIN: base names of the source files in BIN's own line table (the
# fixture's sources, plus headers with inlined code such as stdlib.h at -O2);
# stops in any other file (libc) end a sequence.
srcs_of() {
	LC_ALL=C readelf --debug-dump=decodedline "$1" 2>/dev/null |
		awk 'NF >= 3 && $3 ~ /^0x/ { f[$1] = 1 } END { for (k in f) printf "%s ", k; print "" }'
}

# dbg_run SIDE CMDFILE OUTFILE BIN [ARGS...]: run the commands of CMDFILE (one a
# line) as -ex arguments in gdb (SIDE=gdb) or qzdb (SIDE=qz) on BIN ARGS;
# stdout and stderr into OUTFILE; sets DBG_RC.
dbg_run() {
	_side=$1 _cmds=$2 _out=$3
	shift 3
	_nprog=$#
	if [ "$_side" = gdb ] || [ -n "$QZ_DIFF_SELFTEST" ]; then
		_side=gdb
		set -- "$@" -ex 'set pagination off' -ex 'set confirm off' \
			-ex 'set width 0' -ex 'set height 0'
	elif [ -z "$QZ_DIFF_LIBC_DEBUG" ]; then
		# qzdb sees the debug files gdb sees (libc's local symbols too)
		set -- "$@" -ex "set debug-file-directory $DIFFDIR/no-debug-files"
	fi
	while IFS= read -r _c || [ -n "$_c" ]; do
		[ -n "$_c" ] && set -- "$@" -ex "$_c"
	done <"$_cmds"
	[ $_side = gdb ] && set -- "$@" --args
	# rotate the program and its arguments to the end: -ex ... [--args] BIN ARGS
	_k=0
	while [ $_k -lt $_nprog ]; do
		_a=$1
		shift
		set -- "$@" "$_a"
		_k=$((_k + 1))
	done
	if [ $_side = qz ]; then
		timeout 60 $QZDB --batch "$@" >"$_out" 2>&1 </dev/null
	elif [ -n "$QZ_DIFF_LIBC_DEBUG" ]; then
		timeout 60 "$GDB" -nx -batch -iex 'set debuginfod enabled off' -iex "$GDB_NOSHELL" \
			"$@" >"$_out" 2>&1 </dev/null
	else
		timeout 60 "$GDB" -nx -batch -iex 'set debuginfod enabled off' -iex "$GDB_NOSHELL" \
			-iex "set debug-file-directory $DIFFDIR/no-debug-files" \
			"$@" >"$_out" 2>&1 </dev/null
	fi
	DBG_RC=$?
}

# gdb_run_cached CMDFILE OUTFILE BIN [ARGS...]: dbg_run gdb, reusing an earlier
# output for the same binary (content), arguments, commands and settings, and
# an environment of the same size (it moves the program's stack, and with it
# what uninitialised locals hold).
gdb_run_cached() {
	_cmds=$1 _out=$2
	shift 2
	_key=$( { md5sum <"$1"; printf '%s\n' "$@" "$QZ_DIFF_LIBC_DEBUG" "$(env | wc -c)"; cat "$_cmds"; } | md5sum | cut -c1-32)
	if [ -z "$QZ_DIFF_NOCACHE" ] && [ -s "$DIFFDIR/cache/$_key" ]; then
		cp "$DIFFDIR/cache/$_key" "$_out"
		DBG_RC=0
		return
	fi
	dbg_run gdb "$_cmds" "$_out" "$@"
	[ $DBG_RC -lt 124 ] && cp "$_out" "$DIFFDIR/cache/$_key"
}

# is_pie BIN
is_pie() {
	LC_ALL=C readelf -h "$1" 2>/dev/null | grep -q 'Type:.*DYN'
}

# extract SRCS PIEBASE <RAW >SEQ: the event sequence of a debugger's output.
# SRCS: base names of the fixture's sources; PIEBASE: 0 for a non-PIE binary.
extract() {
	awk -v srcs="$1" -v piebase="$2" -v cutexit="$CUT_EXIT" '
	function hex2num(s,   n, i, c) {
		s = tolower(s); sub(/^0x/, "", s); n = 0
		for (i = 1; i <= length(s); i++) {
			c = index("0123456789abcdef", substr(s, i, 1))
			if (c == 0) return -1
			n = n * 16 + c - 1
		}
		return n
	}
	function num2hex(n,   s, d) {
		if (n == 0) return "0x0"
		s = ""
		while (n > 0) { d = n % 16; s = substr("0123456789abcdef", d + 1, 1) s; n = (n - d) / 16 }
		return "0x" s
	}
	# a link-time PIE address (below the load base) relocated as gdb does after run
	function reloc(a,   n) {
		n = hex2num(a)
		if (n < 0) return a
		if (pie > 0 && n < pie) n += pie
		return num2hex(n)
	}
	function base(f) { sub(/.*\//, "", f); return f }
	function infile(f,   n, a, i) {
		f = base(f); n = split(srcs, a, " ")
		for (i = 1; i <= n; i++) if (a[i] == f) return 1
		return 0
	}
	function out(s) { print s }
	function cut() { done = 1 }
	# parse "[0xPC in ]func (args) at FILE:LINE" or "[0xPC in ]func (args)[ from LIB]"
	# into F_pc F_func F_file F_line; return 1 if it is a frame line
	function frame(s,   m, at) {
		F_pc = ""; F_func = ""; F_file = ""; F_line = ""
		if (s ~ /^0x[0-9a-f]+ in /) { F_pc = s; sub(/ .*/, "", F_pc); sub(/^0x[0-9a-f]+ in /, "", s) }
		if (s !~ /^[A-Za-z_?][A-Za-z0-9_.:<>~?@]* \(/) return 0
		F_func = s; sub(/ .*/, "", F_func)
		if (match(s, / at [^ ]+:[0-9]+$/)) {
			at = substr(s, RSTART + 4)
			F_line = at; sub(/.*:/, "", F_line)
			F_file = at; sub(/:[0-9]+$/, "", F_file)
			return 1
		}
		if (s ~ /\)( from [^ ]+)?$/) return 1
		return 0
	}
	function stop(func, file, line, pc) {
		if (file == "" || !infile(file)) { cut(); return }
		cfunc = func; cfile = file
		out("STOP " func " " base(file) ":" line (pc != "" ? " " pc : ""))
	}
	BEGIN { pie = hex2num(piebase); done = 0; pending = ""; cfunc = "?"; cfile = "" }
	done { next }
	{ sub(/\r$/, ""); sub(/^error: /, "") }   # qzdb prefixes its errors
	/^\[Thread debugging using libthread_db/ || /^Using host libthread_db/ { next }
	/^\[Inferior [0-9]+ \(process [0-9]+\) exited normally\]/ {
		if (cutexit) { cut(); next }
		out("EXIT normally"); pending = ""; next
	}
	/^\[Inferior [0-9]+ \(process [0-9]+\) exited with code [0-9]+\]/ {
		if (cutexit) { cut(); next }
		s = $0; sub(/.*exited with code /, "", s); sub(/\].*/, "", s)
		out("EXIT code " s); pending = ""; next
	}
	/^Program received signal [A-Z0-9]+,/ { s = $4; sub(/,$/, "", s); out("SIGNAL " s); next }
	/^Program terminated with signal [A-Z0-9]+,/ {
		s = $5; sub(/,$/, "", s); out("KILLED " s); pending = ""; next
	}
	/^Value returned is / { s = $0; sub(/^Value returned is /, "", s); out("RET " s); next }
	/^Run till exit from / { next }
	# watchpoints (set and hit: the same words), their values, scope exits
	/^(Hardware (read |access \(read\/write\) )?watchpoint|Watchpoint) [0-9]+: / { out("WATCH " $0); next }
	/^(Old value|New value|Value) = / { out("VAL " $0); next }
	/^Watchpoint [0-9]+ deleted because the program has left the block/ { out("WATCHGONE " $2); next }
	/^which its expression is valid\.$/ { next }
	/^(Temporary breakpoint|Breakpoint) [0-9]+ at / {
		kind = ($1 == "Temporary") ? "TBPSET" : "BPSET"
		s = $0; sub(/^(Temporary breakpoint|Breakpoint) /, "", s)
		n = s; sub(/ .*/, "", n)
		a = s; sub(/^[0-9]+ at /, "", a); sub(/:.*/, "", a)
		loc = s; sub(/^[0-9]+ at 0x[0-9a-f]+/, "", loc)
		if (match(loc, /^: file [^ ]+, line [0-9]+\.$/)) {
			f = loc; sub(/^: file /, "", f); sub(/, line.*/, "", f)
			l = loc; sub(/.*, line /, "", l); sub(/\.$/, "", l)
			loc = base(f) ":" l
		} else if (match(loc, /^: [^ ]+:[0-9]+\. \([0-9]+ locations\)$/)) {
			f = loc; sub(/^: /, "", f); sub(/:[0-9]+\..*/, "", f)
			l = loc; sub(/^: [^ ]+:/, "", l); sub(/\..*/, "", l)
			m = loc; sub(/.*\(/, "(", m)
			loc = base(f) ":" l " " m
		} else sub(/^: /, "", loc)
		out(kind " " n " " loc " @" reloc(a)); next
	}
	/^(Temporary breakpoint|Breakpoint) [0-9]+(\.[0-9]+)?, / {
		s = $0
		if ($1 == "Temporary") { n = $3; sub(/^Temporary breakpoint [0-9.]+, /, "", s); k = "TBP " }
		else { n = $2; sub(/^Breakpoint [0-9.]+, /, "", s); k = "BP " }
		sub(/,$/, "", n); out(k n)
		if (frame(s)) { stop(F_func, F_file, F_line, F_pc); pending = F_line }
		else out("?? " s)
		next
	}
	/^#[0-9]+ +/ {
		s = $0; n = $1; sub(/^#[0-9]+ +/, "", s)
		if (frame(s)) out("FRAME " n " " F_func " " (F_file != "" ? base(F_file) ":" F_line : "??") (F_pc != "" ? " " F_pc : ""))
		else out("FRAME " n " ?? " s)
		next
	}
	/^Line [0-9]+ of "/ || /^No line number information/ || /^Line number [0-9]+ is out of range/ || /^Num +Type/ ||
	/^[0-9]+(\.[0-9]+)? +(breakpoint|hw watchpoint|watchpoint|read watchpoint|acc watchpoint)/ || /^[0-9]+\.[0-9]+ +[yn] / ||
	/^\t(breakpoint already hit|stop only if|ignore next)/ || /^No breakpoints or watchpoints/ ||
	/^No line [0-9]+ in / || /^Function ".*" not defined/ || /^No symbol table is loaded/ {
		s = $0; sub(/[ \t]+$/, "", s); out("RAW " s); next
	}
	/^0x[0-9a-f]+\t[0-9]+\t/ || /^0x[0-9a-f]+\t[0-9]+$/ {
		pc = $0; sub(/\t.*/, "", pc)
		l = $0; sub(/^0x[0-9a-f]+\t/, "", l); sub(/\t.*/, "", l)
		pending = ""
		stop(cfunc, cfile, l, pc); next
	}
	/^[0-9]+\t/ || /^[0-9]+$/ {
		l = $0; sub(/\t.*/, "", l)
		if (pending != "" && l == pending) { pending = ""; next }
		pending = ""
		stop(cfunc, cfile, l, ""); next
	}
	{
		if (frame($0)) { stop(F_func, F_file, F_line, F_pc); pending = F_line; next }
		# anything else (program output, errors, gdb chatter) is ignored
	}
	'
}

# stack_addrs <IN >OUT: hex numbers at or above 0x7ff000000000 (stack,
# libc, vdso) become 0xSTACK: gdb starts the program with a slightly
# different environment, so such addresses differ by a constant.
stack_addrs() {
	awk '
	function hex2num(s,   n, i) {
		s = tolower(s); sub(/^0x/, "", s); n = 0
		for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return n
	}
	{
		s = $0; r = ""
		while (match(s, /0x[0-9a-fA-F]+/)) {
			h = substr(s, RSTART, RLENGTH)
			if (RLENGTH >= 14 && hex2num(h) >= 140668768878592) h = "0xSTACK"
			r = r substr(s, 1, RSTART - 1) h
			s = substr(s, RSTART + RLENGTH)
		}
		print r s
	}'
}

# agree_norm <RAW >NORM: the normalisations of gdbagree.sh and sessions.sh
# (gdb's batch-mode query and qzdb's hint in its place, qzdb's "error: "
# prefix, libthread_db chatter, process ids, stack addresses); where gdb
# names itself in the messages of a call from the debugger, qzdb does.
agree_norm() {
	awk '
	/^\[Thread debugging using libthread_db/ || /^Using host libthread_db/ { next }
	/^Make breakpoint pending on future shared library load\?/ { next }
	/^\(Use "set breakpoint pending on" to make it pending/ { next }
	{
		sub(/\r$/, ""); sub(/^error: /, "")
		gsub(/process [0-9]+/, "process PID")
		if ($0 ~ /function called from|^GDB (remains|has restored)|GDB will silently stop/) {
			gsub(/GDB/, "qzdb"); sub(/from gdb>/, "from qzdb>")
		}
		print
	}' | stack_addrs
}

# csmith_found: true if csmith and its headers are installed; sets
# CSMITH_INC (the headers' directory) and CSMITH_OPTS (small programs).
csmith_found() {
	CSMITH_OPTS="--no-packed-struct --max-funcs 4 --max-block-depth 3
--max-expr-complexity 5 --no-volatiles --no-bitfields"
	CSMITH_INC=""
	for _d in /usr/include/csmith /usr/include/csmith-*; do
		[ -f "$_d/csmith.h" ] && CSMITH_INC=$_d && break
	done
	command -v csmith >/dev/null 2>&1 && [ -n "$CSMITH_INC" ]
}

# split_sections NORMFILE DIR: DIR/N holds the output of the N-th command.
split_sections() {
	rm -rf "$2"
	mkdir -p "$2"
	awk -v d="$2" '
	/^@@@ [0-9]+$/ { f = d "/" $2; printf "" > f; next }
	f != "" { print > f }' "$1"
}

# compare NAME GDBSEQ QZSEQ: PASS if equal, else FAIL with an indented diff.
compare() {
	if cmp -s "$2" "$3"; then
		pass "$1"
	else
		fail "$1" "event sequences differ (- gdb, + qzdb; files $DIFFDIR/$1.*)"
		diff -u "$2" "$3" | tail -n +3 | head -60 | sed 's/^/    /'
	fi
}

# diff_case NAME BIN [ARGS...] <CMDS: run the commands (stdin, one a line) in
# both debuggers on BIN ARGS, compare the event sequences.
diff_case() {
	_name=$1
	shift
	case "$_name" in ${QZ_DIFF_ONLY:-*}) ;; *) cat >/dev/null; return ;; esac
	_p=$DIFFDIR/$_name
	cat >"$_p.cmds"
	if [ ! -x "$1" ]; then
		fail "$_name" "fixture $1 not built"
		return
	fi
	_srcs=$(srcs_of "$1")
	_pie=0
	is_pie "$1" && _pie=$PIE_BASE
	if [ -z "$QZ_DIFF_SHOW" ] && ! qz_available; then
		fail "$_name" "qzdb not built"
		return
	fi
	gdb_run_cached "$_p.cmds" "$_p.gdb" "$@"
	_grc=$DBG_RC
	extract "$_srcs" $_pie <"$_p.gdb" >"$_p.gdb.seq"
	if [ -n "$QZ_DIFF_SHOW" ]; then
		echo "    --- $_name (gdb, rc $_grc):"
		sed 's/^/    /' "$_p.gdb.seq"
	fi
	if [ $_grc -ge 124 ] || [ ! -s "$_p.gdb.seq" ]; then
		fail "$_name" "gdb side broken (rc $_grc, $(wc -l <"$_p.gdb.seq") events), see $_p.gdb"
		return
	fi
	if ! qz_available; then
		fail "$_name" "qzdb not built"
		return
	fi
	dbg_run qz "$_p.cmds" "$_p.qz" "$@"
	_qrc=$DBG_RC
	extract "$_srcs" $_pie <"$_p.qz" >"$_p.qz.seq"
	if [ $_qrc -eq 124 ]; then
		fail "$_name" "qzdb timed out (60 s); last output:"
		tail -5 "$_p.qz" | sed 's/^/    | /'
		return
	fi
	if [ $_qrc -gt 128 ]; then
		fail "$_name" "qzdb died (exit status $_qrc); last output:"
		tail -5 "$_p.qz" | sed 's/^/    | /'
		return
	fi
	compare "$_name" "$_p.gdb.seq" "$_p.qz.seq"
}

# diff_run NAME MARK NORM BIN [ARGS...] <CMDS: run CMDS (one a line; "- "
# before a command is dropped from what runs, the caller reads it in
# $DIFFDIR/NAME.list) in gdb and qzdb, each command after `echo MARK@@@ N\n`
# (MARK: "" or a backslash-n), normalise both outputs with the function NORM and
# split them into NAME.gdb.d/N and NAME.qz.d/N. Status 0: compare them; 1:
# nothing to compare (failed already, or the case is not selected); 2:
# qzdb timed out or died (failed already; its sections are partial).
diff_run() {
	_name=$1 _mark=$2 _norm=$3
	shift 3
	case "$_name" in ${QZ_DIFF_ONLY:-*}) ;; *) cat >/dev/null; return 1 ;; esac
	_p=$DIFFDIR/$_name
	_n=0
	: >"$_p.cmds"
	: >"$_p.list"
	while IFS= read -r _c; do
		[ -z "$_c" ] && continue
		_n=$((_n + 1))
		printf '%s\n' "$_c" >>"$_p.list"
		printf 'echo %s@@@ %s\\n\n%s\n' "$_mark" $_n "${_c#- }" >>"$_p.cmds"
	done
	if [ ! -x "$1" ]; then
		fail "$_name" "fixture $1 not built"
		return 1
	fi
	if ! qz_available; then
		fail "$_name" "qzdb not built"
		return 1
	fi
	gdb_run_cached "$_p.cmds" "$_p.gdb" "$@"
	if [ $DBG_RC -ge 124 ] || ! grep -q '^@@@ 1$' "$_p.gdb"; then
		fail "$_name" "gdb side broken (rc $DBG_RC), see $_p.gdb"
		return 1
	fi
	dbg_run qz "$_p.cmds" "$_p.qz" "$@"
	_st=0
	if [ $DBG_RC -eq 124 ] || [ $DBG_RC -gt 128 ]; then
		fail "$_name" "qzdb timed out or died (exit status $DBG_RC); last output:"
		tail -5 "$_p.qz" | sed 's/^/    | /'
		_st=2
	fi
	$_norm <"$_p.gdb" >"$_p.gdb.norm"
	$_norm <"$_p.qz" >"$_p.qz.norm"
	split_sections "$_p.gdb.norm" "$_p.gdb.d"
	split_sections "$_p.qz.norm" "$_p.qz.d"
	return $_st
}

# agree NAME BIN [ARGS...] <CMDS: run CMDS (one a line; a line starting
# with "- " is run but not compared: set-up such as break/run) in both
# debuggers and compare the output of each command. One PASS or FAIL line
# for the case; a FAIL shows each differing command (- gdb, + qzdb).
agree() {
	_name=$1
	shift
	diff_run "$_name" '\n' agree_norm "$@" || return
	_i=0 _bad=0 _cmp=0
	: >"$_p.why"
	while IFS= read -r _c; do
		_i=$((_i + 1))
		case "$_c" in "- "*) continue ;; esac
		_cmp=$((_cmp + 1))
		[ -f "$_p.qz.d/$_i" ] || : >"$_p.qz.d/$_i"
		cmp -s "$_p.gdb.d/$_i" "$_p.qz.d/$_i" && continue
		_bad=$((_bad + 1))
		{
			echo "    $_c"
			diff "$_p.gdb.d/$_i" "$_p.qz.d/$_i" | grep '^[<>]' |
				sed 's/^</      -/; s/^>/      +/' | head -12
		} >>"$_p.why"
	done <"$_p.list"
	if [ $_bad = 0 ]; then
		pass "$_name ($_cmp commands)"
	else
		fail "$_name" "$_bad of $_cmp commands differ from gdb:"
		head -60 "$_p.why"
	fi
}
