/* callbp: call breakpoints. An int3 at the function's entry (its PLT slot
 * for a library function the program calls, else its first instruction)
 * sees the arguments in the System V registers and the return address on
 * the stack. argN: the stop rewinds to the call instruction in the caller
 * (pc = the call, rsp as before the call), so the call runs again on
 * continue; the rerun is not a hit. ret and memory conditions need the
 * call to run: an int3 at the return address (and debug registers over the
 * memory for the call's duration) decides, and the stop is just after the
 * call, still on the caller's line. Where debug registers do not fire
 * (platform_dr_usable), a write watch single-steps the call and compares
 * (the watched bytes are typically on the stack, a return address, where
 * page protection is unsafe: the call's own pushes and the kernel's signal
 * frames write there), and a read or access watch protects the pages for
 * the call's duration (core/target/pagewatch.c): stepping cannot see reads. */
#include "callbp.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alter-int.h"
#include "dinfo/disasm.h"
#include "dreg.h"
#include "target/eval.h"
#include "target/frame.h"
#include "target/loc.h"
#include "target/pagewatch.h"
#include "proc/platform.h"
#include "target/run.h"
#include "target/session.h"
#include "target/watch.h"

enum call_what { CALL_ARG, CALL_RET, CALL_WRITE, CALL_READ, CALL_ACCESS };

#define CALL_STEP_MAX 65536   /* bytes a stepped write watch compares */

struct alter_call {
	struct qz *q;
	int num;
	char *func;
	char *cond;               /* as typed, for info breakpoints */
	enum call_what what;
	int argn;                 /* 1-6 for CALL_ARG */
	uint64_t value;           /* V */
	uint64_t addr, size;      /* ADDR, SIZE */
	/* Without a process V/ADDR are evaluated at the first call of each run
	 * (a global's address is only known once the program is loaded). */
	char *vtext;
	bool deferred, evaluated;
	uint64_t dr_at[DREG_MAX];
	int dr_len[DREG_MAX], ndr;
	int slot;                 /* first debug register it has, -1 if none */
	uint64_t link;            /* entry, link-time in the program */
	bool absolute;            /* link is a runtime address (a library) */
	uint64_t entry;           /* planted runtime entry, 0 if none */
	/* the call being watched (ret, memory) */
	bool active, hit;
	uint64_t ret_addr, ret_sp, args[6];
	uint8_t snap[64];         /* the memory at entry, for read */
	/* write to a range too big for the debug registers: single-step the
	 * call, comparing the range after each instruction with big */
	bool stepped;
	uint8_t *big;
	/* after an argN stop the call runs again: not a new hit */
	uint64_t skip_sp, skip_ret;
};

static void call_args(struct qz *q, uint64_t *a)
{
	struct user_regs_struct *r = proc_regs(q->proc);
	a[0] = r->rdi, a[1] = r->rsi, a[2] = r->rdx;
	a[3] = r->rcx, a[4] = r->r8, a[5] = r->r9;
}

/* The call instruction that returns to ret: its address, or 0. */
static uint64_t call_site_of(struct qz *q, uint64_t ret)
{
	static const int lens[] = { 5, 6, 2, 3, 7 };
	for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
		uint8_t code[16];
		struct dis_insn d;
		uint64_t at = ret - (uint64_t)lens[i];
		if (qz_read(q, at, code, sizeof code) == 0 &&
		    dis_decode(code, sizeof code, at, &d) && d.is_call && d.len == (size_t)lens[i])
			return at;
	}
	return 0;
}

/* The header of a stop, "Breakpoint 2, free (arg1=0x4052a0) WHAT"; the
 * frame and source line follow once (call_show_frame). */
static void call_report(struct qz *q, struct alter_call *c, int nargs, const char *what)
{
	struct bp *b = bp_find(&q->bps, c->num);
	if (b)
		b->hits++;
	qz_printf(q, "\nBreakpoint %d, %s (", c->num, c->func);
	for (int i = 0; i < nargs; i++)
		qz_printf(q, "%sarg%d=0x%llx", i ? ", " : "", i + 1, (unsigned long long)c->args[i]);
	qz_printf(q, ") %s", what);
}

