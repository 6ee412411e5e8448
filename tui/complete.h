/* complete: what the command line's Tab offers from the program itself:
 * the selected frame's variables, and the members of a struct or union
 * after `EXPR.` or `EXPR->` (the expression's type found without reading
 * memory or changing anything, as whatis does). The line editor keeps the
 * commands, files and functions. */
#ifndef TUI_COMPLETE_H
#define TUI_COMPLETE_H

#include <stdbool.h>

struct qz;

typedef void tui_complete_add(void *arg, const char *name);

/* The variables visible in the selected frame (none without a stopped
 * program with debug information). */
void tui_complete_locals(struct qz *q, tui_complete_add *add, void *arg);
/* The members of expr's type (through a pointer when arrow); false if
 * expr has no struct or union type. */
bool tui_complete_members(struct qz *q, const char *expr, bool arrow, tui_complete_add *add,
			  void *arg);

#endif
