/* alter: switch and suppress at run time, and instance counting. Each
 * covered statement (struct alter_line) has int3 sites at its entries (for
 * counting and suppressing) and at its deciding branches (for switching);
 * on_trap counts the execution and, for the selected instance, moves the
 * pc: to the other exit of the line (switch) or past the line (suppress). */
#include "alter.h"
#include "cmd-alter.h"

#include <stdlib.h>
#include <string.h>

#include "alter-int.h"
#include "callbp.h"
#include "target/eval.h"
#include "target/frame.h"
#include "target/run.h"
#include "target/session.h"

static void *alter_new(struct qz *q)
{
	(void)q;
	struct alter_state *st = xcalloc(1, sizeof *st);
	st->verbose = true;
	return st;
}

struct alter_state *alter_state(struct qz *q)
{
	return mod_state(q, &alter_mod);
}

struct alter_line *alter_line_get(struct qz *q, const char *file, int line)
{
	struct alter_state *st = alter_state(q);
	for (size_t i = 0; i < st->nlines; i++)
		if (st->lines[i]->code.file == file && st->lines[i]->code.line == line)
			return st->lines[i];
	struct lcode lc;
	if (lcode_build(q, &q->exe, file, line, &lc) < 0)
		return NULL;
	struct alter_line *ln = xcalloc(1, sizeof *ln);
	ln->code = lc;
	XGROW(st->lines, st->lines_cap, st->nlines + 1);
	st->lines[st->nlines++] = ln;
	return ln;
}

static bool alter_planted(const struct alter_line *ln, uint64_t pc)
{
	for (size_t i = 0; i < ln->nplanted; i++)
		if (ln->planted[i] == pc)
			return true;
	return false;
}

/* The roles whose sites the line's users need. */
static int alter_line_roles(const struct alter_line *ln)
{
	return (ln->entry_users ? LC_ENTRY | LC_MARK : 0) |
	       (ln->switch_users ? LC_DECIDE | LC_FLIP : 0);
}

void alter_line_sync(struct qz *q, struct alter_line *ln)
{
	bool live = qz_running(q);
	for (size_t i = 0; i < ln->nplanted; i++)
		if (live)
			bp_site_del(&q->bps, q->proc, ln->planted[i]);
	ln->nplanted = 0;
	if (!live)
		return;
	int roles = alter_line_roles(ln);
	ln->planted = xrealloc(ln->planted, (ln->code.nsites + 1) * sizeof *ln->planted);
	for (size_t i = 0; i < ln->code.nsites; i++) {
		if (!(ln->code.sites[i].roles & roles))
			continue;
		uint64_t a = ln->code.sites[i].addr + q->exe.bias;
		bp_site_add(&q->bps, q->proc, a);
		ln->planted[ln->nplanted++] = a;
	}
}

struct alter_alt *alter_alt_of(struct qz *q, int num)
{
	struct bp *b = bp_find(&q->bps, num);
	if (!b || (b->kind != BP_KIND_SWITCH && b->kind != BP_KIND_SUPPRESS))
		return NULL;
	return b->ext;
}

static bool alter_selected(struct alter_alt *a, uint64_t inst)
{
	if (a->sel == ALTER_ALL)
		return true;
	if (a->sel == ALTER_ONCE)
		return !a->spent;
	return inst == (uint64_t)a->sel;
}

/* `switch LINE if EXPR`: the condition, in the program's frame at the
 * trap. An error in it (a name not in scope here) does not fire it and is
 * said once per entry. */
static bool alter_cond_holds(struct qz *q, struct bp *b, struct alter_alt *a)
{
	bool t = false;
	if (!b->cond_expr)
		return true;
	frame_invalidate(q);
	if (eval_truth(q, b->cond_expr, &t) == 0)
		return t;
	if (!a->cond_warned)
		qz_warn(q, "%s %d: cannot evaluate \"%s\" here (%s); not altered.",
			b->kind == BP_KIND_SWITCH ? "Switch" : "Suppression", b->num, b->cond,
			q->err.s ? q->err.s : "error");
	a->cond_warned = true;
	sbuf_reset(&q->err);
	return false;
}

/* The enabled alteration of this kind on ln selecting this instance. */
static struct alter_alt *alter_pick(struct qz *q, struct alter_line *ln,
				    enum bp_kind kind, uint64_t inst)
{
	for (size_t i = 0; i < q->bps.n; i++) {
		struct bp *b = &q->bps.bps[i];
		struct alter_alt *a = b->ext;
		if (b->kind == kind && b->enabled && a->ln == ln && alter_selected(a, inst) &&
		    alter_cond_holds(q, b, a))
			return a;
	}
	return NULL;
}

