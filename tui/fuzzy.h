/* fuzzy: the file picker's match: the letters of a pattern in order in a
 * name, as fzf and vim's pickers match, scored so that tighter and earlier
 * matches in the base name come first. No curses, no engine. */
#ifndef TUI_FUZZY_H
#define TUI_FUZZY_H

/* The score of pat in name (lower is better), or -1 if it does not match.
 * Case-insensitive; a match inside the base name beats one across the
 * directories; a path under the working directory is matched from there. */
int tui_fuzzy_score(const char *pat, const char *name);

#endif
