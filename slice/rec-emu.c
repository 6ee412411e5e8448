/* rec-emu: the emulate engine. The program's instructions run in Unicorn
 * (emu.c) while the real process stays stopped; each instruction gets the
 * same bookkeeping and record as under single-stepping (rec_pre, the
 * record with effective addresses from the emulated registers, rec_post).
 * What the emulator must not run (system calls, cpuid, rdtsc, AVX, x87,
 * faults) runs natively through the single-step engine after the written
 * pages and registers are written back; the pages the CPU or kernel may
 * have changed are then read again. */
#include "rec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/ptrace.h>

#include "emu.h"
#include "rec-emu-int.h"
#include "proc/proc.h"
#include "rec-int.h"
#include "slice.h"
#include "target/bp.h"
#include "target/frame.h"
#include "target/run.h"
#include "target/session.h"

/* Library code runs under the block hook by default in lean runs;
 * maint emulator hook-libs hooks each of its instructions (the old way). */
static bool re_forced_off, re_hook_libs = false;
/* maint emulator full-hook: no quick verdicts (the tests compare both). */
static bool re_full_hook;

void rec_emu_force_off(bool off)
{
	re_forced_off = off;
}

void rec_emu_hook_libs(bool on)
{
	re_hook_libs = on;
}

static uint64_t re_time_limit = 100000;

void rec_emu_full_hook(bool on)
{
	re_full_hook = on;
}

void rec_emu_time_limit(uint64_t usec)
{
	re_time_limit = usec;
}

void rec_emu_free(struct rec_emu *x)
{
	if (!x)
		return;
	emu_free(x->m);
	free(x->sites);
	free(x->look_sites);
	hmap_free(&x->back_targets);
	free(x);
}

uint64_t rec_emu_clean_loops(const struct rec_emu *x)
{
	return x ? x->clean_found : 0;
}

void rec_emu_lib_blocks(const struct rec_emu *x, uint64_t *looked, uint64_t *cpu)
{
	*looked = x ? x->lib_blocks : 0;
	*cpu = x ? x->nat_blocks : 0;
}

void rec_emu_counts(const struct rec_emu *x, uint64_t *emulated, uint64_t *native)
{
	*emulated = x ? x->emulated : 0;
	*native = x ? x->native : 0;
}

/* ---- what the machine sees of the debugger's int3s ---- */

static void re_mask(void *ctx, uint64_t addr, uint8_t *buf, size_t len, bool insert)
{
	struct rec_emu *x = ctx;
	const struct bp_table *t = &x->q->bps;
	if (!insert) {
		bp_mask(t, addr, buf, len);
		return;
	}
	for (size_t i = 0; i < t->nsites && !t->out; i++)
		if (t->sites[i].inserted && t->sites[i].addr >= addr && t->sites[i].addr < addr + len)
			buf[t->sites[i].addr - addr] = 0xcc;
}

/* A general register of the machine: a load where the probe found them,
 * else read once per hook (rc). */
static uint64_t re_reg(struct rec_emu *x, int reg)
{
	if (x->gpr && reg >= 0 && reg < 16)
		return x->gpr[reg];
	if (reg < 0 || reg >= 16)
		return emu_reg(x->m, reg);
	if (!(x->rc_have & 1u << reg)) {
		x->rc[reg] = emu_reg(x->m, reg);
		x->rc_have |= 1u << reg;
	}
	return x->rc[reg];
}

/* The machine's rsp, read once per hook (*sp is UINT64_MAX until then):
 * a register read costs Unicorn an eflags computation. */
static uint64_t re_sp(struct rec_emu *x, uint64_t *sp)
{
	if (*sp == UINT64_MAX)
		*sp = re_reg(x, INSN_R_RSP);
	return *sp;
}

static bool re_is_target(struct rec_emu *x, uint64_t pc, uint64_t *sp)
{
	const struct run_target *t = x->r->target;
	for (int i = 0; t && i < t->n; i++)
		if (t->addr[i] == pc && re_sp(x, sp) >= t->min_sp[i])
			return true;
	return false;
}

/* Would rec_region look at pc (a planted site, an internal stop)? */
static bool re_must_look(struct rec_emu *x, uint64_t pc, uint64_t *sp)
{
	return re_is_site(x, pc) || re_is_target(x, pc, sp);
}

/* A signal waits for the thread, not blocked (Ctrl-C, a timer, raise):
 * the CPU delivers it at the next native step, so that step must come
 * now, as under single-stepping; so must it when the thread is gone (a
 * SIGKILL: the step finds out). Peeking costs a few µs, /proc tens. */
static bool re_signal_waits(struct qz *q)
{
	pid_t tid = proc_cur_tid(q->proc);
	uint64_t blk = 0;
	siginfo_t si[8];
	if (ptrace(PTRACE_GETSIGMASK, tid, (void *)sizeof blk, &blk) < 0) {
		if (errno == ESRCH)   /* killed meanwhile: a native step finds out */
			return true;
		blk = 0;
	}
	for (int shared = 0; shared < 2; shared++) {
		struct __ptrace_peeksiginfo_args a = { 0, shared ? PTRACE_PEEKSIGINFO_SHARED : 0, 8 };
		long n = ptrace(PTRACE_PEEKSIGINFO, tid, &a, si);
		for (long i = 0; i < n; i++)
			if (si[i].si_signo > 0 && !(blk & (1ull << (si[i].si_signo - 1))))
				return true;
	}
	return false;
}

