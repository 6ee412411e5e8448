/* lines: DWARF line tables of one ELF file, read with libdwarf. lines_open
 * only notes each unit's code ranges and file table; a unit's rows are read
 * (into an address-sorted array) when a lookup first needs them, so that
 * start-up stays fast on large programs. File names are interned absolute
 * paths so that callers compare them by pointer. Address lookups and
 * breakpoint placement follow gdb's rules.
 *
 * This file answers the lookups; opening, closing and loading a unit's
 * rows are in lines-load.c. */
#include "lines-int.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

/* Load every unit and merge their rows in the order one table of all of
 * them would have: by address, then unit, then row. */
static void merge_all(struct lines *lt)
{
	size_t n = 0, k = 0;
	if (lt->merged)
		return;
	lt->merged = true;
	for (size_t i = 0; i < lt->ncus; i++) {
		lines_cu_load(lt, i);
		n += lt->cus[i].nrows;
	}
	struct lines_tmp_row *tmp = xmalloc((n ? n : 1) * sizeof(*tmp));
	for (size_t i = 0; i < lt->ncus; i++)
		for (size_t j = 0; j < lt->cus[i].nrows; j++, k++)
			tmp[k] = (struct lines_tmp_row){ .r = lt->cus[i].rows[j], .ord = k };
	lt->nrows = lines_sort_rows(tmp, n, &lt->rows);
	free(tmp);

	struct lines_strset seen = {0};
	lt->files = xmalloc((lt->nall + 1) * sizeof(*lt->files));
	for (size_t i = 0; i < lt->nrows; i++) {
		const char *f = lt->rows[i].file;
		if (lines_strset_find(&seen, f))
			continue;
		if ((seen.n + 1) * 2 > seen.cap)
			lines_strset_grow(&seen);
		*lines_strset_slot(&seen, f) = (char *)f;
		seen.n++;
		lt->files[lt->nfiles++] = f;
	}
	free(seen.slots);
}

/* Units are loaded on demand, so the const lookups below fill lt in: it is
 * never const in fact (lines_open made it). */
static struct lines *mut(const struct lines *lt)
{
	return (struct lines *)(uintptr_t)lt;
}

bool lines_empty(const struct lines *clt)
{
	struct lines *lt = mut(clt);
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
	struct lines *lt = mut(clt);
	merge_all(lt);
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
		const struct lines_range *rg = &lt->ranges[i];
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
	struct lines *lt = mut(clt);
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
	struct lines *lt = mut(clt);
	merge_all(lt);
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

static bool cu_has_file(const struct lines_cu *cu, const char *f)
{
	for (size_t i = 0; i < cu->nfiles; i++)
		if (cu->files[i] == f)
			return true;
	return false;
}

/* A row of one file with its place in one table of all units. */
struct frow {
	const struct lines_row *r;
	size_t cu, idx;
};

static int cmp_frow(const void *a, const void *b)
{
	const struct frow *x = a, *y = b;
	if (x->r->addr != y->r->addr)
		return x->r->addr < y->r->addr ? -1 : 1;
	if (x->cu != y->cu)
		return x->cu < y->cu ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The rows of file f (loading the units that have it) in address order;
 * returns the count, the caller frees *out. */
static size_t file_rows(struct lines *lt, const char *f, struct frow **out)
{
	struct frow *v = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < lt->ncus; i++) {
		if (!cu_has_file(&lt->cus[i], f))
			continue;
		lines_cu_load(lt, i);
		const struct lines_cu *cu = &lt->cus[i];
		for (size_t j = 0; j < cu->nrows; j++) {
			if (cu->rows[j].file != f)
				continue;
			XGROW(v, cap, n + 1);
			v[n++] = (struct frow){ &cu->rows[j], i, j };
		}
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_frow);
	*out = v;
	return n;
}

/* Of several files that name could mean, the one whose rows come first in
 * address order; if none has rows, the first one seen. */
static const char *first_with_rows(struct lines *lt, const char **cand, size_t n)
{
	const char *best = NULL;
	struct frow bestr = {0};
	for (size_t i = 0; i < n; i++) {
		struct frow *rows;
		if (file_rows(lt, cand[i], &rows) &&
		    (!best || cmp_frow(&rows[0], &bestr) < 0)) {
			best = cand[i];
			bestr = rows[0];
		}
		free(rows);
	}
	return best ? best : cand[0];
}

const char *lines_file(const struct lines *clt, const char *name)
{
	struct lines *lt = mut(clt);
	if (!name || !*name)
		return NULL;
	char *norm = lines_path_normalise(name);
	const char *f = NULL;
	if (norm[0] == '/') {
		f = lines_strset_find(&lt->names, norm);
	} else {
		const char **cand = NULL;
		size_t n = 0, cap = 0;
		for (size_t i = 0; i < lt->nall; i++) {
			if (!suffix_match(lt->all[i], norm))
				continue;
			XGROW(cand, cap, n + 1);
			cand[n++] = lt->all[i];
		}
		f = n == 1 ? cand[0] : n ? first_with_rows(lt, cand, n) : NULL;
		free(cand);
	}
	free(norm);
	return f;
}

const char **lines_files(const struct lines *clt, size_t *n)
{
	struct lines *lt = mut(clt);
	merge_all(lt);
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
static int pick_line(const struct frow *rows, size_t n, int line)
{
	int best = 0;
	for (size_t i = 0; i < n; i++) {
		const struct lines_row *r = rows[i].r;
		if (!r->is_stmt || r->line < line)
			continue;
		if (r->line == line)
			return line;
		if (!best || r->line < best)
			best = r->line;
	}
	return best;
}

size_t lines_addrs_for(const struct lines *clt, const char *file, int line,
		       lines_func_of_fn func_of, void *arg,
		       uint64_t **out, int *actual_line)
{
	struct lines *lt = mut(clt);
	uint64_t *addrs = NULL, *funcs = NULL;
	size_t n = 0, cap = 0, fcap = 0;
	struct frow *rows = NULL;
	const char *f = resolve_file(lt, file);
	size_t nrows = f ? file_rows(lt, f, &rows) : 0;
	int use = pick_line(rows, nrows, line);

	*out = NULL;
	if (actual_line)
		*actual_line = use;
	for (size_t i = 0; use && i < nrows; i++) {
		const struct lines_row *r = rows[i].r;
		if (!r->is_stmt || r->line != use)
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
	free(rows);
	free(funcs);
	*out = addrs;
	return n;
}

int lines_max_line(const struct lines *clt, const char *file)
{
	struct lines *lt = mut(clt);
	const char *f = resolve_file(lt, file);
	struct frow *rows = NULL;
	size_t n = f ? file_rows(lt, f, &rows) : 0;
	int max = 0;
	for (size_t i = 0; i < n; i++)
		if (rows[i].r->line > max)
			max = rows[i].r->line;
	free(rows);
	return max;
}
