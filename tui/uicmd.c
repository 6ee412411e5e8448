/* uicmd: what `tui ACTION`, `pane`, `theme`, `bind` and `color` do in the
 * full-screen UI. They change UI state and ask the loop for a redraw or a
 * relayout through t->want; they never paint. */
#include "uicmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "keymap.h"
#include "target/session.h"
#include "theme.h"
#include "ui.h"
#include "cmd/cmd-ui.h"
#include "slicev.h"

static struct tui *ui_tui;   /* one UI per process */

static int uicmd_run_continue(struct tui *t)
{
	return tui_echo_run(t, t->q->proc ? "continue" : "run");
}

/* The breakpoint with a location at file:line, or NULL. */
static struct bp *uicmd_bp_at(struct qz *q, const char *file, int line)
{
	for (size_t i = 0; i < q->bps.n; i++)
		for (size_t j = 0; j < q->bps.bps[i].nlocs; j++) {
			const struct bp_loc *l = &q->bps.bps[i].locs[j];
			if (l->file && l->line == line && !strcmp(l->file, file))
				return &q->bps.bps[i];
		}
	return NULL;
}

static int uicmd_toggle_break(struct tui *t)
{
	const char *file;
	int line;
	if (!tui_source_cursor(t, &file, &line))
		return qz_error(t->q, "No source line under the cursor.");
	struct bp *b = uicmd_bp_at(t->q, file, line);
	char *cmd = b ? xasprintf("delete %d", b->num) : xasprintf("break %s:%d", file, line);
	int r = tui_echo_run(t, cmd);
	free(cmd);
	return r;
}

static int uicmd_help(struct tui *t)
{
	struct sbuf b = {0};
	tui_keymap_help(&b);
	tui_lines_clear(&t->help_text);
	tui_lines_split(&t->help_text, b.s, TUI_EL_HELP);
	sbuf_free(&b);
	t->help = true;
	t->help_top = 0;
	return 0;
}

static int uicmd_focus(struct tui *t, int pane)
{
	t->focus = pane;
	t->searching = false;
	return 0;
}

/* Navigation goes to the focused pane if it knows it, else the source. */
static int uicmd_navigate(struct tui *t, int act, const char *arg)
{
	struct tui_pane *p = &t->panes[t->focus];
	if (act < TUI_ACT_SEARCH_PROMPT && p->ops->action && p != &t->panes[TP_SOURCE]) {
		int r = p->ops->action(t, p, act, arg);
		if (r != TUI_NOT_MINE)
			return r;
	}
	p = &t->panes[TP_SOURCE];
	return p->ops->action(t, p, act, arg);
}

/* Source, then each shown side pane in turn. */
static int uicmd_focus_next(struct tui *t)
{
	for (int i = 1; i <= TP_COUNT; i++) {
		int p = (t->focus + i) % TP_COUNT;
		if (p == TP_SOURCE || (t->panes[p].ops->side && t->panes[p].shown))
			return uicmd_focus(t, p);
	}
	return 0;
}

static int uicmd_tui(struct tui *t, const char *a)
{
	char name[32];
	size_t n = strcspn(a, " \t");
	snprintf(name, sizeof name, "%.*s", (int)n, a);
	const char *arg = str_skip_space(a + n);
	if (!*name) {
		for (int i = 0; i < TUI_ACT_COUNT; i++)
			qz_printf(t->q, "tui %-14s %s\n", tui_action_name(i), tui_action_help(i));
		return 0;
	}
	int act = tui_action_lookup(name);
	if (act < 0)
		return qz_error(t->q, "Unknown UI action \"%s\".  Try \"help tui\".", name);
	t->want |= TUI_DRAW;
	switch (act) {
	case TUI_ACT_RUN_CONTINUE: return uicmd_run_continue(t);
	case TUI_ACT_TOGGLE_BREAK: return uicmd_toggle_break(t);
	case TUI_ACT_FOCUS_SOURCE: return uicmd_focus(t, TP_SOURCE);
	case TUI_ACT_FOCUS_CMD: return uicmd_focus(t, TP_CMD);
	case TUI_ACT_FOCUS_OUTPUT: return uicmd_focus(t, TP_OUTPUT);
	case TUI_ACT_FOCUS_NEXT: return uicmd_focus_next(t);
	case TUI_ACT_REDRAW: t->want |= TUI_FULL | TUI_LAYOUT; return 0;
	case TUI_ACT_HELP: return uicmd_help(t);
	case TUI_ACT_SEARCH_PROMPT:
		t->focus_before = t->focus == TP_CMD ? TP_SOURCE : t->focus;
		t->focus = TP_CMD;
		t->searching = true;
		tui_le_set(&t->le, "");
		return 0;
	}
	int r = tui_slicev_action(t, act, arg);
	return r != TUI_NOT_MINE ? r : uicmd_navigate(t, act, arg);
}

