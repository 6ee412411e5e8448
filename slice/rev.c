/* rev: the position in the recording and moving it; see rev.h. Line
 * steps backwards follow gdb's infrun in reverse: the step range is the
 * line-table row the pc is in; going back out of it into the middle of
 * another row makes that row the range, and the step ends at a range's
 * first instruction (not a function's entry: from there it goes on back
 * to the call) or on arriving at the start of an is_stmt row of another
 * line. Calls are followed by their depth: going back over a ret enters
 * a callee (depth + 1), over a call leaves to the caller (depth - 1). */
#include "rev.h"

#include <stdio.h>
#include <string.h>
#include <sys/user.h>

#include "dinfo/dinfo.h"
#include "dinfo/lines.h"
#include "proc/proc.h"
#include "target/bp.h"
#include "target/frame.h"
#include "target/objects.h"
#include "target/run.h"
#include "target/session.h"
#include "target/watch.h"
#include "rec.h"
#include "slice.h"

/* The log is usable when recording is on and its entries reach the end. */
static struct rev_log *rv_log(struct qz *q)
{
	struct rec *r = slice_rec(q);
	rev_sync(&r->undo, r->tr.n);
	if (!r->on || !qz_running(q) || !r->undo.noff ||
	    r->undo.first + r->undo.noff != r->tr.n)
		return NULL;
	return &r->undo;
}

static uint64_t rv_end(struct qz *q)
{
	return slice_rec(q)->tr.n;
}

/* Tell core where the process is: the status bar and qz_present read it. */
static void rv_publish(struct qz *q)
{
	struct rec *r = slice_rec(q);
	q->in_past = r->undo.noff && r->undo.pos < r->tr.n;
	q->replay_insn = r->undo.pos;
	q->replay_insns = r->tr.n;
	frame_invalidate(q);
}

bool rev_can(struct qz *q)
{
	return slice_rec(q)->on && qz_running(q);
}

bool rev_in_past(struct qz *q)
{
	struct rev_log *l = rv_log(q);
	return l && l->pos < rv_end(q);
}

void rev_reset(struct qz *q)
{
	struct rec *r = slice_rec(q);
	rev_log_clear(&r->undo);
	q->in_past = false;
}

/* One instruction back; false at the first one (gdb stops there with
 * "No more reverse-execution history.", even at a breakpoint). */
static bool rv_back1(struct qz *q, struct rev_log *l)
{
	if (l->pos <= l->first)
		return false;
	struct user_regs_struct *regs = proc_regs(q->proc);
	if (l->pos == rv_end(q))
		l->live_orig_rax = regs->orig_rax;
	rev_apply(q, l, --l->pos, true);
	regs->orig_rax = (uint64_t)-1;   /* between instructions, as a native stop */
	return true;
}

static bool rv_at_first(const struct rev_log *l)
{
	return l->pos <= l->first;
}

static bool rv_fwd1(struct qz *q, struct rev_log *l)
{
	if (l->pos >= rv_end(q))
		return false;
	rev_apply(q, l, l->pos++, false);
	if (l->pos == rv_end(q))
		proc_regs(q->proc)->orig_rax = l->live_orig_rax;
	return true;
}

/* A stop after moving: a new stop for the session (frames, selection). */
static void rv_stopped(struct qz *q)
{
	rv_publish(q);
	q->nstops++;
	q->sel_frame = 0;
	q->inline_unskip = 0;
	q->stop = QZ_STOP_STEP;
}

/* A breakpoint or watchpoint stop, reported already: the frames as the
 * report showed them (a breakpoint on an inlined function shows its
 * frame). */
static void rv_bp_stopped(struct qz *q)
{
	int unskip = q->inline_unskip;
	rv_stopped(q);
	q->inline_unskip = unskip;
	q->stop = QZ_STOP_BREAKPOINT;
}

/* The stop line; with the frame line when the frame is not the one the
 * command started in (cfa0, fn0), as after stepping. */
static void rv_report(struct qz *q, uint64_t cfa0, uint64_t fn0, bool force_frame)
{
	uint64_t cfa, fn;
	int unskip = q->inline_unskip;   /* as the move left it (stepi: all) */
	rv_stopped(q);
	q->inline_unskip = unskip;
	run_frame_id(q, &cfa, &fn);
	const struct frame *f = frame_get(q, 0);
	if (f)
		frame_print_stop(q, f, force_frame || cfa != cfa0 || fn != fn0);
}

