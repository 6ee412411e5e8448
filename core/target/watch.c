/* watch: watchpoints on the x86 debug registers, with gdb's reports.
 *
 * A watchpoint is an entry of the breakpoint table whose struct watch
 * holds the expression, the memory ranges it depends on (the value's own
 * bytes, plus pointers and indexes it was computed from, as gdb's value
 * chain) and the last value seen. The ranges are split into aligned
 * pieces of 1, 2, 4 or 8 bytes, one debug register each; DR7 enables them
 * (write-only for watch, read/write for rwatch and awatch, since x86 has
 * no read-only condition). A hit traps after the accessing instruction;
 * DR6 says which register fired. Without a free register, a watch becomes
 * a software watchpoint: continuing single-steps and compares the value
 * after every instruction. A watchpoint on locals ends when their frame
 * returns: an internal stop at the return address deletes it there.
 *
 * This file keeps the debug registers, scope stops and page protection in
 * line with the table (watch_sync) and the module's hooks; the value and
 * what it depends on are in watch-value.c, the registers in watch-dr.c,
 * hits in watch-hit.c, creating a watchpoint in watch-new.c. */
#include "watch-int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "value/expr.h"
#include "pagewatch.h"
#include "proc/platform.h"
#include "run.h"

struct watch_state *watch_state(struct qz *q)
{
	if (!q->watch)
		q->watch = xcalloc(1, sizeof *q->watch);
	return q->watch;
}

void watch_free(struct watch *w)
{
	if (!w)
		return;
	free(w->text);
	expr_free(w->expr);
	free(w->ranges);
	if (w->have_old)
		val_free(&w->old);
	free(w);
}

bool watch_is_hw(int kind)
{
	return kind == BP_KIND_WATCH || kind == BP_KIND_RWATCH || kind == BP_KIND_AWATCH;
}

/* ---- keeping registers and scope stops in line with the table ---- */

/* A hardware watchpoint that lost its registers (enabled again when all
 * are taken): a write watch goes on in software, a read one cannot. */
static void watch_demote(struct qz *q, struct bp *b)
{
	if (b->kind == BP_KIND_WATCH) {
		b->kind = BP_KIND_SWATCH;
		qz_printf(q, "No free debug register for watchpoint %d: it is now a "
			  "software watchpoint (the program single-steps).\n", b->num);
	} else {
		b->enabled = false;
		qz_printf(q, "No free debug register for watchpoint %d: disabled "
			  "(read and access watchpoints need one).\n", b->num);
	}
}

void watch_assign(struct qz *q)
{
	struct watch_state *ws = watch_state(q);
	int used = 0;
	ws->dr7 = 0;
	memset(ws->dr, 0, sizeof ws->dr);
	for (size_t i = 0; i < q->bps.n; i++) {
		struct bp *b = &q->bps.bps[i];
		if (!b->watch)
			continue;
		b->watch->slots = 0;
		if (b->enabled && watch_is_hw(b->kind) &&
		    (q->dr_held_by_calls || !watch_take_slots(ws, b, &used)))
			watch_demote(q, b);
	}
}

/* Re-read the value of watchpoints enabled again (the program ran on). */
static void watch_refresh_old(struct qz *q)
{
	for (size_t i = 0; i < q->bps.n; i++) {
		struct bp *b = &q->bps.bps[i];
		struct watch *w = b->watch;
		if (!w || w->was_enabled == b->enabled)
			continue;
		w->was_enabled = b->enabled;
		struct val v;
		bool moved;
		if (b->enabled && qz_running(q) && watch_value(q, w, &v, &moved) == 0)
			watch_set_old(w, &v);
	}
}

static bool watch_scope_wanted(struct qz *q, uint64_t pc)
{
	for (size_t i = 0; i < q->bps.n; i++)
		if (q->bps.bps[i].watch && q->bps.bps[i].watch->scope_pc == pc)
			return true;
	return false;
}

