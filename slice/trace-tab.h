/* trace-tab: the trace's side tables (statement instances, the instance
 * in effect from a record on, the control parent in effect) as append-only
 * arrays of rows of two 32-bit fields, held compactly: rows go in chunks of
 * TRACE_TAB_CHUNK; a full chunk is delta-coded by column and
 * zstd-compressed into a temporary file shared by the tables (in memory if
 * no file can be made), with a small index in memory (where, first value
 * of field a, smallest and largest of field b). A few chunks stay
 * decompressed in a cache for reads. A statement-dense loop starts an
 * instance every 3 instructions: 24 bytes an instance in plain arrays was
 * most of a long recording's memory. */
#ifndef QZ_SLICE_TRACE_TAB_H
#define QZ_SLICE_TRACE_TAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TRACE_TAB_CHUNK 4096
#define TRACE_TAB_CACHE 4

struct trace_row { uint32_t a, b; };

/* Where closed chunks go: one file for all the tables of a trace. */
struct trace_tab_file {
	FILE *f;
	uint64_t end;            /* bytes written (dropped chunks stay as garbage) */
	bool failed;             /* no file: chunks stay in memory, compressed */
};

struct trace_tab_chunk {
	uint64_t off;            /* in the file */
	uint8_t *mem;            /* or here (no file) */
	uint32_t csize;
	uint32_t a0;             /* field a of its first row */
	uint32_t bmin, bmax;     /* field b's range over its rows */
};

struct trace_tab_slot { int64_t chunk; struct trace_row *rows; uint64_t used; };
struct trace_tab_cache;

struct trace_tab {
	struct trace_tab_file *file;
	struct trace_row *open;  /* rows [nchunks * CHUNK, n), raw */
	size_t n;
	struct trace_tab_chunk *chunks;
	size_t nchunks, chunks_cap;
	struct trace_tab_cache *cache;   /* decompressed chunks (made with the first) */
};

void trace_tab_free(struct trace_tab *t);
/* Forget every row (the file keeps its bytes). */
void trace_tab_clear(struct trace_tab *t);
void trace_tab_push(struct trace_tab *t, struct trace_row r);
/* Row i (< n): the open chunk's directly (the recorder asks for the
 * instance in effect at every instruction), others through the cache. */
struct trace_row trace_tab_get_closed(const struct trace_tab *t, size_t i);
static inline struct trace_row trace_tab_get(const struct trace_tab *t, size_t i)
{
	if (i / TRACE_TAB_CHUNK == t->nchunks)
		return t->open[i % TRACE_TAB_CHUNK];
	return trace_tab_get_closed(t, i);
}
/* Replace the last row. */
void trace_tab_set_last(struct trace_tab *t, struct trace_row r);
/* The last row (n > 0): always in the open chunk. */
static inline struct trace_row trace_tab_last(const struct trace_tab *t)
{
	return t->open[t->n - 1 - t->nchunks * TRACE_TAB_CHUNK];
}
/* Keep the first n rows. */
void trace_tab_truncate(struct trace_tab *t, size_t n);
/* The rows of the chunk holding row i, from row *first on, *count of
 * them: valid until the next call on t. */
const struct trace_row *trace_tab_rows(const struct trace_tab *t, size_t i, size_t *first,
				       size_t *count);
/* With field a ascending: how many rows have a <= v. */
size_t trace_tab_upto(const struct trace_tab *t, uint32_t v);
/* Rows whose field b may equal v: the chunks that can hold it, from chunk
 * index *k on (start with 0; going forward) or back (start with
 * SIZE_MAX; going backward); false when there are none left. *first and
 * *count as for trace_tab_rows. */
const struct trace_row *trace_tab_find_b(const struct trace_tab *t, uint32_t v, bool back,
					 size_t *k, size_t *first, size_t *count);
/* Bytes held in memory. */
size_t trace_tab_bytes(const struct trace_tab *t);

#endif
