/* dinfo: read every DIE of an ELF file once with libdwarf into plain
 * structs (functions, scopes, variables, types) kept in one arena, so that
 * nothing of libdwarf outlives di_open. Types live in dinfo-type.c, location
 * expressions and their evaluation in dinfo-loc.c. */
#include "dinfo-int.h"
#include "dwcu.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static void cu_read_files(struct di_info *di, struct di_cu *cu, Dwarf_Die cudie)
{
	char **files = NULL;
	Dwarf_Signed n = 0;
	Dwarf_Error e = NULL;
	if (dwarf_srcfiles(cudie, &files, &n, &e) != DW_DLV_OK)
		return;
	cu->files = di_alloc(di, (size_t)n * sizeof(*cu->files));
	cu->nfiles = (size_t)n;
	for (Dwarf_Signed i = 0; i < n; i++) {
		cu->files[i] = di_intern_path(di, files[i]);
		dwarf_dealloc(di->dbg, files[i], DW_DLA_STRING);
	}
	dwarf_dealloc(di->dbg, files, DW_DLA_LIST);
}

static struct di_cu *cu_load(struct di_info *di, Dwarf_Die cudie, Dwarf_Off off)
{
	struct di_cu *cu = di_alloc(di, sizeof(*cu));
	Dwarf_Half ver = 0, offsz = 0;
	Dwarf_Addr low = 0;
	Dwarf_Error e = NULL;
	char *name = NULL, *dir = NULL;

	cu->off = off;
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
	cu_read_files(di, cu, cudie);
	XGROW(di->cus, di->capcus, di->ncus + 1);
	di->cus[di->ncus++] = cu;
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
	for (size_t i = di->ncus; i-- > 0;)
		if (di->cus[i]->off == off)
			return di->last_cu = di->cus[i];
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

static void add_range(struct di_range **r, size_t *n, size_t *cap,
		      uint64_t lo, uint64_t hi)
{
	/* Empty ranges and code the linker threw away (address 0). */
	if (lo >= hi || lo == 0)
		return;
	XGROW(*r, *cap, *n + 1);
	(*r)[(*n)++] = (struct di_range){ lo, hi };
}

static void ranges_v5(Dwarf_Attribute a, struct di_range **r, size_t *n, size_t *cap)
{
	Dwarf_Half form = attr_form(a);
	Dwarf_Unsigned val = 0, count = 0, goff = 0;
	Dwarf_Off off = 0;
	Dwarf_Rnglists_Head head = NULL;
	Dwarf_Error e = NULL;

	if (form == DW_FORM_rnglistx) {
		if (dwarf_formudata(a, &val, &e) != DW_DLV_OK)
			return;
	} else if (dwarf_global_formref(a, &off, &e) == DW_DLV_OK) {
		val = off;
	} else {
		return;
	}
	if (dwarf_rnglists_get_rle_head(a, form, val, &head, &count, &goff, &e) != DW_DLV_OK)
		return;
	for (Dwarf_Unsigned i = 0; i < count; i++) {
		unsigned len = 0, code = 0;
		Dwarf_Unsigned r1, r2, lo = 0, hi = 0;
		Dwarf_Bool unavail = 0;
		if (dwarf_get_rnglists_entry_fields_a(head, i, &len, &code, &r1, &r2,
						      &unavail, &lo, &hi, &e) != DW_DLV_OK)
			break;
		if (!unavail && (code == DW_RLE_offset_pair || code == DW_RLE_start_end ||
				 code == DW_RLE_start_length || code == DW_RLE_startx_endx ||
				 code == DW_RLE_startx_length))
			add_range(r, n, cap, lo, hi);
	}
	dwarf_dealloc_rnglists_head(head);
}

static void ranges_v4(struct di_info *di, Dwarf_Die die, Dwarf_Attribute a,
		      struct di_range **r, size_t *n, size_t *cap)
{
	Dwarf_Off off = 0, real = 0;
	Dwarf_Ranges *rl = NULL;
	Dwarf_Signed cnt = 0;
	Dwarf_Unsigned bytes = 0;
	Dwarf_Error e = NULL;
	struct di_cu *cu = cu_of(di, die);
	uint64_t base = cu ? cu->base : 0;

