/* slice-view: what the UI shows of slicing, read from the slice module:
 * which slice is current, which lines of a file are its members and how
 * many of their instances, the statement of a recorded instance, and the
 * status line's slots. Panes read it through their view; only the loop
 * changes which slice is current. */
#ifndef TUI_SLICE_VIEW_H
#define TUI_SLICE_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct qz;
struct slice;

struct tui_slicev {
	struct qz *q;
	int cur;                /* the slice shown (its id), 0: none */
	int seen;               /* the engine's next slice id when last looked */
	bool numbers;           /* member instance numbers at the line ends */
};

/* The current slice, or NULL (none, or it was deleted). */
const struct slice *tui_slice_current(const struct tui_slicev *sv);
/* counts[1..n]: member instances of the current slice on each line of
 * file (saturating at 255); false (counts zeroed) without a slice. */
bool tui_slice_lines(const struct tui_slicev *sv, const char *file, int n,
		     unsigned char *counts);
/* The statement of a recorded instance: its file and line, and its
 * instance number; false if it has none. */
bool tui_slice_place(const struct tui_slicev *sv, int32_t inst, const char **file, int *line,
		     unsigned *n);
/* Same file? (line tables and frames may spell a path differently) */
bool tui_slice_same_file(const char *a, const char *b);
/* "#1,#3": the instance numbers of file:line among the current slice's
 * members, in buf ("" if none). */
const char *tui_slice_line_insts(const struct tui_slicev *sv, const char *file, int line,
				 char *buf, size_t len);
/* The nearest member line of the current slice in file after line (dir
 * 1) or before it (dir -1); 0 if none. */
int tui_slice_member_line(const struct tui_slicev *sv, const char *file, int line, int dir);
/* After each command: a new slice becomes the current one (true then);
 * a deleted current slice gives way to the latest. */
bool tui_slicev_update(struct tui_slicev *sv);
/* The status line's slots: recording, current slice, checkpoints. */
void tui_slicev_status(const struct tui_slicev *sv, char *buf, size_t len);

#endif