/* ---- hot loops that touch no memory (rec-emu-loops.c) ---- */

enum { RE_EVERY_DROPS = 4 };

/* Can this run leave library code to the block hook? Not while the
 * watcher wants every instruction (definedness in registers). */
static bool re_libfree_wanted(const struct rec_emu *x)
{
	const struct qz *q = x->q;
	uint64_t lo, hi;
	qz_program_span(q, &lo, &hi);
	return x->lean && !rec_watch_every(x->r) && !re_hook_libs && !x->libs_hooked && q->exe_loaded &&
	       lo < hi;
}

/* Before a run: what may stop or be looked at inside a clean range (a
 * breakpoint set since, a run target, a planted return) hooks it again;
 * the hooks as the ranges are now. */
static void re_clean_tune(struct rec_emu *x)
{
	if (!x->lean || rec_watch_every(x->r)) {
		if (x->nclean)   /* they may be found hot again once it wants less */
			memset(x->loops, 0, sizeof x->loops);
		re_clean_drop(x, 0, 0);
	}
	bool libfree = re_libfree_wanted(x);
	/* Each change of scope translates all code again (emu_drop_code:
	 * about 1 ms, and the dropped code stays in Unicorn's buffer until
	 * it fills): a program that loads an undefined byte again and again
	 * (awk: each line) keeps library code hooked after a few (without
	 * the limit mawk over 5,000 lines took 10.1 s and 900 MiB, with it
	 * 0.65 s and 30 MiB; with flushes, before, 500 lines took 13 s) */
	if (x->libfree && !libfree && rec_watch_every(x->r) && ++x->every_drops == RE_EVERY_DROPS)
		x->libs_hooked = true;
	if (libfree != x->libfree)
		x->retune = true;
	x->libfree = libfree;
	for (size_t i = 0; x->nclean && i < x->nsites; i++)
		if (re_in_clean(x, x->sites[i]))
			re_clean_drop(x, x->sites[i], 1);
	const struct run_target *t = x->r->target;
	for (int i = 0; x->nclean && t && i < t->n; i++)
		if (re_in_clean(x, t->addr[i]))
			re_clean_drop(x, t->addr[i], 1);
	if (x->retune) {
		uint64_t lo = 0, hi = 0;   /* the program's own code (a static one holds libc) */
		if (libfree)
			qz_program_span(x->q, &lo, &hi);
		struct emu_plan p = { lo, hi,
				      (const uint64_t (*)[2])x->clean, x->nclean };
		emu_hook_plan(x->m, &p);
		x->skips_planned = x->nclean > 0;
	}
	x->retune = false;
}

/* The machine forgets its pages: and the clean ranges (their code may go). */
static void re_forget(struct rec_emu *x)
{
	re_clean_drop(x, 0, 0);
	if (++x->verdict_gen == 0) {   /* the code may go */
		memset(x->verdicts, 0, sizeof x->verdicts);
		x->verdict_gen = 1;
	}
	emu_forget(x->m);
}

/* ---- the hook: one instruction ---- */

static void re_halt(struct rec_emu *x, enum re_end why)
{
	x->end = why;
	emu_stop(x->m);
}

static uint64_t re_addr(struct rec_emu *x, const struct insn *in, const struct insn_mem *m,
			uint64_t pc)
{
	uint64_t a = (uint64_t)m->disp;
	if (m->base == INSN_R_RIP)
		a += pc + in->len;
	else if (m->base != INSN_R_NONE)
		a += re_reg(x, m->base);
	if (m->index != INSN_R_NONE && m->index != INSN_R_RIP)
		a += re_reg(x, m->index) * m->scale;
	if (m->seg)
		a += re_reg(x, m->seg);
	return a;
}

/* Every 4096 instructions: progress, and whether qzdb must quit; every
 * 65536 whether a signal waits (reading /proc costs tens of µs). */
static __attribute__((noinline)) bool re_periodic_look(struct rec_emu *x)
{
	rec_tick(x->r, 4096);
	if (proc_quit_pending())
		return true;
	return (x->ticks & 0xffff) == 0 && re_signal_waits(x->q);
}

/* The count inline: every hooked instruction comes here. */
static inline bool re_periodic(struct rec_emu *x)
{
	return !(++x->ticks & 4095) && re_periodic_look(x);
}

/* The undo log reads the state about to change from the machine (memory
 * it has not copied yet is still the process's); the watcher, registers. */
static uint64_t re_undo_reg(void *ctx, int reg)
{
	return re_reg(ctx, reg);
}

static void re_undo_xmm(void *ctx, int n, void *out)
{
	emu_xmm(((struct rec_emu *)ctx)->m, n, out);
}

static int re_undo_mem(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct rec_emu *x = ctx;
	return emu_read(x->m, addr, buf, len) == 0 ? 0 : proc_read(x->q->proc, addr, buf, len);
}