static void alter_fired(struct qz *q, struct alter_alt *a, uint64_t to)
{
	a->fires++;
	a->spent = true;
	struct bp *b = bp_find(&q->bps, a->num);
	if (b)
		b->hits++;
	proc_set_pc(q->proc, to + q->exe.bias);
	frame_invalidate(q);
}

/* Which exit is "true": the one that goes to the nearest following line
 * (an if's then-block, a loop's body come right after the test in the
 * source); when neither follows, the out-of-line one (higher address,
 * where -O2 puts a then-block). Only for the message. */
static uint64_t alter_truth_key(struct qz *q, const struct lcode *lc, uint64_t exit)
{
	const struct lines_row *r = lines_at(q->exe.lines, exit);
	if (r && r->line > lc->line)
		return (uint64_t)(r->line - lc->line) << 32 | (exit & 0xffffffffu);
	return (uint64_t)1 << 62 | (~exit & 0xffffffffu);
}

static const char *alter_truth(struct qz *q, const struct lcode *lc, uint64_t exit)
{
	bool inside;
	uint64_t other = lcode_other_exit(lc, exit, &inside);
	if (inside)   /* arms of one line: the first is "true" */
		return exit < other ? "true" : "false";
	return alter_truth_key(q, lc, exit) < alter_truth_key(q, lc, other) ? "true" : "false";
}

static enum run_ev alter_switch_fire(struct qz *q, struct alter_line *ln, uint64_t succ)
{
	struct alter_alt *a = alter_pick(q, ln, BP_KIND_SWITCH, ln->count);
	if (!a)
		return RUN_TARGET;
	const struct lcode *lc = &ln->code;
	bool inside;
	uint64_t other = lcode_other_exit(lc, succ, &inside);
	alter_fired(q, a, other);
	if (alter_state(q)->verbose)
		qz_printf(q, "Switched %s:%d #%llu: %s -> %s\n", str_basename(lc->file),
			  lc->line, (unsigned long long)ln->count, alter_truth(q, lc, succ),
			  alter_truth(q, lc, other));
	return RUN_AGAIN;
}

static enum run_ev alter_suppress_fire(struct qz *q, struct alter_line *ln, uint64_t at)
{
	const struct lstmt *plan = NULL;
	for (size_t i = 0; ln->stmt_planned && i < ln->nstmts; i++)
		if (ln->stmts[i].lo == at)
			plan = &ln->stmts[i];   /* the copy entered here */
	if (!plan)
		return RUN_TARGET;
	struct alter_alt *a = alter_pick(q, ln, BP_KIND_SUPPRESS, ln->count);
	if (!a)
		return RUN_TARGET;
	alter_fired(q, a, at);
	if (alter_state(q)->verbose)
		qz_printf(q, "Suppressed %s:%d #%llu\n", str_basename(ln->code.file),
			  ln->code.line, (unsigned long long)ln->count);
	return (enum run_ev)lstmt_skip(q, plan, q->exe.bias);
}

static bool alter_is_entry(const struct lcode *lc, uint64_t addr)
{
	for (size_t i = 0; i < lc->nranges; i++)
		if (lc->ranges[i][0] == addr)
			return true;
	return false;
}

/* Is s the line's first branchless decision (where an instance of a
 * switched line without branches is counted)? */
static bool alter_first_flip(const struct lcode *lc, const struct lc_site *s)
{
	for (size_t i = 0; i < lc->nsites; i++)
		if ((lc->sites[i].roles & LC_FLIP) && lc->sites[i].addr < s->addr)
			return false;
	return true;
}

/* A setcc or cmov of a switched instance: it runs once with flags that
 * make its condition come out the other way, then the flags are put
 * back (later code may read them). */
