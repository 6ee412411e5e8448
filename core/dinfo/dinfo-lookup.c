/* dinfo-lookup: the queries over a file's debug information: the function
 * at a pc or of a name, call sites, statics by name with C's scoping rules,
 * the variables visible at a pc, inlined call chains and instances. */
#include "dinfo-int.h"
#include "dwcu.h"
#include "util/sorted.h"
#include "util/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- lookups ---- */

static const struct di_func *func_at(const struct di_info *di, uint64_t pc)
{
	size_t lo = SORTED_UPTO(di->franges, di->nfranges, lo, pc);
	/* Ranges do not nest for out-of-line functions, but look a little
	 * further back in case a producer overlaps them. */
	for (size_t i = lo, k = 0; i-- > 0 && k < 4; k++)
		if (pc < di->franges[i].hi)
			return di->franges[i].f;
	return NULL;
}

/* pc is in no function known: if a unit not yet expanded covers it, a
 * nested function of it may. */
static bool expand_cu_at(struct di_info *di, uint64_t pc)
{
	bool any = false;
	for (size_t i = 0; i < di->ncus; i++) {
		struct di_cu *cu = di->cus[i];
		if (!cu->expanded && di_ranges_cover(cu->ranges, cu->nranges, pc)) {
			di_cu_expand(di, cu);
			any = true;
		}
	}
	return any;
}

const struct di_func *di_func_at(const struct di_info *cdi, uint64_t pc)
{
	struct di_info *di = (struct di_info *)cdi;   /* see struct di_info */
	di_index_pc(di, pc);
	const struct di_func *f = func_at(di, pc);
	if (!f && expand_cu_at(di, pc))
		f = func_at(di, pc);
	if (f)
		di_func_read_all(di, f);
	return f;
}

const struct di_func *di_func_at_named(const struct di_info *cdi, uint64_t pc,
				       const char *name)
{
	struct di_info *di = (struct di_info *)cdi;
	const struct di_func *f = di_func_at(di, pc);   /* indexes pc's unit */
	size_t i = SORTED_UPTO(di->franges, di->nfranges, lo, pc);
	while (f && i-- > 0 && di->franges[i].lo == f->lo) {
		const struct di_func *g = di->franges[i].f;
		if (g->lo == f->lo && g->name && !strcmp(g->name, name)) {
			di_func_read_all(di, g);
			return g;
		}
	}
	return f;
}

/* An external function before a static one, then the lowest address. */
static bool better_func(const struct di_func *f, const struct di_func *best)
{
	if (!best || f->external != best->external)
		return !best || f->external;
	return f->lo < best->lo;
}

const struct di_func *di_func_named(const struct di_info *cdi, const char *name)
{
	struct di_info *di = (struct di_info *)cdi;
	const struct di_func *best = NULL;
	di_index_all(di);
	for (struct di_fent *fe = hmap_sget(&di->func_names, name); fe; fe = fe->s.next_named)
		if (better_func(&fe->f, best))
			best = &fe->f;
	for (size_t i = 0; i < di->nnested; i++) {
		const struct di_func *f = &di->nested[i]->f;
		if (f->name && !strcmp(f->name, name) && better_func(f, best))
			best = f;
	}
	if (best)
		di_func_read_all(di, best);
	return best;
}

size_t di_funcs_named(const struct di_info *cdi, const char *name,
		      const struct di_func **out, size_t max)
{
	struct di_info *di = (struct di_info *)cdi;
	size_t n = 0;
	di_index_all(di);
	for (struct di_fent *fe = hmap_sget(&di->func_names, name); fe && n < max;
	     fe = fe->s.next_named) {
		size_t k = n++;   /* by address: insertion */
		while (k > 0 && out[k - 1]->lo > fe->f.lo) {
			out[k] = out[k - 1];
			k--;
		}
		out[k] = &fe->f;
		di_func_read_all(di, out[k]);
	}
	return n;
}

const struct di_func *const *di_funcs(const struct di_info *cdi, size_t *n)
{
	struct di_info *di = (struct di_info *)cdi;
	di_index_all(di);
	*n = di->nfuncs;
	return (const struct di_func *const *)di->funcs;
}

const struct di_func *di_func_expand(const struct di_info *di, const struct di_func *f)
{
	di_func_read_all((struct di_info *)di, f);
	return f;
}

static const struct di_callsite *callsite_in(const struct di_info *di,
					    const struct di_func *f, uint64_t return_pc)
{
	const struct di_fstate *st = di_fstate_of(di, f);
	size_t lo = SORTED_BELOW(st->calls, st->ncalls, return_pc, return_pc);
	return lo < st->ncalls && st->calls[lo].return_pc == return_pc ? &st->calls[lo] : NULL;
}

/* The call sites are read with the function that makes the call: the one
 * at return_pc, or before it if the call was its last instruction. */
