/* runner: the thread that serves the screen and the program's terminal
 * while the engine blocks in a command (see runner.c). */
#ifndef TUI_RUNNER_H
#define TUI_RUNNER_H

struct tui;
struct runner;

struct runner *tui_runner_start(struct tui *t);
void tui_runner_stop(struct runner *r);

#endif
