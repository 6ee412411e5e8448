/* draw: the drawing helpers panes and the screen use on a curses window
 * they are given: text clipped to a width (tabs expanded, wide characters
 * counted, bad bytes shown as '?'), lines wrapped bottom-up, title rows,
 * one-cell gutter marks and framed boxes, each in a theme element's
 * colours. They know the theme, never the UI's state or its loop. Curses
 * stays out of this header: the window is struct _win_st (ncurses' name). */
#ifndef TUI_DRAW_H
#define TUI_DRAW_H

#include <stdbool.h>
#include <stddef.h>

#include "lines.h"

struct _win_st;

/* Draw text at y, x in at most width columns. Fills to width with spaces
 * when fill. Returns the columns used. */
int tui_draw_text(struct _win_st *w, int y, int x, const char *s, int width,
		  unsigned attr, bool fill);
/* The same in a theme element's colours. */
int tui_draw_el(struct _win_st *w, int y, int x, const char *s, int width, int elem,
		bool fill);
/* Where column col of s starts (a byte offset), tabs counted as drawn;
 * the columns of the whole of s when col < 0 (returned in *cols). */
size_t tui_text_col(const char *s, int col, int *cols);
/* Draw lines [0, end) of l bottom-up into rows first..last of w, long
 * lines wrapped at width; returns the row above the topmost drawn. */
int tui_draw_wrapped(struct _win_st *w, const struct tui_lines *l, size_t end,
		     int first, int last, int width);
/* Draw s wrapped at width with its last row on row last (rows above first
 * are not drawn); returns the first row it took. */
int tui_draw_wrapped_text(struct _win_st *w, const char *s, int first, int last,
			  int width, int elem);
/* The title row (row 0) across the window, in the focused colour if focus. */
void tui_draw_title(struct _win_st *w, const char *title, bool focus);
/* A one-cell mark (a gutter column) in an element's colours; ' ' for 0. */
void tui_draw_mark(struct _win_st *w, int y, int x, int ch, int elem);
/* Fill the window with an element's background, then frame it with a
 * title on the top edge in the title-focus colours. */
void tui_draw_box(struct _win_st *w, const char *title, int elem);

#endif
