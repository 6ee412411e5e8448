/* draw: text, wrapping, titles, marks and boxes on a curses window (see
 * draw.h). Every width is in terminal columns, never bytes. */
#define _XOPEN_SOURCE_EXTENDED 1
#define _GNU_SOURCE
#include "draw.h"

#include <curses.h>
#include <string.h>
#include <wchar.h>

#include "theme.h"

/* The next character of *s (advanced); a bad byte reads as '?'. */
static wchar_t draw_next(const char **s, mbstate_t *st)
{
	wchar_t wc;
	size_t n = mbrtowc(&wc, *s, strlen(*s), st);
	if (n == 0 || n >= (size_t)-2) {
		memset(st, 0, sizeof *st);
		n = 1;
		wc = L'?';
	}
	*s += n;
	return wc;
}

int tui_draw_text(WINDOW *w, int y, int x, const char *s, int width,
		  unsigned attr, bool fill)
{
	mbstate_t st = {0};
	int col = 0;
	wattrset(w, (int)attr);
	wmove(w, y, x);
	while (*s && col < width) {
		wchar_t wc = draw_next(&s, &st);
		if (wc == L'\t') {
			int to = (col / 8 + 1) * 8;
			for (; col < to && col < width; col++)
				waddch(w, ' ');
			continue;
		}
		int cw = wcwidth(wc);
		if (cw < 0)
			wc = L'?', cw = 1;
		if (col + cw > width)
			break;
		waddnwstr(w, &wc, 1);
		col += cw;
	}
	for (; fill && col < width; col++)
		waddch(w, ' ');
	return col;
}

int tui_draw_el(WINDOW *w, int y, int x, const char *s, int width, int elem, bool fill)
{
	return tui_draw_text(w, y, x, s, width, tui_theme_attr(elem), fill);
}

size_t tui_text_col(const char *s, int col, int *cols)
{
	mbstate_t st = {0};
	const char *p = s;
	int c = 0;
	while (*p && (col < 0 || c < col)) {
		wchar_t wc = draw_next(&p, &st);
		int cw = wc == L'\t' ? 8 - c % 8 : wcwidth(wc);
		c += cw > 0 ? cw : wc == L'\t' ? 0 : 1;
	}
	if (cols)
		*cols = c;
	return (size_t)(p - s);
}

int tui_draw_wrapped_text(WINDOW *w, const char *s, int first, int last, int width,
			  int elem)
{
	int cols;
	tui_text_col(s, -1, &cols);
	int nr = cols ? (cols + width - 1) / width : 1, top = last - nr + 1;
	for (int k = 0; k < nr; k++)
		if (top + k >= first)
			tui_draw_el(w, top + k, 0, s + tui_text_col(s, k * width, NULL), width,
				    elem, false);
	return top;
}

int tui_draw_wrapped(WINDOW *w, const struct tui_lines *l, size_t end,
		     int first, int last, int width)
{
	int row = last;
	for (size_t ln = end; ln-- > 0 && row >= first;)
		row = tui_draw_wrapped_text(w, l->v[ln], first, row, width, l->elem[ln]) - 1;
	return row;
}

void tui_draw_title(WINDOW *w, const char *title, bool focus)
{
	tui_draw_el(w, 0, 0, title, getmaxx(w), focus ? TUI_EL_TITLE_FOCUS : TUI_EL_TITLE, true);
}

void tui_draw_mark(WINDOW *w, int y, int x, int ch, int elem)
{
	char s[2] = {ch ? (char)ch : ' ', 0};
	tui_draw_el(w, y, x, s, 1, elem, false);
}

void tui_draw_box(WINDOW *w, const char *title, int elem)
{
	unsigned a = tui_theme_attr(elem);
	wattrset(w, (int)a);
	wbkgdset(w, ' ' | a);
	werase(w);
	wattrset(w, (int)tui_theme_attr(TUI_EL_TITLE_FOCUS));
	box(w, 0, 0);
	mvwaddstr(w, 0, 2, title);
}
