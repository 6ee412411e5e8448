/* watch-hit: a watchpoint may have fired (a debug register's DR6 bit, a
 * single-step with software watchpoints, a protected page's access):
 * compare the values, count the hit, and report it as gdb does. */
#include "watch-int.h"

#include "eval.h"
#include "frame.h"
#include "pagewatch.h"
#include "proc/platform.h"
#include "run.h"

const char *watch_title(int kind)
{
	switch (kind) {
	case BP_KIND_WATCH: return "Hardware watchpoint";
	case BP_KIND_RWATCH: return "Hardware read watchpoint";
	case BP_KIND_AWATCH: return "Hardware access (read/write) watchpoint";
	default: return "Watchpoint";
	}
}

/* "Old value = 3"; v NULL: the memory could not be read. */
void watch_print_value(struct qz *q, struct sbuf *out, const char *label, const struct val *v)
{
	struct val_print vp = {
		.top = true, .max_elements = q->print_elements,
		.read_mem = qz_read_cb, .symbolize = qz_symbolize_cb, .arg = q,
	};
	sbuf_printf(out, "%s = ", label);
	if (v)
		val_print(out, v, &vp);
	else
		sbuf_add(out, "<unreadable>");
	sbuf_addc(out, '\n');
}

/* Check one watchpoint that may have triggered; append its report to out
 * and return true if it stops the program. */
static bool watch_check(struct qz *q, struct bp *b, struct sbuf *out, bool *resync)
{
	struct watch *w = b->watch;
	struct val v = {0};
	bool moved;
	bool readable = watch_value(q, w, &v, &moved) == 0;
	*resync |= moved;
	if (!readable && !w->have_old)
		return false;   /* unreadable before and after: no change */
	bool changed = !readable || !w->have_old || !watch_same(&w->old, &v);
	bool report = b->kind == BP_KIND_RWATCH ? !changed
		    : b->kind == BP_KIND_AWATCH ? true : changed;
	if (report && run_bp_stops(q, b)) {
		sbuf_printf(out, "\n%s %d: %s\n\n", watch_title(b->kind), b->num, w->text);
		if (changed && b->kind != BP_KIND_RWATCH) {
			watch_print_value(q, out, "Old value", w->have_old ? &w->old : NULL);
			watch_print_value(q, out, "New value", readable ? &v : NULL);
		} else {
			watch_print_value(q, out, "Value", &v);
		}
	} else {
		report = false;
	}
	if (readable) {
		watch_set_old(w, &v);
	} else {
		val_free(&w->old);
		w->have_old = false;
	}
	return report;
}

/* After a data breakpoint fired in an instruction run out of line (a
 * breakpoint's displaced copy in the scratch page), put the pc where that
 * instruction's successor really is. */
static void watch_fix_pc(struct qz *q)
{
	uint64_t pc = proc_pc(q->proc);
	if (q->scratch_state <= 0 || pc < q->scratch || pc >= q->scratch + 4096)
		return;
	for (size_t i = 0; i < q->bps.nsites; i++) {
		const struct bp_site *s = &q->bps.sites[i];
		if (s->resume == BP_RESUME_SLOT && pc == s->slot + s->len) {
			proc_set_pc(q->proc, s->addr + s->len);
			return;
		}
	}
}

/* After the watchpoints were checked: print the report and the frame if
 * one stops (RUN_STOPPED), else return silent. */
static int watch_finish(struct qz *q, struct sbuf *out, bool stop, bool resync, int silent)
{
	if (resync)
		watch_sync(q);
	if (!stop) {
		sbuf_free(out);
		return silent;
	}
	qz_puts(q, out->s);
	sbuf_free(out);
	const struct frame *f = frame_get(q, 0);
	if (f)
		frame_print_stop(q, f, true);
	q->stop = QZ_STOP_BREAKPOINT;
	return RUN_STOPPED;
}

