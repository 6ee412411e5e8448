/* keymap: the UI's actions (declared once: the list below makes the enum,
 * the name table and the help text), key names, and the bindings from a
 * key in a pane to a command line, defaults compiled in as data and
 * overridable with `bind PANE KEY COMMAND`. No curses here: keys are
 * Unicode code points or the TK_ values below. */
#ifndef TUI_KEYMAP_H
#define TUI_KEYMAP_H

#include <stdbool.h>
#include <stddef.h>

struct sbuf;

/* Keys beyond Unicode; control characters stay as 1-26 (C-a..C-z). */
enum tui_key {
	TK_BASE = 0x110000,
	TK_UP, TK_DOWN, TK_LEFT, TK_RIGHT, TK_PGUP, TK_PGDN, TK_HOME, TK_END,
	TK_DEL, TK_BACKSPACE, TK_ENTER, TK_TAB, TK_ESC, TK_RESIZE,
	TK_M_LEFT, TK_M_RIGHT,    /* Alt-Left, Alt-Right */
	TK_F1,                  /* F1..F12 follow */
	TK_SF1 = TK_F1 + 12,    /* Shift-F1..Shift-F12 follow */
	TK_LAST = TK_SF1 + 12,
};

/* X(ID, name, help): every action of the UI, run as `tui NAME`. */
#define TUI_ACTIONS(X) \
	X(RUN_CONTINUE, "run-continue", "run the program, or continue it when stopped") \
	X(TOGGLE_BREAK, "toggle-break", "set or delete a breakpoint at the source cursor") \
	X(FOCUS_SOURCE, "focus-source", "focus the source pane") \
	X(FOCUS_CMD, "focus-cmd", "focus the command line") \
	X(FOCUS_OUTPUT, "focus-output", "focus the program output (keys go to the program)") \
	X(FOCUS_NEXT, "focus-next", "focus the next shown side pane (to scroll it)") \
	X(REDRAW, "redraw", "redraw the whole screen") \
	X(HELP, "help", "show this help, made from the live keymap") \
	X(LINE_UP, "line-up", "move the cursor (or scroll) one line up") \
	X(LINE_DOWN, "line-down", "move the cursor (or scroll) one line down") \
	X(PAGE_UP, "page-up", "one page up") \
	X(PAGE_DOWN, "page-down", "one page down") \
	X(TOP, "top", "go to the first line") \
	X(BOTTOM, "bottom", "go to the last line") \
	X(SEARCH_PROMPT, "search-prompt", "type a regex to search the source for ([back]: backward)") \
	X(SEARCH, "search", "search the source for REGEX (POSIX extended), forward") \
	X(SEARCH_BACK, "search-back", "search the source for REGEX, backward") \
	X(SEARCH_NEXT, "search-next", "next match of the last search") \
	X(SEARCH_PREV, "search-prev", "previous match of the last search") \
	X(GOTO, "goto", "show FILE:LINE (or LINE) in the source pane") \
	X(FILES, "files", "open the source file whose name matches TEXT best (fuzzy); list the matches") \
	X(CYCLE, "cycle", "show the next pane of the bottom region (output, locals, deps...)") \
	X(CURRENT, "current", "show the line the program is stopped at") \
	X(FOLLOW_EDGE, "follow-edge", "follow the selected dependence edge (or edge N) to its statement") \
	X(BACK, "back", "go back to the statement shown before (like a browser)") \
	X(FORWARD, "forward", "go forward again after back") \
	X(NEXT_MEMBER, "next-member", "next line of the current slice in this file") \
	X(PREV_MEMBER, "prev-member", "previous line of the current slice in this file") \
	X(SWITCH_LINE, "switch-line", "switch the cursor line [all|once|N] (once; again: delete)") \
	X(SUPPRESS_LINE, "suppress-line", "suppress the cursor line [all|once|N] (once; again: delete)") \
	X(SLICE_LINE, "slice-line", "slice from the last instance of the cursor line") \
	X(SBREAK_LINE, "sbreak-line", "sbreak on the cursor line in the current slice") \
	X(TOGGLE_RECORD, "toggle-record", "turn recording on or off") \
	X(CHECKPOINT, "checkpoint", "take a checkpoint") \
	X(SLICE_SELECT, "slice-select", "make slice N (or the selected one) the current slice") \
	X(SELECT, "select", "selected row: rollback (ckpts), make current (slices), follow (deps)") \
	X(DELETE_ITEM, "delete-item", "delete the selected slice or checkpoint") \
	X(PRUNE_EDGE, "prune-edge", "prune the variable of the selected data edge from the slice") \
	X(GOTO_INSTANCE, "goto-instance", "move execution back to the selected edge's instance (deps) or the cursor line's latest slice instance (or #N): goto-instance") \
	X(SLICE_NUMBERS, "slice-numbers", "show or hide the member instance numbers at the line ends (info slice's #N)") \
	X(WALK_NEXT, "walk-next", "a walkthrough (--replay --step): run its next command (a task: if done)") \
	X(WALK_BACK, "walk-back", "a walkthrough: go back one command") \
	X(WALK_STOP, "walk-stop", "a walkthrough: stop it (the UI stays)")

enum tui_action {
#define TUI_ACT_ENUM(id, name, help) TUI_ACT_##id,
	TUI_ACTIONS(TUI_ACT_ENUM)
#undef TUI_ACT_ENUM
	TUI_ACT_COUNT
};

/* Action by name, or -1. */
int tui_action_lookup(const char *name);
const char *tui_action_name(enum tui_action a);
const char *tui_action_help(enum tui_action a);

/* Key from its name ("j", "Space", "C-l", "F5", "S-F11", "PgDn"), or -1. */
int tui_key_parse(const char *name);
/* The key's name, in buf. */
const char *tui_key_name(int key, char *buf, size_t len);
/* Decode one key from raw terminal bytes (UTF-8, escape sequences as
 * xterm and tmux send them); *used bytes consumed, 0 if incomplete. */
int tui_key_decode(const unsigned char *s, size_t n, size_t *used);

/* The keymap of the pane a binding names, or -1: "generic" (applies
 * everywhere), the UI's panes, "help", "walk" (a walkthrough waiting). */
int tui_keymap_pane(const char *name);
#define TUI_KEYMAP_GENERIC 0

/* The default bindings, for the UI's n panes named (side[i]: a side
 * pane, which scrolls with the keys every side pane has). */
void tui_keymap_init(const char *const panes[], const bool side[], int n);
void tui_keymap_free(void);
/* Set up (tui_keymap_init called, not freed since)? */
bool tui_keymap_ready(void);
/* bind: 0, or -1 with a message in err. */
int tui_keymap_bind(const char *pane, const char *key, const char *cmd,
		    char *err, size_t errlen);
/* The command bound to key in pane (not falling back), or NULL. */
const char *tui_keymap_lookup(int pane, int key);
/* The name of a key bound to cmd in pane (buf holds it), or NULL: what
 * the status line shows of a key the user may have moved. */
const char *tui_keymap_key_for(const char *pane, const char *cmd, char *buf, size_t len);
/* The keys and actions, for the help screen. */
void tui_keymap_help(struct sbuf *b);

#endif