static enum run_ev alter_flip_fire(struct qz *q, struct alter_line *ln, struct lc_site *s)
{
	if (!ln->entry_users && alter_first_flip(&ln->code, s))
		ln->count++;
	struct alter_alt *a = alter_pick(q, ln, BP_KIND_SWITCH, ln->count);
	if (!a)
		return RUN_TARGET;
	struct user_regs_struct *r = proc_regs(q->proc);
	uint64_t fl = r->eflags;
	bool was = lcode_cc_holds(s->flip_cc, fl);
	r->eflags = lcode_flip_flags(s->flip_cc, fl);
	proc_regs_dirty(q->proc);
	a->fires++;
	a->spent = true;
	struct bp *b = bp_find(&q->bps, a->num);
	if (b)
		b->hits++;
	enum run_ev ev = run_step_raw(q);
	if (ev != RUN_STEPPED)
		return ev;
	r = proc_regs(q->proc);
	r->eflags = fl;
	proc_regs_dirty(q->proc);
	frame_invalidate(q);
	if (alter_state(q)->verbose)
		qz_printf(q, "Switched %s:%d #%llu: %s -> %s (branchless: flags flipped for "
			  "its set/cmov at 0x%llx)\n", str_basename(ln->code.file), ln->code.line,
			  (unsigned long long)ln->count, was ? "true" : "false", was ? "false" : "true",
			  (unsigned long long)(s->addr + q->exe.bias));
	return RUN_AGAIN;
}

/* The process is at site s of ln (runtime pc = s->addr + bias). */
static enum run_ev alter_line_trap(struct qz *q, struct alter_line *ln, struct lc_site *s)
{
	if ((s->roles & LC_ENTRY) && ln->entry_users) {
		if (ln->pending == s->addr) {
			ln->pending = 0;
		} else {
			ln->count++;
			enum run_ev ev = alter_suppress_fire(q, ln, s->addr);
			if (ev != RUN_TARGET)
				return ev;
		}
	}
	if ((s->roles & LC_FLIP) && ln->switch_users)
		return alter_flip_fire(q, ln, s);
	if (s->cc == -2)
		return RUN_TARGET;
	uint64_t succ = lcode_successor(s, proc_regs(q->proc)->eflags);
	if ((s->roles & LC_MARK) && ln->entry_users && alter_is_entry(&ln->code, succ))
		ln->pending = succ;
	if ((s->roles & LC_DECIDE) && ln->switch_users && lcode_is_dexit(&ln->code, succ)) {
		if (!ln->entry_users)
			ln->count++;
		return alter_switch_fire(q, ln, succ);
	}
	return RUN_TARGET;
}

static int alter_on_trap(struct qz *q, uint64_t pc)
{
	struct alter_state *st = alter_state(q);
	if (!st)
		return RUN_TARGET;
	for (size_t i = 0; i < st->nlines; i++) {
		struct alter_line *ln = st->lines[i];
		struct lc_site *s = lcode_site(&ln->code, pc - q->exe.bias);
		if (!s || !alter_planted(ln, pc))
			continue;
		enum run_ev ev = alter_line_trap(q, ln, s);
		if (ev != RUN_TARGET)
			return ev;
	}
	return alter_call_trap(q, pc);
}

bool alter_bp_line(const struct bp *b, const char **file, int *line)
{
	const struct alter_alt *a = b->ext;
	if ((b->kind != BP_KIND_SWITCH && b->kind != BP_KIND_SUPPRESS) || !a || !a->ln)
		return false;
	*file = a->ln->code.file;
	*line = a->ln->code.line;
	return *file != NULL;
}

int alter_instance_of(struct qz *q, const char *file, int line, uint64_t *count)
{
	*count = 0;
	const char *path = q->exe.lines ? lines_file(q->exe.lines, file) : NULL;
	if (!path)
		return qz_error(q, "No source file named %s.", file);
	struct alter_state *st = alter_state(q);
	for (size_t i = 0; i < st->nlines; i++) {
		struct alter_line *ln = st->lines[i];
		if (ln->code.file != path || ln->code.line != line)
			continue;
		*count = ln->count;
		bool counted = ln->entry_users || ln->switch_users;
		return counted && ln->exact ? 0 : 1;
	}
	return 1;
}

/* A new process: counts start from zero and are exact for every line
 * covered now; the sites go into the new process. */
static void alter_on_start(struct qz *q)
{
	struct alter_state *st = alter_state(q);
	st->last_bias = q->exe.bias;
	for (size_t i = 0; i < st->nlines; i++) {
		struct alter_line *ln = st->lines[i];
		ln->count = 0;
		ln->pending = 0;
		ln->nplanted = 0;
		ln->exact = true;
		alter_line_sync(q, ln);
	}
	for (size_t i = 0; i < q->bps.n; i++) {
		struct alter_alt *a = q->bps.bps[i].ext;
		if (q->bps.bps[i].kind == BP_KIND_SWITCH || q->bps.bps[i].kind == BP_KIND_SUPPRESS)
			a->spent = false;
	}
	alter_call_start(q);
}

