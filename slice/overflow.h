/* overflow: the recorded writes that ran past the object they started in
 * (`info overflows`), for the command and for explain. */
#ifndef QZ_SLICE_OVERFLOW_H
#define QZ_SLICE_OVERFLOW_H

#include <stddef.h>
#include <stdint.h>

#include "memname.h"

struct qz;
struct sbuf;

struct ov_report {
	uint32_t stmt;            /* the writing statement */
	int32_t inst_lo, inst_hi; /* its instances (trace instance ids) */
	struct mn_obj obj;        /* the object the writes started in */
	uint64_t start, end;      /* the bytes written [start, end) */
	uint64_t bytes;           /* end - start (the largest, if repeated) */
	uint64_t rec;             /* the record of the first write */
	uint64_t lib_pc;          /* written inside a library function: a pc of it */
	size_t times;             /* the same overflow by the same statement */
};

/* Every overflow of the current recording, in the order they began;
 * *out is the caller's to free. */
size_t ov_find(struct qz *q, struct mn_map *map, struct ov_report **out);
/* "ov_calc.c:13 #1 (in sprintf) wrote 190 bytes into genstr[80]: 110 past
 * its end, over arrays, ..." */
void ov_describe(struct qz *q, struct mn_map *map, const struct ov_report *p, struct sbuf *b);

#endif
