/* whowrote: the recording asked about memory: who last wrote bytes, and
 * which writes ran past their object. */
#ifndef QZ_SLICE_WHOWROTE_H
#define QZ_SLICE_WHOWROTE_H

#include <stdint.h>

struct qz;
struct mn_map;

/* Print the last recorded writer of each byte of [a, a+size) ("what" names
 * them in the heading). 0. */
int ww_report(struct qz *q, struct mn_map *map, uint64_t a, uint64_t size, const char *what);
/* Print every recorded overflow. 0. */
int ww_overflows(struct qz *q, struct mn_map *map);

#endif
