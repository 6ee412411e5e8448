/* trace-tab: compressed append-only side tables; see trace-tab.h. */
#include "trace-tab.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zstd.h>

#include "util/util.h"
#include "spill.h"

struct trace_tab_cache { struct trace_tab_slot slot[TRACE_TAB_CACHE]; uint64_t clock; };

void trace_tab_free(struct trace_tab *t)
{
	for (size_t k = 0; k < t->nchunks; k++)
		free(t->chunks[k].mem);
	free(t->chunks);
	free(t->open);
	if (t->cache)
		for (int s = 0; s < TRACE_TAB_CACHE; s++)
			free(t->cache->slot[s].rows);
	free(t->cache);
	struct trace_tab_file *f = t->file;
	memset(t, 0, sizeof *t);
	t->file = f;
}

/* Chunks from k on are gone. */
static void trace_tab_drop(struct trace_tab *t, size_t k)
{
	for (size_t j = k; j < t->nchunks; j++)
		free(t->chunks[j].mem);
	if (t->nchunks > k)
		t->nchunks = k;
	for (int s = 0; t->cache && s < TRACE_TAB_CACHE; s++)
		if (t->cache->slot[s].chunk >= (int64_t)k)
			t->cache->slot[s].chunk = -1;
}

void trace_tab_clear(struct trace_tab *t)
{
	trace_tab_drop(t, 0);
	t->n = 0;
}

/* Columns of deltas, compressed; where it goes is the file's business. */
static void trace_tab_close(struct trace_tab *t)
{
	uint32_t *d = xmalloc(2 * TRACE_TAB_CHUNK * sizeof *d);
	struct trace_row prev = { 0, 0 };
	uint32_t bmin = UINT32_MAX, bmax = 0;
	for (size_t i = 0; i < TRACE_TAB_CHUNK; i++) {
		d[i] = t->open[i].a - prev.a;
		d[TRACE_TAB_CHUNK + i] = t->open[i].b - prev.b;
		prev = t->open[i];
		bmin = prev.b < bmin ? prev.b : bmin;
		bmax = prev.b > bmax ? prev.b : bmax;
	}
	size_t raw = 2 * TRACE_TAB_CHUNK * sizeof *d, bound = ZSTD_compressBound(raw);
	uint8_t *z = xmalloc(bound);
	size_t c = ZSTD_compress(z, bound, d, raw, 1);
	free(d);
	if (ZSTD_isError(c)) {   /* cannot happen with a bound-sized buffer */
		fprintf(stderr, "qzdb: compressing a trace table: %s\n", ZSTD_getErrorName(c));
		abort();
	}
	struct trace_tab_chunk ch = { 0, NULL, (uint32_t)c, t->open[0].a, bmin, bmax };
	struct trace_tab_file *f = t->file;
	if (!f->f && !f->failed) {
		f->f = spill_file();
		f->failed = !f->f;
	}
	if (f->f && pwrite(fileno(f->f), z, c, (off_t)f->end) == (ssize_t)c) {
		ch.off = f->end;
		f->end += c;
		free(z);
	} else {
		ch.mem = xrealloc(z, c);   /* a full disk: keep it here */
	}
	XGROW(t->chunks, t->chunks_cap, t->nchunks + 1);
	t->chunks[t->nchunks++] = ch;
	if (!t->cache) {
		t->cache = xcalloc(1, sizeof *t->cache);
		for (int s = 0; s < TRACE_TAB_CACHE; s++)
			t->cache->slot[s].chunk = -1;
	}
}

void trace_tab_push(struct trace_tab *t, struct trace_row r)
{
	if (!t->open)
		t->open = xmalloc(TRACE_TAB_CHUNK * sizeof *t->open);
	size_t at = t->n - t->nchunks * TRACE_TAB_CHUNK;
	if (at == TRACE_TAB_CHUNK) {
		trace_tab_close(t);
		at = 0;
	}
	t->open[at] = r;
	t->n++;
}

void trace_tab_set_last(struct trace_tab *t, struct trace_row r)
{
	t->open[t->n - 1 - t->nchunks * TRACE_TAB_CHUNK] = r;
}

/* Decompress chunk k into rows; false if its bytes cannot be read. */
static bool trace_tab_load(const struct trace_tab *t, size_t k, struct trace_row *rows)
{
	const struct trace_tab_chunk *ch = &t->chunks[k];
	uint8_t *z = ch->mem ? ch->mem : xmalloc(ch->csize);
	uint32_t *d = xmalloc(2 * TRACE_TAB_CHUNK * sizeof *d);
	size_t raw = 2 * TRACE_TAB_CHUNK * sizeof *d;
	bool ok = (ch->mem || pread(fileno(t->file->f), z, ch->csize, (off_t)ch->off) ==
		   (ssize_t)ch->csize) && ZSTD_decompress(d, raw, z, ch->csize) == raw;
	struct trace_row prev = { 0, 0 };
	for (size_t i = 0; ok && i < TRACE_TAB_CHUNK; i++) {
		prev.a += d[i];
		prev.b += d[TRACE_TAB_CHUNK + i];
		rows[i] = prev;
	}
	if (!ch->mem)
		free(z);
	free(d);
	return ok;
}

