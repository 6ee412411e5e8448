/* pane-list: side panes that list numbered things with a selected row,
 * from the output of the command the table says they show: checkpoints
 * (Enter rolls back to the selected one, d deletes it), slices (Enter
 * makes the selected one the current slice, d deletes it) and the links of
 * a detector's value propagation chain (Enter shows the link's line). What
 * Enter and d do goes back to the loop as a command to run. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "keymap.h"
#include "pane.h"
#include "target/session.h"
#include "theme.h"
#include "util/util.h"

/* What differs between the list panes. */
struct list_conf {
	const char *row_fmt;    /* sscanf format of a row's number */
	const char *select_fmt; /* Enter: command for number N */
	const char *delete_fmt; /* d: command for number N */
};

struct listp {
	struct tui_lines lines;
	int sel, top;
};

/* A row's number, or -1 for a header or a message. */
static int list_id(const struct tui_pane *p, int row)
{
	const struct list_conf *c = p->def->ops->conf;
	const struct listp *l = p->st;
	int id;
	if (row < 0 || (size_t)row >= l->lines.n)
		return -1;
	return sscanf(l->lines.v[row], c->row_fmt, &id) == 1 ? id : -1;
}

/* Move the selection by dir onto a numbered row (staying if none). */
static void list_move(struct tui_pane *p, int from, int dir)
{
	struct listp *l = p->st;
	for (int r = from; r >= 0 && (size_t)r < l->lines.n; r += dir ? dir : 1)
		if (list_id(p, r) >= 0) {
			l->sel = r;
			return;
		}
	if (list_id(p, l->sel) < 0 && dir)
		list_move(p, 0, 0);
}

static void list_update(struct tui_pane *p, const struct tui_view *v, const char *text)
{
	struct listp *l = p->st;
	int old = list_id(p, l->sel);
	(void)v;
	tui_lines_clear(&l->lines);
	tui_lines_split(&l->lines, text, TUI_EL_DEFAULT);
	for (size_t r = 0; r < l->lines.n; r++)
		if (old >= 0 && list_id(p, (int)r) == old)
			l->sel = (int)r;
	if (list_id(p, l->sel) < 0)
		list_move(p, l->sel < (int)l->lines.n ? l->sel : (int)l->lines.n - 1, -1);
	if (list_id(p, l->sel) < 0)
		list_move(p, 0, 1);
}

static void list_draw(struct tui_pane *p, const struct tui_view *v, WINDOW *w,
		      struct tui_cursor *cur)
{
	struct listp *l = p->st;
	int rows = tui_pane_rows(p);
	(void)cur;
	tui_draw_title(w, p->def->title, v->focus == p->id);
	if (l->sel < l->top)
		l->top = l->sel;
	if (l->sel >= l->top + rows)
		l->top = l->sel - rows + 1;
	for (int i = 0; i < rows && (size_t)(l->top + i) < l->lines.n; i++) {
		int r = l->top + i;
		bool sel = r == l->sel && list_id(p, r) >= 0;
		tui_draw_el(w, i + 1, 0, l->lines.v[r], p->w,
			    sel && v->focus == p->id ? TUI_EL_CURSOR : TUI_EL_DEFAULT, sel);
	}
}

/* Enter or d: the command for the selected row. */
static int list_run(struct tui_pane *p, const struct tui_view *v, const char *fmt,
		    struct tui_req *req)
{
	int id = list_id(p, ((struct listp *)p->st)->sel);
	if (!fmt)
		return qz_error(v->q, "Nothing to delete here.");
	if (id < 0)
		return qz_error(v->q, "Nothing selected.");
	*req = (struct tui_req){.kind = TUI_REQ_RUN, .text = xasprintf(fmt, id)};
	return 0;
}

static int list_action(struct tui_pane *p, const struct tui_view *v, int act, const char *arg,
		       struct tui_req *req)
{
	const struct list_conf *c = p->def->ops->conf;
	struct listp *l = p->st;
	(void)arg;
	switch (act) {
	case TUI_ACT_SELECT: return list_run(p, v, c->select_fmt, req);
	case TUI_ACT_DELETE_ITEM: return list_run(p, v, c->delete_fmt, req);
	case TUI_ACT_LINE_UP: list_move(p, l->sel - 1, -1); break;
	case TUI_ACT_LINE_DOWN: list_move(p, l->sel + 1, 1); break;
	case TUI_ACT_PAGE_UP: case TUI_ACT_TOP: list_move(p, 0, 1); break;
	case TUI_ACT_PAGE_DOWN: case TUI_ACT_BOTTOM: list_move(p, (int)l->lines.n - 1, -1); break;
	default: return TUI_NOT_MINE;
	}
	return 0;
}

static void list_init(struct tui_pane *p, const struct tui_view *v)
{
	(void)v;
	p->st = xcalloc(1, sizeof(struct listp));
}

static void list_fini(struct tui_pane *p)
{
	struct listp *l = p->st;
	tui_lines_free(&l->lines);
	free(l);
}

#define LIST_PANE(var, row, select, delete) \
	static const struct list_conf var##_conf = {row, select, delete}; \
	const struct tui_pane_ops var = { \
		.init = list_init, .fini = list_fini, .update = list_update, \
		.draw = list_draw, .action = list_action, .conf = &var##_conf, \
	};

LIST_PANE(tui_ckpts_pane, "%*[ *]%d", "rollback %d", "cdelete %d")
LIST_PANE(tui_slices_pane, "Slice %d", "tui slice-select %d", "sdelete %d")
LIST_PANE(tui_chain_pane, "%d", "vpc %d", NULL)