static void call_show_frame(struct qz *q)
{
	frame_invalidate(q);
	q->sel_frame = 0;
	const struct frame *f = frame_get(q, 0);
	if (f)
		frame_print_stop(q, f, true);
	else
		qz_puts(q, "\n");
	q->stop = QZ_STOP_BREAKPOINT;
}

/* argN matched: back to the call instruction in the caller. */
static enum run_ev call_stop_at_site(struct qz *q, struct alter_call *c)
{
	struct user_regs_struct *r = proc_regs(q->proc);
	uint64_t ret;
	if (qz_read(q, r->rsp, &ret, 8) < 0)
		return RUN_TARGET;
	uint64_t site = call_site_of(q, ret);
	if (site) {
		r->rip = site;
		r->rsp += 8;
		proc_regs_dirty(q->proc);
		c->skip_sp = r->rsp;
		c->skip_ret = ret;
	}
	call_report(q, c, c->argn, site ? "called from " : "entered, called from an unknown site: ");
	call_show_frame(q);
	return RUN_STOPPED;
}

static int call_pw_hit(struct qz *q, const struct pw_access *a);

/* Without debug registers: the read and access watches of the calls in
 * progress as protected pages (write watches single-step, call_watch). */
static void call_protect(struct qz *q)
{
	struct alter_state *st = alter_state(q);
	struct pw_range r[16];
	size_t n = 0;
	for (size_t i = 0; i < st->ncalls && n < 16; i++) {
		struct alter_call *c = st->calls[i];
		if (c->active && c->ndr && !c->hit && c->what != CALL_WRITE)
			r[n++] = (struct pw_range){c->addr, c->size, true};
	}
	q->dr_held_by_calls = 0;
	pw_set(q, PW_CALLS, r, n, call_pw_hit);
}

/* The debug registers serve every watched call in progress: give each its
 * slots, in order; a call that finds none left is not watched (said once). */
static void call_rearm(struct qz *q)
{
	struct alter_state *st = alter_state(q);
	if (!platform_dr_usable()) {
		call_protect(q);
		return;
	}
	uint64_t at[DREG_MAX];
	int len[DREG_MAX], n = 0;
	enum dreg_kind kind[DREG_MAX];
	for (size_t i = 0; i < st->ncalls; i++) {
		struct alter_call *c = st->calls[i];
		c->slot = -1;
		if (!c->active || !c->ndr || c->hit)
			continue;
		if (watch_hw_active(q)) {
			qz_warn(q, "Breakpoint %d: hardware watchpoints hold the debug registers; "
				"this call is not watched.", c->num);
			continue;
		}
		if (n + c->ndr > DREG_MAX) {
			qz_warn(q, "Breakpoint %d: no debug register left for this call.", c->num);
			continue;
		}
		c->slot = n;
		for (int k = 0; k < c->ndr; k++, n++) {
			at[n] = c->dr_at[k];
			len[n] = c->dr_len[k];
			kind[n] = c->what == CALL_WRITE ? DREG_WRITE : DREG_ACCESS;
		}
	}
	q->dr_held_by_calls = n;
	if (watch_hw_active(q))
		return;   /* the registers are the watchpoints' */
	if (dreg_arm(proc_cur_tid(q->proc), at, len, kind, n) < 0)
		qz_warn(q, "Cannot set the debug registers.");
}

/* A read watch that saw a write (the value changed) is not hit. */
static bool call_read_was_write(struct qz *q, struct alter_call *c)
{
	uint8_t now[64];
	if (c->what != CALL_READ || qz_read(q, c->addr, now, c->size) < 0 ||
	    memcmp(now, c->snap, c->size) == 0)
		return false;
	memcpy(c->snap, now, c->size);
	return true;
}

