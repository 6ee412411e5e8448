/* rx-back: reverse-continue with no recorded region, by re-execution.
 * gdb stops at the last breakpoint hit before the present. Without an
 * instruction counter the present is found by its state: the same count
 * of system calls made, the same registers and the same contents of every
 * writable private mapping (a deterministic single-threaded program in
 * that state has the same future, so an earlier instance of it could only
 * be a loop that never ends). From the newest usable checkpoint the
 * program re-executes forward (system calls fed from the log, quietly),
 * stopping at the user's breakpoints and at the present's pc, and counts
 * the hits before the present; none: the next older checkpoint. Then a
 * second re-execution from the same checkpoint stops at the last of them
 * and reports it. A goal (rx-step.c: the line starts reverse-step goes
 * back to, the call reverse-finish does) adds stops of its own.
 * Stops count only in a window at the end: from the system call `from`
 * on (the hook stops the program there and the goal's sites go in), so
 * that a loop run long before the present costs no stop per iteration;
 * the window doubles (in system calls) until it holds a stop or reaches
 * the checkpoint, then the next older checkpoint is tried. Two passes cost twice the re-executed stretch; keeping a
 * copy of every hit's state instead would cost a checkpoint per hit. */
#define _GNU_SOURCE
#include "rx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt-int.h"
#include "target/frame.h"
#include "target/run.h"
#include "util/sorted.h"

/* The present, as re-execution must find it again. */
struct rx_now {
	uint64_t at;
	struct user_regs_struct regs;
	uint64_t hash;
};

/* A hash of every writable private mapping (what a checkpoint keeps). */
static uint64_t rx_hash(struct qz *q)
{
	static uint8_t buf[1 << 16];
	struct ckpt_os os;
	uint64_t h = 0xcbf29ce484222325ull;
	if (ckpt_os_read(q, &os, CKPT_OS_MAPS) < 0)
		return 0;
	const struct ckpt_state *s = ckpt_state(q);
	for (size_t i = 0; i < os.nmaps; i++) {
		const struct ckpt_map *m = &os.maps[i];
		if (!ckpt_map_tracked(s, m))
			continue;
		for (uint64_t a = m->lo; a < m->hi; a += sizeof buf) {
			size_t n = m->hi - a < sizeof buf ? (size_t)(m->hi - a) : sizeof buf;
			if (proc_read(q->proc, a, buf, n) < 0)
				continue;
			const uint64_t *w = (const uint64_t *)buf;
			for (size_t k = 0; k < n / 8; k++)
				h = (h ^ w[k]) * 0x100000001b3ull;
		}
	}
	ckpt_os_free(&os);
	return h;
}

/* The registers a stop there would show (the flags' status bits only:
 * the trap and resume flags say how qzdb stopped it, not where). */
static bool rx_regs_same(const struct user_regs_struct *a, const struct user_regs_struct *b)
{
	struct user_regs_struct x = *a, y = *b;
	x.orig_rax = y.orig_rax = 0;
	x.eflags &= 0xcd5;
	y.eflags &= 0xcd5;
	return !memcmp(&x, &y, sizeof x);
}

static bool rx_at_now(struct qz *q, const struct rx *x, const struct rx_now *now)
{
	return x->at == now->at && rx_regs_same(proc_regs(q->proc), &now->regs) &&
	       rx_hash(q) == now->hash;
}

/* The checkpoints re-execution can start from, newest first: kept while
 * logging was on and before the present in the log. */
static size_t rx_candidates(struct ckpt_state *s, const struct rx_now *now, struct ckpt **out)
{
	size_t n = 0;
	for (size_t i = s->n; i-- > 0;) {
		struct ckpt *c = s->cps[i];
		if (!c->dead && !c->hidden && c->rx_ok && c->rx_at <= now->at)
			out[n++] = c;
	}
	return n;
}

static int rx_roll(struct qz *q, struct rx *x, struct ckpt *c)
{
	x->internal = true;
	int rc = ckpt_rollback(q, c);
	x->internal = false;
	return rc;
}

enum { RX_LOST = -4 };

