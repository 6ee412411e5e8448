/* dwcu: compilation unit iteration, unit abbreviations and DIE ranges, and
 * the sanity checks libdwarf needs before it walks units. */
#include "dwcu.h"

#include <dwarf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void dwcu_each(Dwarf_Debug dbg, dwcu_fn fn, void *arg)
{
	Dwarf_Unsigned hlen, typeoff, next;
	Dwarf_Half ver, asz, lsz, esz, cutype;
	Dwarf_Off abbr;
	Dwarf_Sig8 sig;
	Dwarf_Error e = NULL;

	while (dwarf_next_cu_header_d(dbg, 1, &hlen, &ver, &abbr, &asz, &lsz,
				      &esz, &sig, &typeoff, &next, &cutype,
				      &e) == DW_DLV_OK) {
		Dwarf_Die cu = NULL;
		if (dwarf_siblingof_b(dbg, NULL, 1, &cu, &e) != DW_DLV_OK)
			continue;
		fn(arg, cu, abbr);
		dwarf_dealloc_die(cu);
	}
}

/* Whether inlined-call abbreviation ab gives its origin by a reference
 * that can leave the unit. */
static bool origin_cross_unit(Dwarf_Abbrev ab, Dwarf_Unsigned nattr)
{
	for (Dwarf_Unsigned i = 0; i < nattr; i++) {
		Dwarf_Unsigned at = 0, form = 0;
		Dwarf_Signed implicit = 0;
		Dwarf_Off off = 0;
		Dwarf_Error e = NULL;
		if (dwarf_get_abbrev_entry_b(ab, i, 1, &at, &form, &implicit, &off, &e) != DW_DLV_OK)
			return true;
		if (at == DW_AT_abstract_origin)
			return form != DW_FORM_ref1 && form != DW_FORM_ref2 && form != DW_FORM_ref4 &&
			       form != DW_FORM_ref8 && form != DW_FORM_ref_udata;
	}
	return false;
}

bool dwcu_inlined_calls(Dwarf_Debug dbg, Dwarf_Off abbrev, bool *cross_unit)
{
	Dwarf_Unsigned off = abbrev;
	bool any = false;
	*cross_unit = false;
	for (;;) {
		Dwarf_Abbrev ab = NULL;
		Dwarf_Unsigned len = 0, nattr = 0, code = 0;
		Dwarf_Half t = 0;
		Dwarf_Error e = NULL;
		if (dwarf_get_abbrev(dbg, off, &ab, &len, &nattr, &e) != DW_DLV_OK)
			return *cross_unit = true;
		bool ok = dwarf_get_abbrev_code(ab, &code, &e) == DW_DLV_OK &&
			  dwarf_get_abbrev_tag(ab, &t, &e) == DW_DLV_OK && len;
		if (ok && code && t == DW_TAG_inlined_subroutine) {
			any = true;
			*cross_unit |= origin_cross_unit(ab, nattr);
		}
		dwarf_dealloc(dbg, ab, DW_DLA_ABBREV);
		if (!ok)
			return *cross_unit = true;
		if (!code)          /* the null entry ends the unit's table */
			return any;
		off += len;
	}
}

struct range_sink {
	dwcu_range_fn add;
	void *arg;
	size_t n;
};

static void put_range(struct range_sink *rs, uint64_t lo, uint64_t hi)
{
	if (lo >= hi || lo == 0)
		return;
	rs->add(rs->arg, lo, hi);
	rs->n++;
}

static Dwarf_Half attr_form(Dwarf_Attribute a)
{
	Dwarf_Half form = 0;
	Dwarf_Error e = NULL;
	dwarf_whatform(a, &form, &e);
	return form;
}

static void ranges_v5(Dwarf_Attribute a, struct range_sink *rs)
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
			put_range(rs, lo, hi);
	}
	dwarf_dealloc_rnglists_head(head);
}

