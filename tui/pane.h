/* pane: the contract between the UI's event loop and its panes. A pane
 * is one entry of the table in panes.h plus a type that fills the ops
 * below. The loop owns the screen and calls the ops; a pane keeps its own
 * state, reads the engine and the view the loop hands it, draws only when
 * asked, and answers with a return value and a request (struct tui_req),
 * never by calling the loop. Curses stays out of this header: a window is
 * struct _win_st (ncurses' name for it). */
#ifndef TUI_PANE_H
#define TUI_PANE_H

#include <stdbool.h>
#include <stddef.h>

struct qz;
struct _win_st;
struct tui_slicev;

/* What an event asks of the loop. */
enum tui_flags {
	TUI_DRAW = 1 << 0,      /* draw again (only changed cells go out) */
	TUI_QUIT = 1 << 1,
	TUI_LAYOUT = 1 << 2,    /* pane sizes or visibility changed */
	TUI_FULL = 1 << 3,      /* repaint every cell (C-l) */
};

/* An action or key a pane leaves to the next one that may take it. */
#define TUI_NOT_MINE (-2)

/* Where a pane sits. */
enum tui_where {
	TUI_MAIN,               /* left, above the bottom panes */
	TUI_BOTTOM,             /* full width, stacked up from the status line */
	TUI_SIDE,               /* right of the main pane, shown with `pane show` */
	TUI_SIDE_WIDE,          /* a side pane shown from the start on 120 columns */
};

/* What a pane sees of the UI; the loop builds it for each call. */
struct tui_view {
	struct qz *q;           /* the engine: read it, report errors with
	                           qz_error; change it only by asking for a
	                           command (TUI_REQ_RUN) */
	int focus;              /* the pane with the keys (panes.h) */
	bool searching;         /* the command line reads a source search */
	bool search_back;       /* ... backward */
	const struct tui_slicev *sv;   /* the slice shown (slice-view.h) */
	const char *file;       /* the statement under the source cursor */
	int line;               /* (file NULL: no source shown) */
	bool cursor_lit;        /* the keys are on the source pane or on one
	                           that works on its cursor line (deps): the
	                           line is lit */
};

/* What a pane asks the loop to do after an action or a key. */
enum tui_req_kind {
	TUI_REQ_NONE,
	TUI_REQ_RUN,            /* run text as a command line, echoed */
	TUI_REQ_GO,             /* show text:line in the source pane,
	                           remembered for back/forward */
	TUI_REQ_ACCEPT,         /* Enter on the command line: text */
	TUI_REQ_EOF,            /* C-d on an empty command line */
	TUI_REQ_CANCEL,         /* C-c on the command line */
	TUI_REQ_SEND,           /* len bytes of text for the program */
};

struct tui_req {
	enum tui_req_kind kind;
	char *text;             /* the loop frees it */
	size_t len;
	int line;
};

/* Where a pane puts the terminal's cursor, in its window; y < 0: hidden. */
struct tui_cursor {
	int y, x;
};

struct tui_pane;

struct tui_pane_ops {
	void (*init)(struct tui_pane *p, const struct tui_view *v);
	void (*fini)(struct tui_pane *p);
	/* After each command, while shown: read again what the pane shows;
	 * text is the output of the entry's `shows` commands ("" if none),
	 * each after a TUI_HEADING line when there are several. */
	void (*update)(struct tui_pane *p, const struct tui_view *v, const char *text);
	void (*draw)(struct tui_pane *p, const struct tui_view *v, struct _win_st *w,
		     struct tui_cursor *cur);
	/* A UI action (keymap.h) with its argument: 0, -1 (said through
	 * qz_error) or TUI_NOT_MINE. */
	int (*action)(struct tui_pane *p, const struct tui_view *v, int act, const char *arg,
		      struct tui_req *req);
	/* A key none of the pane's bindings took: flags, or TUI_NOT_MINE. */
	int (*key)(struct tui_pane *p, const struct tui_view *v, int key, struct tui_req *req);
	/* Text that comes in for the pane (n bytes; NUL-terminated). */
	void (*feed)(struct tui_pane *p, const char *s, size_t n, int elem);
	int min_rows;           /* bottom panes: the rows it cannot do without */
	const void *conf;       /* the type's settings for this pane */
};

/* An entry of the pane table (panes.h). */
struct tui_pane_def {
	const char *name;       /* as `pane`, `bind` and the status line say */
	const struct tui_pane_ops *ops;
	enum tui_where where;
	int size;               /* bottom panes: the rows wanted at start */
	const char *title;      /* its title row (types may add to it) */
	const char *shows;      /* the commands whose output it shows
	                           (separated by ';'), or NULL */
};

/* The first byte of a heading line in a pane's text (before each of
 * several `shows` commands' output): never in a command's output, whose
 * control bytes the sanitiser shows as ^A. */
#define TUI_HEADING "\x01"

struct tui_pane {
	const struct tui_pane_def *def;
	int id;                 /* its index in the table */
	struct _win_st *win;
	int y, x, h, w;         /* on screen, title row included */
	bool shown;
	int size;               /* bottom panes: rows wanted (`pane size`) */
	int keymap;             /* its keymap pane number */
	void *st;               /* the pane's own state */
};

/* Rows below the title. */
static inline int tui_pane_rows(const struct tui_pane *p)
{
	return p->h - 1;
}

static inline bool tui_pane_is_side(const struct tui_pane_def *d)
{
	return d->where == TUI_SIDE || d->where == TUI_SIDE_WIDE;
}

#endif
