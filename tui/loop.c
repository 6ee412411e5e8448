/* loop: the full-screen UI's event loop. One poll() over the terminal and
 * the program's pty; each turn reads the keys, gives each to the focused
 * pane's bindings, the pane itself, then the generic bindings (a binding
 * always runs through cmd_run, exec.c), carries out what the panes ask
 * for, and draws once (screen.c). Panes never call back into it. */
#define _XOPEN_SOURCE_EXTENDED 1
#define _GNU_SOURCE
#include "loop.h"

#include <curses.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "actions.h"
#include "cmd/cmd.h"
#include "cmd/qzs.h"
#include "exec.h"
#include "keymap.h"
#include "lineedit.h"
#include "pty.h"
#include "replay.h"
#include "screen.h"
#include "status.h"
#include "target/session.h"
#include "theme.h"
#include "tui.h"
#include "ui.h"
#include "uicmd.h"

/* ---- keys ---- */

static int loop_key_from_curses(int r, wint_t wc)
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

/* Enter on the command line: run it (an empty line repeats next/step...),
 * or search the source for it. */
static int loop_accept(struct tui *t, const char *line)
{
	if (t->searching) {
		t->searching = false;
		t->focus = t->focus_before;
		char *cmd = xasprintf("tui search%s %s", t->search_back ? "-back" : "", line);
		tui_exec(t, cmd, false);
		free(cmd);
		return TUI_DRAW;
	}
	const char *s = str_skip_space(line);
	if (*s >= '0' && *s <= '9' && !s[strspn(s, "0123456789 ")]) {   /* :N as in vi */
		char *cmd = xasprintf("tui goto %s", s);
		tui_exec(t, cmd, false);
		free(cmd);
		t->focus = TP_SOURCE;
		return TUI_DRAW;
	}
	if (!*s && t->walking)   /* Enter goes on with a walkthrough */
		return tui_exec(t, "tui walk-next", false) == CMD_QUIT ? TUI_QUIT : TUI_DRAW;
	if (!*s && t->last_cmd) {
		line = t->last_cmd;
	} else {
		free(t->last_cmd);
		t->last_cmd = tui_le_repeatable(s) ? xstrdup(line) : NULL;
	}
	return tui_exec(t, line, true) == CMD_QUIT ? TUI_QUIT : TUI_DRAW;
}

/* What a pane asked for with a key; flags. */
static int loop_req(struct tui *t, const struct tui_req *req, int flags)
{
	switch (req->kind) {
	case TUI_REQ_ACCEPT:
		return loop_accept(t, req->text);
	case TUI_REQ_EOF:
		if (!t->searching)
			return tui_exec(t, "quit", true) == CMD_QUIT ? TUI_QUIT : TUI_DRAW;
		break;
	case TUI_REQ_CANCEL:
		if (t->searching) {
			t->searching = false;
			t->focus = t->focus_before;
		}
		break;
	case TUI_REQ_SEND:
		tui_pty_send(t, req->text, req->len);
		break;
	default:
		break;
	}
	return flags;
}

/* A key for the pane itself; flags, or TUI_NOT_MINE. */
static int loop_pane_key(struct tui *t, struct tui_pane *p, int key)
{
	struct tui_req req = {0};
	if (!p->def->ops->key)
		return TUI_NOT_MINE;
	struct tui_view v = tui_view(t);
	int flags = p->def->ops->key(p, &v, key, &req);
	if (flags != TUI_NOT_MINE)
		flags = loop_req(t, &req, flags);
	free(req.text);
	return flags;
}

static int loop_help_key(struct tui *t, int key)
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

static int loop_binding(struct tui *t, const char *cmd)
{
	bool quiet = !strncmp(cmd, "tui ", 4) || !strncmp(cmd, "pane ", 5);
	return tui_exec(t, cmd, !quiet) == CMD_QUIT ? TUI_QUIT : TUI_DRAW;
}

/* The command a key runs: the focused pane's binding, else the generic. */
static const char *loop_lookup(struct tui *t, int key)
{
	const char *cmd = tui_keymap_lookup(t->panes[t->focus].keymap, key);
	return cmd ? cmd : tui_keymap_lookup(TUI_KEYMAP_GENERIC, key);
}

/* ---- normal mode's letters ----
 * A plain lower-case letter is a view key (j k g n) or starts the command
 * line. A view key is held until the next key: if the letters typed in a
 * row begin a command name ("next", "kill"), they become the command line
 * and the view goes back to where it was; else (or when no key follows
 * in this read) the view key acts. So typing a command never triggers a
 * key, and no letter changes the program (keymap.c). */

static bool loop_normal(const struct tui *t)
{
	return t->focus != TP_CMD && t->focus != TP_OUTPUT && !t->searching;
}

