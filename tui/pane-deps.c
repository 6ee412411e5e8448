/* pane-deps: the dependence edges out of the statement under the source
 * cursor (the view's file:line) in the current slice, one row each:
 * `VAR ← WHAT  (FILE:LINE #M)` or `control ← WHAT (...)`, WHAT being
 * what the statement the edge leads to computes. Enter (follow-edge)
 * asks the loop to show the other statement in the source pane, where it
 * becomes the selected statement, so following edges walks the slice
 * backwards; back/forward (actions.c) return. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dinfo/source.h"
#include "draw.h"
#include "keymap.h"
#include "pane.h"
#include "slice-view.h"
#include "slice/slice.h"
#include "target/session.h"
#include "theme.h"
#include "util/util.h"

struct deps_row {
	char *text;
	int32_t to;            /* the instance the edge leads to */
	char *var;             /* a data edge's variable, or NULL */
};

struct deps {
	struct deps_row *rows;
	size_t n, cap;
	int sel, top;
	char title[160];
	char *file;            /* the statement the rows are for */
	int line;
};

static void deps_clear(struct deps *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->rows[i].text);
		free(d->rows[i].var);
	}
	d->n = 0;
}

/* What the statement at file:line computes, for an edge's row: the right
 * of its assignment to var when it has one ("y+1" in "x = y+1;"), else
 * its text, trimmed. */
static char *deps_what(const char *file, int line, const char *var)
{
	const char *why, *t = src_line(file, line, &why);
	if (!t)
		return xstrdup("?");
	t = str_skip_space(t);
	const char *eq = var ? strstr(t, var) : NULL;
	if (eq) {
		eq = str_skip_space(eq + strlen(var));
		if (*eq == '=' && eq[1] != '=')
			t = str_skip_space(eq + 1);
		else if (strchr("+-*/%&|^", *eq) && eq[1] == '=')
			t = str_skip_space(eq + 2);
	}
	char *r = xstrdup(t);
	size_t n = strlen(r);
	while (n && (r[n - 1] == ';' || r[n - 1] == ' ' || r[n - 1] == '\t' || r[n - 1] == '{'))
		r[--n] = 0;
	return r;
}

/* A row: `VAR ← WHAT  (FILE:LINE #N)` for a data edge, `control ← WHAT
 * (...)` for a control one; names come from the slice's labels (debug
 * information), an address only when nothing names the memory. */
static void deps_add(const struct tui_view *v, struct deps *d, const struct slice_edge *e)
{
	const char *ff, *tf;
	int fl, tl;
	unsigned fn, tn;
	char lb[128];
	if (!tui_slice_place(v->sv, e->from, &ff, &fl, &fn) ||
	    !tui_slice_place(v->sv, e->to, &tf, &tl, &tn))
		return;
	struct deps_row r = {NULL, e->to, NULL};
	if (e->kind == SLICE_DATA)
		r.var = xstrdup(slice_edge_label(v->q, e, lb, sizeof lb));
	char *what = deps_what(tf, tl, r.var);
	const char *name = r.var ? r.var : "control";
	if (r.var && !strcmp(r.var, "$rax") && !strncmp(what, "return ", 7)) {
		name = "returned";   /* a callee's value, not the register */
		memmove(what, what + 7, strlen(what + 7) + 1);
	}
	r.text = xasprintf("%s \u2190 %s  (%s:%d #%u)", name, what, str_basename(tf), tl, tn);
	free(what);
	XGROW(d->rows, d->cap, d->n + 1);
	d->rows[d->n++] = r;
}

/* Is instance inst on the statement file:line? */
static bool deps_at(const struct tui_view *v, int32_t inst, const char *file, int line)
{
	const char *f;
	int l;
	return tui_slice_place(v->sv, inst, &f, &l, NULL) && l == line &&
	       tui_slice_same_file(f, file);
}

/* The rows for the statement under the source cursor. */
static void deps_load(const struct tui_view *v, struct deps *d)
{
	const struct slice *s = tui_slice_current(v->sv);
	const char *file = v->file;
	int line = v->line;
	bool same = file && d->file && d->line == line && !strcmp(d->file, file);
	deps_clear(d);
	if (!s || !file) {
		snprintf(d->title, sizeof d->title, " deps: no slice");
		return;
	}
	struct slice_edge e;
	for (size_t i = 0; i < s->nedges; i++)
		if (slice_edge_at(s, i, &e) && deps_at(v, e.from, file, line))
			deps_add(v, d, &e);
	snprintf(d->title, sizeof d->title, " deps: slice %d, %s:%d", s->id, str_basename(file), line);
	if (!same) {
		free(d->file);
		d->file = xstrdup(file);
		d->line = line;
		d->sel = d->top = 0;
	}
	if (d->sel >= (int)d->n)
		d->sel = d->n ? (int)d->n - 1 : 0;
}

