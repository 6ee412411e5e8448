/* heap-machine: the heap calls handled inside the recorder's emulator
 * while the memory watcher runs the program there (slice/view.h's at),
 * without a ptrace stop: free's entry and malloc/calloc/realloc's entry
 * and return update the heap model and the shadow from the machine's
 * registers and memory. The machine stops (and heap.c's trap does the
 * work on the process, as without the emulator) whenever that is not
 * plainly the same: a rule of a class that is on holds for the event (a
 * report is made there), a user's breakpoint is on the address, the call
 * came from a library (its program call site needs the process's frames),
 * a stop rewound to a free, two awaited returns meet (a tail call). */
#include <stdio.h>
#include <string.h>

#include "detect-int.h"
#include "slice/view.h"
#include "target/session.h"

int det_read(struct qz *q, struct detect_state *st, uint64_t addr, void *buf, size_t len)
{
	if (st->mach)
		return st->mach->read(st->mach->rctx, addr, buf, len);
	return qz_read(q, addr, buf, len);
}

void det_mrets_sync(struct detect_state *st)
{
	st->nmrets = 0;
	for (size_t i = 0; i < st->npend && st->nmrets < DET_MRETS; i++)
		if (st->pend[i].machine)
			st->mrets[st->nmrets++] = st->pend[i].ret;
}

/* The machine-awaited returns at pc (all if pc is 0) become planted
 * sites: heap.c's trap sees them from now on. */
static void unmachine_at(struct qz *q, struct detect_state *st, uint64_t pc)
{
	for (size_t i = 0; i < st->npend; i++) {
		struct det_pending *p = &st->pend[i];
		if (!p->machine || (pc && p->ret != pc))
			continue;
		p->machine = false;
		if (qz_running(q) && bp_site_add(&q->bps, q->proc, p->ret) < 0)
			p->ret = 0;   /* never seen: as heap.c when it cannot plant */
	}
	det_mrets_sync(st);
}

void det_heap_unmachine(struct qz *q, struct detect_state *st)
{
	unmachine_at(q, st, 0);
}

/* An awaited return at m's pc and sp: true if applied here. */
static bool mach_return(struct qz *q, struct detect_state *st, const struct slice_view_machine *m,
			size_t n)
{
	size_t at = 0, hits = 0;
	for (size_t i = 0; i < n; i++)
		if (st->pend[i].machine && st->pend[i].ret == m->pc && st->pend[i].sp == m->sp)
			at = i, hits++;
	if (hits != 1 || det_rule_on(st, st->pend[at].ev))
		return false;
	struct det_pending p = st->pend[at];
	st->pend[at] = st->pend[--st->npend];
	det_mrets_sync(st);
	struct det_event e;
	det_alloc_apply(q, st, &p, det_alloc_result(q, st, &p, m->rax), &e);
	return true;
}

static bool mach_free(struct qz *q, struct detect_state *st, const struct slice_view_machine *m,
		      uint64_t site, const char *fn)
{
	if (st->skip_sp)   /* heap.c knows which free a report rewound to */
		return false;
	if (st->late && !hmap_get(&st->blocks, m->rdi))
		return true;   /* a block from before detect was on: nothing */
	struct det_event e = { .ev = EV_FREE, .f = { [F_ADDR] = m->rdi }, .site = site };
	if (det_would_fire(st, &e))
		return false;
	st->events[EV_FREE]++;
	det_apply_free(q, st, m->rdi, site, fn);
	return true;
}

static bool mach_entry(struct qz *q, struct detect_state *st, const struct slice_view_machine *m)
{
	int which = -1;
	for (int i = 0; i < DF_COUNT; i++)
		if (st->fn_at[i] && st->fn_at[i] == m->pc)
			which = i;
	uint64_t ret;
	if (which < 0 || which == DF_EXIT || which == DF_STACKCHK || m->read(m->rctx, m->sp, &ret, 8) < 0)
		return false;
	/* a library's call: the program's call of that library (the first
	 * frame in the program), from the calls the machine saw */
	char fn[32];
	snprintf(fn, sizeof fn, "%s", which == DF_FREE ? "free" : "");
	uint64_t site = ret;
	if (!qz_in_program(q, ret)) {
		if (!m->prog_ret || st->late)
			return false;
		site = m->prog_ret;
		char callee[32];
		if (det_callee_name(q, site, callee, sizeof callee))
			snprintf(fn, sizeof fn, "%s", callee);
	}
	if (which == DF_FREE)
		return mach_free(q, st, m, site, fn);
	if (st->nmrets == DET_MRETS)
		return false;
	struct det_pending p = det_pend_make(which, m->rdi, m->rsi, m->rdx, ret, m->sp);
	p.site = site;
	if (fn[0])
		snprintf(p.fn, sizeof p.fn, "%s", fn);
	p.machine = true;
	det_pend_add(st, &p);
	return true;
}

bool det_heap_at(void *ctx, const struct slice_view_machine *m)
{
	struct detect_state *st = ctx;
	struct qz *q = st->acc_q;
	if (det_user_bp_at(q, m->pc)) {
		unmachine_at(q, st, m->pc);
		return false;
	}
	bool ours = false;
	for (size_t i = 0; i < st->npend; i++)
		ours |= st->pend[i].machine && st->pend[i].ret == m->pc && st->pend[i].sp == m->sp;
	st->mach = m;
	if (!ours && m->site && det_lw_which(st, m->pc) < DET_LW_COUNT) {   /* a libwrite call */
		bool lw = det_lw_machine(q, st, m);
		st->mach = NULL;
		st->mlwtraps += lw;
		return lw;
	}
	bool done = ours ? mach_return(q, st, m, st->npend) : mach_entry(q, st, m);
	st->mach = NULL;
	if (done) {
		st->mtraps++;
		return true;
	}
	if (ours) {   /* heap.c's trap does it on the process */
		unmachine_at(q, st, m->pc);
		return false;
	}
	return !m->site;   /* another frame passing an awaited return runs on */
}