/* The end of the history in either direction, in gdb's words. */
static void rv_no_more(struct qz *q)
{
	qz_puts(q, "\nNo more reverse-execution history.\n");
	/* gdb's stop for the end of the history skips no inlined call */
	q->inline_unskip = FRAME_INLINE_ALL;
	rv_report(q, 0, 0, true);
}

static int rv_need(struct qz *q, struct rev_log **l)
{
	*l = rv_log(q);
	if (*l)
		return 0;
	struct rec *r = slice_rec(q);
	if (!qz_running(q))
		return qz_error(q, "The program is not being run.");
	if (!r->on)
		return qz_error(q, "Target native does not support this command "
				"(reverse execution needs \"record on\" first).");
	if (r->undo.disabled)
		return qz_error(q, "The undo log is off (set record undo on, then record again).");
	return qz_error(q, "No more reverse-execution history.");
}

/* No recorded region: another module may go back (ckpt/ re-executes from
 * a checkpoint); MOD_UNCLAIMED when none can. */
static int rv_beyond(struct qz *q, int how)
{
	return slice_rec(q)->on ? MOD_UNCLAIMED : mod_reverse(q, how);
}

/* The instruction now at the pc (the decode cache knows every recorded one). */
static const struct trace_insn *rv_insn(struct qz *q)
{
	struct rec *r = slice_rec(q);
	int64_t id = rec_insn_id(q, r, proc_pc(q->proc));
	return id < 0 ? NULL : &r->tr.insns[id];
}

/* One instruction back, counting call depth: going back over a call
 * leaves the callee (*depth - 1), over a ret enters one (*depth + 1).
 * False, with gdb's message, at the start of the history. */
static bool rv_back_counting(struct qz *q, struct rev_log *l, int *depth)
{
	if (!rv_back1(q, l)) {
		rv_no_more(q);
		return false;
	}
	const struct trace_insn *e = rv_insn(q);
	if (e && (e->in.kind == INSN_CALL || e->in.kind == INSN_CALL_IND))
		(*depth)--;
	else if (e && e->in.kind == INSN_RET)
		(*depth)++;
	return true;
}

/* rv_back_counting, then the position is published and a breakpoint
 * in the frame the move started in (depth 0) ends it there: false when
 * the move is over (the start of history or a breakpoint, reported). */
static bool rv_back_stopping(struct qz *q, struct rev_log *l, int *depth)
{
	if (!rv_back_counting(q, l, depth))
		return false;
	rv_publish(q);
	if (*depth == 0 && run_check_bp_here(q)) {
		rv_bp_stopped(q);
		return false;
	}
	return true;
}

int rev_stepi(struct qz *q, int n, bool over)
{
	struct rev_log *l;
	if (rv_need(q, &l) < 0)
		return -1;
	uint64_t cfa0, fn0;
	run_frame_id(q, &cfa0, &fn0);
	for (int i = 0; i < n; i++) {
		int depth = 0;
		do {
			if (!rv_back_counting(q, l, &depth))
				return 0;
		} while (over && depth > 0);
		if (rv_at_first(l)) {
			rv_no_more(q);
			return 0;
		}
		if (run_check_bp_here(q) && i + 1 < n) {
			rv_stopped(q);
			return 0;
		}
	}
	q->inline_unskip = FRAME_INLINE_ALL;
	rv_report(q, cfa0, fn0, false);
	return 0;
}

/* ---- forward while in the past: replay ---- */

static bool rv_target_hit(struct qz *q, const struct run_target *t)
{
	const struct user_regs_struct *regs = proc_regs(q->proc);
	for (int i = 0; t && i < t->n; i++)
		if (t->addr[i] == regs->rip && regs->rsp >= t->min_sp[i])
			return true;
	return false;
}

int rev_forward(struct qz *q, const struct run_target *t, bool one)
{
	struct rev_log *l = rv_log(q);
	if (!l || !rv_fwd1(q, l))
		return RUN_ERROR;
	for (;;) {
		rv_publish(q);
		q->inline_unskip = 0;   /* a new stop, as run.c's after a step */
		q->sel_frame = 0;
		/* gdb: arriving at the end of the log ends any command, first */
		if (l->pos >= rv_end(q)) {
			rv_no_more(q);
			return RUN_STOPPED;
		}
		if (one)
			return RUN_STEPPED;
		if (rv_target_hit(q, t))
			return RUN_TARGET;
		if (run_check_bp_here(q) || watch_check_values(q) == RUN_STOPPED) {
			rv_bp_stopped(q);
			return RUN_STOPPED;
		}
		rv_fwd1(q, l);
	}
}

