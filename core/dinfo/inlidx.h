/* inlidx: a name index of a DWARF file's inlined calls, kept on disk.
 *
 * Finding every call of a function inlined into a library (gdb's `break
 * free` has 57 locations in ld.so) means reading every unit, which the
 * lazy index (di_from(dw, true)) exists to avoid. So the units that may
 * hold inlined calls of each name (the units with its abstract instance,
 * and those whose inlined calls refer to other units) are read once, when
 * first needed, and saved under the file's build-id; later sessions read
 * that file and then only the units it names. */
#ifndef QZ_INLIDX_H
#define QZ_INLIDX_H

#include <stddef.h>
#include <stdint.h>

#include "dinfo.h"

struct di_inlidx;

/* Index every unit of di and save the names to path (atomically) for the
 * file whose build-id is build_id. 0, or -1 with errno. */
int di_inlidx_save(struct di_info *di, const char *path, const char *build_id);
/* The index saved at path for build_id, or NULL if it is missing, for
 * another build-id, of another version or damaged in any way. */
struct di_inlidx *di_inlidx_load(const char *path, const char *build_id);
void di_inlidx_free(struct di_inlidx *x);
/* The offsets of the units that may hold inlined calls of name (at most
 * max). */
size_t di_inlidx_units(const struct di_inlidx *x, const char *name, uint64_t *out,
		       size_t max);

#endif
