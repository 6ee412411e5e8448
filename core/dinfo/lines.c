/* lines: DWARF line tables of one ELF file, read with libdwarf. lines_open
 * only notes each unit's code ranges and file table; a unit's rows are read
 * (into an address-sorted array) when a lookup first needs them, so that
 * start-up stays fast on large programs. File names are interned absolute
 * paths so that callers compare them by pointer. Rows are kept as gdb's
 * line table reader keeps them, and address lookups follow its rules;
 * file names and FILE:LINE are lines-file.c's. */
#include "lines-int.h"
#include "dwcu.h"
#include "linefno.h"
#include "util/hmap.h"
#include "util/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dwarf.h>
#include <libdwarf.h>

/* A row while loading: ord keeps the sort stable. */
struct tmp_row {
	struct lines_row r;
	bool end_seq;
	bool dead;                /* dropped as gdb drops it (drop_at_switch) */
	size_t ord;
};

struct loader {
	struct lines *lt;
	struct lcu *cu;
	Dwarf_Debug dbg;
	struct tmp_row *rows;
	size_t nrows, cap;
	const char **fcache;      /* per-CU: line file number -> name */
	size_t nfcache;
	/* gdb's line state machine, reset at each sequence: the last file and
	 * line seen, and whether that line has had a non-zero discriminator. */
	const char *sm_file;
	int sm_line;
	bool sm_disc;
	/* gdb's m_last_address and m_stmt_at_address: the address of the
	 * last row seen and whether any of its rows there is a statement. */
	uint64_t sm_addr;
	bool sm_stmt_at;
	/* A DWARF 5 table's file numbers as the standard reads them (see
	 * linefno.h), by row; NULL to take libdwarf's. */
	uint32_t *fnos;
	size_t row;               /* index of the row being added */
};

/* gdb keeps a row for the same file and line as the previous one only if
 * the line never had a non-zero discriminator (gdb's dwarf_record_line_p,
 * PR 17276): loop lines lose their repeated rows, so stepping treats them
 * as one range. Matching that keeps qzdb's stops where gdb's are. */
static bool keep_row(struct loader *ld, const char *file, int line,
		     Dwarf_Unsigned disc)
{
	bool same = ld->sm_file == file && ld->sm_line == line;
	ld->sm_disc = same ? (ld->sm_disc || disc != 0) : disc != 0;
	ld->sm_file = file;
	ld->sm_line = line;
	return !same || !ld->sm_disc;
}

static const char *lines_intern(struct lines *lt, const char *path)
{
	char *norm = str_path_norm(path);
	const char *old = hmap_sget(&lt->names, norm);
	if (old) {
		free(norm);
		return old;
	}
	hmap_sput(&lt->names, norm, norm);
	XGROW(lt->all, lt->capall, lt->nall + 1);
	lt->all[lt->nall++] = norm;
	return norm;
}

/* Note that cu has rows or a file table entry for f. */
static void cu_add_file(struct lcu *cu, const char *f)
{
	for (size_t i = 0; i < cu->nfiles; i++)
		if (cu->files[i] == f)
			return;
	XGROW(cu->files, cu->capfiles, cu->nfiles + 1);
	cu->files[cu->nfiles++] = f;
}

static const char *file_of(struct loader *ld, Dwarf_Line line)
{
	Dwarf_Unsigned fno = 0;
	Dwarf_Error e = NULL;
	/* Names come from the file table load_files read: libdwarf
	 * 20210528's dwarf_linesrc follows wild pointers on some corrupt line
	 * programs (files added by DW_LNE_define_file). */
	int ok = ld->fnos ? DW_DLV_OK : dwarf_line_srcfileno(line, &fno, &e);
	if (ld->fnos)
		fno = ld->fnos[ld->row];
	if (ok == DW_DLV_OK && fno < ld->nfcache && ld->fcache[fno])
		return ld->fcache[fno];
	return "??";
}