static int uicmd_pane_size(struct tui *t, const char *name, const char *num)
{
	char *end;
	long n = strtol(num, &end, 10);
	if (!*num || *end || n < 2 || n > 200)
		return qz_error(t->q, "pane size: N must be a number from 2 to 200.");
	if (!strcmp(name, "side"))
		t->side_w = (int)n;
	else if (!strcmp(name, "cmd"))
		t->panes[TP_CMD].size = (int)n;
	else if (!strcmp(name, "output"))
		t->panes[TP_OUTPUT].size = (int)n;
	else
		return qz_error(t->q, "pane size: cmd, output or side, not \"%s\".", name);
	t->want |= TUI_LAYOUT | TUI_DRAW;
	return 0;
}

static int uicmd_pane(struct tui *t, const char *a)
{
	char verb[16], name[16], num[16] = "";
	if (sscanf(a, "%15s %15s %15s", verb, name, num) < 2)
		return qz_error(t->q, "usage: pane show|hide|toggle|size NAME [N]");
	if (!strcmp(verb, "size"))
		return uicmd_pane_size(t, name, num);
	struct tui_pane *p = NULL;
	for (int i = 0; i < TP_COUNT; i++)
		if (!strcmp(t->panes[i].ops->name, name))
			p = &t->panes[i];
	if (!p || !p->ops->side)
		return qz_error(t->q, "No side pane \"%s\" (locals, stack, regs, bps, disasm, deps, "
				"ckpts, slices).", name);
	if (!strcmp(verb, "show") || !strcmp(verb, "hide") || !strcmp(verb, "toggle"))
		p->shown = verb[0] == 's' ? true : verb[0] == 'h' ? false : !p->shown;
	else
		return qz_error(t->q, "pane: show, hide, toggle or size, not \"%s\".", verb);
	if (!p->shown && t->focus == p - t->panes)
		t->focus = TP_SOURCE;
	t->want |= TUI_LAYOUT | TUI_DRAW;
	return 0;
}

static int uicmd_bind(struct tui *t, const char *a)
{
	char pane[32], key[32], err[160];
	int used = 0;
	if (sscanf(a, "%31s %31s %n", pane, key, &used) < 2 || !used)
		return qz_error(t->q, "usage: bind PANE KEY COMMAND");
	char *cmd = str_trim(a + used);
	int r = tui_keymap_bind(pane, key, cmd, err, sizeof err);
	free(cmd);
	return r < 0 ? qz_error(t->q, "bind: %s.", err) : 0;
}

static int uicmd_run(struct qz *q, const char *name, const char *a)
{
	struct tui *t = ui_tui;
	char err[512];
	if (!strcmp(name, "tui"))
		return uicmd_tui(t, a);
	if (!strcmp(name, "pane"))
		return uicmd_pane(t, a);
	if (!strcmp(name, "bind"))
		return uicmd_bind(t, a);
	t->want |= TUI_DRAW | TUI_FULL;
	if (!strcmp(name, "theme")) {
		if (!*a)
			return qz_printf(q, "Theme: %s (themes in %s)\n", tui_theme_name(),
					 tui_theme_dir()), 0;
		return tui_theme_load(a, err, sizeof err) < 0 ? qz_error(q, "%s.", err) : 0;
	}
	return tui_theme_color(a, err, sizeof err) < 0 ? qz_error(q, "color: %s.", err) : 0;
}

static const struct qz_ui uicmd_ops = {uicmd_run};

void tui_uicmd_install(struct tui *t)
{
	ui_tui = t;
	t->q->ui = &uicmd_ops;
}