/* The machine writes [addr, addr+len) (its page is marked already):
 * decoded code there is stale, a clean range there is hooked again. */
static void re_wrote(void *ctx, uint64_t addr, uint64_t len)
{
	struct rec_emu *x = ctx;
	rec_code_written(x->r, addr, len);
	for (int k = 0; k < x->nclean; k++)
		if (re_overlaps(x->clean[k][0], x->clean[k][1], addr, len)) {
			re_clean_drop(x, addr, len);
			x->halt_next = true;
		}
}

/* A store of library code under the block hook: as re_wrote, and the
 * watcher is told (it did not see the instruction). */
static void re_lib_wrote(void *ctx, uint64_t addr, uint64_t len)
{
	struct rec_emu *x = ctx;
	re_wrote(ctx, addr, len);
	if (x->r->watch.lib_wrote)
		x->r->watch.lib_wrote(x->r->watch.ctx, addr, len);
}

_Static_assert((int)SLICE_VIEW_STORE == (int)EMU_ACCESS_STORE && (int)SLICE_VIEW_FIRST == (int)EMU_ACCESS_FIRST,
	       "view.h's access flags are emu.h's");

/* A load or store of a lean block's unhooked instruction (emu.h's
 * emu_set_access; the machine marked a store's page): the watcher's quick
 * look, and a store is code written as re_record would say. true: the
 * instruction runs hooked (the machine stops before it). */
static bool re_access(void *ctx, uint64_t addr, uint32_t size, unsigned flags)
{
	struct rec_emu *x = ctx;
	const struct slice_view_watch *w = &x->r->watch;
	if (w->quick && w->quick(w->ctx, addr, size, flags))
		return true;
	if (flags & EMU_ACCESS_STORE)
		re_wrote(x, addr, size);
	return false;
}

/* A store of the hooked instruction to [addr, addr+len): its page goes
 * back to the process, decoded code there is stale. Once a run for each
 * of the last RE_ST_PAGES pages stored to while nothing was decoded since
 * (both are done for it; a decode may make it code again; stores go back
 * and forth between the stack and a buffer or two); a clean range there
 * is looked at each time. */
static void re_store_seen(struct rec_emu *x, uint64_t addr, uint64_t len)
{
	uint64_t pg = addr >> 12;
	const struct rec *r = x->r;
	if (x->st_noted != r->code_noted) {
		x->st_noted = r->code_noted;
		x->nst = x->st_next = 0;
	}
	bool seen = false;
	for (int i = 0; i < x->nst && !seen; i++)
		seen = x->st_pages[i] == pg;
	if (!seen || (addr + (len ? len : 1) - 1) >> 12 != pg) {
		emu_dirty(x->m, addr, len);
		re_wrote(x, addr, len);
		if (!seen) {
			x->st_pages[x->st_next] = pg;
			x->st_next = (x->st_next + 1) % RE_ST_PAGES;
			x->nst += x->nst < RE_ST_PAGES;
		}
		return;
	}
	for (int k = 0; k < x->nclean; k++)
		if (re_overlaps(x->clean[k][0], x->clean[k][1], addr, len)) {
			re_clean_drop(x, addr, len);
			x->halt_next = true;
		}
}

/* Record the instruction at pc, about to run in the machine, its memory
 * operands at addr. */
static void re_record(struct rec_emu *x, const struct trace_insn *e, int64_t id,
		      const uint64_t *addr, uint64_t sp)
{
	struct rec *r = x->r;
	bool skipped = e->in.rep && re_reg(x, 1) == 0;
	for (int i = 0; i < e->in.nmem && !skipped; i++)
		if (e->in.mem[i].rw & INSN_MEM_W)
			re_store_seen(x, addr[i], e->in.mem[i].size);
	x->prev_rec = -1;
	if (r->on) {
		trace_mark(&r->tr, &x->mark);
		x->prev_rec = (int64_t)r->tr.n;
		trace_add(&r->tr, (uint32_t)id, addr, skipped);
		struct rev_src src = { re_undo_reg, re_undo_mem, re_undo_xmm, x };
		rev_note_insn(x->q, &r->undo, (uint64_t)x->prev_rec, e, addr, skipped, &src);
	}
	r->insns_seen++;
	r->last_id = id;
	r->last_sp = sp;
	x->prev_id = id;
	x->emulated++;
}

/* A ret or indirect jump or call to a non-canonical address faults on the
 * CPU (the pc stays on it); the machine would jump. */
static bool re_bad_target(struct rec_emu *x, const struct trace_insn *e, const uint64_t *addr,
			  uint64_t *sp)
{
	const struct insn *in = &e->in;
	uint64_t to = 0;
	if (in->kind != INSN_RET && in->kind != INSN_JMP_IND && in->kind != INSN_CALL_IND)
		return false;
	if (in->kind == INSN_RET)
		to = emu_read_u64(x->m, re_sp(x, sp));
	else if (in->nmem)
		to = emu_read_u64(x->m, addr[0]);
	else
		for (int g = 0; g < 16; g++)
			if (in->use & (1ull << g))
				to = re_reg(x, g);
	return (uint64_t)((int64_t)(to << 16) >> 16) != to;
}

