/* step: stepping by lines and instructions. A line step single-steps
 * within the line's address range, steps over calls with an internal stop
 * at the return address (checked against the stack pointer so recursion
 * does not stop early), and ends at the first instruction of a different
 * is_stmt line, as gdb does. */
#include "step.h"

#include <stdlib.h>
#include <string.h>
#include <sys/user.h>

#include "abi.h"
#include "infcall.h"
#include "dinfo/disasm.h"
#include "frame.h"
#include "loc.h"
#include "run.h"
#include "session.h"

struct step_state {
	enum step_kind kind;
	uint64_t lo, hi;          /* stepping range, runtime */
	const char *file;         /* line being stepped away from */
	int line;
	/* gdb's step_frame_id (refreshed with the range) and
	 * step_start_function (the out-of-line function at the start): the
	 * stop shows just the source line when both still hold. */
	uint64_t frame_cfa, frame_fn;
	uint64_t start_fn;
	struct qz *q;
	int depth;                /* inlined-call frames shown at the start */
};

static bool step_same_file(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* Decoded facts about the instruction at pc, cached by address. */
struct step_insn_info {
	uint64_t addr;
	uint8_t len;
	bool is_call, is_ret;
};

static struct step_insn_info step_cache[1024];

static struct step_insn_info step_decode(struct qz *q, uint64_t pc)
{
	struct step_insn_info *c = &step_cache[(pc ^ (pc >> 10)) & 1023];
	if (c->addr == pc && c->len)
		return *c;
	uint8_t buf[16];
	struct dis_insn d;
	memset(c, 0, sizeof *c);
	if (qz_read(q, pc, buf, sizeof buf) == 0 && dis_decode(buf, sizeof buf, pc, &d)) {
		c->addr = pc;
		c->len = (uint8_t)d.len;
		c->is_call = d.is_call;
		c->is_ret = d.is_ret;
	}
	return *c;
}

static const struct lines_row *step_row(struct qz *q, uint64_t pc, struct qz_module **mod)
{
	struct qz_module *m = qz_module_at(q, pc);
	*mod = m;
	if (!m || !qz_mod_lines(q, m))
		return NULL;
	return lines_at(m->lines, pc - m->bias);
}

/* Run until the code returns to ret_addr with the stack popped to sp.
 * RUN_TARGET when it did. */
static enum run_ev step_return_to(struct qz *q, uint64_t ret_addr, uint64_t sp)
{
	struct run_target t = {.n = 1};
	t.addr[0] = ret_addr;
	t.min_sp[0] = sp;
	bp_site_add(&q->bps, q->proc, ret_addr);
	enum run_ev ev = run_until_target(q, &t);
	if (qz_running(q))
		bp_site_del(&q->bps, q->proc, ret_addr);
	return ev;
}

static enum run_ev step_run_to(struct qz *q, uint64_t addr)
{
	struct run_target t = {.n = 1};
	t.addr[0] = addr;
	bp_site_add(&q->bps, q->proc, addr);
	enum run_ev ev = run_until_target(q, &t);
	if (qz_running(q))
		bp_site_del(&q->bps, q->proc, addr);
	return ev;
}

/* The out-of-line function containing pc, as gdb's find_pc_function
 * gives it (never an inlined one). */
static uint64_t step_block_fn(struct qz *q, uint64_t pc)
{
	struct qz_module *m = qz_module_at(q, pc);
	const struct di_func *f = m && qz_mod_di(q, m) ? di_func_at(m->di, pc - m->bias) : NULL;
	return f ? f->lo + m->bias : 0;
}

static void step_mark_frame(struct qz *q, struct step_state *s)
{
	run_frame_id(q, &s->frame_cfa, &s->frame_fn);
}

static void step_start(struct qz *q, struct step_state *s)
{
	s->q = q;
	step_mark_frame(q, s);
	s->start_fn = step_block_fn(q, proc_pc(q->proc));
}

static void step_report(struct qz *q, const struct step_state *s)
{
	uint64_t cfa, func;
	run_frame_id(q, &cfa, &func);
	bool same = cfa == s->frame_cfa && func == s->frame_fn &&
		    step_block_fn(q, proc_pc(q->proc)) == s->start_fn;
	const struct frame *f = frame_get(q, 0);
	if (f)
		frame_print_stop(q, f, !same);
	q->stop = QZ_STOP_STEP;
}

/* The function with line info at library m's exported symbol name
 * (libc's fgets is the DWARF's _IO_fgets): this reads the library's
 * separate debug file the first time a call into it is stepped. */
static const struct di_func *step_lib_symbol_func(struct qz *q, struct qz_module *m,
						  const char *name)
{
	const struct img_sym *s = m->img && m->lo ? img_sym_named_global(m->img, name) : NULL;
	if (!s || !s->is_func || s->is_ifunc || !s->addr || !qz_mod_has_debug(m) || !qz_mod_lines(q, m) ||
	    !qz_mod_di(q, m))
		return NULL;
	const struct di_func *f = di_func_at(m->di, s->addr);
	return f && f->lo == s->addr ? f : NULL;
}

/* A call through a PLT stub ("plugin_add@plt") goes where the dynamic
 * linker binds the name: the first module in load order that defines it.
 * Its function when that has line info (a user's library built with -g). */
static const struct di_func *step_plt_target(struct qz *q, struct qz_module *m,
					     uint64_t pc, struct qz_module **tm)
{
	uint64_t off;
	const struct img_sym *s = img_sym_at(m->img, pc - m->bias, &off);
	const char *at = s ? strstr(s->name, "@plt") : NULL;
	const struct di_func *f = NULL;
	if (!at)
		return NULL;
	char *name = xstrndup(s->name, (size_t)(at - s->name));
	for (size_t i = 0; !f && i <= q->nlibs; i++) {
		*tm = i == 0 ? &q->exe : &q->libs[i - 1];
		f = (*tm)->di && (*tm)->lines && (*tm)->lo ? di_func_named((*tm)->di, name) : NULL;
		if (!f && i > 0)
			f = step_lib_symbol_func(q, *tm, name);
	}
	free(name);
	return f;
}

/* A stub whose target is not known by name (an IFUNC such as strlen:
 * the dynamic linker picks __strlen_evex at binding time, calling the
 * selector on the way): execute instruction by instruction until the
 * code is at the stack level of the stub again outside every PLT, which
 * is the bound function's entry (gdb steps through the resolver the same
 * way). RUN_TARGET there if it has line info (stepping on to its body),
 * RUN_AGAIN otherwise. */
#define STEP_PLT_MAX_INSNS 1000000

/* pc starts a function symbol outside every PLT (not the resolver's
 * final jump, at the same stack level but inside ld.so). */
static bool step_at_entry(struct qz_module *pm, uint64_t pc)
{
	uint64_t off;
	if (!pm || !pm->img || img_in_plt(pm->img, pc - pm->bias))
		return false;
	const struct img_sym *s = img_sym_at(pm->img, pc - pm->bias, &off);
	return s && s->is_func && off == 0;
}

/* Whether the stub at pc calls an IFUNC of a library with debug info. */
static bool step_plt_ifunc(struct qz *q, struct qz_module *m, uint64_t pc)
{
	uint64_t off;
	const struct img_sym *s = img_sym_at(m->img, pc - m->bias, &off);
	const char *at = s ? strstr(s->name, "@plt") : NULL;
	if (!at)
		return false;
	char *name = xstrndup(s->name, (size_t)(at - s->name));
	bool yes = false;
	for (size_t i = 0; !yes && i < q->nlibs; i++) {
		const struct img_sym *t = q->libs[i].lo && q->libs[i].img ?
			img_sym_named_global(q->libs[i].img, name) : NULL;
		yes = t && t->is_ifunc && qz_mod_has_debug(&q->libs[i]);
	}
	free(name);
	return yes;
}
static enum run_ev step_plt_by_insn(struct qz *q, struct qz_module *m,
				    uint64_t ret_addr, uint64_t ret_sp)
{
	(void)ret_addr;
	uint64_t sp0 = ret_sp - 8;   /* the sp in the stub: the return address pushed */
	for (long i = 0; i < STEP_PLT_MAX_INSNS; i++) {
		uint64_t pc = proc_pc(q->proc);
		struct qz_module *pm = qz_module_at(q, pc);
		if (step_at_entry(pm, pc) && proc_regs(q->proc)->rsp == sp0 && pm != m)
			break;
		enum run_ev ev = run_step_insn(q);
		if (ev != RUN_STEPPED)
			return ev;
	}
	uint64_t pc = proc_pc(q->proc);
	struct qz_module *tm;
	const struct lines_row *r = step_row(q, pc, &tm);
	const struct di_func *f = r && qz_mod_di(q, tm) ? di_func_at(tm->di, pc - tm->bias) : NULL;
	if (!f)
		return RUN_AGAIN;
	uint64_t body = loc_skip_prologue(q, tm, f->lo, f->hi) + tm->bias;
	return body == pc ? RUN_TARGET : step_run_to(q, body);
}

/* Into a PLT stub whose target has line info: run to the target's body,
 * or back to the caller if the stub goes elsewhere. RUN_TARGET at the
 * body, RUN_STEPPED back at the caller, RUN_AGAIN when not applicable. */
static enum run_ev step_through_plt(struct qz *q, struct qz_module *m,
				    uint64_t ret_addr, uint64_t ret_sp)
{
	struct qz_module *tm;
	const struct di_func *f = step_plt_target(q, m, proc_pc(q->proc), &tm);
	if (!f)
		return step_plt_ifunc(q, m, proc_pc(q->proc)) ?
			step_plt_by_insn(q, m, ret_addr, ret_sp) : RUN_AGAIN;
	struct run_target t = {.n = 2};
	t.addr[0] = loc_skip_prologue(q, tm, f->lo, f->hi) + tm->bias;
	t.addr[1] = ret_addr;
	t.min_sp[1] = ret_sp;
	bp_site_add(&q->bps, q->proc, t.addr[0]);
	bp_site_add(&q->bps, q->proc, t.addr[1]);
	enum run_ev ev = run_until_target(q, &t);
	if (qz_running(q)) {
		bp_site_del(&q->bps, q->proc, t.addr[0]);
		bp_site_del(&q->bps, q->proc, t.addr[1]);
	}
	if (ev == RUN_TARGET && proc_pc(q->proc) != t.addr[0])
		return RUN_STEPPED;
	return ev;
}

/* We stepped into a function through a call. Stop at its body if it has
 * line info and we step into calls, else run until it returns. Returns
 * RUN_STEPPED to keep stepping, RUN_TARGET when stopped at the body. */
static enum run_ev step_entered(struct qz *q, struct step_state *s,
				uint64_t ret_addr, uint64_t ret_sp)
{
	uint64_t pc = proc_pc(q->proc);
	struct qz_module *m;
	const struct lines_row *r = step_row(q, pc, &m);
	const struct di_func *f = r && qz_mod_di(q, m) ? di_func_at(m->di, pc - m->bias) : NULL;
	bool plt = m && m->img && img_in_plt(m->img, pc - m->bias);
	if (s->kind == STEP_INTO && plt) {
		enum run_ev ev = step_through_plt(q, m, ret_addr, ret_sp);
		if (ev != RUN_AGAIN)
			return ev;
	}
	if (s->kind == STEP_INTO && r && f && !plt) {
		uint64_t body = loc_skip_prologue(q, m, f->lo, f->hi) + m->bias;
		if (body == pc)
			return RUN_TARGET;
		enum run_ev ev = step_run_to(q, body);
		return ev == RUN_TARGET ? RUN_TARGET : ev;
	}
	enum run_ev ev = step_return_to(q, ret_addr, ret_sp);
	return ev == RUN_TARGET ? RUN_STEPPED : ev;
}

static void step_set_range(struct step_state *s, struct qz_module *m,
			   const struct lines_row *r, bool refresh)
{
	s->lo = r->addr + m->bias;
	s->hi = r->end + m->bias;
	if (refresh) {
		s->file = r->file;
		s->line = r->line;
		if (s->q)
			step_mark_frame(s->q, s);
	}
}

/* Decide at a pc outside the range: RUN_TARGET to stop, RUN_STEPPED to go
 * on (range updated). */
static enum run_ev step_new_pc(struct qz *q, struct step_state *s, bool returned);

/* Is there a symbol for the code at pc? */
static bool step_named(struct qz *q, uint64_t pc)
{
	const struct frame *f = frame_get(q, 0);
	return f && f->pc == pc && (f->func || f->sym);
}

/* gdb's `step` does not stop in a function with neither line info nor a
 * name (libc's __libc_start_call_main when main returns): it runs until
 * that function returns. */
static enum run_ev step_out_of_nameless(struct qz *q, struct step_state *s)
{
	uint64_t ra, cfa;
	const struct frame *f = frame_get(q, 0);
	if (!f || frame_return(q, f, &ra, &cfa) < 0)
		return RUN_TARGET;
	enum run_ev ev = step_return_to(q, ra, cfa);
	return ev == RUN_TARGET ? step_new_pc(q, s, true) : ev;
}

static enum run_ev step_new_pc(struct qz *q, struct step_state *s, bool returned)
{
	uint64_t pc = proc_pc(q->proc);
	struct qz_module *m;
	const struct lines_row *r = step_row(q, pc, &m);
	if (!r) {
		if (returned && s->kind == STEP_INTO && !step_named(q, pc))
			return step_out_of_nameless(q, s);
		if (returned)
			return RUN_TARGET;   /* back in code without line info */
		/* Jumped (tail call) into code without lines: run until it
		 * returns to our caller. */
		uint64_t ra;
		uint64_t sp = proc_regs(q->proc)->rsp;
		if (qz_read(q, sp, &ra, sizeof ra) < 0)
			return RUN_TARGET;
		enum run_ev ev = step_return_to(q, ra, sp + 8);
		return ev == RUN_TARGET ? step_new_pc(q, s, true) : ev;
	}
	/* gdb's process_event_stop_test: the start of another line stops
	 * if it is a statement; if not, in the same frame the line stepped
	 * from stays, in another frame (a return, an inlined call left) the
	 * line becomes none, so that any line after it stops. Elsewhere the
	 * range and line are those of the row reached. */
	bool at_start = r->addr + m->bias == pc;
	bool other = r->line != s->line || r->file != s->file;
	if (at_start && other && r->is_stmt)
		return RUN_TARGET;
	step_set_range(s, m, r, !(at_start && other) || returned);
	if (at_start && other && returned)
		s->line = 0;
	return RUN_STEPPED;
}

/* gdb's rules for inlined calls: arriving at the first instruction of one
 * stops at its call site (if that is another line), `step` then goes down
 * into it; inside one, `next` keeps going and `step` stops. */
static enum run_ev step_inline_rules(struct qz *q, struct step_state *s,
				     uint64_t npc, bool returned)
{
	int skipped, cl;
	const char *cf;
	int d = frame_inline_state(q, npc, &skipped, &cl, &cf);
	if (skipped && d == s->depth) {
		bool same = cl == s->line && step_same_file(cf, s->file);
		if (s->kind != STEP_INTO)
			return same ? RUN_STEPPED : RUN_TARGET;
		if (same) {
			q->inline_unskip = 1;
			frame_invalidate(q);
		}
		return RUN_TARGET;
	}
	if (d > s->depth)
		return s->kind == STEP_INTO ? RUN_TARGET : RUN_STEPPED;
	bool out = d < s->depth;  /* left an inlined call, as if it returned */
	s->depth = d;
	return step_new_pc(q, s, returned || out);
}

/* One step of a line step: execute one instruction (or a whole call). */
static enum run_ev step_one(struct qz *q, struct step_state *s)
{
	uint64_t pc = proc_pc(q->proc);
	uint64_t sp = proc_regs(q->proc)->rsp;
	struct step_insn_info in = step_decode(q, pc);
	enum run_ev ev = run_step_insn(q);
	if (ev != RUN_STEPPED)
		return ev;
	uint64_t npc = proc_pc(q->proc);
	if (run_check_bp_here(q))   /* stepped onto a breakpoint */
		return RUN_STOPPED;
	if (in.is_call && npc != pc + in.len) {
		ev = step_entered(q, s, pc + in.len, sp);
		if (ev != RUN_STEPPED)
			return ev;
		npc = proc_pc(q->proc);
		if (run_check_bp_here(q))
			return RUN_STOPPED;
	}
	if (npc >= s->lo && npc < s->hi)
		return RUN_STEPPED;
	return step_inline_rules(q, s, npc, in.is_ret);
}

/* Without line info at the start, step out of the function first, as gdb
 * does ("Single stepping until exit from function ..."). */
static enum run_ev step_out_of_unknown(struct qz *q, struct step_state *s)
{
	const struct frame *f = frame_get(q, 0);
	if (f && !f->func && !f->sym) {
		qz_error(q, s->kind == STEP_UNTIL ? "Execution is not within a known function." :
			 "Cannot find bounds of current function");
		return RUN_ERROR;
	}
	const struct frame *c = frame_get(q, 1);
	if (!f || !c || !f->has_cfa)
		return RUN_TARGET;
	qz_printf(q, "Single stepping until exit from function %s,\n"
		  "which has no line number information.\n",
		  f->sym ? f->sym : "??");
	enum run_ev ev = step_return_to(q, c->pc, f->cfa);
	if (ev != RUN_TARGET)
		return ev;
	s->lo = s->hi = 0;
	s->line = -1;
	return step_new_pc(q, s, true);
}

/* until's range: from the function's start (no stop going back in a
 * loop) to the end of the line, past rows of the same line that are not
 * statements (gdb 13's until_next_command). */
static void step_until_range(struct qz *q, struct step_state *s, struct qz_module *m,
			     const struct lines_row *r)
{
	uint64_t pc = proc_pc(q->proc);
	const struct di_func *f = qz_mod_di(q, m) ? di_func_at(m->di, pc - m->bias) : NULL;
	if (f)
		s->lo = f->lo + m->bias;
	for (int i = 0; i < 10000; i++) {
		const struct lines_row *n = lines_at(m->lines, s->hi - m->bias);
		if (!n || n->addr + m->bias != s->hi || n->is_stmt || n->line != r->line ||
		    n->file != r->file)
			break;
		s->hi = n->end + m->bias;
	}
}

/* quiet: an intermediate step of `step N`, which gdb does not report
 * (only the last stop is printed, against the frame of the last step). */
static int step_line_once(struct qz *q, enum step_kind kind, bool quiet)
{
	struct step_state s = {.kind = kind, .line = -1};
	step_start(q, &s);
	uint64_t pc = proc_pc(q->proc);
	int skipped, cl;
	const char *cf;
	s.depth = frame_inline_state(q, pc, &skipped, &cl, &cf);
	if (skipped && kind == STEP_INTO) {
		/* At an inlined call's site: step goes down into it, as gdb,
		 * without running: frame 0 is selected as after any step. */
		q->inline_unskip++;
		q->sel_frame = 0;
		frame_invalidate(q);
		if (!quiet)
			step_report(q, &s);
		return 0;
	}
	struct qz_module *m;
	const struct lines_row *r = step_row(q, pc, &m);
	enum run_ev ev = RUN_STEPPED;
	if (r) {
		step_set_range(&s, m, r, true);
		if (skipped) {   /* shown at the call site: that is our line */
			s.line = cl;
			s.file = cf;
		}
		if (kind == STEP_UNTIL)
			step_until_range(q, &s, m, r);
	} else {
		ev = step_out_of_unknown(q, &s);
	}
	while (ev == RUN_STEPPED)
		ev = step_one(q, &s);
	if (ev == RUN_TARGET && !quiet)
		step_report(q, &s);
	return ev == RUN_ERROR ? -1 : (ev == RUN_TARGET ? 0 : 1);
}

int step_line(struct qz *q, enum step_kind kind, int count)
{
	for (int i = 0; i < count; i++) {
		int r = step_line_once(q, kind, i + 1 < count);
		if (r != 0 || !qz_running(q))
			return r < 0 ? -1 : 0;
	}
	return 0;
}

int step_insn(struct qz *q, bool over, int count)
{
	struct step_state s = {0};
	step_start(q, &s);
	for (int i = 0; i < count; i++) {
		uint64_t pc = proc_pc(q->proc);
		uint64_t sp = proc_regs(q->proc)->rsp;
		struct step_insn_info in = over ? step_decode(q, pc) : (struct step_insn_info){0};
		enum run_ev ev = run_step_insn(q);
		if (ev == RUN_STEPPED && over && in.is_call && proc_pc(q->proc) != pc + in.len)
			ev = step_return_to(q, pc + in.len, sp) == RUN_TARGET ? RUN_STEPPED : RUN_STOPPED;
		if (ev != RUN_STEPPED)
			return ev == RUN_ERROR ? -1 : 0;
		if (run_check_bp_here(q))
			return 0;
	}
	/* gdb hides inlined calls starting at the pc, unless after stepi. */
	q->inline_unskip = FRAME_INLINE_ALL;
	frame_invalidate(q);
	step_report(q, &s);
	return 0;
}

/* The value a function of return type t left in the registers (or, for
 * a large aggregate, in memory at rax), as the SysV ABI puts it; 0 or -1
 * when there is none or it cannot be had. */
int step_return_value(struct qz *q, const struct di_type *t, struct val *out)
{
	enum abi_class cls[2];
	struct user_regs_struct *u = proc_regs(q->proc);
	const struct di_type *s = di_type_strip(t);
	switch (abi_classify(t, cls)) {
	case ABI_REGS: {
		struct user_fpregs_struct fp;
		uint64_t ints[2] = {u->rax, u->rdx}, sses[2] = {0, 0};
		uint8_t bytes[16];
		if ((cls[0] == ABI_SSE || cls[1] == ABI_SSE) && proc_fpregs(q->proc, &fp) < 0)
			return -1;
		if (cls[0] == ABI_SSE || cls[1] == ABI_SSE) {
			memcpy(&sses[0], (const uint8_t *)fp.xmm_space, 8);
			memcpy(&sses[1], (const uint8_t *)fp.xmm_space + 16, 8);
		}
		abi_gather(cls, ints, sses, bytes);
		*out = val_from_bytes(t, bytes, s->size);
		return 0;
	}
	case ABI_MEMORY: {
		uint8_t *buf = xmalloc(s->size);
		if (qz_read(q, u->rax, buf, s->size) < 0) {
			free(buf);
			return -1;
		}
		*out = val_from_bytes(t, buf, s->size);
		out->where = VAL_MEM;
		out->addr = u->rax;
		free(buf);
		return 0;
	}
	default:
		return -1;
	}
}

static void step_print_value(struct qz *q, const struct di_func *fn)
{
	struct val v;
	if (!fn->ret || step_return_value(q, fn->ret, &v) < 0)
		return;
	struct val_print vp = {
		.top = true, .max_elements = q->print_elements,
		.read_mem = qz_read_cb, .symbolize = qz_symbolize_cb, .arg = q,
	};
	struct sbuf b = {0};
	val_print(&b, &v, &vp);
	int n = qz_history_add(q, &v);
	sbuf_printf(&q->after_stop, "Value returned is $%d = %s\n", n, b.s ? b.s : "");
	sbuf_free(&b);
}

/* The function whose code holds pc itself (gdb's find_pc_function of a
 * tail-call frame's pc, which is past the jump: maybe in no function). */
static const struct di_func *step_func_at(struct qz *q, uint64_t pc)
{
	struct qz_module *m = qz_module_at(q, pc);
	return m && qz_mod_di(q, m) ? di_func_at(m->di, pc - m->bias) : NULL;
}

/* Finish an inlined call: as gdb, a `next` with an empty range in the
 * caller, so it stops at the first new line once the call is left. */
static int step_finish_inline(struct qz *q, const struct frame *f)
{
	struct step_state s = {.kind = STEP_OVER, .line = 0};
	s.depth = f->set_real - f->level - 1;
	if (f->set_first > 0) {
		/* a selected frame up the stack: first back into its machine
		 * frame, as gdb's next over the calls below it does */
		const struct frame *g = frame_get(q, f->set_first - 1);
		uint64_t ra, cfa;
		if (!g || frame_return(q, g, &ra, &cfa) < 0)
			return qz_error(q, "Cannot find the caller of the selected frame.");
		enum run_ev ev = step_return_to(q, ra, cfa);
		if (ev != RUN_TARGET)
			return ev == RUN_ERROR ? -1 : 0;
	}
	s.lo = s.hi = proc_pc(q->proc);
	step_start(q, &s);
	/* gdb's finish sets no function stepped from (step_start_function),
	 * so the stop always shows the caller's frame line */
	s.start_fn = 0;
	enum run_ev ev = RUN_STEPPED;
	while (ev == RUN_STEPPED)
		ev = step_one(q, &s);
	if (ev == RUN_TARGET)
		step_report(q, &s);
	return ev == RUN_ERROR ? -1 : 0;
}

/* "Run till exit from #0 ...", which gdb prints only for commands from a
 * terminal. */
static void step_run_till(struct qz *q, const struct frame *f)
{
	if (!q->from_tty)
		return;
	struct sbuf b = {0};
	frame_describe(q, f, frame_shows_addr(f), &b);
	qz_printf(q, "Run till exit from #%d  %s\n", f->level, b.s);
	sbuf_free(&b);
}

/* finish out of a function called from the debugger that stopped early:
 * its value, then the registers of before the call, as gdb. */
static int step_finish_call(struct qz *q, const struct frame *f,
			    const struct infcall_dummy *d)
{
	const struct di_func *fn = f->func;
	step_run_till(q, f);
	infcall_hold(q, d, true);
	enum run_ev ev = step_return_to(q, d->ret, d->sp);
	if (qz_running(q))
		infcall_hold(q, d, false);
	if (ev != RUN_TARGET)
		return ev == RUN_ERROR ? -1 : 0;
	if (fn)
		step_print_value(q, fn);
	infcall_pop_here(q);
	const struct frame *now = frame_get(q, 0);
	if (now)
		frame_print_stop(q, now, true);
	q->stop = QZ_STOP_LOCATION;
	return 0;
}

int step_finish(struct qz *q)
{
	const struct frame *f = frame_get(q, q->sel_frame);
	if (f && f->inl && !f->tailcall) {
		step_run_till(q, f);
		return step_finish_inline(q, f);
	}
	/* tail-call frames above were left when their jumps were made: the
	 * finish is to the real caller (gdb's skip_tailcall_frames) */
	const struct frame *c = f ? frame_real_caller(q, f) : NULL;
	if (!c)
		return qz_error(q, "\"finish\" not meaningful in the outermost frame.");
	if (c->dummy)
		return step_finish_call(q, f, c->dummy);
	step_run_till(q, f);
	const struct di_func *fn = f->tailcall ? step_func_at(q, f->pc) : f->func;
	enum run_ev ev = step_return_to(q, c->pc, f->cfa);
	if (ev != RUN_TARGET)
		return ev == RUN_ERROR ? -1 : 0;
	const struct frame *now = frame_get(q, 0);
	if (now)
		frame_print_stop(q, now, true);
	q->stop = QZ_STOP_LOCATION;
	if (fn)
		step_print_value(q, fn);
	return 0;
}

int step_to(struct qz *q, const char *spec, bool until_mode)
{
	struct loc_addr *locs;
	size_t n;
	if (loc_resolve(q, spec, &locs, &n) < 0)
		return -1;
	const struct frame *f = frame_get(q, q->sel_frame);
	struct run_target t = {0};
	uint64_t ra, cfa;
	for (size_t i = 0; i < n && t.n < 7; i++) {
		t.addr[t.n] = locs[i].addr;
		t.min_sp[t.n++] = until_mode && f ? f->regs.r[DI_REG_RSP] : 0;
	}
	if (f && frame_return(q, f, &ra, &cfa) == 0) {   /* or when it returns */
		t.addr[t.n] = ra;
		t.min_sp[t.n++] = cfa;
	}
	for (int i = 0; i < t.n; i++)
		bp_site_add(&q->bps, q->proc, t.addr[i]);
	enum run_ev ev = run_until_target(q, &t);
	for (int i = 0; qz_running(q) && i < t.n; i++)
		bp_site_del(&q->bps, q->proc, t.addr[i]);
	/* at one of the places asked for, gdb shows the inlined calls
	 * starting there down to the place's function, as for a breakpoint */
	for (size_t i = 0; ev == RUN_TARGET && i < n; i++)
		if (locs[i].addr == proc_pc(q->proc))
			frame_unskip_for(q, locs[i].addr, locs[i].absolute ? NULL : locs[i].func);
	free(locs);
	if (ev == RUN_TARGET) {
		const struct frame *now = frame_get(q, 0);
		if (now)
			frame_print_stop(q, now, true);
		q->stop = QZ_STOP_LOCATION;
	}
	return ev == RUN_ERROR ? -1 : 0;
}
