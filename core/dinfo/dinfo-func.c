/* dinfo-func: a function's contents, read when it is first looked up
 * (di_func_read_all): parameters and variables (with constants and static
 * locals), nested scopes, inlined calls, call sites and GNU C nested
 * functions. */
#include "dinfo-int.h"
#include "dwcu.h"
#include "util/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A growing array of variables; origin[i] is the abstract DIE that var i
 * is a concrete instance of (0 if none). */
struct var_vec {
	struct di_var *v;
	Dwarf_Off *origin;
	size_t n, cap, capo;
};

/* The abstract blocks that concrete lexical blocks stand for. */
struct off_vec {
	Dwarf_Off *v;
	size_t n, cap;
};

struct scope_vec {
	struct di_scope *s;
	size_t n, cap;
};

struct inline_vec {
	struct di_inline *v;
	size_t n, cap;
};

/* ---- variables ---- */

/* A constant that is not a plain number becomes DW_OP_implicit_value. */
static void const_bytes(struct di_info *di, struct di_var *v, const void *p, size_t len)
{
	uint8_t *ops = di_alloc(di, len + 11);
	size_t n = 0;
	ops[n++] = DW_OP_implicit_value;
	size_t l = len;
	do {
		ops[n] = l & 0x7f;
		l >>= 7;
		ops[n++] |= l ? 0x80 : 0;
	} while (l);
	memcpy(ops + n, p, len);
	v->locs = di_alloc(di, sizeof(*v->locs));
	v->locs[0] = (struct di_locexpr){ .ops = ops, .len = n + len, .always = true };
	v->nlocs = 1;
}

static void read_const(struct di_info *di, Dwarf_Die die, struct di_var *v)
{
	Dwarf_Attribute a = di_get_attr(die, DW_AT_const_value);
	Dwarf_Error e = NULL;
	Dwarf_Block *blk = NULL;
	char *str = NULL;
	Dwarf_Form_Data16 d16;
	if (!a)
		return;
	Dwarf_Half form = di_attr_form(a);
	if (form == DW_FORM_data16 && dwarf_formdata16(a, &d16, &e) == DW_DLV_OK) {
		const_bytes(di, v, d16.fd_data, sizeof d16.fd_data);
	} else if (dwarf_formblock(a, &blk, &e) == DW_DLV_OK) {
		const_bytes(di, v, blk->bl_data, blk->bl_len);
		dwarf_dealloc(di->dbg, blk, DW_DLA_BLOCK);
	} else if (dwarf_formstring(a, &str, &e) == DW_DLV_OK) {
		const_bytes(di, v, str, strlen(str) + 1);
	} else if (!di_attr_s64(die, DW_AT_const_value, &v->const_value)) {
		v->has_const = true;
	}
	dwarf_dealloc_attribute(a);
}

void di_parse_var(struct di_info *di, Dwarf_Die die, bool param, struct di_var *v)
{
	struct die_desc d;
	di_describe(di, die, &d);
	memset(v, 0, sizeof(*v));
	v->name = d.name;
	v->type = d.has_type && d.type ? d.type : di_void_type();
	v->is_param = param;
	v->external = d.external;
	v->decl_file = d.decl_file;
	v->decl_line = d.decl_line;
	di_parse_locs(di, die, DW_AT_location, &v->locs, &v->nlocs);
	if (!v->nlocs)
		read_const(di, die, v);
}

/* A local with a fixed address: a static local. */
static bool has_static_loc(const struct di_var *v)
{
	return v->nlocs == 1 && v->locs[0].always && v->locs[0].len == 9 &&
	       v->locs[0].ops[0] == DW_OP_addr;
}

static void add_var(struct di_info *di, struct var_vec *vec, Dwarf_Die die, bool param)
{
	Dwarf_Off origin = 0;
	XGROW(vec->v, vec->cap, vec->n + 1);
	XGROW(vec->origin, vec->capo, vec->n + 1);
	struct di_var *v = &vec->v[vec->n];
	di_parse_var(di, die, param, v);
	if (!param && has_static_loc(v))
		v->is_static = true;
	/* A local "extern int x;": di_open points it at the definition. */
	if (!param && di_attr_flag(die, DW_AT_declaration))
		v->is_static = v->external = true;
	if (di_attr_ref(die, DW_AT_abstract_origin, &origin))
		origin = 0;
	vec->origin[vec->n++] = origin;
}

