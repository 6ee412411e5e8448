#!/bin/sh
# Differential test of values against gdb: at every stop of the fixtures
# values.c and libcrash.c (-O0 and -O2), the output of bt, info locals,
# info args and a battery of print expressions (members, arrays, strings,
# pointers, casts, formats, artificial arrays, comparisons, FILE::var,
# func::static, enums, bitfields) must be gdb's, command by command.
#   sh tests/diff/values_vs_gdb.sh                       # compare with ./qzdb
#   QZ_DIFF_SELFTEST=1 sh tests/diff/values_vs_gdb.sh    # gdb on both sides
#   QZ_DIFF_ONLY='values-O2-*' sh tests/diff/values_vs_gdb.sh
# A check is one command at one stop: "NAME@STOP: COMMAND", where STOP counts
# the run/continue commands before it. Outputs are compared after removing
# gdb's libthread_db chatter and qzdb's "error: " prefix, squeezing
# whitespace, and replacing:
#   - hex values above 0x7ff000000000 (stack, libc, vdso) by 0xSTACK: gdb
#     starts the program with a slightly different environment, so stack
#     addresses differ by a constant;
#   - the value history number ($12 = ...) by $N, so that one missing value
#     does not shift every later one;
#   - process ids;
#   - "Run till exit from ..." lines, which gdb prints only on a terminal;
#   - gdb's <synthetic pointer> (DW_OP_implicit_pointer) as <optimized out>:
#     qzdb names a whole variable so (sessions.sh checks it), not yet a
#     member of a struct in pieces.
# Where gdb shows <optimized out>, qzdb may too; otherwise the texts must be
# the same (a value qzdb shows where gdb has none is a FAIL).
. "$(dirname "$0")/common.sh"

# norm <RAW >NORM: one line per output line, normalised as said above; the
# output is split into sections by the "@@@ N" markers that vcase echoes.
norm() {
	awk '
	/^\[Thread debugging using libthread_db/ || /^Using host libthread_db/ { next }
	# gdb prints this line only on a terminal; qzdb always does.
	/^Run till exit from / { next }
	{
		# qzdb does not follow DW_OP_implicit_pointer in pieces yet:
		# such a member is optimized out to it (a gap, not a wrong value).
		gsub(/<synthetic pointer>/, "<optimized out>")
		sub(/\r$/, ""); sub(/^error: /, "")
		gsub(/[ \t]+/, " "); sub(/^ /, ""); sub(/ $/, "")
		sub(/^\$[0-9]+ = /, "$N = ")
		gsub(/process [0-9]+/, "process PID")
		print
	}' | stack_addrs
}


# knows_more GDB QZ: the outputs differ only where gdb says a value is
# optimized out and qzdb shows one (the issue allows that when the value is
# right: the fixtures check such values through other expressions).
knows_more() {
	[ "$(wc -l <"$1")" -eq "$(wc -l <"$2")" ] || return 1
	# name=name@entry=V says the entry value is V too: more, not other.
	sed -E 's/([A-Za-z_][A-Za-z0-9_]*)=\1@entry=/\1=/g' "$2" >"$2.plain"
	cmp -s "$1" "$2.plain" && return 0
	grep -q 'optimized out' "$1" || return 1
	awk '
	function rx(s,   r, i, c) {
		if (s == "value has been optimized out") return "^.*$"
		r = ""
		for (i = 1; i <= length(s); i++) {
			c = substr(s, i, 1)
			if (index("\\^$.[]|()*+?{}", c)) c = "\\" c
			r = r c
		}
		gsub(/<optimized out>/, "OPTOUT", r)
		gsub(/OPTOUT/, ".*", r)
		return "^" r "$"
	}
	NR == FNR { g[FNR] = $0; next }
	$0 != g[FNR] && $0 !~ rx(g[FNR]) { bad = 1 }
	END { exit bad }' "$1" "$2.plain"
}

# vcase NAME BIN [ARGS...] <CMDS: run CMDS (one a line) in both debuggers,
# each command preceded by an echo of a marker, and compare command by command.
vcase() {
	_name=$1
	shift
	diff_run "$_name" '' norm "$@"
	[ $? = 1 ] && return
	_i=0
	_stop=0
	while IFS= read -r _c; do
		_i=$((_i + 1))
		case "$_c" in run* | continue* | r | c) _stop=$((_stop + 1)) ;; esac
		_g=$_p.gdb.d/$_i _q=$_p.qz.d/$_i
		[ -f "$_q" ] || : >"$_q"
		# printf, not echo: dash's echo would expand the \n of print '\n'
		if cmp -s "$_g" "$_q"; then
			printf 'PASS %s@%s: %s\n' "$_name" $_stop "$_c"
		elif knows_more "$_g" "$_q"; then
			printf 'PASS %s@%s: %s\n' "$_name" $_stop "$_c"
			printf '# %s@%s: %s: qzdb shows values gdb has optimized out:\n' \
				"$_name" $_stop "$_c"
			diff "$_g" "$_q" | grep '^>' | head -5 | sed 's/^> /#     /'
		else
			printf 'FAIL %s@%s: %s: differs (- gdb, + qzdb; files %s.*)\n' \
				"$_name" $_stop "$_c" "$_p"
			diff "$_g" "$_q" | grep '^[<>]' | head -20 |
				sed 's/^< /    - /; s/^> /    + /; s/^<$/    -/; s/^>$/    +/'
		fi
	done <"$_p.list"
}