const struct di_callsite *di_callsite_at(const struct di_info *di, uint64_t return_pc)
{
	const struct di_func *f = di_func_at(di, return_pc);
	const struct di_callsite *cs = f ? callsite_in(di, f, return_pc) : NULL;
	const struct di_func *before = cs || !return_pc ? NULL : di_func_at(di, return_pc - 1);
	if (before && before != f)
		cs = callsite_in(di, before, return_pc);
	return cs;
}

size_t di_tail_calls(const struct di_info *di, uint64_t entry,
		     const struct di_callsite **out, size_t max)
{
	const struct di_func *f = di_func_at(di, entry);
	if (!f || f->lo != entry)
		return 0;
	const struct di_fstate *st = di_fstate_of(di, f);
	size_t n = 0;
	for (size_t i = 0; i < st->ncalls && n < max; i++)
		if (st->calls[i].tail_call)
			out[n++] = &st->calls[i];
	return n;
}

static bool cu_matches(const struct di_cu *cu, const char *file)
{
	if (!cu)
		return false;
	if ((cu->name && !strcmp(cu->name, file)) || (cu->path && !strcmp(cu->path, file)))
		return true;
	size_t lp = cu->path ? strlen(cu->path) : 0, lf = strlen(file);
	return lf < lp && file[0] != '/' && cu->path[lp - lf - 1] == '/' &&
	       !strcmp(cu->path + lp - lf, file);
}

/* Rank candidates: a definition over a bare name, then C's scoping: the
 * file static of cu_file shadows a global, and without cu_file globals
 * come first. Other files' statics are only found without cu_file. */
static int static_rank(const struct di_static *s, const char *cu_file)
{
	int r = (s->var.nlocs || s->var.has_const) ? 4 : 0;
	if (!cu_file)
		return r + (s->var.external ? 2 : 0);
	if (!s->var.external && cu_matches(s->cu, cu_file))
		return r + 2;
	return s->var.external ? r + 1 : -1;
}

static void static_expand(struct di_info *di, struct di_static *s)
{
	if (s->expanded)
		return;
	s->expanded = true;
	Dwarf_Die die = s->kind == DI_ST_VAR ? di_offdie(di, s->off) : NULL;
	if (!die)
		return;
	di_parse_var(di, die, false, &s->var);
	s->var.is_static = true;
	dwarf_dealloc_die(die);
}

/* A function as a variable at its entry (DW_OP_addr), so that print mul
 * and print &mul find it. */
static struct di_static *func_static(struct di_info *di, const struct di_func *f,
				     uint64_t seq)
{
	struct di_fstate *st = di_fstate_of(di, f);
	if (st->as_static)
		return st->as_static;
	di_func_read_all(di, f);
	struct di_static *s = di_alloc(di, sizeof(*s));
	struct di_locexpr *le = di_alloc(di, sizeof(*le));
	uint8_t *ops = di_alloc(di, 9);
	ops[0] = DW_OP_addr;
	for (int b = 0; b < 8; b++)
		ops[1 + b] = (uint8_t)(f->lo >> (8 * b));
	*le = (struct di_locexpr){ .ops = ops, .len = 9, .always = true };
	s->kind = DI_ST_FUNC;
	s->seq = seq;
	s->expanded = true;
	s->cu = st->cu;
	s->var = (struct di_var){ .name = f->name, .type = f->type, .is_static = true,
				  .external = f->external, .locs = le, .nlocs = 1,
				  .decl_file = f->decl_file, .decl_line = f->decl_line };
	return st->as_static = s;
}

void di_add_enumerators(struct di_info *di, const struct di_type *t)
{
	for (size_t j = 0; j < t->nenums; j++) {
		struct di_static *s = di_new_static(di, DI_ST_ENUM, t->enums[j].name);
		s->var.type = t;
		s->var.has_const = true;
		s->var.const_value = t->enums[j].value;
		s->var.external = true;
		s->expanded = true;
	}
}

/* Enumerators are statics too (print BLUE): read every top-level enum
 * type once, which makes its enumerators statics. */
static void read_enums(struct di_info *di)
{
	di->enums_read = true;
	for (size_t i = 0; i < di->nenum_offs; i++)
		di_type_at(di, di->enum_offs[i]);
}

/* Of candidates of equal rank, a variable beats a function beats an
 * enumerator, then the first made. */
static bool better_static(const struct di_static *s, int r,
			  const struct di_static *best, int best_r)
{
	if (r != best_r)
		return r > best_r;
	if (s->kind != best->kind)
		return s->kind < best->kind;
	return s->seq < best->seq;
}

static void rank_static(const struct di_static *s, const char *cu_file,
			const struct di_static **best, int *best_r)
{
	int r = static_rank(s, cu_file);
	if (r >= 0 && (!*best || better_static(s, r, *best, *best_r))) {
		*best = s;
		*best_r = r;
	}
}

