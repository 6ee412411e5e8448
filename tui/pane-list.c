/* pane-list: side panes that list numbered things with a selected row:
 * checkpoints (info checkpoints; Enter rolls back to the selected one, d
 * deletes it) and slices (info slices; Enter makes the selected one the
 * current slice, d deletes it). What they do goes through commands. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keymap.h"
#include "target/session.h"
#include "slicev.h"
#include "theme.h"
#include "ui.h"

struct listp {
	const char *title;
	const char *cmd;          /* what the pane shows */
	const char *row_fmt;      /* sscanf format of a row's number */
	const char *select_fmt;   /* Enter: command for number N */
	const char *delete_fmt;   /* d: command for number N */
	struct tui_lines lines;
	int sel, top;
};

/* A row's number, or -1 for a header or a message. */
static int list_id(const struct listp *l, int row)
{
	int id;
	if (row < 0 || (size_t)row >= l->lines.n)
		return -1;
	return sscanf(l->lines.v[row], l->row_fmt, &id) == 1 ? id : -1;
}

/* Move the selection by dir onto a numbered row (staying if none). */
static void list_move(struct listp *l, int from, int dir)
{
	for (int r = from; r >= 0 && (size_t)r < l->lines.n; r += dir ? dir : 1)
		if (list_id(l, r) >= 0) {
			l->sel = r;
			return;
		}
	if (list_id(l, l->sel) < 0 && dir)
		list_move(l, 0, 0);
}

static void list_on_stop(struct tui *t, struct tui_pane *p)
{
	struct listp *l = p->st;
	struct sbuf out = {0};
	int old = list_id(l, l->sel);
	tui_capture(t, l->cmd, &out);
	tui_lines_clear(&l->lines);
	tui_lines_split(&l->lines, out.s ? out.s : "", TUI_EL_DEFAULT);
	sbuf_free(&out);
	for (size_t r = 0; r < l->lines.n; r++)
		if (old >= 0 && list_id(l, (int)r) == old)
			l->sel = (int)r;
	if (list_id(l, l->sel) < 0)
		list_move(l, l->sel < (int)l->lines.n ? l->sel : (int)l->lines.n - 1, -1);
	if (list_id(l, l->sel) < 0)
		list_move(l, 0, 1);
}

static void list_draw(struct tui *t, struct tui_pane *p, WINDOW *w)
{
	struct listp *l = p->st;
	int rows = tui_pane_rows(p);
	tui_draw_title(w, l->title, &t->panes[t->focus] == p);
	if (l->sel < l->top)
		l->top = l->sel;
	if (l->sel >= l->top + rows)
		l->top = l->sel - rows + 1;
	for (int i = 0; i < rows && (size_t)(l->top + i) < l->lines.n; i++) {
		int r = l->top + i;
		bool sel = r == l->sel && list_id(l, r) >= 0;
		tui_draw_text(w, i + 1, 0, l->lines.v[r], p->w,
			      tui_theme_attr(sel && &t->panes[t->focus] == p ? TUI_EL_CURSOR
					     : TUI_EL_DEFAULT), sel);
	}
}

static int list_run(struct tui *t, struct listp *l, const char *fmt)
{
	int id = list_id(l, l->sel);
	if (id < 0)
		return qz_error(t->q, "Nothing selected.");
	return tui_slicev_run(t, fmt, id);
}

static int list_action(struct tui *t, struct tui_pane *p, int act, const char *arg)
{
	struct listp *l = p->st;
	(void)arg;
	switch (act) {
	case TUI_ACT_SELECT: return list_run(t, l, l->select_fmt);
	case TUI_ACT_DELETE_ITEM: return list_run(t, l, l->delete_fmt);
	case TUI_ACT_LINE_UP: list_move(l, l->sel - 1, -1); break;
	case TUI_ACT_LINE_DOWN: list_move(l, l->sel + 1, 1); break;
	case TUI_ACT_PAGE_UP: case TUI_ACT_TOP: list_move(l, 0, 1); break;
	case TUI_ACT_PAGE_DOWN: case TUI_ACT_BOTTOM: list_move(l, (int)l->lines.n - 1, -1); break;
	default: return TUI_NOT_MINE;
	}
	return 0;
}

static void list_fini(struct tui_pane *p)
{
	struct listp *l = p->st;
	tui_lines_free(&l->lines);
	free(l);
}

static void ckpts_init(struct tui *t, struct tui_pane *p)
{
	struct listp *l = xcalloc(1, sizeof *l);
	(void)t;
	*l = (struct listp){.title = " checkpoints (Enter: rollback, d: delete)",
		.cmd = "info checkpoints", .row_fmt = "%*[ *]%d", .select_fmt = "rollback %d",
		.delete_fmt = "cdelete %d"};
	p->st = l;
}

static void slices_init(struct tui *t, struct tui_pane *p)
{
	struct listp *l = xcalloc(1, sizeof *l);
	(void)t;
	*l = (struct listp){.title = " slices (Enter: make current, d: delete)",
		.cmd = "info slices", .row_fmt = "Slice %d", .select_fmt = "tui slice-select %d",
		.delete_fmt = "sdelete %d"};
	p->st = l;
}

const struct tui_pane_ops tui_pane_ckpts = {
	.name = "ckpts", .side = true, .init = ckpts_init, .draw = list_draw,
	.action = list_action, .on_stop = list_on_stop, .fini = list_fini,
};

const struct tui_pane_ops tui_pane_slices = {
	.name = "slices", .side = true, .init = slices_init, .draw = list_draw,
	.action = list_action, .on_stop = list_on_stop, .fini = list_fini,
};