static int watch_silent(struct qz *q, bool step)
{
	if (step)
		return RUN_STEPPED;
	const struct bp_site *s = bp_site_at(&q->bps, proc_pc(q->proc));
	return s && s->inserted ? RUN_TARGET : RUN_AGAIN;
}

/* A single-step (next, step, a software watchpoint) arrived where the
 * frame of a watchpoint's locals returns to: its scope ended as if the
 * stop planted there had been hit. */
static bool watch_scope_stepped(struct qz *q)
{
	struct watch_state *ws = q->watch;
	uint64_t pc = proc_pc(q->proc);
	for (size_t i = 0; i < ws->nscopes; i++)
		if (ws->scopes[i] == pc)
			return watch_on_trap(q, pc) == RUN_STOPPED;
	return false;
}

/* The debug registers that fired since the last look (DR6's low bits,
 * cleared for the next); 0 when none is armed. */
static uint64_t watch_take_dr6(struct qz *q)
{
	if (!q->watch->dr7 || !platform_dr_usable())
		return 0;
	uint64_t dr6 = watch_peek_dr(proc_cur_tid(q->proc), 6) & 0xf;
	if (dr6)
		watch_poke_dr(proc_cur_tid(q->proc), 6, 0);
	return dr6;
}

int watch_classify(struct qz *q, bool step)
{
	struct watch_state *ws = q->watch;
	if (!ws || !qz_running(q))
		return -1;
	uint64_t dr6 = watch_take_dr6(q);
	if (step && watch_scope_stepped(q))
		return RUN_STOPPED;
	bool soft = step && watch_soft_active(q);
	if (!(dr6 & 0xf) && !soft)
		return -1;
	if (dr6 & 0xf)
		watch_fix_pc(q);
	struct sbuf out = {0};
	bool stop = false, resync = false;
	for (size_t i = 0; i < q->bps.n; i++) {
		struct bp *b = &q->bps.bps[i];
		bool fired = b->watch && b->enabled &&
			     (watch_steps(b) ? soft : (b->watch->slots & dr6) != 0);
		if (fired)
			stop |= watch_check(q, b, &out, &resync);
	}
	return watch_finish(q, &out, stop, resync, watch_silent(q, step));
}

int watch_check_values(struct qz *q)
{
	if (!q->watch || !qz_running(q))
		return RUN_STEPPED;
	struct sbuf out = {0};
	bool stop = false, resync = false;
	for (size_t i = 0; i < q->bps.n; i++) {
		struct bp *b = &q->bps.bps[i];
		if (b->watch && b->enabled && (b->kind == BP_KIND_WATCH || b->kind == BP_KIND_SWATCH))
			stop |= watch_check(q, b, &out, &resync);
	}
	return watch_finish(q, &out, stop, resync, RUN_STEPPED);
}

static bool watch_touched_by(const struct watch *w, const struct pw_access *a)
{
	for (size_t i = 0; i < w->nranges; i++)
		if (w->ranges[i].addr < a->addr + a->len && a->addr < w->ranges[i].addr + w->ranges[i].len)
			return true;
	return false;
}

/* The faulting instruction was stepped alone: it may also have hit a
 * debug register (a hardware watchpoint on the same page). */
int watch_pw_hit(struct qz *q, const struct pw_access *a)
{
	struct sbuf out = {0};
	bool stop = false, resync = false;
	uint64_t dr6 = watch_take_dr6(q);
	for (size_t i = 0; i < q->bps.n; i++) {
		struct bp *b = &q->bps.bps[i];
		bool fired = b->watch && b->enabled &&
			     (b->watch->paged ? watch_touched_by(b->watch, a) :
					       (b->watch->slots & dr6) != 0);
		if (fired)
			stop |= watch_check(q, b, &out, &resync);
	}
	if (stop)
		watch_fix_pc(q);
	return watch_finish(q, &out, stop, resync, RUN_AGAIN);
}
