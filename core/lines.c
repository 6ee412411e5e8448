/* lines: DWARF line tables of one ELF file, read eagerly with libdwarf into
 * one address-sorted row array. File names are interned absolute paths so
 * that callers compare them by pointer. Address lookups and breakpoint
 * placement follow gdb's rules. */
#include "lines.h"
#include "dwcu.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <libdwarf.h>

/* An interned string set: open addressing, power-of-two capacity. */
struct strset {
	char **slots;
	size_t cap;
	size_t n;
};

struct lines {
	struct lines_row *rows;   /* sorted by addr, stable: sequence order
	                             is kept among rows of one address */
	size_t nrows;
	struct strset names;      /* every file of every file table */
	const char **all;         /* names in first-seen order */
	size_t nall, capall;
	const char **files;       /* names that have rows, first-seen order */
	size_t nfiles;
};

/* A row while loading: ord keeps the sort stable. */
struct tmp_row {
	struct lines_row r;
	bool end_seq;
	size_t ord;
};

struct loader {
	struct lines *lt;
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

static char **strset_slot(const struct strset *set, const char *s)
{
	size_t mask = set->cap - 1;
	size_t i = str_hash(s) & mask;
	while (set->slots[i] && strcmp(set->slots[i], s))
		i = (i + 1) & mask;
	return &set->slots[i];
}

static void strset_grow(struct strset *set)
{
	struct strset big = { xcalloc(set->cap ? set->cap * 2 : 64, sizeof(char *)),
			      set->cap ? set->cap * 2 : 64, set->n };
	for (size_t i = 0; i < set->cap; i++)
		if (set->slots[i])
			*strset_slot(&big, set->slots[i]) = set->slots[i];
	free(set->slots);
	*set = big;
}

static const char *strset_find(const struct strset *set, const char *s)
{
	return set->cap ? *strset_slot(set, s) : NULL;
}

static void strset_free(struct strset *set)
{
	for (size_t i = 0; i < set->cap; i++)
		free(set->slots[i]);
	free(set->slots);
}

/* Drop "." components and doubled slashes; ".." is kept because it cannot
 * be resolved textually across symlinks. */
static char *path_normalise(const char *p)
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
	char *norm = path_normalise(path);
	const char *old = strset_find(&lt->names, norm);
	if (old) {
		free(norm);
		return old;
	}
	if ((lt->names.n + 1) * 2 > lt->names.cap)
		strset_grow(&lt->names);
	*strset_slot(&lt->names, norm) = norm;
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

static const char *file_of(struct loader *ld, Dwarf_Line line)
{
	Dwarf_Unsigned fno = 0;
	Dwarf_Error e = NULL;
	if (dwarf_line_srcfileno(line, &fno, &e) != DW_DLV_OK || fno > 100000)
		fno = 0;
	if (fno < ld->nfcache && ld->fcache[fno])
		return ld->fcache[fno];
	char *src = NULL;
	const char *name = "??";
	if (dwarf_linesrc(line, &src, &e) == DW_DLV_OK) {
		name = lines_intern(ld->lt, src);
		dwarf_dealloc(ld->dbg, src, DW_DLA_STRING);
	}
	if (fno >= ld->nfcache) {
		ld->fcache = xrealloc(ld->fcache, (fno + 1) * sizeof(*ld->fcache));
		memset(ld->fcache + ld->nfcache, 0,
		       (fno + 1 - ld->nfcache) * sizeof(*ld->fcache));
		ld->nfcache = fno + 1;
	}
	ld->fcache[fno] = name;
	return name;
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
	struct tmp_row *t = &ld->rows[ld->nrows];
	t->r = (struct lines_row){ .addr = addr, .end = addr,
				   .file = file,
				   .line = (int)lineno, .is_stmt = stmt };
	t->ord = ld->nrows++;
}

/* Intern every file of the CU's file table, so that lines_file knows
 * headers without code too. */
static void add_cu_files(struct loader *ld, Dwarf_Die cu)
{
	char **files = NULL;
	Dwarf_Signed n = 0;
	Dwarf_Error e = NULL;
	if (dwarf_srcfiles(cu, &files, &n, &e) != DW_DLV_OK)
		return;
	for (Dwarf_Signed i = 0; i < n; i++) {
		lines_intern(ld->lt, files[i]);
		dwarf_dealloc(ld->dbg, files[i], DW_DLA_STRING);
	}
	dwarf_dealloc(ld->dbg, files, DW_DLA_LIST);
}

static void load_cu(struct loader *ld, Dwarf_Die cu)
{
	Dwarf_Unsigned version = 0;
	Dwarf_Small tables = 0;
	Dwarf_Line_Context ctx = NULL;
	Dwarf_Line *lines = NULL;
	Dwarf_Signed n = 0;
	Dwarf_Error e = NULL;

	add_cu_files(ld, cu);
	if (dwarf_srclines_b(cu, &version, &tables, &ctx, &e) != DW_DLV_OK)
		return;
	ld->nfcache = 0;
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

static void load_one_cu(void *arg, Dwarf_Die cu, Dwarf_Off abbrev)
{
	(void)abbrev;
	load_cu(arg, cu);
}

static void load_all(struct loader *ld)
{
	dwcu_each(ld->dbg, load_one_cu, ld);
}

static int cmp_tmp_row(const void *a, const void *b)
{
	const struct tmp_row *x = a, *y = b;
	if (x->r.addr != y->r.addr)
		return x->r.addr < y->r.addr ? -1 : 1;
	return x->ord < y->ord ? -1 : x->ord > y->ord;
}

/* Sort, drop empty rows and note which files have rows. */
static void finish_rows(struct lines *lt, struct tmp_row *tmp, size_t n)
{
	if (n)
		qsort(tmp, n, sizeof(*tmp), cmp_tmp_row);
	lt->rows = xmalloc(n * sizeof(*lt->rows));
	for (size_t i = 0; i < n; i++)
		if (tmp[i].r.addr < tmp[i].r.end)
			lt->rows[lt->nrows++] = tmp[i].r;

	struct strset seen = {0};
	lt->files = xmalloc((lt->nall + 1) * sizeof(*lt->files));
	for (size_t i = 0; i < lt->nrows; i++) {
		const char *f = lt->rows[i].file;
		if (strset_find(&seen, f))
			continue;
		if ((seen.n + 1) * 2 > seen.cap)
			strset_grow(&seen);
		*strset_slot(&seen, f) = (char *)f;
		seen.n++;
		lt->files[lt->nfiles++] = f;
	}
	free(seen.slots);
}

struct lines *lines_open(const char *path, char *err, size_t errlen)
{
	Dwarf_Debug dbg = NULL;
	Dwarf_Error e = NULL;

	if (check_elf(path, err, errlen) < 0 || dwcu_check_lists(path, err, errlen) < 0)
		return NULL;
	struct lines *lt = xcalloc(1, sizeof(*lt));
	int res = dwarf_init_path(path, NULL, 0, DW_DLC_READ, DW_GROUPNUMBER_ANY,
				  NULL, NULL, &dbg, NULL, 0, NULL, &e);
	if (res == DW_DLV_ERROR) {
		snprintf(err, errlen, "%s: %s", path, dwarf_errmsg(e));
		dwarf_dealloc(dbg, e, DW_DLA_ERROR);
		free(lt);
		return NULL;
	}
	if (res == DW_DLV_NO_ENTRY)
		return lt;

	struct loader ld = { .lt = lt, .dbg = dbg };
	load_all(&ld);
	dwarf_finish(dbg, &e);
	finish_rows(lt, ld.rows, ld.nrows);
	free(ld.rows);
	free(ld.fcache);
	return lt;
}

void lines_close(struct lines *lt)
{
	if (!lt)
		return;
	free(lt->rows);
	free(lt->all);
	free(lt->files);
	strset_free(&lt->names);
	free(lt);
}

bool lines_empty(const struct lines *lt)
{
	return lt->nrows == 0;
}

/* Index of the first row with addr > pc. */
static size_t upper_bound(const struct lines *lt, uint64_t pc)
{
	size_t lo = 0, hi = lt->nrows;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (lt->rows[mid].addr <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t lines_lower_bound(const struct lines *lt, uint64_t pc)
{
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

/* The last row of an address wins, but like gdb (find_pc_sect_line) a
 * non-statement row gives way to a statement row at the same address. */
const struct lines_row *lines_at(const struct lines *lt, uint64_t pc)
{
	size_t i = upper_bound(lt, pc);
	if (i == 0)
		return NULL;
	const struct lines_row *r = &lt->rows[i - 1];
	if (pc >= r->end)
		return NULL;
	if (!r->is_stmt) {
		const struct lines_row *t = r;
		while (t > lt->rows && t[-1].addr == t->addr && t[-1].line &&
		       !t->is_stmt)
			t--;
		if (t->is_stmt)
			r = t;
	}
	return r->line ? r : NULL;
}

const struct lines_row *lines_rows(const struct lines *lt, size_t *n)
{
	*n = lt->nrows;
	return lt->rows;
}

/* name is a whole trailing part of path: "basic.c" and "fixtures/basic.c"
 * match "/src/fixtures/basic.c", "asic.c" does not. */
static bool suffix_match(const char *path, const char *name)
{
	size_t lp = strlen(path), ln = strlen(name);
	if (ln > lp || strcmp(path + lp - ln, name))
		return false;
	return ln == lp || path[lp - ln - 1] == '/' || name[0] == '/';
}

static const char *find_suffix(const char **list, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (suffix_match(list[i], name))
			return list[i];
	return NULL;
}

const char *lines_file(const struct lines *lt, const char *name)
{
	if (!name || !*name)
		return NULL;
	char *norm = path_normalise(name);
	const char *f = NULL;
	if (norm[0] == '/')
		f = strset_find(&lt->names, norm);
	else if (!(f = find_suffix(lt->files, lt->nfiles, norm)))
		f = find_suffix(lt->all, lt->nall, norm);
	free(norm);
	return f;
}

const char **lines_files(const struct lines *lt, size_t *n)
{
	*n = lt->nfiles;
	return lt->files;
}

/* Accept an interned pointer or any name lines_file understands. */
static const char *resolve_file(const struct lines *lt, const char *file)
{
	for (size_t i = 0; i < lt->nall; i++)
		if (lt->all[i] == file)
			return file;
	return lines_file(lt, file);
}

/* The line gdb would use: line itself if it has statement rows, else the
 * smallest greater line with statement rows; 0 if none. */
static int pick_line(const struct lines *lt, const char *f, int line)
{
	int best = 0;
	for (size_t i = 0; i < lt->nrows; i++) {
		const struct lines_row *r = &lt->rows[i];
		if (r->file != f || !r->is_stmt || r->line < line)
			continue;
		if (r->line == line)
			return line;
		if (!best || r->line < best)
			best = r->line;
	}
	return best;
}

size_t lines_addrs_for(const struct lines *lt, const char *file, int line,
		       lines_func_of_fn func_of, void *arg,
		       uint64_t **out, int *actual_line)
{
	uint64_t *addrs = NULL, *funcs = NULL;
	size_t n = 0, cap = 0, fcap = 0;
	const char *f = resolve_file(lt, file);
	int use = f ? pick_line(lt, f, line) : 0;

	*out = NULL;
	if (actual_line)
		*actual_line = use;
	if (!use)
		return 0;
	for (size_t i = 0; i < lt->nrows; i++) {
		const struct lines_row *r = &lt->rows[i];
		if (r->file != f || !r->is_stmt || r->line != use)
			continue;
		uint64_t fn = func_of ? func_of(arg, r->addr) : 0;
		size_t j = 0;
		while (j < n && funcs[j] != fn)
			j++;
		if (j < n)
			continue;  /* rows are in address order: keep the lowest */
		XGROW(addrs, cap, n + 1);
		XGROW(funcs, fcap, n + 1);
		addrs[n] = r->addr;
		funcs[n++] = fn;
	}
	free(funcs);
	*out = addrs;
	return n;
}

int lines_max_line(const struct lines *lt, const char *file)
{
	const char *f = resolve_file(lt, file);
	int max = 0;
	for (size_t i = 0; f && i < lt->nrows; i++)
		if (lt->rows[i].file == f && lt->rows[i].line > max)
			max = lt->rows[i].line;
	return max;
}
