/* dinfo: the DIEs of an ELF file, read with libdwarf into plain structs
 * (functions, scopes, variables, types) kept in one arena. di_open only
 * indexes the top-level DIEs of each unit (functions with their ranges,
 * global variables, type names); a function's parameters, scopes, inlined
 * calls and call sites are read when it is first looked up, a variable's
 * type and location likewise, so that start-up stays fast on large
 * programs. Types live in dinfo-type.c, location expressions and their
 * evaluation in dinfo-loc.c. */
#include "dinfo-int.h"
#include "dwcu.h"
#include "util/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ARENA_BLOCK (64 * 1024)
#define MAX_REF_DEPTH 8     /* origin/specification chains longer are bogus */
#define MAX_SCOPE_DEPTH 64

struct di_arena_blk {
	struct di_arena_blk *next;
	size_t used, cap;
	_Alignas(16) unsigned char data[];
};

/* A growing array of variables; origin[i] is the abstract DIE that var i
 * is a concrete instance of (0 if none). */
struct var_vec {
	struct di_var *v;
	Dwarf_Off *origin;
	size_t n, cap, capo;
};

struct scope_vec {
	struct di_scope *s;
	size_t n, cap;
};

struct inline_vec {
	struct di_inline *v;
	size_t n, cap;
};

/* Attributes of a DIE merged with those of its origin/specification. */
struct die_desc {
	const char *name;
	const struct di_type *type;
	bool has_type;
	const char *decl_file;
	int decl_line;
	bool external;
};

/* ---- arena, maps, interning ---- */

void *di_alloc(struct di_info *di, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	struct di_arena_blk *b = di->arena;
	if (!b || b->cap - b->used < n) {
		size_t cap = n > ARENA_BLOCK / 4 ? n : ARENA_BLOCK;
		b = xmalloc(sizeof(*b) + cap);
		b->used = 0;
		b->cap = cap;
		if (cap == n && di->arena) {   /* big: keep the current block */
			b->next = di->arena->next;
			di->arena->next = b;
		} else {
			b->next = di->arena;
			di->arena = b;
		}
	}
	void *p = b->data + b->used;
	b->used += n;
	memset(p, 0, n);
	return p;
}

void *di_memdup(struct di_info *di, const void *p, size_t n)
{
	void *q = di_alloc(di, n);
	if (n)
		memcpy(q, p, n);
	return q;
}

const char *di_strdup(struct di_info *di, const char *s)
{
	return s ? di_memdup(di, s, strlen(s) + 1) : NULL;
}

