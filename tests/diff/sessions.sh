#!/bin/sh
# Random debugging sessions on random programs, qzdb against gdb command by
# command (issue 25): csmith programs with fixed seeds (Debian csmith),
# built at -O0 and -O2; for each, sessions generated from a fixed seed: a
# start (break func_N, break FILE:LINE or start), run, then moves (next,
# step, finish, until, advance, tbreak+continue, stepi, up, down, next N,
# step N) each followed by 0-3 inspections (globals, locals, parameters,
# expressions, whatis, ptype, x, info frame/locals/args/line, bt, list,
# display). The same commands run in both debuggers; outputs are compared
# per command after gdbagree.sh's normalisations (agree_norm: batch-mode
# chatter, process ids, stack addresses) and the value history number.
# Prints a table: per category (the command's kind) and level, how many
# commands, how many differ, and how many of those are the session's first
# difference (the others may only follow from an earlier divergence).
#   sh tests/diff/sessions.sh                      # the small fixed set
#   make difftest                                  # 20 programs
#   SESS_SEED0=1 SESS_MOVES=12 SESS_SHOW=1 ...     # SHOW: every difference
#   SESS_REAL=1 ...                                # real programs only
# Real programs (one session each by default, SESS_REAL=1 for NSESS): C programs
# nobody here wrote whose source Debian ships, built the same way:
# jansson's json_process.c (the library's test driver, on a small test
# directory), zlib's enough.c (a self-contained program) and zran.c (random
# access into a gzip file, with zlib); the names a session picks come from
# their -O0 debug information (globals, locals and parameters, functions).
# A FAIL when more commands differ than SESS_MAX (a ratchet: the default set
# has 1 difference left, uninitialised memory holding a GOT address that gdb
# names <sym@got.plt>, and 1 of slack; lower it, never raise it), and for
# any session where qzdb crashed or hung.
# Files in tests/build/sessions/: sSEED.c, sSEED-O0/-O2, and per session
# sSEED-Ox-K.{cmds,gdb,qz,why}.
. "$(dirname "$0")/common.sh"
LC_ALL=C
export LC_ALL

PROGS=${SESS_PROGS:-2}
SEED0=${SESS_SEED0:-11}
NSESS=${SESS_N:-3}
MOVES=${SESS_MOVES:-12}
MAXDIFF=${SESS_MAX:-2}
SD=${SESS_DIR:-$B/sessions}
mkdir -p "$SD"

if [ -z "$SESS_REAL" ] && ! csmith_found; then
	skip sessions "csmith or its headers (Debian csmith) not installed"
	exit 0
fi
if ! command -v "$GDB" >/dev/null 2>&1; then
	skip sessions "gdb (the oracle) is not installed"
	exit 0
fi

# sess_norm <RAW >NORM: agree_norm and $N for the history number ($12).
sess_norm() {
	agree_norm | sed 's/^\$[0-9][0-9]* = /$N = /'
}

# names P KIND: identifiers of program P's source (g_: globals, l_/p_:
# locals and parameters, func_: functions), one a line
names() {
	grep -o "\\b$2[0-9][0-9]*\\b" "$1.c" | sort -u
}

# code_lines BIN SRC: lines of SRC with code (the -O0 line table)
code_lines() {
	readelf --debug-dump=decodedline "$1" 2>/dev/null |
		awk -v f="$2" '$1 == f && $2 ~ /^[0-9]+$/ && $3 ~ /^0x/ { print $2 }' | sort -un
}

