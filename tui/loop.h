/* loop: the UI's one event loop (see loop.c), and the UI set up on a
 * session and torn down again (tui_main does both; the bench too). */
#ifndef TUI_LOOP_H
#define TUI_LOOP_H

struct tui;
struct qz;

/* Set up the UI state on a session (curses running); undo it. */
void tui_setup(struct tui *t, struct qz *q, const char *theme);
void tui_teardown(struct tui *t);

#endif
