/* dinfo: the DIEs of an ELF file, read with libdwarf into plain structs
 * (functions, scopes, variables, types) kept in one arena. di_open only
 * indexes the top-level DIEs of each unit (functions with their ranges,
 * global variables, type names); a function's parameters, scopes, inlined
 * calls and call sites are read when it is first looked up, a variable's
 * type and location likewise, so that start-up stays fast on large
 * programs; a lazy index (di_from) even indexes a unit only when a pc
 * inside it or a name is first looked up. This file reads the units and builds that index (di_open);
 * dinfo-read.c has the helpers every reader shares, dinfo-func.c reads a
 * function in full, dinfo-lookup.c answers the queries, dinfo-type.c reads
 * types, dinfo-loc.c location expressions, dinfo-eval.c their evaluation. */
#include "dinfo-int.h"
#include "dwcu.h"
#include "util/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- compilation units ---- */

static void cu_read_files(struct di_info *di, struct di_cu *cu)
{
	char **files = NULL;
	Dwarf_Signed n = 0;
	Dwarf_Error e = NULL;
	Dwarf_Die cudie = di_offdie(di, cu->off);
	cu->files_read = true;
	if (!cudie)
		return;
	if (dwcu_files_ok(&di->dw->sane, cudie) && dwarf_srcfiles(cudie, &files, &n, &e) == DW_DLV_OK) {
		cu->files = di_alloc(di, (size_t)n * sizeof(*cu->files));
		cu->nfiles = (size_t)n;
		for (Dwarf_Signed i = 0; i < n; i++) {
			cu->files[i] = di_intern_path(di, files[i]);
			dwarf_dealloc(di->dbg, files[i], DW_DLA_STRING);
		}
		dwarf_dealloc(di->dbg, files, DW_DLA_LIST);
	}
	dwarf_dealloc_die(cudie);
}

struct range_vec {
	struct di_range *r;
	size_t n, cap;
};

static void range_add(void *arg, uint64_t lo, uint64_t hi)
{
	struct range_vec *v = arg;
	XGROW(v->r, v->cap, v->n + 1);
	v->r[v->n++] = (struct di_range){ lo, hi };
}

size_t di_ranges_of(struct di_info *di, Dwarf_Die die, uint64_t base,
			struct di_range **out)
{
	struct range_vec v = {0};
	dwcu_ranges(di->dbg, die, base, range_add, &v);
	*out = v.n ? di_memdup(di, v.r, v.n * sizeof(*v.r)) : NULL;
	free(v.r);
	return v.n;
}

/* A unit not known yet may have inlined calls: has_inlines is only
 * cleared by di_open's look at its abbreviations. */
static struct di_cu *cu_load(struct di_info *di, Dwarf_Die cudie, Dwarf_Off off)
{
	struct di_cu *cu = di_alloc(di, sizeof(*cu));
	Dwarf_Half ver = 0, offsz = 0;
	Dwarf_Addr low = 0;
	Dwarf_Error e = NULL;
	char *name = NULL, *dir = NULL;

	cu->off = off;
	cu->has_inlines = cu->inlines_xcu = true;
	dwarf_get_version_of_die(cudie, &ver, &offsz);
	cu->version = ver;
	cu->file_base = ver >= 5 ? 0 : 1;
	if (dwarf_lowpc(cudie, &low, &e) == DW_DLV_OK)
		cu->base = low;
	Dwarf_Attribute a = di_get_attr(cudie, DW_AT_comp_dir);
	if (a && dwarf_formstring(a, &dir, &e) != DW_DLV_OK)
		dir = NULL;
	if (dwarf_diename(cudie, &name, &e) == DW_DLV_OK) {
		cu->name = di_strdup(di, name);
		char *full = name[0] == '/' || !dir ? xstrdup(name) :
			     xasprintf("%s/%s", dir, name);
		cu->path = di_intern_path(di, full);
		free(full);
	}
	if (a)
		dwarf_dealloc_attribute(a);
	cu->nranges = di_ranges_of(di, cudie, cu->base, &cu->ranges);
	XGROW(di->cus, di->capcus, di->ncus + 1);
	di->cus[di->ncus++] = cu;
	hmap_put(&di->cu_by_off, off, cu);
	return cu;
}

