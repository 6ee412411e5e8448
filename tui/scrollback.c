/* scrollback: the scrolling text pane type (see scrollback.h). */
#include "scrollback.h"

#include <stdio.h>

#include "draw.h"
#include "keymap.h"

void tui_sb_init(struct tui_sb *sb, const struct tui_sb_kind *kind)
{
	*sb = (struct tui_sb){.kind = kind};
	sb->lines.max = kind->keep;
}

void tui_sb_free(struct tui_sb *sb)
{
	tui_lines_free(&sb->lines);
}

void tui_sb_split(struct tui_sb *sb, const char *text, int elem)
{
	size_t added = tui_lines_split(&sb->lines, text, elem);
	if (!sb->kind->stay)
		sb->back = 0;
	else if (sb->back > 0)
		sb->back += (int)added;
}

const struct tui_lines *tui_sb_lines(const struct tui_pane *p)
{
	const struct tui_sb *sb = p->st;
	return &sb->lines;
}

void tui_sb_draw(struct tui_pane *p, const struct tui_view *v, struct _win_st *w,
		 struct tui_cursor *cur)
{
	struct tui_sb *sb = p->st;
	const struct tui_sb_kind *k = sb->kind;
	bool focus = v->focus == p->id;
	const char *hint = focus && k->focus_hint ? k->focus_hint : k->hint;
	char title[256];
	snprintf(title, sizeof title, "%s%s", p->def->title,
		 sb->back ? " (scrolled back: PgDn)" : hint);
	tui_draw_title(w, title, focus);
	int last = k->bottom(p, v, w, tui_pane_rows(p), cur);
	tui_draw_wrapped(w, &sb->lines, sb->lines.n - (size_t)sb->back, 1, last, p->w);
}

int tui_sb_action(struct tui_pane *p, const struct tui_view *v, int act, const char *arg,
		  struct tui_req *req)
{
	struct tui_sb *sb = p->st;
	int page = tui_pane_rows(p) - sb->kind->input_rows - 1;
	(void)v, (void)arg, (void)req;
	page = page > 1 ? page : 1;
	if (act == TUI_ACT_PAGE_UP)
		sb->back += page;
	else if (act == TUI_ACT_PAGE_DOWN)
		sb->back -= page;
	else
		return TUI_NOT_MINE;
	int most = (int)sb->lines.n - (sb->kind->scroll_all ? 0 : page);
	sb->back = sb->back > most ? (most > 0 ? most : 0) : sb->back < 0 ? 0 : sb->back;
	return 0;
}
