/* qzs-int: the session transcript's state, shared by the qzs*.c files. */
#ifndef QZ_QZS_INT_H
#define QZ_QZS_INT_H

#include <stdbool.h>
#include <stdio.h>

#include "util/util.h"

struct qz;

struct qzs_item {
	char *cmd;
	struct sbuf out;
	/* A command of the front end's own (scrolling, panes, themes): its
	 * output is kept for a replay's check, but the file never holds it. */
	bool hidden;
};

struct qzs_log {
	struct qzs_item *items;
	size_t n, cap;
	int depth;          /* cmd_run nesting: only the outermost is an item, */
	int shown_depth;    /* or the first recorded one inside a hidden one */
	int viewing;        /* qzs_view: a pane's own command, not the user's */
	/* --record-session: the file always holds a whole session (header,
	 * the complete commands so far, "#@ end"): each command is written
	 * over the end marker together with a new one. */
	int rec_fd;         /* -1: not recording */
	char *rec_path;
	long long rec_end;  /* offset of the "#@ end" line */
	size_t rec_done;    /* items written so far */
	/* Replay policy (see qzs-replay.c). */
	bool allow_unsafe;  /* --allow-unsafe: the viewer trusts the file */
	bool refused;       /* a command was refused: the replay stops */
	char *replay_dir;   /* real path of the replayed file's directory */
};

/* The session's log, made on first use. */
struct qzs_log *qzs_log(struct qz *q);

#endif
