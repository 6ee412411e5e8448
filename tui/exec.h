/* exec: command lines run from the UI. Every key binding, typed line, rc
 * line and pane request goes through cmd_run here; the engine's output
 * comes back through the sink into the command pane, and after each
 * command the panes read the engine again. */
#ifndef TUI_EXEC_H
#define TUI_EXEC_H

#include <stdbool.h>

struct tui;
struct sbuf;

/* Take the engine's output (q->sink) for t. */
void tui_exec_init(struct tui *t);
/* Run a command line as typed (echoed to the command pane if echo);
 * cmd_run's result. */
int tui_exec(struct tui *t, const char *line, bool echo);
/* Show "(qzdb) CMD" in the command pane as if typed. */
void tui_echo(struct tui *t, const char *cmd);
/* A command from inside a running command (an action's): echoed, then
 * run; 0 or -1. */
int tui_echo_run(struct tui *t, const char *cmd);
/* Run cmd with its output collected into out instead of shown. */
void tui_capture(struct tui *t, const char *cmd, struct sbuf *out);
/* After a command: the panes and the status line read the engine again. */
void tui_refresh(struct tui *t);

#endif
