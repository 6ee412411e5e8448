/* objects: the loaded ELF objects of a session (struct qz's exe and libs):
 * the program and its shared libraries, where each is mapped, which holds
 * an address and the symbol at it. */
#ifndef QZ_OBJECTS_H
#define QZ_OBJECTS_H

#include <stddef.h>
#include <stdint.h>

struct qz;
struct img;

/* One loaded ELF object: the program or a shared library. */
struct qz_module {
	char *path;
	char *name;               /* as the dynamic linker names it (link_map
	                             l_name, "/lib/.../libc.so.6"), or NULL */
	struct img *img;
	struct lines *lines;      /* NULL for libraries (no debug info yet) */
	struct di_info *di;       /* NULL for libraries */
	struct unw *unw;          /* opened lazily for libraries */
	uint64_t bias;            /* runtime address = link-time + bias */
	uint64_t lo, hi;          /* mapped range, runtime */
};

/* The program at path (its image im already open) with its line tables,
 * debug information and unwind tables, as q->exe. */
void qz_exe_open(struct qz *q, const char *path, struct img *im);
/* The module containing a runtime address, or NULL. */
struct qz_module *qz_module_at(struct qz *q, uint64_t addr);
/* "main+4", "puts@plt" or NULL, for <...> annotations. */
const char *qz_symbolize(struct qz *q, uint64_t addr, char *buf, size_t len);
const char *qz_symbolize_cb(void *q, uint64_t addr, char *buf, size_t len);
/* Refresh the library list from /proc/PID/maps. */
void qz_refresh_modules(struct qz *q);
/* Free library i and close the gap in q->libs (it was unloaded). */
void qz_module_drop(struct qz *q, size_t i);
/* The process executed path: it is the program from now on (symbols,
 * line tables and unwind info of path replace the old ones). */
int qz_exec_reload(struct qz *q, const char *path);
/* Forget the libraries (the process is gone); and also the program (the
 * session ends). */
void qz_libs_free(struct qz *q);
void qz_objects_free(struct qz *q);

#endif