/* Note the name gdb shows for file i of a loaded unit's table (the first
 * unit to name it wins): its name joined to its directory as the table
 * spells them (dwarf2_start_subfile), so a header under a relative
 * directory keeps it relative, as the unit's own file does. */
static void note_shown(struct lines *lt, Dwarf_Line_Context ctx, Dwarf_Signed i,
		       const char *path)
{
	const char *name = NULL, *dir = NULL;
	Dwarf_Unsigned di = 0;
	Dwarf_Error e = NULL;
	if (!ctx || hmap_sget(&lt->shown, path) ||
	    dwarf_srclines_files_data_b(ctx, i, &name, &di, NULL, NULL, NULL, &e) != DW_DLV_OK ||
	    !name)
		return;
	if (name[0] != '/' &&
	    dwarf_srclines_include_dir_data(ctx, (Dwarf_Signed)di, &dir, &e) != DW_DLV_OK)
		dir = NULL;
	char *shown = name[0] == '/' || !dir ? xstrdup(name) : xasprintf("%s/%s", dir, name);
	hmap_sput(&lt->shown, path, shown);
}

/* The unit's file table by line file number (the first is number base:
 * 1 before DWARF 5, 0 since). */
static void load_files(struct loader *ld, Dwarf_Die cu, Dwarf_Line_Context ctx,
		       Dwarf_Signed base)
{
	char **files = NULL;
	Dwarf_Signed n = 0;
	Dwarf_Error e = NULL;
	ld->nfcache = 0;
	if (!dwcu_files_ok(&ld->lt->dw->sane, cu) || dwarf_srcfiles(cu, &files, &n, &e) != DW_DLV_OK)
		return;
	if (base < 0 || base > 1)
		base = 0;
	ld->fcache = xrealloc(ld->fcache, (size_t)(n + 1) * sizeof(*ld->fcache));
	ld->nfcache = (size_t)(n + base);
	ld->fcache[0] = NULL;
	for (Dwarf_Signed i = 0; i < n; i++) {
		ld->fcache[base + i] = lines_intern(ld->lt, files[i]);
		cu_add_file(ld->cu, ld->fcache[base + i]);
		note_shown(ld->lt, ctx, base + i, ld->fcache[base + i]);
		dwarf_dealloc(ld->dbg, files[i], DW_DLA_STRING);
	}
	dwarf_dealloc(ld->dbg, files, DW_DLA_LIST);
}

/* Set each row's end to the next greater address of its sequence, then keep
 * the sequence unless the linker discarded its code (address 0 or a
 * tombstone), as gdb does. */
static void finish_sequence(struct loader *ld, size_t start, uint64_t end_addr)
{
	size_t endi = ld->nrows;
	if (start == endi)
		return;
	uint64_t next = end_addr;
	for (size_t i = endi; i-- > start;) {
		if (i + 1 < endi && ld->rows[i + 1].r.addr > ld->rows[i].r.addr)
			next = ld->rows[i + 1].r.addr;
		ld->rows[i].r.end = next;
	}
	uint64_t first = ld->rows[start].r.addr;
	if (first == 0 || first >= (uint64_t)-2)
		ld->nrows = start;
}

/* gdb's buildsym, on a switch from file `from` to another at address
 * addr, deletes from's rows at addr (record_line with line 0): a line whose
 * rows all sit where code of another file (an inlined header function)
 * starts has no code of its own, and `break FILE:LINE` moves past it. */
static void drop_at_switch(struct loader *ld, size_t seq_start, const char *from,
			   uint64_t addr)
{
	for (size_t i = ld->nrows; i-- > seq_start && ld->rows[i].r.addr == addr;)
		if (ld->rows[i].r.file == from)
			ld->rows[i].dead = true;
}