# line_of FILE TAG: the line of FILE that carries the comment /* TAG */.
line_of() {
	grep -n "/\* $2 \*/" "$1" | cut -d: -f1
}

# The frame's own battery at every stop.
frame_battery() {
	cat <<-'E'
	bt
	info args
	info locals
	print $pc
	print/a $pc
	print/x $sp
	E
}

globals_battery() {
	cat <<-'E'
	print g_int
	print/x g_int
	print/o g_int
	print/t g_int
	print/d g_int
	print/c g_int
	print/x -1
	print/o 0
	print/t 10
	print/x 1.5
	print/c 65
	print/d 'A'
	print (char)65
	print (long)g_int
	print (unsigned char)g_int
	print (short)70000
	print (int)g_uint
	print g_ulong
	print/x g_ulong
	print/d g_ulong
	print g_char
	print/x g_char
	print/d g_char
	print g_schar
	print g_uchar
	print/x g_uchar
	print/c g_uchar
	print g_short
	print/x g_short
	print g_llong
	print/x g_llong
	print g_true
	print g_false
	print !g_true
	print g_true + 1
	print g_float
	print g_double
	print g_neg
	print g_double * 2
	print g_float + 1
	print 1.0 / 3
	print 10 / 3
	print 10 % 3
	print -5 / 2
	print 1e10
	print (float)1 / 3
	print 2.5e-5
	print g_dbls
	print g_nan
	print g_uint
	print/x g_uint
	print g_str
	print/s g_str
	print *g_str@5
	print g_str[0]
	print/x g_str[3]
	print g_buf
	print/x g_buf
	print/d g_buf
	print g_rep
	print g_esc
	print/x g_esc
	print/d g_esc
	print g_zeros
	print g_grid
	print g_grid[1]
	print g_grid[1][2]
	print *g_grid
	print **g_grid
	print &g_grid
	print &g_grid[1]
	print &g_grid[1][2]
	print sizeof g_grid
	print sizeof g_grid[0]
	print g_cube
	print g_cube[1]
	print g_cube[1][0][1]
	print g_pint
	print *g_pint
	print *g_pint@3
	print g_pint[-1]
	print g_pint + 1
	print g_pint - &g_grid[0][0]
	print g_pint == &g_grid[1][0]
	print g_pint > &g_grid[0][0]
	print *g_grid@2
	print g_grid[0][1]@4
	print g_null
	print *g_null
	print g_null == 0
	print !g_null
	print g_vptr
	print g_list
	print *g_list
	print g_list->next->key
	print g_list->next->next->next
	print *g_list->next->next
	print g_list[1]
	print g_nodes
	print &g_nodes[1]
	print g_nodes[2].next
	print g_shape
	print g_shape.origin
	print g_shape.origin.y
	print g_shape.size
	print g_shape.size.h
	print g_shape.radius
	print g_shape.side
	print g_shape.tag
	print g_shape.col
	print g_shape.name
	print &g_shape.origin
	print/x g_shape
	print sizeof(struct shape)
	print sizeof(g_shape.size)
	print sizeof(point_t)
	print sizeof(union num)
	print sizeof(struct flags)
	print sizeof(int)
	print sizeof(long double)
	print g_pt
	print g_pt.x + g_pt.y
	print g_pt.x < g_pt.y
	print -g_pt.y
	print *&g_pt
	print (long)&g_pt == (long)&g_pt.x
	print g_fl
	print g_fl.ready
	print g_fl.mode
	print g_fl.level
	print g_fl.wide
	print/x g_fl
	print/t g_fl.mode
	print g_fl.level * 2
	print g_num
	print/x g_num
	print g_num.b
	print g_num.f
	print g_col
	print/d g_col
	print g_col == BLUE
	print BLUE
	print GREEN + 1
	print (enum color)1
	print (enum color)5
	print g_badcol
	print g_perm
	print g_perm0
	print g_permx
	print (enum perm)6
	print (enum perm)8
	print/x g_perm
	print P_EXEC | P_READ
	print g_const
	print g_vol
	print &g_const
	print &g_vol
	print g_recs
	print g_recs[1].name
	print g_recs[0].score
	print g_recs[1].perm
	print g_recs[0].ok
	print g_strs
	print g_strs[1]
	print *g_strs[0]@2
	print g_longs
	print/x g_longs
	print g_longs[2] + 1
	print s_file
	print s_name
	print 'values.c'::s_file
	print 'values.c'::g_int
	print add
	print mul
	print &mul
	print *mul
	print g_op
	print/a g_op
	print g_ops
	print g_op == mul
	print g_ops[0] == add
	print/a main
	print/a &g_int
	print/x &g_int
	print &g_int
	print sizeof g_ops
	print "lit"
	print sizeof("lit")
	print 'A' + 1
	print 'A' == 65
	print 5 > 3 && 2 > 1
	print 1 ? 2 : 3
	print (3 + 4) * 2 - 1
	print 1 << 40
	print 2147483647 + 1
	print 4294967295
	print -1U
	print 10 / 0
	print 1.0 / 0
	print nosuch
	print g_int +
	print g_pt.z
	print -g_float
	print g_float == 1.5
	print/f g_int
	print/u g_schar
	print/z g_short
	print/x g_dbls
	print/s g_buf
	print/c g_buf
	print g_recs[1]
	print *g_recs@2
	print &g_recs[1].score
	print (char)g_uchar
	print g_esc[3]
	print sizeof(g_recs) / sizeof(g_recs[0])
	print g_strs[2]
	print *g_strs[2]
	print g_shape.name[1]
	print &*g_list
	print *&*g_list
	print g_list->next == &g_nodes[1]
	print !g_list
	print ~g_int
	print (unsigned)g_int >> 28
	print g_llong / 1000
	print g_ulong + 1
	print -g_ulong
	print 'A'
	print '\n'
	print '\0'
	print "a\tb"
	print (long)1 << 62
	print 0x7fffffff
	print 0xffffffffffffffff
	print 01777
	print 10 > 9 > 8
	print &g_grid[0][1] - &g_grid[1][0]
	print/x (short)-1
	print/t (unsigned char)5
	print/o 8
	print/d (char)200
	print/u (char)200
	print/x g_pt
	print/d g_str
	print g_nodes[1].next->key
	print (struct node *)g_list->next
	print *(struct node *)g_vptr
	print g_longs[1] == -1
	print g_num.b[3]
	print/x g_num.b
	print &g_num.f
	print *&g_fl
	print g_fl.mode + g_fl.level
	print g_shape.size.w * g_shape.size.h
	print (char)g_shape.tag
	print g_cube[1][1]
	print *g_cube[1]@2
	print g_rep[20]
	print &g_rep[20]
	print g_rep + 18
	print *g_buf@4
	print g_ops[1]
	print *g_ops
	print/x g_op
	whatis g_grid
	whatis g_op
	whatis g_shape.size
	ptype struct flags
	ptype g_num
	E
}

