/* pane-info: the side panes that show what a command prints (the table's
 * `shows`: info locals, backtrace, info registers, info breakpoints,
 * disassemble), scrolled to the `=>` line if there is one. The loop runs
 * the command after each command of the user, only while the pane is
 * shown, and hands the pane its output. */
#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "keymap.h"
#include "pane.h"
#include "theme.h"
#include "util/hmap.h"
#include "util/util.h"

struct infop {
	struct tui_lines lines;
	char *text;             /* the output shown, to keep the scroll when
	                           a command leaves it the same */
	int top;
};

/* A line's name and value: "i = 3" is i and 3, "rax  0x1c  28" is rax and
 * "0x1c  28", a line of a struct's fields its first word and the rest.
 * *nlen gets the name's length; the value is returned. */
static const char *info_split(const char *line, size_t *nlen)
{
	const char *eq = strstr(line, " = ");
	size_t sp = strcspn(line, " ");
	*nlen = eq ? (size_t)(eq - line) : sp;
	return eq ? eq + 3 : line + sp + (line[sp] != 0);
}

/* Mark the lines whose value differs from what the same name had in the
 * previous text: the values a `next` or `step` changed. Headings become
 * their own element. */
static void info_mark(struct infop *ip, const char *old)
{
	struct tui_lines prev = {0};
	struct hmap vals = {0};   /* name (cut in prev's copy) -> value */
	size_t n;
	if (old)
		tui_lines_split(&prev, old, TUI_EL_DEFAULT);
	for (size_t i = 0; i < prev.n; i++) {
		const char *val = info_split(prev.v[i], &n);
		prev.v[i][n] = 0;
		if (n && !hmap_sget(&vals, prev.v[i]))
			hmap_sput(&vals, prev.v[i], (void *)val);
	}
	for (size_t i = 0; i < ip->lines.n; i++) {
		char *l = ip->lines.v[i];
		if (l[0] == TUI_HEADING[0]) {
			memmove(l, l + 1, strlen(l));
			ip->lines.elem[i] = TUI_EL_HEADING;
			continue;
		}
		const char *val = info_split(l, &n);
		char *name = xstrndup(l, n);
		const char *was = n ? hmap_sget(&vals, name) : NULL;
		if (was && strcmp(was, val))
			ip->lines.elem[i] = TUI_EL_CHANGED;
		free(name);
	}
	hmap_free(&vals);
	tui_lines_free(&prev);
}

static void info_update(struct tui_pane *p, const struct tui_view *v, const char *text)
{
	struct infop *ip = p->st;
	(void)v;
	if (ip->text && !strcmp(ip->text, text))
		return;   /* unchanged: the marks of the last change stay */
	tui_lines_clear(&ip->lines);
	tui_lines_split(&ip->lines, text, TUI_EL_DEFAULT);
	info_mark(ip, ip->text);
	free(ip->text);
	ip->text = xstrdup(text);
	ip->top = 0;
	for (size_t i = 0; i < ip->lines.n; i++)
		if (!strncmp(ip->lines.v[i], "=>", 2))
			ip->top = i > 3 ? (int)i - 3 : 0;
}

static void info_draw(struct tui_pane *p, const struct tui_view *v, WINDOW *w,
		      struct tui_cursor *cur)
{
	struct infop *ip = p->st;
	(void)cur;
	tui_draw_title(w, p->def->title, v->focus == p->id);
	for (int i = 0; i < tui_pane_rows(p) && (size_t)(ip->top + i) < ip->lines.n; i++) {
		int ln = ip->top + i;
		bool here = !strncmp(ip->lines.v[ln], "=>", 2);
		tui_draw_el(w, i + 1, 0, ip->lines.v[ln], p->w,
			    here ? TUI_EL_CURRENT : ip->lines.elem[ln], here);
	}
}

static int info_action(struct tui_pane *p, const struct tui_view *v, int act, const char *arg,
		       struct tui_req *req)
{
	struct infop *ip = p->st;
	int page = tui_pane_rows(p) > 1 ? tui_pane_rows(p) - 1 : 1;
	int last = (int)ip->lines.n - tui_pane_rows(p);
	(void)v, (void)arg, (void)req;
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

static void info_init(struct tui_pane *p, const struct tui_view *v)
{
	(void)v;
	p->st = xcalloc(1, sizeof(struct infop));
}

static void info_fini(struct tui_pane *p)
{
	struct infop *ip = p->st;
	tui_lines_free(&ip->lines);
	free(ip->text);
	free(ip);
}

const struct tui_pane_ops tui_info_pane = {
	.init = info_init, .fini = info_fini, .update = info_update, .draw = info_draw,
	.action = info_action,
};