bool rev_goto_end(struct qz *q)
{
	struct rev_log *l = rv_log(q);
	bool moved = false;
	while (l && rv_fwd1(q, l))
		moved = true;
	rv_publish(q);
	return moved;
}

int rev_span(struct qz *q, uint64_t *first, uint64_t *pos, uint64_t *end)
{
	struct rev_log *l;
	if (rv_need(q, &l) < 0)
		return -1;
	*first = l->first;
	*pos = l->pos;
	*end = rv_end(q);
	return 0;
}

int rev_move(struct qz *q, uint64_t pos)
{
	struct rev_log *l;
	if (rv_need(q, &l) < 0)
		return -1;
	if (pos < l->first || pos > rv_end(q))
		return qz_error(q, "Target insn not found.");
	while (l->pos > pos)
		rv_back1(q, l);
	while (l->pos < pos)
		rv_fwd1(q, l);
	rv_stopped(q);
	return 0;
}

int rev_goto(struct qz *q, uint64_t pos)
{
	uint64_t first, now, end;
	if (rev_span(q, &first, &now, &end) < 0)
		return -1;
	if (pos < first || pos > end)
		return qz_error(q, "Target insn not found.");
	if (pos == now) {
		qz_puts(q, "Already at target insn.\n");
		return 0;
	}
	qz_printf(q, "Go %s to insn number %llu\n", pos < now ? "backward" : "forward",
		  (unsigned long long)pos);
	rev_move(q, pos);
	const struct frame *f = frame_get(q, 0);
	if (f)
		frame_print_level(q, 0, f);
	return 0;
}

/* Frame 0's CFA (the machine frame's, the same for its inlined calls). */
static uint64_t rv_cfa(struct qz *q)
{
	uint64_t cfa, fn;
	run_frame_id(q, &cfa, &fn);
	return cfa;
}

/* ---- reverse-continue ---- */

/* Read and access watchpoints are not checked going back (the undo log
 * holds what instructions wrote, not what they read; gdb's record full
 * does not fire them in replay here either): say so rather than run
 * past them silently. */
static void rv_warn_rwatch(struct qz *q)
{
	for (size_t i = 0; i < q->bps.n; i++) {
		const struct bp *b = &q->bps.bps[i];
		if (b->enabled && (b->kind == BP_KIND_RWATCH || b->kind == BP_KIND_AWATCH)) {
			qz_printf(q, "warning: read and access watchpoints (%d) do not stop while "
				  "going backwards; watch stops at writes.\n", b->num);
			return;
		}
	}
}

/* One instruction back, the position published; false when the move is
 * over, said: the start of history reached, or a breakpoint or watchpoint
 * (its value changed) stops there. */
static bool rv_back_watched(struct qz *q, struct rev_log *l)
{
	if (!rv_back1(q, l)) {
		rv_no_more(q);
		return false;
	}
	rv_publish(q);
	if (rv_at_first(l)) {
		rv_no_more(q);
		return false;
	}
	if (run_check_bp_here(q) || watch_check_values(q) == RUN_STOPPED) {
		rv_bp_stopped(q);
		return false;
	}
	return true;
}

int rev_continue(struct qz *q)
{
	struct rev_log *l;
	int r = rv_beyond(q, MOD_REV_CONTINUE);
	if (r != MOD_UNCLAIMED)
		return r;
	if (rv_need(q, &l) < 0)
		return -1;
	rv_warn_rwatch(q);
	while (rv_back_watched(q, l))
		;
	return 0;
}

/* ---- reverse-step, reverse-next, reverse-finish ---- */

/* The line-table row at pc and its function's entry (0 without). */
struct rv_row { uint64_t lo, hi, fn; const char *file; int line; bool is_stmt, ok; };

static struct rv_row rv_row_at(struct qz *q, uint64_t pc)
{
	struct rv_row w = {0};
	struct qz_module *m = qz_module_at(q, pc);
	const struct lines_row *r = m && m->lines ? lines_at(m->lines, pc - m->bias) : NULL;
	if (!r || !r->line)
		return w;
	const struct di_func *f = m->di ? di_func_at(m->di, pc - m->bias) : NULL;
	w = (struct rv_row){ r->addr + m->bias, r->end + m->bias, f ? f->lo + m->bias : 0,
			     r->file, r->line, r->is_stmt, true };
	return w;
}