/* Code as the machine has it (the program may have just written it). */
static int re_read_code(void *ctx, uint64_t pc, void *buf, size_t len)
{
	struct rec_emu *x = ctx;
	return emu_read(x->m, pc, buf, len) == 0 ? 0 : qz_read(x->q, pc, buf, len);
}

/* Does the watcher (watch.c) want to look at e (its memory operands at
 * addr) before it runs? */
static bool re_watch(struct rec_emu *x, const struct trace_insn *e, int64_t id,
		     const uint64_t *addr, uint64_t sp)
{
	x->watch_id = id;
	struct rec_watch_src src = { re_undo_reg, x,
				     x->skips_planned || x->libfree || emu_lean_any(x->m) };
	return rec_watch_ask(x->r, e, addr, e->in.rep && re_reg(x, 1) == 0, sp, &src);
}

/* The program's calls still open at stack pointer sp. */
static void re_calls_open(struct rec *r, uint64_t sp)
{
	while (r->npcalls && r->pcalls[r->npcalls - 1].sp < sp)   /* returned */
		r->npcalls--;
}

/* The watcher's heap calls in the machine (view.h's at): handled there
 * (true) or the machine stops before pc (false). */
static bool re_at(struct rec_emu *x, uint64_t pc, uint64_t sp, bool site)
{
	enum { RAX = 0, RDX = 2, RSI = 6, RDI = 7 };   /* emu_reg's numbers */
	struct rec *r = x->r;
	re_calls_open(r, sp);
	struct slice_view_machine m = { pc, sp, emu_reg(x->m, RDI), emu_reg(x->m, RSI),
					emu_reg(x->m, RDX), emu_reg(x->m, RAX), site,
					r->pcalls_ok && r->npcalls ? r->pcalls[r->npcalls - 1].ret : 0,
					re_undo_mem, x };
	return x->r->watch.at(x->r->watch.ctx, &m);
}

/* A call of the program's own code, about to run (rsp before it: sp). */
static void re_note_call(struct rec *r, const struct trace_insn *e, uint64_t sp)
{
	re_calls_open(r, sp);
	XGROW(r->pcalls, r->pcalls_cap, r->npcalls + 1);
	r->pcalls[r->npcalls++] = (struct rec_pcall){ e->pc + e->in.len, sp - 8 };
}

/* A site, run target or awaited return at pc (first: the run's first
 * instruction, where it stopped already): false if the machine must stop
 * before it. */
static bool re_look(struct rec_emu *x, uint64_t pc, uint64_t *sp, bool first)
{
	if (!first && re_must_look(x, pc, sp))
		return x->r->watch.at && !re_is_target(x, pc, sp) && re_at(x, pc, re_sp(x, sp), true);
	return !re_is_ret(x, pc) || re_at(x, pc, re_sp(x, sp), false);
}

/* ---- the block hook: library code ---- */

/* The first instruction of the block [pc, pc+size) the CPU must run
 * (or that does not decode), 0. Kept per block: library code is not
 * written (the cache goes when the machine forgets its pages). */
static uint64_t re_block_native(struct rec_emu *x, uint64_t pc, uint32_t size)
{
	size_t h = (size_t)((pc * 0x9e3779b97f4a7c15ull) >> 51);
	if (x->verdicts[h].pc == pc && x->verdicts[h].size == size && x->verdicts[h].gen == x->verdict_gen)
		return x->verdicts[h].native;
	uint64_t native = 0;
	for (uint64_t a = pc; a < pc + size && !native;) {
		int64_t id = rec_insn_id(x->q, x->r, a);
		if (id < 0 || x->r->tr.insns[id].in.native)
			native = a;
		a += id < 0 ? 1 : x->r->tr.insns[id].in.len;
	}
	x->verdicts[h].pc = pc;
	x->verdicts[h].size = size;
	x->verdicts[h].gen = x->verdict_gen;
	x->verdicts[h].native = native;
	return native;
}

/* The block hook stops the machine before the block. */
static void re_block_halt(struct rec_emu *x)
{
	x->block_stop = true;
	re_halt(x, RE_STOP);
}

/* Before a block of library code (outside the program's text) runs. */
static void re_block(void *ctx, uint64_t pc, uint32_t size)
{
	struct rec_emu *x = ctx;
	struct rec *r = x->r;
	x->prev_id = -1;
	x->rc_have = 0;
	x->lib_blocks++;
	bool first = x->first && pc == x->run_pc;
	x->first = false;
	if (x->halt_next) {   /* code of a clean range was written: hook it again */
		x->halt_next = false;
		return re_block_halt(x);
	}
	uint64_t sp = UINT64_MAX;
	if (!re_look(x, pc, &sp, first))
		return re_block_halt(x);
	uint64_t end = pc + (size ? size : 1), in = re_first_inside(x, pc + 1, end),
		 nat = re_block_native(x, pc, size ? size : 1);
	if (in || nat) {   /* the CPU runs it up to there, the loop looking at each step */
		x->nat_lo = pc;
		x->nat_hi = in && (!nat || in < nat) ? in : nat;
		x->nat_blocks++;
		if (in && r->watch.at && *r->watch.nrets)
			r->watch.native(r->watch.ctx);   /* nothing awaited in the machine */
		return re_block_halt(x);
	}
	if (!first && re_periodic(x))
		return re_halt(x, RE_NATIVE);
}

