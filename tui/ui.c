/* ui: the UI's panes as the loop holds them (see ui.h): set up from the
 * table, the view each call into a pane gets, text fed to them. */
#include "ui.h"

#include <stdlib.h>
#include <string.h>

#include "cmd/cmd-ui.h"
#include "keymap.h"
#include "tui.h"
#include "pane-source.h"

bool tui_source_cursor(struct tui *t, const char **file, int *line)
{
	return tui_source_place(&t->panes[TP_SOURCE], file, line);
}

void tui_show_place(struct tui *t, const char *file, int line)
{
	struct tui_view v = tui_view(t);
	tui_source_show(&t->panes[TP_SOURCE], &v, file, line);
}

struct tui_view tui_view(struct tui *t)
{
	struct tui_view v = {t->q, t->focus, t->searching, t->search_back, &t->sv, NULL, 0,
			     t->focus == TP_SOURCE || t->focus == TP_DEPS};
	if (t->panes[TP_SOURCE].st)
		tui_source_cursor(t, &v.file, &v.line);
	return v;
}

struct tui_pane *tui_pane_named(struct tui *t, const char *name)
{
	for (int i = 0; i < TP_COUNT; i++)
		if (!strcmp(tui_panes[i].name, name))
			return &t->panes[i];
	return NULL;
}

/* The default key bindings, for the panes the table names. */
static void ui_keymap_init(void)
{
	const char *names[TP_COUNT];
	bool side[TP_COUNT];
	for (int i = 0; i < TP_COUNT; i++) {
		names[i] = tui_panes[i].name;
		side[i] = tui_pane_is_side(&tui_panes[i]);
	}
	tui_keymap_init(names, side, TP_COUNT);
}

/* help keys, in any mode: the live keymap, the defaults before the UI. */
static void ui_help_keys(struct sbuf *b)
{
	if (!tui_keymap_ready())
		ui_keymap_init();
	tui_keymap_help(b);
}

void tui_help_keys_install(void)
{
	cmd_ui_help_keys = ui_help_keys;
}

void tui_panes_init(struct tui *t, int cols)
{
	ui_keymap_init();
	for (int i = 0; i < TP_COUNT; i++) {
		struct tui_pane *p = &t->panes[i];
		struct tui_view v = tui_view(t);
		*p = (struct tui_pane){.def = &tui_panes[i], .id = i, .size = tui_panes[i].size};
		p->keymap = tui_keymap_pane(p->def->name);
		p->shown = !tui_pane_is_side(p->def) ||
			   (p->def->where == TUI_SIDE_WIDE && cols >= 120);
		if (p->def->ops->init)
			p->def->ops->init(p, &v);
	}
}

void tui_panes_fini(struct tui *t)
{
	for (int i = 0; i < TP_COUNT; i++) {
		struct tui_pane *p = &t->panes[i];
		if (p->def && p->def->ops->fini && p->st)
			p->def->ops->fini(p);
		p->st = NULL;
	}
}

void tui_feed(struct tui *t, int pane, const char *s, size_t n, int elem)
{
	struct tui_pane *p = &t->panes[pane];
	p->def->ops->feed(p, s, n, elem);
}

void tui_say(struct tui *t, const char *text, int elem)
{
	tui_feed(t, TP_CMD, text, strlen(text), elem);
}
