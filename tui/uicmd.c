/* uicmd: what `tui ACTION`, `pane`, `theme`, `bind` and `color` do in the
 * full-screen UI (core forwards them through q->ui). They change UI state
 * and ask the loop for a redraw or a relayout through t->want; they never
 * paint. */
#include "uicmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actions.h"
#include "cmd/cmd-ui.h"
#include "keymap.h"
#include "screen.h"
#include "target/session.h"
#include "theme.h"
#include "ui.h"

static struct tui *ui_tui;   /* one UI per process */

static int uicmd_tui(struct tui *t, const char *a)
{
	char name[32];
	size_t n = strcspn(a, " \t");
	snprintf(name, sizeof name, "%.*s", (int)n, a);
	if (!*name) {
		for (int i = 0; i < TUI_ACT_COUNT; i++)
			qz_printf(t->q, "tui %-14s %s\n", tui_action_name(i), tui_action_help(i));
		return 0;
	}
	int act = tui_action_lookup(name);
	if (act < 0)
		return qz_error(t->q, "Unknown UI action \"%s\".  Try \"help tui\".", name);
	t->want |= TUI_DRAW;
	return tui_action(t, act, str_skip_space(a + n));
}

/* "a, b or c": the names of the panes that where() accepts. */
static void uicmd_names(struct sbuf *b, bool (*where)(const struct tui_pane_def *),
			const char *last)
{
	for (int i = 0; i < TP_COUNT; i++)
		if (where(&tui_panes[i]))
			sbuf_printf(b, "%s%s", b->len ? ", " : "", tui_panes[i].name);
	if (last)
		sbuf_printf(b, " or %s", last);
}

static bool uicmd_bottom(const struct tui_pane_def *d)
{
	return d->where == TUI_BOTTOM;
}

static int uicmd_pane_size(struct tui *t, const char *name, const char *num)
{
	char *end;
	long n = strtol(num, &end, 10);
	struct tui_pane *p = tui_pane_named(t, name);
	if (!*num || *end || n < 2 || n > 200)
		return qz_error(t->q, "pane size: N must be a number from 2 to 200.");
	if (!strcmp(name, "side")) {
		t->side_w = (int)n;
	} else if (p && p->def->where == TUI_BOTTOM) {
		p->size = (int)n;
	} else {
		struct sbuf b = {0};
		uicmd_names(&b, uicmd_bottom, "side");
		qz_error(t->q, "pane size: %s, not \"%s\".", b.s, name);
		sbuf_free(&b);
		return -1;
	}
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
	struct tui_pane *p = tui_pane_named(t, name);
	if (!p || !tui_pane_is_side(p->def)) {
		struct sbuf b = {0};
		uicmd_names(&b, tui_pane_is_side, NULL);
		qz_error(t->q, "No side pane \"%s\" (%s).", name, b.s);
		sbuf_free(&b);
		return -1;
	}
	if (!strcmp(verb, "show") || !strcmp(verb, "hide") || !strcmp(verb, "toggle"))
		p->shown = verb[0] == 's' ? true : verb[0] == 'h' ? false : !p->shown;
	else
		return qz_error(t->q, "pane: show, hide, toggle or size, not \"%s\".", verb);
	if (!p->shown && t->focus == p->id)
		t->focus = TP_SOURCE;
	if (p->shown)
		tui_dock_show(t, p->id);
	t->want |= TUI_LAYOUT | TUI_DRAW;
	return 0;
}

static int uicmd_bind(struct tui *t, const char *a)
{
	char pane[32], key[32], err[256];
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
