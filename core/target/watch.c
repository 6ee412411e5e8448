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
 * returns: an internal stop at the return address deletes it there. */
#include "watch.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>

#include "eval.h"
#include "value/expr.h"
#include "frame.h"
#include "pagewatch.h"
#include "proc/platform.h"
#include "run.h"
#include "session.h"

enum { WATCH_NREGS = 4, WATCH_MAX_FRAMES = 256 };

struct watch_range {
	uint64_t addr;
	uint64_t len;
};

struct watch {
	char *text;               /* the expression as typed */
	struct expr *expr;
	bool location;            /* -location: the address, not the expression */
	bool direct;              /* the value is the memory of ranges[0] */
	bool in_reg;              /* part of it lives in a register: software */
	const struct di_type *type;
	uint64_t cfa;             /* frame its locals live in; 0: globals only */
	uint64_t scope_pc;        /* where that frame returns to (0: unknown) */
	struct watch_range *ranges;
	size_t nranges, ranges_cap;
	struct val old;
	bool have_old;
	bool was_enabled;         /* enabled at the last sync: else re-read */
	bool located;             /* has memory in the live process: gdb then
	                             widens info breakpoints' Address column */
	uint8_t slots;            /* debug registers in use, bit i = DRi */
	bool paged;               /* watched by page protection (pagewatch.c) */
};

/* What an evaluation touched: variables it looked up and memory it read. */
struct watch_touch {
	struct watch_range r;
	bool leaf;                /* a variable (else a memory read) */
	bool aggregate;           /* struct, union or array */
};

struct watch_state {
	bool no_hw;               /* set can-use-hw-watchpoints 0 */
	/* While evaluating with recording on: the environment's own lookups
	 * and what they touched. */
	int (*lookup)(void *, const char *, struct val *, char *, size_t);
	int (*read_mem)(void *, uint64_t, void *, size_t);
	bool recording;
	struct watch_touch *touch;
	size_t ntouch, touch_cap;
	bool touch_reg, touch_local;
	uint64_t dr[WATCH_NREGS];
	uint64_t dr7;             /* what watch_arm writes */
	uint64_t *scopes;         /* frame-exit stops planted (bp_site_add) */
	size_t nscopes, scopes_cap;
};

static struct watch_state *watch_state(struct qz *q)
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

static bool watch_is_hw(int kind)
{
	return kind == BP_KIND_WATCH || kind == BP_KIND_RWATCH || kind == BP_KIND_AWATCH;
}

/* ---- evaluation, recording what the value depends on ---- */

static bool watch_is_local(struct qz *q, const char *name)
{
	if (!qz_running(q))
		return false;
	const struct frame *f = frame_get(q, q->sel_frame);
	const struct di_var *vars[256];
	size_t n = f ? frame_vars(f, vars, 256) : 0;
	for (size_t i = 0; i < n; i++)
		if (vars[i]->name && !strcmp(vars[i]->name, name))
			return !vars[i]->is_static;
	return false;
}

static void watch_touched(struct watch_state *ws, uint64_t addr, uint64_t len,
			  bool leaf, bool aggregate)
{
	XGROW(ws->touch, ws->touch_cap, ws->ntouch + 1);
	ws->touch[ws->ntouch++] = (struct watch_touch){{addr, len}, leaf, aggregate};
}

static bool watch_aggregate(const struct di_type *t)
{
	t = val_type_strip(t);
	return t && (t->kind == DI_STRUCT || t->kind == DI_UNION || t->kind == DI_ARRAY);
}

static int watch_lookup(void *arg, const char *name, struct val *out,
			char *err, size_t errlen)
{
	struct qz *q = arg;
	struct watch_state *ws = q->watch;
	int r = ws->lookup(arg, name, out, err, errlen);
	if (r != 0 || !ws->recording)
		return r;
	if (out->where == VAL_MEM)
		watch_touched(ws, out->addr, out->size, true, watch_aggregate(out->type));
	else if (out->where == VAL_REG)
		ws->touch_reg = true;
	if (watch_is_local(q, name))
		ws->touch_local = true;
	return 0;
}

