/* pane-cmd: the command pane, a scrollback (scrollback.c) of commands and
 * their output above the `(qzdb) ` prompt, whose line editor (lineedit.c)
 * gets the keys while the pane has them. The line typed goes back to the
 * loop as a request; the pane never runs it. */
#define _XOPEN_SOURCE 700
#include <curses.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "draw.h"
#include "keymap.h"
#include "lineedit.h"
#include "scrollback.h"
#include "theme.h"
#include "util/util.h"

struct cmdp {
	struct tui_sb sb;       /* first: the scrollback type's state */
	struct tui_le le;       /* the command line */
};

/* The prompt line, scrolled so that the cursor stays on screen. */
static int cmdp_bottom(struct tui_pane *p, const struct tui_view *v, WINDOW *w, int y,
		       struct tui_cursor *cur)
{
	struct cmdp *c = p->st;
	const char *prompt = v->searching ? v->search_back ? "?" : "/"
		: tui_le_prompt(&c->le, "(qzdb) ");
	int pl = (int)strlen(prompt), col = tui_le_cursor_col(&c->le);
	int room = p->w - pl - 1;
	const char *text = c->le.buf;
	while (col > room && *text) {   /* drop characters from the left */
		wchar_t wc;
		int n = mbtowc(&wc, text, MB_CUR_MAX);
		int cw = n > 0 ? wcwidth(wc) : 1;
		col -= cw > 0 ? cw : 0;
		text += n > 0 ? n : 1;
	}
	tui_draw_el(w, y, 0, prompt, pl, TUI_EL_PROMPT, false);
	tui_draw_el(w, y, pl, text, p->w - pl, TUI_EL_DEFAULT, false);
	if (v->focus == p->id)
		*cur = (struct tui_cursor){y, pl + col};
	return y - 1;
}

static int cmdp_action(struct tui_pane *p, const struct tui_view *v, int act, const char *arg,
		       struct tui_req *req)
{
	struct cmdp *c = p->st;
	if (act == TUI_ACT_FILES) {   /* the picker's line, to complete */
		tui_le_set(&c->le, arg);
		return 0;
	}
	if (act != TUI_ACT_SEARCH_PROMPT)
		return tui_sb_action(p, v, act, arg, req);
	tui_le_set(&c->le, "");   /* the line now takes the search text */
	return 0;
}

static int cmdp_key(struct tui_pane *p, const struct tui_view *v, int key, struct tui_req *req)
{
	struct cmdp *c = p->st;
	struct sbuf list = {0};
	int flags = TUI_DRAW;
	(void)v;
	switch (tui_le_key(&c->le, key, &list)) {
	case LE_ACCEPT:
		*req = (struct tui_req){.kind = TUI_REQ_ACCEPT, .text = tui_le_take(&c->le)};
		break;
	case LE_EOF: req->kind = TUI_REQ_EOF; break;
	case LE_CANCEL: req->kind = TUI_REQ_CANCEL; break;
	case LE_LISTED: tui_sb_split(&c->sb, list.s, TUI_EL_DEFAULT); break;
	case LE_UNHANDLED: flags = TUI_NOT_MINE; break;
	case LE_CHANGED: break;
	}
	sbuf_free(&list);
	return flags;
}

/* Output of commands: its lines, and the view back at the end. */
static void cmdp_feed(struct tui_pane *p, const char *s, size_t n, int elem)
{
	struct cmdp *c = p->st;
	(void)n;
	tui_sb_split(&c->sb, s, elem);
}

static const struct tui_sb_kind cmdp_kind = {
	.keep = 5000, .input_rows = 1, .hint = "", .bottom = cmdp_bottom,
};

static void cmdp_init(struct tui_pane *p, const struct tui_view *v)
{
	struct cmdp *c = xcalloc(1, sizeof *c);
	tui_sb_init(&c->sb, &cmdp_kind);
	tui_le_init(&c->le, v->q);
	tui_le_history_load(&c->le);
	p->st = c;
}

static void cmdp_fini(struct tui_pane *p)
{
	struct cmdp *c = p->st;
	tui_sb_free(&c->sb);
	tui_le_free(&c->le);
	free(c);
}

const struct tui_pane_ops tui_cmd_pane = {
	.init = cmdp_init, .fini = cmdp_fini, .draw = tui_sb_draw, .action = cmdp_action,
	.key = cmdp_key, .feed = cmdp_feed, .min_rows = 3,
};
