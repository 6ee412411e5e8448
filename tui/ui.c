/* ui: the full-screen UI's event loop. One poll() over the terminal and
 * the program's pty; each turn reads the input, runs what the keys are
 * bound to (always through cmd_run), lets the panes read the engine's
 * new state, and draws once (wnoutrefresh per pane, then doupdate, so
 * only changed cells reach the terminal). */
#define _XOPEN_SOURCE_EXTENDED 1
#define _GNU_SOURCE
#include "ui.h"

#include <curses.h>
#include <errno.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include "cmd/cmd.h"
#include "keymap.h"
#include "replay.h"
#include "runner.h"
#include "slicev.h"
#include "target/session.h"
#include "theme.h"
#include "tui.h"
#include "uicmd.h"

#define TUI_MIN_ROWS 16
#define TUI_MIN_COLS 60

/* ---- output from the engine ---- */

void tui_say(struct tui *t, const char *text, int elem)
{
	tui_lines_split(tui_cmd_lines(t), text, elem);
}

static void ui_sink(void *arg, enum qz_out_kind kind, const char *text)
{
	struct tui *t = arg;
	if (t->capture) {
		sbuf_add(t->capture, text);
		if (kind == QZ_OUT_ERROR)
			sbuf_add(t->capture, "\n");
		return;
	}
	pthread_mutex_lock(&t->lock);
	if (kind == QZ_OUT_TEXT) {
		sbuf_add(&t->partial, text);
		char *nl = strrchr(t->partial.s, '\n');
		if (nl) {
			*nl = 0;
			tui_say(t, t->partial.s, TUI_EL_DEFAULT);
			char *rest = xstrdup(nl + 1);
			sbuf_reset(&t->partial);
			sbuf_add(&t->partial, rest);
			free(rest);
		}
	} else {
		char *msg = t->rc_path ? xasprintf("%s:%d: %s", t->rc_path, t->rc_line, text)
				       : xstrdup(text);
		tui_say(t, msg, kind == QZ_OUT_ERROR ? TUI_EL_ERROR : TUI_EL_WARNING);
		free(msg);
	}
	pthread_mutex_unlock(&t->lock);
}

static void ui_flush_partial(struct tui *t)
{
	if (t->partial.len) {
		tui_say(t, t->partial.s, TUI_EL_DEFAULT);
		sbuf_reset(&t->partial);
	}
}

void tui_capture(struct tui *t, const char *cmd, struct sbuf *out)
{
	struct sbuf *old = t->capture;
	t->capture = out;
	cmd_run(t->q, cmd);
	t->capture = old;
}

/* After a command: every pane reads the engine again. */
void tui_refresh(struct tui *t)
{
	ui_flush_partial(t);
	tui_slicev_refresh(t);
	for (int i = 0; i < TP_COUNT; i++)
		if (t->panes[i].ops->on_stop && (t->panes[i].shown || !t->panes[i].ops->side))
			t->panes[i].ops->on_stop(t, &t->panes[i]);
	t->stops_seen = t->q->stops_shown;
	tui_status_update(t);
}

void tui_echo(struct tui *t, const char *cmd)
{
	char *e = xasprintf("(qzdb) %s", cmd);
	tui_say(t, e, TUI_EL_ECHO);
	free(e);
}

int tui_echo_run(struct tui *t, const char *cmd)
{
	tui_echo(t, cmd);
	return cmd_run(t->q, cmd) == CMD_FAIL ? -1 : 0;
}

int tui_exec(struct tui *t, const char *line, bool echo)
{
	if (t->in_command)   /* a key binding run from within a command */
		return cmd_run(t->q, line);
	if (echo)
		tui_echo(t, line);
	if (t->want & TUI_LAYOUT) {   /* the runner draws with the new sizes */
		tui_layout(t);
		t->want &= ~TUI_LAYOUT;
	}
	t->in_command = true;
	struct runner *r = t->master >= 0 ? tui_runner_start(t) : NULL;
	int rc = cmd_run(t->q, line);
	if (r)
		tui_runner_stop(r);
	t->in_command = false;
	tui_pty_drain(t);
	tui_refresh(t);
	return rc;
}

/* ---- layout and drawing ---- */

static void ui_place(struct tui_pane *p, int y, int x, int h, int w)
{
	p->y = y, p->x = x, p->h = h, p->w = w;
	p->win = h > 1 && w > 0 ? newwin(h, w, y, x) : NULL;
}

