/* infcall: functions of the program called from the debugger (infcall.h). */
#include "infcall.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi.h"
#include "bp.h"
#include "frame.h"
#include "mod.h"
#include "run.h"
#include "session.h"
#include "step.h"
#include "value/value.h"

#define INFCALL_MAX 8       /* calls interrupted and not yet returned */
#define INFCALL_STACK 4096  /* bytes of stack arguments and copies at most */

struct infcall_state {
	struct infcall_dummy d[INFCALL_MAX];
	int n;
};

static const struct qz_mod infcall_mod;

static struct infcall_state *infcall_state(struct qz *q)
{
	return mod_state(q, &infcall_mod);
}

/* ---- where the arguments go ---- */

struct infcall_frame {
	struct user_regs_struct *regs;
	struct user_fpregs_struct fp;
	int nint, nsse;
	uint8_t stack[INFCALL_STACK];   /* the argument area, from the final rsp + 8 */
	size_t nstack;
	uint8_t copies[INFCALL_STACK];  /* arrays that live nowhere (string literals) */
	size_t ncopies;
};

static uint64_t *infcall_int_reg(struct user_regs_struct *r, int i)
{
	uint64_t *order[6] = {(uint64_t *)&r->rdi, (uint64_t *)&r->rsi, (uint64_t *)&r->rdx,
			      (uint64_t *)&r->rcx, (uint64_t *)&r->r8, (uint64_t *)&r->r9};
	return order[i];
}

static int infcall_on_stack(struct infcall_frame *cf, const uint8_t *bytes, size_t size)
{
	size_t slot = (size + 7) & ~(size_t)7;
	if (cf->nstack + slot > sizeof cf->stack)
		return -1;
	memset(cf->stack + cf->nstack, 0, slot);
	memcpy(cf->stack + cf->nstack, bytes, size);
	cf->nstack += slot;
	return 0;
}

/* One argument: in registers when its eightbytes fit in what is left,
 * else on the stack, as the ABI says. */
static int infcall_pass(struct infcall_frame *cf, const uint8_t *bytes, size_t size,
			const struct di_type *t)
{
	enum abi_class cls[2];
	enum abi_kind k = abi_classify(t, cls);
	if (k == ABI_UNSUPPORTED || k == ABI_VOID)
		return -1;
	int ni = (cls[0] == ABI_INT) + (cls[1] == ABI_INT);
	int ns = (cls[0] == ABI_SSE) + (cls[1] == ABI_SSE);
	if (k == ABI_MEMORY || cf->nint + ni > 6 || cf->nsse + ns > 8)
		return infcall_on_stack(cf, bytes, size);
	uint8_t v[16] = {0};
	memcpy(v, bytes, size < 16 ? size : 16);
	for (int i = 0; i < 2; i++) {
		if (cls[i] == ABI_INT)
			memcpy(infcall_int_reg(cf->regs, cf->nint++), v + 8 * i, 8);
		else if (cls[i] == ABI_SSE)
			memcpy((uint8_t *)cf->fp.xmm_space + 16 * cf->nsse++, v + 8 * i, 8);
	}
	return 0;
}

/* ---- the call ---- */

static void infcall_restore(struct qz *q, const struct infcall_dummy *d)
{
	*proc_regs(q->proc) = d->regs;
	proc_regs_dirty(q->proc);
	proc_set_fpregs(q->proc, &d->fp);
	frame_invalidate(q);
}

static void infcall_drop(struct qz *q, struct infcall_state *st, int i)
{
	if (qz_running(q))
		bp_site_del(&q->bps, q->proc, st->d[i].ret);
	memmove(&st->d[i], &st->d[i + 1], (size_t)(st->n - i - 1) * sizeof st->d[0]);
	st->n--;
}

/* Lay out the stack below the red zone: copies of rvalue arrays, the
 * space for a returned aggregate, the stack arguments, the return
 * address; rsp ends 8 below a 16-byte boundary, as at a function's entry. */
static int infcall_write_stack(struct qz *q, struct infcall_frame *cf, uint64_t ret_space,
			       uint64_t ret_addr, uint64_t *ret_buf)
{
	uint64_t sp = (cf->regs->rsp - 256) & ~(uint64_t)15;
	if (cf->ncopies) {
		sp = (sp - cf->ncopies) & ~(uint64_t)15;
		if (qz_write(q, sp, cf->copies, cf->ncopies) < 0)
			return -1;
	}
	if (ret_space) {
		sp = (sp - ret_space) & ~(uint64_t)15;
		*ret_buf = sp;
	}
	sp = (sp - cf->nstack) & ~(uint64_t)15;
	if (cf->nstack && qz_write(q, sp, cf->stack, cf->nstack) < 0)
		return -1;
	sp -= 8;
	if (qz_write(q, sp, &ret_addr, 8) < 0)
		return -1;
	cf->regs->rsp = sp;
	return 0;
}