static bool vec_has_origin(const struct var_vec *vec, Dwarf_Off off)
{
	for (size_t i = 0; i < vec->n; i++)
		if (vec->origin[i] == off)
			return true;
	return false;
}

/* A concrete instance may leave out what the optimizer removed; the
 * abstract tree still names it, and gdb shows it as optimized out. */
static bool off_has(const struct off_vec *o, Dwarf_Off off)
{
	for (size_t i = 0; o && i < o->n; i++)
		if (o->v[i] == off)
			return true;
	return false;
}

/* The variables of abstract DIE abs missing from vec, in DIE order; an
 * abstract lexical block no concrete block stands for (blocks: those
 * that do) is a block without code to gdb: its variables, and those of
 * the blocks inside it, count as the enclosing block's. */
static void inherit_from(struct di_info *di, Dwarf_Die abs, struct var_vec *vec,
			 Dwarf_Half tag, const struct off_vec *blocks, int depth)
{
	for (Dwarf_Die c = di_child(abs); c; c = di_next(di, c)) {
		Dwarf_Half t = di_tag(c);
		if (t == DW_TAG_lexical_block && tag == DW_TAG_variable && depth < MAX_SCOPE_DEPTH &&
		    !off_has(blocks, di_die_offset(c))) {
			inherit_from(di, c, vec, tag, NULL, depth + 1);
			continue;
		}
		if (t == DW_TAG_label && tag == DW_TAG_variable && di_die_name(di, c) &&
		    !off_has(blocks, di_die_offset(c)) && !vec_has_origin(vec, di_die_offset(c))) {
			size_t i = vec->n;   /* a label optimized away: as a variable */
			add_var(di, vec, c, false);
			vec->origin[i] = di_die_offset(c);
			continue;
		}
		if (t != tag || vec_has_origin(vec, di_die_offset(c)))
			continue;
		size_t i = vec->n;
		add_var(di, vec, c, tag == DW_TAG_formal_parameter);
		vec->origin[i] = di_die_offset(c);
	}
}

static void inherit_vars(struct di_info *di, Dwarf_Die die, struct var_vec *vec,
			 Dwarf_Half tag, const struct off_vec *blocks)
{
	Dwarf_Off off;
	if (di_attr_ref(die, DW_AT_abstract_origin, &off))
		return;
	Dwarf_Die abs = di_offdie(di, off);
	if (!abs)
		return;
	inherit_from(di, abs, vec, tag, blocks, 0);
	dwarf_dealloc_die(abs);
}

static void *vec_finish(struct di_info *di, void *arr, size_t n, size_t elem)
{
	void *p = n ? di_memdup(di, arr, n * elem) : NULL;
	free(arr);
	return p;
}

/* The parameters of a function or inlined call, completed from the
 * abstract origin with those the optimizer dropped. They stay in the order
 * of the concrete DIEs, dropped ones last, because that is gdb's order. */
static struct di_var *finish_params(struct di_info *di, Dwarf_Die die,
				    struct var_vec *params, size_t *n)
{
	inherit_vars(di, die, params, DW_TAG_formal_parameter, NULL);
	free(params->origin);
	*n = params->n;
	return vec_finish(di, params->v, params->n, sizeof(*params->v));
}

/* ---- functions and scopes ---- */

static void add_nested(struct di_info *di, Dwarf_Die die);

static void parse_scope(struct di_info *di, Dwarf_Die die, struct var_vec *params,
			struct inline_vec *inl, struct di_scope *s, int depth);

/* Inlined calls inside a block belong to the enclosing function or
 * inlined call (inl), not to the block. */
static void add_block(struct di_info *di, Dwarf_Die die, struct scope_vec *kids,
		      struct inline_vec *inl, int depth)
{
	struct di_scope s = {0};
	/* As gdb: a block with no pc attributes at all (a dead branch at -O0)
	 * is kept with no ranges: it covers no pc, but its variables are
	 * listed with the enclosing block's, optimized out. A block whose
	 * ranges are empty or invalid is dropped. */
	s.nranges = di_read_ranges(di, die, &s.ranges);
	Dwarf_Bool has_lo = 0, has_ranges = 0;
	Dwarf_Error e = NULL;
	dwarf_hasattr(die, DW_AT_low_pc, &has_lo, &e);
	dwarf_hasattr(die, DW_AT_ranges, &has_ranges, &e);
	if (depth >= MAX_SCOPE_DEPTH || (!s.nranges && (has_lo || has_ranges)))
		return;
	parse_scope(di, die, NULL, inl, &s, depth + 1);
	XGROW(kids->s, kids->cap, kids->n + 1);
	kids->s[kids->n++] = s;
}

