/* frame: unwinding the stopped process and describing frames. */
#include "frame.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/user.h>

#include "infcall.h"
#include "session.h"
#include "tailcall.h"
#include "dinfo/source.h"

enum { FRAME_MAX = 4096, FRAME_INLINE_MAX = 16 };

#define FRAME_U(f) offsetof(struct user_regs_struct, f)
/* Where DWARF register n lives in ptrace's user_regs_struct. */
static const size_t frame_user_off[DI_NREGS] = {
	FRAME_U(rax), FRAME_U(rdx), FRAME_U(rcx), FRAME_U(rbx), FRAME_U(rsi),
	FRAME_U(rdi), FRAME_U(rbp), FRAME_U(rsp), FRAME_U(r8), FRAME_U(r9),
	FRAME_U(r10), FRAME_U(r11), FRAME_U(r12), FRAME_U(r13), FRAME_U(r14),
	FRAME_U(r15), FRAME_U(rip),
};
#undef FRAME_U

uint64_t *frame_user_reg(struct user_regs_struct *u, int dwarf)
{
	return (uint64_t *)((char *)u + frame_user_off[dwarf]);
}

static void frame_regs_from_user(struct user_regs_struct *u, struct di_regs *r)
{
	for (int i = 0; i < DI_NREGS; i++) {
		r->r[i] = *frame_user_reg(u, i);
		r->valid[i] = true;
	}
}

void frame_invalidate(struct qz *q)
{
	q->nframes = 0;
	q->frames_done = false;
}

static struct unw *frame_unw(struct qz_module *m)
{
	char err[256];
	if (!m->unw && m->path)
		m->unw = unw_open(m->path, err, sizeof err);
	return m->unw;
}

/* libc's __restore_rt: mov $15,%rax; syscall (rt_sigreturn), the code a
 * signal handler returns into; gdb recognises it by these bytes too. */
static bool frame_is_sigtramp(struct qz *q, uint64_t pc)
{
	static const uint8_t code[9] = {0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05};
	uint8_t buf[9];
	return qz_read(q, pc, buf, sizeof buf) == 0 && memcmp(buf, code, sizeof buf) == 0;
}

/* Fill the symbolic parts of a frame from its pc. */
static void frame_resolve(struct qz *q, struct frame *f)
{
	uint64_t look = f->exact_pc ? f->pc : f->pc - 1;
	f->mod = qz_module_at(q, f->pc);
	f->func = NULL;
	f->sym = NULL;
	f->file = NULL;
	f->line = 0;
	f->line_start = false;
	f->sigtramp = frame_is_sigtramp(q, f->pc);
	if (!f->mod)
		return;
	uint64_t link = look - f->mod->bias;
	if (qz_mod_di(q, f->mod))
		f->func = di_func_at(f->mod->di, link);
	if (!f->func && f->mod->img) {
		uint64_t off;
		const struct img_sym *s = img_sym_at(f->mod->img, link, &off);
		f->sym = s ? s->name : NULL;
	}
	const struct lines_row *r = qz_mod_lines(q, f->mod) ? lines_at(f->mod->lines, link) : NULL;
	if (r) {
		f->file = r->file;
		f->line = r->line;
		/* gdb shows the pc unless it starts an is_stmt row */
		f->line_start = r->addr == f->pc - f->mod->bias && r->is_stmt;
	}
}

/* Like gdb, backtraces stop at main: what calls it is libc's business. */
static bool frame_is_outermost(const struct frame *f)
{
	const char *name = f->func ? f->func->name : f->sym;
	return name && strcmp(name, "main") == 0;
}

/* Caller of f by a frame-pointer walk: for code without CFI. */
static int frame_fp_step(struct qz *q, const struct frame *f, struct di_regs *c)
{
	if (!f->regs.valid[DI_REG_RBP])
		return -1;
	uint64_t rbp = f->regs.r[DI_REG_RBP], saved[2];
	if (!rbp || qz_read(q, rbp, saved, sizeof saved) < 0)
		return -1;
	memset(c, 0, sizeof *c);
	c->r[DI_REG_RBP] = saved[0];
	c->valid[DI_REG_RBP] = true;
	c->r[DI_REG_RIP] = saved[1];
	c->valid[DI_REG_RIP] = true;
	c->r[DI_REG_RSP] = rbp + 16;
	c->valid[DI_REG_RSP] = true;
	return 0;
}