/* Instances asked for that the run never reached: say so. */
static void alter_report_missed(struct qz *q)
{
	for (size_t i = 0; i < q->bps.n; i++) {
		struct bp *b = &q->bps.bps[i];
		if (b->kind != BP_KIND_SWITCH && b->kind != BP_KIND_SUPPRESS)
			continue;
		struct alter_alt *a = b->ext;
		if (a->sel <= 0 || !b->enabled || !a->ln->exact || a->ln->count >= (uint64_t)a->sel)
			continue;
		qz_warn(q, "%s %d at %s:%d: instance %d never occurred (the run had %llu).",
			b->kind == BP_KIND_SWITCH ? "Switch" : "Suppression", b->num,
			str_basename(a->ln->code.file), a->ln->code.line, a->sel,
			(unsigned long long)a->ln->count);
	}
}

static void alter_on_gone(struct qz *q)
{
	struct alter_state *st = alter_state(q);
	if (!st)
		return;
	if (q->stop == QZ_STOP_EXITED || q->stop == QZ_STOP_KILLED)   /* ran to its end */
		alter_report_missed(q);
	for (size_t i = 0; i < st->nlines; i++)
		st->lines[i]->nplanted = 0;   /* the sites went with the process */
	alter_call_gone(q);
}

static void alter_fini(struct qz *q)
{
	struct alter_state *st = alter_state(q);
	if (!st)
		return;
	/* Entries still in the table must not reach back into freed state. */
	for (size_t i = 0; i < q->bps.n; i++)
		if (q->bps.bps[i].kind != BP_KIND_BREAK)
			q->bps.bps[i].ext_ops = NULL;
	for (size_t i = 0; i < q->bps.n; i++)
		if (q->bps.bps[i].kind != BP_KIND_BREAK)
			alter_ext_free(q, &q->bps.bps[i]);
	for (size_t i = 0; i < st->nlines; i++) {
		lcode_free(&st->lines[i]->code);
		for (size_t k = 0; k < st->lines[i]->nstmts; k++)
			lstmt_free(&st->lines[i]->stmts[k]);
		free(st->lines[i]->stmts);
		free(st->lines[i]->planted);
		free(st->lines[i]);
	}
	free(st->lines);
	alter_call_fini(q);
	free(st);
}

/* Checkpoints: the counts, the pending entry jumps and the fire counts.
 * The saved copies alive are kept in a list, so that a switch of an
 * instance already past can say whether a checkpoint before it exists. */
struct alter_saved {
	struct alter_saved *next;
	size_t nlines;
	uint64_t *count, *pending;
	bool *exact;
	size_t nalts;
	int *num, *fires;
	bool *spent;
};

static struct alter_saved *alter_saves;

static void *alter_save(struct qz *q)
{
	struct alter_state *st = alter_state(q);
	struct alter_saved *sv = xcalloc(1, sizeof *sv);
	sv->next = alter_saves;
	alter_saves = sv;
	sv->nlines = st->nlines;
	sv->count = xcalloc(st->nlines + 1, sizeof *sv->count);
	sv->pending = xcalloc(st->nlines + 1, sizeof *sv->pending);
	sv->exact = xcalloc(st->nlines + 1, sizeof *sv->exact);
	for (size_t i = 0; i < st->nlines; i++) {
		sv->count[i] = st->lines[i]->count;
		sv->pending[i] = st->lines[i]->pending;
		sv->exact[i] = st->lines[i]->exact;
	}
	sv->num = xcalloc(q->bps.n + 1, sizeof *sv->num);
	sv->fires = xcalloc(q->bps.n + 1, sizeof *sv->fires);
	sv->spent = xcalloc(q->bps.n + 1, sizeof *sv->spent);
	for (size_t i = 0; i < q->bps.n; i++) {
		struct alter_alt *a = alter_alt_of(q, q->bps.bps[i].num);
		if (!a)
			continue;
		sv->num[sv->nalts] = a->num;
		sv->fires[sv->nalts] = a->fires;
		sv->spent[sv->nalts++] = a->spent;
	}
	return sv;
}

/* Lines covered after the checkpoint was taken were not counted before it:
 * their counts are no longer exact. */