static void deps_update(struct tui_pane *p, const struct tui_view *v, const char *text)
{
	(void)text;
	deps_load(v, p->st);
}

static void deps_draw(struct tui_pane *p, const struct tui_view *v, WINDOW *w,
		      struct tui_cursor *cur)
{
	struct deps *d = p->st;
	int rows = tui_pane_rows(p);
	(void)cur;
	tui_draw_title(w, d->title, v->focus == p->id);
	if (d->sel < d->top)
		d->top = d->sel;
	if (d->sel >= d->top + rows)
		d->top = d->sel - rows + 1;
	if (!d->n && tui_slice_current(v->sv))
		tui_draw_el(w, 1, 0, "(no edges: not a member, or a start)", p->w, TUI_EL_DEFAULT,
			    true);
	for (int i = 0; i < rows && (size_t)(d->top + i) < d->n; i++) {
		bool sel = d->top + i == d->sel;
		tui_draw_el(w, i + 1, 0, d->rows[d->top + i].text, p->w,
			    sel && v->focus == p->id ? TUI_EL_CURSOR : TUI_EL_DEFAULT, sel);
	}
}

/* follow-edge [N]: row N (from 1) or the selected one; the loop moves
 * the source cursor there (and this pane follows it after the command). */
static int deps_follow(const struct tui_view *v, struct deps *d, const char *arg,
		       struct tui_req *req)
{
	int64_t n = 0;
	int k = arg && *arg ? (str_num_all(arg, 1, INT32_MAX, &n) ? -1 : (int)n - 1) : d->sel;
	const char *file;
	int line;
	if (k < 0 || (size_t)k >= d->n)
		return qz_error(v->q, d->n ? "No edge %d here." : "No edges from this statement.", k + 1);
	if (!tui_slice_place(v->sv, d->rows[k].to, &file, &line, NULL))
		return qz_error(v->q, "The edge leads to no source line.");
	*req = (struct tui_req){.kind = TUI_REQ_GO, .text = xstrdup(file), .line = line};
	return 0;
}

static int deps_prune(const struct tui_view *v, struct deps *d, struct tui_req *req)
{
	const struct slice *s = tui_slice_current(v->sv);
	if (!d->n || !s)
		return qz_error(v->q, "No edge selected.");
	if (!d->rows[d->sel].var)
		return qz_error(v->q, "A control edge has no variable to prune.");
	*req = (struct tui_req){.kind = TUI_REQ_RUN,
		.text = xasprintf("prune %d %s", s->id, d->rows[d->sel].var)};
	return 0;
}

/* goto-instance: the process to where the selected edge's value was made. */
static int deps_goto(const struct tui_view *v, struct deps *d, struct tui_req *req)
{
	const char *file;
	int line;
	unsigned n;
	if (!d->n)
		return qz_error(v->q, "No edge selected.");
	if (!tui_slice_place(v->sv, d->rows[d->sel].to, &file, &line, &n))
		return qz_error(v->q, "The edge leads to no source line.");
	*req = (struct tui_req){.kind = TUI_REQ_RUN,
		.text = xasprintf("goto-instance %s:%d#%u", file, line, n)};
	return 0;
}

static int deps_action(struct tui_pane *p, const struct tui_view *v, int act, const char *arg,
		       struct tui_req *req)
{
	struct deps *d = p->st;
	int page = tui_pane_rows(p) > 1 ? tui_pane_rows(p) - 1 : 1;
	deps_load(v, d);
	switch (act) {
	case TUI_ACT_FOLLOW_EDGE: case TUI_ACT_SELECT: return deps_follow(v, d, arg, req);
	case TUI_ACT_PRUNE_EDGE: return deps_prune(v, d, req);
	case TUI_ACT_GOTO_INSTANCE: return deps_goto(v, d, req);
	case TUI_ACT_LINE_UP: d->sel--; break;
	case TUI_ACT_LINE_DOWN: d->sel++; break;
	case TUI_ACT_PAGE_UP: d->sel -= page; break;
	case TUI_ACT_PAGE_DOWN: d->sel += page; break;
	case TUI_ACT_TOP: d->sel = 0; break;
	case TUI_ACT_BOTTOM: d->sel = (int)d->n - 1; break;
	default: return TUI_NOT_MINE;
	}
	d->sel = d->sel >= (int)d->n ? (int)d->n - 1 : d->sel;
	d->sel = d->sel < 0 ? 0 : d->sel;
	return 0;
}

static void deps_init(struct tui_pane *p, const struct tui_view *v)
{
	(void)v;
	p->st = xcalloc(1, sizeof(struct deps));
}

static void deps_fini(struct tui_pane *p)
{
	struct deps *d = p->st;
	deps_clear(d);
	free(d->rows);
	free(d->file);
	free(d);
}

const struct tui_pane_ops tui_deps_pane = {
	.init = deps_init, .fini = deps_fini, .update = deps_update, .draw = deps_draw,
	.action = deps_action,
};