/* The CU of any DIE, loading it if a reference led into one not yet read. */
struct di_cu *di_cu_of(struct di_info *di, Dwarf_Die die)
{
	Dwarf_Off off = 0;
	Dwarf_Error e = NULL;
	if (dwarf_CU_dieoffset_given_die(die, &off, &e) != DW_DLV_OK)
		return di->last_cu;
	if (di->last_cu && di->last_cu->off == off)
		return di->last_cu;
	struct di_cu *cu = hmap_get(&di->cu_by_off, off);
	if (cu)
		return di->last_cu = cu;
	Dwarf_Die cudie = di_offdie(di, off);
	if (!cudie)
		return NULL;
	di->last_cu = cu_load(di, cudie, off);
	dwarf_dealloc_die(cudie);
	return di->last_cu;
}

/* A file number attribute (DW_AT_decl_file, DW_AT_call_file) as the
 * interned path the line table uses too. */
const char *di_file_attr(struct di_info *di, Dwarf_Die die, Dwarf_Half at)
{
	uint64_t idx;
	struct di_cu *cu;
	if (di_attr_u64(die, at, &idx) || !(cu = di_cu_of(di, die)))
		return NULL;
	if (!cu->files_read)
		cu_read_files(di, cu);
	idx -= (uint64_t)cu->file_base;
	return idx < cu->nfiles ? cu->files[idx] : NULL;
}

/* ---- what di_open reads of a DIE ---- */

static void read_abbrev(struct di_info *di, Dwarf_Die die, struct di_abbrev *a)
{
	Dwarf_Off off = 0;
	Dwarf_Unsigned count = 0, len = 0, nattr = 0;
	Dwarf_Abbrev ab = NULL;
	Dwarf_Error e = NULL;
	Dwarf_Signed kids = 1;
	*a = (struct di_abbrev){ true, DI_FLAG_READ, DI_FLAG_READ, true, false, true };
	if (dwarf_die_abbrev_global_offset(die, &off, &count, &e) != DW_DLV_OK ||
	    dwarf_get_abbrev(di->dbg, off, &ab, &len, &nattr, &e) != DW_DLV_OK)
		return;
	struct di_abbrev got = { .known = true };
	got.children = dwarf_get_abbrev_children_flag(ab, &kids, &e) != DW_DLV_OK || kids;
	bool ok = true;
	for (Dwarf_Unsigned i = 0; ok && i < nattr; i++) {
		Dwarf_Unsigned at = 0, form = 0;
		Dwarf_Signed implicit = 0;
		Dwarf_Off aoff = 0;
		ok = dwarf_get_abbrev_entry_b(ab, i, 1, &at, &form, &implicit, &aoff,
					      &e) == DW_DLV_OK;
		uint8_t how = form == DW_FORM_flag_present ? DI_FLAG_YES : DI_FLAG_READ;
		if (at == DW_AT_declaration)
			got.declaration = how;
		else if (at == DW_AT_external)
			got.external = how;
		else if (at == DW_AT_abstract_origin || at == DW_AT_specification)
			got.origin = true;
		else if (at == DW_AT_sibling)
			got.sibling = true;
	}
	dwarf_dealloc(di->dbg, ab, DW_DLA_ABBREV);
	if (ok)
		*a = got;
}

/* The abbreviation facts of a DIE of cu, read once per code. */
static const struct di_abbrev *abbrev_of(struct di_info *di, struct di_cu *cu,
					 Dwarf_Die die)
{
	static const struct di_abbrev unknown = { true, DI_FLAG_READ, DI_FLAG_READ, true, false, true };
	int code = dwarf_die_abbrev_code(die);
	if (code <= 0 || code > 100000)
		return &unknown;
	if ((size_t)code >= cu->nabbrevs) {
		size_t n = (size_t)code * 2;
		cu->abbrevs = xrealloc(cu->abbrevs, n * sizeof(*cu->abbrevs));
		memset(cu->abbrevs + cu->nabbrevs, 0, (n - cu->nabbrevs) * sizeof(*cu->abbrevs));
		cu->nabbrevs = n;
	}
	struct di_abbrev *a = &cu->abbrevs[code];
	if (!a->known)
		read_abbrev(di, die, a);
	return a;
}

