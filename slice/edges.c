/* edges: a slice's edges in compressed blocks; see edges.h. */
#include "edges.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zstd.h>

#include "slice.h"
#include "spill.h"
#include "util/util.h"

/* A block's columns: from - to, to's delta, addr's delta, rbp_off, and
 * def/reg/kind/framed packed as in the edge. */
struct edges_cols {
	uint32_t from[EDGES_BLK], to[EDGES_BLK];
	uint64_t addr[EDGES_BLK];
	uint32_t off[EDGES_BLK], bits[EDGES_BLK];
};

struct edges_blk { uint64_t off; uint8_t *mem; uint32_t csize; };
struct edges_slot { int64_t blk; uint64_t used; struct slice_edge *v; };

struct edges {
	int fd;                   /* -1: blocks stay in memory, compressed */
	uint64_t end;             /* bytes written */
	struct slice_edge *open;  /* edges [nblks * EDGES_BLK, n) */
	size_t n;
	struct edges_blk *blks;
	size_t nblks, blks_cap;
	struct edges_cols *cols;  /* scratch for coding */
	ZSTD_CCtx *cc;
	ZSTD_DCtx *dc;
	uint8_t *z;
	size_t zcap;
	struct edges_slot slot[EDGES_CACHE];
	uint64_t clock;
};

static uint32_t edges_bits(const struct slice_edge *e)
{
	return e->def | (uint32_t)e->reg << 22 | (uint32_t)e->kind << 30 | (uint32_t)e->framed << 31;
}

struct edges *edges_new(struct qz *q)
{
	struct edges *es = xcalloc(1, sizeof *es);
	es->fd = spill_fd(q);
	for (int s = 0; s < EDGES_CACHE; s++)
		es->slot[s].blk = -1;
	return es;
}

void edges_free(struct edges *es)
{
	if (!es)
		return;
	if (es->fd >= 0)
		close(es->fd);
	for (size_t k = 0; k < es->nblks; k++)
		free(es->blks[k].mem);
	free(es->blks);
	free(es->open);
	free(es->cols);
	free(es->z);
	for (int s = 0; s < EDGES_CACHE; s++)
		free(es->slot[s].v);
	ZSTD_freeCCtx(es->cc);
	ZSTD_freeDCtx(es->dc);
	free(es);
}

/* The open block is full: code it, compress it, and put it in the file. */
static void edges_close(struct edges *es)
{
	if (!es->cols)
		es->cols = xmalloc(sizeof *es->cols);
	if (!es->cc)
		es->cc = ZSTD_createCCtx();
	struct edges_cols *c = es->cols;
	const struct slice_edge *p = es->open;
	uint32_t to = 0;
	uint64_t addr = 0;
	for (size_t i = 0; i < EDGES_BLK; i++) {
		c->from[i] = (uint32_t)p[i].from - (uint32_t)p[i].to;
		c->to[i] = (uint32_t)p[i].to - to;
		c->addr[i] = p[i].addr - addr;
		c->off[i] = (uint32_t)p[i].rbp_off;
		c->bits[i] = edges_bits(&p[i]);
		to = (uint32_t)p[i].to;
		addr = p[i].addr;
	}
	size_t bound = ZSTD_compressBound(sizeof *c);
	XGROW(es->z, es->zcap, bound);
	size_t n = ZSTD_compressCCtx(es->cc, es->z, bound, c, sizeof *c, 1);
	if (ZSTD_isError(n)) {   /* cannot happen with a bound-sized buffer */
		fprintf(stderr, "qzdb: compressing a slice's edges: %s\n", ZSTD_getErrorName(n));
		abort();
	}
	struct edges_blk b = { 0, NULL, (uint32_t)n };
	if (es->fd >= 0 && pwrite(es->fd, es->z, n, (off_t)es->end) == (ssize_t)n) {
		b.off = es->end;
		es->end += n;
	} else {
		b.mem = xmalloc(n);   /* no file, or a full disk: keep it here */
		memcpy(b.mem, es->z, n);
	}
	XGROW(es->blks, es->blks_cap, es->nblks + 1);
	es->blks[es->nblks++] = b;
}

