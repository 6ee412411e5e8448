/* exec: running command lines from the UI (see exec.h). */
#include "exec.h"

#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "pty.h"
#include "runner.h"
#include "screen.h"
#include "status.h"
#include "target/session.h"
#include "theme.h"
#include "ui.h"

/* The engine's output: whole lines to the command pane (errors and
 * warnings in their colours, named after the rc file line being read),
 * or into t->capture while a pane's command runs. */
static void exec_sink(void *arg, enum qz_out_kind kind, const char *text)
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

void tui_exec_init(struct tui *t)
{
	t->q->sink = (struct qz_sink){exec_sink, t};
}

static void exec_flush_partial(struct tui *t)
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
	cmd_run_view(t->q, cmd);   /* the pane's, not the user's: not in the session file */
	t->capture = old;
}

/* What a pane shows: its table commands' outputs ("info args;info
 * locals"), each after a heading line named after the command's last word
 * when there are several (pane-info.c draws TUI_HEADING lines apart). */
static void exec_shows(struct tui *t, const char *shows, struct sbuf *out)
{
	bool several = strchr(shows, ';') != NULL;
	while (*shows) {
		size_t n = strcspn(shows, ";");
		char *cmd = xstrndup(shows, n);
		const char *word = strrchr(cmd, ' ');
		if (several)
			sbuf_printf(out, "%s%s\n", TUI_HEADING, word ? word + 1 : cmd);
		tui_capture(t, cmd, out);
		free(cmd);
		shows += n + (shows[n] == ';');
	}
}

/* A pane reads what it shows: its table commands' output, or the engine. */
static void exec_update(struct tui *t, struct tui_pane *p)
{
	struct sbuf out = {0};
	if (p->def->shows)
		exec_shows(t, p->def->shows, &out);
	struct tui_view v = tui_view(t);
	p->def->ops->update(p, &v, out.s ? out.s : "");
	sbuf_free(&out);
}

void tui_refresh(struct tui *t)
{
	exec_flush_partial(t);
	if (tui_slicev_update(&t->sv)) {   /* a new slice: show its edges */
		t->panes[TP_DEPS].shown = true;
		tui_dock_show(t, TP_DEPS);
	}
	for (int i = 0; i < TP_COUNT; i++)
		if (tui_panes[i].ops->update && (t->panes[i].shown || !tui_pane_is_side(&tui_panes[i])))
			exec_update(t, &t->panes[i]);
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
	t->ncmds++;
	if (t->want & TUI_LAYOUT) {   /* the runner draws with the new sizes */
		tui_layout(t);
		t->want &= ~TUI_LAYOUT;
	}
	if (!t->q->proc)   /* a program started now gets the size */
		tui_pty_apply(t);
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