	if (dwarf_global_formref(a, &off, &e) != DW_DLV_OK ||
	    dwarf_get_ranges_b(di->dbg, off, die, &real, &rl, &cnt, &bytes, &e) != DW_DLV_OK)
		return;
	for (Dwarf_Signed i = 0; i < cnt; i++) {
		if (rl[i].dwr_type == DW_RANGES_END)
			break;
		if (rl[i].dwr_type == DW_RANGES_ADDRESS_SELECTION)
			base = rl[i].dwr_addr2;
		else
			add_range(r, n, cap, base + rl[i].dwr_addr1, base + rl[i].dwr_addr2);
	}
	dwarf_ranges_dealloc(di->dbg, rl, cnt);
}

/* The pc ranges of a DIE, from low_pc/high_pc or DW_AT_ranges, copied to
 * the arena. */
static size_t read_ranges(struct di_info *di, Dwarf_Die die, struct di_range **out)
{
	struct di_range *r = NULL;
	size_t n = 0, cap = 0;
	Dwarf_Addr lo = 0, hi = 0;
	Dwarf_Half form = 0;
	enum Dwarf_Form_Class cls;
	Dwarf_Error e = NULL;

	if (dwarf_lowpc(die, &lo, &e) == DW_DLV_OK) {
		if (dwarf_highpc_b(die, &hi, &form, &cls, &e) == DW_DLV_OK) {
			if (cls == DW_FORM_CLASS_CONSTANT)
				hi += lo;
			add_range(&r, &n, &cap, lo, hi);
		}
	} else {
		Dwarf_Attribute a = get_attr(die, DW_AT_ranges);
		struct di_cu *cu = a ? cu_of(di, die) : NULL;
		if (a && cu && cu->version >= 5) {
			if (dwcu_list_ok(di->dbg, die, a, false))
				ranges_v5(a, &r, &n, &cap);
		}
		else if (a)
			ranges_v4(di, die, a, &r, &n, &cap);
		if (a)
			dwarf_dealloc_attribute(a);
	}
	*out = n ? di_memdup(di, r, n * sizeof(*r)) : NULL;
	free(r);
	return n;
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
static int read_entry_pc(Dwarf_Die die, uint64_t base, uint64_t *out)
{
	Dwarf_Attribute a = get_attr(die, DW_AT_entry_pc);
	Dwarf_Addr addr = 0;
	Dwarf_Error e = NULL;
	int r = -1;
	if (!a)
		return -1;
	if (form_is_addr(attr_form(a))) {
		if (dwarf_formaddr(a, &addr, &e) == DW_DLV_OK) {
			*out = addr;
			r = 0;
		}
	} else if (!di_attr_u64(die, DW_AT_entry_pc, out)) {
		*out += base;
		r = 0;
	}
	dwarf_dealloc_attribute(a);
	return r;
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

static void parse_func(struct di_info *di, Dwarf_Die die);

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
	uint64_t line, entry;
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
	(void)entry;
	in->entry_pc = in->nranges ? in->ranges[0].lo : lowest_pc(in->ranges, in->nranges);
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

/* An address-class attribute (DW_FORM_addr or addrx). */
static int attr_addr(Dwarf_Die die, Dwarf_Half at, uint64_t *out)
{
	Dwarf_Attribute a;
	Dwarf_Addr v;
	Dwarf_Error e = NULL;
	if (dwarf_attr(die, at, &a, &e) != DW_DLV_OK)
		return -1;
	int r = dwarf_formaddr(a, &v, &e) == DW_DLV_OK ? 0 : -1;
	dwarf_dealloc_attribute(a);
	if (!r)
		*out = v;
	return r;
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
	XGROW(di->calls, di->capcalls, di->ncalls + 1);
	di->calls[di->ncalls++] = cs;
}

static int cmp_callsite(const void *a, const void *b)
{
	const struct di_callsite *x = a, *y = b;
	return x->return_pc < y->return_pc ? -1 : x->return_pc > y->return_pc;
}

const struct di_callsite *di_callsite_at(const struct di_info *di, uint64_t return_pc)
{
	size_t lo = 0, hi = di->ncalls;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (di->calls[mid].return_pc < return_pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < di->ncalls && di->calls[lo].return_pc == return_pc ? &di->calls[lo] : NULL;
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
			parse_func(di, c);
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

static void parse_func(struct di_info *di, Dwarf_Die die)
{
	struct di_func f = {0};
	struct die_desc d;
	struct var_vec params = {0};
	struct inline_vec inl = {0};
	struct di_locexpr *fb = NULL;
	size_t nfb = 0;

	if (di_attr_flag(die, DW_AT_declaration))
		return;
	f.nranges = read_ranges(di, die, &f.ranges);
	if (!f.nranges)      /* abstract instance or discarded code */
		return;
	describe(di, die, &d);
	f.name = d.name;
	f.ret = d.has_type ? d.type : NULL;
	f.decl_file = d.decl_file;
	f.decl_line = d.decl_line;
	f.external = d.external;
	struct di_cu *cu = cu_of(di, die);
	f.cu_name = cu ? cu->name : NULL;
	func_entry(die, &f);
	if (!di_parse_locs(di, die, DW_AT_frame_base, &fb, &nfb) && nfb)
		f.frame_base = fb[0];
	f.body.ranges = f.ranges;
	f.body.nranges = f.nranges;
	parse_scope(di, die, &params, &inl, &f.body, 0);
	f.params = finish_params(di, die, &params, &f.nparams);
	f.type = func_type(di, die, &f);
	f.inlines = vec_finish(di, inl.v, inl.n, sizeof(*inl.v));
	f.ninlines = inl.n;
	XGROW(di->funcs, di->capfuncs, di->nfuncs + 1);
	di->funcs[di->nfuncs++] = f;
}

static void parse_global(struct di_info *di, struct di_cu *cu, Dwarf_Die die)
{
	/* "extern int x;": the definition has its own DIE somewhere. */
	if (di_attr_flag(die, DW_AT_declaration))
		return;
	XGROW(di->statics, di->capstatics, di->nstatics + 1);
	struct di_static *s = &di->statics[di->nstatics++];
	parse_var(di, die, false, &s->var);
	s->var.is_static = true;
	s->cu = cu;
}

static void parse_cu(struct di_info *di, Dwarf_Die cudie)
{
	struct di_cu *cu = cu_of(di, cudie);
	for (Dwarf_Die c = di_child(cudie); c; c = di_next(di, c)) {
		switch (di_tag(c)) {
		case DW_TAG_subprogram:
			parse_func(di, c);
			break;
		case DW_TAG_variable:
			parse_global(di, cu, c);
			break;
		default:
			di_type_visit(di, c);
			break;
		}
	}
}

static void parse_one_cu(void *arg, Dwarf_Die cu)
{
	struct di_info *di = arg;
	if (dwcu_tree_ok(di->dbg, cu))
		parse_cu(di, cu);
}

static void parse_all(struct di_info *di)
{
	dwcu_each(di->dbg, parse_one_cu, di);
}

/* ---- finishing ---- */

static const struct di_static *find_static(const struct di_info *di,
					   const char *name, const char *cu_file);

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

static struct di_static *new_static(struct di_info *di, const char *name,
				     const struct di_type *type)
{
	XGROW(di->statics, di->capstatics, di->nstatics + 1);
	struct di_static *s = &di->statics[di->nstatics++];
	memset(s, 0, sizeof(*s));
	s->var.name = name;
	s->var.type = type;
	s->var.is_static = true;
	return s;
}

/* Functions (at their entry, DW_OP_addr) and enumerators (constants) as
 * statics, so that print mul, print &mul, print BLUE find them. */
static void add_code_names(struct di_info *di)
{
	for (size_t i = 0; i < di->nfuncs; i++) {
		const struct di_func *f = &di->funcs[i];
		if (!f->name)
			continue;
		struct di_locexpr *le = di_alloc(di, sizeof(*le));
		uint8_t *ops = di_alloc(di, 9);
		ops[0] = DW_OP_addr;
		for (int b = 0; b < 8; b++)
			ops[1 + b] = (uint8_t)(f->lo >> (8 * b));
		*le = (struct di_locexpr){ .ops = ops, .len = 9, .always = true };
		struct di_static *s = new_static(di, f->name, f->type);
		s->var.locs = le;
		s->var.nlocs = 1;
		s->var.external = f->external;
		s->var.decl_file = f->decl_file;
		s->var.decl_line = f->decl_line;
		for (size_t c = 0; c < di->ncus && !s->cu; c++)
			if (di->cus[c]->name == f->cu_name)
				s->cu = di->cus[c];
	}
	for (size_t i = 0; i < di->nalltypes; i++) {
		const struct di_type *t = di->alltypes[i];
		if (t->kind != DI_ENUM)
			continue;
		for (size_t j = 0; j < t->nenums; j++) {
			struct di_static *s = new_static(di, t->enums[j].name, t);
			s->var.has_const = true;
			s->var.const_value = t->enums[j].value;
			s->var.external = true;
		}
	}
}

static int cmp_func(const void *a, const void *b)
{
	const struct di_func *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int cmp_frange(const void *a, const void *b)
{
	const struct di_func_range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static void index_funcs(struct di_info *di)
{
	size_t n = 0;
	if (di->ncalls)
		qsort(di->calls, di->ncalls, sizeof(*di->calls), cmp_callsite);
	if (!di->nfuncs)
		return;
	qsort(di->funcs, di->nfuncs, sizeof(*di->funcs), cmp_func);
	for (size_t i = 0; i < di->nfuncs; i++)
		n += di->funcs[i].nranges;
	di->franges = xmalloc(n * sizeof(*di->franges));
	for (size_t i = 0; i < di->nfuncs; i++)
		for (size_t j = 0; j < di->funcs[i].nranges; j++)
			di->franges[di->nfranges++] = (struct di_func_range){
				di->funcs[i].ranges[j].lo, di->funcs[i].ranges[j].hi,
				&di->funcs[i] };
	qsort(di->franges, di->nfranges, sizeof(*di->franges), cmp_frange);
}

/* Point every inlined call at its function (known only once the functions
 * are sorted), list them all for di_inline_instances, and resolve their
 * "extern" locals as resolve_externs does for functions. */
static void link_inlines(struct di_info *di, struct di_inline *v, size_t n,
			 const struct di_func *f)
{
	for (size_t i = 0; i < n; i++) {
		v[i].func = f;
		resolve_externs(di, &v[i].body);
		XGROW(di->inlines, di->capinlines, di->ninlines + 1);
		di->inlines[di->ninlines++] = &v[i];
		link_inlines(di, v[i].children, v[i].nchildren, f);
	}
}

static int cmp_inline(const void *a, const void *b)
{
	const struct di_inline *x = *(const struct di_inline *const *)a;
	const struct di_inline *y = *(const struct di_inline *const *)b;
	return x->entry_pc < y->entry_pc ? -1 : x->entry_pc > y->entry_pc;
}

static void index_inlines(struct di_info *di)
{
	for (size_t i = 0; i < di->nfuncs; i++)
		link_inlines(di, di->funcs[i].inlines, di->funcs[i].ninlines, &di->funcs[i]);
	if (di->ninlines)
		qsort(di->inlines, di->ninlines, sizeof(*di->inlines), cmp_inline);
}

static int check_elf(const char *path, char *err, size_t errlen)
{
	unsigned char magic[4];
	FILE *f = fopen(path, "rb");
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

	if (check_elf(path, err, errlen) < 0 || dwcu_check_file(path, err, errlen) < 0)
		return NULL;
	struct di_info *di = xcalloc(1, sizeof(*di));
	int res = dwarf_init_path(path, NULL, 0, DW_DLC_READ, DW_GROUPNUMBER_ANY,
				  NULL, NULL, &di->dbg, NULL, 0, NULL, &e);
	if (res == DW_DLV_ERROR) {
		snprintf(err, errlen, "%s: %s", path, dwarf_errmsg(e));
		dwarf_dealloc(di->dbg, e, DW_DLA_ERROR);
		free(di);
		return NULL;
	}
	if (res == DW_DLV_OK) {
		parse_all(di);
		dwarf_finish(di->dbg, &e);
		di->dbg = NULL;
	}
	di_types_finish(di);
	index_funcs(di);
	index_inlines(di);
	add_code_names(di);
	for (size_t i = 0; i < di->nfuncs; i++)
		resolve_externs(di, &di->funcs[i].body);
	return di;
}

void di_close(struct di_info *di)
{
	if (!di)
		return;
	for (struct di_arena_blk *b = di->arena, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	free(di->funcs);
	free(di->calls);
	free(di->franges);
	free(di->statics);
	free(di->cus);
	free(di->types.keys);
	free(di->types.vals);
	free(di->named.keys);
	free(di->named.vals);
	free(di->paths.keys);
	free(di->paths.vals);
	free(di->alltypes);
	free(di->inlines);
	free(di);
}

/* ---- lookups ---- */

const struct di_func *di_func_at(const struct di_info *di, uint64_t pc)
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

const struct di_func *di_func_named(const struct di_info *di, const char *name)
{
	const struct di_func *found = NULL;
	for (size_t i = 0; i < di->nfuncs; i++) {
		const struct di_func *f = &di->funcs[i];
		if (!f->name || strcmp(f->name, name))
			continue;
		if (f->external)
			return f;
		if (!found)
			found = f;
	}
	return found;
}

const struct di_func *di_funcs(const struct di_info *di, size_t *n)
{
	*n = di->nfuncs;
	return di->funcs;
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

static const struct di_static *find_static(const struct di_info *di,
					   const char *name, const char *cu_file)
{
	const struct di_static *best = NULL;
	int best_rank = -1;
	for (size_t i = 0; i < di->nstatics; i++) {
		const struct di_static *s = &di->statics[i];
		if (!s->var.name || strcmp(s->var.name, name))
			continue;
		int r = static_rank(s, cu_file);
		if (r > best_rank) {
			best = s;
			best_rank = r;
		}
	}
	return best;
}

const struct di_var *di_static_named(const struct di_info *di, const char *name,
				     const char *cu_file)
{
	const struct di_static *s = find_static(di, name, cu_file);
	return s ? &s->var : NULL;
}

static bool scope_covers(const struct di_scope *s, uint64_t pc)
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

	while (s && depth < ARRAY_LEN(chain) && scope_covers(s, pc)) {
		chain[depth++] = s;
		const struct di_scope *inner = NULL;
		for (size_t i = 0; i < s->nchildren && !inner; i++)
			if (scope_covers(&s->children[i], pc))
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
		if (scope_covers(&v[i].body, pc))
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

size_t di_inline_instances(const struct di_info *di, const char *name,
			   const struct di_inline **out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < di->ninlines && n < max; i++)
		if (di->inlines[i]->name && !strcmp(di->inlines[i]->name, name))
			out[n++] = di->inlines[i];
	return n;
}
