/* frame: the call stack of the stopped process, unwound lazily from CFI
 * (frame-pointer walk as a fallback), and how a frame is described in
 * gdb's words: "main (argc=1, argv=0x7ffe...) at basic.c:61". */
#ifndef QZ_FRAME_H
#define QZ_FRAME_H

#include <stdbool.h>
#include <stdint.h>

#include "dinfo/dinfo.h"
#include "util/util.h"

struct qz;
struct qz_module;
struct user_regs_struct;

/* DWARF register dwarf (0-16) in ptrace's register block. */
uint64_t *frame_user_reg(struct user_regs_struct *u, int dwarf);

/* inline_unskip value that shows every inlined call */
#define FRAME_INLINE_ALL 1000

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
	/* An inlined call shows as a frame of its own, as in gdb: the frames of
	 * one machine frame share registers and CFA; inl is the inlined call
	 * (NULL for the function's own frame, the last of the set). */
	const struct di_inline *inl;
	bool sigtramp;                /* the signal trampoline a handler returns to */
	/* where a function called from the debugger returns to (infcall.h):
	 * "<function called from qzdb>", its caller has the registers of
	 * before the call */
	const struct infcall_dummy *dummy;
	int set_first, set_real;      /* levels of the set's first and own frame */
	/* A frame whose function tail-called the one below it (gdb's
	 * TAILCALL_FRAME, rebuilt from the call sites' tail-call flags): its pc
	 * is the address after the jump, its registers those of its real
	 * callee's caller, its CFA its real callee's; a set of its own. */
	bool tailcall;
	struct qz *q;                 /* the session, for entry-value lookups */
};

/* Frame n of the current stop (0 = innermost), or NULL past the outermost.
 * Valid until the process resumes. */
const struct frame *frame_get(struct qz *q, int n);
void frame_invalidate(struct qz *q);
/* The inline state of code at pc as frame 0 would show it: returns the
 * number of inlined-call frames shown; *skipped counts the hidden ones that
 * start at pc, whose call site is *call_file:*call_line. */
int frame_inline_state(struct qz *q, uint64_t pc, int *skipped, int *call_line,
		       const char **call_file);
/* A user breakpoint for function func (NULL: for an address) stopped at
 * pc: show the inlined calls starting there down to func's, as gdb does. */
void frame_unskip_for(struct qz *q, uint64_t pc, const char *func);
/* Where frame f returns to and its CFA, even for main (whose caller
 * backtraces do not show). 0, or -1 if it cannot be unwound. */
int frame_return(struct qz *q, const struct frame *f, uint64_t *ra, uint64_t *cfa);
/* gdb's frame_unwind_caller_pc (info frame's "saved rip"): past inlined
 * and tail-call frames to a real one, the pc of the frame above it (a
 * tail-call frame's pc for the function a tail call entered). 0 or -1. */
int frame_caller_pc(struct qz *q, const struct frame *f, uint64_t *pc);
/* The frame a finish from f returns to: the next one up that is not a
 * tail-call frame (those were left when their jumps were made), or NULL. */
const struct frame *frame_real_caller(struct qz *q, const struct frame *f);
/* gdb's frame base on x86-64 (`info frame`'s "Arglist at" and "Locals
 * at"), from the prologue as gdb reads it: rbp once `push %rbp; mov
 * %rsp,%rbp` begins the function and the pc is past the push, else rsp
 * less 8 (0 after the push). -1 for an inlined call's frame (gdb:
 * "unknown address"). */
int frame_base_address(struct qz *q, const struct frame *f, uint64_t *base);
/* Where frame f saved its caller's registers (from the CFI; an inlined
 * call's frame saves none): 0, or -1 if unknown. */
int frame_saved_regs(struct qz *q, const struct frame *f, struct di_regs *slots);

/* "square (x=3) at tests/fixtures/basic.c:19", with "0x... in " first when
 * with_addr; libraries without debug info: "0x... in puts () from
 * /lib/x86_64-linux-gnu/libc.so.6". */
void frame_describe(struct qz *q, const struct frame *f, bool with_addr,
		    struct sbuf *out);
/* Print a stop location as gdb does: the frame line (if want_frame) and the
 * source line, with the address when the pc is mid-line. */
void frame_print_stop(struct qz *q, const struct frame *f, bool want_frame);
/* "#N  frame" and its source line, as `frame N` prints a selected frame. */
void frame_print_level(struct qz *q, int n, const struct frame *f);
/* gdb shows a frame's pc when it is not at the start of a line: always
 * for callers (a return address), never for a frame an inlined call sits in
 * (the call site is its line). */
bool frame_shows_addr(const struct frame *f);
/* Variables visible in frame f (its inlined call's or its function's). */
size_t frame_vars(const struct frame *f, const struct di_var **out, size_t max);
/* The evaluation context of a frame for DWARF locations. */
void frame_di_ctx(struct qz *q, const struct frame *f, struct di_ctx *ctx);
/* Name of a file as gdb prints it (as the compiler was given it). */
const char *frame_file_name(struct qz *q, const char *file);

/* The parameter gdb shows in place of params[i]: gdb looks each one up by
 * name in the function's block, which finds the last parameter of that
 * name (gcc gives a clone's parameter a second DIE holding its constant
 * value: string_printf.constprop's s). */
struct di_var;
const struct di_var *frame_param_shown(const struct di_var *params, size_t n, size_t i);

#endif