/* An access to a protected page ran: the calls whose bytes it touched. */
static int call_pw_hit(struct qz *q, const struct pw_access *a)
{
	struct alter_state *st = alter_state(q);
	bool any = false;
	for (size_t i = 0; st && i < st->ncalls; i++) {
		struct alter_call *c = st->calls[i];
		if (!c->active || c->hit || !c->ndr || c->what == CALL_WRITE ||
		    a->addr >= c->addr + c->size || c->addr >= a->addr + a->len)
			continue;
		if (!call_read_was_write(q, c))
			c->hit = any = true;
	}
	if (any)
		call_protect(q);   /* decided calls need no more faults */
	return RUN_AGAIN;
}

/* Debug register hits (DR6 bits) to the calls whose slots they are. */
static void call_take_hits(struct qz *q, unsigned bits)
{
	struct alter_state *st = alter_state(q);
	for (size_t i = 0; bits && i < st->ncalls; i++) {
		struct alter_call *c = st->calls[i];
		unsigned mine = c->slot < 0 ? 0 : ((1u << c->ndr) - 1) << c->slot;
		if (!c->active || c->hit || !(bits & mine))
			continue;
		if (!call_read_was_write(q, c))
			c->hit = true;
	}
}

static bool call_any_dr(struct qz *q)
{
	struct alter_state *st = alter_state(q);
	for (size_t i = 0; st && i < st->ncalls; i++)
		if (st->calls[i]->active && st->calls[i]->ndr)
			return true;
	return false;
}

static void call_end(struct qz *q, struct alter_call *c)
{
	if (c->active)
		bp_site_del(&q->bps, q->proc, c->ret_addr);
	c->active = false;
	if (c->ndr)
		call_rearm(q);
}

/* Single-step the watched call until it writes the range (then let it
 * run to its return, where the stop is reported) or returns. A write of
 * the value already there is not seen. */
static enum run_ev call_step(struct qz *q, struct alter_call *c)
{
	uint8_t *now = xmalloc(c->size);
	enum run_ev ev = RUN_STEPPED;
	c->big = xrealloc(c->big, c->size);
	if (qz_read(q, c->addr, c->big, c->size) < 0)
		memset(c->big, 0, c->size);
	while (c->active && !c->hit && ev == RUN_STEPPED) {
		ev = run_step_insn(q);   /* reaching the return ends the watch */
		if (ev == RUN_STEPPED && qz_read(q, c->addr, now, c->size) == 0 &&
		    memcmp(now, c->big, c->size) != 0)
			c->hit = true;
	}
	free(now);
	return ev == RUN_STEPPED ? RUN_AGAIN : ev;
}

/* ret or memory: let the call run, decide when it returns. */
static enum run_ev call_watch(struct qz *q, struct alter_call *c)
{
	struct user_regs_struct *r = proc_regs(q->proc);
	if (c->active || qz_read(q, r->rsp, &c->ret_addr, 8) < 0)
		return RUN_TARGET;   /* a nested call: the outer one decides */
	c->ret_sp = r->rsp + 8;
	c->hit = false;
	call_args(q, c->args);
	if (bp_site_add(&q->bps, q->proc, c->ret_addr) < 0)
		return RUN_TARGET;
	c->active = true;
	if (c->ndr) {
		if (c->what == CALL_READ)
			qz_read(q, c->addr, c->snap, c->size);
		call_rearm(q);
	}
	bool step = c->stepped || (c->what == CALL_WRITE && !platform_dr_usable());
	return step ? call_step(q, c) : RUN_TARGET;
}

static int call_parse(struct qz *q, struct alter_call *c, const char *rest);

/* The first call of a run evaluates a deferred V or ADDR; false (with a
 * warning, the breakpoint disabled) if it cannot be evaluated. */
static bool call_values(struct qz *q, struct alter_call *c)
{
	if (!c->deferred || c->evaluated)
		return true;
	if (call_parse(q, c, c->vtext) == 0) {
		c->evaluated = true;
		return true;
	}
	qz_warn(q, "Breakpoint %d: cannot evaluate \"%s\": %s; disabled.", c->num, c->vtext,
		q->err.s ? q->err.s : "");
	sbuf_reset(&q->err);
	struct bp *b = bp_find(&q->bps, c->num);
	if (b)
		b->enabled = false;
	return false;
}