static void ranges_v4(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Attribute a,
		      uint64_t base, struct range_sink *rs)
{
	Dwarf_Off off = 0, real = 0;
	Dwarf_Ranges *rl = NULL;
	Dwarf_Signed cnt = 0;
	Dwarf_Unsigned bytes = 0;
	Dwarf_Error e = NULL;

	if (dwarf_global_formref(a, &off, &e) != DW_DLV_OK ||
	    dwarf_get_ranges_b(dbg, off, die, &real, &rl, &cnt, &bytes, &e) != DW_DLV_OK)
		return;
	for (Dwarf_Signed i = 0; i < cnt; i++) {
		if (rl[i].dwr_type == DW_RANGES_END)
			break;
		if (rl[i].dwr_type == DW_RANGES_ADDRESS_SELECTION)
			base = rl[i].dwr_addr2;
		else
			put_range(rs, base + rl[i].dwr_addr1, base + rl[i].dwr_addr2);
	}
	dwarf_ranges_dealloc(dbg, rl, cnt);
}

size_t dwcu_ranges(Dwarf_Debug dbg, Dwarf_Die die, uint64_t base,
		   dwcu_range_fn add, void *arg)
{
	struct range_sink rs = { add, arg, 0 };
	Dwarf_Addr lo = 0, hi = 0;
	Dwarf_Half form = 0, ver = 0, offsz = 0;
	enum Dwarf_Form_Class cls;
	Dwarf_Attribute a = NULL;
	Dwarf_Error e = NULL;

	/* A unit with DW_AT_ranges may have a low_pc too (its base, often 0). */
	if (dwarf_lowpc(die, &lo, &e) == DW_DLV_OK &&
	    dwarf_highpc_b(die, &hi, &form, &cls, &e) == DW_DLV_OK) {
		if (cls == DW_FORM_CLASS_CONSTANT)
			hi += lo;
		put_range(&rs, lo, hi);
		return rs.n;
	}
	if (dwarf_attr(die, DW_AT_ranges, &a, &e) != DW_DLV_OK)
		return 0;
	dwarf_get_version_of_die(die, &ver, &offsz);
	if (ver >= 5)
		ranges_v5(a, &rs);
	else
		ranges_v4(dbg, die, a, base, &rs);
	dwarf_dealloc_attribute(a);
	return rs.n;
}

static uint64_t get_le(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* Offset of the first bad table header in a DWARF 5 list section, or -1.
 * Each table: unit length (4, or 0xffffffff and 8), version 5, address
 * size, segment selector size, offset entry count; all inside the section. */
static int64_t bad_list_header(const uint8_t *d, size_t size)
{
	size_t off = 0;
	while (off < size) {
		size_t left = size - off, lsz = 4;
		if (left < 4)
			return (int64_t)off;
		uint64_t len = get_le(d + off, 4);
		if (len == 0xffffffff) {
			if (left < 12)
				return (int64_t)off;
			len = get_le(d + off + 4, 8);
			lsz = 12;
		}
		const uint8_t *h = d + off + lsz;
		if (len < 8 || len > left - lsz || get_le(h, 2) != 5 ||
		    (h[2] != 2 && h[2] != 4 && h[2] != 8))
			return (int64_t)off;
		off += lsz + len;
	}
	return -1;
}

int dwcu_check_lists(const char *path, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;    /* the caller's own open reports it */
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	size_t shstr;
	int rc = 0;
	if (!elf || elf_getshdrstrndx(elf, &shstr) != 0)
		goto out;
	for (Elf_Scn *scn = NULL; rc == 0 && (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		const char *name;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    (sh.sh_flags & SHF_COMPRESSED) ||
		    !(name = elf_strptr(elf, shstr, sh.sh_name)) ||
		    (strcmp(name, ".debug_rnglists") && strcmp(name, ".debug_loclists")))
			continue;
		Elf_Data *data = elf_rawdata(scn, NULL);
		int64_t bad = data && data->d_buf ?
			bad_list_header(data->d_buf, data->d_size) : -1;
		if (bad >= 0) {
			snprintf(err, errlen, "%s: corrupt %s header at 0x%llx",
				 path, name, (unsigned long long)bad);
			rc = -1;
		}
	}
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return rc;
}