/* ---- quick verdicts ---- */

static size_t re_quick_slot(uint64_t pc)
{
	return (size_t)((pc * 0x9e3779b97f4a7c15ull) >> 52);   /* 4096 slots */
}

/* The instruction e (id), just let run by the full hook: keep its
 * verdict (a run's instruction that is no site or run target). */
static void re_quick_note(struct rec_emu *x, const struct trace_insn *e, int64_t id)
{
	const struct insn *in = &e->in;
	enum insn_kind k = in->kind;
	struct re_quick *c = &x->quick[re_quick_slot(e->pc)];
	if (c->pc == e->pc && c->gen == x->gen && c->code_gen == x->r->code_gen)
		return;   /* kept already (the quick path declined it) */
	if (in->native || re_is_site(x, e->pc) || re_target_at(x, e->pc))
		return;
	*c = (struct re_quick){ e->pc, (int32_t)id, x->gen, x->r->code_gen, in->len, re_plain(in),
				e->user && (k == INSN_JCC || k == INSN_JMP) };
}

/* Before a run: verdicts made with other sites or run targets go. */
static void re_quick_tune(struct rec_emu *x)
{
	const struct run_target *t = x->r->target;
	int nt = t ? t->n : 0;
	if (x->gen && x->nlook_sites == x->nsites &&
	    !memcmp(x->look_sites, x->sites, x->nsites * sizeof *x->sites) && nt == x->nlook_tgt &&
	    !memcmp(x->look_tgt, t ? t->addr : x->look_tgt, (size_t)nt * sizeof *x->look_tgt))
		return;
	XGROW(x->look_sites, x->look_sites_cap, x->nsites + 1);
	memcpy(x->look_sites, x->sites, x->nsites * sizeof *x->sites);
	x->nlook_sites = x->nsites;
	if (nt)
		memcpy(x->look_tgt, t->addr, (size_t)nt * sizeof *x->look_tgt);
	x->nlook_tgt = nt;
	if (++x->gen == 0)   /* 0 is an empty slot's */
		x->gen = 1;
}

/* What the next quick path needs of the instruction just let run. */
static void re_quick_prev(struct rec_emu *x, uint64_t pc, uint8_t len, bool rep, bool back)
{
	x->prev_plain = !rep;
	x->prev_back = back;
	x->prev_pc = pc;
	x->prev_len = len;
}

/* pc's verdict if the quick path may use it now: not the run's first
 * instruction, nothing to hook again, an awaited return or a rep's
 * count to look at. */
static const struct re_quick *re_quick_get(struct rec_emu *x, uint64_t pc)
{
	const struct rec *r = x->r;
	const struct re_quick *c = &x->quick[re_quick_slot(pc)];
	if (!x->quick_run || c->pc != pc || c->gen != x->gen || c->code_gen != r->code_gen ||
	    x->halt_next || x->first || (x->prev_id >= 0 && !x->prev_plain) ||
	    (r->watch.at && *r->watch.nrets && re_is_ret(x, pc)))
		return NULL;
	return c;
}

/* ---- lean translations (rec-emu-lean.c) ---- */

/* Before a lean block whose first instruction runs unhooked: an awaited
 * return there is looked at as re_look would (sites and run targets keep
 * their hooks). */
static void re_lean_start(void *ctx, uint64_t pc)
{
	struct rec_emu *x = ctx;
	const struct slice_view_watch *w = &x->r->watch;
	if (!w->at || !*w->nrets || !re_is_ret(x, pc))
		return;
	x->rc_have = 0;
	uint64_t sp = UINT64_MAX;
	if (!re_at(x, pc, re_sp(x, &sp), false))
		re_halt(x, RE_STOP);
}

/* The full hook's steps before it looks at the instruction at pc: the
 * previous one's post, a site, target or awaited return, the periodic
 * checks, the decode. Its id, or -1 when the machine stopped. */
static int64_t re_hook_look(struct rec_emu *x, uint64_t pc, uint64_t *sp, bool *first)
{
	struct rec *r = x->r;
	if (x->prev_id >= 0) {
		const struct trace_insn *p = &r->tr.insns[x->prev_id];
		/* After a rep's last iteration the machine looks at it once
		 * more (count 0) before moving on; the CPU does not. */
		if (p->in.rep && p->pc == pc && re_reg(x, 1) == 0)
			return -1;
		x->prev_id = -1;
		if (!x->lean)
			rec_post(x->q, r, p, x->prev_rec, re_sp(x, sp), pc);
		else if ((p->in.kind == INSN_JCC || p->in.kind == INSN_JMP) && pc <= p->pc && p->user &&
			 !rec_watch_every(r) &&
			 re_loop_hot(x, p->pc) && re_clean_add(x, pc, p->pc + p->in.len))
			return re_halt(x, RE_STOP), -1;   /* the loop runs on without the hook */
	}
	if (x->halt_next) {   /* code of a clean range was written: hook it again */
		x->halt_next = false;
		return re_halt(x, RE_STOP), -1;
	}
	*first = x->first && pc == x->run_pc;   /* not when its start ran unhooked */
	x->first = false;
	if (!re_look(x, pc, sp, *first))
		return re_halt(x, RE_STOP), -1;
	if (!*first && re_periodic(x))
		return re_halt(x, RE_NATIVE), -1;
	int64_t id = rec_insn_id(x->q, r, pc);
	if (id < 0 || r->tr.insns[id].in.native || (r->on && r->tr.n >= TRACE_MAX))
		return re_halt(x, RE_NATIVE), -1;
	return id;
}

