/* dwcu: compilation unit iteration, unit abbreviations and DIE ranges, and
 * the sanity checks libdwarf needs before it walks units. */
#include "dwcu.h"
#include "rawrd.h"
#include "util/util.h"
#include "util/sorted.h"

#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
	if (ver >= 5) {
		if (dwcu_list_ok(dbg, die, a, false))   /* libdwarf overreads */
			ranges_v5(a, &rs);
	} else
		ranges_v4(dbg, die, a, base, &rs);
	dwarf_dealloc_attribute(a);
	return rs.n;
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
		uint64_t len = rd_le(d + off, 4);
		if (len == 0xffffffff) {
			if (left < 12)
				return (int64_t)off;
			len = rd_le(d + off + 4, 8);
			lsz = 12;
		}
		const uint8_t *h = d + off + lsz;
		if (len < 8 || len > left - lsz || rd_le(h, 2) != 5 ||
		    (h[2] != 2 && h[2] != 4 && h[2] != 8))
			return (int64_t)off;
		off += lsz + len;
	}
	return -1;
}

/* Whether section sh is called name, looked up in the raw section name
 * table (libdwarf does not check its type as elf_strptr does). */
static bool scn_is(const Elf_Data *names, const GElf_Shdr *sh, const char *name)
{
	size_t n = strlen(name) + 1;
	return names && names->d_buf && sh->sh_name < names->d_size &&
	       names->d_size - sh->sh_name >= n &&
	       memcmp((const char *)names->d_buf + sh->sh_name, name, n) == 0;
}

/* The section header table and every section's contents inside the
 * file: libdwarf allocates what the headers claim before it reads. */
static bool layout_ok(Elf *elf, uint64_t fsize)
{
	GElf_Ehdr eh;
	size_t n, ent = gelf_fsize(elf, ELF_T_SHDR, 1, EV_CURRENT);
	if (!gelf_getehdr(elf, &eh) || elf_getshdrnum(elf, &n) != 0)
		return false;
	if (!n)
		return true;
	if (eh.e_shentsize != ent || eh.e_shoff > fsize || n > (fsize - eh.e_shoff) / ent)
		return false;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			return false;
		if (sh.sh_type != SHT_NOBITS &&
		    (sh.sh_offset > fsize || sh.sh_size > fsize - sh.sh_offset))
			return false;
	}
	return true;
}

/* The offset of the first bad list table header in .debug_rnglists or
 * .debug_loclists (*which names it), or -1. */
static int64_t bad_lists(Elf *elf, size_t shstr, const char **which)
{
	static const char *const lists[] = { ".debug_rnglists", ".debug_loclists" };
	Elf_Scn *strscn = elf_getscn(elf, shstr);
	Elf_Data *names = strscn ? elf_rawdata(strscn, NULL) : NULL;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    (sh.sh_flags & SHF_COMPRESSED))
			continue;
		for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
			if (!scn_is(names, &sh, lists[i]))
				continue;
			Elf_Data *data = elf_rawdata(scn, NULL);
			int64_t bad = data && data->d_buf ?
				bad_list_header(data->d_buf, data->d_size) : -1;
			if (bad >= 0) {
				*which = lists[i];
				return bad;
			}
		}
	}
	return -1;
}

/* One attribute value of a line table header entry; constants returned. */
static uint64_t rd_form(struct rd *r, uint64_t form, int offsz)
{
	const uint8_t *z;
	switch (form) {
	case DW_FORM_string:
		z = memchr(r->p, 0, (size_t)(r->end - r->p));
		rd_skip(r, z ? (uint64_t)(z - r->p) + 1 : UINT64_MAX);
		return 0;
	case DW_FORM_line_strp: case DW_FORM_strp: case DW_FORM_sec_offset:
		return rd_n(r, offsz);
	case DW_FORM_strx: case DW_FORM_udata: return rd_uleb(r);
	case DW_FORM_strx1: case DW_FORM_data1: return rd_n(r, 1);
	case DW_FORM_strx2: case DW_FORM_data2: return rd_n(r, 2);
	case DW_FORM_strx3: return rd_n(r, 3);
	case DW_FORM_strx4: case DW_FORM_data4: return rd_n(r, 4);
	case DW_FORM_data8: return rd_n(r, 8);
	case DW_FORM_data16: rd_skip(r, 16); return 0;
	case DW_FORM_block: rd_skip(r, rd_uleb(r)); return 0;
	default: r->bad = true; return 0;
	}
}