const struct di_static *di_find_static(struct di_info *di, const char *name,
					   const char *cu_file)
{
	const struct di_static *best = NULL;
	int best_r = -1;
	di_index_all(di);
	if (!di->enums_read)
		read_enums(di);
	for (struct di_static *s = hmap_sget(&di->statics, name); s; s = s->next) {
		static_expand(di, s);
		rank_static(s, cu_file, &best, &best_r);
	}
	uint64_t k = 0;   /* of equals, the lowest address first */
	for (struct di_fent *fe = hmap_sget(&di->func_names, name); fe; fe = fe->s.next_named)
		rank_static(func_static(di, &fe->f, k++), cu_file, &best, &best_r);
	for (size_t i = 0; i < di->nnested; i++) {
		const struct di_func *f = &di->nested[i]->f;
		if (f->name && !strcmp(f->name, name))
			rank_static(func_static(di, f, di->nfuncs + i), cu_file,
				    &best, &best_r);
	}
	return best;
}

const struct di_var *di_static_named(const struct di_info *di, const char *name,
				     const char *cu_file)
{
	const struct di_static *s = di_find_static((struct di_info *)di, name, cu_file);
	return s ? &s->var : NULL;
}

bool di_scope_covers(const struct di_scope *s, uint64_t pc)
{
	return di_ranges_cover(s->ranges, s->nranges, pc);
}

static uint32_t gdb_hash_next(uint32_t h, char c)
{
	return h * 67 + (uint32_t)tolower((unsigned char)c) - 113;
}

/* gdb's msymbol_hash_iw: every character but blanks. */
static uint32_t gdb_hash_iw(const char *s)
{
	uint32_t h = 0;
	for (; *s && *s != '('; s++)
		if (*s != ' ' && *s != '\t')
			h = gdb_hash_next(h, *s);
	return h;
}

/* gdb's default_search_name_hash, the hash of a C symbol's name: Ada's
 * encodings end or restart it ("__x", "X", "TKB"), so names with those
 * spellings hash only in part. */
uint32_t di_gdb_name_hash(const char *s0)
{
	const char *s = s0;
	uint32_t h = 0;
	if (*s == '_') {
		if (strncmp(s, "_ada_", 5) != 0)
			return gdb_hash_iw(s0);
		s += 5;
	}
	while (*s) {
		switch (*s) {
		case '$': case '.': case 'X':
			return s == s0 ? gdb_hash_iw(s0) : h;
		case ' ': case '(':
			return gdb_hash_iw(s0);
		case '_':
			if (s[1] == '_' && s != s0) {
				if ((s[2] < 'a' || s[2] > 'z') && s[2] != 'O')
					return h;
				h = 0;
				s += 2;
				continue;
			}
			break;
		case 'T':
			if (strcmp(s, "TKB") == 0)
				return h;
			break;
		}
		h = gdb_hash_next(h, *s++);
	}
	return h;
}

