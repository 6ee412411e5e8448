/* lines-file: the files of the line tables: names as users give them
 * ("basic.c", "src/basic.c") resolved to the interned paths, the name gdb
 * shows for each, and FILE:LINE resolved to breakpoint addresses as gdb
 * picks them. */
#include "lines-int.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

/* name is a whole trailing part of path: "basic.c" and "fixtures/basic.c"
 * match "/src/fixtures/basic.c", "asic.c" does not. */
static bool suffix_match(const char *path, const char *name)
{
	size_t lp = strlen(path), ln = strlen(name);
	if (ln > lp || strcmp(path + lp - ln, name))
		return false;
	return ln == lp || path[lp - ln - 1] == '/' || name[0] == '/';
}

static bool cu_has_file(const struct lcu *cu, const char *f)
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
		const struct lcu *cu = &lt->cus[i];
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
	struct lines *lt = lines_mut(clt);
	if (!name || !*name)
		return NULL;
	lines_note_files(lt);
	char *norm = str_path_norm(name);
	const char *f = NULL;
	if (norm[0] == '/') {
		f = hmap_sget(&lt->names, norm);
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
	struct lines *lt = lines_mut(clt);
	lines_merge_all(lt);
	*n = lt->nfiles;
	return lt->files;
}

/* Accept an interned pointer or any name lines_file understands. */
static const char *resolve_file(struct lines *lt, const char *file)
{
	lines_note_files(lt);
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
	struct lines *lt = lines_mut(clt);
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
	struct lines *lt = lines_mut(clt);
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

const char *lines_shown_name(const struct lines *lt, const char *file)
{
	return lt ? hmap_sget(&lt->shown, file) : NULL;
}