static void inline_site(struct di_info *di, Dwarf_Die die, struct di_inline *in)
{
	struct die_desc d;
	uint64_t line;
	di_describe(di, die, &d);      /* name and declaration of the origin */
	in->name = d.name;
	in->decl_file = d.decl_file;
	in->decl_line = d.decl_line;
	in->call_file = di_file_attr(di, die, DW_AT_call_file);
	if (!di_attr_u64(die, DW_AT_call_line, &line))
		in->call_line = (int)line;
	/* gdb 13 takes a block's entry as the start of its first range as
	 * listed (BLOCK_ENTRY_PC), not DW_AT_entry_pc, which gcc may put
	 * before the code or inside a later range: breakpoints go where
	 * gdb's go. */
	in->entry_pc = in->nranges ? in->ranges[0].lo : 0;
}

/* A DW_TAG_inlined_subroutine: a scope of its own, with parameters like a
 * function's and inlined calls nested in it as children. */
static void add_inline(struct di_info *di, Dwarf_Die die, struct inline_vec *inl,
		       int depth)
{
	struct di_inline in = {0};
	struct var_vec params = {0};
	struct inline_vec kids = {0};

	in.nranges = di_read_ranges(di, die, &in.ranges);
	if (!in.nranges || depth >= MAX_SCOPE_DEPTH)
		return;
	inline_site(di, die, &in);
	in.body.ranges = in.ranges;
	in.body.nranges = in.nranges;
	parse_scope(di, die, &params, &kids, &in.body, depth + 1);
	in.params = finish_params(di, die, &params, &in.nparams);
	in.children = vec_finish(di, kids.v, kids.n, sizeof(*kids.v));
	in.nchildren = kids.n;
	XGROW(inl->v, inl->cap, inl->n + 1);
	inl->v[inl->n++] = in;
}

/* One argument register of a call site and the expression of its value. */
static bool callsite_param(struct di_info *di, Dwarf_Die die, struct di_callparam *p)
{
	struct di_locexpr *loc = NULL, *val = NULL;
	size_t nl = 0, nv = 0;
	if (di_parse_locs(di, die, DW_AT_location, &loc, &nl) || nl != 1 || loc[0].len != 1 ||
	    loc[0].ops[0] < DW_OP_reg0 || loc[0].ops[0] > DW_OP_reg31)
		return false;
	if (di_parse_locs(di, die, DW_AT_call_value, &val, &nv) &&
	    di_parse_locs(di, die, DW_AT_GNU_call_site_value, &val, &nv))
		return false;
	if (nv != 1)
		return false;
	p->reg = loc[0].ops[0] - DW_OP_reg0;
	p->value = val[0];
	return true;
}

/* The function a call site calls, as gdb's read_call_site_scope takes
 * DW_AT_call_origin (DW_AT_abstract_origin in the GNU form): a
 * declaration by its name, a definition by its low pc; an abstract
 * instance or an indirect call (DW_AT_call_target) stays unknown. */
static void callsite_target(struct di_info *di, Dwarf_Die die, struct di_callsite *cs)
{
	Dwarf_Off off;
	Dwarf_Addr lo;
	Dwarf_Error e = NULL;
	if (di_attr_ref(die, DW_AT_call_origin, &off) &&
	    di_attr_ref(die, DW_AT_abstract_origin, &off))
		return;
	Dwarf_Die t = di_offdie(di, off);
	if (!t)
		return;
	if (di_attr_flag(t, DW_AT_declaration)) {
		cs->target_name = di_die_name(di, t);
	} else if (dwarf_lowpc(t, &lo, &e) == DW_DLV_OK) {
		cs->target = lo;
		cs->has_target = true;
	}
	dwarf_dealloc_die(t);
}