# dwarf_names BIN SRC: from BIN's debug information, the globals (file
# $P.g), locals and parameters ($P.l) and functions with code ($P.f) of the
# unit SRC (a base name).
dwarf_names() {
	readelf --debug-dump=info "$1" 2>/dev/null | awk -v src="$2" -v P="$P" '
	function flush() {
		if (insrc && name != "" && name !~ /^_/) {
			if (tag == "DW_TAG_variable" && depth == 1 && !decl) print name > (P ".g")
			else if ((tag == "DW_TAG_variable" || tag == "DW_TAG_formal_parameter") && depth > 1 && infunc)
				print name > (P ".l")
			else if (tag == "DW_TAG_subprogram" && depth == 1 && code && name != "main") print name > (P ".f")
		}
		name = ""; decl = 0; code = 0
	}
	/^ <[0-9]+><[0-9a-f]+>: Abbrev Number:/ {
		flush()
		d = $1; gsub(/[<>]/, " ", d); split(d, dd, " "); depth = dd[1] + 0
		tag = $NF; gsub(/[()]/, "", tag)
		if (depth == 0) insrc = 0
		if (depth == 1) infunc = (tag == "DW_TAG_subprogram")
		next
	}
	/DW_AT_name/ { n = $NF; if (depth == 0) { k = split(n, parts, "/"); insrc = (parts[k] == src) } else name = n; next }
	/DW_AT_declaration/ { decl = 1 }
	/DW_AT_low_pc|DW_AT_ranges/ { code = 1 }
	END { flush() }'
	for _k in g l f; do
		sort -u "$P.$_k" -o "$P.$_k" 2>/dev/null || : >"$P.$_k"
	done
}

# gen SEED NMOVES SRC: one session's commands, from awk's generator seeded
# with SEED; the names and lines come from the files $P.{g,l,f,lines}.
gen() {
	awk -v seed="$1" -v moves="$2" -v src="$3" -v P="$P" '
	function load(f, a,   n, x) { n = 0; while ((getline x < f) > 0) a[++n] = x; close(f); return n }
	function pick(a, n) { return a[int(rand() * n) + 1] }
	function any(n) { return int(rand() * n) }
	function var() {
		r = rand()
		if (ng + nl == 0) return "main"
		return ((r < 0.55 && ng > 0) || nl == 0) ? pick(g, ng) : pick(l, nl)
	}
	function line() { return pick(ln, nln) }
	function inspect(   r, v) {
		r = any(100); v = var()
		if (r < 22) return "print " v
		if (r < 34) return "info locals"
		if (r < 40) return "info args"
		if (r < 50) return "bt"
		if (r < 58) return "info frame"
		if (r < 62) return "info line"
		if (r < 67) return "whatis " v
		if (r < 71) return "ptype " v
		if (r < 75) return "x/4xw &" v
		if (r < 79) return "print " v " + 1"
		if (r < 82) return "print &" v
		if (r < 85) return "print/x " v
		if (r < 88) return "display " v
		if (r < 91) return "list"
		if (r < 94) return "print \047" src "\047::" (ng ? pick(g, ng) : v)
		if (r < 97) return "print sizeof(" v ")"
		return "output " v
	}
	function move(   r) {
		r = any(100)
		if (r < 24) return "next"
		if (r < 44) return "step"
		if (r < 52) return "finish"
		if (r < 57) return "until"
		if (r < 61) return "advance " line()
		if (r < 68) { print "tbreak " line(); return "continue" }
		if (r < 74) return "stepi"
		if (r < 80) return "up"
		if (r < 83) return "down"
		if (r < 87) return "next " (2 + any(3))
		if (r < 91) return "step " (2 + any(3))
		if (r < 94) return "nexti"
		if (r < 97) { print "break " line(); return "continue" }
		return "info frame"
	}
	BEGIN {
		srand(seed)
		ng = load(P ".g", g); nl = load(P ".l", l); nf = load(P ".f", f); nln = load(P ".lines", ln)
		r = any(3)
		if (r == 0 && nf > 0) print "break " pick(f, nf)
		else if (r == 1) print "break " src ":" line()
		if (r == 2) print "start"; else print "run"
		for (i = 0; i < moves; i++) {
			print move()
			k = any(4)
			for (j = 0; j < k; j++) print inspect()
		}
	}'
}