/* Compute the CFA of f and its caller's registers; -1 at the end. */
static int frame_unwind_one(struct qz *q, struct frame *f, struct di_regs *caller,
			    bool *signal)
{
	struct unw *u = f->mod ? frame_unw(f->mod) : NULL;
	uint64_t cfa;
	*signal = false;
	if (u && unw_step_ex(u, f->mod->bias, &f->regs, f->exact_pc, qz_read_cb, q,
			     caller, &cfa, signal) == 0) {
		f->cfa = cfa;
		f->has_cfa = true;
		return 0;
	}
	if (frame_fp_step(q, f, caller) < 0)
		return -1;
	f->cfa = caller->r[DI_REG_RSP];
	f->has_cfa = true;
	return 0;
}

/* The array is allocated once at its full size so that frame pointers
 * handed out stay valid while more frames are unwound. */
static struct frame *frame_push(struct qz *q)
{
	if (!q->frames) {
		q->frames_cap = FRAME_MAX + TAILCALL_MAX + FRAME_INLINE_MAX + 1;
		q->frames = xcalloc(q->frames_cap, sizeof *q->frames);
	}
	struct frame *f = &q->frames[q->nframes];
	memset(f, 0, sizeof *f);
	f->q = q;
	f->level = (int)q->nframes++;
	return f;
}

/* gdb counts an inlined call as starting at its entry pc and at the start
 * of each of its address ranges that the address before does not belong
 * to (block_starting_point_at: ranges that meet are one stretch of code). */
static bool frame_inline_starts(const struct di_inline *in, uint64_t link_pc)
{
	if (in->entry_pc == link_pc)
		return true;
	bool range_start = false, before_inside = false;
	for (size_t i = 0; i < in->nranges; i++) {
		range_start |= in->ranges[i].lo == link_pc;
		before_inside |= in->ranges[i].lo < link_pc && link_pc - 1 < in->ranges[i].hi;
	}
	return range_start && !before_inside;
}

/* How many of the innermost inlined calls start at pc (gdb's
 * skip_inline_frames), less those the user stepped into. */
static size_t frame_skipped_count(const struct di_inline *const *chain, size_t n,
				  uint64_t link_pc)
{
	size_t k = 0;
	while (k < n && frame_inline_starts(chain[k], link_pc))
		k++;
	return k;
}

static size_t frame_skipped(struct qz *q, const struct di_inline *const *chain,
			    size_t n, uint64_t link_pc)
{
	size_t k = frame_skipped_count(chain, n, link_pc);
	size_t un = q->inline_unskip > 0 ? (size_t)q->inline_unskip : 0;
	return k > un ? k - un : 0;
}

/* The inlined calls at runtime pc, innermost first (none outside a
 * module with debug info); *link gets pc's link-time address. */
static size_t frame_chain_at(struct qz *q, uint64_t pc, const struct di_inline **chain,
			     uint64_t *link)
{
	struct qz_module *m = qz_module_at(q, pc);
	const struct di_func *f = m && qz_mod_di(q, m) ? di_func_at(m->di, pc - m->bias) : NULL;
	*link = m ? pc - m->bias : pc;
	return f ? di_inline_chain(f, *link, chain, FRAME_INLINE_MAX) : 0;
}

int frame_inline_state(struct qz *q, uint64_t pc, int *skipped, int *call_line,
		       const char **call_file)
{
	const struct di_inline *chain[FRAME_INLINE_MAX];
	uint64_t link;
	size_t n = frame_chain_at(q, pc, chain, &link);
	size_t k = frame_skipped(q, chain, n, link);
	*skipped = (int)k;
	*call_line = k ? chain[k - 1]->call_line : 0;
	*call_file = k ? chain[k - 1]->call_file : NULL;
	return (int)(n - k);
}

