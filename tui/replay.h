/* replay: `qzdb --replay FILE [--step]` on a terminal, shown live in the
 * full-screen UI: each command and its output in the command pane, the
 * source pane following the stops, the file's comments as a caption in
 * the status line. With --step it is a walkthrough: before each command
 * the UI runs as usual for any command that changes nothing, until the
 * walkthrough's key (Space, Enter on an empty line: run it; Backspace:
 * back by a checkpoint; C-x: stop); at a task the student may run what a
 * replay allows until its expectations hold. */
#ifndef TUI_REPLAY_H
#define TUI_REPLAY_H

#include <stdbool.h>

struct tui;
struct qzs_file;

struct qzs_task;

/* The UI while a walkthrough waits (the loop's): ' ' go on, 'b' back,
 * 'q' stop; task: the one the student works on, or NULL. */
typedef int tui_walk_fn(struct tui *t, const struct qzs_task *task);

/* Replay f in the UI, a walkthrough when walk is given; 0 when all went
 * through, 1 at a refused command. */
int tui_replay(struct tui *t, const struct qzs_file *f, tui_walk_fn *walk);

#endif