static int watch_read_mem(void *arg, uint64_t addr, void *buf, size_t len)
{
	struct qz *q = arg;
	struct watch_state *ws = q->watch;
	if (ws->recording)
		watch_touched(ws, addr, len, false, false);
	return ws->read_mem(arg, addr, buf, len);
}

/* Evaluate w's expression in the selected frame; with record, note what it
 * touched in the state. 0, or -1 with the error set. */
static int watch_eval(struct qz *q, struct watch *w, struct val *out, bool record)
{
	struct watch_state *ws = watch_state(q);
	struct expr_env env;
	char err[512];
	eval_env(q, &env);
	ws->lookup = env.lookup_var;
	ws->read_mem = env.read_mem;
	env.lookup_var = watch_lookup;
	env.read_mem = watch_read_mem;
	ws->recording = record;
	ws->ntouch = 0;
	ws->touch_reg = ws->touch_local = false;
	int r = expr_eval(w->expr, &env, out, err, sizeof err);
	ws->recording = false;
	if (r < 0)
		return qz_error(q, "%s", err);
	return 0;
}

static void watch_add_range(struct watch *w, uint64_t addr, uint64_t len)
{
	for (size_t i = 0; i < w->nranges; i++)
		if (addr >= w->ranges[i].addr &&
		    addr + len <= w->ranges[i].addr + w->ranges[i].len)
			return;
	XGROW(w->ranges, w->ranges_cap, w->nranges + 1);
	w->ranges[w->nranges++] = (struct watch_range){addr, len};
}

/* The ranges w depends on, from the value and what its evaluation
 * touched: an lvalue's own bytes plus the scalars (pointers, indexes) it
 * was reached through; for an rvalue everything it read. */
static void watch_set_ranges(struct qz *q, struct watch *w, const struct val *v)
{
	struct watch_state *ws = q->watch;
	bool lvalue = v->where == VAL_MEM;
	w->nranges = 0;
	if (lvalue)
		watch_add_range(w, v->addr, v->size);
	for (size_t i = 0; !w->location && i < ws->ntouch; i++) {
		const struct watch_touch *t = &ws->touch[i];
		if (lvalue && (!t->leaf || t->aggregate))
			continue;
		if (t->r.len)
			watch_add_range(w, t->r.addr, t->r.len);
	}
	w->direct = lvalue && (w->location || w->nranges == 1);
	w->in_reg = !w->location && (ws->touch_reg || v->where == VAL_REG);
	w->type = v->type;
	w->located |= qz_running(q) && w->nranges > 0;
}

/* Select the frame w's locals live in for the evaluation; false if it is
 * not on the stack any more. */
static bool watch_select(struct qz *q, const struct watch *w, int *saved)
{
	*saved = q->sel_frame;
	if (!w->cfa)
		return true;
	for (int n = 0; n < WATCH_MAX_FRAMES; n++) {
		const struct frame *f = frame_get(q, n);
		if (!f)
			break;
		frame_get(q, f->set_real + 1);   /* unwinding the caller gives f its CFA */
		f = frame_get(q, n);             /* (the frame array may have moved) */
		if (f->has_cfa && f->cfa == w->cfa) {
			q->sel_frame = n;
			return true;
		}
	}
	return false;
}

static int watch_read_direct(struct qz *q, const struct watch *w, struct val *out)
{
	uint64_t len = w->ranges[0].len;
	uint8_t *b = xmalloc(len ? len : 1);
	int r = qz_read(q, w->ranges[0].addr, b, len);
	if (r == 0)
		*out = val_from_bytes(w->type, b, len);
	free(b);
	return r < 0 ? -1 : 0;
}

/* The current value of w. 0, or -1 (no value now: out of scope, memory
 * unreadable). An evaluated expression records its ranges again; *moved
 * says they changed (a pointer it goes through was written). */