/* Plant the frame-exit stops the watchpoints need, remove the others. */
static void watch_sync_scopes(struct qz *q)
{
	struct watch_state *ws = watch_state(q);
	if (!qz_running(q))
		return;
	for (size_t i = 0; i < ws->nscopes;) {
		if (watch_scope_wanted(q, ws->scopes[i])) {
			i++;
			continue;
		}
		bp_site_del(&q->bps, q->proc, ws->scopes[i]);
		ws->scopes[i] = ws->scopes[--ws->nscopes];
	}
	for (size_t i = 0; i < q->bps.n; i++) {
		const struct watch *w = q->bps.bps[i].watch;
		bool have = false;
		for (size_t j = 0; w && w->scope_pc && j < ws->nscopes; j++)
			have |= ws->scopes[j] == w->scope_pc;
		if (!w || !w->scope_pc || have)
			continue;
		bp_site_add(&q->bps, q->proc, w->scope_pc);
		XGROW(ws->scopes, ws->scopes_cap, ws->nscopes + 1);
		ws->scopes[ws->nscopes++] = w->scope_pc;
	}
}

bool watch_steps(const struct bp *b)
{
	return b->watch && b->enabled && !b->watch->paged &&
	       (b->kind == BP_KIND_SWATCH || (watch_is_hw(b->kind) && !platform_dr_usable()));
}

/* Page protection serves a watchpoint without debug registers unless part
 * of its value is in a register, or a write watch covers stack memory
 * (the kernel writes signal frames and system-call results there, which a
 * protected page would turn into faults it cannot take): those single-step.
 * A read or access watch on the stack is still protected (stepping cannot
 * see reads). */
static bool watch_can_page(struct qz *q, const struct bp *b)
{
	const struct watch *w = b->watch;
	if (w->in_reg || !w->nranges)
		return false;
	if (b->kind == BP_KIND_RWATCH || b->kind == BP_KIND_AWATCH)
		return true;
	for (size_t i = 0; i < w->nranges; i++)
		if (pw_on_stack(q, w->ranges[i].addr))
			return false;
	return true;
}

/* Choose how each watchpoint is watched and give pagewatch the ranges. */
static void watch_sync_pages(struct qz *q)
{
	bool dr = platform_dr_usable();
	struct pw_range *r = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < q->bps.n; i++) {
		struct bp *b = &q->bps.bps[i];
		struct watch *w = b->watch;
		if (!w)
			continue;
		w->paged = qz_running(q) && b->enabled && (b->kind == BP_KIND_SWATCH || !dr) &&
			   watch_can_page(q, b);
		for (size_t k = 0; w->paged && k < w->nranges; k++) {
			XGROW(r, cap, n + 1);
			r[n++] = (struct pw_range){w->ranges[k].addr, w->ranges[k].len,
						   b->kind == BP_KIND_RWATCH || b->kind == BP_KIND_AWATCH};
		}
	}
	if (qz_running(q))
		pw_set(q, PW_WATCH, r, n, watch_pw_hit);
	free(r);
}

void watch_sync(struct qz *q)
{
	watch_assign(q);
	watch_refresh_old(q);
	watch_sync_scopes(q);
	watch_sync_pages(q);
	if (qz_running(q) && watch_arm_all(q) < 0)
		qz_warn(q, "could not set the debug registers: %s", strerror(errno));
}

bool watch_soft_active(struct qz *q)
{
	if (!q->watch)
		return false;
	for (size_t i = 0; i < q->bps.n; i++)
		if (watch_steps(&q->bps.bps[i]))
			return true;
	return false;
}

bool watch_hit_pending(struct qz *q)
{
	if (!q->watch || !q->watch->dr7 || !qz_running(q) || !platform_dr_usable())
		return false;
	return (watch_peek_dr(proc_cur_tid(q->proc), 6) & 0xf) != 0;
}

/* ---- frame exits ---- */