# session NAME CMDFILE BIN [ARGS...]: run both debuggers; adds "LEVEL KIND
# DIFF FIRST" records to $SD/records (one per command).
session() {
	_p=$SD/$1 _list=$2
	shift 2
	awk '{ printf "echo \\n@@@ %d\\n\n%s\n", NR, $0 }' "$_list" >"$_p.cmds"
	gdb_run_cached "$_p.cmds" "$_p.gdb" "$@"
	if [ $DBG_RC -ge 124 ] || ! grep -q '^@@@ 1$' "$_p.gdb"; then
		fail "sessions-$1" "gdb side broken (rc $DBG_RC), see $_p.gdb"
		return
	fi
	dbg_run qz "$_p.cmds" "$_p.qz" "$@"
	if [ $DBG_RC -eq 124 ] || [ $DBG_RC -gt 128 ]; then
		fail "sessions-$1" "qzdb timed out or died (exit status $DBG_RC), see $_p.qz"
		return
	fi
	sess_norm <"$_p.gdb" >"$_p.gdb.norm"
	sess_norm <"$_p.qz" >"$_p.qz.norm"
	split_sections "$_p.gdb.norm" "$_p.gdb.d"
	split_sections "$_p.qz.norm" "$_p.qz.d"
	_i=0 _first=1
	: >"$_p.why"
	while IFS= read -r _c; do
		_i=$((_i + 1))
		_kind=$(echo "$_c" | awk '{ k = $1; if (k == "info") k = k " " $2;
			else if ($2 ~ /^[0-9]+$/) k = k " N"; print k }')
		[ -f "$_p.qz.d/$_i" ] || : >"$_p.qz.d/$_i"
		[ -f "$_p.gdb.d/$_i" ] || : >"$_p.gdb.d/$_i"
		if cmp -s "$_p.gdb.d/$_i" "$_p.qz.d/$_i"; then
			echo "$LVL|$_kind|0|0" >>"$SD/records"
			continue
		fi
		echo "$LVL|$_kind|1|$_first" >>"$SD/records"
		{
			echo "  $1 #$_i: $_c$([ $_first = 1 ] && echo '   (first)')"
			diff "$_p.gdb.d/$_i" "$_p.qz.d/$_i" | grep '^[<>]' |
				sed 's/^</    -/; s/^>/    +/' | head -8
		} >>"$_p.why"
		_first=0
	done <"$_list"
	cat "$_p.why" >>"$SD/why"
}

: >"$SD/records"
: >"$SD/why"

# csmith_sessions: PROGS csmith programs from seed SEED0 on.
csmith_sessions() {
	seed=$SEED0
	taken=0
	tries=0
	while [ $taken -lt "$PROGS" ] && [ $tries -lt $((PROGS * 4 + 4)) ]; do
		s=$seed
		seed=$((seed + 1))
		tries=$((tries + 1))
		P=$SD/s$s
		# shellcheck disable=SC2086
		[ -s "$P.c" ] || csmith -s "$s" $CSMITH_OPTS -o "$P.c" >/dev/null 2>&1 || continue
		ok=1
		for o in O0 O2; do
			[ "$P-$o" -nt "$P.c" ] || gcc -g -w -$o -I"$CSMITH_INC" -o "$P-$o" "$P.c" 2>/dev/null || ok=0
			[ $ok = 1 ] && timeout 0.5 "$P-$o" >/dev/null 2>&1 || ok=0
		done
		[ $ok = 1 ] || continue
		taken=$((taken + 1))
		names "$P" g_ >"$P.g"
		{ names "$P" l_; names "$P" p_; } >"$P.l"
		names "$P" func_ >"$P.f"
		code_lines "$P-O0" "s$s.c" >"$P.lines"
		k=0
		while [ $k -lt "$NSESS" ]; do
			gen $((s * 100 + k)) "$MOVES" "s$s.c" >"$P-$k.list"
			for o in O0 O2; do
				LVL=$o
				session "s$s-$o-$k" "$P-$k.list" "$P-$o"
			done
			k=$((k + 1))
		done
	done
}

# real_progs: NAME|SOURCE|LIBS|ARGS of each real program that is installed
# (ARGS may name files real_inputs makes).
real_progs() {
	_j=/usr/share/doc/libjansson4/examples/json_process.c
	_z=/usr/share/doc/zlib1g-dev/examples
	[ -f $_j ] && [ -f /usr/include/jansson.h ] && echo "json_process|$_j|-ljansson|$SD/real/jp"
	[ -f $_z/enough.c ] && echo "enough|$_z/enough.c||12 6 8"
	[ -f $_z/zran.c ] && [ -f $_z/zran.h ] && [ -f /usr/include/zlib.h ] &&
		echo "zran|$_z/zran.c|-DTEST -lz|$SD/real/zran.gz"
}