/* Re-execute from c. With stop_at 0: count the user's stops before the
 * present; RX_LOST if it never comes back to it: the error is set, unless
 * c may be after the present (taken between the same two system calls:
 * the caller then tries an older one). With stop_at n: stop at the n-th,
 * shown. */
/* The goal's sites in or out (a window's start puts them in). */
static void rx_goal_sites(struct qz *q, struct rx *x, bool in)
{
	const struct rx_goal *g = x->goal;
	if (!g || x->sites_in == in || !q->proc || !proc_alive(q->proc))
		return;
	for (size_t i = 0; i < g->n; i++)
		if (in)
			bp_site_add(&q->bps, q->proc, g->addr[i]);
		else
			bp_site_del(&q->bps, q->proc, g->addr[i]);
	x->sites_in = in;
}

/* The hook stopped the program where the window starts. */
void rx_window_open(struct qz *q, struct rx *x)
{
	x->armed = true;
	rx_goal_sites(q, x, true);
}

static int rx_pass(struct qz *q, struct rx *x, struct ckpt *c, const struct rx_now *now,
		   int stop_at, uint64_t from, bool quiet)
{
	x->last_passes++;
	rx_goal_sites(q, x, false);
	x->armed = false;
	x->arm_at = from;
	if (rx_roll(q, x, c) < 0)
		return RX_LOST;
	if (c->rx_at >= from)
		rx_window_open(q, x);
	struct run_target t = {.n = 1};
	t.addr[0] = now->regs.rip;
	bp_site_add(&q->bps, q->proc, t.addr[0]);
	int hits = 0, rc = RX_LOST;
	for (;;) {
		if (stop_at && hits == stop_at - 1)
			q->quiet = quiet;
		x->goal_hit = false;
		enum run_ev ev = run_until_target(q, &t);
		bool user = ev == RUN_STOPPED && (q->stop == QZ_STOP_BREAKPOINT || x->goal_hit);
		if ((ev == RUN_TARGET || user || ev == RUN_STOPPED) && qz_running(q) &&
		    rx_at_now(q, x, now)) {
			rc = hits;
			break;
		}
		if (user && !x->armed)   /* before the window */
			continue;
		if (user && ++hits == stop_at) {
			x->goal_final = x->goal_hit;
			rc = hits;
			break;
		}
		if (ev == RUN_TARGET || user)
			continue;
		if (c->rx_at == now->at)
			break;
		qz_error(q, "Re-execution from checkpoint %d did not come back to the present "
			 "(%s after %llu of %llu system calls): the program is not deterministic "
			 "in a way the log does not cover, or its state was changed here.", c->id,
			 !qz_running(q) ? "the program ended" : "it stopped elsewhere",
			 (unsigned long long)x->at, (unsigned long long)now->at);
		break;
	}
	if (q->proc && proc_alive(q->proc))
		bp_site_del(&q->bps, q->proc, t.addr[0]);
	x->arm_at = UINT64_MAX;
	return rc;
}

/* Breakpoint hit counts and ignore counts as before the passes. */
struct rx_counts {
	int *hits, *ignore;
};

static void rx_counts_save(struct qz *q, struct rx_counts *k)
{
	k->hits = xcalloc(q->bps.n + 1, sizeof *k->hits);
	k->ignore = xcalloc(q->bps.n + 1, sizeof *k->ignore);
	for (size_t i = 0; i < q->bps.n; i++) {
		k->hits[i] = q->bps.bps[i].hits;
		k->ignore[i] = q->bps.bps[i].ignore;
	}
}

static void rx_counts_put(struct qz *q, const struct rx_counts *k)
{
	for (size_t i = 0; i < q->bps.n; i++) {
		q->bps.bps[i].hits = k->hits[i];
		q->bps.bps[i].ignore = k->ignore[i];
	}
}

static int rx_refuse(struct qz *q, struct rx *x)
{
	if (x->broken)
		return qz_error(q, "Cannot re-execute from a checkpoint: %s.", x->broken);
	if (proc_multi(q->proc))
		return qz_error(q, "Cannot re-execute from a checkpoint: the program has had more "
			       "than one thread (re-execution needs a single-threaded program).");
	if (x->pending != RX_IDLE)
		return qz_error(q, "Cannot re-execute from inside a system call.");
	return 0;
}