static enum run_ev call_entry(struct qz *q, struct alter_call *c)
{
	if (!call_values(q, c))
		return RUN_TARGET;
	struct user_regs_struct *r = proc_regs(q->proc);
	uint64_t ret = 0;
	qz_read(q, r->rsp, &ret, 8);
	if (c->skip_sp && r->rsp + 8 == c->skip_sp && ret == c->skip_ret) {
		c->skip_sp = 0;   /* the call we stopped at, running now */
		return RUN_TARGET;
	}
	if (c->what != CALL_ARG)
		return call_watch(q, c);
	call_args(q, c->args);
	if (c->args[c->argn - 1] != c->value)
		return RUN_TARGET;
	return call_stop_at_site(q, c);
}

static const char *call_verb(enum call_what w)
{
	return w == CALL_WRITE ? "wrote" : w == CALL_READ ? "read" : "accessed";
}

/* " in the call at bug_stack.c:18" (the stop is after the call, which may
 * be on the next line). */
static void call_where(struct qz *q, struct alter_call *c, char *buf, size_t len)
{
	uint64_t site = call_site_of(q, c->ret_addr);
	struct qz_module *m = site ? qz_module_at(q, site) : NULL;
	const struct lines_row *r = m && m->lines ? lines_at(m->lines, site - m->bias) : NULL;
	if (r)
		snprintf(buf, len, " in the call at %s:%d", str_basename(r->file), r->line);
	else
		buf[0] = 0;
}

/* The watched call returned: report it (header only) if it matched. */
static bool call_return(struct qz *q, struct alter_call *c)
{
	call_end(q, c);
	uint64_t rax = proc_regs(q->proc)->rax;
	char what[320], where[160];
	call_where(q, c, where, sizeof where);
	if (c->what == CALL_RET) {
		if (rax != c->value)
			return false;
		snprintf(what, sizeof what, "returned 0x%llx%s", (unsigned long long)rax,
			 where);
		call_report(q, c, 1, what);
		return true;
	}
	if (!c->hit)
		return false;
	snprintf(what, sizeof what, "%s 0x%llx (%llu byte%s)%s", call_verb(c->what),
		 (unsigned long long)c->addr, (unsigned long long)c->size, c->size == 1 ? "" : "s",
		 where);
	call_report(q, c, 2, what);
	return true;
}

/* Returns first (every watched call returning here decides, several may
 * report), then entries (watches are set up before an argN stop). */
int alter_call_trap(struct qz *q, uint64_t pc)
{
	struct alter_state *st = alter_state(q);
	if (!st || !st->ncalls)
		return RUN_TARGET;
	uint64_t sp = proc_regs(q->proc)->rsp;
	if (call_any_dr(q))
		call_take_hits(q, dreg_take_hits(proc_cur_tid(q->proc)));
	bool stopped = false;
	for (size_t i = 0; i < st->ncalls; i++) {
		struct alter_call *c = st->calls[i];
		if (c->active && pc == c->ret_addr && sp == c->ret_sp)
			stopped |= call_return(q, c);
	}
	if (stopped) {
		qz_puts(q, "; now at ");
		call_show_frame(q);
		return RUN_STOPPED;
	}
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < st->ncalls; i++) {
			struct alter_call *c = st->calls[i];
			struct bp *b = bp_find(&q->bps, c->num);
			if (c->entry != pc || !b || !b->enabled || (c->what == CALL_ARG) != pass)
				continue;
			enum run_ev ev = call_entry(q, c);
			if (ev != RUN_TARGET)
				return ev;
		}
	}
	return RUN_TARGET;
}

int alter_call_sigtrap(struct qz *q)
{
	if (!call_any_dr(q))
		return RUN_TARGET;
	unsigned bits = dreg_take_hits(proc_cur_tid(q->proc));
	if (!bits)
		return RUN_TARGET;
	call_take_hits(q, bits);
	call_rearm(q);   /* decided calls need no more traps */
	return RUN_AGAIN;
}

static void call_plant(struct qz *q, struct alter_call *c)
{
	uint64_t a = c->absolute ? c->link : c->link + q->exe.bias;
	if (qz_running(q) && bp_site_add(&q->bps, q->proc, a) == 0)
		c->entry = a;
}