int watch_on_trap(struct qz *q, uint64_t pc)
{
	uint64_t sp = proc_regs(q->proc)->rsp;
	bool gone = false, stop = false;
	for (size_t i = 0; i < q->bps.n;) {
		struct bp *b = &q->bps.bps[i];
		struct watch *w = b->watch;
		if (!w || w->scope_pc != pc || sp < w->cfa) {
			i++;
			continue;
		}
		/* gdb words it differently, and goes on, for a disabled one */
		if (b->enabled)
			qz_printf(q, "\nWatchpoint %d deleted because the program has left the "
				  "block in\nwhich its expression is valid.\n", b->num);
		else
			qz_printf(q, "Watchpoint %d deleted because the program has left the "
				  "block\nin which its expression is valid.\n", b->num);
		stop |= b->enabled;
		bp_delete(&q->bps, q->proc, b->num);
		gone = true;
	}
	if (gone)
		watch_sync(q);
	if (!stop)
		return RUN_TARGET;
	const struct frame *f = frame_get(q, 0);
	if (f)
		frame_print_stop(q, f, true);
	q->stop = QZ_STOP_BREAKPOINT;
	return RUN_STOPPED;
}

/* A new process: evaluate again (addresses move with the load bias),
 * count hits afresh as gdb does, arm. */
static void watch_on_start(struct qz *q)
{
	for (size_t i = 0; i < q->bps.n; i++) {
		struct bp *b = &q->bps.bps[i];
		struct watch *w = b->watch;
		if (!w)
			continue;
		b->hits = 0;
		struct val v;
		if (watch_eval(q, w, &v, true) < 0) {
			sbuf_reset(&q->err);
			continue;
		}
		watch_set_ranges(q, w, &v);
		watch_set_old(w, &v);
		w->was_enabled = b->enabled;
	}
	watch_sync(q);
}

/* The process is gone: its registers and stops with it; watchpoints on
 * locals have no frame any more. */
static void watch_on_gone(struct qz *q)
{
	struct watch_state *ws = watch_state(q);
	ws->dr7 = 0;
	ws->nscopes = 0;
	for (size_t i = 0; i < q->bps.n;) {
		struct bp *b = &q->bps.bps[i];
		if (b->watch && b->watch->cfa) {
			bp_delete(&q->bps, NULL, b->num);
			continue;
		}
		if (b->watch)
			b->watch->located = false;
		i++;
	}
}

static void watch_fini(struct qz *q)
{
	if (!q->watch)
		return;
	free(q->watch->touch);
	free(q->watch->scopes);
	free(q->watch);
	q->watch = NULL;
}

/* A checkpoint keeps nothing of ours; a rollback restores memory, so the
 * values seen last belong to another moment: the restored ones become
 * the values the next change is measured from. */
static void *watch_save(struct qz *q)
{
	(void)q;
	return xcalloc(1, 1);
}

static void watch_restore(struct qz *q, const void *saved)
{
	(void)saved;
	for (size_t i = 0; i < q->bps.n; i++) {
		struct watch *w = q->bps.bps[i].watch;
		struct val v;
		bool moved;
		if (w && q->bps.bps[i].enabled && watch_value(q, w, &v, &moved) == 0)
			watch_set_old(w, &v);
	}
	watch_sync(q);
}

static void watch_free_saved(void *saved)
{
	free(saved);
}

static const struct qz_mod watch_mod = {
	.name = "watch",
	.save = watch_save,
	.restore = watch_restore,
	.free_saved = watch_free_saved,
	.on_start = watch_on_start,
	.on_gone = watch_on_gone,
	.fini = watch_fini,
	.on_trap = watch_on_trap,
};

void watch_init(struct qz *q)
{
	watch_state(q);
	pw_init(q);   /* first: a rollback restores its pages before ours */
	mod_add(q, &watch_mod);
}

/* ---- info breakpoints ---- */

const char *watch_type_name(const struct bp *b)
{
	switch (b->kind) {
	case BP_KIND_WATCH: return "hw watchpoint";
	case BP_KIND_RWATCH: return "read watchpoint";
	case BP_KIND_AWATCH: return "acc watchpoint";
	case BP_KIND_SWATCH: return "watchpoint";
	default: return "breakpoint";
	}
}

bool watch_located(const struct bp *b)
{
	return !b->watch || b->watch->located;
}

void watch_what(const struct bp *b, struct sbuf *out)
{
	if (b->watch)
		sbuf_add(out, b->watch->text);
}