/* No hit before the present from any checkpoint: at the oldest, as gdb at
 * the start of its history. */
static int rx_no_more(struct qz *q, struct rx *x, struct ckpt *oldest, bool quiet)
{
	int rc = rx_roll(q, x, oldest);
	q->quiet = quiet;
	if (rc < 0)
		return -1;
	qz_puts(q, "\nNo more reverse-execution history.\n");
	frame_invalidate(q);
	const struct frame *f = frame_get(q, 0);
	if (f)
		frame_print_stop(q, f, true);
	q->stop = QZ_STOP_STEP;
	return 0;
}

static int rx_search(struct qz *q, struct rx *x, struct ckpt **cand, size_t n,
		     const struct rx_now *now, bool quiet)
{
	for (size_t i = 0; i < n; i++) {
		struct ckpt *c = cand[i];
		for (uint64_t back = 0;; back = back * 2 + 1) {
			uint64_t from = now->at - c->rx_at > back ? now->at - back : c->rx_at;
			int hits = rx_pass(q, x, c, now, 0, from, quiet);
			if (hits == RX_LOST && c->rx_at == now->at)
				break;   /* taken after the present */
			if (hits == RX_LOST)
				return -1;
			if (hits > 0)
				return rx_pass(q, x, c, now, hits, from, quiet) == hits ? 0 :
				       q->err.len ? -1 :
				       qz_error(q, "Re-execution did not repeat itself.");
			if (from == c->rx_at)
				break;   /* nothing since c: an older one */
		}
	}
	return rx_no_more(q, x, cand[n - 1], quiet);
}

int rx_on_trap(struct qz *q, uint64_t pc)
{
	struct rx *x = ckpt_state(q)->rx;
	const struct rx_goal *g = x ? x->goal : NULL;
	size_t i = g ? sorted_count_key(g->addr, g->n, sizeof *g->addr, 0, sizeof *g->addr, pc, false) : 0;
	if (!g || i >= g->n || g->addr[i] != pc)
		return RUN_TARGET;
	if (g->sp && proc_regs(q->proc)->rsp != g->sp)
		return RUN_TARGET;
	if (g->cfa) {
		uint64_t cfa, fn;
		frame_invalidate(q);
		run_frame_id(q, &cfa, &fn);
		if (cfa < g->cfa)   /* a callee's */
			return RUN_TARGET;
	}
	x->goal_hit = true;
	q->stop = QZ_STOP_STEP;
	return RUN_STOPPED;
}

int rx_back(struct qz *q, const struct rx_goal *g)
{
	struct ckpt_state *s = ckpt_state(q);
	struct rx *x = s->rx;
	if (rx_refuse(q, x) < 0)
		return -1;
	struct rx_now now = { x->at, *proc_regs(q->proc), rx_hash(q) };
	struct ckpt **cand = xcalloc(s->n + 1, sizeof *cand);
	size_t n = rx_candidates(s, &now, cand);
	if (!n) {
		free(cand);
		return qz_error(q, "No checkpoint to re-execute from: automatic checkpoints "
			       "(set checkpoint-interval) taken since the program started.");
	}
	struct rx_counts k;
	rx_counts_save(q, &k);
	int ms = s->interval_ms;   /* no automatic checkpoints while re-executing */
	s->interval_ms = 0;
	ckpt_timer_arm(q);
	bool quiet = q->quiet;
	q->quiet = true;
	uint64_t t0 = ckpt_now_ns();
	x->last_passes = 0;
	x->goal_final = false;
	x->goal = g;
	int rc = rx_search(q, x, cand, n, &now, quiet);
	rx_goal_sites(q, x, false);
	x->goal = NULL;
	x->armed = false;
	x->last_ns = ckpt_now_ns() - t0;
	q->quiet = quiet;
	s->interval_ms = ms;
	ckpt_timer_arm(q);
	rx_counts_put(q, &k);
	free(k.hits);
	free(k.ignore);
	free(cand);
	return rc;
}
