/* actions: what each UI action (keymap.h) does when `tui ACTION [ARG]`
 * runs it: one handler per action in one table. They change the UI's
 * state, call the panes through their ops and carry out what the panes
 * ask for; what changes the program goes through a command line, echoed
 * as if typed, so every key is also a command. */
#ifndef TUI_ACTIONS_H
#define TUI_ACTIONS_H

struct tui;

/* Run action act with its argument; 0 or -1 (said through qz_error). */
int tui_action(struct tui *t, int act, const char *arg);
/* Forget the back/forward history. */
void tui_actions_free(struct tui *t);

#endif
