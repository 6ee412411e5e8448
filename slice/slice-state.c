/* slice-state: the slice module's per-session state and its session
 * hooks: a new process resets instance counting (and arms sbreaks and
 * record FILE:LINE points), a dead one stops recording, checkpoints save
 * and restore the recording position. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/frame.h"
#include "target/run.h"
#include "target/session.h"
#include "sbreak.h"
#include "slice.h"
#include "cmd-slice.h"

struct slice_state *slice_state(struct qz *q)
{
	return mod_state(q, &slice_mod);
}

struct rec *slice_rec(struct qz *q)
{
	return &slice_state(q)->rec;
}

const char *slice_status(struct qz *q, char *buf, size_t len)
{
	const struct rec *r = slice_rec(q);
	if (r->on)
		snprintf(buf, len, "REC %llu", (unsigned long long)r->tr.n);
	else
		snprintf(buf, len, "%s", r->counting ? "SBREAK" : "");
	return buf;
}

/* What a checkpoint keeps of the recorder. */
struct slice_saved {
	struct trace_mark mark;
	bool on, counting;
	int32_t cur;
	size_t nstmts;
	uint32_t *count;
	int32_t *latest;
	struct rec_call *calls;
	size_t ncalls;
	struct rec_cd *cds;
	size_t ncds;
};

static void *slice_save(struct qz *q)
{
	struct rec *r = slice_rec(q);
	struct slice_saved *s = xcalloc(1, sizeof *s);
	trace_mark(&r->tr, &s->mark);
	s->on = r->on;
	s->counting = r->counting;
	s->cur = r->cur;
	s->nstmts = r->tr.nstmts;
	s->count = xmemdup(r->count, s->nstmts * sizeof *s->count);
	s->latest = xmemdup(r->latest, s->nstmts * sizeof *s->latest);
	s->ncalls = r->ncalls;
	s->calls = xmemdup(r->calls, s->ncalls * sizeof *s->calls);
	s->ncds = r->ncds;
	s->cds = xmemdup(r->cds, s->ncds * sizeof *s->cds);
	return s;
}

/* A rollback: the trace is cut back to the checkpoint; statements first
 * seen since keep their (unused) entries; instance counts go back. */
static void slice_restore(struct qz *q, const void *saved)
{
	const struct slice_saved *s = saved;
	struct rec *r = slice_rec(q);
	trace_truncate(&r->tr, &s->mark);
	r->on = s->on;
	r->counting = s->counting;
	r->cur = s->cur;
	for (size_t i = 0; i < r->tr.nstmts; i++) {
		r->count[i] = i < s->nstmts ? s->count[i] : 0;
		r->latest[i] = i < s->nstmts ? s->latest[i] : -1;
	}
	r->ncalls = 0;
	XGROW(r->calls, r->calls_cap, s->ncalls + 1);
	memcpy(r->calls, s->calls, s->ncalls * sizeof *s->calls);
	r->ncalls = s->ncalls;
	XGROW(r->cds, r->cds_cap, s->ncds + 1);
	memcpy(r->cds, s->cds, s->ncds * sizeof *s->cds);
	r->ncds = s->ncds;
	q->driver = r->on || r->counting ? &slice_mod : NULL;
}

static void slice_free_saved(void *saved)
{
	struct slice_saved *s = saved;
	if (!s)
		return;
	free(s->count);
	free(s->latest);
	free(s->calls);
	free(s->cds);
	free(s);
}

/* No statement of the program can run before one of its functions is
 * entered: stop at every function's entry, and start stepping there. */
static void slice_ff_plant(struct qz *q, struct slice_state *st)
{
	size_t n = 0;
	const struct di_func *const *f = q->exe.di ? di_funcs(q->exe.di, &n) : NULL;
	st->nff = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t a = f[i]->lo + q->exe.bias;
		if (!f[i]->lo || bp_site_add(&q->bps, q->proc, a) < 0)
			continue;
		XGROW(st->ff, st->ff_cap, st->nff + 1);
		st->ff[st->nff++] = a;
	}
	if (!st->nff)   /* nothing to stop at: step from here */
		q->driver = &slice_mod;
}

static bool slice_ff_hit(struct qz *q, struct slice_state *st, uint64_t pc)
{
	bool hit = false;
	for (size_t i = 0; i < st->nff; i++)
		hit |= st->ff[i] == pc;
	if (!hit)
		return false;
	for (size_t i = 0; i < st->nff; i++)
		bp_site_del(&q->bps, q->proc, st->ff[i]);
	st->nff = 0;
	q->driver = &slice_mod;
	return true;
}

/* A new process: counting starts from its first instruction (its first
 * instruction of the program's own code), so instance numbers are exact;
 * the old trace stays for browsing. */
static void slice_on_start(struct qz *q)
{
	struct slice_state *st = slice_state(q);
	struct rec *r = &st->rec;
	r->on = false;
	rev_reset(q);
	r->cur = -1;
	r->ncalls = r->ncds = 0;
	for (size_t i = 0; i < r->tr.nstmts; i++) {
		r->count[i] = 0;
		r->latest[i] = -1;
	}
	r->exact = true;
	r->insns_seen = 0;
	mn_free(&st->names);   /* a new process: new frames */
	r->counting = st->nsb > 0;
	q->driver = NULL;
	if (r->counting)
		slice_ff_plant(q, st);
	for (size_t i = 0; i < st->narms; i++) {
		struct slice_arm *a = &st->arms[i];
		a->addr = a->link_addr + q->exe.bias;
		a->planted = bp_site_add(&q->bps, q->proc, a->addr) == 0;
	}
}