void alter_call_start(struct qz *q)
{
	struct alter_state *st = alter_state(q);
	for (size_t i = 0; st && i < st->ncalls; i++) {
		st->calls[i]->entry = 0;
		st->calls[i]->active = false;
		st->calls[i]->skip_sp = 0;
		st->calls[i]->evaluated = false;
		call_plant(q, st->calls[i]);
	}
}

void alter_call_gone(struct qz *q)
{
	struct alter_state *st = alter_state(q);
	for (size_t i = 0; st && i < st->ncalls; i++) {
		st->calls[i]->entry = 0;   /* the sites went with the process */
		st->calls[i]->active = false;
	}
}

static void call_free(struct alter_call *c)
{
	free(c->func);
	free(c->cond);
	free(c->vtext);
	free(c->big);
	free(c);
}

static void call_unlist(struct qz *q, struct alter_call *c)
{
	struct alter_state *st = alter_state(q);
	for (size_t i = 0; st && i < st->ncalls; i++) {
		if (st->calls[i] != c)
			continue;
		st->calls[i] = st->calls[--st->ncalls];
		return;
	}
}

void alter_call_ext_free(struct bp *b)
{
	struct alter_call *c = b->ext;
	call_unlist(c->q, c);
	call_free(c);
	b->ext = NULL;
}

/* Deleted by the user: lift its sites first. */
static void call_delete(struct bp *b)
{
	struct alter_call *c = b->ext;
	struct qz *q = c->q;
	if (qz_running(q)) {
		call_unlist(q, c);
		if (c->active)
			bp_site_del(&q->bps, q->proc, c->ret_addr);
		c->active = false;
		if (c->ndr)
			call_rearm(q);
		if (c->entry)
			bp_site_del(&q->bps, q->proc, c->entry);
	}
	alter_call_ext_free(b);
}

void alter_call_fini(struct qz *q)
{
	struct alter_state *st = alter_state(q);
	if (st)
		free(st->calls);
}

static void call_row(const struct bp *b, struct sbuf *out)
{
	const struct alter_call *c = b->ext;
	uint64_t a = c->entry ? c->entry : c->link;
	sbuf_printf(out, "%-14s %-4s %-3s 0x%016llx <%s> (stops at the call site)\n",
		    "breakpoint", b->temp ? "del" : "keep", b->enabled ? "y" : "n",
		    (unsigned long long)a, c->func);
	sbuf_printf(out, "\tstop only if %s\n", c->cond);
	if (b->hits)
		sbuf_printf(out, "\tbreakpoint already hit %d time%s\n", b->hits,
			    b->hits == 1 ? "" : "s");
}

static const struct bp_ext_ops call_ops = { .free = call_delete, .row = call_row };

/* The kind of call condition cond is, and where its operand starts; -1 if
 * it is an ordinary condition. */
static int call_kind(const char *cond, int *argn, const char **rest)
{
	const char *p = str_skip_space(cond);
	static const char *const mem[] = { "write", "read", "access" };
	for (int i = 0; i < 3; i++) {
		size_t n = strlen(mem[i]);
		if (strncmp(p, mem[i], n) == 0 && isspace((unsigned char)p[n])) {
			*rest = str_skip_space(p + n);
			return CALL_WRITE + i;
		}
	}
	int kind = -1;
	if (strncmp(p, "arg", 3) == 0 && p[3] >= '1' && p[3] <= '6') {
		*argn = p[3] - '0';
		kind = CALL_ARG;
		p += 4;
	} else if (strncmp(p, "ret", 3) == 0) {
		kind = CALL_RET;
		p += 3;
	}
	p = str_skip_space(p);
	if (kind < 0 || strncmp(p, "==", 2) != 0)
		return -1;
	*rest = str_skip_space(p + 2);
	return kind;
}

static int call_eval(struct qz *q, const char *text, uint64_t *out)
{
	struct val v;
	if (!*text)
		return qz_error(q, "A value is missing in the breakpoint condition.");
	if (eval_text(q, text, &v) < 0)
		return -1;
	*out = (uint64_t)val_as_int(&v);
	val_free(&v);
	return 0;
}

