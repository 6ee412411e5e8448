/* watch: a memory-access watcher over the recorder's engines (view.h's
 * slice_view_watch). The program runs under the engine the recorder
 * picks (the emulator where it can) in counting mode, without a trace
 * unless recording is on; each instruction with memory operands is shown
 * to the watcher before it runs. */
#include <string.h>

#include "proc/proc.h"
#include "rec-int.h"
#include "slice.h"
#include "target/run.h"
#include "target/session.h"

static enum slice_view_kind watch_kind(uint8_t k)
{
	switch (k) {
	case INSN_JCC: return SLICE_VIEW_JCC;
	case INSN_JMP_IND: return SLICE_VIEW_JMP_IND;
	case INSN_CALL: return SLICE_VIEW_CALL;
	case INSN_CALL_IND: return SLICE_VIEW_CALL_IND;
	case INSN_RET: return SLICE_VIEW_RET;
	case INSN_SYSCALL: return SLICE_VIEW_SYSCALL;
	default: return SLICE_VIEW_OTHER;
	}
}

bool rec_watch_ask(struct rec *r, const struct trace_insn *e, const uint64_t *addr,
		   bool skipped, uint64_t sp, const struct rec_watch_src *src)
{
	bool again = false;
	if (r->watch_pass) {   /* the access fire let run: once */
		again = r->watch_pass == e->pc;
		r->watch_pass = 0;
	}
	/* nop and prefetch name memory they do not access (a padding
	 * nopl 0x0(%rax) lands anywhere); a rep with count 0 does nothing */
	const char *t = e->in.text;   /* its first letters first: push and pop start with p */
	bool none = skipped || (t[0] == 'n' && t[1] == 'o' && t[2] == 'p') ||
		    (t[0] == 'p' && t[1] == 'r' && !strncmp(t, "prefetch", 8));
	if (none && !rec_watch_every(r))
		return false;
	/* Field by field, mem[] up to nmem only: an initializer zeroes all
	 * 200 bytes with a rep stos, most of this function's time (it runs
	 * for every instruction with a memory operand). Every field is set. */
	struct slice_view_access a;
	a.pc = e->pc;
	a.user = e->user;
	a.again = again;
	a.nmem = none ? 0 : e->in.nmem;
	a.sp = sp;
	a.use = e->in.use;
	a.def = e->in.def;
	a.cond_def = e->in.cond_def;
	a.kind = watch_kind(e->in.kind);
	a.zero_idiom = e->in.zero_idiom;
	a.imm = e->in.imm;
	a.text = e->in.text;
	a.gpr_rd = e->in.gpr_rd;
	a.gpr_wr = e->in.gpr_wr;
	a.reg = src->reg;
	a.rctx = src->ctx;
	a.unhooked = src->unhooked;
	for (int i = 0; i < a.nmem; i++) {
		a.mem[i].addr = addr[i];
		a.mem[i].size = e->in.mem[i].size;
		a.mem[i].rw = e->in.mem[i].rw & (INSN_MEM_R | INSN_MEM_W);
		a.mem[i].base = e->in.mem[i].base;
		a.mem[i].index = e->in.mem[i].index;
	}
	return r->watch.check(r->watch.ctx, &a) && !again;
}

void rec_watch_sys(struct qz *q, struct rec *r, const struct user_regs_struct *pre, long ret)
{
	struct sys_writes w;
	if (!rec_sys_writes(q, pre, ret, &w)) {
		r->watch.sys(r->watch.ctx, 0, 0);
		return;
	}
	for (int k = 0; k < w.n; k++)
		r->watch.sys(r->watch.ctx, w.v[k].addr, w.v[k].len);
}

int rec_watch_fire(struct qz *q, struct rec *r, const struct trace_insn *e)
{
	(void)q;
	r->watch_pass = e->pc;
	return r->watch.fire(r->watch.ctx);
}

void rec_watch_drop(struct qz *q, struct rec *r)
{
	struct slice_view_watch w = r->watch;
	slice_view_unwatch(q);
	if (w.lost)
		w.lost(w.ctx, "the program started a thread, and the engine runs one thread at a time");
}

void rec_watch_keep(struct qz *q, struct rec *r)
{
	if (q->proc && proc_nthreads(q->proc) >= 2)
		rec_watch_drop(q, r);
}

int slice_view_watch(struct qz *q, const struct slice_view_watch *w)
{
	struct rec *r = slice_rec(q);
	if (!qz_running(q))
		return qz_error(q, "The program is not being run.");
	r->watch = *w;
	r->watch_pass = 0;
	r->npcalls = 0;   /* the program's calls are known from its entry on */
	r->pcalls_ok = q->exe.img && proc_pc(q->proc) == img_entry(q->exe.img) + q->exe.bias;
	r->counting = true;
	q->driver = &slice_mod;
	rec_emu_pick(q, r);
	return 0;
}

void slice_view_unwatch(struct qz *q)
{
	struct rec *r = slice_rec(q);
	if (!r->watch.check)
		return;
	memset(&r->watch, 0, sizeof r->watch);
	if (!slice_state(q)->nsb)
		r->counting = false;
	if (!r->on && !r->counting)
		q->driver = NULL;
}

bool slice_view_watching(struct qz *q, const char **engine)
{
	struct rec *r = slice_rec(q);
	if (engine)
		*engine = r->engine ? r->engine->name : "single-step";
	return r->watch.check != NULL;
}

const char *slice_view_sys_name(long nr, char *buf, size_t size)
{
	return sys_name(nr, buf, size);
}

void slice_view_libc_baseline(bool on)
{
	rec_emu_libc_baseline(on);
}

bool slice_view_libc_is_baseline(void)
{
	return rec_emu_libc_is_baseline();
}

void slice_view_lib_blocks(struct qz *q, uint64_t *looked, uint64_t *cpu)
{
	rec_emu_lib_blocks(slice_rec(q)->emu, looked, cpu);
}

uint64_t slice_view_lean_blocks(struct qz *q, const char **broken)
{
	uint64_t made;
	rec_emu_lean_blocks(slice_rec(q)->emu, &made, broken);
	return made;
}

uint64_t slice_view_loops_unhooked(struct qz *q)
{
	return rec_emu_clean_loops(slice_rec(q)->emu);
}