# values.c: one run per function (a stop at the entry and, for functions
# whose interesting locals are set later, one at the line tagged in the
# source); depth recurses, four stops.
for o in O0 O2; do
	bin=$B/values-$o
	src=tests/fixtures/values.c
	vcase "values-$o-main" $bin <<-E
	break main
	run
	$(frame_battery)
	$(globals_battery)
	print pt
	print cv
	print &cv
	print u
	print heap
	print argc
	print argv[0]
	print *argv@argc
	print total
	E
	vcase "values-$o-area" $bin <<-E
	break area
	run
	$(frame_battery)
	print s
	print ps
	print *ps
	print s.origin
	print s.size.w
	print s.size.w * scale
	print s.radius
	print s.side
	print s.tag
	print s.col
	print s.name
	print ps->name
	print ps->origin.x
	print &ps->origin
	print scale
	print (long)scale
	print/x scale
	print op
	print/a op
	print *op
	print op == mul
	print op == g_op
	print w
	print h
	print &s
	print sizeof(s)
	print sizeof s.size
	print/x s.size
	print s.name[0]
	print *s.name@3
	print ps == &g_shape
	up
	print pt
	print total
	info locals
	down
	finish
	E
	vcase "values-$o-depth" $bin <<-E
	break depth
	run
	$(frame_battery)
	print n
	print label
	print local
	print calls
	print depth::calls
	print *label@4
	print label[1]
	print/c *label
	print/x n
	print n * 10 + 1
	continue
	$(frame_battery)
	print n
	print depth::calls
	up
	print n
	print local
	info args
	down
	continue
	bt
	print n
	print label
	continue
	$(frame_battery)
	print n
	print local
	print calls
	frame 2
	info locals
	frame 0
	continue
	E
	vcase "values-$o-mix" $bin <<-E
	break mix
	break values.c:$(line_of $src 'stop: mix')
	run
	$(frame_battery)
	print f
	print u
	print c
	print d
	print x
	print f.mode
	print f.level
	print/x f
	print/t f.mode
	print u.b
	print u.f
	print/x u
	print c == BLUE
	print/d c
	print d * 2
	print x / 3
	print -d
	print d > 1
	print (int)d
	print (float)d
	print sizeof(f)
	continue
	$(frame_battery)
	print lf
	print lf.level
	print lu
	print/x lu.i
	print lu.b
	print/c lu.b
	print p
	print/d p
	print p == (P_WRITE | P_EXEC)
	print flag
	print/d flag
	print r
	print r + lf.mode
	E
	vcase "values-$o-arrays" $bin <<-E
	break arrays
	break values.c:$(line_of $src 'stop: arrays')
	run
	bt
	info args
	print n
	print buf
	print grid
	print *grid
	print grid[1]
	print grid[1][2]
	print *grid@2
	print *buf@3
	print buf[1]
	continue
	$(frame_battery)
	print word
	print big
	print sq
	print sq[1]
	print sq[1][2]
	print bytes
	print/x bytes
	print/d bytes
	print/c bytes
	print shorts
	print/x shorts
	print p
	print p + 1
	print *p@5
	print p[2]
	print word[0]
	print &word[2]
	print &sq[1][2] - &sq[0][0]
	print p == word
	print p == &word[0]
	print i
	print j
	print sum
	print/x sum
	print sizeof word
	print sizeof sq / sizeof sq[0]
	print (long)sizeof(bytes)
	print/x word
	print/s word
	print word + 1
	print *word@3
	print big[7]
	print/x big[7]
	E
	vcase "values-$o-walk" $bin <<-E
	break walk
	break values.c:$(line_of $src 'stop: walk')
	run
	bt
	info args
	print head
	print *head
	print head->key
	print head->next->key
	print head->next->next->next->key
	print *head->next
	print head->next->next->next->next->next
	print pt
	print *pt
	print pt->x
	print cv
	print *cv
	continue
	$(frame_battery)
	print second
	print *second
	print second->key
	print count
	print np
	print *np
	print np->key
	print sum
	print q
	print head == second
	print second == head->next
	print second - head
	print (char *)second - (char *)head
	print pt->x
	print *cv
	print/x count
	E
	vcase "values-$o-add" $bin <<-E
	break add
	run
	$(frame_battery)
	print a
	print b
	print a + b
	print/x a
	print (unsigned)a
	print s_file
	up
	print u
	print/x u
	print u.i
	continue
	bt
	info locals
	print \$pc
	print g_int
	print s_name
	print depth::calls
	print g_list->next->key
	E
done

# libcrash.c: a SIGSEGV inside libc (strlen of NULL two frames below main;
# memcpy to NULL one frame below main): bt, the frames above, their values.
for o in O0 O2; do
	bin=$B/libcrash-$o
	vcase "libcrash-$o-strlen" $bin <<-'E'
	run
	bt
	info locals
	info args
	print $pc
	print g_hello
	up
	info locals
	info args
	print *m
	print m->text
	print m->copy
	print n
	print twice
	print $pc
	print/a $pc
	up
	info locals
	info args
	print before
	print m->id
	up
	info locals
	print ok
	print bad
	print ok.text
	print bad.copy
	print r
	bt
	E
	vcase "libcrash-$o-memcpy" $bin memcpy <<-'E'
	run
	bt
	print/a $pc
	up
	info locals
	info args
	print *m
	print g_dest
	print m->copy
	print/x m->copy
	up
	info locals
	print ok
	print bad
	print mode
	E
done
