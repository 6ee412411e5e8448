/* edges: a slice's dependence edges, append-only and out of memory. A
 * slice over a long loop has one or more edges per instance (9.35 million
 * over 10 million instructions of sl_long's loop: 224 MB as an array):
 * they go in blocks of EDGES_BLK, each delta-coded by column and
 * zstd-compressed into an unlinked temporary file (spill.h; kept
 * compressed in memory if there is none), read back through a cache of
 * EDGES_CACHE decoded blocks. Readers get edges by index, by value. */
#ifndef QZ_SLICE_EDGES_H
#define QZ_SLICE_EDGES_H

#include <stddef.h>
#include <stdint.h>

struct qz;
struct slice_edge;
struct edges;

#define EDGES_BLK 4096
#define EDGES_CACHE 2

/* A new, empty store (q: for the one-time warning of spill.h). */
struct edges *edges_new(struct qz *q);
void edges_free(struct edges *es);
void edges_push(struct edges *es, const struct slice_edge *e);
size_t edges_count(const struct edges *es);
/* Edge i (< count). An edge the file lost reads as an edge from nothing
 * (from -1), which every reader skips. */
struct slice_edge edges_get(const struct edges *es, size_t i);
/* Bytes held in memory; bytes in the file. */
size_t edges_mem_bytes(const struct edges *es);
uint64_t edges_file_bytes(const struct edges *es);

#endif
