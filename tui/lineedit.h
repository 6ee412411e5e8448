/* lineedit: readline-like editing of one command line, shared by the
 * full-screen UI's command pane and the plain command line: cursor moves,
 * kills, history (kept in ~/.qzdb_history, C-r searches it) and
 * completion of commands, subcommands, source file names, function names,
 * variables and members (complete.c). No curses here. */
#ifndef TUI_LINEEDIT_H
#define TUI_LINEEDIT_H

#include <stdbool.h>
#include <stddef.h>

struct qz;
struct sbuf;

struct tui_le {
	char *buf;              /* the line, NUL-terminated UTF-8 */
	size_t len, cap;
	size_t cur;             /* cursor, a byte offset at a character start */
	char **hist;            /* oldest first */
	size_t nhist, hist_cap;
	size_t hpos;            /* == nhist: editing a new line */
	char *saved;            /* the new line while browsing history */
	struct qz *q;           /* for completing files and symbols */
	char *hist_path;        /* where history is saved, NULL: nowhere */
	/* C-r: the history searched backward for rq as it is typed */
	bool rs;
	bool rs_failed;         /* nothing older matches */
	char rq[64];
	size_t rs_hit;          /* the entry shown; nhist: none yet */
	char prompt[96];        /* tui_le_prompt's text */
	/* read from the terminal, not yet taken as keys: a line typed ahead
	 * (read with the one before it) waits here for the next prompt */
	unsigned char pend[64];
	size_t npend;
};

enum tui_le_result {
	LE_UNHANDLED,           /* not an editing key */
	LE_CHANGED,
	LE_ACCEPT,              /* Enter: take the line */
	LE_EOF,                 /* C-d on an empty line */
	LE_CANCEL,              /* C-c: line dropped */
	LE_LISTED,              /* Tab found several candidates: see the list */
};

void tui_le_init(struct tui_le *e, struct qz *q);
void tui_le_free(struct tui_le *e);
/* Handle key (keymap.h codes). For LE_LISTED, the candidates are in list. */
enum tui_le_result tui_le_key(struct tui_le *e, int key, struct sbuf *list);
/* The accepted line (caller frees); added to the history if not blank. */
char *tui_le_take(struct tui_le *e);
void tui_le_set(struct tui_le *e, const char *text);
/* The prompt to show: normal, or the C-r search's. */
const char *tui_le_prompt(struct tui_le *e, const char *normal);
/* Display columns of the text before the cursor. */
int tui_le_cursor_col(const struct tui_le *e);

/* ~/.qzdb_history: read it, and append to it as lines are taken. */
void tui_le_history_load(struct tui_le *e);

/* The plain command line on a terminal: edit a line after prompt with
 * the terminal in raw mode; NULL at end of input. Caller frees. */
char *tui_le_readline(struct tui_le *e, const char *prompt);

/* Commands that an empty line repeats, as in gdb. */
bool tui_le_repeatable(const char *line);

#endif
