/* watch-new: creating a watchpoint from the arguments of watch, rwatch
 * and awatch: its expression, its scope, and whether it goes on debug
 * registers or in software. */
#include "watch-int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "value/expr.h"

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

int watch_create(struct qz *q, const char *args, int kind)
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

void watch_set_hw_allowed(struct qz *q, bool allowed)
{
	watch_state(q)->no_hw = !allowed;
}

bool watch_hw_allowed(struct qz *q)
{
	return !watch_state(q)->no_hw;
}
