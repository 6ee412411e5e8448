/* lines-load: lines_open and lines_close, and loading a unit's rows when
 * a lookup first needs them: its file table, gdb's line state machine
 * (which rows it keeps), the rows sorted by address. File names are
 * interned in a string set. */
#include "lines-int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"

struct loader {
	struct lines *lt;
	struct lines_cu *cu;
	Dwarf_Debug dbg;
	struct lines_tmp_row *rows;
	size_t nrows, cap;
	const char **fcache;      /* per-CU: line file number -> name */
	size_t nfcache;
	/* gdb's line state machine, reset at each sequence: the last file and
	 * line seen, and whether that line has had a non-zero discriminator. */
	const char *sm_file;
	int sm_line;
	bool sm_disc;
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

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

char **lines_strset_slot(const struct lines_strset *set, const char *s)
{
	size_t mask = set->cap - 1;
	size_t i = str_hash(s) & mask;
	while (set->slots[i] && strcmp(set->slots[i], s))
		i = (i + 1) & mask;
	return &set->slots[i];
}

void lines_strset_grow(struct lines_strset *set)
{
	struct lines_strset big = { xcalloc(set->cap ? set->cap * 2 : 64, sizeof(char *)),
			      set->cap ? set->cap * 2 : 64, set->n };
	for (size_t i = 0; i < set->cap; i++)
		if (set->slots[i])
			*lines_strset_slot(&big, set->slots[i]) = set->slots[i];
	free(set->slots);
	*set = big;
}

const char *lines_strset_find(const struct lines_strset *set, const char *s)
{
	return set->cap ? *lines_strset_slot(set, s) : NULL;
}

static void strset_free(struct lines_strset *set)
{
	for (size_t i = 0; i < set->cap; i++)
		free(set->slots[i]);
	free(set->slots);
}

char *lines_path_normalise(const char *p)
{
	struct sbuf b = {0};
	bool abs = p[0] == '/';
	if (abs)
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

static const char *lines_intern(struct lines *lt, const char *path)
{
	char *norm = lines_path_normalise(path);
	const char *old = lines_strset_find(&lt->names, norm);
	if (old) {
		free(norm);
		return old;
	}
	if ((lt->names.n + 1) * 2 > lt->names.cap)
		lines_strset_grow(&lt->names);
	*lines_strset_slot(&lt->names, norm) = norm;
	lt->names.n++;
	XGROW(lt->all, lt->capall, lt->nall + 1);
	lt->all[lt->nall++] = norm;
	return norm;
}

/* Tell a missing or non-ELF file from an ELF one without debug info, which
 * libdwarf reports alike. */
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

/* Note that cu has rows or a file table entry for f. */
static void cu_add_file(struct lines_cu *cu, const char *f)
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
	if (dwarf_line_srcfileno(line, &fno, &e) == DW_DLV_OK &&
	    fno < ld->nfcache && ld->fcache[fno])
		return ld->fcache[fno];
	return "??";
}

/* The unit's file table by line file number (the first is number base:
 * 1 before DWARF 5, 0 since). */
static void load_files(struct loader *ld, Dwarf_Die cu, Dwarf_Signed base)
{
	char **files = NULL;
	Dwarf_Signed n = 0;
	Dwarf_Error e = NULL;
	ld->nfcache = 0;
	if (!dwcu_files_ok(&ld->lt->sane, cu) || dwarf_srcfiles(cu, &files, &n, &e) != DW_DLV_OK)
		return;
	if (base < 0 || base > 1)
		base = 0;
	ld->fcache = xrealloc(ld->fcache, (size_t)(n + 1) * sizeof(*ld->fcache));
	ld->nfcache = (size_t)(n + base);
	ld->fcache[0] = NULL;
	for (Dwarf_Signed i = 0; i < n; i++) {
		ld->fcache[base + i] = lines_intern(ld->lt, files[i]);
		cu_add_file(ld->cu, ld->fcache[base + i]);
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
		return;
	}
	Dwarf_Bool pe = 0, eb = 0;
	Dwarf_Unsigned isa = 0, disc = 0;
	dwarf_prologue_end_etc(line, &pe, &eb, &isa, &disc, &e);
	const char *file = file_of(ld, line);
	if (!keep_row(ld, file, (int)lineno, disc))
		return;
	XGROW(ld->rows, ld->cap, ld->nrows + 1);
	struct lines_tmp_row *t = &ld->rows[ld->nrows];
	t->r = (struct lines_row){ .addr = addr, .end = addr,
				   .file = file,
				   .line = (int)lineno, .is_stmt = stmt };
	t->ord = ld->nrows++;
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
	load_files(ld, cu, base);
	if (r != DW_DLV_OK)
		return;
	ld->sm_file = NULL;
	ld->sm_line = 0;
	ld->sm_disc = false;
	if (dwarf_srclines_from_linecontext(ctx, &lines, &n, &e) == DW_DLV_OK) {
		size_t seq_start = ld->nrows;
		for (Dwarf_Signed i = 0; i < n; i++)
			add_line(ld, lines[i], &seq_start);
		/* A table that does not end its last sequence is broken:
		 * drop the unterminated rows. */
		ld->nrows = seq_start;
	}
	dwarf_srclines_dealloc_b(ctx);
}

static int cmp_tmp_row(const void *a, const void *b)
{
	const struct lines_tmp_row *x = a, *y = b;
	if (x->r.addr != y->r.addr)
		return x->r.addr < y->r.addr ? -1 : 1;
	return x->ord < y->ord ? -1 : x->ord > y->ord;
}

size_t lines_sort_rows(struct lines_tmp_row *tmp, size_t n, struct lines_row **out)
{
	size_t k = 0;
	if (n)
		qsort(tmp, n, sizeof(*tmp), cmp_tmp_row);
	*out = xmalloc((n ? n : 1) * sizeof(**out));
	for (size_t i = 0; i < n; i++)
		if (tmp[i].r.addr < tmp[i].r.end)
			(*out)[k++] = tmp[i].r;
	return k;
}

void lines_cu_load(struct lines *lt, size_t i)
{
	struct lines_cu *cu = &lt->cus[i];
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
	cu->nrows = lines_sort_rows(ld.rows, ld.nrows, &cu->rows);
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
	lt->ranges[lt->nranges++] = (struct lines_range){ .lo = lo, .hi = hi, .cu = nc->cu };
}

/* What lines_open notes of a unit: where it is, its code, its files (so
 * that lines_file knows headers without code too). */
static void note_cu(void *arg, Dwarf_Die die, Dwarf_Off abbrev)
{
	struct lines *lt = arg;
	char **files = NULL;
	Dwarf_Signed n = 0;
	Dwarf_Addr base = 0;
	Dwarf_Error e = NULL;
	(void)abbrev;
	XGROW(lt->cus, lt->capcus, lt->ncus + 1);
	struct lines_cu *cu = &lt->cus[lt->ncus];
	memset(cu, 0, sizeof(*cu));
	dwarf_dieoffset(die, &cu->off, &e);
	if (dwcu_files_ok(&lt->sane, die) && dwarf_srcfiles(die, &files, &n, &e) == DW_DLV_OK) {
		for (Dwarf_Signed i = 0; i < n; i++) {
			cu_add_file(cu, lines_intern(lt, files[i]));
			dwarf_dealloc(lt->dbg, files[i], DW_DLA_STRING);
		}
		dwarf_dealloc(lt->dbg, files, DW_DLA_LIST);
	}
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
	const struct lines_range *x = a, *y = b;
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

struct lines *lines_open(const char *path, char *err, size_t errlen)
{
	Dwarf_Debug dbg = NULL;
	Dwarf_Error e = NULL;

	struct dwcu_lines sane = {0};
	if (check_elf(path, err, errlen) < 0 || dwcu_check_file(path, &sane, err, errlen) < 0)
		return NULL;
	struct lines *lt = xcalloc(1, sizeof(*lt));
	lt->sane = sane;
	int res = dwcu_init(path, &lt->fd, &dbg, &e);
	if (res == DW_DLV_ERROR) {
		snprintf(err, errlen, "%s: %s", path, dwarf_errmsg(e));
		dwarf_dealloc(dbg, e, DW_DLA_ERROR);
		dwcu_lines_free(&lt->sane);
		free(lt);
		return NULL;
	}
	if (res == DW_DLV_NO_ENTRY)
		return lt;
	lt->dbg = dbg;
	dwcu_each(dbg, note_cu, lt);
	index_ranges(lt);
	return lt;
}

void lines_close(struct lines *lt)
{
	if (!lt)
		return;
	if (lt->dbg) {
		Dwarf_Error e = NULL;
		dwarf_finish(lt->dbg, &e);
		close(lt->fd);
	}
	dwcu_lines_free(&lt->sane);
	for (size_t i = 0; i < lt->ncus; i++) {
		free(lt->cus[i].files);
		free(lt->cus[i].rows);
	}
	free(lt->cus);
	free(lt->ranges);
	free(lt->noranges);
	free(lt->rows);
	free(lt->all);
	free(lt->files);
	strset_free(&lt->names);
	free(lt);
}