void di_scope_gdb_order(const struct di_scope *s, const struct di_var **v, size_t n)
{
	uint32_t buckets = (uint32_t)(s->nsyms > n ? s->nsyms : n) / 5 + 1;
	/* insertion sort: stable, and blocks are small */
	for (size_t i = 1; i < n; i++) {
		const struct di_var *x = v[i];
		uint32_t bx = di_gdb_name_hash(x->name ? x->name : "") % buckets;
		size_t j = i;
		while (j > 0 && di_gdb_name_hash(v[j - 1]->name ? v[j - 1]->name : "") % buckets > bx) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
}

/* The variables of s's range-less child blocks (and theirs): gdb reads
 * such a block's children as if it were not there, into s. */
static size_t rangeless_vars(const struct di_scope *s, const struct di_var **out,
			     size_t n, size_t max, int depth)
{
	for (size_t i = 0; i < s->nchildren && depth < MAX_SCOPE_DEPTH; i++) {
		const struct di_scope *c = &s->children[i];
		if (c->nranges)
			continue;
		for (size_t k = c->nvars; k-- > 0 && n < max;)
			out[n++] = &c->vars[k];
		n = rangeless_vars(c, out, n, max, depth + 1);
	}
	return n;
}

/* The variables of body's scopes that cover pc, then params. */
static size_t scope_vars_at(const struct di_scope *body, const struct di_var *params,
			    size_t nparams, uint64_t pc, const struct di_var **out,
			    size_t max)
{
	const struct di_scope *chain[MAX_SCOPE_DEPTH + 1];
	size_t depth = 0, n = 0;
	const struct di_scope *s = body;

	while (s && depth < ARRAY_LEN(chain) && di_scope_covers(s, pc)) {
		chain[depth++] = s;
		const struct di_scope *inner = NULL;
		for (size_t i = 0; i < s->nchildren && !inner; i++)
			if (di_scope_covers(&s->children[i], pc))
				inner = &s->children[i];
		s = inner;
	}
	while (depth-- > 0) {
		for (size_t i = chain[depth]->nvars; i-- > 0 && n < max;)
			out[n++] = &chain[depth]->vars[i];
		n = rangeless_vars(chain[depth], out, n, max, 0);
	}
	for (size_t i = 0; i < nparams && n < max; i++)
		out[n++] = &params[i];
	return n;
}

size_t di_vars_at(const struct di_func *f, uint64_t pc,
		  const struct di_var **out, size_t max)
{
	return scope_vars_at(&f->body, f->params, f->nparams, pc, out, max);
}

size_t di_inline_vars_at(const struct di_inline *in, uint64_t pc,
			 const struct di_var **out, size_t max)
{
	return scope_vars_at(&in->body, in->params, in->nparams, pc, out, max);
}

static const struct di_inline *inline_covering(const struct di_inline *v, size_t n,
					       uint64_t pc)
{
	for (size_t i = 0; i < n; i++)
		if (di_scope_covers(&v[i].body, pc))
			return &v[i];
	return NULL;
}

size_t di_inline_chain(const struct di_func *f, uint64_t pc,
		       const struct di_inline **out, size_t max)
{
	const struct di_inline *chain[MAX_SCOPE_DEPTH + 1];
	size_t depth = 0, n = 0;
	const struct di_inline *in = inline_covering(f->inlines, f->ninlines, pc);

	for (; in && depth < ARRAY_LEN(chain); depth++) {
		chain[depth] = in;
		in = inline_covering(in->children, in->nchildren, pc);
	}
	while (depth-- > 0 && n < max)
		out[n++] = chain[depth];
	return n;
}

struct inline_list {
	const struct di_inline **v;
	size_t n, cap;
};

static void match_inlines(const struct di_inline *v, size_t n, const char *name,
			  struct inline_list *out)
{
	for (size_t i = 0; i < n; i++) {
		if (v[i].name && !strcmp(v[i].name, name)) {
			XGROW(out->v, out->cap, out->n + 1);
			out->v[out->n++] = &v[i];
		}
		match_inlines(v[i].children, v[i].nchildren, name, out);
	}
}

static int cmp_inline(const void *a, const void *b)
{
	const struct di_inline *x = *(const struct di_inline *const *)a;
	const struct di_inline *y = *(const struct di_inline *const *)b;
	return x->entry_pc < y->entry_pc ? -1 : x->entry_pc > y->entry_pc;
}

/* The inlined calls of name are in the units that have its abstract
 * instance, or whose inlined calls refer to other units: expand those
 * (none at -O0), then look through every expanded function. */
/* The inlined calls of name in the functions read so far, by entry. */
static size_t collect_inlines(struct di_info *di, const char *name,
			      const struct di_inline **out, size_t max)
{
	struct inline_list l = {0};
	for (size_t i = 0; i < di->nfuncs; i++)
		if (di_fstate_of(di, di->funcs[i])->expanded)
			match_inlines(di->funcs[i]->inlines, di->funcs[i]->ninlines, name, &l);
	for (size_t i = 0; i < di->nnested; i++)
		match_inlines(di->nested[i]->f.inlines, di->nested[i]->f.ninlines, name, &l);
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), cmp_inline);
	size_t n = l.n < max ? l.n : max;
	for (size_t i = 0; i < n; i++)
		out[i] = l.v[i];
	free(l.v);
	return n;
}

size_t di_inline_instances(const struct di_info *cdi, const char *name,
			   const struct di_inline **out, size_t max)
{
	struct di_info *di = (struct di_info *)cdi;
	di_index_all(di);
	if (!di->xcu_expanded) {
		di->xcu_expanded = true;
		for (size_t i = 0; i < di->ncus; i++)
			if (di->cus[i]->has_inlines && di->cus[i]->inlines_xcu)
				di_cu_expand(di, di->cus[i]);
	}
	for (struct di_origin *o = hmap_sget(&di->origins, name); o; o = o->next)
		di_cu_expand(di, o->cu);
	return collect_inlines(di, name, out, max);
}

int di_inline_instances_in(const struct di_info *cdi, const char *name,
			   const uint64_t *units, size_t nunits,
			   const struct di_inline **out, size_t max, size_t *n)
{
	struct di_info *di = (struct di_info *)cdi;
	for (size_t i = 0; i < nunits; i++) {
		struct di_cu *cu = di_index_unit_at(di, units[i]);
		if (!cu)
			return -1;
		di_cu_expand(di, cu);
	}
	*n = collect_inlines(di, name, out, max);
	return 0;
}