/* The same for an instruction with a verdict c (no site, target or
 * native instruction; lean, no rep before): -1 when the machine stopped
 * or nothing more is to be done (an instruction the count is all of). */
static int64_t re_hook_quick(struct rec_emu *x, const struct re_quick *c, uint64_t pc)
{
	struct rec *r = x->r;
	if (x->prev_id >= 0) {
		x->prev_id = -1;
		if (x->prev_back && pc <= x->prev_pc && !rec_watch_every(r) &&
		    re_loop_hot(x, x->prev_pc) && re_clean_add(x, pc, x->prev_pc + x->prev_len))
			return re_halt(x, RE_STOP), -1;   /* the loop runs on without the hook */
	}
	if (re_periodic(x))
		return re_halt(x, RE_NATIVE), -1;
	if (!c->plain || rec_watch_every(r))
		return c->id;
	/* re_record's part for it, in a lean run */
	r->insns_seen++;
	r->last_id = c->id;
	r->last_sp = 0;
	x->prev_id = c->id;
	x->prev_rec = -1;
	re_quick_prev(x, pc, c->len, false, c->back);
	x->emulated++;
	return -1;
}

static void re_hook(void *ctx, uint64_t pc)
{
	struct rec_emu *x = ctx;
	struct rec *r = x->r;
	uint64_t sp = UINT64_MAX;
	bool first = false;
	x->rc_have = 0;
	const struct re_quick *c = re_quick_get(x, pc);
	int64_t id = c ? re_hook_quick(x, c, pc) : re_hook_look(x, pc, &sp, &first);
	if (id < 0)
		return;
	const struct trace_insn *e = &r->tr.insns[id];
	if (!first && x->sbreaks && rec_pre_may_stop(x->q, r, e))
		return re_halt(x, RE_STOP);
	/* the operands' addresses, once for the checks, the watcher and the
	 * record (the registers stay as they are in one hook) */
	uint64_t addr[INSN_MAX_MEM];
	for (int i = 0; i < e->in.nmem; i++)
		addr[i] = re_addr(x, &e->in, &e->in.mem[i], pc);
	if (re_bad_target(x, e, addr, &sp))
		return re_halt(x, RE_NATIVE);
	if (x->quick_run && !c && !re_lean_note_back(x, e))
		return re_halt(x, RE_STOP);
	if (r->watch.check && (e->in.nmem || rec_watch_every(r)) && re_watch(x, e, id, addr, re_sp(x, &sp)))
		return re_halt(x, RE_WATCH);
	if (!x->lean && rec_pre(x->q, r, e, re_sp(x, &sp)))
		return re_halt(x, RE_SBREAK);
	bool call = e->in.kind == INSN_CALL || e->in.kind == INSN_CALL_IND;
	if (call && x->nclean && re_in_clean(x, pc + e->in.len)) {   /* a return lands there */
		re_clean_drop(x, pc + e->in.len, 1);
		return re_halt(x, RE_STOP);
	}
	if (r->watch.at && e->user && call)
		re_note_call(r, e, re_sp(x, &sp));
	re_record(x, e, id, addr, x->lean && e->in.kind != INSN_RET ? 0 : re_sp(x, &sp));
	if (x->quick_run) {
		re_quick_prev(x, pc, e->in.len, e->in.rep,
			      e->user && (e->in.kind == INSN_JCC || e->in.kind == INSN_JMP));
		if (!c)
			re_quick_note(x, e, id);
	}
}

/* ---- around a run: state in and out of the process ---- */

static void re_load(struct rec_emu *x, struct qz *q)
{
	emu_attach(x->m, proc_pid(q->proc));
	if (!x->fp_valid && proc_fpregs(q->proc, &x->fp) == 0)
		x->fp_valid = true;
	emu_load_regs(x->m, proc_regs(q->proc), &x->fp);
	re_collect_sites(x);
}

/* The machine's state back into the process; false if its memory could
 * not be written (the process was killed meanwhile, say). */
static bool re_store(struct rec_emu *x, struct qz *q)
{
	if (emu_save_regs(x->m, proc_regs(q->proc), &x->fp))
		ptrace(PTRACE_SETFPREGS, proc_cur_tid(q->proc), 0, &x->fp);
	proc_regs_dirty(q->proc);
	frame_invalidate(q);   /* as after a stop: the registers moved on */
	q->sel_frame = 0;
	q->inline_unskip = 0;
	if (emu_write_back(x->m) == 0)
		return true;
	qz_warn(q, "the recorder could not write emulated memory back to the program");
	return false;
}

/* A fault stopped the machine at pc: the instruction there (if the hook
 * let it run) gets no record of its own now, the CPU will run it. */