void frame_unskip_for(struct qz *q, uint64_t pc, const char *func)
{
	const struct di_inline *chain[FRAME_INLINE_MAX];
	uint64_t link;
	size_t n = frame_chain_at(q, pc, chain, &link);
	size_t k = frame_skipped_count(chain, n, link);
	size_t keep = k;   /* how many stay hidden */
	for (size_t j = 0; j < k; j++) {
		if (!func || (chain[j]->name && strcmp(chain[j]->name, func) == 0)) {
			keep = j;
			break;
		}
	}
	q->inline_unskip = (int)(k - keep);
	frame_invalidate(q);
}

/* Push the frames of one machine frame: its inlined calls at pc, innermost
 * first, each shown at the line it is at (the inner call's call site for
 * all but the innermost), then the function's own frame. */
static struct frame *frame_push_set(struct qz *q, const struct di_regs *regs,
				    uint64_t pc, bool exact)
{
	struct frame base = {0};
	base.q = q;
	base.regs = *regs;
	base.pc = pc;
	base.exact_pc = exact;
	frame_resolve(q, &base);
	const struct di_inline *all[FRAME_INLINE_MAX], **chain = all;
	size_t n = 0;
	if (base.func) {
		uint64_t look = (exact ? pc : pc - 1) - base.mod->bias;
		n = di_inline_chain(base.func, look, all, FRAME_INLINE_MAX);
	}
	int first = (int)q->nframes;
	/* n > 0 means a function with debug info, so a module */
	size_t skip = first == 0 && n ? frame_skipped(q, all, n, pc - base.mod->bias) : 0;
	if (skip) {   /* shown as the caller at the call site */
		base.file = all[skip - 1]->call_file;
		base.line = all[skip - 1]->call_line;
		base.line_start = true;
		chain += skip;
		n -= skip;
	}
	for (size_t i = 0; i <= n; i++) {
		struct frame *f = frame_push(q);
		int level = f->level;
		*f = base;
		f->level = level;
		f->set_first = first;
		f->set_real = first + (int)n;
		f->inl = i < n ? chain[i] : NULL;
		if (i > 0) {
			f->file = chain[i - 1]->call_file;
			f->line = chain[i - 1]->call_line;
			f->line_start = true;
		}
	}
	return &q->frames[q->nframes - 1];
}

/* The frame of a call from the debugger that returns to pc with the stack
 * at sp, if there is one: it stands between the callee and the frame the
 * call was made in. */
static bool frame_add_dummy(struct qz *q, uint64_t pc, uint64_t sp)
{
	const struct infcall_dummy *d = infcall_dummy_at(q, pc, sp);
	if (!d)
		return false;
	struct frame *x = frame_push(q);
	x->pc = pc;
	x->regs.r[DI_REG_RIP] = pc;
	x->dummy = d;
	x->cfa = sp;
	x->has_cfa = true;
	x->exact_pc = true;
	x->set_first = x->set_real = x->level;
	return true;
}

static uint64_t frame_func_start(const struct frame *f);

/* The frames of the tail calls between callee's function and the call its
 * caller made (tailcall.c), each a set of its own. As in gdb, their
 * registers are those unwound for the caller (a register the CFI does
 * not give keeps callee's value: gdb's "same value"), but the pc, which
 * is the address after the jump, and their CFA is callee's; the function
 * shown is the innermost one at the jump, an inlined one too. */
static void frame_push_tailcalls(struct qz *q, const struct frame *callee,
				 const struct di_regs *caller, uint64_t caller_pc)
{
	uint64_t pcs[TAILCALL_MAX];
	size_t n = tailcall_chain(q, caller_pc, frame_func_start(callee), pcs);
	for (size_t i = 0; i < n; i++) {
		struct frame *f = frame_push(q);
		f->regs = *caller;
		for (int r = 0; r < DI_NREGS; r++) {
			if (!f->regs.valid[r] && callee->regs.valid[r]) {
				f->regs.r[r] = callee->regs.r[r];
				f->regs.valid[r] = true;
			}
		}
		f->regs.r[DI_REG_RIP] = pcs[i];
		f->pc = pcs[i];
		frame_resolve(q, f);
		const struct di_inline *chain[FRAME_INLINE_MAX];
		if (f->func && di_inline_chain(f->func, f->pc - 1 - f->mod->bias, chain,
					       FRAME_INLINE_MAX))
			f->inl = chain[0];
		f->tailcall = true;
		f->cfa = callee->cfa;
		f->has_cfa = callee->has_cfa;
		f->set_first = f->set_real = f->level;
	}
}

