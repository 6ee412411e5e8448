/* ui: the full-screen UI's state, which the loop's files share (loop.c,
 * screen.c, exec.c, actions.c, uicmd.c, status.c, pty.c, runner.c,
 * replay.c) and panes never see: they get a struct tui_view (pane.h).
 * ui.c builds that view, sets the panes up and feeds them text. */
#ifndef TUI_UI_H
#define TUI_UI_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "lines.h"
#include "pane.h"
#include "panes.h"
#include "slice-view.h"
#include "util/util.h"

struct qz;
struct qzs_task;
struct _win_st;

/* A source line visited (back/forward history). */
struct tui_place {
	char *file;
	int line;
};

struct tui {
	struct qz *q;
	struct tui_pane panes[TP_COUNT];
	int focus;
	int rows, cols;
	bool too_small;
	int side_w;             /* columns of the side panes wanted */
	struct _win_st *status_win, *help_win;

	bool searching;         /* the command line reads a source search */
	bool search_back;       /* ... backward (`?`) */
	int focus_before;       /* where a search returns to */
	char *last_cmd;         /* what an empty line repeats */
	int cur_y, cur_x;       /* where the terminal cursor goes, -1: hidden */

	int master, slave;      /* the program's pseudo-terminal */
	int pty_rows, pty_cols; /* its size, as the output pane */
	bool pty_pending;       /* not set yet: the program is stopped (pty.c) */
	pthread_mutex_t lock;   /* screen and buffers while a command runs */
	bool running;           /* the program is running (status line) */
	bool in_command;        /* inside cmd_run */

	bool help;              /* the help screen is up */
	int help_top;
	struct tui_lines help_text;

	char state[160];        /* status line: the program's state */
	const char *rc_path;    /* set while reading qzdbrc: errors name it */
	int rc_line;
	struct sbuf *capture;   /* set: sink output goes here (side panes) */
	struct sbuf partial;    /* sink text not yet ended by a newline */
	char indicators[64];    /* status line slots: recording, slice,
	                           checkpoints, or "" */
	int want;               /* flags UI commands ask of the loop */
	struct tui_slicev sv;   /* the slice shown */
	struct tui_place *hist; /* places followed to, back/forward */
	size_t nhist, hist_at, hist_cap;
	char caption[200];      /* a replay's caption, or "" */
	char progress[96];      /* a long recording's or slice's progress, or "" */

	/* Normal mode's letters (loop.c): the ones typed in a row, so that a
	 * view key that begins a command name gives way to the command. */
	char typed[16];
	int ntyped;
	int typed_key;          /* a bound letter not acted on yet, or 0 */
	bool typed_acted;       /* a letter of the word moved the view ... */
	char *typed_file;       /* ... from here (the source cursor) */
	int typed_line;
	int dock;               /* the bottom region's pane shown (F6) */
	/* A walkthrough waiting (replay.c): the key that ends the wait
	 * (' ' go on, 'b' back, 'q' stop), 0 while none; the task the
	 * student works on, or NULL. */
	bool walking;
	int walk_key;
	const struct qzs_task *walk_task;
	unsigned long ncmds;    /* command lines run (tui_exec) */
	unsigned long walk_seen;   /* ncmds when the task was last checked */
	bool quit;              /* quit asked inside a walkthrough's wait */
	bool dock_all;          /* the region stacks all its panes */
	bool output_unseen;     /* the program wrote while its pane was hidden */
};

/* What a pane sees of the UI now. */
struct tui_view tui_view(struct tui *t);
/* The pane called name, or NULL. */
struct tui_pane *tui_pane_named(struct tui *t, const char *name);
/* Set the panes and their default key bindings up from the table (on a
 * terminal of cols columns); free the panes. */
void tui_panes_init(struct tui *t, int cols);
void tui_panes_fini(struct tui *t);
/* Give text to a pane that takes it (the command pane, the output). */
void tui_feed(struct tui *t, int pane, const char *s, size_t n, int elem);
/* Add text to the command pane's scrollback. */
void tui_say(struct tui *t, const char *text, int elem);
/* Show file:line in the source pane (the cursor on it). */
void tui_show_place(struct tui *t, const char *file, int line);
/* The statement under the source cursor; false if none. */
bool tui_source_cursor(struct tui *t, const char **file, int *line);

#endif