static void re_after_fault(struct rec_emu *x, uint64_t pc)
{
	struct rec *r = x->r;
	if (x->prev_id < 0)
		return;
	const struct trace_insn *p = &r->tr.insns[x->prev_id];
	if (p->pc == pc) {
		if (x->prev_rec >= 0)
			trace_truncate(&r->tr, &x->mark);
		r->insns_seen--;
		x->emulated--;
	} else if (!x->lean) {
		rec_post(x->q, r, p, x->prev_rec, emu_reg(x->m, INSN_R_RSP), pc);
	}
	x->prev_id = -1;
}

static bool re_maps_change(long nr)
{
	switch (nr) {
	case 9: case 10: case 11: case 12: case 15: case 25: case 28: case 56: case 57:
	case 58: case 59: case 322: case 329: case 435:
		return true;   /* mmap mprotect munmap brk rt_sigreturn mremap madvise clone
				  fork vfork execve execveat pkey_mprotect clone3 */
	default:
		return false;
	}
}

/* After the CPU ran instruction id (pre: registers before): read again what
 * it or the kernel may have changed. */
static void re_after_native(struct rec_emu *x, struct qz *q, int64_t id,
			    const struct user_regs_struct *pre, int ev)
{
	x->native++;
	if (ev != RUN_STEPPED || !q->proc || !proc_alive(q->proc) || id < 0) {
		x->fp_valid = false;
		return re_forget(x);
	}
	const struct insn *in = &x->r->tr.insns[id].in;
	/* xmm0-15 and mxcsr as the machine has them only if the CPU left them */
	if (in->def & ((0xffffull << INSN_R_VEC0) | (1ull << INSN_R_MXCSR) | (1ull << INSN_R_X87)))
		x->fp_valid = false;
	const struct user_regs_struct *now = proc_regs(q->proc);
	if (now->rip != pre->rip + in->len) {   /* a signal, a jump: anything */
		x->fp_valid = false;
		return re_forget(x);
	}
	if (in->kind == INSN_SYSCALL) {
		struct sys_writes w;
		x->signal_waits = re_signal_waits(q);
		if (re_maps_change((long)pre->rax) || !rec_sys_writes(q, pre, (long)now->rax, &w))
			return re_forget(x);
		for (int k = 0; k < w.n; k++) {
			emu_refresh(x->m, w.v[k].addr, w.v[k].len);
			re_clean_drop(x, w.v[k].addr, w.v[k].len);
		}
		return;
	}
	for (int i = 0; i < in->nmem; i++)
		if (in->mem[i].rw & INSN_MEM_W)
			emu_refresh(x->m, insn_mem_addr(in, &in->mem[i], pre, pre->rip),
				    in->mem[i].size);
}

static int re_native(struct rec_emu *x, struct qz *q, struct rec *r)
{
	struct user_regs_struct pre = *proc_regs(q->proc);
	int64_t id = rec_insn_id(q, r, pre.rip);
	x->signal_waits = false;
	int ev = rec_step_one(q, r);
	re_after_native(x, q, id, &pre, ev);
	return ev;
}