static bool flag_of(Dwarf_Die die, Dwarf_Half at, uint8_t how)
{
	return how == DI_FLAG_YES || (how == DI_FLAG_READ && di_attr_flag(die, at));
}

/* Name and external flag of a function or variable, following its
 * origin/specification as di_describe does, without reading its type. */
static void name_and_external(struct di_info *di, Dwarf_Die die, const struct di_abbrev *ab,
			      const char **name, bool *external)
{
	char *n = NULL;
	Dwarf_Error e = NULL;
	*name = dwarf_diename(die, &n, &e) == DW_DLV_OK ? di_strdup(di, n) : NULL;
	*external = flag_of(die, DW_AT_external, ab->external);
	Dwarf_Die cur = ab->origin ? di_origin_die(di, die) : NULL;
	for (int depth = 1; cur && depth < MAX_REF_DEPTH; depth++) {
		if (!*name && dwarf_diename(cur, &n, &e) == DW_DLV_OK)
			*name = di_strdup(di, n);
		*external |= di_attr_flag(cur, DW_AT_external);
		Dwarf_Die next = di_origin_die(di, cur);
		dwarf_dealloc_die(cur);
		cur = next;
	}
	if (cur)
		dwarf_dealloc_die(cur);
}

/* DW_AT_linkage_name of die or of its origin, or NULL. glibc names its
 * hidden aliases so (raise is __GI_raise); gdb's physname for C is that
 * name, and it is what gdb shows in frames. */
static const char *linkage_name(struct di_info *di, Dwarf_Die die, const struct di_abbrev *ab)
{
	const char *out = NULL;
	Dwarf_Die origin = ab->origin ? di_origin_die(di, die) : NULL;
	for (int i = 0; i < 2 && !out; i++) {
		Dwarf_Die d = i ? origin : die;
		Dwarf_Attribute a = d ? di_get_attr(d, DW_AT_linkage_name) : NULL;
		char *n = NULL;
		Dwarf_Error e = NULL;
		if (a && dwarf_formstring(a, &n, &e) == DW_DLV_OK && n && n[0])
			out = di_strdup(di, n);
		if (a)
			dwarf_dealloc_attribute(a);
	}
	if (origin)
		dwarf_dealloc_die(origin);
	return out;
}

/* What di_open notes of a function (not a declaration): name, ranges,
 * entry, unit. False if die has no code (an abstract instance, or code the
 * linker discarded). */
bool di_func_note(struct di_info *di, Dwarf_Die die, struct di_cu *cu,
		      const struct di_abbrev *ab, struct di_func *f)
{
	Dwarf_Addr lo = 0, hi = 0;
	Dwarf_Half form = 0;
	enum Dwarf_Form_Class cls;
	Dwarf_Error e = NULL;
	memset(f, 0, sizeof(*f));
	if (dwarf_lowpc(die, &lo, &e) == DW_DLV_OK &&
	    dwarf_highpc_b(die, &hi, &form, &cls, &e) == DW_DLV_OK) {
		if (cls == DW_FORM_CLASS_CONSTANT)
			hi += lo;
		if (lo >= hi || lo == 0)    /* as dwcu_ranges */
			return false;
		f->ranges = di_alloc(di, sizeof(*f->ranges));
		f->ranges[0] = (struct di_range){ lo, hi };
		f->nranges = 1;
		f->lo = lo;
		f->hi = hi;
	} else {
		f->nranges = di_ranges_of(di, die, cu ? cu->base : 0, &f->ranges);
		if (!f->nranges)
			return false;
		di_func_entry(die, f);
	}
	name_and_external(di, die, ab, &f->name, &f->external);
	const char *ln = linkage_name(di, die, ab);
	if (ln)
		f->name = ln;
	f->cu_name = cu ? cu->name : NULL;
	return true;
}

/* ---- the index di_open builds ---- */

