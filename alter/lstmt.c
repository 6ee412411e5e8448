/* lstmt: suppressing a statement whatever its layout. The statement's
 * hull is its code from its first address to its last (lcode's ranges,
 * continuation lines merged). Its own instructions are skipped and their
 * effect on the stack pointer kept (a call with stack arguments pushes and
 * pops inside the statement; at -O2 the pops may come in a later
 * statement, which then finds the stack as it expects). Code of other lines
 * that -O2 scheduled inside the hull runs, one instruction at a time, and
 * so do the statement's own register-only instructions there (they may be
 * values a later statement shares); its stores and calls are skipped. */
#include "lstmt.h"

#include <stdlib.h>
#include <string.h>

#include "dinfo/disasm.h"
#include "dinfo/image.h"
#include "target/frame.h"
#include "target/run.h"
#include "target/session.h"

/* The stack-pointer change of one instruction, or false when it changes
 * rsp in a way suppression cannot keep (leave, ret, mov to rsp). */
static bool lstmt_sp_delta(const struct dis_insn *d, int64_t *delta)
{
	const char *mn = d->mnemonic, *op = d->operands;
	size_t n = strlen(op);
	bool to_rsp = n >= 4 && strcmp(op + n - 4, "%rsp") == 0;
	*delta = 0;
	if (str_starts(mn, "push"))
		*delta = -8;
	else if (str_starts(mn, "pop"))
		*delta = to_rsp ? 0 : 8;
	else if (str_starts(mn, "leave") || str_starts(mn, "enter") || d->is_ret)
		return false;
	else if (to_rsp && op[0] == '$' && (str_starts(mn, "sub") || str_starts(mn, "add"))) {
		int64_t k = strtoll(op + 1, NULL, 0);
		*delta = str_starts(mn, "sub") ? -k : k;
	} else if (to_rsp)
		return false;
	return !(str_starts(mn, "pop") && to_rsp);
}

/* A store, call or stack operation: an effect the suppression skips. The
 * AT&T destination is the last operand; a memory one has a '('. */
static bool lstmt_has_effect(const struct dis_insn *d)
{
	if (d->is_call || str_starts(d->mnemonic, "push") || str_starts(d->mnemonic, "pop") ||
	    str_starts(d->mnemonic, "rep") || str_starts(d->mnemonic, "stos") ||
	    str_starts(d->mnemonic, "movs") || d->is_syscall)
		return true;
	if (str_starts(d->mnemonic, "cmp") || str_starts(d->mnemonic, "test"))
		return false;
	const char *last = strrchr(d->operands, ',');
	last = last ? last + 1 : d->operands;
	return strchr(last, '(') != NULL || strcmp(last, "%rsp") == 0;
}

/* A call to a C function that returns its first argument (gcc at -O2
 * uses strcpy's result for the buffer even where the source drops it). */
static bool lstmt_returns_dest(struct qz_module *m, const struct dis_insn *d)
{
	static const char *const fn[] = { "strcpy", "strcat", "strncpy", "strncat",
					  "memcpy", "memmove", "memset" };
	uint64_t off;
	const struct img_sym *sym = d->is_call && d->has_target && m->img ?
				    img_sym_at(m->img, d->target, &off) : NULL;
	if (!sym || off)
		return false;
	size_t n = strcspn(sym->name, "@");
	for (size_t i = 0; i < sizeof fn / sizeof fn[0]; i++)
		if (strlen(fn[i]) == n && strncmp(sym->name, fn[i], n) == 0)
			return true;
	return false;
}

static void lstmt_add_step(struct lstmt *st, uint64_t addr, int64_t sp, bool dest)
{
	st->steps = xrealloc(st->steps, (st->nsteps + 1) * sizeof *st->steps);
	st->steps[st->nsteps].addr = addr;
	st->steps[st->nsteps].dest = dest;
	st->steps[st->nsteps++].sp = sp;
}