/* A backward line step: where it is, what it steps through. */
struct rv_step {
	bool over;               /* reverse-next: calls are stepped over */
	int depth;               /* calls entered (going back) since the range's frame */
	struct rv_row rng;       /* the step range */
	/* Inlined calls (gdb's frames of their own): how many frame 0 shows
	 * where the range is. */
	int inl;
	/* gdb's step_frame_id: the frame where the range was last taken; a
	 * stop in another frame shows its frame line. */
	uint64_t ref_cfa, ref_fn;
};

/* Take w as the step range, here. */
static void rv_refresh(struct qz *q, struct rv_step *s, struct rv_row w)
{
	s->rng = w;
	run_frame_id(q, &s->ref_cfa, &s->ref_fn);
}

/* An inlined call's block (a range of it) begins at pc: arriving there
 * at the start of the step range, gdb's backward step does not end but
 * takes the row as new (the frame there is the caller's). */
static bool rv_block_start(struct qz *q, uint64_t pc)
{
	int skipped, cl;
	const char *cf;
	frame_inline_state(q, pc, &skipped, &cl, &cf);
	return skipped > 0;
}

/* gdb's rules for inlined calls met going back (as forward, step.c):
 * arriving at the first instruction of one (an entry: its frame hidden,
 * the call site shown) stops if the call site is another line, and step
 * then goes down into it when it is the same; going back into the body
 * of one, step stops and next goes on; going back out of one, the
 * caller's row is taken as after a return. 1: stop, 0: go on, -1: not
 * an inline matter. */
static int rv_inline_rules(struct qz *q, struct rv_step *s, uint64_t pc)
{
	int skipped, cl;
	const char *cf;
	int d = frame_inline_state(q, pc, &skipped, &cl, &cf);
	if (skipped && d == s->inl) {
		bool same = cl == s->rng.line && (cf == s->rng.file ||
						  (cf && s->rng.file && !strcmp(cf, s->rng.file)));
		if (s->over)
			return !same;
		if (same) {
			q->inline_unskip = 1;
			frame_invalidate(q);
		}
		return 1;
	}
	if (d > s->inl)
		return !s->over;
	s->inl = d;
	return -1;
}

/* After going back one instruction (the pc is the one undone): true to
 * stop here. */
static bool rv_step_here(struct qz *q, struct rv_step *s)
{
	const struct trace_insn *e = rv_insn(q);
	uint64_t pc = proc_pc(q->proc);
	struct rv_row w = rv_row_at(q, pc);
	if (e && (e->in.kind == INSN_CALL || e->in.kind == INSN_CALL_IND)) {
		if (--s->depth < 0) {   /* back out of the function, at its call */
			s->depth = 0;
			rv_refresh(q, s, w);
			return pc == w.lo && w.is_stmt;   /* a call that starts its line */
		}
	} else if (e && e->in.kind == INSN_RET) {
		/* into a callee at its return: step stops in one with lines */
		if (++s->depth == 1 && !s->over && w.ok) {
			s->depth = 0;
			rv_refresh(q, s, w);
			return pc == w.lo;
		}
	}
	if (s->depth > 0 || !w.ok)
		return false;
	bool in = pc >= s->rng.lo && pc < s->rng.hi && s->rng.ok;
	if (in && !(pc == s->rng.lo && rv_block_start(q, pc)))
		return pc == s->rng.lo && pc != w.fn;
	int rule = rv_inline_rules(q, s, pc);
	if (rule >= 0)
		return rule;
	if (pc == w.lo && w.is_stmt && (w.line != s->rng.line || w.file != s->rng.file))
		return true;
	/* the middle of another row: go on to its start. gdb: at the start
	 * of another line that is no statement, in the range's frame, the
	 * line stepped from stays (only the range is the row's) */
	bool keep = false;
	if (pc == w.lo && (w.line != s->rng.line || w.file != s->rng.file)) {
		uint64_t cfa, fn;
		run_frame_id(q, &cfa, &fn);
		keep = cfa == s->ref_cfa && fn == s->ref_fn;
	}
	if (keep) {
		w.line = s->rng.line;
		w.file = s->rng.file;
		s->rng = w;
	} else {
		rv_refresh(q, s, w);
	}
	return false;
}