static void alter_restore(struct qz *q, const void *saved)
{
	const struct alter_saved *sv = saved;
	struct alter_state *st = alter_state(q);
	for (size_t i = 0; i < st->nlines; i++) {
		struct alter_line *ln = st->lines[i];
		ln->count = i < sv->nlines ? sv->count[i] : 0;
		ln->pending = i < sv->nlines ? sv->pending[i] : 0;
		ln->exact = i < sv->nlines && sv->exact[i];
	}
	for (size_t i = 0; i < sv->nalts; i++) {
		struct alter_alt *a = alter_alt_of(q, sv->num[i]);
		if (a) {
			a->fires = sv->fires[i];
			a->spent = sv->spent[i];
		}
	}
}

static void alter_free_saved(void *saved)
{
	struct alter_saved *sv = saved;
	if (!sv)
		return;
	for (struct alter_saved **p = &alter_saves; *p; p = &(*p)->next)
		if (*p == sv) {
			*p = sv->next;
			break;
		}
	free(sv->count);
	free(sv->pending);
	free(sv->exact);
	free(sv->num);
	free(sv->fires);
	free(sv->spent);
	free(sv);
}

const struct qz_mod alter_mod = {
	.name = "alter",
	.cmds = alter_cmds,
	.init = alter_new,
	.save = alter_save,
	.restore = alter_restore,
	.free_saved = alter_free_saved,
	.on_start = alter_on_start,
	.on_gone = alter_on_gone,
	.fini = alter_fini,
	.on_trap = alter_on_trap,
	.on_break = alter_call_break,
	.on_sigtrap = alter_call_sigtrap,
};

/* ---- switch and suppress entries in the breakpoint table ---- */

static void alter_users(struct alter_alt *a, int delta)
{
	if (a->kind == BP_KIND_SWITCH)
		a->ln->switch_users += delta;
	else
		a->ln->entry_users += delta;
}

/* The entry is deleted: its sites go unless another user needs them. */
static void alter_ext_delete(struct bp *b)
{
	struct alter_alt *a = b->ext;
	alter_users(a, -1);
	alter_line_sync(a->q, a->ln);
	free(a);
	b->ext = NULL;
}

void alter_ext_free(struct qz *q, struct bp *b)
{
	(void)q;
	if (b->kind == BP_KIND_CALL) {
		alter_call_ext_free(b);
		return;
	}
	free(b->ext);
	b->ext = NULL;
}

static void alter_sel_text(int sel, struct sbuf *out)
{
	if (sel == ALTER_ALL)
		sbuf_add(out, "every instance");
	else if (sel == ALTER_ONCE)
		sbuf_add(out, "once (the next instance)");
	else
		sbuf_printf(out, "instance %d", sel);
}

static void alter_ext_row(const struct bp *b, struct sbuf *out)
{
	const struct alter_alt *a = b->ext;
	const struct lcode *lc = &a->ln->code;
	uint64_t addr = lc->nranges ? lc->ranges[0][0] : 0;
	addr += qz_running(a->q) ? a->q->exe.bias : alter_state(a->q)->last_bias;
	sbuf_printf(out, "%-14s %-4s %-3s 0x%016llx at %s:%d ",
		    b->kind == BP_KIND_SWITCH ? "switch" : "suppress", "keep",
		    b->enabled ? "y" : "n", (unsigned long long)addr,
		    str_basename(lc->file), lc->line);
	alter_sel_text(a->sel, out);
	sbuf_addc(out, '\n');
	if (b->cond)
		sbuf_printf(out, "\tonly where %s\n", b->cond);
	if (a->fires)
		sbuf_printf(out, "\tfired %d time%s\n", a->fires, a->fires == 1 ? "" : "s");
	if (a->ln->exact || !qz_running(a->q))
		sbuf_printf(out, "\tinstances so far: %llu\n", (unsigned long long)a->ln->count);
}

static const struct bp_ext_ops alter_alt_ops = {
	.free = alter_ext_delete,
	.row = alter_ext_row,
};

/* A line covered from now on: counted exactly only if no process runs. */
static void alter_cover(struct qz *q, struct alter_line *ln)
{
	if (!ln->entry_users && !ln->switch_users) {
		ln->count = 0;
		ln->pending = 0;
		ln->exact = !qz_running(q);
	}
}

/* The highest count of line index li below n among the saved copies (a
 * checkpoint taken before instance n), or -1. */
