/* dinfo-die: compilation units (loaded when a DIE first leads into one,
 * their file tables read on first use) and what a DIE says with its
 * origin or specification: name, type, declaration, pc ranges. */
#include "dinfo-int.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

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
	di_omap_put(&di->cu_by_off, off, cu);
	return cu;
}

struct di_cu *di_cu_of(struct di_info *di, Dwarf_Die die)
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

/* ---- DIE descriptions, ranges ---- */

static void describe_one(struct di_info *di, Dwarf_Die die, struct di_die_desc *d)
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

void di_describe(struct di_info *di, Dwarf_Die die, struct di_die_desc *d)
{
	memset(d, 0, sizeof(*d));
	Dwarf_Die cur = die;
	for (int depth = 0; cur && depth < DI_MAX_REF_DEPTH; depth++) {
		describe_one(di, cur, d);
		Dwarf_Die next = di_origin_die(di, cur);
		if (cur != die)
			dwarf_dealloc_die(cur);
		cur = next;
	}
	if (cur && cur != die)
		dwarf_dealloc_die(cur);
}

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
