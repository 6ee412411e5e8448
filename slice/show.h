/* show: how slices and their edges are printed (info slice, deps), as
 * text that stays short on long loops, or as JSON. */
#ifndef QZ_SLICE_SHOW_H
#define QZ_SLICE_SHOW_H

#include <stdbool.h>
#include <stdint.h>

struct qz;
struct slice;

/* One statement a line in discovery order with its instances: a few
 * spelled out, more as runs with a count (full: every run). */
void show_members(struct qz *q, const struct slice *s, bool full);
void show_members_json(struct qz *q, const struct slice *s);
/* The edges out of instance inst; edges to several instances of one
 * statement through one place are one line. */
void show_deps(struct qz *q, const struct slice *s, int32_t inst, bool json);

#endif