static uint64_t hash_u64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	return k ^ (k >> 33);
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static size_t omap_slot(const struct di_omap *m, uint64_t key)
{
	size_t i = hash_u64(key) & (m->cap - 1);
	while (m->vals[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

void *di_omap_get(const struct di_omap *m, uint64_t key)
{
	return m->cap ? m->vals[omap_slot(m, key)] : NULL;
}

void di_omap_put(struct di_omap *m, uint64_t key, void *val)
{
	if ((m->n + 1) * 2 > m->cap) {
		struct di_omap big = { .cap = m->cap ? m->cap * 2 : 256 };
		big.keys = xcalloc(big.cap, sizeof(*big.keys));
		big.vals = xcalloc(big.cap, sizeof(*big.vals));
		for (size_t i = 0; i < m->cap; i++)
			if (m->vals[i])
				di_omap_put(&big, m->keys[i], m->vals[i]);
		free(m->keys);
		free(m->vals);
		*m = big;
	}
	size_t i = omap_slot(m, key);
	m->n += !m->vals[i];
	m->keys[i] = key;
	m->vals[i] = val;
}

static size_t smap_slot(const struct di_smap *m, const char *key)
{
	size_t i = hash_str(key) & (m->cap - 1);
	while (m->keys[i] && strcmp(m->keys[i], key))
		i = (i + 1) & (m->cap - 1);
	return i;
}

void *di_smap_get(const struct di_smap *m, const char *key)
{
	return m->cap ? m->vals[smap_slot(m, key)] : NULL;
}

void di_smap_put(struct di_smap *m, const char *key, void *val)
{
	if ((m->n + 1) * 2 > m->cap) {
		struct di_smap big = { .cap = m->cap ? m->cap * 2 : 64 };
		big.keys = xcalloc(big.cap, sizeof(*big.keys));
		big.vals = xcalloc(big.cap, sizeof(*big.vals));
		for (size_t i = 0; i < m->cap; i++)
			if (m->keys[i])
				di_smap_put(&big, m->keys[i], m->vals[i]);
		free(m->keys);
		free(m->vals);
		*m = big;
	}
	size_t i = smap_slot(m, key);
	m->n += !m->keys[i];
	m->keys[i] = key;
	m->vals[i] = val;
}

/* Same normalisation as lines.c, so that paths compare equal as strings:
 * drop "." components and doubled slashes. */
static char *path_normalise(const char *p)
{
	struct sbuf b = {0};
	if (p[0] == '/')
		sbuf_addc(&b, '/');
	while (*p) {
		while (*p == '/')
			p++;
		size_t n = strcspn(p, "/");
		if (n && !(n == 1 && p[0] == '.')) {
			if (b.len && b.s[b.len - 1] != '/')
				sbuf_addc(&b, '/');
			sbuf_addn(&b, p, n);
		}
		p += n;
	}
	return sbuf_take(&b);
}

const char *di_intern_path(struct di_info *di, const char *path)
{
	char *norm = path_normalise(path);
	const char *old = di_smap_get(&di->paths, norm);
	if (!old) {
		old = di_strdup(di, norm);
		di_smap_put(&di->paths, old, (void *)old);
	}
	free(norm);
	return old;
}

/* ---- libdwarf helpers ---- */

static Dwarf_Attribute get_attr(Dwarf_Die die, Dwarf_Half at)
{
	Dwarf_Attribute a = NULL;
	Dwarf_Error e = NULL;
	return dwarf_attr(die, at, &a, &e) == DW_DLV_OK ? a : NULL;
}

static Dwarf_Half attr_form(Dwarf_Attribute a)
{
	Dwarf_Half form = 0;
	Dwarf_Error e = NULL;
	dwarf_whatform(a, &form, &e);
	return form;
}

/* implicit_const and sdata only read as signed, the rest as unsigned;
 * asking the wrong way costs a libdwarf error object each time. */
static bool form_signed(Dwarf_Half form)
{
	return form == DW_FORM_sdata || form == DW_FORM_implicit_const;
}

int di_attr_u64(Dwarf_Die die, Dwarf_Half at, uint64_t *out)
{
	Dwarf_Attribute a = get_attr(die, at);
	Dwarf_Unsigned u;
	Dwarf_Signed s;
	Dwarf_Error e = NULL;
	int r = -1;
	if (!a)
		return -1;
	if (form_signed(attr_form(a))) {
		if (dwarf_formsdata(a, &s, &e) == DW_DLV_OK) {
			*out = (uint64_t)s;
			r = 0;
		}
	} else if (dwarf_formudata(a, &u, &e) == DW_DLV_OK) {
		*out = u;
		r = 0;
	}
	dwarf_dealloc_attribute(a);
	return r;
}

/* As gcc and gdb use the forms: dataN holds the value's bits (unsigned),
 * only sdata and implicit_const are signed. */
int di_attr_s64(Dwarf_Die die, Dwarf_Half at, int64_t *out)
{
	uint64_t v;
	int r = di_attr_u64(die, at, &v);
	if (!r)
		*out = (int64_t)v;
	return r;
}

int di_attr_ref(Dwarf_Die die, Dwarf_Half at, Dwarf_Off *out)
{
	Dwarf_Attribute a = get_attr(die, at);
	Dwarf_Error e = NULL;
	if (!a)
		return -1;
	int r = dwarf_global_formref(a, out, &e) == DW_DLV_OK ? 0 : -1;
	dwarf_dealloc_attribute(a);
	return r;
}

bool di_attr_flag(Dwarf_Die die, Dwarf_Half at)
{
	Dwarf_Attribute a = get_attr(die, at);
	Dwarf_Bool b = 0;
	Dwarf_Error e = NULL;
	if (!a)
		return false;
	if (dwarf_formflag(a, &b, &e) != DW_DLV_OK)
		b = 0;
	dwarf_dealloc_attribute(a);
	return b;
}

Dwarf_Die di_offdie(struct di_info *di, Dwarf_Off off)
{
	Dwarf_Die d = NULL;
	Dwarf_Error e = NULL;
	return dwarf_offdie_b(di->dbg, off, 1, &d, &e) == DW_DLV_OK ? d : NULL;
}

Dwarf_Half di_tag(Dwarf_Die die)
{
	Dwarf_Half tag = 0;
	Dwarf_Error e = NULL;
	dwarf_tag(die, &tag, &e);
	return tag;
}

Dwarf_Die di_child(Dwarf_Die die)
{
	Dwarf_Die c = NULL;
	Dwarf_Error e = NULL;
	return dwarf_child(die, &c, &e) == DW_DLV_OK ? c : NULL;
}

static Dwarf_Off die_offset(Dwarf_Die die)
{
	Dwarf_Off off = 0;
	Dwarf_Error e = NULL;
	dwarf_dieoffset(die, &off, &e);
	return off;
}

Dwarf_Die di_next(struct di_info *di, Dwarf_Die die)
{
	Dwarf_Die s = NULL;
	Dwarf_Error e = NULL;
	int r = dwarf_siblingof_b(di->dbg, die, 1, &s, &e);
	/* A corrupt DW_AT_sibling pointing backwards would loop forever. */
	if (r == DW_DLV_OK && die_offset(s) <= die_offset(die)) {
		dwarf_dealloc_die(s);
		r = DW_DLV_NO_ENTRY;
	}
	dwarf_dealloc_die(die);
	return r == DW_DLV_OK ? s : NULL;
}

/* The DIE this one completes: its abstract origin or specification. */
static Dwarf_Die origin_die(struct di_info *di, Dwarf_Die die)
{
	Dwarf_Off off;
	if (di_attr_ref(die, DW_AT_abstract_origin, &off) &&
	    di_attr_ref(die, DW_AT_specification, &off))
		return NULL;
	return di_offdie(di, off);
}

const char *di_die_name(struct di_info *di, Dwarf_Die die)
{
	Dwarf_Die cur = die;
	const char *name = NULL;
	for (int depth = 0; cur && !name && depth < MAX_REF_DEPTH; depth++) {
		char *n = NULL;
		Dwarf_Error e = NULL;
		if (dwarf_diename(cur, &n, &e) == DW_DLV_OK)
			name = di_strdup(di, n);
		Dwarf_Die next = name ? NULL : origin_die(di, cur);
		if (cur != die)
			dwarf_dealloc_die(cur);
		cur = next;
	}
	if (cur && cur != die)
		dwarf_dealloc_die(cur);
	return name;
}

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
	if (dwcu_files_ok(&di->sane, cudie) && dwarf_srcfiles(cudie, &files, &n, &e) == DW_DLV_OK) {
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

static size_t ranges_of(struct di_info *di, Dwarf_Die die, uint64_t base,
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
	Dwarf_Attribute a = get_attr(cudie, DW_AT_comp_dir);
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
	cu->nranges = ranges_of(di, cudie, cu->base, &cu->ranges);
	XGROW(di->cus, di->capcus, di->ncus + 1);
	di->cus[di->ncus++] = cu;
	di_omap_put(&di->cu_by_off, off, cu);
	return cu;
}

/* The CU of any DIE, loading it if a reference led into one not yet read. */
static struct di_cu *cu_of(struct di_info *di, Dwarf_Die die)
{
	Dwarf_Off off = 0;
	Dwarf_Error e = NULL;
	if (dwarf_CU_dieoffset_given_die(die, &off, &e) != DW_DLV_OK)
		return di->last_cu;
	if (di->last_cu && di->last_cu->off == off)
		return di->last_cu;
	struct di_cu *cu = di_omap_get(&di->cu_by_off, off);
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
static const char *file_attr(struct di_info *di, Dwarf_Die die, Dwarf_Half at)
{
	uint64_t idx;
	struct di_cu *cu;
	if (di_attr_u64(die, at, &idx) || !(cu = cu_of(di, die)))
		return NULL;
	if (!cu->files_read)
		cu_read_files(di, cu);
	idx -= (uint64_t)cu->file_base;
	return idx < cu->nfiles ? cu->files[idx] : NULL;
}

/* ---- DIE descriptions, ranges ---- */

static void describe_one(struct di_info *di, Dwarf_Die die, struct die_desc *d)
{
	char *n = NULL;
	Dwarf_Error e = NULL;
	uint64_t line;
	if (!d->name && dwarf_diename(die, &n, &e) == DW_DLV_OK)
		d->name = di_strdup(di, n);
	if (!d->has_type) {
		Dwarf_Bool has = 0;
		dwarf_hasattr(die, DW_AT_type, &has, &e);
		if (has) {
			d->type = di_type_of(di, die);
			d->has_type = true;
		}
	}
	if (!d->decl_file)
		d->decl_file = file_attr(di, die, DW_AT_decl_file);
	if (!d->decl_line && !di_attr_u64(die, DW_AT_decl_line, &line))
		d->decl_line = (int)line;
	d->external |= di_attr_flag(die, DW_AT_external);
}

static void describe(struct di_info *di, Dwarf_Die die, struct die_desc *d)
{
	memset(d, 0, sizeof(*d));
	Dwarf_Die cur = die;
	for (int depth = 0; cur && depth < MAX_REF_DEPTH; depth++) {
		describe_one(di, cur, d);
		Dwarf_Die next = origin_die(di, cur);
		if (cur != die)
			dwarf_dealloc_die(cur);
		cur = next;
	}
	if (cur && cur != die)
		dwarf_dealloc_die(cur);
}

/* The pc ranges of a DIE, from low_pc/high_pc or DW_AT_ranges, copied to
 * the arena. */
static size_t read_ranges(struct di_info *di, Dwarf_Die die, struct di_range **out)
{
	struct di_cu *cu = cu_of(di, die);
	return ranges_of(di, die, cu ? cu->base : 0, out);
}

static bool form_is_addr(Dwarf_Half form)
{
	return form == DW_FORM_addr || form == DW_FORM_addrx || form == DW_FORM_addrx1 ||
	       form == DW_FORM_addrx2 || form == DW_FORM_addrx3 || form == DW_FORM_addrx4 ||
	       form == DW_FORM_GNU_addr_index;
}

/* DW_AT_entry_pc is an address, or since DWARF 5 it may be a constant:
 * an offset from base, the entity's lowest address. The form decides,
 * since asking libdwarf the wrong way costs an error object. */
/* An address-class attribute (DW_FORM_addr, addrx...); -1 if absent or
 * of another class. */
static int attr_addr(Dwarf_Die die, Dwarf_Half at, uint64_t *out)
{
	Dwarf_Attribute a = get_attr(die, at);
	Dwarf_Addr addr = 0;
	Dwarf_Error e = NULL;
	int r = -1;
	if (!a)
		return -1;
	if (form_is_addr(attr_form(a)) && dwarf_formaddr(a, &addr, &e) == DW_DLV_OK) {
		*out = addr;
		r = 0;
	}
	dwarf_dealloc_attribute(a);
	return r;
}

static int read_entry_pc(Dwarf_Die die, uint64_t base, uint64_t *out)
{
	if (!attr_addr(die, DW_AT_entry_pc, out))
		return 0;
	if (di_attr_u64(die, DW_AT_entry_pc, out))
		return -1;
	*out += base;
	return 0;
}

static bool ranges_cover(const struct di_range *r, size_t n, uint64_t pc)
{
	for (size_t i = 0; i < n; i++)
		if (r[i].lo <= pc && pc < r[i].hi)
			return true;
	return false;
}

static uint64_t lowest_pc(const struct di_range *r, size_t n)
{
	uint64_t lo = n ? r[0].lo : 0;
	for (size_t i = 1; i < n; i++)
		if (r[i].lo < lo)
			lo = r[i].lo;
	return lo;
}

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
	Dwarf_Attribute a = get_attr(die, DW_AT_const_value);
	Dwarf_Error e = NULL;
	Dwarf_Block *blk = NULL;
	char *str = NULL;
	Dwarf_Form_Data16 d16;
	if (!a)
		return;
	Dwarf_Half form = attr_form(a);
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

static void parse_var(struct di_info *di, Dwarf_Die die, bool param, struct di_var *v)
{
	struct die_desc d;
	describe(di, die, &d);
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
	parse_var(di, die, param, v);
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
static void inherit_vars(struct di_info *di, Dwarf_Die die, struct var_vec *vec,
			 Dwarf_Half tag)
{
	Dwarf_Off off;
	if (di_attr_ref(die, DW_AT_abstract_origin, &off))
		return;
	Dwarf_Die abs = di_offdie(di, off);
	if (!abs)
		return;
	for (Dwarf_Die c = di_child(abs); c; c = di_next(di, c)) {
		if (di_tag(c) != tag || vec_has_origin(vec, die_offset(c)))
			continue;
		size_t i = vec->n;
		add_var(di, vec, c, tag == DW_TAG_formal_parameter);
		vec->origin[i] = die_offset(c);
	}
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
	inherit_vars(di, die, params, DW_TAG_formal_parameter);
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
	s.nranges = read_ranges(di, die, &s.ranges);
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
	describe(di, die, &d);      /* name and declaration of the origin */
	in->name = d.name;
	in->decl_file = d.decl_file;
	in->decl_line = d.decl_line;
	in->call_file = file_attr(di, die, DW_AT_call_file);
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

	in.nranges = read_ranges(di, die, &in.ranges);
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

/* Call sites let entry values (DW_OP_entry_value) of a callee's
 * parameters be found in its caller, as gdb does. */
static void add_callsite(struct di_info *di, Dwarf_Die die)
{
	struct di_callsite cs = {0};
	Dwarf_Addr lo;
	Dwarf_Error e = NULL;
	if (attr_addr(die, DW_AT_call_return_pc, &cs.return_pc)) {
		if (dwarf_lowpc(die, &lo, &e) != DW_DLV_OK)
			return;   /* DW_TAG_GNU_call_site: low_pc is the return pc */
		cs.return_pc = lo;
	}
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

static void parse_scope(struct di_info *di, Dwarf_Die die, struct var_vec *params,
			struct inline_vec *inl, struct di_scope *s, int depth)
{
	struct var_vec vars = {0};
	struct scope_vec kids = {0};

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
			add_block(di, c, &kids, inl, depth);
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
			di_type_visit(di, c);
			break;
		}
	}
	inherit_vars(di, die, &vars, DW_TAG_variable);
	free(vars.origin);
	s->vars = vec_finish(di, vars.v, vars.n, sizeof(*vars.v));
	s->nvars = vars.n;
	s->children = vec_finish(di, kids.s, kids.n, sizeof(*kids.s));
	s->nchildren = kids.n;
}

static void func_entry(Dwarf_Die die, struct di_func *f)
{
	Dwarf_Addr lo = 0;
	Dwarf_Error e = NULL;
	uint64_t entry;
	f->lo = f->ranges[0].lo;
	if (dwarf_lowpc(die, &lo, &e) == DW_DLV_OK)
		f->lo = lo;
	else if (!read_entry_pc(die, lowest_pc(f->ranges, f->nranges), &entry))
		f->lo = entry;
	f->hi = f->ranges[0].hi;
	for (size_t i = 0; i < f->nranges; i++)
		if (f->ranges[i].lo <= f->lo && f->lo < f->ranges[i].hi)
			f->hi = f->ranges[i].hi;
}

/* The function as a value, gdb's {int (int, int)}: "prototyped" and "..."
 * come from the DIE or its abstract origin; unprototyped is "()". */
static const struct di_type *func_type(struct di_info *di, Dwarf_Die die,
				       const struct di_func *f)
{
	struct di_type *t = di_alloc(di, sizeof(*t));
	const struct di_type **ps = di_alloc(di, (f->nparams + 1) * sizeof(*ps));
	bool prototyped = false;
	t->kind = DI_FUNC;
	t->size = 1;
	t->target = f->ret;
	for (size_t i = 0; i < f->nparams; i++)
		ps[i] = f->params[i].type;
	t->params = ps;
	t->nparams = f->nparams;
	Dwarf_Die cur = die;
	for (int depth = 0; cur && depth < MAX_REF_DEPTH; depth++) {
		prototyped |= di_attr_flag(cur, DW_AT_prototyped);
		for (Dwarf_Die c = di_child(cur); c; c = di_next(di, c))
			t->varargs |= di_tag(c) == DW_TAG_unspecified_parameters;
		Dwarf_Die next = origin_die(di, cur);
		if (cur != die)
			dwarf_dealloc_die(cur);
		cur = next;
	}
	if (cur && cur != die)
		dwarf_dealloc_die(cur);
	t->varargs |= !prototyped && !f->nparams;
	return t;
}

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
 * origin/specification as describe does, without reading its type. */
static void name_and_external(struct di_info *di, Dwarf_Die die, const struct di_abbrev *ab,
			      const char **name, bool *external)
{
	char *n = NULL;
	Dwarf_Error e = NULL;
	*name = dwarf_diename(die, &n, &e) == DW_DLV_OK ? di_strdup(di, n) : NULL;
	*external = flag_of(die, DW_AT_external, ab->external);
	Dwarf_Die cur = ab->origin ? origin_die(di, die) : NULL;
	for (int depth = 1; cur && depth < MAX_REF_DEPTH; depth++) {
		if (!*name && dwarf_diename(cur, &n, &e) == DW_DLV_OK)
			*name = di_strdup(di, n);
		*external |= di_attr_flag(cur, DW_AT_external);
		Dwarf_Die next = origin_die(di, cur);
		dwarf_dealloc_die(cur);
		cur = next;
	}
	if (cur)
		dwarf_dealloc_die(cur);
}

/* What di_open notes of a function (not a declaration): name, ranges,
 * entry, unit. False if die has no code (an abstract instance, or code the
 * linker discarded). */
static bool func_note(struct di_info *di, Dwarf_Die die, struct di_cu *cu,
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
		f->nranges = ranges_of(di, die, cu ? cu->base : 0, &f->ranges);
		if (!f->nranges)
			return false;
		func_entry(die, f);
	}
	name_and_external(di, die, ab, &f->name, &f->external);
	f->cu_name = cu ? cu->name : NULL;
	return true;
}

static const struct di_static *find_static(struct di_info *di, const char *name,
					   const char *cu_file);

static void resolve_externs(struct di_info *di, struct di_scope *s)
{
	for (size_t i = 0; i < s->nvars; i++) {
		struct di_var *v = &s->vars[i];
		if (!v->external || v->nlocs || v->has_const || !v->name)
			continue;
		const struct di_static *def = find_static(di, v->name, NULL);
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

/* Read the rest of a function noted by func_note: return type,
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

	describe(di, die, &d);
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

static struct di_fstate *fstate_of(const struct di_info *di, const struct di_func *f)
{
	uintptr_t p = (uintptr_t)f, lo = (uintptr_t)di->funcs;
	if (di->nfuncs && p >= lo && p < (uintptr_t)(di->funcs + di->nfuncs))
		return &di->fst[f - di->funcs];
	return &((struct di_nested *)(uintptr_t)f)->s;   /* f is its first member */
}

static void func_expand(struct di_info *di, const struct di_func *f)
{
	struct di_fstate *st = fstate_of(di, f);
	if (st->expanded)
		return;
	st->expanded = true;
	Dwarf_Die die = di_offdie(di, st->off);
	if (!die)
		return;
	func_read(di, die, (struct di_func *)(uintptr_t)f, st);
	dwarf_dealloc_die(die);
}

static int cmp_frange(const void *a, const void *b)
{
	const struct di_func_range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static void add_franges(struct di_info *di, const struct di_func *f)
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
	static const struct di_abbrev any = { true, DI_FLAG_READ, DI_FLAG_READ, true };
	struct di_func f;
	struct di_cu *cu = cu_of(di, die);
	if (di_attr_flag(die, DW_AT_declaration) || !func_note(di, die, cu, &any, &f))
		return;
	struct di_nested *n = di_alloc(di, sizeof(*n));
	n->f = f;
	n->s.off = die_offset(die);
	n->s.cu = cu;
	n->s.expanded = true;
	n->s.next_named = -1;
	XGROW(di->nested, di->capnested, di->nnested + 1);
	di->nested[di->nnested++] = n;
	add_franges(di, &n->f);
	qsort(di->franges, di->nfranges, sizeof(*di->franges), cmp_frange);
	func_read(di, die, &n->f, &n->s);
}

/* Expand every function of cu (finding its nested functions). */
static void cu_expand(struct di_info *di, struct di_cu *cu)
{
	if (cu->expanded)
		return;
	cu->expanded = true;
	for (size_t i = 0; i < di->nfuncs; i++)
		if (di->fst[i].cu == cu)
			func_expand(di, &di->funcs[i]);
}

/* ---- the index di_open builds ---- */

static struct di_static *new_static(struct di_info *di, enum di_static_kind kind,
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
	if (!func_note(di, die, cu, ab, &f)) {
		if (cu->has_inlines)
			index_origin(di, cu, die, ab);
		return;
	}
	XGROW(di->funcs, di->capfuncs, di->nfuncs + 1);
	XGROW(di->fst, di->capfst, di->nfuncs + 1);
	di->funcs[di->nfuncs] = f;
	di->fst[di->nfuncs++] = (struct di_fstate){ .off = die_offset(die), .cu = cu,
						    .next_named = -1 };
}

static void index_var(struct di_info *di, struct di_cu *cu, Dwarf_Die die,
		      const struct di_abbrev *ab)
{
	const char *name;
	bool external;
	name_and_external(di, die, ab, &name, &external);
	struct di_static *s = new_static(di, DI_ST_VAR, name);
	s->var.external = external;
	s->off = die_offset(die);
	s->cu = cu;
}

static void index_cu(void *arg, Dwarf_Die cudie, Dwarf_Off abbrev)
{
	struct di_info *di = arg;
	/* A unit whose DIE tree libdwarf would choke on is left out whole:
	 * nothing of it is indexed, so nothing of it is read later. */
	if (!dwcu_tree_ok(di->dbg, cudie))
		return;
	struct di_cu *cu = cu_of(di, cudie);
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
		add_franges(di, &funcs[i]);
	qsort(di->franges, di->nfranges, sizeof(*di->franges), cmp_frange);
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

/* ---- lookups ---- */

static const struct di_func *func_at(const struct di_info *di, uint64_t pc)
{
	size_t lo = 0, hi = di->nfranges;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (di->franges[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
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
		if (!cu->expanded && ranges_cover(cu->ranges, cu->nranges, pc)) {
			cu_expand(di, cu);
			any = true;
		}
	}
	return any;
}

const struct di_func *di_func_at(const struct di_info *cdi, uint64_t pc)
{
	struct di_info *di = (struct di_info *)cdi;   /* see struct di_info */
	const struct di_func *f = func_at(di, pc);
	if (!f && expand_cu_at(di, pc))
		f = func_at(di, pc);
	if (f)
		func_expand(di, f);
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
	uintptr_t first = (uintptr_t)di_smap_get(&di->func_names, name);
	for (int i = (int)first - 1; i >= 0; i = di->fst[i].next_named)
		if (better_func(&di->funcs[i], best))
			best = &di->funcs[i];
	for (size_t i = 0; i < di->nnested; i++) {
		const struct di_func *f = &di->nested[i]->f;
		if (f->name && !strcmp(f->name, name) && better_func(f, best))
			best = f;
	}
	if (best)
		func_expand(di, best);
	return best;
}

const struct di_func *di_funcs(const struct di_info *di, size_t *n)
{
	*n = di->nfuncs;
	return di->funcs;
}

const struct di_func *di_func_expand(const struct di_info *di, const struct di_func *f)
{
	func_expand((struct di_info *)di, f);
	return f;
}

static const struct di_callsite *callsite_in(const struct di_info *di,
					    const struct di_func *f, uint64_t return_pc)
{
	const struct di_fstate *st = fstate_of(di, f);
	size_t lo = 0, hi = st->ncalls;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (st->calls[mid].return_pc < return_pc)
			lo = mid + 1;
		else
			hi = mid;
	}
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
	parse_var(di, die, false, &s->var);
	s->var.is_static = true;
	dwarf_dealloc_die(die);
}

/* A function as a variable at its entry (DW_OP_addr), so that print mul
 * and print &mul find it. */
static struct di_static *func_static(struct di_info *di, const struct di_func *f,
				     uint64_t seq)
{
	struct di_fstate *st = fstate_of(di, f);
	if (st->as_static)
		return st->as_static;
	func_expand(di, f);
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
		struct di_static *s = new_static(di, DI_ST_ENUM, t->enums[j].name);
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

static const struct di_static *find_static(struct di_info *di, const char *name,
					   const char *cu_file)
{
	const struct di_static *best = NULL;
	int best_r = -1;
	if (!di->enums_read)
		read_enums(di);
	for (struct di_static *s = di_smap_get(&di->statics, name); s; s = s->next) {
		static_expand(di, s);
		rank_static(s, cu_file, &best, &best_r);
	}
	uintptr_t first = (uintptr_t)di_smap_get(&di->func_names, name);
	for (int i = (int)first - 1; i >= 0; i = di->fst[i].next_named)
		rank_static(func_static(di, &di->funcs[i], (uint64_t)i), cu_file,
			    &best, &best_r);
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
	const struct di_static *s = find_static((struct di_info *)di, name, cu_file);
	return s ? &s->var : NULL;
}

bool di_scope_covers(const struct di_scope *s, uint64_t pc)
{
	return ranges_cover(s->ranges, s->nranges, pc);
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
	while (depth-- > 0)
		for (size_t i = chain[depth]->nvars; i-- > 0 && n < max;)
			out[n++] = &chain[depth]->vars[i];
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
size_t di_inline_instances(const struct di_info *cdi, const char *name,
			   const struct di_inline **out, size_t max)
{
	struct di_info *di = (struct di_info *)cdi;
	struct inline_list l = {0};
	if (!di->xcu_expanded) {
		di->xcu_expanded = true;
		for (size_t i = 0; i < di->ncus; i++)
			if (di->cus[i]->has_inlines && di->cus[i]->inlines_xcu)
				cu_expand(di, di->cus[i]);
	}
	for (struct di_origin *o = di_smap_get(&di->origins, name); o; o = o->next)
		cu_expand(di, o->cu);
	for (size_t i = 0; i < di->nfuncs; i++)
		if (di->fst[i].expanded)
			match_inlines(di->funcs[i].inlines, di->funcs[i].ninlines, name, &l);
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