static void frame_add_caller(struct qz *q)
{
	struct frame *f = &q->frames[q->nframes - 1];
	struct di_regs caller;
	bool signal;
	if (f->dummy) {   /* on with the registers of before the call */
		/* (read only: frame_user_reg serves writers too) */
		frame_regs_from_user((struct user_regs_struct *)&f->dummy->regs, &caller);
		frame_push_set(q, &caller, f->dummy->regs.rip, true);
		return;
	}
	if (frame_unwind_one(q, f, &caller, &signal) < 0) {
		q->frames_done = true;
		return;
	}
	uint64_t pc = caller.r[DI_REG_RIP];
	uint64_t cfa = f->cfa;
	for (int i = f->set_first; i < f->level; i++) {
		q->frames[i].cfa = cfa;
		q->frames[i].has_cfa = true;
	}
	if (!caller.valid[DI_REG_RIP] || pc == 0 ||
	    (f->set_first > 0 && cfa <= q->frames[f->set_first - 1].cfa)) {
		q->frames_done = true;   /* corrupt or looping stack */
		return;
	}
	if (frame_is_outermost(f) || f->level >= FRAME_MAX) {
		q->frames_done = true;
		return;
	}
	if (frame_add_dummy(q, pc, caller.r[DI_REG_RSP]))
		return;
	if (!signal && !f->sigtramp)
		frame_push_tailcalls(q, f, &caller, pc);
	/* interrupted by a signal: not a return address */
	const struct frame *c = frame_push_set(q, &caller, pc, signal);
	if (!c->mod)
		q->frames_done = true;   /* "?? ()": nothing to unwind with */
}

/* The function frame f is in: its debug info's entry, else its symbol's. */
static uint64_t frame_func_start(const struct frame *f)
{
	if (f->func)
		return f->func->lo + f->mod->bias;
	uint64_t off;
	const struct img_sym *s = f->mod && f->mod->img ?
		img_sym_at(f->mod->img, f->pc - f->mod->bias, &off) : NULL;
	return s ? f->pc - off : 0;
}

int frame_base_address(struct qz *q, const struct frame *f, uint64_t *base)
{
	static const uint8_t endbr64[4] = {0xf3, 0x0f, 0x1e, 0xfa};
	uint64_t fn = frame_func_start(f);
	int64_t sp_off = -8;
	uint8_t b[8];
	if (f->inl || f->tailcall)
		return -1;
	if (fn && f->pc > fn && qz_read(q, fn, b, sizeof b) == 0) {
		size_t i = fn + 4 <= f->pc && memcmp(b, endbr64, 4) == 0 ? 4 : 0;
		if (fn + i < f->pc && b[i] == 0x55) {   /* push %rbp done */
			sp_off = 0;
			bool mov = (b[i + 1] == 0x48 && b[i + 2] == 0x89 && b[i + 3] == 0xe5) ||
				   (b[i + 1] == 0x48 && b[i + 2] == 0x8b && b[i + 3] == 0xec);
			if (f->pc > fn + i + 1 && mov && f->regs.valid[DI_REG_RBP]) {
				*base = f->regs.r[DI_REG_RBP];
				return 0;
			}
		}
	}
	if (!f->regs.valid[DI_REG_RSP])
		return -1;
	*base = f->regs.r[DI_REG_RSP] + (uint64_t)sp_off;
	return 0;
}

int frame_saved_regs(struct qz *q, const struct frame *f, struct di_regs *slots)
{
	struct unw *u = f->mod ? frame_unw(f->mod) : NULL;
	if (f->inl || f->tailcall || !u ||
	    unw_saved_ex(u, f->mod->bias, &f->regs, f->exact_pc, qz_read_cb, q, slots) < 0)
		return -1;
	/* below a tail-call frame, the return address is that frame's pc,
	 * not a register saved on the stack (gdb lists no rip) */
	const struct frame *up = frame_get(q, f->set_real + 1);
	if (up && up->tailcall)
		slots->valid[DI_REG_RIP] = false;
	return 0;
}

