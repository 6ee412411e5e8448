/* pane-cmd: the command pane: scrollback of commands and their output
 * above the `(qzdb) ` prompt line the line editor fills. */
#define _XOPEN_SOURCE 700
#include <curses.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "keymap.h"
#include "theme.h"
#include "ui.h"

#define CMD_SCROLLBACK 5000

struct cmdp {
	struct tui_lines lines;
	int back;              /* lines scrolled back from the end */
};

struct tui_lines *tui_cmd_lines(struct tui *t)
{
	struct cmdp *c = t->panes[TP_CMD].st;
	c->back = 0;   /* new output brings the view back to the end */
	return &c->lines;
}

static void cmdp_draw_input(struct tui *t, struct tui_pane *p, WINDOW *w, int y)
{
	const char *prompt = t->searching ? "/" : "(qzdb) ";
	int pl = (int)strlen(prompt), col = tui_le_cursor_col(&t->le);
	int room = p->w - pl - 1;
	const char *text = t->le.buf;
	/* Keep the cursor on screen: drop characters from the left. */
	while (col > room && *text) {
		wchar_t wc;
		int n = mbtowc(&wc, text, MB_CUR_MAX);
		int cw = n > 0 ? wcwidth(wc) : 1;
		col -= cw > 0 ? cw : 0;
		text += n > 0 ? n : 1;
	}
	tui_draw_text(w, y, 0, prompt, pl, tui_theme_attr(TUI_EL_PROMPT), false);
	tui_draw_text(w, y, pl, text, p->w - pl, tui_theme_attr(TUI_EL_DEFAULT), false);
	if (t->focus == TP_CMD) {
		t->cur_y = p->y + y;
		t->cur_x = p->x + pl + col;
	}
}

static void cmdp_draw(struct tui *t, struct tui_pane *p, WINDOW *w)
{
	struct cmdp *c = p->st;
	int rows = tui_pane_rows(p) - 1;
	tui_draw_title(w, c->back ? " commands (scrolled back: PgDn)" : " commands", &t->panes[t->focus] == p);
	tui_draw_wrapped(w, &c->lines, c->lines.n - (size_t)c->back, 1, rows, p->w);
	cmdp_draw_input(t, p, w, rows + 1);
}

static int cmdp_action(struct tui *t, struct tui_pane *p, int act, const char *arg)
{
	struct cmdp *c = p->st;
	int page = tui_pane_rows(p) - 2;
	(void)t, (void)arg;
	if (act == TUI_ACT_PAGE_UP)
		c->back += page;
	else if (act == TUI_ACT_PAGE_DOWN)
		c->back -= page;
	else
		return TUI_NOT_MINE;
	int most = (int)c->lines.n - page;
	c->back = c->back > most ? (most > 0 ? most : 0) : c->back < 0 ? 0 : c->back;
	return 0;
}

static void cmdp_init(struct tui *t, struct tui_pane *p)
{
	(void)t;
	struct cmdp *c = xcalloc(1, sizeof *c);
	c->lines.max = CMD_SCROLLBACK;
	p->st = c;
}

static void cmdp_fini(struct tui_pane *p)
{
	struct cmdp *c = p->st;
	tui_lines_free(&c->lines);
	free(c);
}

const struct tui_pane_ops tui_pane_cmd = {
	.name = "cmd", .init = cmdp_init, .draw = cmdp_draw, .action = cmdp_action,
	.fini = cmdp_fini,
};