static int rev_line(struct qz *q, bool over, int n)
{
	struct rev_log *l;
	int r = rv_beyond(q, over ? MOD_REV_NEXT : MOD_REV_STEP);
	for (int i = 1; i < n && r == 0 && q->stop == QZ_STOP_STEP; i++)
		r = rv_beyond(q, over ? MOD_REV_NEXT : MOD_REV_STEP);
	if (r != MOD_UNCLAIMED)
		return r;
	if (rv_need(q, &l) < 0)
		return -1;
	uint64_t cfa0, fn0;
	run_frame_id(q, &cfa0, &fn0);
	bool same = true;
	for (int i = 0; i < n; i++) {
		/* gdb's step_start_function, taken at each of the N steps */
		uint64_t fn_start = rv_row_at(q, proc_pc(q->proc)).fn;
		struct rv_step s = { over, 0, rv_row_at(q, proc_pc(q->proc)), 0, cfa0, fn0 };
		int skipped, cl;
		const char *cf;
		run_frame_id(q, &s.ref_cfa, &s.ref_fn);
		s.inl = frame_inline_state(q, proc_pc(q->proc), &skipped, &cl, &cf);
		if (skipped && !over) {
			/* at an inlined call's entry: step goes down into it
			 * without moving, as gdb's (forward and back) */
			q->inline_unskip++;
			frame_invalidate(q);
			same = false;
			continue;
		}
		if (skipped) {   /* shown at the call site: that is the line */
			s.rng.line = cl;
			s.rng.file = cf;
		}
		q->inline_unskip = 0;   /* gdb hides them at every step's stop */
		do {
			if (!rv_back_watched(q, l))
				return 0;
		} while (!rv_step_here(q, &s));
		/* gdb prints the source line alone when the frame is the
		 * range's and the function the one the command began in */
		run_frame_id(q, &cfa0, &fn0);
		same = cfa0 == s.ref_cfa && fn0 == s.ref_fn &&
		       rv_row_at(q, proc_pc(q->proc)).fn == fn_start;
	}
	run_frame_id(q, &cfa0, &fn0);
	rv_report(q, cfa0, fn0, !same);
	return 0;
}

int rev_step(struct qz *q, int n)
{
	return rev_line(q, false, n);
}

int rev_next(struct qz *q, int n)
{
	return rev_line(q, true, n);
}

/* Out of an inlined call, as gdb's reverse-finish does it: back until
 * frame 0 (its inlined calls hidden at their entries, as at any step's
 * stop) no longer shows the selected one, in the same machine frame,
 * then to the start of the caller's row there. */
static int rv_finish_inline(struct qz *q, struct rev_log *l, int shown)
{
	uint64_t cfa = rv_cfa(q);
	int depth = 0, skipped, cl, d;
	const char *cf;
	q->inline_unskip = 0;
	frame_invalidate(q);
	do {
		if (!rv_back_stopping(q, l, &depth))
			return 0;
		d = depth ? shown : frame_inline_state(q, proc_pc(q->proc), &skipped, &cl, &cf);
	} while (depth != 0 || d >= shown || rv_cfa(q) != cfa);
	/* in the middle of the caller's row: on to its start */
	struct rv_row w = rv_row_at(q, proc_pc(q->proc));
	while (w.ok && (depth != 0 || proc_pc(q->proc) != w.lo)) {
		if (!rv_back_stopping(q, l, &depth))
			return 0;
	}
	rv_report(q, 0, 0, true);
	return 0;
}

/* Back to the call of the selected frame's function: its call instruction. */
int rev_finish(struct qz *q)
{
	struct rev_log *l;
	int r = rv_beyond(q, MOD_REV_FINISH);
	if (r != MOD_UNCLAIMED)
		return r;
	if (rv_need(q, &l) < 0)
		return -1;
	const struct frame *f = frame_get(q, q->sel_frame);
	if (!frame_get(q, q->sel_frame + 1))
		return qz_error(q, "\"finish\" not meaningful in the outermost frame.");
	if (f && q->from_tty) {
		struct sbuf b = {0};
		frame_describe(q, f, frame_shows_addr(f), &b);
		qz_printf(q, "Run back to call of #%d  %s\n", f->level, b.s);
		sbuf_free(&b);
	}
	const struct frame *f0 = frame_get(q, 0);
	if (f && f0 && f->inl && q->sel_frame < f0->set_real) {
		int skipped, cl;
		const char *cf;
		int shown = frame_inline_state(q, proc_pc(q->proc), &skipped, &cl, &cf);
		return rv_finish_inline(q, l, shown - q->sel_frame);
	}
	int depth = q->sel_frame;
	while (depth >= 0) {
		if (!rv_back_stopping(q, l, &depth))
			return 0;
	}
	rv_report(q, 0, 0, true);
	return 0;
}