/* A DWARF 5 entry format: up to 8 (content type, form) pairs. */
static unsigned rd_formats(struct rd *r, uint64_t f[8][2])
{
	unsigned n = (unsigned)rd_n(r, 1);
	if (n > 8)
		r->bad = true;
	for (unsigned i = 0; i < n && !r->bad; i++) {
		f[i][0] = rd_uleb(r);
		f[i][1] = rd_uleb(r);
	}
	return n;
}

/* DWARF 5 directory and file tables: each file's directory in range. */
static bool files_v5(struct rd *r, int offsz)
{
	uint64_t f[8][2];
	unsigned n = rd_formats(r, f);
	uint64_t ndirs = rd_uleb(r);
	if (!n && ndirs)
		return false;
	for (uint64_t i = 0; i < ndirs && !r->bad; i++)
		for (unsigned k = 0; k < n; k++)
			rd_form(r, f[k][1], offsz);
	n = rd_formats(r, f);
	uint64_t nfiles = rd_uleb(r);
	if (!n && nfiles)
		return false;
	for (uint64_t i = 0; i < nfiles && !r->bad; i++) {
		for (unsigned k = 0; k < n; k++) {
			uint64_t v = rd_form(r, f[k][1], offsz);
			if (f[k][0] == DW_LNCT_directory_index && v >= ndirs)
				return false;
		}
	}
	return !r->bad;
}

/* Whether the header of the line table at off is sane; *next gets the
 * offset of the following table (unchanged if the length is bad). */
static bool line_header_ok(const uint8_t *d, size_t size, size_t off, size_t *next)
{
	struct rd r = { d + off, d + size, false };
	int offsz;
	if (!rd_unit(&r, &offsz))
		return false;
	*next = (size_t)(r.end - d);
	unsigned ver = (unsigned)rd_n(&r, 2);
	if (ver < 5)
		return ver >= 2;   /* libdwarf checks directories itself */
	rd_skip(&r, 2 + (uint64_t)offsz + 5);   /* sizes, header_length, .. line_range */
	unsigned opcode_base = (unsigned)rd_n(&r, 1);
	rd_skip(&r, opcode_base ? opcode_base - 1 : 0);
	return ver == 5 && !r.bad && files_v5(&r, offsz);
}

/* The sane line tables of .debug_line (data), walked in order. */
static void index_lines(Elf_Data *data, struct dwcu_lines *lines)
{
	size_t cap = 0, off = 0, next = 0;
	const uint8_t *d = data->d_buf;
	while (d && off < data->d_size) {
		bool ok = line_header_ok(d, data->d_size, off, &next);
		if (next <= off)
			break;
		if (ok) {
			XGROW(lines->ok, cap, lines->n + 1);
			lines->ok[lines->n++] = off;
		}
		off = next;
	}
}

void dwcu_lines_free(struct dwcu_lines *lines)
{
	free(lines->ok);
	lines->ok = NULL;
	lines->n = 0;
	free(lines->data);
	lines->data = NULL;
	lines->data_size = 0;
}

/* Find .debug_line (decompressed if need be) and index it. */
static void find_lines(Elf *elf, size_t shstr, struct dwcu_lines *lines)
{
	Elf_Scn *strscn = elf_getscn(elf, shstr);
	Elf_Data *names = strscn ? elf_rawdata(strscn, NULL) : NULL;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !scn_is(names, &sh, ".debug_line"))
			continue;
		lines->raw = !(sh.sh_flags & SHF_COMPRESSED);
		lines->sec_off = sh.sh_offset;
		lines->sec_size = sh.sh_size;
		if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
			return;
		Elf_Data *data = elf_getdata(scn, NULL);
		if (data)
			index_lines(data, lines);
		if (data && data->d_buf && !lines->raw) {
			lines->data = xmalloc(data->d_size ? data->d_size : 1);
			memcpy(lines->data, data->d_buf, data->d_size);
			lines->data_size = data->d_size;
		}
		return;
	}
}

int dwcu_init(const char *path, int *fd, Dwarf_Debug *dbg, Dwarf_Error *e)
{
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return DW_DLV_NO_ENTRY;
	int res = dwarf_init_b(*fd, DW_DLC_READ, DW_GROUPNUMBER_ANY, NULL, NULL, dbg, e);
	if (res != DW_DLV_OK) {
		close(*fd);
		*fd = -1;
	}
	return res;
}

