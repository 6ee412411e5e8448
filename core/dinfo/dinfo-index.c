/* dinfo-index: di_open and di_close. di_open reads only the top-level
 * DIEs of each unit (through what their abbreviations say they have) and
 * indexes functions by address and name, global variables, enum types and
 * type names; the rest waits for lookups. */
#include "dinfo-int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"

/* ---- what di_open reads of a DIE ---- */

static void read_abbrev(struct di_info *di, Dwarf_Die die, struct di_abbrev *a)
{
	Dwarf_Off off = 0;
	Dwarf_Unsigned count = 0, len = 0, nattr = 0;
	Dwarf_Abbrev ab = NULL;
	Dwarf_Error e = NULL;
	*a = (struct di_abbrev){ true, DI_FLAG_READ, DI_FLAG_READ, true };
	if (dwarf_die_abbrev_global_offset(die, &off, &count, &e) != DW_DLV_OK ||
	    dwarf_get_abbrev(di->dbg, off, &ab, &len, &nattr, &e) != DW_DLV_OK)
		return;
	struct di_abbrev got = { .known = true };
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
	}
	dwarf_dealloc(di->dbg, ab, DW_DLA_ABBREV);
	if (ok)
		*a = got;
}

/* The abbreviation facts of a DIE of cu, read once per code. */
static const struct di_abbrev *abbrev_of(struct di_info *di, struct di_cu *cu,
					 Dwarf_Die die)
{
	static const struct di_abbrev unknown = { true, DI_FLAG_READ, DI_FLAG_READ, true };
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
	for (int depth = 1; cur && depth < DI_MAX_REF_DEPTH; depth++) {
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
	f->cu_name = cu ? cu->name : NULL;
	return true;
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
		s->next = di_smap_get(&di->statics, name);
		di_smap_put(&di->statics, name, s);
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
	struct di_origin *head = name ? di_smap_get(&di->origins, name) : NULL;
	if (!name || (head && head->cu == cu))
		return;
	struct di_origin *o = di_alloc(di, sizeof(*o));
	o->cu = cu;
	o->next = head;
	di_smap_put(&di->origins, name, o);
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
	XGROW(di->funcs, di->capfuncs, di->nfuncs + 1);
	XGROW(di->fst, di->capfst, di->nfuncs + 1);
	di->funcs[di->nfuncs] = f;
	di->fst[di->nfuncs++] = (struct di_fstate){ .off = di_die_offset(die), .cu = cu,
						    .next_named = -1 };
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

static void index_cu(void *arg, Dwarf_Die cudie, Dwarf_Off abbrev)
{
	struct di_info *di = arg;
	/* A unit whose DIE tree libdwarf would choke on is left out whole:
	 * nothing of it is indexed, so nothing of it is read later. */
	if (!dwcu_tree_ok(di->dbg, cudie))
		return;
	struct di_cu *cu = di_cu_of(di, cudie);
	if (!cu)
		return;
	cu->has_inlines = dwcu_inlined_calls(di->dbg, abbrev, &cu->inlines_xcu);
	for (Dwarf_Die c = di_child(cudie); c; c = di_next(di, c)) {
		Dwarf_Half tag = di_tag(c);
		const struct di_abbrev *ab = abbrev_of(di, cu, c);
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

static const struct di_func *sort_base;

static int cmp_func_idx(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	uint64_t lx = sort_base[x].lo, ly = sort_base[y].lo;
	if (lx != ly)
		return lx < ly ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* Sort the functions by address, index their ranges and their names. */
static void index_funcs(struct di_info *di)
{
	size_t n = di->nfuncs;
	if (!n)
		return;
	size_t *ord = xmalloc(n * sizeof(*ord));
	for (size_t i = 0; i < n; i++)
		ord[i] = i;
	sort_base = di->funcs;
	qsort(ord, n, sizeof(*ord), cmp_func_idx);
	struct di_func *funcs = xmalloc(n * sizeof(*funcs));
	struct di_fstate *fst = xmalloc(n * sizeof(*fst));
	for (size_t i = 0; i < n; i++) {
		funcs[i] = di->funcs[ord[i]];
		fst[i] = di->fst[ord[i]];
	}
	free(ord);
	free(di->funcs);
	free(di->fst);
	di->funcs = funcs;
	di->fst = fst;
	di->capfuncs = di->capfst = n;
	for (size_t i = 0; i < n; i++)
		di_add_franges(di, &funcs[i]);
	qsort(di->franges, di->nfranges, sizeof(*di->franges), di_cmp_frange);
	for (size_t i = n; i-- > 0;) {   /* chains in address order */
		if (!funcs[i].name)
			continue;
		uintptr_t next = (uintptr_t)di_smap_get(&di->func_names, funcs[i].name);
		fst[i].next_named = (int)next - 1;
		di_smap_put(&di->func_names, funcs[i].name, (void *)(uintptr_t)(i + 1));
	}
}

static int check_elf(const char *path, char *err, size_t errlen)
{
	unsigned char magic[4];
	FILE *f = fopen(path, "rbe");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	size_t n = fread(magic, 1, sizeof magic, f);
	fclose(f);
	if (n != 4 || memcmp(magic, "\177ELF", 4)) {
		snprintf(err, errlen, "%s: not an ELF file", path);
		return -1;
	}
	return 0;
}

struct di_info *di_open(const char *path, char *err, size_t errlen)
{
	Dwarf_Error e = NULL;

	struct dwcu_lines sane = {0};
	if (check_elf(path, err, errlen) < 0 || dwcu_check_file(path, &sane, err, errlen) < 0)
		return NULL;
	struct di_info *di = xcalloc(1, sizeof(*di));
	di->sane = sane;
	int res = dwcu_init(path, &di->fd, &di->dbg, &e);
	if (res == DW_DLV_ERROR) {
		snprintf(err, errlen, "%s: %s", path, dwarf_errmsg(e));
		dwarf_dealloc(di->dbg, e, DW_DLA_ERROR);
		dwcu_lines_free(&di->sane);
		free(di);
		return NULL;
	}
	if (res == DW_DLV_OK)
		dwcu_each(di->dbg, index_cu, di);
	else
		di->dbg = NULL;
	index_funcs(di);
	return di;
}

void di_close(struct di_info *di)
{
	if (!di)
		return;
	if (di->dbg) {
		Dwarf_Error e = NULL;
		dwarf_finish(di->dbg, &e);
		close(di->fd);
	}
	dwcu_lines_free(&di->sane);
	for (size_t i = 0; i < di->ncus; i++)   /* units live in the arena */
		free(di->cus[i]->abbrevs);
	for (struct di_arena_blk *b = di->arena, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	struct di_omap *omaps[] = { &di->types, &di->cu_by_off };
	struct di_smap *smaps[] = { &di->named, &di->paths, &di->statics, &di->func_names,
				    &di->origins };
	for (size_t i = 0; i < ARRAY_LEN(omaps); i++) {
		free(omaps[i]->keys);
		free(omaps[i]->vals);
	}
	for (size_t i = 0; i < ARRAY_LEN(smaps); i++) {
		free(smaps[i]->keys);
		free(smaps[i]->vals);
	}
	free(di->funcs);
	free(di->fst);
	free(di->nested);
	free(di->franges);
	free(di->enum_offs);
	free(di->cus);
	free(di->bases);
	free(di->alltypes);
	free(di);
}