static void ui_free_windows(struct tui *t)
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

static void ui_layout_side(struct tui *t, int h, int side_w)
{
	int ns = 0, k = 0, y = 0;
	for (int i = TP_LOCALS; i < TP_COUNT; i++)
		ns += t->panes[i].shown;
	for (int i = TP_LOCALS; i < TP_COUNT; i++) {
		if (!t->panes[i].shown)
			continue;
		int ph = k == ns - 1 ? h - y : h / ns;
		ui_place(&t->panes[i], y, t->cols - side_w, ph, side_w);
		y += ph;
		k++;
	}
}

void tui_layout(struct tui *t)
{
	ui_free_windows(t);
	getmaxyx(stdscr, t->rows, t->cols);
	t->too_small = t->rows < TUI_MIN_ROWS || t->cols < TUI_MIN_COLS;
	if (t->too_small)
		return;
	/* the source pane keeps at least 6 rows */
	int cmd_h = clamp(t->panes[TP_CMD].size, 3, t->rows / 2);
	int out_h = clamp(t->panes[TP_OUTPUT].size, 2, t->rows - 7 - cmd_h);
	int main_h = t->rows - 1 - cmd_h - out_h;
	int ns = 0;
	for (int i = TP_LOCALS; i < TP_COUNT; i++)
		ns += t->panes[i].shown;
	int side_w = ns ? clamp(t->side_w, 20, t->cols / 2) : 0;
	ui_place(&t->panes[TP_SOURCE], 0, 0, main_h, t->cols - side_w);
	ui_layout_side(t, main_h, side_w);
	ui_place(&t->panes[TP_OUTPUT], main_h, 0, out_h, t->cols);
	ui_place(&t->panes[TP_CMD], main_h + out_h, 0, cmd_h, t->cols);
	t->status_win = newwin(1, t->cols, t->rows - 1, 0);
	tui_pty_resize(t, out_h - 1, t->cols);
}

static void ui_draw_help(struct tui *t)
{
	int h = t->rows - 4, w = t->cols - 8;
	t->help_win = t->help_win ? t->help_win : newwin(h, w, 2, 4);
	WINDOW *hw = t->help_win;
	tui_draw_box(hw, " qzdb help: j/k scroll, Esc/q close ", TUI_EL_HELP);
	t->help_top = clamp(t->help_top, 0, (int)t->help_text.n > h - 2 ? (int)t->help_text.n - (h - 2) : 0);
	for (int i = 0; i < h - 2 && (size_t)(t->help_top + i) < t->help_text.n; i++)
		tui_draw_el(hw, i + 1, 2, t->help_text.v[t->help_top + i], w - 4, TUI_EL_HELP, false);
	wnoutrefresh(hw);
}

static void ui_draw_too_small(struct tui *t)
{
	erase();
	mvprintw(0, 0, "Terminal too small (%dx%d): qzdb needs at least %dx%d.",
		 t->cols, t->rows, TUI_MIN_COLS, TUI_MIN_ROWS);
	mvprintw(1, 0, "Enlarge the window, or press q to quit.");
	wnoutrefresh(stdscr);
	doupdate();
}

void tui_draw(struct tui *t)
{
	if (t->too_small) {
		ui_draw_too_small(t);
		return;
	}
	t->cur_y = t->cur_x = -1;
	for (int i = 0; i < TP_COUNT; i++) {
		struct tui_pane *p = &t->panes[i];
		if (!p->win)
			continue;
		werase(p->win);
		p->ops->draw(t, p, p->win);
		wnoutrefresh(p->win);
	}
	werase(t->status_win);
	tui_status_draw(t, t->status_win);
	wnoutrefresh(t->status_win);
	if (t->help)
		ui_draw_help(t);
	bool cursor = t->cur_y >= 0 && !t->help && !t->running;
	curs_set(cursor ? 1 : 0);
	if (cursor)
		setsyx(t->cur_y, t->cur_x);
	doupdate();
}

/* ---- keys ---- */