/* Call sites let entry values (DW_OP_entry_value) of a callee's
 * parameters be found in its caller, and tail-call frames be rebuilt, as
 * gdb does. */
static void add_callsite(struct di_info *di, Dwarf_Die die)
{
	struct di_callsite cs = {0};
	Dwarf_Addr lo;
	Dwarf_Error e = NULL;
	if (di_attr_addr(die, DW_AT_call_return_pc, &cs.return_pc)) {
		if (dwarf_lowpc(die, &lo, &e) != DW_DLV_OK)
			return;   /* DW_TAG_GNU_call_site: low_pc is the return pc */
		cs.return_pc = lo;
	}
	cs.tail_call = di_attr_flag(die, DW_AT_call_tail_call) ||
		       di_attr_flag(die, DW_AT_GNU_tail_call);
	callsite_target(di, die, &cs);
	struct di_callparam ps[16];
	for (Dwarf_Die c = di_child(die); c; c = di_next(di, c)) {
		Dwarf_Half t = di_tag(c);
		if ((t == DW_TAG_call_site_parameter || t == DW_TAG_GNU_call_site_parameter) &&
		    cs.nparams < 16 && callsite_param(di, c, &ps[cs.nparams]))
			cs.nparams++;
	}
	cs.params = cs.nparams ? di_memdup(di, ps, cs.nparams * sizeof ps[0]) : NULL;
	struct di_callsite_vec *calls = di->calls;
	if (!calls)
		return;
	XGROW(calls->v, calls->cap, calls->n + 1);
	calls->v[calls->n++] = cs;
}

/* A label: with an address, a symbol gdb does not list as a local (its
 * abstract origin, if any, is taken); without one (optimized away) gdb
 * lists it with the locals as <optimized out>. */
static void add_label(struct di_info *di, Dwarf_Die die, struct var_vec *vars,
		      struct off_vec *concrete, size_t *other)
{
	Dwarf_Bool has_pc = 0;
	Dwarf_Error e = NULL;
	Dwarf_Off origin;
	if (!di_die_name(di, die))
		return;
	dwarf_hasattr(die, DW_AT_low_pc, &has_pc, &e);
	if (!has_pc) {
		add_var(di, vars, die, false);
		return;
	}
	++*other;
	if (!di_attr_ref(die, DW_AT_abstract_origin, &origin)) {
		XGROW(concrete->v, concrete->cap, concrete->n + 1);
		concrete->v[concrete->n++] = origin;
	}
}

/* The symbols gdb makes of a type declared in a block: its name (a
 * typedef, a struct, union or enum tag) and an enum's enumerators. */
static size_t scope_type_syms(struct di_info *di, Dwarf_Die die)
{
	Dwarf_Half t = di_tag(die);
	size_t n = 0;
	if (t != DW_TAG_typedef && t != DW_TAG_structure_type && t != DW_TAG_union_type &&
	    t != DW_TAG_enumeration_type)
		return 0;
	n += di_die_name(di, die) != NULL;
	if (t != DW_TAG_enumeration_type)
		return n;
	for (Dwarf_Die c = di_child(die); c; c = di_next(di, c))
		n += di_tag(c) == DW_TAG_enumerator;
	return n;
}

static void parse_scope(struct di_info *di, Dwarf_Die die, struct var_vec *params,
			struct inline_vec *inl, struct di_scope *s, int depth)
{
	struct var_vec vars = {0};
	struct scope_vec kids = {0};
	size_t other = 0;   /* labels, named types, enumerators */
	struct off_vec blocks = {0};