static void add_line(struct loader *ld, Dwarf_Line line, size_t *seq_start)
{
	Dwarf_Error e = NULL;
	Dwarf_Addr addr = 0;
	Dwarf_Unsigned lineno = 0;
	Dwarf_Bool stmt = 0, endseq = 0;
	if (dwarf_lineaddr(line, &addr, &e) != DW_DLV_OK)
		return;
	dwarf_lineno(line, &lineno, &e);
	dwarf_linebeginstatement(line, &stmt, &e);
	dwarf_lineendsequence(line, &endseq, &e);
	if (endseq) {
		finish_sequence(ld, *seq_start, addr);
		*seq_start = ld->nrows;
		ld->sm_file = NULL;
		ld->sm_line = 0;
		ld->sm_disc = false;
		ld->sm_addr = 0;
		ld->sm_stmt_at = false;
		return;
	}
	Dwarf_Bool pe = 0, eb = 0;
	Dwarf_Unsigned isa = 0, disc = 0;
	dwarf_prologue_end_etc(line, &pe, &eb, &isa, &disc, &e);
	const char *file = file_of(ld, line);
	/* gdb 13 (lnp_state_machine::record_line) ignores a non-statement
	 * row that switches file at an address that has a statement row,
	 * but takes its file and line as the last ones seen. */
	bool switched = ld->sm_file && ld->sm_file != file;
	bool ignore = switched && addr == ld->sm_addr && !stmt && ld->sm_stmt_at;
	if (addr != ld->sm_addr)
		ld->sm_stmt_at = false;
	ld->sm_addr = addr;
	ld->sm_stmt_at |= stmt != 0;
	if (ignore) {
		keep_row(ld, file, (int)lineno, disc);
		return;
	}
	if (switched)
		drop_at_switch(ld, *seq_start, ld->sm_file, addr);
	if (!keep_row(ld, file, (int)lineno, disc))
		return;
	XGROW(ld->rows, ld->cap, ld->nrows + 1);
	struct tmp_row *t = &ld->rows[ld->nrows];
	t->r = (struct lines_row){ .addr = addr, .end = addr,
				   .file = file,
				   .line = (int)lineno, .is_stmt = stmt };
	t->dead = false;
	t->ord = ld->nrows++;
}

/* The file numbers of a DWARF 5 table's n rows read from its bytes (in the
 * file, or decompressed in memory), or NULL if they cannot be (another row
 * count). */
static uint32_t *v5_fnos(struct loader *ld, Dwarf_Line_Context ctx, size_t n)
{
	const struct dwcu_lines *s = &ld->lt->dw->sane;
	Dwarf_Unsigned off = 0;
	Dwarf_Error e = NULL;
	uint32_t *v = NULL;
	if ((!s->raw && !s->data) || dwarf_srclines_table_offset(ctx, &off, &e) != DW_DLV_OK)
		return NULL;
	size_t got = s->raw ? linefno_rows(ld->lt->dw->fd, s->sec_off, s->sec_size, off, &v) :
			      linefno_rows_mem(s->data, s->data_size, off, &v);
	if (got != n) {
		free(v);
		return NULL;
	}
	return v;
}

static void load_rows(struct loader *ld, Dwarf_Die cu)
{
	Dwarf_Unsigned version = 0;
	Dwarf_Small tables = 0;
	Dwarf_Line_Context ctx = NULL;
	Dwarf_Line *lines = NULL;
	Dwarf_Signed n = 0;
	Dwarf_Error e = NULL;

	Dwarf_Signed base = 0, nfiles, end;
	int r = dwarf_srclines_b(cu, &version, &tables, &ctx, &e);
	if (r == DW_DLV_OK)
		dwarf_srclines_files_indexes(ctx, &base, &nfiles, &end, &e);
	load_files(ld, cu, r == DW_DLV_OK ? ctx : NULL, base);
	if (r != DW_DLV_OK)
		return;
	ld->sm_file = NULL;
	ld->sm_line = 0;
	ld->sm_disc = false;
	ld->sm_addr = 0;
	ld->sm_stmt_at = false;
	if (dwarf_srclines_from_linecontext(ctx, &lines, &n, &e) == DW_DLV_OK) {
		size_t seq_start = ld->nrows;
		if (version == 5)
			ld->fnos = v5_fnos(ld, ctx, (size_t)n);
		for (Dwarf_Signed i = 0; i < n; i++) {
			ld->row = (size_t)i;
			add_line(ld, lines[i], &seq_start);
		}
		free(ld->fnos);
		ld->fnos = NULL;
		/* A table that does not end its last sequence is broken:
		 * drop the unterminated rows. */
		ld->nrows = seq_start;
	}
	dwarf_srclines_dealloc_b(ctx);
}

