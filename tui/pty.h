/* pty: the program's pseudo-terminal. The program runs on its slave
 * side; what it writes goes into the output pane, what is typed to it
 * goes to the master. */
#ifndef TUI_PTY_H
#define TUI_PTY_H

#include <stdbool.h>
#include <stddef.h>

struct tui;

/* Open it and name it as the program's terminal (q->tty_path); -1 if
 * there is none to be had. */
int tui_pty_open(struct tui *t);
void tui_pty_close(struct tui *t);
/* The terminal size the program sees. */
/* Apply a size tui_pty_resize left pending (the program now runs). */
void tui_pty_apply(struct tui *t);
void tui_pty_resize(struct tui *t, int rows, int cols);
/* Move what the program wrote into the output pane; true if any came. */
bool tui_pty_drain(struct tui *t);
/* Bytes typed to the program (dropped if it does not read them). */
void tui_pty_send(struct tui *t, const char *s, size_t n);

#endif
