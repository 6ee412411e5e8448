/* screen: layout and drawing (see screen.h). The main pane takes the
 * left, the side panes stack at its right in table order, the bottom
 * panes stack up from the status line: the first takes at most half the
 * screen, the next what the main pane's least rows leave. */
#define _XOPEN_SOURCE_EXTENDED 1
#define _GNU_SOURCE
#include "screen.h"

#include <curses.h>
#include <locale.h>
#include <stdlib.h>

#include "draw.h"
#include "pty.h"
#include "status.h"
#include "theme.h"
#include "ui.h"

#define TUI_MIN_ROWS 16
#define TUI_MIN_COLS 60
#define TUI_MAIN_MIN 6   /* rows the main pane keeps */

bool tui_screen_start(void)
{
	setlocale(LC_ALL, "");
	if (!getenv("ESCDELAY"))
		set_escdelay(25);
	SCREEN *s = newterm(NULL, stdout, stdin);
	if (!s)
		return false;
	set_term(s);
	raw();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	if (has_colors()) {
		start_color();
		use_default_colors();
	}
	wnoutrefresh(stdscr);
	return true;
}

static void screen_place(struct tui_pane *p, int y, int x, int h, int w)
{
	p->y = y, p->x = x, p->h = h, p->w = w;
	p->win = h > 1 && w > 0 ? newwin(h, w, y, x) : NULL;
}

void tui_screen_free(struct tui *t)
{
	for (int i = 0; i < TP_COUNT; i++) {
		if (t->panes[i].win)
			delwin(t->panes[i].win);
		t->panes[i].win = NULL;
	}
	if (t->status_win)
		delwin(t->status_win);
	if (t->help_win)
		delwin(t->help_win);
	t->status_win = t->help_win = NULL;
}

static int clamp(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static int screen_nside(struct tui *t)
{
	int ns = 0;
	for (int i = 0; i < TP_COUNT; i++)
		ns += tui_pane_is_side(&tui_panes[i]) && t->panes[i].shown;
	return ns;
}

static void screen_side(struct tui *t, int h, int side_w)
{
	int ns = screen_nside(t), k = 0, y = 0;
	for (int i = 0; i < TP_COUNT; i++) {
		if (!tui_pane_is_side(&tui_panes[i]) || !t->panes[i].shown)
			continue;
		int ph = k == ns - 1 ? h - y : h / ns;
		screen_place(&t->panes[i], y, t->cols - side_w, ph, side_w);
		y += ph;
		k++;
	}
}

/* The bottom panes from the status line up; returns the rows left. */
static int screen_bottom(struct tui *t)
{
	int y = t->rows - 1, k = 0;
	for (int i = 0; i < TP_COUNT; i++) {
		struct tui_pane *p = &t->panes[i];
		if (tui_panes[i].where != TUI_BOTTOM)
			continue;
		int most = k++ ? y - TUI_MAIN_MIN : t->rows / 2;
		int h = clamp(p->size, tui_panes[i].ops->min_rows, most);
		y -= h;
		screen_place(p, y, 0, h, t->cols);
	}
	return y;
}

void tui_layout(struct tui *t)
{
	tui_screen_free(t);
	getmaxyx(stdscr, t->rows, t->cols);
	t->too_small = t->rows < TUI_MIN_ROWS || t->cols < TUI_MIN_COLS;
	if (t->too_small)
		return;
	int main_h = screen_bottom(t);
	int side_w = screen_nside(t) ? clamp(t->side_w, 20, t->cols / 2) : 0;
	screen_place(&t->panes[TP_SOURCE], 0, 0, main_h, t->cols - side_w);
	screen_side(t, main_h, side_w);
	t->status_win = newwin(1, t->cols, t->rows - 1, 0);
	tui_pty_resize(t, t->panes[TP_OUTPUT].h - 1, t->cols);
}

static void screen_help(struct tui *t)
{
	int h = t->rows - 4, w = t->cols - 8;
	t->help_win = t->help_win ? t->help_win : newwin(h, w, 2, 4);
	WINDOW *hw = t->help_win;
	tui_draw_box(hw, " qzdb help: j/k scroll, Esc/q close ", TUI_EL_HELP);
	int most = (int)t->help_text.n > h - 2 ? (int)t->help_text.n - (h - 2) : 0;
	t->help_top = clamp(t->help_top, 0, most);
	for (int i = 0; i < h - 2 && (size_t)(t->help_top + i) < t->help_text.n; i++)
		tui_draw_el(hw, i + 1, 2, t->help_text.v[t->help_top + i], w - 4, TUI_EL_HELP, false);
	wnoutrefresh(hw);
}

static void screen_too_small(struct tui *t)
{
	erase();
	mvprintw(0, 0, "Terminal too small (%dx%d): qzdb needs at least %dx%d.",
		 t->cols, t->rows, TUI_MIN_COLS, TUI_MIN_ROWS);
	mvprintw(1, 0, "Enlarge the window, or press q to quit.");
	wnoutrefresh(stdscr);
	doupdate();
}

static void screen_pane(struct tui *t, struct tui_pane *p)
{
	struct tui_cursor cur = {-1, -1};
	struct tui_view v = tui_view(t);
	werase(p->win);
	p->def->ops->draw(p, &v, p->win, &cur);
	wnoutrefresh(p->win);
	if (cur.y >= 0)
		t->cur_y = p->y + cur.y, t->cur_x = p->x + cur.x;
}

void tui_draw(struct tui *t)
{
	if (t->too_small) {
		screen_too_small(t);
		return;
	}
	t->cur_y = t->cur_x = -1;
	for (int i = 0; i < TP_COUNT; i++)
		if (t->panes[i].win)
			screen_pane(t, &t->panes[i]);
	werase(t->status_win);
	tui_status_draw(t, t->status_win);
	wnoutrefresh(t->status_win);
	if (t->help)
		screen_help(t);
	bool cursor = t->cur_y >= 0 && !t->help && !t->running;
	curs_set(cursor ? 1 : 0);
	if (cursor)
		setsyx(t->cur_y, t->cur_x);
	doupdate();
}