	for (Dwarf_Die c = di_child(die); c; c = di_next(di, c)) {
		switch (di_tag(c)) {
		case DW_TAG_formal_parameter:
			if (params)
				add_var(di, params, c, true);
			break;
		case DW_TAG_variable:
			add_var(di, &vars, c, false);
			break;
		case DW_TAG_lexical_block:
		{
			size_t had = kids.n;
			Dwarf_Off bo;
			if (!di_attr_ref(c, DW_AT_abstract_origin, &bo)) {
				XGROW(blocks.v, blocks.cap, blocks.n + 1);
				blocks.v[blocks.n++] = bo;
			}
			add_block(di, c, &kids, inl, depth);
			if (kids.n > had && !kids.s[had].nranges)
				other += kids.s[had].nsyms;
			break;
		}
		case DW_TAG_label:
			add_label(di, c, &vars, &blocks, &other);
			break;
		case DW_TAG_subprogram:      /* GNU C nested function */
			add_nested(di, c);
			break;
		case DW_TAG_inlined_subroutine:
			add_inline(di, c, inl, depth);
			break;
		case DW_TAG_call_site:
		case DW_TAG_GNU_call_site:
			add_callsite(di, c);
			break;
		default:
			other += scope_type_syms(di, c);
			di_type_visit(di, c);
			break;
		}
	}
	inherit_vars(di, die, &vars, DW_TAG_variable, &blocks);
	free(blocks.v);
	s->nsyms = vars.n + other;
	free(vars.origin);
	s->vars = vec_finish(di, vars.v, vars.n, sizeof(*vars.v));
	s->nvars = vars.n;
	s->children = vec_finish(di, kids.s, kids.n, sizeof(*kids.s));
	s->nchildren = kids.n;
}

void di_func_entry(Dwarf_Die die, struct di_func *f)
{
	Dwarf_Addr lo = 0;
	Dwarf_Error e = NULL;
	uint64_t entry;
	f->lo = f->ranges[0].lo;
	if (dwarf_lowpc(die, &lo, &e) == DW_DLV_OK)
		f->lo = lo;
	else if (!di_read_entry_pc(die, di_lowest_pc(f->ranges, f->nranges), &entry))
		f->lo = entry;
	f->hi = f->ranges[0].hi;
	for (size_t i = 0; i < f->nranges; i++)
		if (f->ranges[i].lo <= f->lo && f->lo < f->ranges[i].hi)
			f->hi = f->ranges[i].hi;
}

struct func_proto {
	bool prototyped, varargs;
};

static void func_proto_of(struct di_info *di, Dwarf_Die die, void *arg)
{
	struct func_proto *p = arg;
	p->prototyped |= di_attr_flag(die, DW_AT_prototyped);
	for (Dwarf_Die c = di_child(die); c; c = di_next(di, c))
		p->varargs |= di_tag(c) == DW_TAG_unspecified_parameters;
}

/* The function as a value, gdb's {int (int, int)}: "prototyped" and "..."
 * come from the DIE or its abstract origin; unprototyped is "()". */
static const struct di_type *func_type(struct di_info *di, Dwarf_Die die,
				       const struct di_func *f)
{
	struct di_type *t = di_alloc(di, sizeof(*t));
	const struct di_type **ps = di_alloc(di, (f->nparams + 1) * sizeof(*ps));
	t->kind = DI_FUNC;
	t->size = 1;
	t->target = f->ret;
	for (size_t i = 0; i < f->nparams; i++)
		ps[i] = f->params[i].type;
	t->params = ps;
	t->nparams = f->nparams;
	struct func_proto p = {0};
	di_each_origin(di, die, func_proto_of, &p);
	t->varargs = p.varargs || (!p.prototyped && !f->nparams);
	return t;
}


static void resolve_externs(struct di_info *di, struct di_scope *s)
{
	for (size_t i = 0; i < s->nvars; i++) {
		struct di_var *v = &s->vars[i];
		if (!v->external || v->nlocs || v->has_const || !v->name)
			continue;
		const struct di_static *def = di_find_static(di, v->name, NULL);
		if (!def || !def->var.external)
			continue;
		v->locs = def->var.locs;
		v->nlocs = def->var.nlocs;
		if (v->type == di_void_type())
			v->type = def->var.type;
	}
	for (size_t i = 0; i < s->nchildren; i++)
		resolve_externs(di, &s->children[i]);
}

/* Point the inlined calls at their function and resolve their "extern"
 * locals as resolve_externs does for functions. */
static void link_inlines(struct di_info *di, struct di_inline *v, size_t n,
			 const struct di_func *f)
{
	for (size_t i = 0; i < n; i++) {
		v[i].func = f;
		resolve_externs(di, &v[i].body);
		link_inlines(di, v[i].children, v[i].nchildren, f);
	}
}

static int cmp_callsite(const void *a, const void *b)
{
	const struct di_callsite *x = a, *y = b;
	return x->return_pc < y->return_pc ? -1 : x->return_pc > y->return_pc;
}