/* The rows of chunk k (the open one when k == nchunks). A chunk the file
 * lost reads as rows of -1 (no instance, no parent) and a's of the index,
 * which keeps the ascending order the searches need. */
static const struct trace_row *trace_tab_chunk(const struct trace_tab *t, size_t k)
{
	if (k == t->nchunks)
		return t->open;
	struct trace_tab_cache *c = t->cache;
	struct trace_tab_slot *victim = &c->slot[0];
	for (int s = 0; s < TRACE_TAB_CACHE; s++) {
		struct trace_tab_slot *sl = &c->slot[s];
		if (sl->chunk == (int64_t)k) {
			sl->used = ++c->clock;
			return sl->rows;
		}
		if (sl->used < victim->used)
			victim = sl;
	}
	if (!victim->rows)
		victim->rows = xmalloc(TRACE_TAB_CHUNK * sizeof *victim->rows);
	if (!trace_tab_load(t, k, victim->rows))
		for (size_t i = 0; i < TRACE_TAB_CHUNK; i++)
			victim->rows[i] = (struct trace_row){ t->chunks[k].a0, UINT32_MAX };
	victim->chunk = (int64_t)k;
	victim->used = ++c->clock;
	return victim->rows;
}

struct trace_row trace_tab_get_closed(const struct trace_tab *t, size_t i)
{
	return trace_tab_chunk(t, i / TRACE_TAB_CHUNK)[i % TRACE_TAB_CHUNK];
}

const struct trace_row *trace_tab_rows(const struct trace_tab *t, size_t i, size_t *first,
				       size_t *count)
{
	size_t k = i / TRACE_TAB_CHUNK;
	*first = k * TRACE_TAB_CHUNK;
	*count = t->n - *first < TRACE_TAB_CHUNK ? t->n - *first : TRACE_TAB_CHUNK;
	return trace_tab_chunk(t, k);
}

void trace_tab_truncate(struct trace_tab *t, size_t n)
{
	if (n >= t->n)
		return;
	if (!n) {
		trace_tab_clear(t);
		return;
	}
	size_t k = (n - 1) / TRACE_TAB_CHUNK;   /* the last row stays in the open chunk */
	if (k < t->nchunks) {
		memmove(t->open, trace_tab_chunk(t, k), TRACE_TAB_CHUNK * sizeof *t->open);
		trace_tab_drop(t, k);
	}
	t->n = n;
}

size_t trace_tab_upto(const struct trace_tab *t, uint32_t v)
{
	size_t lo = 0, hi = t->nchunks + (t->n > t->nchunks * TRACE_TAB_CHUNK);
	while (lo < hi) {   /* chunks whose first row has a <= v: [0, lo) */
		size_t mid = (lo + hi) / 2;
		uint32_t a0 = mid < t->nchunks ? t->chunks[mid].a0 : t->open[0].a;
		if (a0 <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return 0;
	size_t first, count;
	const struct trace_row *r = trace_tab_rows(t, (lo - 1) * TRACE_TAB_CHUNK, &first, &count);
	size_t a = 0, b = count;
	while (a < b) {
		size_t mid = (a + b) / 2;
		if (r[mid].a <= v)
			a = mid + 1;
		else
			b = mid;
	}
	return first + a;
}

const struct trace_row *trace_tab_find_b(const struct trace_tab *t, uint32_t v, bool back,
					 size_t *k, size_t *first, size_t *count)
{
	size_t nk = t->nchunks + (t->n > t->nchunks * TRACE_TAB_CHUNK);
	size_t j = back ? (*k == SIZE_MAX ? nk : *k) : *k;
	for (;;) {
		if (back ? j == 0 : j >= nk)
			return NULL;
		if (back)
			j--;
		const struct trace_tab_chunk *ch = j < t->nchunks ? &t->chunks[j] : NULL;
		if (!ch || (v >= ch->bmin && v <= ch->bmax))
			break;
		if (!back)
			j++;
	}
	*k = back ? j : j + 1;
	return trace_tab_rows(t, j * TRACE_TAB_CHUNK, first, count);
}

size_t trace_tab_bytes(const struct trace_tab *t)
{
	size_t b = t->chunks_cap * sizeof *t->chunks + (t->open ? TRACE_TAB_CHUNK * sizeof *t->open : 0);
	for (size_t k = 0; k < t->nchunks; k++)
		b += t->chunks[k].mem ? t->chunks[k].csize : 0;
	return b + (t->cache ? sizeof *t->cache + TRACE_TAB_CACHE * TRACE_TAB_CHUNK * sizeof(struct trace_row) : 0);
}
