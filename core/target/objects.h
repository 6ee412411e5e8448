/* objects: the loaded ELF objects of a session (struct qz's exe and libs):
 * the program and its shared libraries, where each is mapped, which holds
 * an address and the symbol at it. */
#ifndef QZ_OBJECTS_H
#define QZ_OBJECTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct qz;
struct img;
struct dwcu_file;

/* One loaded ELF object: the program or a shared library. */
struct qz_module {
	char *path;
	char *name;               /* as the dynamic linker names it (link_map
	                             l_name, "/lib/.../libc.so.6"), or NULL */
	struct img *img;
	/* Line tables and DWARF: the program's are read at startup; a
	 * library's own (built with -g) when it is loaded; those of its
	 * separate debug file (debug_path, libc6-dbg's) on first use, through
	 * qz_mod_lines and qz_mod_di. NULL: none (yet). */
	struct lines *lines;
	struct di_info *di;
	char *debug_path;         /* separate debug file, or NULL */
	bool lines_tried, di_tried;   /* the debug file was opened (or failed) */
	struct dwcu_file *dw;     /* that file's DWARF reader, shared by both */
	struct unw *unw;          /* opened lazily for libraries */
	uint64_t bias;            /* runtime address = link-time + bias */
	uint64_t lo, hi;          /* mapped range, runtime */
	/* Where its inlined calls are by name, from the cache on disk
	 * (dinfo/inlidx.h), for a module whose DWARF is indexed on demand. */
	struct di_inlidx *inlidx;
	bool inlidx_tried;
};

/* The program at path (its image im already open) with its line tables,
 * debug information and unwind tables, as q->exe. */
void qz_exe_open(struct qz *q, const char *path, struct img *im);
/* Read the line tables and the DIE index of path (the program, a library
 * built with -g) into m through one DWARF reader. */
void qz_mod_read_debug(struct qz_module *m, const char *path);
/* The module's line tables and debug information, reading them from its
 * separate debug file the first time they are asked for (a warning if
 * that file is unreadable: the module then has none). */
struct lines *qz_mod_lines(struct qz *q, struct qz_module *m);
struct di_info *qz_mod_di(struct qz *q, struct qz_module *m);
/* The calls of the function called name inlined in m (gdb's `break
 * FUNC` stops at each), by entry, at most max. A module whose DWARF is
 * indexed on demand (a library's separate debug file) reads only the
 * units that may have them, through a name index built once and cached
 * under $XDG_CACHE_HOME/qzdb/ (else ~/.cache/qzdb/) by build-id; a cache
 * missing, damaged or stale is rebuilt. */
struct di_inline;
size_t qz_mod_inlined(struct qz *q, struct qz_module *m, const char *name,
		      const struct di_inline **out, size_t max);
/* Whether the module has debug information, read or still to be read. */
bool qz_mod_has_debug(const struct qz_module *m);
/* The module containing a runtime address, or NULL. */
struct qz_module *qz_module_at(struct qz *q, uint64_t addr);
/* Is pc the program's own code (not a library's)? In a program the
 * dynamic linker loads, its whole module. A static program (no PT_INTERP,
 * -static-pie too) holds libc's code as well: there only code with a
 * line (the program's compilation units) is its own, or all of it when
 * it has no line table (qz_exe_mixed: the two cannot be told apart). */
bool qz_exe_static(const struct qz *q);
bool qz_exe_mixed(const struct qz *q);
bool qz_in_program(struct qz *q, uint64_t pc);
/* [*lo, *hi): runtime addresses holding all of the program's own code
 * (the module's mapping; in a static program the span of its line table,
 * which may hold a few of libc's functions too); 0, 0 before it is
 * mapped. */
void qz_program_span(const struct qz *q, uint64_t *lo, uint64_t *hi);
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
