/* ui: the full-screen UI's shared state and the helpers panes use. The
 * event loop (ui.c) owns the screen: panes fill an ops table, keep their
 * own state, return flags and draw only when the loop asks them to.
 * Curses stays out of this header; draw functions get the WINDOW as
 * struct _win_st (ncurses' name for it). */
#ifndef TUI_UI_H
#define TUI_UI_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "draw.h"
#include "lineedit.h"
#include "util/util.h"

struct qz;
struct _win_st;

/* What an event asks of the loop. */
enum tui_flags {
	TUI_DRAW = 1 << 0,      /* draw again (only changed cells go out) */
	TUI_QUIT = 1 << 1,
	TUI_LAYOUT = 1 << 2,    /* pane sizes or visibility changed */
	TUI_FULL = 1 << 3,      /* repaint every cell (C-l) */
};

#define TUI_NOT_MINE (-2)

enum tui_pane_id {
	TP_SOURCE, TP_CMD, TP_OUTPUT, TP_LOCALS, TP_STACK, TP_REGS, TP_BPS,
	TP_DISASM, TP_DEPS, TP_CKPTS, TP_SLICES, TP_COUNT
};

struct tui;
struct tui_pane;

/* A source line visited (back/forward history). */
struct tui_place { char *file; int line; };

struct tui_pane_ops {
	const char *name;       /* as `pane` and `bind` name it */
	bool side;              /* a side pane: can be shown and hidden */
	void (*init)(struct tui *t, struct tui_pane *p);
	void (*draw)(struct tui *t, struct tui_pane *p, struct _win_st *w);
	/* A navigation action (keymap.h): 0, -1 (qz_error) or TUI_NOT_MINE;
	 * what to redraw goes to t->want. */
	int (*action)(struct tui *t, struct tui_pane *p, int act, const char *arg);
	/* A key no binding took; flags. */
	int (*key)(struct tui *t, struct tui_pane *p, int key);
	/* After each command: read what the pane shows from the engine. */
	void (*on_stop)(struct tui *t, struct tui_pane *p);
	void (*fini)(struct tui_pane *p);
};

struct tui_pane {
	const struct tui_pane_ops *ops;
	struct _win_st *win;
	int y, x, h, w;         /* on screen, title row included */
	bool shown;
	int size;               /* rows (cmd, output) wanted */
	int keymap;             /* its keymap pane number */
	void *st;               /* the pane's own state */
};

struct tui {
	struct qz *q;
	struct tui_pane panes[TP_COUNT];
	int focus;
	int rows, cols;
	bool too_small;
	int side_w;             /* columns of the side panes wanted */
	struct _win_st *status_win, *help_win;

	struct tui_le le;
	bool searching;         /* the command line reads a source search */
	int focus_before;       /* where a search returns to */
	char *last_cmd;         /* what an empty line repeats */
	int cur_y, cur_x;       /* where the terminal cursor goes, -1: hidden */

	int master, slave;      /* the program's pseudo-terminal */
	pthread_mutex_t lock;   /* screen and buffers while a command runs */
	bool running;           /* the program is running (status line) */
	bool in_command;        /* inside cmd_run */

	bool help;              /* the help screen is up */
	int help_top;
	struct tui_lines help_text;

	char state[160];        /* status line: the program's state */
	int stops_seen;         /* q->stops_shown when panes last followed */
	const char *rc_path;    /* set while reading qzdbrc: errors name it */
	int rc_line;
	struct sbuf *capture;   /* set: sink output goes here (side panes) */
	struct sbuf partial;    /* sink text not yet ended by a newline */
	char indicators[64];    /* status line slots: recording, checkpoints
	                           (filled by later issues), or "" */
	int want;               /* flags UI commands ask of the loop */
	/* slicing (slicev.c) */
	int cur_slice;          /* the slice shown (its id), 0: none */
	int slices_seen;        /* the engine's next slice id when last looked */
	struct tui_place *hist; /* places followed to, back/forward */
	size_t nhist, hist_at, hist_cap;
	char caption[200];      /* a replay's caption, or "" */
	bool slice_numbers;     /* member instance numbers at the line ends */
};

/* Rows below the title. */
static inline int tui_pane_rows(const struct tui_pane *p)
{
	return p->h - 1;
}

/* Set up the UI state on a session (curses running); undo it. */
void tui_setup(struct tui *t, struct qz *q, const char *theme);
void tui_teardown(struct tui *t);
/* Size the panes to the terminal; draw what changed (with t->lock held
 * when a command is running). */
void tui_layout(struct tui *t);
void tui_draw(struct tui *t);

/* After a command: panes and status read the engine's state again. */
void tui_refresh(struct tui *t);
/* Run a command line as typed (echoed to the command pane if echo). */
int tui_exec(struct tui *t, const char *line, bool echo);
/* Show "(qzdb) CMD" in the command pane as if typed. */
void tui_echo(struct tui *t, const char *cmd);
/* An action's command from inside a running command (a key's `tui
 * ACTION`): echoed, then run; 0 or -1. */
int tui_echo_run(struct tui *t, const char *cmd);
/* Run cmd with its output collected into out instead of shown. */
void tui_capture(struct tui *t, const char *cmd, struct sbuf *out);
/* Add text to the command pane's scrollback. */
void tui_say(struct tui *t, const char *text, int elem);

/* Panes (pane-*.c). */
extern const struct tui_pane_ops tui_pane_source, tui_pane_cmd, tui_pane_output,
	tui_pane_locals, tui_pane_stack, tui_pane_regs, tui_pane_bps, tui_pane_disasm,
	tui_pane_deps, tui_pane_ckpts, tui_pane_slices;
/* The program wrote to its terminal. */
void tui_output_feed(struct tui *t, const char *buf, size_t n);
/* The command pane's scrollback. */
struct tui_lines *tui_cmd_lines(struct tui *t);
/* Source pane: the file and line under its cursor. */
bool tui_source_cursor(struct tui *t, const char **file, int *line);
/* Source pane: show file at line with the cursor on it. */
void tui_source_go(struct tui *t, const char *file, int line);

/* status.c */
void tui_status_update(struct tui *t);
void tui_status_draw(struct tui *t, struct _win_st *w);

#endif