struct di_static *di_new_static(struct di_info *di, enum di_static_kind kind,
				    const char *name)
{
	struct di_static *s = di_alloc(di, sizeof(*s));
	s->kind = kind;
	s->seq = di->nstatics++;
	s->var.name = name;
	s->var.is_static = true;
	if (name) {
		s->next = hmap_sget(&di->statics, name);
		hmap_sput(&di->statics, name, s);
	}
	return s;
}

/* An abstract instance in cu: a function inlined there. */
static void index_origin(struct di_info *di, struct di_cu *cu, Dwarf_Die die,
			 const struct di_abbrev *ab)
{
	const char *name;
	bool external;
	name_and_external(di, die, ab, &name, &external);
	struct di_origin *head = name ? hmap_sget(&di->origins, name) : NULL;
	if (!name || (head && head->cu == cu))
		return;
	struct di_origin *o = di_alloc(di, sizeof(*o));
	o->cu = cu;
	o->next = head;
	hmap_sput(&di->origins, name, o);
}

static void index_func(struct di_info *di, struct di_cu *cu, Dwarf_Die die,
		       const struct di_abbrev *ab)
{
	struct di_func f;
	if (!di_func_note(di, die, cu, ab, &f)) {
		if (cu->has_inlines)
			index_origin(di, cu, die, ab);
		return;
	}
	struct di_fent *fe = di_alloc(di, sizeof(*fe));
	fe->f = f;
	fe->s = (struct di_fstate){ .off = di_die_offset(die), .cu = cu, .ord = di->nfuncs };
	XGROW(di->funcs, di->capfuncs, di->nfuncs + 1);
	di->funcs[di->nfuncs++] = &fe->f;
}

static void index_var(struct di_info *di, struct di_cu *cu, Dwarf_Die die,
		      const struct di_abbrev *ab)
{
	const char *name;
	bool external;
	name_and_external(di, die, ab, &name, &external);
	struct di_static *s = di_new_static(di, DI_ST_VAR, name);
	s->var.external = external;
	s->off = di_die_offset(die);
	s->cu = cu;
}

/* The top-level DIEs of one unit into the index. */
static void index_cu_dies(struct di_info *di, struct di_cu *cu, Dwarf_Die cudie,
			  Dwarf_Off abbrev)
{
	cu->indexed = true;
	/* a hostile DIE ends the walk of its level (di_next): the DIEs
	 * before it stay usable */
	cu->has_inlines = dwcu_inlined_calls(di->dbg, abbrev, &cu->inlines_xcu);
	const struct di_abbrev *ab;
	/* dwcu_next_ok from the abbreviation: with DW_AT_sibling or without
	 * children (most of a unit's top level) libdwarf walks no subtree */
	for (Dwarf_Die c = di_child(cudie); c;
	     c = di_next_if(di, c, ab->sibling || !ab->children || dwcu_tree_ok(di->dbg, c))) {
		Dwarf_Half tag = di_tag(c);
		ab = abbrev_of(di, cu, c);
		/* Declarations ("extern int x;", prototypes): the definition
		 * has its own DIE somewhere. */
		bool decl = flag_of(c, DW_AT_declaration, ab->declaration);
		if (tag == DW_TAG_subprogram && !decl)
			index_func(di, cu, c, ab);
		else if (tag == DW_TAG_variable && !decl)
			index_var(di, cu, c, ab);
		else if (tag != DW_TAG_subprogram && tag != DW_TAG_variable)
			di_type_index(di, c, tag, decl);
	}
}

/* dwcu_each's callback: every unit is noted (name, ranges); its DIEs are
 * indexed too unless the index is lazy. */
static void index_cu(void *arg, Dwarf_Die cudie, Dwarf_Off abbrev)
{
	struct di_info *di = arg;
	struct di_cu *cu = di_cu_of(di, cudie);
	if (!cu)
		return;
	cu->abbrev_off = abbrev;
	if (!di->lazy)
		index_cu_dies(di, cu, cudie, abbrev);
}

static void index_unit(struct di_info *di, struct di_cu *cu)
{
	Dwarf_Die cudie = cu->indexed ? NULL : di_offdie(di, cu->off);
	cu->indexed = true;
	if (!cudie)
		return;
	index_cu_dies(di, cu, cudie, cu->abbrev_off);
	dwarf_dealloc_die(cudie);
}

