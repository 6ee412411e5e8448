/* screen: layout and drawing (see screen.h). The main pane takes the
 * left, keeping 14 source lines at 24 rows; the command pane sits above
 * the status line and the bottom region above it: the program's output
 * and, under 120 columns, the shown side panes, stacked when they fit,
 * else one at a time (F6 cycles, the title row lists them). From 120
 * columns the side panes stack at the source's right in table order. */
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
#include "util/progress.h"

#define TUI_MIN_ROWS 16
#define TUI_MIN_COLS 60
#define TUI_MAIN_MIN 6   /* rows the main pane keeps */
#define TUI_SOURCE_ROWS 15  /* 14 source lines and the title, at 24 rows */
#define TUI_BOTTOM_MIN 5    /* the command pane's least: 3 lines and the prompt */
#define TUI_DOCK_MIN 3      /* the region's least: 2 lines */
#define TUI_CMD_SMALL 3     /* the command pane while a region's pane has the keys */
#define TUI_SIDE_ROWS 6     /* a side pane stacked at the bottom */
#define TUI_WIDE_COLS 120   /* side panes at the right from here */

bool tui_screen_start(void)
{
	setlocale(LC_ALL, "");
	if (!getenv("ESCDELAY"))
		set_escdelay(25);
	SCREEN *s = newterm(NULL, stdout, stdin);
	if (!s)
		return false;
	set_term(s);
	progress_claim();   /* stderr would scribble over the screen */
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

/* Side panes sit at the right only when the source keeps 80 columns;
 * else they join the output in the bottom region. */
static bool screen_wide(const struct tui *t)
{
	return t->cols >= TUI_WIDE_COLS;
}

/* In the bottom region, above the command pane: the output, and the shown
 * side panes on a narrow terminal. */
static bool screen_docked(const struct tui *t, int i)
{
	return i == TP_OUTPUT ||
	       (!screen_wide(t) && tui_pane_is_side(&tui_panes[i]) && t->panes[i].shown);
}

static int screen_nside(struct tui *t)
{
	int ns = 0;
	for (int i = 0; i < TP_COUNT; i++)
		ns += tui_pane_is_side(&tui_panes[i]) && t->panes[i].shown && !screen_docked(t, i);
	return ns;
}

static void screen_side(struct tui *t, int h, int side_w)
{
	int ns = screen_nside(t), k = 0, y = 0;
	for (int i = 0; i < TP_COUNT; i++) {
		if (!tui_pane_is_side(&tui_panes[i]) || !t->panes[i].shown || screen_docked(t, i))
			continue;
		int ph = k == ns - 1 ? h - y : h / ns;
		screen_place(&t->panes[i], y, t->cols - side_w, ph, side_w);
		y += ph;
		k++;
	}
}

/* The rows a docked pane wants when the region stacks them all. */
static int screen_want(const struct tui *t, int i)
{
	return tui_panes[i].where == TUI_BOTTOM ? t->panes[i].size : TUI_SIDE_ROWS;
}

/* The source's least rows: 14 lines and its title on 24 rows or more. */
static int screen_main_min(const struct tui *t)
{
	return clamp(t->rows - 1 - TUI_BOTTOM_MIN - TUI_DOCK_MIN, TUI_MAIN_MIN, TUI_SOURCE_ROWS);
}

/* The bottom region's panes stacked, from y up; returns the new y. */
static int screen_stack(struct tui *t, int y)
{
	for (int i = TP_COUNT - 1; i >= 0; i--) {
		if (!screen_docked(t, i) || i == TP_CMD)
			continue;
		int h = screen_want(t, i);
		y -= h;
		screen_place(&t->panes[i], y, 0, h, t->cols);
	}
	return y;
}

/* The shown pane of a region that toggles (F6): t->dock if docked. */
static int screen_dock_pane(struct tui *t)
{
	if (t->dock < 0 || t->dock >= TP_COUNT || !screen_docked(t, t->dock))
		t->dock = TP_OUTPUT;
	return t->dock;
}

/* The command pane at the bottom, the region above it: every docked pane
 * stacked if they fit under the source's least rows, else one of them
 * (F6 cycles). Returns the rows left above them. */
static int screen_bottom(struct tui *t)
{
	int avail = t->rows - 1 - screen_main_min(t), want = t->panes[TP_CMD].size;
	for (int i = 0; i < TP_COUNT; i++)
		if (screen_docked(t, i))
			want += screen_want(t, i);
	t->dock_all = want <= avail;
	if (t->dock_all) {
		int h = t->panes[TP_CMD].size;
		screen_place(&t->panes[TP_CMD], t->rows - 1 - h, 0, h, t->cols);
		return screen_stack(t, t->rows - 1 - h);
	}
	int cmd_h = clamp(avail - avail * 3 / 8, TUI_BOTTOM_MIN, avail - TUI_DOCK_MIN);
	if (t->focus == screen_dock_pane(t) && t->focus != TP_OUTPUT)
		cmd_h = TUI_CMD_SMALL;   /* the pane being read grows */
	int dock_h = avail - cmd_h;
	screen_place(&t->panes[TP_CMD], t->rows - 1 - cmd_h, 0, cmd_h, t->cols);
	int y = t->rows - 1 - cmd_h - dock_h;
	screen_place(&t->panes[screen_dock_pane(t)], y, 0, dock_h, t->cols);
	return y;
}

void tui_layout(struct tui *t)
{
	tui_screen_free(t);
	for (int i = 0; i < TP_COUNT; i++)
		t->panes[i].h = t->panes[i].w = 0;
	getmaxyx(stdscr, t->rows, t->cols);
	t->too_small = t->rows < TUI_MIN_ROWS || t->cols < TUI_MIN_COLS;
	if (t->too_small)
		return;
	int main_h = screen_bottom(t);
	int side_w = screen_nside(t) ? clamp(t->side_w, 20, t->cols / 2) : 0;
	screen_place(&t->panes[TP_SOURCE], 0, 0, main_h, t->cols - side_w);
	screen_side(t, main_h, side_w);
	t->status_win = newwin(1, t->cols, t->rows - 1, 0);
	int out_h = t->panes[TP_OUTPUT].h ? t->panes[TP_OUTPUT].h : t->panes[screen_dock_pane(t)].h;
	tui_pty_resize(t, out_h - 1, t->cols);
}

void tui_dock_show(struct tui *t, int pane)
{
	t->dock = pane;
	if (pane == TP_OUTPUT)
		t->output_unseen = false;
	t->want |= TUI_LAYOUT | TUI_DRAW;
}

bool tui_dock_cycle(struct tui *t)
{
	if (t->dock_all || t->too_small)
		return false;
	for (int k = 1; k < TP_COUNT; k++) {
		int i = (screen_dock_pane(t) + k) % TP_COUNT;
		if (screen_docked(t, i)) {
			tui_dock_show(t, i);
			return true;
		}
	}
	return false;
}

/* The toggling region's panes on its title row, the shown one in []. */
static void screen_dock_tabs(struct tui *t)
{
	char buf[160];
	size_t n = 0;
	int cur = screen_dock_pane(t), most = t->cols / 2, k = 0;
	WINDOW *w = t->panes[cur].win;
	for (int i = 0; i < TP_COUNT && n + 20 < sizeof buf; i++)
		if (screen_docked(t, i) && ++k)
			n += (size_t)snprintf(buf + n, sizeof buf - n, i == cur ? "[%s%s] " : "%s%s ",
					      tui_panes[i].name,
					      i == TP_OUTPUT && t->output_unseen ? "*" : "");
	if (!w || k < 2)
		return;
	snprintf(buf + n, sizeof buf - n, "F6 ");
	n += 3;
	int width = (int)n < most ? (int)n : most;
	tui_draw_el(w, 0, t->cols - width, buf, width, TUI_EL_TITLE, false);
	wnoutrefresh(w);
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
	if (!t->dock_all)
		screen_dock_tabs(t);
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