/* Read the rest of a function noted by di_func_note: return type,
 * declaration, frame base, parameters, scopes, inlined calls, call sites. */
static void func_read(struct di_info *di, Dwarf_Die die, struct di_func *f,
		      struct di_fstate *st)
{
	struct die_desc d;
	struct var_vec params = {0};
	struct inline_vec inl = {0};
	struct di_callsite_vec calls = {0}, *outer = di->calls;
	struct di_locexpr *fb = NULL;
	size_t nfb = 0;

	di_describe(di, die, &d);
	f->ret = d.has_type ? d.type : NULL;
	f->decl_file = d.decl_file;
	f->decl_line = d.decl_line;
	if (!di_parse_locs(di, die, DW_AT_frame_base, &fb, &nfb) && nfb)
		f->frame_base = fb[0];
	f->body.ranges = f->ranges;
	f->body.nranges = f->nranges;
	di->calls = &calls;
	parse_scope(di, die, &params, &inl, &f->body, 0);
	di->calls = outer;
	f->params = finish_params(di, die, &params, &f->nparams);
	f->type = func_type(di, die, f);
	f->inlines = vec_finish(di, inl.v, inl.n, sizeof(*inl.v));
	f->ninlines = inl.n;
	if (calls.n)
		qsort(calls.v, calls.n, sizeof(*calls.v), cmp_callsite);
	st->calls = vec_finish(di, calls.v, calls.n, sizeof(*calls.v));
	st->ncalls = calls.n;
	link_inlines(di, f->inlines, f->ninlines, f);
	resolve_externs(di, &f->body);
}

struct di_fstate *di_fstate_of(const struct di_info *di, const struct di_func *f)
{
	(void)di;
	return &((struct di_fent *)(uintptr_t)f)->s;   /* f is its first member */
}

void di_func_read_all(struct di_info *di, const struct di_func *f)
{
	struct di_fstate *st = di_fstate_of(di, f);
	if (st->expanded)
		return;
	st->expanded = true;
	Dwarf_Die die = di_offdie(di, st->off);
	if (!die)
		return;
	func_read(di, die, (struct di_func *)(uintptr_t)f, st);
	dwarf_dealloc_die(die);
}

int di_cmp_frange(const void *a, const void *b)
{
	const struct di_func_range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

void di_add_franges(struct di_info *di, const struct di_func *f)
{
	XGROW(di->franges, di->capfranges, di->nfranges + f->nranges);
	for (size_t j = 0; j < f->nranges; j++)
		di->franges[di->nfranges++] = (struct di_func_range){
			f->ranges[j].lo, f->ranges[j].hi, f };
}

/* A GNU C nested function, met while expanding its parent: read in full
 * at once, in the arena so that its address stays. */
static void add_nested(struct di_info *di, Dwarf_Die die)
{
	static const struct di_abbrev any = { true, DI_FLAG_READ, DI_FLAG_READ, true, false, true };
	struct di_func f;
	struct di_cu *cu = di_cu_of(di, die);
	if (di_attr_flag(die, DW_AT_declaration) || !di_func_note(di, die, cu, &any, &f))
		return;
	struct di_fent *n = di_alloc(di, sizeof(*n));
	n->f = f;
	n->s.off = di_die_offset(die);
	n->s.cu = cu;
	n->s.expanded = true;
	XGROW(di->nested, di->capnested, di->nnested + 1);
	di->nested[di->nnested++] = n;
	di_add_franges(di, &n->f);
	qsort(di->franges, di->nfranges, sizeof(*di->franges), di_cmp_frange);
	func_read(di, die, &n->f, &n->s);
}

/* Expand every function of cu (finding its nested functions). */
void di_cu_expand(struct di_info *di, struct di_cu *cu)
{
	if (cu->expanded)
		return;
	cu->expanded = true;
	/* A snapshot: reading a function may index more units, which sorts
	 * di->funcs again. */
	size_t n = di->nfuncs;
	const struct di_func **fs = xmalloc((n ? n : 1) * sizeof(*fs));
	if (n)
		memcpy(fs, di->funcs, n * sizeof(*fs));
	for (size_t i = 0; i < n; i++)
		if (di_fstate_of(di, fs[i])->cu == cu)
			di_func_read_all(di, fs[i]);
	free(fs);
}
