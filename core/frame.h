/* frame: the call stack of the stopped process, unwound lazily from CFI
 * (frame-pointer walk as a fallback), and how a frame is described in
 * gdb's words: "main (argc=1, argv=0x7ffe...) at basic.c:61". */
#ifndef QZ_FRAME_H
#define QZ_FRAME_H

#include <stdbool.h>
#include <stdint.h>

#include "dinfo.h"
#include "util.h"

struct qz;
struct qz_module;

struct frame {
	int level;
	struct di_regs regs;          /* r[DI_REG_RIP] is the frame's pc */
	uint64_t pc;
	uint64_t cfa;
	bool has_cfa;
	struct qz_module *mod;        /* NULL if the pc is in no known module */
	const struct di_func *func;   /* NULL without debug info */
	const char *sym;              /* ELF symbol name if no func */
	const char *file;             /* line of pc (pc-1 for callers), or NULL */
	int line;
	bool line_start;              /* pc is the first address of a line row */
	bool exact_pc;                /* frame 0 or interrupted by a signal: the
	                                 pc is not a return address */
};

/* Frame n of the current stop (0 = innermost), or NULL past the outermost.
 * Valid until the process resumes. */
const struct frame *frame_get(struct qz *q, int n);
void frame_invalidate(struct qz *q);
/* Where frame f returns to and its CFA, even for main (whose caller
 * backtraces do not show). 0, or -1 if it cannot be unwound. */
int frame_return(struct qz *q, const struct frame *f, uint64_t *ra, uint64_t *cfa);

/* "square (x=3) at tests/fixtures/basic.c:19", with "0x... in " first when
 * with_addr; libraries without debug info: "0x... in puts () from
 * /lib/x86_64-linux-gnu/libc.so.6". */
void frame_describe(struct qz *q, const struct frame *f, bool with_addr,
		    struct sbuf *out);
/* Print a stop location as gdb does: the frame line (if want_frame) and the
 * source line, with the address when the pc is mid-line. */
void frame_print_stop(struct qz *q, const struct frame *f, bool want_frame);
/* The evaluation context of a frame for DWARF locations. */
void frame_di_ctx(struct qz *q, const struct frame *f, struct di_ctx *ctx);
/* Name of a file as gdb prints it (as the compiler was given it). */
const char *frame_file_name(struct qz *q, const char *file);

#endif