/* An argument's bytes: an array in memory passes its address, one that
 * lives nowhere (a string literal) is copied to the stack first. */
static int infcall_arg(struct infcall_frame *cf, const struct val *a, uint64_t copies_at)
{
	const struct di_type *t = val_type_strip(a->type);
	if (t && t->kind == DI_ARRAY) {
		uint64_t p = a->addr;
		if (a->where != VAL_MEM) {
			if (cf->ncopies + a->size + 1 > sizeof cf->copies)
				return -1;
			p = copies_at + cf->ncopies;
			memcpy(cf->copies + cf->ncopies, a->bytes, a->size);
			cf->ncopies += (a->size + 16) & ~(size_t)15;
		}
		return infcall_pass(cf, (const uint8_t *)&p, 8, val_builtin("void *"));
	}
	return infcall_pass(cf, a->bytes, a->size, a->type);
}

static void infcall_func_name(struct qz *q, uint64_t addr, char *buf, size_t len)
{
	if (!qz_symbolize(q, addr, buf, len))
		snprintf(buf, len, "at 0x%llx", (unsigned long long)addr);
}

/* The call stopped before returning: gdb's words; the dummy (number k)
 * stays unless the program is gone or the signal unwinds it. */
static int infcall_abandoned(struct qz *q, struct infcall_state *st, int k, uint64_t addr,
			     char *err, size_t errlen)
{
	char name[256];
	infcall_func_name(q, addr, name, sizeof name);
	if (!qz_running(q) || st->n <= k) {   /* on_gone forgot the dummies */
		snprintf(err, errlen, "The program being debugged exited while in a function "
			 "called from qzdb.\nEvaluation of the expression containing the function\n"
			 "(%s) will be abandoned.", name);
		return -1;
	}
	st->d[k].active = false;
	if (q->stop == QZ_STOP_SIGNAL && q->unwind_on_signal) {
		infcall_restore(q, &st->d[k]);
		infcall_drop(q, st, k);
		q->stop_sig = 0;   /* the signal goes with the call */
		snprintf(err, errlen, "The program being debugged was signaled while in a function "
			 "called from qzdb.\nqzdb has restored the context to what it was before the "
			 "call.\nTo change this behavior use \"set unwindonsignal off\".\n"
			 "Evaluation of the expression containing the function\n(%s) will be abandoned.",
			 name);
	} else if (q->stop == QZ_STOP_SIGNAL) {
		snprintf(err, errlen, "The program being debugged was signaled while in a function "
			 "called from qzdb.\nqzdb remains in the frame where the signal was received.\n"
			 "To change this behavior use \"set unwindonsignal on\".\n"
			 "Evaluation of the expression containing the function\n(%s) will be abandoned.\n"
			 "When the function is done executing, qzdb will silently stop.", name);
	}
	else
		snprintf(err, errlen, "The program being debugged stopped while in a function "
			 "called from qzdb.\nEvaluation of the expression containing the function\n"
			 "(%s) will be abandoned.\nWhen the function is done executing, qzdb will "
			 "silently stop.", name);
	return -1;
}

static int infcall_setup(struct qz *q, struct infcall_frame *cf, const struct val *args,
			 size_t nargs, const struct di_type *ret, uint64_t *ret_buf)
{
	enum abi_class cls[2];
	const struct di_type *rs = val_type_strip(ret);
	bool in_mem = ret && abi_classify(ret, cls) == ABI_MEMORY;
	uint64_t copies_at = ((cf->regs->rsp - 256) & ~(uint64_t)15) - INFCALL_STACK;
	if (in_mem)
		cf->nint = 1;   /* rdi: where the callee writes the aggregate */
	for (size_t i = 0; i < nargs; i++)
		if (infcall_arg(cf, &args[i], copies_at) < 0)
			return -1;
	/* copies go at a fixed place so that their addresses, taken above,
	 * hold: pad them to the size reserved */
	if (cf->ncopies)
		cf->ncopies = INFCALL_STACK;
	uint64_t ret_addr = img_entry(q->exe.img) + q->exe.bias;
	if (infcall_write_stack(q, cf, in_mem ? (rs->size + 15) & ~(uint64_t)15 : 0, ret_addr,
				ret_buf) < 0)
		return -1;
	if (in_mem)
		cf->regs->rdi = *ret_buf;
	cf->regs->rax = (uint64_t)cf->nsse;   /* varargs: SSE registers used */
	cf->regs->orig_rax = (uint64_t)-1;    /* no system call to restart */
	return 0;
}

