/* blocks: an append-only sequence of fixed-size elements held out of
 * memory: BLOCKS_N elements a block, coded by the caller's coder (deltas
 * by column, typically), zstd-compressed into an unlinked temporary file
 * (spill.h; kept compressed in memory if there is none), read back by
 * index through a cache of BLOCKS_CACHE decoded blocks. The open block
 * stays in memory as elements. A slice's edges (edges.c) and members
 * (slice.c) are kept so: a slice over 10 million instructions of a loop
 * has 9.35 million edges (224 MB as an array) and 3.4 million members. */
#ifndef QZ_SLICE_BLOCKS_H
#define QZ_SLICE_BLOCKS_H

#include <stddef.h>
#include <stdint.h>

struct qz;
struct blocks;

#define BLOCKS_N 4096
#define BLOCKS_CACHE 2

/* How a block of BLOCKS_N elements is coded (coded: bytes of a coded
 * block; the coding is for the compressor: deltas, columns). */
struct blocks_coder {
	size_t elem, coded;
	void (*encode)(const void *elems, void *coded);
	void (*decode)(const void *coded, void *elems);
};

/* A new, empty sequence (q: for spill.h's one-time warning, or NULL). */
struct blocks *blocks_new(struct qz *q, const struct blocks_coder *c);
void blocks_free(struct blocks *b);
void blocks_push(struct blocks *b, const void *elem);
size_t blocks_count(const struct blocks *b);
/* Element i (< count): valid until the next call on b; NULL if the file
 * lost its block. */
const void *blocks_get(const struct blocks *b, size_t i);
/* Bytes held in memory; bytes of b in the file (shared by every b). */
size_t blocks_mem_bytes(const struct blocks *b);
uint64_t blocks_file_bytes(const struct blocks *b);

#endif