static int ui_key_from_curses(int r, wint_t wc)
{
	if (r == OK) {
		switch (wc) {
		case 27: return TK_ESC;
		case '\t': return TK_TAB;
		case '\r': case '\n': return TK_ENTER;
		case 127: case 8: return TK_BACKSPACE;
		}
		return (int)wc;
	}
	if (wc >= (wint_t)KEY_F(1) && wc <= (wint_t)KEY_F(12))
		return TK_F1 + (int)(wc - KEY_F(1));
	if (wc >= (wint_t)KEY_F(13) && wc <= (wint_t)KEY_F(24))
		return TK_SF1 + (int)(wc - KEY_F(13));
	switch (wc) {
	case KEY_UP: return TK_UP;
	case KEY_DOWN: return TK_DOWN;
	case KEY_LEFT: return TK_LEFT;
	case KEY_RIGHT: return TK_RIGHT;
	case KEY_PPAGE: return TK_PGUP;
	case KEY_NPAGE: return TK_PGDN;
	case KEY_HOME: return TK_HOME;
	case KEY_END: return TK_END;
	case KEY_DC: return TK_DEL;
	case KEY_BACKSPACE: return TK_BACKSPACE;
	case KEY_ENTER: return TK_ENTER;
	case KEY_RESIZE: return TK_RESIZE;
	}
	const char *kn = keyname((int)wc);   /* Alt-arrows have no fixed code */
	if (kn && !strcmp(kn, "kLFT3"))
		return TK_M_LEFT;
	if (kn && !strcmp(kn, "kRIT3"))
		return TK_M_RIGHT;
	return -1;
}

/* Enter on the command line: run it (an empty line repeats next/step...). */
static int ui_accept(struct tui *t)
{
	char *line = tui_le_take(&t->le);
	if (t->searching) {
		t->searching = false;
		t->focus = t->focus_before;
		char *cmd = xasprintf("tui search %s", line);
		free(line);
		tui_exec(t, cmd, false);
		free(cmd);
		return TUI_DRAW;
	}
	const char *s = str_skip_space(line);
	if (!*s && t->last_cmd) {
		free(line);
		line = xstrdup(t->last_cmd);
	} else {
		free(t->last_cmd);
		t->last_cmd = tui_le_repeatable(s) ? xstrdup(line) : NULL;
	}
	int rc = tui_exec(t, line, true);
	free(line);
	return rc == CMD_QUIT ? TUI_QUIT : TUI_DRAW;
}

static int ui_cmdline_key(struct tui *t, int key)
{
	struct sbuf list = {0};
	enum tui_le_result r = tui_le_key(&t->le, key, &list);
	int flags = TUI_DRAW;
	if (r == LE_ACCEPT)
		flags = ui_accept(t);
	else if (r == LE_EOF && !t->searching)
		flags = tui_exec(t, "quit", true) == CMD_QUIT ? TUI_QUIT : TUI_DRAW;
	else if (r == LE_CANCEL && t->searching) {
		t->searching = false;
		t->focus = t->focus_before;
	} else if (r == LE_LISTED)
		tui_say(t, list.s, TUI_EL_DEFAULT);
	else if (r == LE_UNHANDLED)
		flags = -1;
	sbuf_free(&list);
	return flags;
}

/* The bytes a key sends to the program's terminal. */
static void ui_key_to_program(struct tui *t, int key)
{
	static const struct { int key; const char *seq; } seqs[] = {
		{TK_ENTER, "\r"}, {TK_TAB, "\t"}, {TK_BACKSPACE, "\x7f"},
		{TK_UP, "\x1b[A"}, {TK_DOWN, "\x1b[B"}, {TK_RIGHT, "\x1b[C"},
		{TK_LEFT, "\x1b[D"}, {TK_ESC, "\x1b"},
	};
	for (size_t i = 0; i < sizeof seqs / sizeof *seqs; i++)
		if (seqs[i].key == key) {
			tui_pty_send(t, seqs[i].seq, strlen(seqs[i].seq));
			return;
		}
	if (key >= TK_BASE)
		return;
	char u[8];
	mbstate_t st = {0};
	size_t n = wcrtomb(u, (wchar_t)key, &st);
	if (n != (size_t)-1)
		tui_pty_send(t, u, n);
}

static int ui_help_key(struct tui *t, int key)
{
	if (key == TK_ESC || key == 'q' || key == '?' || key == TK_F1 || key == TK_ENTER)
		t->help = false;
	else if (key == 'j' || key == TK_DOWN)
		t->help_top++;
	else if (key == 'k' || key == TK_UP)
		t->help_top--;
	else if (key == TK_PGDN || key == ' ')
		t->help_top += t->rows / 2;
	else if (key == TK_PGUP)
		t->help_top -= t->rows / 2;
	return TUI_DRAW | (t->help ? 0 : TUI_FULL);
}