/* "ADDR [SIZE]": SIZE is a trailing number when there is one. */
static int call_mem_operand(struct qz *q, struct alter_call *c, const char *rest)
{
	char *t = str_trim(rest);
	char *sp = strrchr(t, ' ');
	uint64_t size = 1;
	if (sp && str_to_u64(sp + 1, &size))
		*sp = 0;
	int r = call_eval(q, t, &c->addr);
	free(t);
	if (r < 0)
		return -1;
	if (size == 0 || size > CALL_STEP_MAX)
		return qz_error(q, "SIZE must be 1 to %d bytes.", CALL_STEP_MAX);
	c->size = size;
	c->ndr = dreg_plan(c->addr, size, c->dr_at, c->dr_len);
	if (c->ndr >= 0)
		return 0;
	c->ndr = 0;
	if (c->what != CALL_WRITE)
		return qz_error(q, "0x%llx (%llu bytes) needs more than the %d debug registers; "
				"%s watches at most 32 aligned bytes (write any size, by "
				"single-stepping the call).", (unsigned long long)c->addr,
				(unsigned long long)size, DREG_MAX, call_verb(c->what));
	c->stepped = true;
	free(c->big);
	c->big = xmalloc(size);
	return 0;
}

static int call_parse(struct qz *q, struct alter_call *c, const char *rest)
{
	if (c->what == CALL_ARG || c->what == CALL_RET)
		return call_eval(q, rest, &c->value);
	return call_mem_operand(q, c, rest);
}


/* The function's entry: where a call lands (no prologue skipping). A
 * library function's PLT slot in the program is known before the library
 * is loaded and stays valid across runs. */
static int call_resolve(struct qz *q, struct alter_call *c, const char *spec)
{
	struct loc_addr *locs = NULL;
	size_t n = 0;
	char *plt = xasprintf("%s@plt", spec);
	const struct img_sym *sym = q->exe.img ? img_sym_named(q->exe.img, plt) : NULL;
	free(plt);
	if (sym && sym->addr) {   /* the program's calls go through its PLT slot */
		c->link = sym->addr;
		return 0;
	}
	if (loc_resolve_ex(q, spec, false, &locs, &n) < 0)
		return -1;
	c->absolute = locs[0].mod != &q->exe;
	c->link = c->absolute ? locs[0].addr : locs[0].link_addr;
	bool ok = c->link != 0;
	free(locs);
	return ok ? 0 : qz_error(q, "Function \"%s\" has no address.", spec);
}

static void call_add(struct qz *q, struct alter_call *c, const char *spec)
{
	struct bp *b = bp_new(&q->bps);
	b->kind = BP_KIND_CALL;
	b->ext = c;
	b->ext_ops = &call_ops;
	b->spec = xstrdup(spec);
	c->num = b->num;
	struct alter_state *st = alter_state(q);
	XGROW(st->calls, st->calls_cap, st->ncalls + 1);
	st->calls[st->ncalls++] = c;
	call_plant(q, c);
	qz_printf(q, "Breakpoint %d at 0x%llx: %s, stops at the call site if %s.\n", b->num,
		  (unsigned long long)(c->entry ? c->entry : c->link), c->func, c->cond);
}

int alter_call_break(struct qz *q, const char *spec, const char *cond, bool temp)
{
	int argn = 0;
	const char *rest;
	int kind = call_kind(cond, &argn, &rest);
	if (kind < 0)
		return 0;
	if (!*spec)
		return qz_error(q, "A call condition needs a function: break FUNC if %s", cond);
	if (temp)
		return qz_error(q, "tbreak does not take call conditions; use break.");
	struct alter_call *c = xcalloc(1, sizeof *c);
	c->q = q;
	c->argn = argn;
	c->func = xstrdup(spec);
	c->cond = xstrdup(cond);
	c->what = (enum call_what)kind;
	c->vtext = xstrdup(rest);
	c->deferred = !qz_running(q);
	if (call_resolve(q, c, spec) < 0 || call_parse(q, c, rest) < 0) {
		call_free(c);
		return -1;
	}
	call_add(q, c, spec);
	return 1;
}
