/* sbreak: slice breakpoints' entries in the breakpoint table. */
#ifndef QZ_SLICE_SBREAK_H
#define QZ_SLICE_SBREAK_H

#include <stdbool.h>
#include <stddef.h>

struct qz;

/* A table entry for an sbreak on slice `slice` stopping at ninst
 * instances; returns its number (tag the st->sb entries with it). */
int sb_entry_new(struct qz *q, int slice, size_t ninst);
/* Is entry num enabled (deleted: no)? hit: count a stop. */
bool sb_enabled(struct qz *q, int num, bool hit);
/* sdelete: the slice's entries go with it. */
void sb_delete_slice(struct qz *q, int slice);
/* Session end: the entries let go of the slice state. */
void sb_fini(struct qz *q);

#endif
