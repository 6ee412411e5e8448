/* dinfo-read: what every DWARF reader of dinfo shares: the arena all of a
 * file's debug information lives in, the offset and string maps, interned
 * paths, libdwarf attribute helpers (forms, references, names following
 * abstract origins and specifications), DIE descriptions and pc ranges. */
#include "dinfo-int.h"
#include "dwcu.h"
#include "util/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

const char *di_intern_path(struct di_info *di, const char *path)
{
	char *norm = str_path_norm(path);
	const char *old = hmap_sget(&di->paths, norm);
	if (!old) {
		old = di_strdup(di, norm);
		hmap_sput(&di->paths, old, (void *)old);
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
	/* a hostile DIE ends the walk: what follows it is not read */
	return di_next_if(di, die, dwcu_next_ok(di->dbg, die));
}

Dwarf_Die di_next_if(struct di_info *di, Dwarf_Die die, bool ok)
{
	Dwarf_Die s = NULL;
	Dwarf_Error e = NULL;
	int r = ok ? dwarf_siblingof_b(di->dbg, die, 1, &s, &e) : DW_DLV_NO_ENTRY;
	/* A corrupt DW_AT_sibling pointing backwards would loop forever. */
	if (r == DW_DLV_OK && di_die_offset(s) <= di_die_offset(die)) {
		dwarf_dealloc_die(s);
		r = DW_DLV_NO_ENTRY;
	}
	dwarf_dealloc_die(die);
	return r == DW_DLV_OK ? s : NULL;
}

/* The DIE this one completes: its abstract origin or specification. */
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
	for (int depth = 0; cur && !name && depth < MAX_REF_DEPTH; depth++) {
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
		d->decl_file = di_file_attr(di, die, DW_AT_decl_file);
	if (!d->decl_line && !di_attr_u64(die, DW_AT_decl_line, &line))
		d->decl_line = (int)line;
	d->external |= di_attr_flag(die, DW_AT_external);
}

void di_each_origin(struct di_info *di, Dwarf_Die die,
		    void (*fn)(struct di_info *di, Dwarf_Die die, void *arg), void *arg)
{
	Dwarf_Die cur = die;
	for (int depth = 0; cur && depth < MAX_REF_DEPTH; depth++) {
		fn(di, cur, arg);
		Dwarf_Die next = di_origin_die(di, cur);
		if (cur != die)
			dwarf_dealloc_die(cur);
		cur = next;
	}
	if (cur && cur != die)
		dwarf_dealloc_die(cur);
}

static void describe_each(struct di_info *di, Dwarf_Die die, void *d)
{
	describe_one(di, die, d);
}

void di_describe(struct di_info *di, Dwarf_Die die, struct die_desc *d)
{
	memset(d, 0, sizeof(*d));
	di_each_origin(di, die, describe_each, d);
}

/* The pc ranges of a DIE, from low_pc/high_pc or DW_AT_ranges, copied to
 * the arena. */
size_t di_read_ranges(struct di_info *di, Dwarf_Die die, struct di_range **out)
{
	struct di_cu *cu = di_cu_of(di, die);
	return di_ranges_of(di, die, cu ? cu->base : 0, out);
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
int di_attr_addr(Dwarf_Die die, Dwarf_Half at, uint64_t *out)
{
	Dwarf_Attribute a = di_get_attr(die, at);
	Dwarf_Addr addr = 0;
	Dwarf_Error e = NULL;
	int r = -1;
	if (!a)
		return -1;
	if (form_is_addr(di_attr_form(a)) && dwarf_formaddr(a, &addr, &e) == DW_DLV_OK) {
		*out = addr;
		r = 0;
	}
	dwarf_dealloc_attribute(a);
	return r;
}

int di_read_entry_pc(Dwarf_Die die, uint64_t base, uint64_t *out)
{
	if (!di_attr_addr(die, DW_AT_entry_pc, out))
		return 0;
	if (di_attr_u64(die, DW_AT_entry_pc, out))
		return -1;
	*out += base;
	return 0;
}

bool di_ranges_cover(const struct di_range *r, size_t n, uint64_t pc)
{
	for (size_t i = 0; i < n; i++)
		if (r[i].lo <= pc && pc < r[i].hi)
			return true;
	return false;
}

uint64_t di_lowest_pc(const struct di_range *r, size_t n)
{
	uint64_t lo = n ? r[0].lo : 0;
	for (size_t i = 1; i < n; i++)
		if (r[i].lo < lo)
			lo = r[i].lo;
	return lo;
}