int infcall(struct qz *q, uint64_t addr, const struct di_type *ftype,
	    const struct val *args, size_t nargs, struct val *out, char *err, size_t errlen)
{
	struct infcall_state *st = infcall_state(q);
	if (!qz_running(q) || !st) {
		snprintf(err, errlen, "You can't do that without a process to debug.");
		return -1;
	}
	if (qz_present(q) < 0) {
		snprintf(err, errlen, "%s", q->err.s ? q->err.s : "");
		return -1;
	}
	if (st->n >= INFCALL_MAX) {
		snprintf(err, errlen, "Too many calls from the debugger in progress.");
		return -1;
	}
	const struct di_type *ret = ftype->target;
	struct infcall_frame *cf = xcalloc(1, sizeof *cf);
	struct infcall_dummy *d = &st->d[st->n];
	memset(d, 0, sizeof *d);
	d->regs = *proc_regs(q->proc);
	if (proc_fpregs(q->proc, &d->fp) < 0) {
		free(cf);
		snprintf(err, errlen, "Cannot read the floating-point registers.");
		return -1;
	}
	cf->regs = proc_regs(q->proc);
	cf->fp = d->fp;
	uint64_t ret_buf = 0;
	if (infcall_setup(q, cf, args, nargs, ret, &ret_buf) < 0) {
		infcall_restore(q, d);
		free(cf);
		snprintf(err, errlen, "Cannot pass these arguments in a call from the debugger.");
		return -1;
	}
	d->ret = img_entry(q->exe.img) + q->exe.bias;
	d->sp = cf->regs->rsp + 8;
	d->active = true;
	cf->regs->rip = addr;
	proc_regs_dirty(q->proc);
	proc_set_fpregs(q->proc, &cf->fp);
	free(cf);
	int k = st->n++;
	frame_invalidate(q);
	struct run_target t = {.n = 1};
	t.addr[0] = d->ret;
	t.min_sp[0] = d->sp;
	bp_site_add(&q->bps, q->proc, d->ret);
	/* the pc moved: a breakpoint at the function's first instruction is
	 * hit at once, not stepped over as when resuming where it stopped */
	enum run_ev ev = run_check_bp_here(q) ? RUN_STOPPED : run_until_target(q, &t);
	if (ev != RUN_TARGET)
		return infcall_abandoned(q, st, k, addr, err, errlen);
	int rc = 0;
	if (!ret || val_type_strip(ret)->kind == DI_VOID)
		*out = val_from_bytes(val_builtin("void"), "", 0);
	else if (step_return_value(q, ret, out) < 0)
		rc = -1, snprintf(err, errlen, "Cannot read the value the function returned.");
	if (rc == 0)
		out->where = VAL_RVALUE;
	infcall_restore(q, &st->d[k]);
	infcall_drop(q, st, k);
	return rc;
}

/* ---- dummy frames of interrupted calls ---- */

const struct infcall_dummy *infcall_dummy_at(struct qz *q, uint64_t pc, uint64_t sp)
{
	struct infcall_state *st = infcall_state(q);
	for (int i = st ? st->n - 1 : -1; i >= 0; i--)
		if (st->d[i].ret == pc && st->d[i].sp == sp)
			return &st->d[i];
	return NULL;
}

void infcall_hold(struct qz *q, const struct infcall_dummy *d, bool hold)
{
	struct infcall_state *st = infcall_state(q);
	for (int i = 0; st && i < st->n; i++)
		if (&st->d[i] == d)
			st->d[i].active = hold;
}

bool infcall_pop_here(struct qz *q)
{
	struct infcall_state *st = infcall_state(q);
	const struct user_regs_struct *r = proc_regs(q->proc);
	for (int i = st ? st->n - 1 : -1; i >= 0; i--) {
		if (st->d[i].active || st->d[i].ret != r->rip || st->d[i].sp != r->rsp)
			continue;
		infcall_restore(q, &st->d[i]);
		infcall_drop(q, st, i);
		return true;
	}
	return false;
}

/* An abandoned call returned into its dummy (continue): gdb stops
 * silently, with the registers of before the call. */
static int infcall_on_trap(struct qz *q, uint64_t pc)
{
	(void)pc;
	if (!infcall_pop_here(q))
		return RUN_TARGET;
	/* gdb pops the dummy without looking at inlined calls again: those
	 * starting at the pc show */
	q->inline_unskip = FRAME_INLINE_ALL;
	frame_invalidate(q);
	q->stop = QZ_STOP_LOCATION;
	return RUN_STOPPED;
}

static void infcall_forget(struct qz *q)
{
	struct infcall_state *st = infcall_state(q);
	if (st)
		st->n = 0;   /* the process (and its int3s) went with them */
}

static void *infcall_new(struct qz *q)
{
	(void)q;
	return xcalloc(1, sizeof(struct infcall_state));
}

static void infcall_fini(struct qz *q)
{
	free(infcall_state(q));
}

static const struct qz_mod infcall_mod = {
	.name = "infcall",
	.init = infcall_new,
	.fini = infcall_fini,
	.on_start = infcall_forget,
	.on_gone = infcall_forget,
	.on_trap = infcall_on_trap,
};

void infcall_init(struct qz *q)
{
	mod_add(q, &infcall_mod);
}