static int re_step(struct qz *q, struct rec *r)
{
	struct rec_emu *x = r->emu;
	uint64_t pc = proc_pc(q->proc);
	if (x->nat_hi && pc >= x->nat_lo && pc <= x->nat_hi)   /* re_block's */
		return re_native(x, q, r);
	x->nat_hi = 0;
	int64_t id = rec_insn_id(q, r, pc);
	/* A signal to deliver, another thread to step off its breakpoint: the
	 * native step's resume does those. */
	if (id < 0 || r->tr.insns[id].in.native || q->stop_sig || x->signal_waits ||
	    (proc_nthreads(q->proc) > 1 && proc_event_tid(q->proc) != proc_cur_tid(q->proc)))
		return re_native(x, q, r);
	if (q->bps.out)   /* as a resume would: the sites are where we stop */
		bp_put_back(&q->bps, q->proc);
	if (proc_nthreads(q->proc) > 1)
		proc_stop_all(q->proc);   /* no other thread runs while we emulate */
	re_load(x, q);
	x->sbreaks = slice_state(q)->nsb || slice_state(q)->snext;
	x->lean = !r->on && !x->sbreaks;
	if (x->lean)   /* nothing counts instances now: later counts are not exact */
		r->exact = false;
	x->first = true;
	x->run_pc = pc;
	x->prev_id = -1;
	x->end = RE_NONE;
	x->block_stop = false;
	x->quick_run = x->lean && !re_full_hook;
	emu_set_hooked_stores_marked(x->m, !re_full_hook);
	re_quick_tune(x);
	r->read_code = re_read_code;
	r->read_code_ctx = x;
	re_clean_tune(x);
	re_lean_tune(x);
	x->gpr = emu_gpr_view(x->m);
	x->nst = x->st_next = 0;   /* the machine's dirty pages go back after the run */
	/* in a clean loop, or a lean one (made during the run too), no hook
	 * sees a quit or a signal: a time limit does */
	enum emu_end how = emu_run_for(x->m, proc_pc(q->proc),
				       x->nclean || x->quick_run ? re_time_limit : 0);
	r->read_code = NULL;
	x->rc_have = 0;   /* the machine ran on since the last hook */
	uint64_t unhooked = emu_lean_skipped(x->m);   /* counted as the quick path would */
	r->insns_seen += unhooked;
	x->emulated += unhooked;
	if (how == EMU_STOPPED && emu_access_stopped(x->m)) {
		/* a check refused an access: its lean block goes, and the
		 * instruction runs hooked */
		x->lean_drop = emu_pc(x->m);
		if (x->end == RE_NONE)
			x->end = RE_STOP;
	}
	if (how == EMU_FAULT) {
		re_after_fault(x, emu_pc(x->m));
		x->end = RE_NATIVE;
	} else if (x->end == RE_NONE && x->prev_id >= 0 && !x->lean) {   /* it reached pc 0 */
		rec_post(q, r, &r->tr.insns[x->prev_id], x->prev_rec, emu_reg(x->m, INSN_R_RSP),
			 emu_pc(x->m));
		x->prev_id = -1;
	} else if (x->end == RE_NONE && (x->nclean || x->quick_run)) {   /* the time limit */
		x->prev_id = -1;
		if (proc_quit_pending() || re_signal_waits(q))
			x->end = RE_NATIVE;
	}
	/* A safety net: the block hook stopping twice where the run began,
	 * nothing run between (seen before emu_stop set rip to the block's
	 * address): library code is hooked from then on. The code hook's
	 * stops do not count: two there are no fault (a tail call's two
	 * awaited returns meet: sed's reallocarray made library code hooked
	 * for the rest of its run). */
	x->stuck = x->libfree && x->block_stop && x->end == RE_STOP && emu_pc(x->m) == pc ?
			   x->stuck + 1 : 0;
	if (x->stuck >= 2)
		x->libs_hooked = true;
	if (!re_store(x, q))   /* a native step finds out what became of it */
		return re_native(x, q, r);
	switch (x->end) {
	case RE_SBREAK:
		return RUN_STOPPED;
	case RE_WATCH:   /* the process is now in the state before it */
		return rec_watch_fire(q, r, &r->tr.insns[x->watch_id]);
	case RE_NATIVE:
		return re_native(x, q, r);
	default:
		return RUN_STEPPED;
	}
}

static void re_end(struct qz *q, struct rec *r)
{
	(void)q;
	if (r->emu && r->emu->m)
		re_forget(r->emu);
	if (r->emu) {
		r->emu->fp_valid = false;
		r->emu->nat_hi = 0;
	}
}

const struct rec_engine rec_emu_engine = { "emulate", re_step, re_end };

/* ---- glibc's string functions ---- */

/* glibc picks AVX2/EVEX string functions on CPUs that have them, and every
 * instruction of those runs natively (about 40 µs each, against 0.1 µs
 * emulated). These hwcaps masks make a program launched from now on pick
 * the SSE2 versions, which the emulator runs (a tunable, merged into any
 * GLIBC_TUNABLES the user set). */
#define RE_BASELINE "glibc.cpu.hwcaps=-AVX2,-AVX512F,-AVX512VL,-AVX512BW,-AVX_Fast_Unaligned_Load"

void rec_emu_libc_baseline(bool on)
{
	env_list_item("GLIBC_TUNABLES", RE_BASELINE, on);
}

bool rec_emu_libc_is_baseline(void)
{
	const char *v = getenv("GLIBC_TUNABLES");
	return v && strstr(v, RE_BASELINE);
}

/* ---- choosing ---- */

/* What only single-stepping sees: watchpoints (debug registers or value
 * compares after each instruction) and page-protection watches. */
static const char *re_blocker(struct qz *q)
{
	for (size_t i = 0; i < q->bps.n; i++) {
		const struct bp *b = &q->bps.bps[i];
		if (b->enabled && b->kind >= BP_KIND_WATCH && b->kind <= BP_KIND_SWATCH)
			return "watchpoints are set: single-stepping checks them";
	}
	if (q->dr_held_by_calls)
		return "a call breakpoint watches memory: single-stepping checks it";
	return NULL;
}

void rec_emu_pick(struct qz *q, struct rec *r)
{
	r->engine_note[0] = 0;
	r->engine = &rec_step_engine;
	if (r->want_step)
		return;
	if (!r->emu)
		r->emu = xcalloc(1, sizeof *r->emu);
	struct rec_emu *x = r->emu;
	if (!x->tried) {
		x->tried = true;
		x->m = emu_new(x->why, sizeof x->why);
		if (x->m) {
			emu_set_hook(x->m, re_hook, re_mask, x);
			emu_set_scope_hooks(x->m, re_block, re_lib_wrote);
			emu_set_lean_pick(x->m, re_lean_pick, re_lean_start);
			emu_set_access(x->m, re_access);
		}
	}
	const char *why = re_forced_off ? "the emulator is turned off (maint emulator off)" :
			  !x->m ? x->why : re_blocker(q);
	if (why) {
		snprintf(r->engine_note, sizeof r->engine_note, "%s", why);
		return;
	}
	x->q = q;
	x->r = r;
	r->engine = &rec_emu_engine;
}