int frame_return(struct qz *q, const struct frame *f, uint64_t *ra, uint64_t *cfa)
{
	if (f->dummy) {   /* returns to where the call was made */
		*ra = f->dummy->regs.rip;
		*cfa = f->cfa;
		return 0;
	}
	while (f->tailcall && f->level > 0)   /* its callee's return */
		f = &q->frames[f->level - 1];
	struct frame copy = q->frames[f->set_real];
	struct di_regs caller;
	bool signal;
	if (frame_unwind_one(q, &copy, &caller, &signal) < 0 ||
	    !caller.valid[DI_REG_RIP] || caller.r[DI_REG_RIP] == 0)
		return -1;
	*ra = caller.r[DI_REG_RIP];
	*cfa = copy.cfa;
	return 0;
}

int frame_caller_pc(struct qz *q, const struct frame *f, uint64_t *pc)
{
	while (f && (f->tailcall || f->inl))
		f = frame_get(q, f->level + 1);
	if (!f)
		return -1;
	const struct frame *up = frame_get(q, f->level + 1);
	uint64_t cfa;
	if (up) {
		*pc = up->pc;
		return 0;
	}
	return frame_return(q, f, pc, &cfa);
}

const struct frame *frame_real_caller(struct qz *q, const struct frame *f)
{
	const struct frame *c = frame_get(q, f->level + 1);
	while (c && c->tailcall)
		c = frame_get(q, c->level + 1);
	return c;
}

const struct frame *frame_get(struct qz *q, int n)
{
	if (!qz_running(q) || n < 0)
		return NULL;
	if (q->nframes == 0) {
		struct di_regs regs;
		frame_regs_from_user(proc_regs(q->proc), &regs);
		frame_push_set(q, &regs, regs.r[DI_REG_RIP], true);
	}
	while ((size_t)n >= q->nframes && !q->frames_done)
		frame_add_caller(q);
	if ((size_t)n >= q->nframes)
		return NULL;
	if (!q->frames[n].has_cfa && !q->frames_done &&
	    q->frames[n].set_real + 1 == (int)q->nframes)
		frame_add_caller(q);   /* computes the CFA on the way */
	return &q->frames[n];
}

static void frame_di_ctx_plain(struct qz *q, const struct frame *f, struct di_ctx *ctx);

bool frame_shows_addr(const struct frame *f)
{
	if (f->sigtramp || f->dummy)
		return false;
	if (f->level > f->set_first)
		return false;
	/* an exact pc (frame 0, or where a signal or a call from the
	 * debugger interrupted it) shows when it is inside a line */
	if (f->level > 0 && !f->exact_pc)
		return true;
	return !f->line_start || !f->file;
}

size_t frame_vars(const struct frame *f, const struct di_var **out, size_t max)
{
	if (!f->func)
		return 0;
	uint64_t pc = (f->exact_pc ? f->pc : f->pc - 1) - f->mod->bias;
	if (f->inl)
		return di_inline_vars_at(f->inl, pc, out, max);
	return di_vars_at(f->func, pc, out, max);
}

/* Whether call site cs of frame c went to callee's function. A frame
 * reached by a tail call returns to a call of another function, whose
 * call site says nothing of ours (gdb checks DW_AT_call_origin, as here
 * when the call site names it; else the call instruction's target). */
static bool frame_calls(struct qz *q, const struct frame *c, const struct di_callsite *cs,
			const struct frame *callee)
{
	uint64_t ra = c->pc, site;
	if (tailcall_target(q, c->mod, cs, &site) == 0)
		return site == callee->func->lo + callee->mod->bias;
	uint8_t code[5];
	if (qz_read(q, ra - 5, code, 5) < 0 || code[0] != 0xe8)
		return true;   /* an indirect call: its target is not known */
	int32_t rel;
	memcpy(&rel, code + 1, 4);
	uint64_t target = ra + (uint64_t)(int64_t)rel;
	return target == callee->func->lo + callee->mod->bias;
}

/* DW_OP_entry_value: the register's value when f's function was entered,
 * from the call site in its caller (DW_TAG_call_site at the return
 * address), evaluated in the caller's frame. */
