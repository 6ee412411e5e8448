/* solib: shared libraries followed through the dynamic linker's rendezvous
 * structure (r_debug): an internal stop at r_brk (_dl_debug_state) reports
 * each load and unload, the link map lists what is loaded; libraries come
 * and go from the session's module list, breakpoints on functions are
 * resolved again (pending ones too), and `info sharedlibrary`. */
#ifndef QZ_SOLIB_H
#define QZ_SOLIB_H

#include <stdbool.h>
#include <stdint.h>

struct qz;

/* One entry of the dynamic linker's link map: the n-th object (0 is the
 * program), its load bias and name. */
typedef void (*solib_entry_fn)(struct qz *q, int n, uint64_t bias, const char *name,
			       void *arg);
/* Walk the link map of the r_debug at that runtime address: -1 if there is
 * no list (yet), 0 when read to its end, 1 when cut short (unreadable or
 * implausibly long). */
int solib_walk(struct qz *q, uint64_t r_debug, solib_entry_fn fn, void *arg);

/* Register the module's hooks (once per session). */
void solib_init(struct qz *q);
/* Find library m's debug information: its own DWARF (read now) or its
 * separate debug file (read on first use). */
struct qz_module;
void solib_debug_info(struct qz *q, struct qz_module *m);
/* Read the link map now (after attach, where the libraries are already
 * loaded) and resolve breakpoints again. */
void solib_sync(struct qz *q);

#endif