static void slice_on_gone(struct qz *q)
{
	struct slice_state *st = slice_state(q);
	st->rec.on = false;
	rev_reset(q);
	st->rec.counting = false;
	memset(&st->rec.watch, 0, sizeof st->rec.watch);   /* the watcher arms each run */
	st->snext = 0;
	st->nff = 0;
	q->driver = NULL;
	for (size_t i = 0; i < st->narms; i++)
		st->arms[i].planted = false;
}

static void slice_fini(struct qz *q)
{
	struct slice_state *st = slice_state(q);
	if (!st)
		return;
	sb_fini(q);
	rec_fini(&st->rec);
	for (size_t i = 0; i < st->n; i++)
		slice_free(&st->slices[i]);
	free(st->slices);
	free(st->sb);
	free(st->arms);
	free(st->ff);
	mn_free(&st->names);
	free(st);
}

/* record FILE:LINE on|off reached. */
static int slice_on_trap(struct qz *q, uint64_t pc)
{
	struct slice_state *st = slice_state(q);
	bool mine = false;
	/* Not a stop of its own: a user breakpoint there still counts. */
	if (st->nff && slice_ff_hit(q, st, pc))
		return RUN_TARGET;
	for (size_t i = 0; i < st->narms; i++) {
		struct slice_arm *a = &st->arms[i];
		if (!a->planted || a->addr != pc)
			continue;
		mine = true;
		if (a->on && !st->rec.on)
			rec_start(q, &st->rec);
		else if (!a->on && st->rec.on) {
			rec_stop(q, &st->rec);
		}
	}
	return mine ? RUN_AGAIN : RUN_TARGET;
}

static void *slice_new(struct qz *q)
{
	(void)q;
	struct slice_state *st = xcalloc(1, sizeof *st);
	rec_init(&st->rec);
	return st;
}

/* The recorder counts every statement from the start of the run while it
 * records or counts for sbreaks (exact), so alter may arm an instance N
 * mid-run. A statement not seen yet has run 0 times. */
static bool slice_instance_count(struct qz *q, const char *file, int line, uint64_t *count)
{
	struct rec *r = slice_rec(q);
	if (!r || !(r->on || r->counting) || !r->exact || !qz_running(q))
		return false;
	*count = 0;
	for (size_t i = 0; i < r->tr.nstmts; i++)
		if (r->tr.stmts[i].file == file && r->tr.stmts[i].line == line)
			*count = r->count[i];
	return true;
}

const struct qz_mod slice_mod = {
	.name = "slice",
	.cmds = slice_cmds,
	.init = slice_new,
	.save = slice_save,
	.restore = slice_restore,
	.free_saved = slice_free_saved,
	.on_start = slice_on_start,
	.on_gone = slice_on_gone,
	.fini = slice_fini,
	.on_trap = slice_on_trap,
	.drive = rec_region,
	.instance_count = slice_instance_count,
	.can_reverse = rev_can,
};

/* Is the new instance inst a member of slice id (same statement, same
 * number: the slice may come from an earlier run)? */
static bool slice_wants(struct qz *q, int id, int32_t inst)
{
	const struct trace *t = &slice_rec(q)->tr;
	const struct trace_inst tiv = trace_inst_get(t, inst), *ti = &tiv;
	const struct slice *s = slice_find(q, id);
	for (size_t i = 0; s && i < s->nmembers; i++) {
		const struct trace_inst mv = trace_inst_get(t, slice_member_at(s, i)), *m = &mv;
		if (m->stmt == ti->stmt && m->n == ti->n)
			return true;
	}
	return false;
}

static bool slice_stop_at(struct qz *q, int id, int32_t inst)
{
	char nb[300];
	qz_printf(q, "\nSlice breakpoint, slice %d, %s\n", id, slice_inst_name(q, inst, nb, sizeof nb));
	const struct frame *f = frame_get(q, 0);
	if (f)
		frame_print_stop(q, f, true);
	q->stop = QZ_STOP_BREAKPOINT;
	return true;
}

bool slice_sbreak_hit(struct qz *q, int32_t inst)
{
	struct slice_state *st = slice_state(q);
	const struct trace *t = &st->rec.tr;
	const struct trace_inst tiv = trace_inst_get(t, inst), *ti = &tiv;
	if (st->snext && slice_wants(q, st->snext, inst)) {
		int id = st->snext;
		st->snext = 0;
		return slice_stop_at(q, id, inst);
	}
	for (size_t k = 0; k < st->nsb; k++) {
		if (st->sb[k].stmt != (int32_t)ti->stmt || !sb_enabled(q, st->sb[k].bp, false))
			continue;
		const struct slice *s = slice_find(q, st->sb[k].slice);
		for (size_t i = 0; s && i < s->nmembers; i++) {
			const struct trace_inst mv = trace_inst_get(t, slice_member_at(s, i)), *m = &mv;
			if (m->stmt != ti->stmt || m->n != ti->n)
				continue;
			char nb[300];
			sb_enabled(q, st->sb[k].bp, true);
			qz_printf(q, "\nSlice breakpoint, slice %d, %s\n", s->id,
				  slice_inst_name(q, inst, nb, sizeof nb));
			const struct frame *f = frame_get(q, 0);
			if (f)
				frame_print_stop(q, f, true);
			q->stop = QZ_STOP_BREAKPOINT;
			return true;
		}
	}
	return false;
}
