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
	/* A walkthrough's directive (caption, task, expect, done): the file
	 * holds "#@ directive" in the command's place. */
	char *directive;
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
	int student;        /* enum qzs_student: who types while a replay waits */
	/* Recording a task: its expectations, checked after each command
	 * until they hold, when "#@ done" is written. */
	bool task_open;
	struct qzs_expect *expects;
	size_t nexpects;
};

/* After each top-level command (qzs.c): a task's expectations checked. */
void qzs_task_after(struct qz *q);
/* The log's recorded task freed (qzs.c, at the end). */
void qzs_task_log_free(struct qzs_log *l);
/* Parse `COMMAND => REGEX` into e (compiled), or -1 with a message. */
int qzs_expect_parse(struct qzs_expect *e, const char *v, char *err, size_t errlen);
void qzs_expect_free(struct qzs_expect *e);
/* An expectation's command is one that changes nothing; -1 with a
 * message. Every one of f's, before a replay runs (the line named). */
int qzs_expect_cmd_check(const char *cmd, char *err, size_t errlen);
int qzs_tasks_check(const struct qzs_file *f, char *err, size_t errlen);
/* A caption's text is within the limits; -1 with a message. */
int qzs_caption_check(const char *text, char *err, size_t errlen);

/* The session's log, made on first use. */
struct qzs_log *qzs_log(struct qz *q);

#endif
