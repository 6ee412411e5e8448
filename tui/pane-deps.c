/* pane-deps: the dependence edges out of the statement under the source
 * cursor in the current slice, one row each: `#N -> FILE:LINE #M data
 * VAR` or `... control`. Enter (follow-edge) shows the other statement in
 * the source pane, where it becomes the selected statement, so following
 * edges walks the slice backwards; back/forward (slicev.c) return. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slice/slice.h"
#include "keymap.h"
#include "target/session.h"
#include "slicev.h"
#include "theme.h"
#include "ui.h"

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

static void deps_add(struct tui *t, struct deps *d, const struct slice_edge *e)
{
	const char *ff, *tf;
	int fl, tl;
	unsigned fn, tn;
	char lb[128];
	if (!tui_slice_place(t, e->from, &ff, &fl, &fn) || !tui_slice_place(t, e->to, &tf, &tl, &tn))
		return;
	struct deps_row r = {NULL, e->to, NULL};
	if (e->kind == SLICE_DATA)
		r.var = xstrdup(slice_edge_label(t->q, e, lb, sizeof lb));
	r.text = xasprintf("#%u -> %s:%d #%u %s%s%s", fn, str_basename(tf), tl, tn,
			   r.var ? "data" : "control", r.var ? " " : "", r.var ? r.var : "");
	XGROW(d->rows, d->cap, d->n + 1);
	d->rows[d->n++] = r;
}

/* Is instance inst on the statement file:line? */
static bool deps_at(struct tui *t, int32_t inst, const char *file, int line)
{
	const char *f;
	int l;
	return tui_slice_place(t, inst, &f, &l, NULL) && l == line && tui_slice_same_file(f, file);
}

/* The rows for the statement under the source cursor. */
static void deps_load(struct tui *t, struct deps *d)
{
	const struct slice *s = tui_slice_current(t);
	const char *file;
	int line;
	bool same = false;
	if (tui_source_cursor(t, &file, &line))
		same = d->file && d->line == line && !strcmp(d->file, file);
	deps_clear(d);
	if (!s || !file) {
		snprintf(d->title, sizeof d->title, " deps: no slice");
		return;
	}
	for (size_t i = 0; i < s->nedges; i++)
		if (deps_at(t, s->edges[i].from, file, line))
			deps_add(t, d, &s->edges[i]);
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

static void deps_on_stop(struct tui *t, struct tui_pane *p)
{
	deps_load(t, p->st);
}

static void deps_draw(struct tui *t, struct tui_pane *p, WINDOW *w)
{
	struct deps *d = p->st;
	int rows = tui_pane_rows(p);
	tui_draw_title(w, d->title, &t->panes[t->focus] == p);
	if (d->sel < d->top)
		d->top = d->sel;
	if (d->sel >= d->top + rows)
		d->top = d->sel - rows + 1;
	if (!d->n && tui_slice_current(t))
		tui_draw_text(w, 1, 0, "(no edges: not a member, or a start)", p->w,
			      tui_theme_attr(TUI_EL_DEFAULT), true);
	for (int i = 0; i < rows && (size_t)(d->top + i) < d->n; i++) {
		bool sel = d->top + i == d->sel;
		tui_draw_text(w, i + 1, 0, d->rows[d->top + i].text, p->w,
			      tui_theme_attr(sel && t->focus == TP_DEPS ? TUI_EL_CURSOR : TUI_EL_DEFAULT),
			      sel);
	}
}

/* follow-edge [N]: row N (from 1) or the selected one. */
static int deps_follow(struct tui *t, struct deps *d, const char *arg)
{
	int64_t v = 0;
	int k = arg && *arg ? (str_num_all(arg, 1, INT32_MAX, &v) ? -1 : (int)v - 1) : d->sel;
	const char *file;
	int line;
	if (k < 0 || (size_t)k >= d->n)
		return qz_error(t->q, d->n ? "No edge %d here." : "No edges from this statement.", k + 1);
	if (!tui_slice_place(t, d->rows[k].to, &file, &line, NULL))
		return qz_error(t->q, "The edge leads to no source line.");
	tui_slicev_go(t, file, line);
	deps_load(t, d);
	return 0;
}

static int deps_prune(struct tui *t, struct deps *d)
{
	const struct slice *s = tui_slice_current(t);
	if (!d->n || !s)
		return qz_error(t->q, "No edge selected.");
	if (!d->rows[d->sel].var)
		return qz_error(t->q, "A control edge has no variable to prune.");
	return tui_slicev_run(t, "prune %d %s", s->id, d->rows[d->sel].var);
}

static int deps_action(struct tui *t, struct tui_pane *p, int act, const char *arg)
{
	struct deps *d = p->st;
	int page = tui_pane_rows(p) > 1 ? tui_pane_rows(p) - 1 : 1;
	deps_load(t, d);
	switch (act) {
	case TUI_ACT_FOLLOW_EDGE: case TUI_ACT_SELECT: return deps_follow(t, d, arg);
	case TUI_ACT_PRUNE_EDGE: return deps_prune(t, d);
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

static void deps_init(struct tui *t, struct tui_pane *p)
{
	(void)t;
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

const struct tui_pane_ops tui_pane_deps = {
	.name = "deps", .side = true, .init = deps_init, .draw = deps_draw,
	.action = deps_action, .on_stop = deps_on_stop, .fini = deps_fini,
};