/* Does w begin the name or an alias of a top-level command? */
static bool loop_begins_command(const char *w)
{
	size_t n = strlen(w);
	const struct cmd_def *d;
	for (size_t i = 0; (d = cmd_at(i)); i++) {
		if (!strchr(d->name, ' ') && !strncmp(d->name, w, n))
			return true;
		for (const char *a = d->aliases; a && *(a = str_skip_space(a));) {
			size_t l = strcspn(a, " ");
			if (l >= n && !strncmp(a, w, n))
				return true;
			a += l;
		}
	}
	return false;
}

static void loop_typed_reset(struct tui *t)
{
	t->ntyped = 0;
	t->typed_key = 0;
	t->typed_acted = false;
	free(t->typed_file);
	t->typed_file = NULL;
}

/* The view key held back acts now. */
static int loop_typed_flush(struct tui *t)
{
	int key = t->typed_key;
	const char *cmd = key ? loop_lookup(t, key) : NULL;
	t->typed_key = 0;
	if (!cmd)
		return 0;
	t->typed_acted = true;
	return loop_binding(t, cmd);
}

/* The letters were a command being typed: the command line gets them. */
static int loop_typed_to_cmd(struct tui *t)
{
	if (t->typed_acted && t->typed_file)
		tui_show_place(t, t->typed_file, t->typed_line);
	t->focus = TP_CMD;
	for (int i = 0; i < t->ntyped; i++)
		loop_pane_key(t, &t->panes[TP_CMD], (unsigned char)t->typed[i]);
	loop_typed_reset(t);
	return TUI_DRAW;
}

static int loop_letter(struct tui *t, int key)
{
	int flags = 0;
	if (t->ntyped + 2 > (int)sizeof t->typed)
		t->ntyped = 0;
	t->typed[t->ntyped++] = (char)key;
	t->typed[t->ntyped] = 0;
	if (t->ntyped >= 2 && loop_begins_command(t->typed))
		return loop_typed_to_cmd(t);
	if (t->ntyped >= 2) {   /* not a command: the held key acts */
		flags = loop_typed_flush(t);
		loop_typed_reset(t);
		t->typed[0] = (char)key, t->typed[1] = 0, t->ntyped = 1;
	}
	if (!loop_lookup(t, key))
		return flags | loop_typed_to_cmd(t);
	const char *file;
	if (tui_source_cursor(t, &file, &t->typed_line)) {
		free(t->typed_file);
		t->typed_file = xstrdup(file);
	}
	t->typed_key = key;
	return flags;
}

/* The focused pane's bindings, the pane, the generic bindings; typed
 * text goes to the command line. */
static int loop_key(struct tui *t, int key)
{
	if (key == TK_RESIZE)
		return TUI_LAYOUT | TUI_DRAW;
	if (t->help)
		return loop_help_key(t, key);
	if (t->too_small)
		return key == 'q' ? TUI_QUIT : 0;
	/* a walkthrough's keys: everywhere, but a printable one (Space) and
	 * Backspace only in normal mode, where they type nothing */
	bool typing = (key >= ' ' && key < TK_BASE) || key == TK_BACKSPACE;
	const char *walk = t->walking && (loop_normal(t) || !typing) ?
		tui_keymap_lookup(tui_keymap_pane("walk"), key) : NULL;
	if (walk)
		return loop_binding(t, walk);
	if (key >= 'a' && key <= 'z' && loop_normal(t))
		return loop_letter(t, key);
	int flags = loop_typed_flush(t);
	loop_typed_reset(t);
	if (flags & TUI_QUIT)
		return flags;
	struct tui_pane *p = &t->panes[t->focus];
	const char *cmd = tui_keymap_lookup(p->keymap, key);
	if (cmd && !(t->searching && key != TK_ESC))
		return flags | loop_binding(t, cmd);
	int f = loop_pane_key(t, p, key);
	if (f != TUI_NOT_MINE)
		return flags | f;
	if ((cmd = tui_keymap_lookup(TUI_KEYMAP_GENERIC, key)))
		return flags | loop_binding(t, cmd);
	if (key >= ' ' && key < TK_BASE && key != 127) {
		t->focus = TP_CMD;
		f = loop_pane_key(t, &t->panes[TP_CMD], key);
	}
	return flags | (f == TUI_NOT_MINE ? 0 : f);
}

/* Read every key waiting; returns the flags of all of them. A view key
 * held back acts when no more keys wait. */
static int loop_read_keys(struct tui *t)
{
	int flags = 0, r;
	wint_t wc;
	while ((r = get_wch(&wc)) != ERR) {
		int key = loop_key_from_curses(r, wc), focus = t->focus;
		if (key >= 0)
			flags |= loop_key(t, key);
		if (t->focus != focus)   /* a region's pane grows while it has the keys */
			flags |= TUI_LAYOUT;
		if (flags & TUI_QUIT)
			return flags;
	}
	return flags | loop_typed_flush(t);
}