static int ui_run_binding(struct tui *t, const char *cmd)
{
	bool quiet = !strncmp(cmd, "tui ", 4) || !strncmp(cmd, "pane ", 5);
	return tui_exec(t, cmd, !quiet) == CMD_QUIT ? TUI_QUIT : TUI_DRAW;
}

static int ui_key(struct tui *t, int key)
{
	if (key == TK_RESIZE)
		return TUI_LAYOUT | TUI_DRAW;
	if (t->help)
		return ui_help_key(t, key);
	if (t->too_small)
		return key == 'q' ? TUI_QUIT : 0;
	struct tui_pane *p = &t->panes[t->focus];
	const char *cmd = tui_keymap_lookup(p->keymap, key);
	if (cmd && !(t->searching && key != TK_ESC))
		return ui_run_binding(t, cmd);
	if (t->focus == TP_CMD) {
		int f = ui_cmdline_key(t, key);
		if (f >= 0)
			return f;
	}
	if ((cmd = tui_keymap_lookup(TUI_KEYMAP_GENERIC, key)))
		return ui_run_binding(t, cmd);
	if (t->focus == TP_OUTPUT) {
		ui_key_to_program(t, key);
		return 0;
	}
	if (key >= ' ' && key < TK_BASE && key != 127) {
		t->focus = TP_CMD;   /* typed text goes to the command line */
		return ui_cmdline_key(t, key);
	}
	return p->ops->key ? p->ops->key(t, p, key) : 0;
}

/* ---- start, loop, end ---- */

static const struct tui_pane_ops *const pane_ops[TP_COUNT] = {
	[TP_SOURCE] = &tui_pane_source, [TP_CMD] = &tui_pane_cmd,
	[TP_OUTPUT] = &tui_pane_output, [TP_LOCALS] = &tui_pane_locals,
	[TP_STACK] = &tui_pane_stack, [TP_REGS] = &tui_pane_regs,
	[TP_BPS] = &tui_pane_bps, [TP_DISASM] = &tui_pane_disasm,
	[TP_DEPS] = &tui_pane_deps, [TP_CKPTS] = &tui_pane_ckpts, [TP_SLICES] = &tui_pane_slices,
};

static void ui_init_panes(struct tui *t)
{
	for (int i = 0; i < TP_COUNT; i++) {
		struct tui_pane *p = &t->panes[i];
		p->ops = pane_ops[i];
		p->keymap = tui_keymap_pane(p->ops->name);
		p->shown = !p->ops->side;
		if (p->ops->init)
			p->ops->init(t, p);
	}
	t->panes[TP_CMD].size = 8;
	t->panes[TP_OUTPUT].size = 5;
	t->side_w = 40;
	if (COLS >= 120)
		t->panes[TP_LOCALS].shown = t->panes[TP_STACK].shown = true;
	t->focus = TP_CMD;
}

static char *ui_rc_path(void)
{
	const char *x = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	if (x && *x)
		return xasprintf("%s/qzdb/qzdbrc", x);
	return home && *home ? xasprintf("%s/.config/qzdb/qzdbrc", home) : NULL;
}

/* ~/.config/qzdb/qzdbrc: commands (bind, color, theme, pane, any other),
 * errors reported with the file's name and line number. */
static void ui_read_rc(struct tui *t)
{
	char *path = ui_rc_path(), *line = NULL;
	size_t cap = 0;
	FILE *f = path ? fopen(path, "re") : NULL;
	if (f) {
		t->rc_path = path;
		t->rc_line = 0;
		while (getline(&line, &cap, f) > 0) {
			t->rc_line++;
			tui_exec(t, line, false);
		}
		t->rc_path = NULL;
		fclose(f);
	}
	free(line);
	free(path);
}

static void ui_start_theme(struct tui *t, const char *name)
{
	char err[512];
	bool mono = getenv("NO_COLOR") && *getenv("NO_COLOR");
	tui_theme_init(mono);
	if (mono && !name)
		name = "mono";
	if (tui_theme_load(name ? name : "default", err, sizeof err) < 0)
		tui_say(t, err, TUI_EL_ERROR);
	tui_theme_apply();
}

/* Curses on the terminal; false if terminfo does not know it. */
static bool ui_curses_start(void)
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

/* Read every key waiting; returns the flags of all of them. */
static int ui_read_keys(struct tui *t)
{
	int flags = 0, r;
	wint_t wc;
	while ((r = get_wch(&wc)) != ERR) {
		int key = ui_key_from_curses(r, wc);
		if (key >= 0)
			flags |= ui_key(t, key);
		if (flags & TUI_QUIT)
			break;
	}
	return flags;
}