static int cmp_func(const void *a, const void *b)
{
	const struct di_fent *x = *(const struct di_fent *const *)a;
	const struct di_fent *y = *(const struct di_fent *const *)b;
	if (x->f.lo != y->f.lo)
		return x->f.lo < y->f.lo ? -1 : 1;
	return x->s.ord < y->s.ord ? -1 : x->s.ord > y->s.ord;
}

/* Sort the functions by address, index their ranges and their names
 * (again, after units were added to the index). */
static void index_sort(struct di_info *di)
{
	size_t n = di->nfuncs;
	if (n == di->nsorted)
		return;
	di->nsorted = n;
	qsort(di->funcs, n, sizeof(*di->funcs), cmp_func);
	di->nfranges = 0;
	for (size_t i = 0; i < n; i++)
		di_add_franges(di, di->funcs[i]);
	for (size_t i = 0; i < di->nnested; i++)
		di_add_franges(di, &di->nested[i]->f);
	qsort(di->franges, di->nfranges, sizeof(*di->franges), di_cmp_frange);
	hmap_free(&di->func_names);
	for (size_t i = n; i-- > 0;) {   /* chains in address order */
		struct di_fent *fe = (struct di_fent *)di->funcs[i];
		if (!fe->f.name)
			continue;
		fe->s.next_named = hmap_sget(&di->func_names, fe->f.name);
		hmap_sput(&di->func_names, fe->f.name, fe);
	}
}

void di_index_pc(struct di_info *di, uint64_t pc)
{
	if (di->all_indexed)
		return;
	for (size_t i = 0; i < di->ncus; i++) {
		struct di_cu *cu = di->cus[i];
		if (!cu->indexed && di_ranges_cover(cu->ranges, cu->nranges, pc))
			index_unit(di, cu);
	}
	index_sort(di);
}

struct di_cu *di_index_unit_at(struct di_info *di, uint64_t off)
{
	struct di_cu *cu = hmap_get(&di->cu_by_off, off);
	if (cu && !cu->indexed) {
		index_unit(di, cu);
		index_sort(di);
	}
	return cu;
}

void di_index_all(struct di_info *di)
{
	if (di->all_indexed)
		return;
	di->all_indexed = true;
	/* (index_unit may add units met by reference: count as it goes) */
	for (size_t i = 0; i < di->ncus; i++)
		index_unit(di, di->cus[i]);
	index_sort(di);
}

struct di_info *di_from(struct dwcu_file *dw, bool lazy)
{
	struct di_info *di = xcalloc(1, sizeof(*di));
	di->dw = dwcu_file_get(dw);
	di->dbg = dw->dbg;
	di->lazy = lazy;
	if (di->dbg)
		dwcu_each(di->dbg, index_cu, di);
	/* Units met by reference while indexing (an origin in a later unit)
	 * were noted by di_cu_of but not indexed there: index them now. */
	if (!lazy)
		di_index_all(di);
	index_sort(di);
	return di;
}

bool di_index_complete(const struct di_info *di)
{
	return di->all_indexed;
}

struct di_info *di_open(const char *path, char *err, size_t errlen)
{
	struct dwcu_file *dw = dwcu_file_open(path, err, errlen);
	if (!dw)
		return NULL;
	struct di_info *di = di_from(dw, false);
	dwcu_file_put(dw);
	return di;
}

void di_close(struct di_info *di)
{
	if (!di)
		return;
	dwcu_file_put(di->dw);
	for (size_t i = 0; i < di->ncus; i++)   /* units live in the arena */
		free(di->cus[i]->abbrevs);
	for (struct di_arena_blk *b = di->arena, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	struct hmap *maps[] = { &di->types, &di->cu_by_off, &di->named, &di->paths,
				&di->statics, &di->func_names, &di->origins };
	for (size_t i = 0; i < ARRAY_LEN(maps); i++)
		hmap_free(maps[i]);
	free(di->funcs);
	free(di->nested);
	free(di->franges);
	free(di->enum_offs);
	free(di->cus);
	free(di->bases);
	free(di->alltypes);
	free(di);
}