static int frame_entry_reg(void *arg, int reg, uint64_t *val)
{
	const struct frame *f = arg;
	struct qz *q = f->q;
	const struct frame *real = &q->frames[f->set_real];
	const struct frame *c = frame_get(q, real->set_real + 1);
	if (!c || !c->mod || !qz_mod_di(q, c->mod) || c->exact_pc)
		return -1;
	const struct di_callsite *cs = di_callsite_at(c->mod->di, c->pc - c->mod->bias);
	if (!cs || !frame_calls(q, c, cs, real) ||
	    tailcall_may_reenter(q, real->func->lo + real->mod->bias))
		return -1;
	for (size_t i = 0; cs && i < cs->nparams; i++) {
		if (cs->params[i].reg != reg)
			continue;
		struct di_ctx cctx;
		struct di_regs regs = c->regs;
		char err[128];
		/* Registers the unwinder could not recover in the caller are
		 * taken as unchanged since the call, as gdb does for call-site
		 * values (DW_OP_breg4 means rsi as it was passed). */
		for (int r = 0; r < DI_NREGS; r++) {
			for (int l = c->level - 1; !regs.valid[r] && l >= 0; l--) {
				if (q->frames[l].regs.valid[r]) {
					regs.r[r] = q->frames[l].regs.r[r];
					regs.valid[r] = true;
				}
			}
		}
		/* The caller may itself need its entry values (recursion:
		 * depth(n - 1) passes DW_OP_entry_value(rdi) - 1). */
		frame_di_ctx(q, c, &cctx);
		cctx.regs = &regs;
		return di_eval_value(&cs->params[i].value, &cctx, val, err, sizeof err) == 0 ? 0 : -1;
	}
	return -1;
}

void frame_di_ctx(struct qz *q, const struct frame *f, struct di_ctx *ctx)
{
	frame_di_ctx_plain(q, f, ctx);
	if (f->func) {   /* entry values: of the machine frame's function, for
			    an inlined call's frame too (gdb walks out to it) */
		ctx->entry_reg = frame_entry_reg;
		ctx->entry_arg = (void *)f;
	}
}

/* xmm registers are caller-saved: known in the innermost frame only. */
static int frame_read_xmm(void *arg, int n, uint8_t *buf)
{
	struct qz *q = arg;
	struct user_fpregs_struct fp;
	if (n < 0 || n > 15 || proc_fpregs(q->proc, &fp) < 0)
		return -1;
	memcpy(buf, (const uint8_t *)fp.xmm_space + 16 * n, 16);
	return 0;
}

/* The context without entry values (for evaluating in a caller). */
static void frame_di_ctx_plain(struct qz *q, const struct frame *f, struct di_ctx *ctx)
{
	memset(ctx, 0, sizeof *ctx);
	if (!f->has_cfa)
		frame_get(q, f->set_real + 1);
	ctx->regs = &f->regs;
	ctx->cfa = f->cfa;
	ctx->has_cfa = f->has_cfa;
	ctx->bias = f->mod ? f->mod->bias : 0;
	ctx->pc = f->exact_pc ? f->pc : f->pc - 1;   /* inside the call */
	ctx->func = f->func;
	ctx->read_mem = qz_read_cb;
	ctx->arg = q;
	if (f->level == 0)
		ctx->read_xmm = frame_read_xmm;
}

static const char *frame_cu_name(const struct di_info *di, const char *file)
{
	size_t n, fl = strlen(file);
	const struct di_func *const *fs = di ? di_funcs(di, &n) : NULL;
	for (size_t i = 0; fs && i < n; i++) {
		const char *cu = fs[i]->cu_name;
		size_t cl = cu ? strlen(cu) : 0;
		if (cl && cu[0] != '/' && cl < fl && file[fl - cl - 1] == '/' &&
		    strcmp(file + fl - cl, cu) == 0)
			return cu;
	}
	return NULL;
}

