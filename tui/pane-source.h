/* pane-source: what the loop asks of the source pane beyond the pane
 * ops: the statement under its cursor, and showing a place. */
#ifndef TUI_PANE_SOURCE_H
#define TUI_PANE_SOURCE_H

#include <stdbool.h>

#include "pane.h"

/* The file and line under the cursor (file NULL: no source shown);
 * false also when the file has no lines. */
bool tui_source_place(const struct tui_pane *p, const char **file, int *line);
/* Show file at line with the cursor on it. */
void tui_source_show(struct tui_pane *p, const struct tui_view *v, const char *file, int line);

#endif
