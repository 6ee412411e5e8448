/* blocks: fixed-size elements in compressed blocks; see blocks.h. */
#define _GNU_SOURCE   /* fallocate */
#include "blocks.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zstd.h>

#include "spill.h"
#include "util/util.h"

struct blocks_blk { uint64_t off; uint8_t *mem; uint32_t csize; };
struct blocks_slot { int64_t blk; uint64_t used; uint8_t *v; };

/* One file for every sequence of the session (a slice has two; a user may
 * keep hundreds): each appends at its end; a sequence freed gives its
 * bytes back (punched out), the last one the whole file. */
static struct blocks_file { int fd; uint64_t end; size_t users; } blocks_file = { -1, 0, 0 };

struct blocks {
	const struct blocks_coder *c;
	int fd;                   /* the shared file, -1: blocks stay in memory */
	uint64_t end;             /* bytes written */
	uint8_t *open;            /* elements [nblks * BLOCKS_N, n) */
	size_t n;
	struct blocks_blk *blks;
	size_t nblks, blks_cap;
	uint8_t *coded;           /* scratch: one coded block */
	ZSTD_CCtx *cc;
	ZSTD_DCtx *dc;
	uint8_t *z;
	size_t zcap;
	struct blocks_slot slot[BLOCKS_CACHE];
	uint64_t clock;
};

struct blocks *blocks_new(struct qz *q, const struct blocks_coder *c)
{
	struct blocks *b = xcalloc(1, sizeof *b);
	b->c = c;
	if (blocks_file.fd < 0 && !blocks_file.users)
		blocks_file.fd = spill_fd(q);
	b->fd = blocks_file.fd;
	blocks_file.users++;
	for (int s = 0; s < BLOCKS_CACHE; s++)
		b->slot[s].blk = -1;
	return b;
}

void blocks_free(struct blocks *b)
{
	if (!b)
		return;
	for (size_t k = 0; k < b->nblks; k++) {
		free(b->blks[k].mem);
		if (!b->blks[k].mem && b->fd >= 0)   /* where it cannot, the bytes stay */
			fallocate(b->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				  (off_t)b->blks[k].off, (off_t)b->blks[k].csize);
	}
	if (--blocks_file.users == 0 && blocks_file.fd >= 0) {
		close(blocks_file.fd);   /* made again, maybe elsewhere, when needed */
		blocks_file.fd = -1;
		blocks_file.end = 0;
	}
	free(b->blks);
	free(b->open);
	free(b->coded);
	free(b->z);
	for (int s = 0; s < BLOCKS_CACHE; s++)
		free(b->slot[s].v);
	ZSTD_freeCCtx(b->cc);
	ZSTD_freeDCtx(b->dc);
	free(b);
}

/* The open block is full: code it, compress it, and put it in the file. */
static void blocks_close(struct blocks *b)
{
	if (!b->coded)
		b->coded = xmalloc(b->c->coded);
	if (!b->cc)
		b->cc = ZSTD_createCCtx();
	b->c->encode(b->open, b->coded);
	size_t bound = ZSTD_compressBound(b->c->coded);
	XGROW(b->z, b->zcap, bound);
	size_t n = ZSTD_compressCCtx(b->cc, b->z, bound, b->coded, b->c->coded, 1);
	if (ZSTD_isError(n)) {   /* cannot happen with a bound-sized buffer */
		fprintf(stderr, "qzdb: compressing a block: %s\n", ZSTD_getErrorName(n));
		abort();
	}
	struct blocks_blk k = { 0, NULL, (uint32_t)n };
	if (b->fd >= 0 && pwrite(b->fd, b->z, n, (off_t)blocks_file.end) == (ssize_t)n) {
		k.off = blocks_file.end;
		blocks_file.end += n;
		b->end += n;
	} else {
		k.mem = xmalloc(n);   /* no file, or a full disk: keep it here */
		memcpy(k.mem, b->z, n);
	}
	XGROW(b->blks, b->blks_cap, b->nblks + 1);
	b->blks[b->nblks++] = k;
}

void blocks_push(struct blocks *b, const void *elem)
{
	if (!b->open)
		b->open = xmalloc(BLOCKS_N * b->c->elem);
	size_t at = b->n - b->nblks * BLOCKS_N;
	if (at == BLOCKS_N) {
		blocks_close(b);
		at = 0;
	}
	uint8_t *to = b->open + at * b->c->elem;
	if (b->c->elem == 4)   /* sizes known here are copied inline */
		memcpy(to, elem, 4);
	else if (b->c->elem == 24)
		memcpy(to, elem, 24);
	else
		memcpy(to, elem, b->c->elem);
	b->n++;
}

size_t blocks_count(const struct blocks *b)
{
	return b ? b->n : 0;
}

/* Decode block k into v; false if its bytes cannot be read back. */
static bool blocks_load(struct blocks *b, size_t k, uint8_t *v)
{
	const struct blocks_blk *bk = &b->blks[k];
	if (!b->coded)
		b->coded = xmalloc(b->c->coded);
	if (!b->dc)
		b->dc = ZSTD_createDCtx();
	XGROW(b->z, b->zcap, bk->csize);
	const uint8_t *z = bk->mem;
	if (!z) {
		if (pread(b->fd, b->z, bk->csize, (off_t)bk->off) != (ssize_t)bk->csize)
			return false;
		z = b->z;
	}
	if (ZSTD_decompressDCtx(b->dc, b->coded, b->c->coded, z, bk->csize) != b->c->coded)
		return false;
	b->c->decode(b->coded, v);
	return true;
}

const void *blocks_get(const struct blocks *cb, size_t i)
{
	struct blocks *b = (struct blocks *)cb;   /* the cache changes, the elements do not */
	size_t k = i / BLOCKS_N, at = (i % BLOCKS_N) * b->c->elem;
	if (k == b->nblks)
		return b->open + at;
	struct blocks_slot *victim = &b->slot[0];
	for (int s = 0; s < BLOCKS_CACHE; s++) {
		struct blocks_slot *sl = &b->slot[s];
		if (sl->blk == (int64_t)k) {
			sl->used = ++b->clock;
			return sl->v + at;
		}
		if (sl->used < victim->used)
			victim = sl;
	}
	if (!victim->v)
		victim->v = xmalloc(BLOCKS_N * b->c->elem);
	bool ok = blocks_load(b, k, victim->v);
	victim->blk = ok ? (int64_t)k : -1;
	victim->used = ++b->clock;
	return ok ? victim->v + at : NULL;
}

size_t blocks_mem_bytes(const struct blocks *b)
{
	if (!b)
		return 0;
	size_t m = sizeof *b + b->blks_cap * sizeof *b->blks + b->zcap +
		   (b->open ? BLOCKS_N * b->c->elem : 0) + (b->coded ? b->c->coded : 0);
	for (size_t k = 0; k < b->nblks; k++)
		m += b->blks[k].mem ? b->blks[k].csize : 0;
	for (int s = 0; s < BLOCKS_CACHE; s++)
		m += b->slot[s].v ? BLOCKS_N * b->c->elem : 0;
	return m;
}

uint64_t blocks_file_bytes(const struct blocks *b)
{
	return b ? b->end : 0;
}
