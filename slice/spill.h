/* spill: the temporary files a recording's bulk goes to (the trace's
 * frames and side tables, the undo log's older part, slices' edges): made
 * in $TMPDIR (else /tmp), close-on-exec, and unlinked from the start
 * (O_TMPFILE, or mkstemp then unlink), so that no exit path, not even a
 * kill, leaves one behind. Where none can be made (a read-only or full
 * directory, or `set record tmpfile off` for the tests) the callers keep
 * their bytes in memory, and a warning says so once. */
#ifndef QZ_SLICE_SPILL_H
#define QZ_SLICE_SPILL_H

#include <stdbool.h>
#include <stdio.h>

struct qz;

/* A new unlinked read-write temporary file, or -1 (then the warning is
 * given once through q, or with the next call that has a q). */
int spill_fd(struct qz *q);
/* The same as a stdio stream, or NULL (no q: the warning waits). */
FILE *spill_file(void);
/* set record tmpfile on|off: off makes spill_fd fail (the fallback). */
void spill_set_enabled(bool on);
bool spill_enabled(void);

#endif