const char *frame_file_name(struct qz *q, const char *file)
{
	const char *cu = frame_cu_name(q->exe.di, file);
	for (size_t i = 0; !cu && i < q->nlibs; i++) {   /* a library's own */
		/* A unit compiled in a relative directory (libc6-dbg's: "./libio")
		 * has its lines in a subfile named by its line table
		 * ("./libio/iofgets.c"), not by the unit's name (gdb's
		 * start_subfile finds no match). */
		const char *sh = lines_shown_name(q->libs[i].lines, file);
		cu = sh && sh[0] == '.' ? sh : frame_cu_name(q->libs[i].di, file);
	}
	/* else the name its line table gives it (a header) */
	if (!cu)
		cu = lines_shown_name(q->exe.lines, file);
	for (size_t i = 0; !cu && i < q->nlibs; i++)
		cu = lines_shown_name(q->libs[i].lines, file);
	return cu ? cu : file;
}

/* The value a parameter had at function entry, if the caller's call site
 * tells it: the parameter's location at the entry pc names a register,
 * whose value the call site gives. 0 on success. */
static int frame_param_entry(const struct frame *f, const struct di_var *v,
			     const struct di_ctx *ctx, uint8_t *buf, size_t size)
{
	struct di_ctx at_entry = *ctx;
	struct di_regs any = *ctx->regs;
	struct di_loc loc;
	char err[128];
	uint64_t val;
	if (!ctx->entry_reg || size > 8)
		return -1;
	/* Only which register holds it at entry matters, not its value now
	 * (an outer frame's argument registers are not recoverable). */
	for (int r = 0; r < DI_NREGS; r++)
		any.valid[r] = true;
	at_entry.regs = &any;
	/* where the function (gdb's get_frame_func: an inlined call's
	 * block entry; of a tail-call frame, even at a jump inside an inlined
	 * call, the machine function's) begins */
	at_entry.pc = (f->inl && !f->tailcall ? f->inl->entry_pc : f->func->lo) + ctx->bias;
	if (di_locate(v, &at_entry, &loc, err, sizeof err) < 0 || loc.kind != DI_LOC_REG ||
	    ctx->entry_reg(ctx->entry_arg, loc.reg, &val))
		return -1;
	memcpy(buf, &val, size);
	return 0;
}

static void frame_print_arg(struct qz *q, const struct di_var *v, const uint8_t *buf,
			    size_t size, struct sbuf *out)
{
	struct val_print vp = {
		.frame_arg = true, .max_elements = q->print_elements,
		.read_mem = qz_read_cb, .symbolize = qz_symbolize_cb, .arg = q,
	};
	struct val val = val_from_bytes(v->type, buf, size);
	val_print(out, &val, &vp);
	val_free(&val);
}

/* One "name=value" of a frame line, with gdb's entry-value forms (print
 * entry-values default): name=name@entry=V when both are known and equal,
 * name=V, name@entry=W when they differ, name=<optimized out>,
 * name@entry=W when only the entry value is known. */
static void frame_describe_arg(struct qz *q, const struct frame *f, const struct di_var *v,
			       const struct di_ctx *ctx, struct sbuf *out)
{
	const struct di_type *t = di_type_strip(v->type);
	size_t size = t ? t->size : 0;
	uint8_t cur[256], ent[8];
	char err[256];
	const char *name = v->name ? v->name : "?";
	int r = size && size <= sizeof cur ? di_read_var(v, ctx, cur, size, err, sizeof err) : 1;
	bool has_entry = r >= 0 && frame_param_entry(f, v, ctx, ent, size) == 0;
	if (r == 0) {
		sbuf_printf(out, "%s=", name);
		if (has_entry && !memcmp(cur, ent, size))
			sbuf_printf(out, "%s@entry=", name);
		frame_print_arg(q, v, cur, size, out);
		if (has_entry && memcmp(cur, ent, size)) {
			sbuf_printf(out, ", %s@entry=", name);
			frame_print_arg(q, v, ent, size, out);
		}
	} else if (has_entry) {   /* gdb's default print entry-values: both */
		sbuf_printf(out, "%s=<optimized out>, %s@entry=", name, name);
		frame_print_arg(q, v, ent, size, out);
	} else if (r == 1 && t && (t->kind == DI_STRUCT || t->kind == DI_UNION ||
				   t->kind == DI_ARRAY)) {
		sbuf_printf(out, "%s=...", name);   /* gdb never opens them here */
	} else if (r == 1) {
		sbuf_printf(out, "%s=%s", name, di_var_synthetic(v, ctx->pc - ctx->bias) ?
			    "<synthetic pointer>" : "<optimized out>");
	} else {
		sbuf_printf(out, "%s=<error: %s>", name, err);
	}
}

