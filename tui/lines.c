/* lines: the line store (see lines.h). */
#include "lines.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

void tui_lines_add(struct tui_lines *l, const char *s, int elem)
{
	if (l->max && l->n >= l->max) {   /* drop a quarter: not a memmove a line */
		size_t drop = l->max / 4 + 1;
		for (size_t i = 0; i < drop; i++)
			free(l->v[i]);
		memmove(l->v, l->v + drop, (l->n - drop) * sizeof *l->v);
		memmove(l->elem, l->elem + drop, l->n - drop);
		l->n -= drop;
	}
	size_t cap = l->cap;
	XGROW(l->v, l->cap, l->n + 1);
	if (cap != l->cap)
		l->elem = xrealloc(l->elem, l->cap);
	l->v[l->n] = xstrdup(s);
	l->elem[l->n++] = (unsigned char)elem;
}

size_t tui_lines_split(struct tui_lines *l, const char *text, int elem)
{
	for (size_t k = 1;; k++) {
		size_t n = strcspn(text, "\n");
		char *line = xasprintf("%.*s", (int)n, text);
		tui_lines_add(l, line, elem);
		free(line);
		if (!text[n] || !text[n + 1])
			return k;
		text += n + 1;
	}
}

void tui_lines_clear(struct tui_lines *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	l->n = 0;
}

void tui_lines_free(struct tui_lines *l)
{
	tui_lines_clear(l);
	free(l->v);
	free(l->elem);
	l->v = NULL;
	l->elem = NULL;
	l->cap = 0;
}
