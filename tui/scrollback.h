/* scrollback: one pane type for text that comes in at the bottom and
 * scrolls up, used twice: the command pane (commands and their output
 * above the prompt, pane-cmd.c) and the program's output (its terminal,
 * pane-output.c). A kind says what differs: how much is kept, whether a
 * view scrolled back stays put as lines come, the title's hints, and what
 * sits under the lines (the prompt; the line the program is writing).
 * A kind's state starts with a struct tui_sb, which p->st points to. */
#ifndef TUI_SCROLLBACK_H
#define TUI_SCROLLBACK_H

#include <stdbool.h>
#include <stddef.h>

#include "lines.h"
#include "pane.h"

struct tui_sb_kind {
	size_t keep;            /* lines kept: the oldest go first */
	bool stay;              /* a scrolled-back view stays put as lines
	                           come; else new lines bring it to the end */
	int input_rows;         /* rows under the lines that scrolling leaves */
	bool scroll_all;        /* scrolling back may take every line out of
	                           view (else it stops a page from the top) */
	const char *hint;       /* after the title */
	const char *focus_hint; /* instead, while the pane has the keys */
	/* Draw what sits under the lines with its last row on row last;
	 * returns the last row left for the lines. */
	int (*bottom)(struct tui_pane *p, const struct tui_view *v, struct _win_st *w,
		      int last, struct tui_cursor *cur);
};

struct tui_sb {
	struct tui_lines lines;
	int back;               /* lines scrolled back from the end */
	const struct tui_sb_kind *kind;
};

void tui_sb_init(struct tui_sb *sb, const struct tui_sb_kind *kind);
void tui_sb_free(struct tui_sb *sb);
/* Add text's lines ("" is one empty line; a final newline ends the last). */
void tui_sb_split(struct tui_sb *sb, const char *text, int elem);
/* The lines, oldest first. */
const struct tui_lines *tui_sb_lines(const struct tui_pane *p);

/* The type's ops (p->st is the kind's state, a struct tui_sb first). */
void tui_sb_draw(struct tui_pane *p, const struct tui_view *v, struct _win_st *w,
		 struct tui_cursor *cur);
/* page-up, page-down. */
int tui_sb_action(struct tui_pane *p, const struct tui_view *v, int act, const char *arg,
		  struct tui_req *req);

#endif