/* ---- the loop ---- */

static void loop_apply_flags(struct tui *t, int flags)
{
	flags |= t->want;
	t->want = 0;
	if (flags & TUI_LAYOUT)
		tui_layout(t);
	if (flags & TUI_FULL)
		clearok(curscr, TRUE);
	tui_draw(t);
}

/* Until quit, or until(t) says so after a turn (a walkthrough's wait). */
static void loop_run(struct tui *t, bool (*until)(struct tui *t))
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
			flags |= loop_read_keys(t);
		if ((fds[0].revents & (POLLHUP | POLLERR)) || (flags & TUI_QUIT))
			break;
		if (flags || t->want)
			loop_apply_flags(t, flags);
		if (until && until(t))
			return;
	}
	t->quit = true;
}

/* A walkthrough's wait ends with its key, or once the task is done
 * after one of the student's commands. */
static bool loop_walk_done(struct tui *t)
{
	if (t->walk_key)
		return true;
	if (!t->walk_task || t->walk_seen == t->ncmds)
		return false;
	t->walk_seen = t->ncmds;
	if (qzs_task_met(t->q, t->walk_task->expects, t->walk_task->nexpects, NULL))
		t->walk_key = ' ';
	return t->walk_key != 0;
}

/* The UI while a walkthrough waits (replay.c): ' ', 'b' or 'q'. */
static int loop_walk(struct tui *t, const struct qzs_task *task)
{
	t->walking = true;
	t->walk_key = 0;
	t->walk_task = task;
	t->walk_seen = t->ncmds;
	if (t->focus == TP_CMD)   /* Space goes on, typing starts a command */
		t->focus = TP_SOURCE;
	loop_apply_flags(t, TUI_DRAW);
	loop_run(t, loop_walk_done);
	t->walking = false;
	t->walk_task = NULL;
	return t->quit ? 'q' : t->walk_key;
}

/* ---- start and end ---- */

static char *loop_rc_path(void)
{
	const char *x = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	if (x && *x)
		return xasprintf("%s/qzdb/qzdbrc", x);
	return home && *home ? xasprintf("%s/.config/qzdb/qzdbrc", home) : NULL;
}

/* ~/.config/qzdb/qzdbrc: commands (bind, color, theme, pane, any other),
 * errors reported with the file's name and line number. */
static void loop_read_rc(struct tui *t)
{
	char *path = loop_rc_path(), *line = NULL;
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

static void loop_start_theme(struct tui *t, const char *name)
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

/* -x FILE: its commands, the screen following each; true at quit. */
static bool loop_run_file(struct tui *t, const char *path)
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
static bool loop_run_opts(struct tui *t, const struct tui_opts *o)
{
	for (size_t i = 0; i < o->ncmds; i++) {
		bool quit = o->cmds[i][0] == '\1' ? loop_run_file(t, o->cmds[i] + 1)
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
	t->sv.q = q;
	t->master = t->slave = -1;
	t->side_w = 40;
	t->focus = TP_CMD;
	pthread_mutex_init(&t->lock, NULL);
	tui_exec_init(t);
	tui_status_progress_install(t);
	tui_uicmd_install(t);
	tui_panes_init(t, COLS);
	loop_start_theme(t, theme);
}

void tui_teardown(struct tui *t)
{
	tui_panes_fini(t);
	tui_screen_free(t);
	tui_lines_free(&t->help_text);
	tui_actions_free(t);
	sbuf_free(&t->partial);
	free(t->last_cmd);
	free(t->typed_file);
	tui_keymap_free();
	t->q->ui = NULL;
}

int tui_main(struct qz *q, struct tui_opts *o)
{
	struct tui t;
	struct qz_sink old = q->sink;
	if (!tui_screen_start())
		return -1;
	signal(SIGINT, SIG_IGN);
	tui_setup(&t, q, o->theme);
	if (tui_pty_open(&t) < 0)
		tui_say(&t, "cannot open a pseudo-terminal: the program shares qzdb's",
			TUI_EL_WARNING);
	tui_layout(&t);
	tui_say(&t, "F1 help \u00b7 : command \u00b7 q quit", TUI_EL_HEADING);
	loop_read_rc(&t);
	if (o->replay)
		o->replay_rc = tui_replay(&t, o->replay, o->step ? loop_walk : NULL);
	if (!t.quit && !loop_run_opts(&t, o)) {
		tui_refresh(&t);
		tui_layout(&t);
		tui_draw(&t);
		loop_run(&t, NULL);
	}
	if (q->proc)   /* kills what qzdb started, detaches from an attached one */
		cmd_run(q, "quit");
	endwin();
	tui_teardown(&t);
	tui_pty_close(&t);
	q->sink = old;
	return 0;
}