# real_inputs: the files the real programs read
real_inputs() {
	mkdir -p "$SD/real/jp"
	printf '{"b": [1, 2.5, "x\\u00e9"], "a": {"k": null, "t": true}}\n' >"$SD/real/jp/input"
	printf 'JSON_INDENT=2\nJSON_SORT_KEYS=1\n' >"$SD/real/jp/env"
	printf '{}' >"$SD/real/jp/output"
	[ -s "$SD/real/zran.gz" ] || seq 1 20000 | gzip -9 >"$SD/real/zran.gz"
}

# real_sessions: NSESS sessions on each real program at -O0 and -O2
real_sessions() {
	command -v readelf >/dev/null 2>&1 || return 0
	real_inputs
	real_progs | while IFS='|' read -r name src libs args; do
		P=$SD/real/$name
		cmp -s "$src" "$P.c" || cp "$src" "$P.c"
		[ "$name" = zran ] && cp "$(dirname "$src")/zran.h" "$SD/real/" 2>/dev/null
		ok=1
		for o in O0 O2; do
			# shellcheck disable=SC2086
			[ "$P-$o" -nt "$P.c" ] || gcc -g -w -$o -o "$P-$o" "$P.c" $libs 2>/dev/null || ok=0
		done
		[ $ok = 1 ] || { fail "sessions-$name" "$src does not build"; continue; }
		dwarf_names "$P-O0" "$name.c"
		code_lines "$P-O0" "$name.c" >"$P.lines"
		k=0
		while [ $k -lt "$NSESS" ]; do
			gen $((k * 7919 + ${#name})) "$MOVES" "$name.c" >"$P-$k.list"
			for o in O0 O2; do
				LVL=$o
				# shellcheck disable=SC2086
				session "$name-$o-$k" "$P-$k.list" "$P-$o" $args
			done
			k=$((k + 1))
		done
	done
}

# by default both: the csmith programs, then SESS_REAL_N sessions (default
# 1) on each real program; SESS_REAL=1: the real programs alone, NSESS each
if [ -n "$SESS_REAL" ]; then
	real_sessions
else
	csmith_sessions
	NSESS=${SESS_REAL_N:-1} real_sessions
fi

# the table: kind, then per level commands / differing / first differences
# (categories with a difference), then the rate per level
printf '# %-14s %7s %6s %6s %7s %6s %6s\n' category "O0 cmds" diff first "O2 cmds" diff first
awk -F'|' '
{ n[$2, $1]++; d[$2, $1] += $3; f[$2, $1] += $4; kinds[$2] = 1 }
END {
	for (k in kinds)
		if (d[k, "O0"] + d[k, "O2"] > 0)
			printf "# %-14s %7d %6d %6d %7d %6d %6d\n", k, n[k, "O0"], d[k, "O0"], f[k, "O0"], n[k, "O2"], d[k, "O2"], f[k, "O2"]
}' "$SD/records" | sort
awk -F'|' '{ N[$1]++; D[$1] += $3; F[$1] += $4 }
END {
	for (l in N)
		printf "# %s: %d commands, %d differ (%.1f%%), %d first differences (%.1f%%)\n", l, N[l], D[l], 100 * D[l] / N[l], F[l], 100 * F[l] / N[l]
}' "$SD/records" | sort
[ -n "$SESS_SHOW" ] && cat "$SD/why"
total=$(awk -F'|' '{ d += $3 } END { print d + 0 }' "$SD/records")
cmds=$(wc -l <"$SD/records")
if [ "$total" -le "$MAXDIFF" ]; then
	pass "sessions ($cmds commands, $total differ from gdb, at most $MAXDIFF)"
else
	fail "sessions" "$total of $cmds commands differ from gdb (at most $MAXDIFF); the differences ($SD/why):"
	head -60 "$SD/why"
fi