static int watch_value(struct qz *q, struct watch *w, struct val *out, bool *moved)
{
	*moved = false;
	if (w->direct)
		return watch_read_direct(q, w, out);
	int saved;
	if (!watch_select(q, w, &saved))
		return -1;
	int r = watch_eval(q, w, out, true);
	q->sel_frame = saved;
	if (r < 0) {
		sbuf_reset(&q->err);
		return -1;
	}
	size_t n = w->nranges;
	struct watch_range *before = xmalloc((n ? n : 1) * sizeof *before);
	memcpy(before, w->ranges, n * sizeof *before);
	watch_set_ranges(q, w, out);
	*moved = n != w->nranges || memcmp(before, w->ranges, n * sizeof *before) != 0;
	free(before);
	return 0;
}

static bool watch_same(const struct val *a, const struct val *b)
{
	return a->size == b->size && memcmp(a->bytes, b->bytes, a->size) == 0;
}

static void watch_set_old(struct watch *w, struct val *v)
{
	if (w->have_old)
		val_free(&w->old);
	w->old = *v;
	w->have_old = true;
	memset(v, 0, sizeof *v);
}

/* ---- debug registers ---- */

static int watch_poke_dr(pid_t tid, int i, uint64_t v)
{
	size_t off = offsetof(struct user, u_debugreg) + (size_t)i * sizeof(long);
	return ptrace(PTRACE_POKEUSER, tid, (void *)off, (void *)v) < 0 ? -1 : 0;
}

static uint64_t watch_peek_dr(pid_t tid, int i)
{
	size_t off = offsetof(struct user, u_debugreg) + (size_t)i * sizeof(long);
	errno = 0;
	long v = ptrace(PTRACE_PEEKUSER, tid, (void *)off, NULL);
	return errno ? 0 : (uint64_t)v;
}

/* Split [addr, addr+len) into aligned pieces of 1, 2, 4 or 8 bytes. */
static int watch_pieces(uint64_t addr, uint64_t len, uint64_t *pa, uint8_t *pl, int max)
{
	int n = 0;
	while (len) {
		uint64_t s = 8;
		while (s > 1 && (addr % s || s > len))
			s /= 2;
		if (n < max) {
			pa[n] = addr;
			pl[n] = (uint8_t)s;
		}
		n++;
		addr += s;
		len -= s;
		if (n > max)
			return n;
	}
	return n;
}

/* DR7 bits for debug register i: local enable, condition, length. */
static uint64_t watch_dr7_bits(int i, int kind, int len)
{
	uint64_t rw = kind == BP_KIND_WATCH ? 1 : 3;
	uint64_t ln = len == 1 ? 0 : len == 2 ? 1 : len == 8 ? 2 : 3;
	return (1ull << (2 * i)) | (rw << (16 + 4 * i)) | (ln << (18 + 4 * i));
}

/* Give w the free registers its ranges need; false if they do not fit. */
static bool watch_take_slots(struct watch_state *ws, struct bp *b, int *used)
{
	struct watch *w = b->watch;
	uint64_t pa[WATCH_NREGS];
	uint8_t pl[WATCH_NREGS];
	int n = 0;
	for (size_t i = 0; i < w->nranges; i++) {
		int k = watch_pieces(w->ranges[i].addr, w->ranges[i].len,
				     pa + n, pl + n, WATCH_NREGS - *used - n);
		n += k;
		if (*used + n > WATCH_NREGS)
			return false;
	}
	if (n == 0 || w->in_reg)
		return false;
	for (int i = 0; i < n; i++) {
		int slot = *used + i;
		ws->dr[slot] = pa[i];
		ws->dr7 |= watch_dr7_bits(slot, b->kind, pl[i]);
		w->slots |= (uint8_t)(1u << slot);
	}
	*used += n;
	return true;
}

bool watch_hw_active(const struct qz *q)
{
	return q->watch && q->watch->dr7 && platform_dr_usable();
}

int watch_arm(struct qz *q, pid_t tid)
{
	struct watch_state *ws = watch_state(q);
	if (!q->proc || !proc_alive(q->proc))
		return 0;
	if (watch_poke_dr(tid, 7, 0) < 0)
		return -1;
	if (!platform_dr_usable())
		return 0;   /* the slots only count: pages are protected instead */
	for (int i = 0; i < WATCH_NREGS; i++)
		if ((ws->dr7 >> (2 * i)) & 1 && watch_poke_dr(tid, i, ws->dr[i]) < 0)
			return -1;
	return ws->dr7 ? watch_poke_dr(tid, 7, ws->dr7) : 0;
}