int dwcu_check_file(const char *path, struct dwcu_lines *lines,
		    char *err, size_t errlen)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;    /* the caller's own open reports it */
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	size_t shstr;
	const char *which = NULL;
	int64_t bad = -1;
	int rc = 0;
	/* Where libelf gives up, libdwarf's own reader might still go on:
	 * not worth the risk. */
	if (!elf || fstat(fd, &st) != 0 || elf_getshdrstrndx(elf, &shstr) != 0 ||
	    !layout_ok(elf, (uint64_t)st.st_size)) {
		snprintf(err, errlen, "%s: corrupt section headers", path);
		rc = -1;
	} else if ((bad = bad_lists(elf, shstr, &which)) >= 0) {
		snprintf(err, errlen, "%s: corrupt %s header at 0x%llx",
			 path, which, (unsigned long long)bad);
		rc = -1;
	} else if (lines) {
		find_lines(elf, shstr, lines);
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return rc;
}

/* Refuse a file that is not ELF before libdwarf, which takes one it cannot
 * read for one without DWARF. */
static int check_magic(const char *path, char *err, size_t errlen)
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

int dwcu_open(const char *path, struct dwcu_lines *sane, int *fd,
	      Dwarf_Debug *dbg, char *err, size_t errlen)
{
	Dwarf_Error e = NULL;
	*dbg = NULL;
	*fd = -1;
	if (check_magic(path, err, errlen) < 0 || dwcu_check_file(path, sane, err, errlen) < 0)
		return DW_DLV_ERROR;
	int res = dwcu_init(path, fd, dbg, &e);
	if (res == DW_DLV_ERROR) {
		snprintf(err, errlen, "%s: %s", path, dwarf_errmsg(e));
		dwarf_dealloc(*dbg, e, DW_DLA_ERROR);
		dwcu_lines_free(sane);
	}
	if (res != DW_DLV_OK)
		*dbg = NULL;
	return res;
}

/* One table of .debug_loclists or .debug_rnglists as libdwarf loaded it. */
struct list_tab {
	Dwarf_Unsigned hdr;      /* offset of its header */
	Dwarf_Unsigned offs;     /* of its offset array (what *_base names) */
	Dwarf_Unsigned end;      /* past its last byte */
	Dwarf_Unsigned nent;     /* offset array entries */
};

static bool list_tab(Dwarf_Debug dbg, bool loc, Dwarf_Unsigned i, struct list_tab *t)
{
	Dwarf_Small osz, esz, asz, ssz;
	unsigned ver;
	Dwarf_Unsigned first;
	Dwarf_Error e = NULL;
	int r = loc ?
		dwarf_get_loclist_context_basics(dbg, i, &t->hdr, &osz, &esz, &ver,
			&asz, &ssz, &t->nent, &t->offs, &first, &t->end, &e) :
		dwarf_get_rnglist_context_basics(dbg, i, &t->hdr, &osz, &esz, &ver,
			&asz, &ssz, &t->nent, &t->offs, &first, &t->end, &e);
	return r == DW_DLV_OK;
}

