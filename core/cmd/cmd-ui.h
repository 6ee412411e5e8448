/* cmd-ui: the commands only a full-screen front end can carry out (tui ACTION,
 * pane, theme, bind, color). They sit in the one command table like every
 * other command; the front end installs their implementation in q->ui, so
 * core never sees curses. Without a UI they fail with a clear message. */
#ifndef QZ_CMD_UI_H
#define QZ_CMD_UI_H

struct qz;

struct qz_ui {
	/* Run UI command name ("tui", "pane", "theme", "bind", "color") with
	 * its arguments; 0, or -1 through qz_error. */
	int (*cmd)(struct qz *q, const char *name, const char *args);
};

/* `help keys`: the UI's key bindings and their rule, written by the UI
 * (set at start-up, batch mode included); NULL: no UI linked in. */
struct sbuf;
extern void (*cmd_ui_help_keys)(struct sbuf *b);

int cmd_ui_tui(struct qz *q, const char *a);
int cmd_ui_pane(struct qz *q, const char *a);
int cmd_ui_theme(struct qz *q, const char *a);
int cmd_ui_bind(struct qz *q, const char *a);
int cmd_ui_color(struct qz *q, const char *a);

#endif