static int cmp_tmp_row(const void *a, const void *b)
{
	const struct tmp_row *x = a, *y = b;
	if (x->r.addr != y->r.addr)
		return x->r.addr < y->r.addr ? -1 : 1;
	return x->ord < y->ord ? -1 : x->ord > y->ord;
}

/* Sort rows by address, keeping their order among equals, and drop empty
 * ones; returns the count. */
static size_t sort_rows(struct tmp_row *tmp, size_t n, struct lines_row **out)
{
	size_t k = 0;
	if (n)
		qsort(tmp, n, sizeof(*tmp), cmp_tmp_row);
	*out = xmalloc((n ? n : 1) * sizeof(**out));
	for (size_t i = 0; i < n; i++)
		if (tmp[i].r.addr < tmp[i].r.end && !tmp[i].dead)
			(*out)[k++] = tmp[i].r;
	return k;
}

/* Read the line table of unit i. */
void lines_cu_load(struct lines *lt, size_t i)
{
	struct lcu *cu = &lt->cus[i];
	Dwarf_Die die = NULL;
	Dwarf_Error e = NULL;
	if (cu->loaded)
		return;
	cu->loaded = true;
	lt->nloaded++;
	if (dwarf_offdie_b(lt->dbg, cu->off, 1, &die, &e) != DW_DLV_OK)
		return;
	struct loader ld = { .lt = lt, .cu = cu, .dbg = lt->dbg };
	load_rows(&ld, die);
	dwarf_dealloc_die(die);
	cu->nrows = sort_rows(ld.rows, ld.nrows, &cu->rows);
	free(ld.rows);
	free(ld.fcache);
}

struct note_ctx {
	struct lines *lt;
	size_t cu;
};

static void note_range(void *arg, uint64_t lo, uint64_t hi)
{
	struct note_ctx *nc = arg;
	struct lines *lt = nc->lt;
	XGROW(lt->ranges, lt->capranges, lt->nranges + 1);
	lt->ranges[lt->nranges++] = (struct lrange){ .lo = lo, .hi = hi, .cu = nc->cu };
}

/* A unit's file table, so that lines_file knows headers without code too
 * (a loaded unit noted its own in load_files). */
static void note_files(struct lines *lt, struct lcu *cu)
{
	char **files = NULL;
	Dwarf_Signed n = 0;
	Dwarf_Die die = NULL;
	Dwarf_Error e = NULL;
	if (cu->loaded || dwarf_offdie_b(lt->dbg, cu->off, 1, &die, &e) != DW_DLV_OK)
		return;
	if (dwcu_files_ok(&lt->dw->sane, die) && dwarf_srcfiles(die, &files, &n, &e) == DW_DLV_OK) {
		for (Dwarf_Signed i = 0; i < n; i++) {
			cu_add_file(cu, lines_intern(lt, files[i]));
			dwarf_dealloc(lt->dbg, files[i], DW_DLA_STRING);
		}
		dwarf_dealloc(lt->dbg, files, DW_DLA_LIST);
	}
	dwarf_dealloc_die(die);
}

/* Every unit's file table (once): reading 2,000 of them costs 25 ms, so
 * not before a file is asked for by name. */
void lines_note_files(struct lines *lt)
{
	if (lt->files_noted)
		return;
	lt->files_noted = true;
	for (size_t i = 0; i < lt->ncus; i++)
		note_files(lt, &lt->cus[i]);
}

