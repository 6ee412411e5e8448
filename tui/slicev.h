/* slicev: the UI's view of slicing and of the Qzdb commands run from the
 * source cursor: which slice is current, which lines of a file are its
 * members, the statement of an instance, the back/forward history of the
 * places edges were followed to, and the actions (switch-line,
 * slice-line, follow-edge, ...) that `tui ACTION` runs. */
#ifndef TUI_SLICEV_H
#define TUI_SLICEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tui;
struct slice;

/* The current slice, or NULL (none, or it was deleted). */
const struct slice *tui_slice_current(struct tui *t);
/* counts[1..n]: member instances of the current slice on each line of
 * file (saturating at 255); false (counts zeroed) without a slice. */
bool tui_slice_lines(struct tui *t, const char *file, int n, unsigned char *counts);
/* The statement of a recorded instance: its file and line, and its
 * instance number; false if it has none. */
bool tui_slice_place(struct tui *t, int32_t inst, const char **file, int *line, unsigned *n);
/* Same file? (line tables and frames may spell a path differently) */
bool tui_slice_same_file(const char *a, const char *b);
/* "#1,#3": the instance numbers of file:line among the current slice's
 * members, in buf ("" if none). */
const char *tui_slice_line_insts(struct tui *t, const char *file, int line, char *buf,
				 size_t len);
/* After each command: a new slice becomes current (deps pane shown). */
void tui_slicev_refresh(struct tui *t);
/* Show file:line in the source pane, remembered for back/forward. */
void tui_slicev_go(struct tui *t, const char *file, int line);
/* Run a command line as if typed (echoed); 0 or -1. */
int tui_slicev_run(struct tui *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The slicing and alteration actions; TUI_NOT_MINE for the others. */
int tui_slicev_action(struct tui *t, int act, const char *arg);
/* The status line's slots: recording, current slice, checkpoints. */
void tui_slicev_status(struct tui *t, char *buf, size_t len);
void tui_slicev_free(struct tui *t);

#endif