static void ui_apply_flags(struct tui *t, int flags)
{
	flags |= t->want;
	t->want = 0;
	if (flags & TUI_LAYOUT)
		tui_layout(t);
	if (flags & TUI_FULL)
		clearok(curscr, TRUE);
	tui_draw(t);
}

static void ui_loop(struct tui *t)
{
	struct pollfd fds[2] = {{0, POLLIN, 0}, {t->master, POLLIN, 0}};
	for (;;) {
		int n = poll(fds, 2, -1);
		int flags = 0;
		/* SIGHUP (the terminal went away), SIGTERM, SIGPIPE (qz_signals):
		 * leave through the normal path, which restores the terminal. */
		if ((n < 0 && errno != EINTR) || proc_quit_pending())
			break;
		if (n > 0 && (fds[1].revents & POLLIN) && tui_pty_drain(t))
			flags |= TUI_DRAW;
		if (n < 0 || (fds[0].revents & (POLLIN | POLLHUP | POLLERR)))
			flags |= ui_read_keys(t);
		if ((fds[0].revents & (POLLHUP | POLLERR)) || (flags & TUI_QUIT))
			break;
		if (flags || t->want)
			ui_apply_flags(t, flags);
	}
}

/* -x FILE: its commands, the screen following each; true at quit. */
static bool ui_run_file(struct tui *t, const char *path)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	bool quit = false;
	if (!f) {
		char *e = xasprintf("%s: %s.", path, strerror(errno));
		tui_say(t, e, TUI_EL_ERROR);
		free(e);
		return false;
	}
	while (!quit && getline(&line, &cap, f) > 0) {
		quit = tui_exec(t, line, true) == CMD_QUIT;
		tui_draw(t);
	}
	free(line);
	fclose(f);
	return quit;
}

/* -ex and -x in order; true if one of them quit. */
static bool ui_run_opts(struct tui *t, const struct tui_opts *o)
{
	for (size_t i = 0; i < o->ncmds; i++) {
		bool quit = o->cmds[i][0] == '\1' ? ui_run_file(t, o->cmds[i] + 1)
			: tui_exec(t, o->cmds[i], true) == CMD_QUIT;
		tui_draw(t);
		if (quit)
			return true;
	}
	return false;
}

void tui_setup(struct tui *t, struct qz *q, const char *theme)
{
	memset(t, 0, sizeof *t);
	t->q = q;
	t->master = t->slave = -1;
	pthread_mutex_init(&t->lock, NULL);
	tui_le_init(&t->le, q);
	q->sink = (struct qz_sink){ui_sink, t};
	tui_uicmd_install(t);
	tui_keymap_init();
	ui_init_panes(t);
	ui_start_theme(t, theme);
}

void tui_teardown(struct tui *t)
{
	for (int i = 0; i < TP_COUNT; i++)
		if (t->panes[i].ops->fini)
			t->panes[i].ops->fini(&t->panes[i]);
	ui_free_windows(t);
	tui_lines_free(&t->help_text);
	tui_slicev_free(t);
	tui_le_free(&t->le);
	sbuf_free(&t->partial);
	free(t->last_cmd);
	tui_keymap_free();
	t->q->ui = NULL;
}

int tui_main(struct qz *q, struct tui_opts *o)
{
	struct tui t;
	struct qz_sink old = q->sink;
	if (!ui_curses_start())
		return -1;
	signal(SIGINT, SIG_IGN);
	tui_setup(&t, q, o->theme);
	if (tui_pty_open(&t) < 0)
		tui_say(&t, "cannot open a pseudo-terminal: the program shares qzdb's",
			TUI_EL_WARNING);
	tui_le_history_load(&t.le);
	tui_layout(&t);
	ui_read_rc(&t);
	if (o->replay)
		o->replay_rc = tui_replay(&t, o->replay, o->step);
	if (!ui_run_opts(&t, o)) {
		tui_refresh(&t);
		tui_layout(&t);
		tui_draw(&t);
		ui_loop(&t);
	}
	if (q->proc)   /* kills what qzdb started, detaches from an attached one */
		cmd_run(q, "quit");
	endwin();
	tui_teardown(&t);
	tui_pty_close(&t);
	q->sink = old;
	return 0;
}
