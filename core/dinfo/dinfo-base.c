/* dinfo-base: what the dinfo files build on: the arena everything read
 * lives in, maps by DIE offset and by name, interned file names, and the
 * libdwarf helpers (attributes, DIE offsets, children and siblings,
 * names through abstract origins). */
#include "dinfo-int.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

#define ARENA_BLOCK (64 * 1024)

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

Dwarf_Attribute di_get_attr(Dwarf_Die die, Dwarf_Half at)
{
	Dwarf_Attribute a = NULL;
	Dwarf_Error e = NULL;
	return dwarf_attr(die, at, &a, &e) == DW_DLV_OK ? a : NULL;
}

Dwarf_Half di_attr_form(Dwarf_Attribute a)
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
	Dwarf_Attribute a = di_get_attr(die, at);
	Dwarf_Unsigned u;
	Dwarf_Signed s;
	Dwarf_Error e = NULL;
	int r = -1;
	if (!a)
		return -1;
	if (form_signed(di_attr_form(a))) {
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
	Dwarf_Attribute a = di_get_attr(die, at);
	Dwarf_Error e = NULL;
	if (!a)
		return -1;
	int r = dwarf_global_formref(a, out, &e) == DW_DLV_OK ? 0 : -1;
	dwarf_dealloc_attribute(a);
	return r;
}

bool di_attr_flag(Dwarf_Die die, Dwarf_Half at)
{
	Dwarf_Attribute a = di_get_attr(die, at);
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

Dwarf_Off di_die_offset(Dwarf_Die die)
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
	if (r == DW_DLV_OK && di_die_offset(s) <= di_die_offset(die)) {
		dwarf_dealloc_die(s);
		r = DW_DLV_NO_ENTRY;
	}
	dwarf_dealloc_die(die);
	return r == DW_DLV_OK ? s : NULL;
}

Dwarf_Die di_origin_die(struct di_info *di, Dwarf_Die die)
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
	for (int depth = 0; cur && !name && depth < DI_MAX_REF_DEPTH; depth++) {
		char *n = NULL;
		Dwarf_Error e = NULL;
		if (dwarf_diename(cur, &n, &e) == DW_DLV_OK)
			name = di_strdup(di, n);
		Dwarf_Die next = name ? NULL : di_origin_die(di, cur);
		if (cur != die)
			dwarf_dealloc_die(cur);
		cur = next;
	}
	if (cur && cur != die)
		dwarf_dealloc_die(cur);
	return name;
}
