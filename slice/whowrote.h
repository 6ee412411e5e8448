/* whowrote: the recording asked about memory: who last wrote bytes, and
 * which writes ran past their object. */
#ifndef QZ_SLICE_WHOWROTE_H
#define QZ_SLICE_WHOWROTE_H

#include <stdbool.h>
#include <stdint.h>

struct qz;
struct mn_map;

/* The last writer of one byte. */
struct ww_byte {
	bool found;
	bool sys;                 /* a system call wrote it */
	int32_t inst;             /* the statement instance in effect, -1 */
	uint64_t rec, pc;         /* the writing record and its pc */
};

/* Walk the recording back from record end (exclusive; the trace's n for
 * the whole of it) until each byte of [a, a+size) (w[0..size), zeroed by
 * the caller) has its last writer before end. */
void ww_walk(struct qz *q, struct ww_byte *w, uint64_t a, uint64_t size, uint64_t end);
/* Print the last recorded writer of each byte of [a, a+size) ("what" names
 * them in the heading). 0. */
int ww_report(struct qz *q, struct mn_map *map, uint64_t a, uint64_t size, const char *what);
/* Print every recorded overflow. 0. */
int ww_overflows(struct qz *q, struct mn_map *map);

#endif
