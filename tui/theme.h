/* theme: the UI's colours, an attribute per screen element, loaded from
 * themes/NAME.theme files whose lines are `color ELEMENT FG BG [ATTRS]`
 * (the grammar of the color command). 256-colour terminals get the
 * colours as written, 8-colour ones the nearest basic colour, and mono
 * (NO_COLOR, no colours, or theme mono) only the attributes. */
#ifndef TUI_THEME_H
#define TUI_THEME_H

#include <stdbool.h>
#include <stddef.h>

/* X(ID, name) */
#define TUI_ELEMENTS(X) \
	X(DEFAULT, "default") X(TITLE, "title") X(TITLE_FOCUS, "title-focus") \
	X(STATUS, "status") X(LINENO, "lineno") X(CURSOR, "cursor") \
	X(CURRENT, "current") X(BP_ON, "bp-enabled") X(BP_OFF, "bp-disabled") \
	X(MARK, "mark") X(PROMPT, "prompt") X(ERROR, "error") X(WARNING, "warning") \
	X(ECHO, "echo") X(OUTPUT, "output") X(MATCH, "search-match") X(HELP, "help") \
	X(SLICE, "slice") X(ALTER, "alter-mark") X(CAPTION, "caption") \
	X(CHANGED, "changed") X(HEADING, "heading") X(CHAIN, "chain")

enum tui_elem {
#define TUI_ELEM_ENUM(id, name) TUI_EL_##id,
	TUI_ELEMENTS(TUI_ELEM_ENUM)
#undef TUI_ELEM_ENUM
	TUI_EL_COUNT
};

/* The compiled-in default theme; colours off if mono. */
void tui_theme_init(bool mono);
/* One `color ELEMENT FG BG [ATTRS]` line's words after "color"; 0, or -1
 * with err. Applies at once (curses must be running). */
int tui_theme_color(const char *args, char *err, size_t errlen);
/* Load themes/NAME.theme (dir beside the executable); the theme in use is
 * kept if the file is missing or has an error. */
int tui_theme_load(const char *name, char *err, size_t errlen);
const char *tui_theme_name(void);
/* The curses attributes (colour pair included) of an element. */
unsigned tui_theme_attr(enum tui_elem e);
/* Set up colour pairs after initscr (and after a change). */
void tui_theme_apply(void);
/* Where theme files are: the executable's directory + /themes. */
const char *tui_theme_dir(void);

#endif