void edges_push(struct edges *es, const struct slice_edge *e)
{
	if (!es->open)
		es->open = xmalloc(EDGES_BLK * sizeof *es->open);
	size_t at = es->n - es->nblks * EDGES_BLK;
	if (at == EDGES_BLK) {
		edges_close(es);
		at = 0;
	}
	es->open[at] = *e;
	es->n++;
}

size_t edges_count(const struct edges *es)
{
	return es ? es->n : 0;
}

/* Decode block k into v; false if its bytes cannot be read back. */
static bool edges_load(struct edges *es, size_t k, struct slice_edge *v)
{
	const struct edges_blk *b = &es->blks[k];
	if (!es->cols)
		es->cols = xmalloc(sizeof *es->cols);
	if (!es->dc)
		es->dc = ZSTD_createDCtx();
	XGROW(es->z, es->zcap, b->csize);
	const uint8_t *z = b->mem;
	if (!z) {
		if (pread(es->fd, es->z, b->csize, (off_t)b->off) != (ssize_t)b->csize)
			return false;
		z = es->z;
	}
	struct edges_cols *c = es->cols;
	if (ZSTD_decompressDCtx(es->dc, c, sizeof *c, z, b->csize) != sizeof *c)
		return false;
	uint32_t to = 0;
	uint64_t addr = 0;
	for (size_t i = 0; i < EDGES_BLK; i++) {
		to += c->to[i];
		addr += c->addr[i];
		uint32_t bits = c->bits[i];
		v[i] = (struct slice_edge){ .from = (int32_t)(c->from[i] + to), .to = (int32_t)to,
			.addr = addr, .rbp_off = (int32_t)c->off[i], .def = bits & SLICE_DEF_NONE,
			.reg = (bits >> 22) & 0xff, .kind = (bits >> 30) & 1, .framed = bits >> 31 };
	}
	return true;
}

struct slice_edge edges_get(const struct edges *ces, size_t i)
{
	struct edges *es = (struct edges *)ces;   /* the cache changes, the edges do not */
	size_t k = i / EDGES_BLK;
	if (k == es->nblks)
		return es->open[i % EDGES_BLK];
	struct edges_slot *victim = &es->slot[0];
	for (int s = 0; s < EDGES_CACHE; s++) {
		struct edges_slot *sl = &es->slot[s];
		if (sl->blk == (int64_t)k) {
			sl->used = ++es->clock;
			return sl->v[i % EDGES_BLK];
		}
		if (sl->used < victim->used)
			victim = sl;
	}
	if (!victim->v)
		victim->v = xmalloc(EDGES_BLK * sizeof *victim->v);
	if (!edges_load(es, k, victim->v))
		for (size_t j = 0; j < EDGES_BLK; j++)
			victim->v[j] = (struct slice_edge){ .from = -1, .to = -1, .def = SLICE_DEF_NONE,
							    .reg = 0xff };
	victim->blk = (int64_t)k;
	victim->used = ++es->clock;
	return victim->v[i % EDGES_BLK];
}

size_t edges_mem_bytes(const struct edges *es)
{
	if (!es)
		return 0;
	size_t b = sizeof *es + es->blks_cap * sizeof *es->blks + es->zcap +
		   (es->open ? EDGES_BLK * sizeof *es->open : 0) + (es->cols ? sizeof *es->cols : 0);
	for (size_t k = 0; k < es->nblks; k++)
		b += es->blks[k].mem ? es->blks[k].csize : 0;
	for (int s = 0; s < EDGES_CACHE; s++)
		b += es->slot[s].v ? EDGES_BLK * sizeof *es->slot[s].v : 0;
	return b;
}

uint64_t edges_file_bytes(const struct edges *es)
{
	return es ? es->end : 0;
}