static int64_t alter_saved_before(size_t li, uint64_t n)
{
	int64_t best = -1;
	for (const struct alter_saved *sv = alter_saves; sv; sv = sv->next)
		if (li < sv->nlines && sv->exact[li] && sv->count[li] < n &&
		    (int64_t)sv->count[li] > best)
			best = (int64_t)sv->count[li];
	return best;
}

static size_t alter_line_index(struct alter_state *st, const struct alter_line *ln)
{
	for (size_t i = 0; i < st->nlines; i++)
		if (st->lines[i] == ln)
			return i;
	return SIZE_MAX;
}

/* Check that an instance N can still be selected on ln. */
static int alter_check_sel(struct qz *q, struct alter_line *ln, int sel, const char *verb,
			   uint64_t *seed, bool *seeded)
{
	if (sel <= 0 || !qz_running(q))
		return 0;
	bool counted = (ln->entry_users || ln->switch_users) && ln->exact;
	uint64_t now = ln->count;
	if (!counted && mod_instance_count(q, ln->code.file, ln->code.line, seed)) {
		*seeded = true;   /* the recording counted it from the start */
		now = *seed;
		counted = true;
	}
	if (!counted)
		return qz_error(q, "The instance count of %s:%d is not known mid-run (it was not "
				"counted from the start): use once or all, or arm it before `run` "
				"(or record from the start: `record on` at main).",
				str_basename(ln->code.file), ln->code.line);
	if ((uint64_t)sel > now)
		return 0;
	int64_t k = alter_saved_before(alter_line_index(alter_state(q), ln), (uint64_t)sel);
	const char *base = str_basename(ln->code.file);
	if (k < 0)
		return qz_error(q, "Instance %d of %s:%d already executed (now at #%llu); no "
				"checkpoint was taken before it: take one earlier next run "
				"(`checkpoint`), or run again.", sel, base, ln->code.line,
				(unsigned long long)now);
	return qz_error(q, "Instance %d of %s:%d already executed (now at #%llu); rollback to a "
			"checkpoint before it: one was taken when the line had run %lld time%s "
			"(`info checkpoints`), then %s again.", sel, base, ln->code.line,
			(unsigned long long)now, (long long)k, k == 1 ? "" : "s", verb);
}

int alter_arm(struct qz *q, enum bp_kind kind, struct alter_line *ln, int sel,
	      const char *cond)
{
	char err[512];
	struct expr *e = NULL;
	uint64_t seed = 0;
	bool seeded = false;
	if (alter_check_sel(q, ln, sel, kind == BP_KIND_SWITCH ? "switch" : "suppress", &seed,
			    &seeded) < 0)
		return -1;
	if (cond && !(e = expr_parse(cond, err, sizeof err)))
		return qz_error(q, "%s", err);
	alter_cover(q, ln);
	if (seeded) {   /* counting goes on from the recording's count */
		ln->count = seed;
		ln->exact = true;
	}
	struct alter_alt *a = xcalloc(1, sizeof *a);
	a->q = q;
	a->kind = kind;
	a->ln = ln;
	a->sel = sel;
	struct bp *b = bp_new(&q->bps);
	b->kind = kind;
	b->ext = a;
	b->ext_ops = &alter_alt_ops;
	b->spec = xasprintf("%s:%d", str_basename(ln->code.file), ln->code.line);
	b->cond_expr = e;
	b->cond = e ? xstrdup(cond) : NULL;
	a->num = b->num;
	alter_users(a, 1);
	alter_line_sync(q, ln);
	struct sbuf s = {0};
	alter_sel_text(sel, &s);
	if (cond)
		sbuf_printf(&s, " where %s", cond);
	qz_printf(q, "%s %d at %s:%d, %s.\n", kind == BP_KIND_SWITCH ? "Switch" : "Suppression",
		  b->num, str_basename(ln->code.file), ln->code.line, s.s);
	sbuf_free(&s);
	return 0;
}

/* `instance FILE:LINE watch`: count the line from now on. */
int alter_watch(struct qz *q, struct alter_line *ln)
{
	if (ln->watched)
		return 0;
	alter_cover(q, ln);
	ln->watched = true;
	ln->entry_users++;
	alter_line_sync(q, ln);
	return 0;
}

int alter_instance_watch(struct qz *q, const char *file, int line)
{
	const char *path = q->exe.lines ? lines_file(q->exe.lines, file) : NULL;
	if (!path)
		return qz_error(q, "No source file named %s.", file);
	struct alter_line *ln = alter_line_get(q, path, line);
	return ln ? alter_watch(q, ln) : -1;
}