static int lstmt_refuse(struct qz *q, const struct lcode *lc, const char *why,
			const struct dis_insn *d)
{
	return qz_error(q, "%s:%d cannot be suppressed: %s (%s%s%s at 0x%llx).",
			str_basename(lc->file), lc->line, why, d->mnemonic, d->operands[0] ? " " : "",
			d->operands, (unsigned long long)d->addr);
}

/* One instruction of the hull into the plan. */
static int lstmt_insn(struct qz *q, struct qz_module *m, const struct lcode *lc,
		      struct lstmt *st, const struct dis_insn *d, bool own)
{
	int64_t delta;
	if (d->is_jump && d->has_target && d->target < d->addr && d->target >= st->lo)
		return lstmt_refuse(q, lc, "it is a loop (its code branches back); switch its "
				    "condition, or suppress a statement of its body", d);
	if (!own && (d->is_jump || d->is_call || d->is_ret))
		return lstmt_refuse(q, lc, "optimised code of another line branches inside it (skipping "
				    "the statement would change that line's path); switch the branch "
				    "of that line instead, or build at -O0", d);
	if (!lstmt_sp_delta(d, &delta))
		return lstmt_refuse(q, lc, "it changes the stack pointer in a way that skipping "
				    "it cannot keep (a frame set-up or tear-down: a function's first or "
				    "last line); suppress a statement inside the function, or the call", d);
	if (own && lstmt_returns_dest(m, d))
		lstmt_add_step(st, d->addr, st->sp, true);
	if (own && lstmt_has_effect(d)) {
		st->sp += delta;
		return 0;
	}
	if (own && d->is_jump)
		return 0;
	lstmt_add_step(st, d->addr, st->sp, false);
	return 0;
}

int lstmt_plan(struct qz *q, struct qz_module *m, const struct lcode *lc, uint64_t lo,
	       uint64_t hi, struct lstmt *st)
{
	memset(st, 0, sizeof *st);
	st->lo = lo;
	st->hi = hi;
	bool one_block = true;   /* nothing of another line runs in [lo, hi) */
	for (uint64_t a = st->lo; a < st->hi;) {
		struct dis_insn d;
		if (!lcode_fetch(m, a, st->hi, &d) || !d.len) {
			lstmt_free(st);
			return qz_error(q, "Cannot decode %s:%d at 0x%llx.", str_basename(lc->file),
					lc->line, (unsigned long long)a);
		}
		one_block &= lcode_inside(lc, a);
		if (lstmt_insn(q, m, lc, st, &d, lcode_inside(lc, a)) < 0) {
			lstmt_free(st);
			return -1;
		}
		a += d.len;
	}
	if (one_block)
		st->nsteps = 0;
	return 0;
}

void lstmt_free(struct lstmt *st)
{
	free(st->steps);
	st->steps = NULL;
	st->nsteps = 0;
}

/* Move rsp to the value it has after the skipped instructions before this
 * point (sp: their total change from the statement's start). */
static void lstmt_set_sp(struct qz *q, uint64_t sp0, int64_t sp)
{
	proc_regs(q->proc)->rsp = sp0 + (uint64_t)sp;
	proc_regs_dirty(q->proc);
}

int lstmt_skip(struct qz *q, const struct lstmt *st, uint64_t bias)
{
	uint64_t sp0 = proc_regs(q->proc)->rsp;
	for (size_t i = 0; i < st->nsteps; i++) {
		lstmt_set_sp(q, sp0, st->steps[i].sp);
		if (st->steps[i].dest) {   /* the skipped call's result */
			proc_regs(q->proc)->rax = proc_regs(q->proc)->rdi;
			continue;
		}
		proc_set_pc(q->proc, st->steps[i].addr + bias);
		enum run_ev ev = run_step_raw(q);
		if (ev != RUN_STEPPED)
			return ev;
		sp0 = proc_regs(q->proc)->rsp - (uint64_t)st->steps[i].sp;
	}
	lstmt_set_sp(q, sp0, st->sp);
	proc_set_pc(q->proc, st->hi + bias);
	frame_invalidate(q);
	return RUN_AGAIN;
}
