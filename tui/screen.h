/* screen: the terminal the UI owns: curses started on it, the panes laid
 * out from the table, and one drawing of every pane, the status line and
 * the help screen per turn (wnoutrefresh each, then one doupdate, so only
 * the cells that changed reach the terminal). */
#ifndef TUI_SCREEN_H
#define TUI_SCREEN_H

#include <stdbool.h>

struct tui;

/* Curses on the terminal; false if terminfo does not know it. */
bool tui_screen_start(void);
/* Size the panes to the terminal. */
void tui_layout(struct tui *t);
/* Show pane in the bottom region when it toggles (it is docked there). */
void tui_dock_show(struct tui *t, int pane);
/* The region's next pane; false when it shows them all (or none). */
bool tui_dock_cycle(struct tui *t);
/* Draw what changed (with t->lock held while a command is running). */
void tui_draw(struct tui *t);
/* Forget the panes' windows (before endwin). */
void tui_screen_free(struct tui *t);

#endif