const struct di_var *frame_param_shown(const struct di_var *params, size_t n, size_t i)
{
	const struct di_var *v = &params[i];
	for (size_t k = n; v->name && k-- > i + 1;)
		if (params[k].name && !strcmp(params[k].name, v->name))
			return &params[k];
	return v;
}

static void frame_describe_args(struct qz *q, const struct frame *f, struct sbuf *out)
{
	struct di_ctx ctx;
	frame_di_ctx(q, f, &ctx);
	const struct di_var *params = f->inl ? f->inl->params : f->func->params;
	size_t np = f->inl ? f->inl->nparams : f->func->nparams;
	for (size_t i = 0; i < np; i++) {
		if (i)
			sbuf_add(out, ", ");
		frame_describe_arg(q, f, frame_param_shown(params, np, i), &ctx, out);
	}
}

void frame_describe(struct qz *q, const struct frame *f, bool with_addr,
		    struct sbuf *out)
{
	if (f->sigtramp) {
		sbuf_add(out, "<signal handler called>");
		return;
	}
	if (f->dummy) {
		sbuf_add(out, "<function called from qzdb>");
		return;
	}
	if (with_addr)
		sbuf_printf(out, "0x%016llx in ", (unsigned long long)f->pc);
	if (f->func) {
		const char *name = f->inl ? f->inl->name : f->func->name;
		sbuf_printf(out, "%s (", name ? name : "??");
		frame_describe_args(q, f, out);
		sbuf_add(out, ")");
	} else {
		sbuf_printf(out, "%s ()", f->sym ? f->sym : "??");
	}
	if (f->file)
		sbuf_printf(out, " at %s:%d", frame_file_name(q, f->file), f->line);
	else if (f->mod && f->mod != &q->exe)
		sbuf_printf(out, " from %s", f->mod->name ? f->mod->name : f->mod->path);
}

void frame_print_stop(struct qz *q, const struct frame *f, bool want_frame)
{
	struct sbuf b = {0};
	bool mid = !f->file || !f->line_start;
	if (want_frame || !f->file) {
		frame_describe(q, f, mid, &b);
		sbuf_addc(&b, '\n');
	}
	if (f->file) {
		if (!want_frame && mid)
			sbuf_printf(&b, "0x%016llx\t", (unsigned long long)f->pc);
		const char *why;
		const char *text = src_line(f->file, f->line, &why);
		bool again = q->src_last == f->file && q->src_last_err;
		q->src_last = f->file;
		q->src_last_err = !text;
		if (text)
			sbuf_printf(&b, "%d\t%s\n", f->line, text);
		else if (why && !again)
			sbuf_printf(&b, "%d\t%s: %s.\n", f->line, frame_file_name(q, f->file), why);
		else
			sbuf_printf(&b, "%d\tin %s\n", f->line, frame_file_name(q, f->file));
	}
	qz_puts(q, b.s);
	sbuf_free(&b);
	q->stops_shown++;
	if (!f->file)   /* no line there: gdb keeps the current source line */
		return;
	q->list_file = f->file;
	q->list_line = f->line;
	q->list_first = q->list_last = 0;
	q->info_line_next = 0;
}

void frame_print_level(struct qz *q, int n, const struct frame *f)
{
	struct sbuf b = {0};
	sbuf_printf(&b, "#%-2d ", n);
	frame_describe(q, f, frame_shows_addr(f), &b);
	sbuf_addc(&b, '\n');
	qz_puts(q, b.s);
	sbuf_free(&b);
	if (f->file) {   /* the source line, without repeating the frame */
		struct frame copy = *f;
		copy.line_start = true;
		int stops = q->stops_shown;   /* selecting a frame is no stop: */
		frame_print_stop(q, &copy, false);
		q->stops_shown = stops;       /* no displays after up/down */
	}
}
