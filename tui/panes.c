/* panes: the pane table (see panes.h). */
#include "panes.h"

const struct tui_pane_def tui_panes[TP_COUNT] = {
#define TUI_PANE_DEF(id, name, ops, where, rows, title, shows) \
	[TP_##id] = {name, &ops, where, rows, title, shows},
	TUI_PANES(TUI_PANE_DEF)
#undef TUI_PANE_DEF
};
