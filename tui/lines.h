/* lines: a store of text lines with a theme element each, for what panes
 * show (scrollback, a command's captured output) and the help text. With
 * a limit, the oldest lines go first. No curses here. */
#ifndef TUI_LINES_H
#define TUI_LINES_H

#include <stddef.h>

struct tui_lines {
	char **v;
	unsigned char *elem;    /* per line: its theme element (theme.h) */
	size_t n, cap;
	size_t max;             /* oldest dropped beyond this; 0: no limit */
};

void tui_lines_add(struct tui_lines *l, const char *s, int elem);
/* Add text's lines: "" is one empty line, a final newline ends the last.
 * Returns how many. */
size_t tui_lines_split(struct tui_lines *l, const char *text, int elem);
void tui_lines_clear(struct tui_lines *l);
/* Clear and release the store (it can be used again). */
void tui_lines_free(struct tui_lines *l);

#endif
