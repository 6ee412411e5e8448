/* runner: the program's pty and the thread that serves the screen while
 * the engine blocks (see runner.c). */
#ifndef TUI_RUNNER_H
#define TUI_RUNNER_H

#include <stdbool.h>
#include <stddef.h>

struct tui;
struct runner;

int tui_pty_open(struct tui *t);
void tui_pty_close(struct tui *t);
void tui_pty_resize(struct tui *t, int rows, int cols);
bool tui_pty_drain(struct tui *t);
void tui_pty_send(struct tui *t, const char *s, size_t n);

struct runner *tui_runner_start(struct tui *t);
void tui_runner_stop(struct runner *r);

#endif
