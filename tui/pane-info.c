/* pane-info: the side panes that show what a command prints: locals
 * (info locals), stack (backtrace), regs (info registers), bps (info
 * breakpoints), disasm (disassemble, scrolled to the => line). They run
 * their command after each command of the user, only while shown. */
#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "keymap.h"
#include "theme.h"
#include "ui.h"

struct infop {
	const char *title;
	const char *cmd;
	struct tui_lines lines;
	char *text;            /* the output shown, to keep the scroll when
	                          a command leaves it the same */
	int top;
};

static void info_on_stop(struct tui *t, struct tui_pane *p)
{
	struct infop *ip = p->st;
	struct sbuf out = {0};
	tui_capture(t, ip->cmd, &out);
	char *text = sbuf_take(&out);
	if (ip->text && !strcmp(ip->text, text)) {
		free(text);
		return;
	}
	free(ip->text);
	ip->text = text;
	tui_lines_clear(&ip->lines);
	tui_lines_split(&ip->lines, text, TUI_EL_DEFAULT);
	ip->top = 0;
	for (size_t i = 0; i < ip->lines.n; i++)
		if (!strncmp(ip->lines.v[i], "=>", 2))
			ip->top = i > 3 ? (int)i - 3 : 0;
}

static void info_draw(struct tui *t, struct tui_pane *p, WINDOW *w)
{
	struct infop *ip = p->st;
	tui_draw_title(w, ip->title, &t->panes[t->focus] == p);
	for (int i = 0; i < tui_pane_rows(p) && (size_t)(ip->top + i) < ip->lines.n; i++) {
		int ln = ip->top + i;
		bool here = !strncmp(ip->lines.v[ln], "=>", 2);
		tui_draw_text(w, i + 1, 0, ip->lines.v[ln], p->w,
			      tui_theme_attr(here ? TUI_EL_CURRENT : ip->lines.elem[ln]), here);
	}
}

static int info_action(struct tui *t, struct tui_pane *p, int act, const char *arg)
{
	struct infop *ip = p->st;
	int page = tui_pane_rows(p) > 1 ? tui_pane_rows(p) - 1 : 1;
	int last = (int)ip->lines.n - tui_pane_rows(p);
	(void)t, (void)arg;
	switch (act) {
	case TUI_ACT_LINE_UP: ip->top--; break;
	case TUI_ACT_LINE_DOWN: ip->top++; break;
	case TUI_ACT_PAGE_UP: ip->top -= page; break;
	case TUI_ACT_PAGE_DOWN: ip->top += page; break;
	case TUI_ACT_TOP: ip->top = 0; break;
	case TUI_ACT_BOTTOM: ip->top = last; break;
	default: return TUI_NOT_MINE;
	}
	ip->top = ip->top > last ? last : ip->top;
	ip->top = ip->top < 0 ? 0 : ip->top;
	return 0;
}

static void info_fini(struct tui_pane *p)
{
	struct infop *ip = p->st;
	tui_lines_free(&ip->lines);
	free(ip->text);
	free(ip);
}

static void info_setup(struct tui_pane *p, const char *title, const char *cmd)
{
	struct infop *ip = xcalloc(1, sizeof *ip);
	ip->title = title;
	ip->cmd = cmd;
	p->st = ip;
}

#define INFO_PANE(var, pname, title, cmd) \
	static void var##_init(struct tui *t, struct tui_pane *p) \
	{ \
		(void)t; \
		info_setup(p, title, cmd); \
	} \
	const struct tui_pane_ops var = { \
		.name = pname, .side = true, .init = var##_init, .draw = info_draw, .action = info_action, \
		.on_stop = info_on_stop, .fini = info_fini, \
	};

INFO_PANE(tui_pane_locals, "locals", " locals", "info locals")
INFO_PANE(tui_pane_stack, "stack", " stack", "backtrace")
INFO_PANE(tui_pane_regs, "regs", " registers", "info registers")
INFO_PANE(tui_pane_bps, "bps", " breakpoints", "info breakpoints")
INFO_PANE(tui_pane_disasm, "disasm", " disassembly", "disassemble")