/* Debug registers are per thread: arm every thread of the process. */
static int watch_arm_all(struct qz *q)
{
	int r = 0;
	for (size_t i = 0; i < proc_nthreads(q->proc); i++) {
		struct proc_thread_info ti;
		if (proc_thread_at(q->proc, i, &ti) == 0 && !ti.gone && watch_arm(q, ti.tid) < 0)
			r = -1;
	}
	return r;
}

void watch_disarm(struct qz *q)
{
	if (q->proc)
		pw_release(q);   /* the program's own page protection back */
	if (!q->watch || !q->watch->dr7 || !q->proc)
		return;
	q->watch->dr7 = 0;
	watch_arm_all(q);
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

static void watch_assign(struct qz *q)
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

/* Does b compare after every single-step (the last resort)? */
static bool watch_steps(const struct bp *b)
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

static int watch_pw_hit(struct qz *q, const struct pw_access *a);

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

/* ---- reporting a hit ---- */

static const char *watch_title(int kind)
{
	switch (kind) {
	case BP_KIND_WATCH: return "Hardware watchpoint";
	case BP_KIND_RWATCH: return "Hardware read watchpoint";
	case BP_KIND_AWATCH: return "Hardware access (read/write) watchpoint";
	default: return "Watchpoint";
	}
}

/* "Old value = 3"; v NULL: the memory could not be read. */
static void watch_print_val(struct qz *q, struct sbuf *out, const char *label,
			    const struct val *v)
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

/* Does b stop the program now (condition, ignore count)? Counts the hit. */
static bool watch_stops(struct qz *q, struct bp *b)
{
	if (b->cond_expr) {
		bool t;
		if (eval_truth(q, b->cond_expr, &t) < 0) {
			qz_printf(q, "Error in testing condition for breakpoint %d:\n%s\n",
				  b->num, q->err.s ? q->err.s : "");
			sbuf_reset(&q->err);
		} else if (!t) {
			return false;
		}
	}
	b->hits++;
	if (b->ignore > 0) {
		b->ignore--;
		return false;
	}
	return true;
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
	if (report && watch_stops(q, b)) {
		sbuf_printf(out, "\n%s %d: %s\n\n", watch_title(b->kind), b->num, w->text);
		if (changed && b->kind != BP_KIND_RWATCH) {
			watch_print_val(q, out, "Old value", w->have_old ? &w->old : NULL);
			watch_print_val(q, out, "New value", readable ? &v : NULL);
		} else {
			watch_print_val(q, out, "Value", &v);
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

static int watch_on_trap(struct qz *q, uint64_t pc);

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

int watch_classify(struct qz *q, bool step)
{
	struct watch_state *ws = q->watch;
	if (!ws || !qz_running(q))
		return -1;
	uint64_t dr6 = 0;
	if (ws->dr7 && platform_dr_usable()) {
		dr6 = watch_peek_dr(proc_cur_tid(q->proc), 6);
		if (dr6 & 0xf)
			watch_poke_dr(proc_cur_tid(q->proc), 6, 0);
	}
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

static bool watch_touched_by(const struct watch *w, const struct pw_access *a)
{
	for (size_t i = 0; i < w->nranges; i++)
		if (w->ranges[i].addr < a->addr + a->len && a->addr < w->ranges[i].addr + w->ranges[i].len)
			return true;
	return false;
}

/* An access to a page protected for watchpoints ran (pagewatch.c): as a
 * debug register's hit, for the watchpoints whose bytes it touched. */
static int watch_pw_hit(struct qz *q, const struct pw_access *a)
{
	struct sbuf out = {0};
	bool stop = false, resync = false;
	for (size_t i = 0; i < q->bps.n; i++) {
		struct bp *b = &q->bps.bps[i];
		if (b->watch && b->enabled && b->watch->paged && watch_touched_by(b->watch, a))
			stop |= watch_check(q, b, &out, &resync);
	}
	if (stop)
		watch_fix_pc(q);
	return watch_finish(q, &out, stop, resync, RUN_AGAIN);
}

/* ---- frame exits ---- */

static int watch_on_trap(struct qz *q, uint64_t pc)
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

/* ---- commands ---- */

/* Split "EXPR if COND" at a standalone "if". */
static char *watch_split(const char *a, char **cond)
{
	*cond = NULL;
	for (const char *p = a; *p; p++) {
		if ((p == a || p[-1] == ' ' || p[-1] == '\t') && !strncmp(p, "if", 2) &&
		    (p[2] == ' ' || p[2] == '\t' || p[2] == '(' || !p[2])) {
			*cond = str_trim(p + 2);
			char *e = xstrndup(a, (size_t)(p - a));
			char *t = str_trim(e);
			free(e);
			return t;
		}
	}
	return str_trim(a);
}

/* Where the selected frame returns to and its CFA: the end of the block
 * a watchpoint on its locals is valid in. */
static void watch_scope(struct qz *q, struct watch *w)
{
	const struct frame *f = frame_get(q, q->sel_frame);
	uint64_t ra, cfa;
	if (f && frame_return(q, f, &ra, &cfa) == 0) {
		w->cfa = cfa;
		w->scope_pc = ra;
	}
}

/* The expression reads memory that cannot be read now (*p with p NULL):
 * as gdb, watch what it touched (p, and where *p was looked for) and
 * report the value as unreadable until it can be read. */
static int watch_unreadable(struct qz *q, struct watch *w)
{
	struct watch_state *ws = q->watch;
	if (!qz_running(q) || w->location || ws->ntouch == 0 ||
	    !str_starts(q->err.s ? q->err.s : "", "Cannot access memory"))
		return -1;
	sbuf_reset(&q->err);
	w->nranges = 0;
	for (size_t i = 0; i < ws->ntouch; i++)
		if (ws->touch[i].r.len)
			watch_add_range(w, ws->touch[i].r.addr, ws->touch[i].r.len);
	w->direct = false;
	w->in_reg = ws->touch_reg;
	w->located = true;
	return 0;
}

/* Parse and evaluate the watched expression into w. */
static int watch_prepare(struct qz *q, struct watch *w, const char *text)
{
	char err[512];
	w->expr = expr_parse(text, err, sizeof err);
	if (!w->expr)
		return qz_error(q, "%s", err);
	struct val v;
	if (watch_eval(q, w, &v, true) < 0) {
		if (watch_unreadable(q, w) < 0)
			return -1;
		if (q->watch->touch_local)
			watch_scope(q, w);
		return 0;
	}
	if (w->location && v.where != VAL_MEM) {
		val_free(&v);
		return qz_error(q, "Attempt to take address of value not located in memory.");
	}
	watch_set_ranges(q, w, &v);
	if (q->watch->touch_local && !w->location)
		watch_scope(q, w);
	if (w->nranges == 0 && !w->in_reg) {
		val_free(&v);
		return qz_error(q, "Cannot watch constant value `%s'.", text);
	}
	if (qz_running(q) || w->direct)
		watch_set_old(w, &v);
	else
		val_free(&v);
	return 0;
}

/* How many debug registers w needs (more than WATCH_NREGS: too many). */
static int watch_need(const struct watch *w)
{
	uint64_t pa[WATCH_NREGS];
	uint8_t pl[WATCH_NREGS];
	int n = 0;
	for (size_t i = 0; i < w->nranges && n <= WATCH_NREGS; i++)
		n += watch_pieces(w->ranges[i].addr, w->ranges[i].len, pa, pl, WATCH_NREGS);
	return n;
}

/* Not enough free debug registers for b: a write watch goes on in
 * software, said so; a read or access watch cannot. */
static int watch_no_room(struct qz *q, struct bp *b, int used)
{
	int need = watch_need(b->watch);
	char why[128];
	if (need > WATCH_NREGS)
		snprintf(why, sizeof why, "it needs more than the %d debug registers", WATCH_NREGS);
	else
		snprintf(why, sizeof why, "it needs %d debug register%s, %d of %d are in use",
			 need, need == 1 ? "" : "s", used, WATCH_NREGS);
	if (b->kind != BP_KIND_WATCH)
		return qz_error(q, "Cannot set a hardware read/access watchpoint on %s: %s.",
				b->watch->text, why);
	qz_printf(q, "Not enough free debug registers for %s (%s): using a software watchpoint "
		  "(the program single-steps, slowly).\n", b->watch->text, why);
	b->kind = BP_KIND_SWATCH;
	return 0;
}

/* Hardware if a register is free (and allowed), else software. */
static int watch_pick_kind(struct qz *q, struct bp *b, int kind)
{
	struct watch_state *ws = watch_state(q);
	bool rw = kind != BP_KIND_WATCH;
	if (ws->no_hw && rw)
		return qz_error(q, "Can't set read/access watchpoint when hardware "
				"watchpoints are disabled.");
	if (ws->no_hw || b->watch->in_reg) {
		if (rw)
			return qz_error(q, "Expression cannot be implemented with "
					"read/access watchpoint.");
		b->kind = BP_KIND_SWATCH;
		return 0;
	}
	/* Try it with the registers the others hold. */
	int used = 0;
	watch_assign(q);
	for (int i = 0; i < WATCH_NREGS; i++)
		used += (int)((ws->dr7 >> (2 * i)) & 1);
	struct watch_state probe = *ws;
	b->kind = kind;
	if (!q->dr_held_by_calls && watch_take_slots(&probe, b, &used))
		return 0;
	b->watch->slots = 0;
	return watch_no_room(q, b, used);
}

static int watch_create(struct qz *q, const char *args, int kind)
{
	bool location = false;
	args = str_skip_space(args);
	if (kind == BP_KIND_WATCH && (str_starts(args, "-location ") || str_starts(args, "-l "))) {
		location = true;
		args = str_skip_space(strchr(args, ' '));
	}
	char *cond;
	char *text = watch_split(args, &cond);
	if (!*text) {
		free(text);
		free(cond);
		return qz_error(q, "Argument required (expression to compute).");
	}
	struct bp *b = bp_new(&q->bps);
	int num = b->num;
	b->watch = xcalloc(1, sizeof *b->watch);
	b->watch->location = location;
	b->watch->text = location ? xasprintf("-location %s", text) : xstrdup(text);
	b->spec = xstrdup(b->watch->text);
	int r = watch_prepare(q, b->watch, text);
	if (r == 0)
		r = watch_pick_kind(q, b, kind);
	if (r == 0 && cond && *cond) {
		char err[512];
		b->cond_expr = expr_parse(cond, err, sizeof err);
		r = b->cond_expr ? 0 : qz_error(q, "%s", err);
		b->cond = r == 0 ? xstrdup(cond) : NULL;
	}
	free(text);
	free(cond);
	if (r < 0) {
		bp_delete(&q->bps, q->proc, num);
		q->bps.next_num--;
		return -1;
	}
	b->watch->was_enabled = true;
	qz_printf(q, "%s %d: %s\n", watch_title(b->kind), num, b->watch->text);
	watch_sync(q);
	return 0;
}

int cmd_watch(struct qz *q, const char *args)
{
	return watch_create(q, args, BP_KIND_WATCH);
}

int cmd_rwatch(struct qz *q, const char *args)
{
	return watch_create(q, args, BP_KIND_RWATCH);
}

int cmd_awatch(struct qz *q, const char *args)
{
	return watch_create(q, args, BP_KIND_AWATCH);
}

int cmd_set_can_use_hw_watchpoints(struct qz *q, const char *args)
{
	int64_t n;
	if (!str_to_i64(args, &n))
		return qz_error(q, "integer %s out of range", args);
	watch_state(q)->no_hw = n == 0;
	return 0;
}

int cmd_show_can_use_hw_watchpoints(struct qz *q, const char *args)
{
	(void)args;
	qz_printf(q, "Debugger's willingness to use watchpoint hardware is %d.\n",
		  watch_state(q)->no_hw ? 0 : 1);
	return 0;
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
