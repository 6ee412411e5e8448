/* loc: location specs as users type them (FILE:LINE, LINE, FUNC,
 * FILE:FUNC, *ADDR, +N, -N) resolved to code addresses, with gdb's prologue
 * skipping for functions. */
#ifndef QZ_LOC_H
#define QZ_LOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct qz;
struct qz_module;

struct loc_addr {
	struct qz_module *mod;
	uint64_t link_addr;
	uint64_t addr;          /* runtime (link_addr + the module's bias) */
	const char *file;       /* NULL without line info */
	int line;
	const char *func;       /* borrowed from debug info or symbols */
	bool absolute;          /* given as *ADDR */
};

/* Resolve spec; 0 with *out (caller frees) and *n >= 1, or -1 with the
 * session's error set ("No source file named x.c.", "Function \"f\" not
 * defined.", "Line 99 is out of range for \"basic.c\".") */
int loc_resolve(struct qz *q, const char *spec, struct loc_addr **out, size_t *n);

/* The same; without prologue skipping when skip_prologue is false (for
 * info line and list, which look rather than stop). */
int loc_resolve_ex(struct qz *q, const char *spec, bool skip_prologue,
		   struct loc_addr **out, size_t *n);

/* The address gdb stops at for `break FUNC`: after the frame set-up
 * (push %rbp; mov %rsp,%rbp) and, if that is mid-line, at the next line. */
uint64_t loc_skip_prologue(struct qz *q, struct qz_module *m, uint64_t lo, uint64_t hi);

/* Make locs (n of them) breakpoint b's locations, replacing its own. */
struct bp;
void loc_fill_bp(struct qz *q, struct bp *b, const struct loc_addr *locs, size_t n);

/* Fill file/line/func of a link-time address in module m. */
void loc_describe(struct qz *q, struct qz_module *m, struct loc_addr *a);

#endif