/* What lines_open notes of a unit: where it is and its code. */
static void note_cu(void *arg, Dwarf_Die die, Dwarf_Off abbrev)
{
	struct lines *lt = arg;
	Dwarf_Addr base = 0;
	Dwarf_Error e = NULL;
	(void)abbrev;
	XGROW(lt->cus, lt->capcus, lt->ncus + 1);
	struct lcu *cu = &lt->cus[lt->ncus];
	memset(cu, 0, sizeof(*cu));
	dwarf_dieoffset(die, &cu->off, &e);
	struct note_ctx nc = { lt, lt->ncus };
	if (dwarf_lowpc(die, &base, &e) != DW_DLV_OK)
		base = 0;
	if (!dwcu_ranges(lt->dbg, die, base, note_range, &nc)) {
		XGROW(lt->noranges, lt->capnoranges, lt->nnoranges + 1);
		lt->noranges[lt->nnoranges++] = lt->ncus;
	}
	lt->ncus++;
}

static int cmp_lrange(const void *a, const void *b)
{
	const struct lrange *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static void index_ranges(struct lines *lt)
{
	uint64_t maxhi = 0;
	if (lt->nranges)
		qsort(lt->ranges, lt->nranges, sizeof(*lt->ranges), cmp_lrange);
	for (size_t i = 0; i < lt->nranges; i++) {
		if (lt->ranges[i].hi > maxhi)
			maxhi = lt->ranges[i].hi;
		lt->ranges[i].maxhi = maxhi;
	}
}

struct lines *lines_from(struct dwcu_file *dw)
{
	struct lines *lt = xcalloc(1, sizeof(*lt));
	lt->dw = dwcu_file_get(dw);
	lt->dbg = dw->dbg;
	if (!lt->dbg)
		return lt;
	dwcu_each(lt->dbg, note_cu, lt);
	index_ranges(lt);
	return lt;
}

struct lines *lines_open(const char *path, char *err, size_t errlen)
{
	struct dwcu_file *dw = dwcu_file_open(path, err, errlen);
	if (!dw)
		return NULL;
	struct lines *lt = lines_from(dw);
	dwcu_file_put(dw);
	return lt;
}

static void lines_free_shown(struct lines *lt)
{
	for (size_t i = 0; i < lt->shown.cap; i++)
		free(hmap_slot(&lt->shown, i));
	hmap_free(&lt->shown);
}

void lines_close(struct lines *lt)
{
	if (!lt)
		return;
	dwcu_file_put(lt->dw);
	for (size_t i = 0; i < lt->ncus; i++) {
		free(lt->cus[i].files);
		free(lt->cus[i].rows);
	}
	free(lt->cus);
	free(lt->ranges);
	free(lt->noranges);
	free(lt->rows);
	for (size_t i = 0; i < lt->nall; i++)
		free((char *)lt->all[i]);
	free(lt->all);
	free(lt->files);
	hmap_free(&lt->names);
	lines_free_shown(lt);
	free(lt);
}

/* Load every unit and merge their rows in the order one table of all of
 * them would have: by address, then unit, then row. */
void lines_merge_all(struct lines *lt)
{
	size_t n = 0, k = 0;
	if (lt->merged)
		return;
	lt->merged = true;
	for (size_t i = 0; i < lt->ncus; i++) {
		lines_cu_load(lt, i);
		n += lt->cus[i].nrows;
	}
	struct tmp_row *tmp = xmalloc((n ? n : 1) * sizeof(*tmp));
	for (size_t i = 0; i < lt->ncus; i++)
		for (size_t j = 0; j < lt->cus[i].nrows; j++, k++)
			tmp[k] = (struct tmp_row){ .r = lt->cus[i].rows[j], .ord = k };
	lt->nrows = sort_rows(tmp, n, &lt->rows);
	free(tmp);

	struct hmap seen = {0};    /* names are interned: their addresses do */
	lt->files = xmalloc((lt->nall + 1) * sizeof(*lt->files));
	for (size_t i = 0; i < lt->nrows; i++) {
		const char *f = lt->rows[i].file;
		if (hmap_get(&seen, (uintptr_t)f))
			continue;
		hmap_put(&seen, (uintptr_t)f, (void *)f);
		lt->files[lt->nfiles++] = f;
	}
	hmap_free(&seen);
}

/* Units are loaded on demand, so the const lookups below fill lt in: it is
 * never const in fact (lines_open made it). */
struct lines *lines_mut(const struct lines *lt)
{
	return (struct lines *)(uintptr_t)lt;
}

bool lines_empty(const struct lines *clt)
{
	struct lines *lt = lines_mut(clt);
	for (size_t i = 0; i < lt->ncus; i++) {
		lines_cu_load(lt, i);
		if (lt->cus[i].nrows)
			return false;
	}
	return true;
}

/* Index of the first row with addr > pc. */
static size_t upper_bound(const struct lines_row *rows, size_t n, uint64_t pc)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (rows[mid].addr <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t lines_lower_bound(const struct lines *clt, uint64_t pc)
{
	struct lines *lt = lines_mut(clt);
	lines_merge_all(lt);
	size_t lo = 0, hi = lt->nrows;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (lt->rows[mid].addr < pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The last row at or before pc of unit i, after loading it. */
static const struct lines_row *cu_row_at(struct lines *lt, size_t i, uint64_t pc)
{
	lines_cu_load(lt, i);
	size_t k = upper_bound(lt->cus[i].rows, lt->cus[i].nrows, pc);
	return k ? &lt->cus[i].rows[k - 1] : NULL;
}

/* Index of the first unit range starting after pc. */
static size_t upper_bound_range(const struct lines *lt, uint64_t pc)
{
	size_t lo = 0, hi = lt->nranges;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (lt->ranges[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Of the units whose code covers pc (and those without ranges), the last
 * row at or before pc, as in one table of all units: a later unit wins at
 * the same address. *cu gets its unit. */
static const struct lines_row *row_before(struct lines *lt, uint64_t pc, size_t *cu)
{
	const struct lines_row *best = NULL;
	size_t i = upper_bound_range(lt, pc);
	while (i-- > 0 && lt->ranges[i].maxhi > pc) {
		const struct lrange *rg = &lt->ranges[i];
		const struct lines_row *r = rg->hi > pc ? cu_row_at(lt, rg->cu, pc) : NULL;
		if (r && (!best || r->addr > best->addr || (r->addr == best->addr && rg->cu > *cu))) {
			best = r;
			*cu = rg->cu;
		}
	}
	for (size_t j = 0; j < lt->nnoranges; j++) {
		size_t c = lt->noranges[j];
		const struct lines_row *r = cu_row_at(lt, c, pc);
		if (r && (!best || r->addr > best->addr || (r->addr == best->addr && c > *cu))) {
			best = r;
			*cu = c;
		}
	}
	return best;
}

/* The last row of an address wins, but like gdb (find_pc_sect_line) a
 * non-statement row gives way to a statement row at the same address. */
const struct lines_row *lines_at(const struct lines *clt, uint64_t pc)
{
	struct lines *lt = lines_mut(clt);
	size_t cu = 0;
	const struct lines_row *r = row_before(lt, pc, &cu);
	if (!r || pc >= r->end)
		return NULL;
	if (!r->is_stmt) {
		const struct lines_row *t = r, *first = lt->cus[cu].rows;
		while (t > first && t[-1].addr == t->addr && t[-1].line && !t->is_stmt)
			t--;
		if (t->is_stmt)
			r = t;
	}
	return r->line ? r : NULL;
}

const struct lines_row *lines_rows(const struct lines *clt, size_t *n)
{
	struct lines *lt = lines_mut(clt);
	lines_merge_all(lt);
	*n = lt->nrows;
	return lt->rows;
}
