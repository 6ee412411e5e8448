/* replay: `qzdb --replay FILE [--step]` on a terminal, shown live in the
 * full-screen UI: each command and its output in the command pane, the
 * source pane following the stops, the file's comments as a caption in
 * the status line; with --step a key before each command (space or
 * Enter: run it, b: back by a checkpoint, q: stop the replay). */
#ifndef TUI_REPLAY_H
#define TUI_REPLAY_H

#include <stdbool.h>

struct tui;
struct qzs_file;

/* Replay f in the UI; 0 when all went through, 1 at a refused command. */
int tui_replay(struct tui *t, const struct qzs_file *f, bool step);

#endif