/* How many tables libdwarf loaded: the first index it refuses. */
static Dwarf_Unsigned count_tabs(Dwarf_Debug dbg, bool loc)
{
	struct list_tab t;
	Dwarf_Unsigned lo = 0, hi = 1;          /* lo tables known to exist */
	while (list_tab(dbg, loc, hi - 1, &t))
		lo = hi, hi *= 2;
	while (hi - lo > 1) {
		Dwarf_Unsigned mid = lo + (hi - lo) / 2;
		if (list_tab(dbg, loc, mid - 1, &t))
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The table that holds offset off (by_offs: whose offset array starts at
 * off), by bisection: tables come in section order. */
struct tab_key {
	Dwarf_Debug dbg;
	bool loc;
	Dwarf_Unsigned off;
};

static bool tab_at_or_before(size_t i, const void *arg)
{
	const struct tab_key *k = arg;
	struct list_tab t;
	return list_tab(k->dbg, k->loc, i, &t) && t.hdr <= k->off;
}

static bool find_tab(Dwarf_Debug dbg, bool loc, Dwarf_Unsigned off, bool by_offs,
		     Dwarf_Unsigned *idx, struct list_tab *t)
{
	struct tab_key k = {dbg, loc, off};
	size_t lo = sorted_count(count_tabs(dbg, loc), tab_at_or_before, &k);
	if (!lo || !list_tab(dbg, loc, lo - 1, t))
		return false;
	*idx = lo - 1;
	return by_offs ? t->offs == off : off < t->end;
}

/* The CU's DW_AT_loclists_base or DW_AT_rnglists_base: 0 if none, 1 with
 * *base, -1 if there but unreadable. */
static int cu_list_base(Dwarf_Debug dbg, Dwarf_Die die, bool loc, Dwarf_Unsigned *base)
{
	Dwarf_Off cuoff, off;
	Dwarf_Die cu = NULL;
	Dwarf_Attribute a = NULL;
	Dwarf_Error e = NULL;
	int r = 0;
	if (dwarf_CU_dieoffset_given_die(die, &cuoff, &e) != DW_DLV_OK ||
	    dwarf_offdie_b(dbg, cuoff, 1, &cu, &e) != DW_DLV_OK)
		return -1;
	if (dwarf_attr(cu, loc ? DW_AT_loclists_base : DW_AT_rnglists_base, &a, &e) == DW_DLV_OK) {
		r = -1;
		if (dwarf_global_formref(a, &off, &e) == DW_DLV_OK) {
			*base = off;
			r = 1;
		}
		dwarf_dealloc_attribute(a);
	}
	dwarf_dealloc_die(cu);
	return r;
}

/* Walk the list at off in table idx: every entry (and its expression)
 * inside the table, up to the end-of-list entry. */
static bool walk_list(Dwarf_Debug dbg, bool loc, Dwarf_Unsigned idx,
		      Dwarf_Unsigned off, Dwarf_Unsigned end)
{
	for (;;) {
		unsigned len = 0, kind = 0;
		Dwarf_Unsigned o1, o2, bsz = 0, boff;
		Dwarf_Small *bdata;
		Dwarf_Error e = NULL;
		if (off >= end)
			return false;
		int r = loc ?
			dwarf_get_loclist_lle(dbg, idx, off, end, &len, &kind, &o1, &o2,
					      &bsz, &boff, &bdata, &e) :
			dwarf_get_rnglist_rle(dbg, idx, off, end, &len, &kind, &o1, &o2, &e);
		if (r != DW_DLV_OK || !len || len > end - off || bsz >= len)
			return false;
		if (kind == DW_LLE_end_of_list)     /* == DW_RLE_end_of_list */
			return true;
		off += len;
	}
}

bool dwcu_list_ok(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Attribute a, bool loc)
{
	Dwarf_Half form = 0, ver = 0, osz = 0;
	Dwarf_Unsigned val = 0, base = 0, idx, v, start;
	Dwarf_Off off;
	Dwarf_Error e = NULL;
	struct list_tab t;

	if (dwarf_whatform(a, &form, &e) != DW_DLV_OK)
		return false;
	bool indexed = form == (loc ? DW_FORM_loclistx : DW_FORM_rnglistx);
	if (!indexed && (form != DW_FORM_sec_offset ||
			 dwarf_get_version_of_die(die, &ver, &osz) != DW_DLV_OK || ver < 5))
		return true;    /* an expression, or DWARF 4 lists */
	if (indexed ? dwarf_formudata(a, &val, &e) != DW_DLV_OK :
		      dwarf_global_formref(a, &off, &e) != DW_DLV_OK)
		return false;
	if (!indexed)
		val = off;
	int has_base = cu_list_base(dbg, die, loc, &base);
	if (has_base < 0 || (indexed && !has_base))
		return false;
	if (indexed) {
		if (!find_tab(dbg, loc, base, true, &idx, &t) || val >= t.nent)
			return false;
		int r = loc ? dwarf_get_loclist_offset_index_value(dbg, idx, val, &v, &start, &e) :
			      dwarf_get_rnglist_offset_index_value(dbg, idx, val, &v, &start, &e);
		if (r != DW_DLV_OK)
			return false;
	} else {
		start = val;
		if (!find_tab(dbg, loc, val, false, &idx, &t) ||
		    (has_base && t.offs != base))
			return false;
	}
	return start >= t.hdr && walk_list(dbg, loc, idx, start, t.end);
}

#define DWCU_MAX_DEPTH 500

/* DW_AT_sibling, when there, points past the DIE. */
static bool sibling_ok(Dwarf_Die die)
{
	Dwarf_Attribute a = NULL;
	Dwarf_Off self = 0, sib = 0;
	Dwarf_Error e = NULL;
	if (dwarf_attr(die, DW_AT_sibling, &a, &e) != DW_DLV_OK)
		return true;
	bool ok = dwarf_dieoffset(die, &self, &e) == DW_DLV_OK &&
		  dwarf_global_formref(a, &sib, &e) == DW_DLV_OK && sib > self;
	dwarf_dealloc_attribute(a);
	return ok;
}

/* Depth first, checking each DIE before libdwarf is asked for the
 * sibling of a DIE whose subtree it would have to walk. */
bool dwcu_tree_ok(Dwarf_Debug dbg, Dwarf_Die cu)
{
	Dwarf_Die st[DWCU_MAX_DEPTH];
	bool down[DWCU_MAX_DEPTH];        /* st[i]'s children were pushed */
	size_t n = 0;
	Dwarf_Error e = NULL;
	Dwarf_Die c = NULL;
	bool ok = sibling_ok(cu);
	if (ok && dwarf_child(cu, &c, &e) == DW_DLV_OK)
		st[n] = c, down[n++] = false;
	while (ok && n) {
		Dwarf_Die top = st[n - 1];
		if (!down[n - 1]) {
			down[n - 1] = true;
			if (!(ok = sibling_ok(top)))
				break;
			if (dwarf_child(top, &c, &e) != DW_DLV_OK)
				continue;
			if (!(ok = n < DWCU_MAX_DEPTH)) {
				dwarf_dealloc_die(c);
				break;
			}
			st[n] = c, down[n++] = false;
			continue;
		}
		int r = dwarf_siblingof_b(dbg, top, 1, &c, &e);
		dwarf_dealloc_die(top);
		if (r == DW_DLV_OK)
			st[n - 1] = c, down[n - 1] = false;
		else
			n--;
	}
	while (n)
		dwarf_dealloc_die(st[--n]);
	return ok;
}

/* Whether a DIE has children, by its abbreviation (no DIE read). */
static bool has_children(Dwarf_Die die)
{
	Dwarf_Half flag = 0;
	return dwarf_die_abbrev_children_flag(die, &flag) == DW_DLV_OK && flag;
}

bool dwcu_next_ok(Dwarf_Debug dbg, Dwarf_Die die)
{
	Dwarf_Bool has = 0;
	Dwarf_Error e = NULL;
	/* with DW_AT_sibling libdwarf jumps there (the caller checks it went
	 * forward); without, it finds the next DIE by walking the subtree */
	if (dwarf_hasattr(die, DW_AT_sibling, &has, &e) == DW_DLV_OK && has)
		return true;
	return !has_children(die) || dwcu_tree_ok(dbg, die);
}

bool dwcu_files_ok(const struct dwcu_lines *lines, Dwarf_Die cu)
{
	Dwarf_Attribute a = NULL;
	Dwarf_Off off = 0;
	Dwarf_Error e = NULL;
	if (dwarf_attr(cu, DW_AT_stmt_list, &a, &e) != DW_DLV_OK)
		return true;
	bool ok = dwarf_global_formref(a, &off, &e) == DW_DLV_OK;
	dwarf_dealloc_attribute(a);
	if (!ok)
		return false;
	size_t lo = sorted_count_key(lines->ok, lines->n, sizeof(*lines->ok), 0,
				     sizeof(*lines->ok), off, false);
	return lo < lines->n && lines->ok[lo] == off;
}

void dwcu_close(Dwarf_Debug dbg, int fd, struct dwcu_lines *sane)
{
	if (dbg) {
		Dwarf_Error e = NULL;
		dwarf_finish(dbg, &e);
		close(fd);
	}
	dwcu_lines_free(sane);
}

struct dwcu_file *dwcu_file_open(const char *path, char *err, size_t errlen)
{
	struct dwcu_file *f = xcalloc(1, sizeof(*f));
	if (dwcu_open(path, &f->sane, &f->fd, &f->dbg, err, errlen) == DW_DLV_ERROR) {
		free(f);
		return NULL;
	}
	f->refs = 1;
	return f;
}

struct dwcu_file *dwcu_file_get(struct dwcu_file *f)
{
	f->refs++;
	return f;
}

void dwcu_file_put(struct dwcu_file *f)
{
	if (!f || --f->refs > 0)
		return;
	dwcu_close(f->dbg, f->fd, &f->sane);
	free(f);
}
