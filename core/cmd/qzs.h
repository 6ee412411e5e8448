/* qzs: session files (.qzs). The session keeps a transcript of every
 * top-level command and what it printed; `save session` and
 * `--record-session` write it, and a replay runs a parsed file's commands
 * again, showing them or checking their output against the saved one. */
#ifndef QZ_QZS_H
#define QZ_QZS_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "target/session.h"

#define QZS_VERSION 1

/* One command of a parsed file, with the comments written before it (a
 * teacher's captions) and the output saved after it. */
struct qzs_entry {
	int lineno;          /* line of the "(qzdb) " command in the file */
	char *cmd;
	char *comment;       /* the comment lines before it, "# " removed; or NULL */
	char *output;        /* saved output, "" if none */
};

/* An exercise of a walkthrough (qzs-task.c): `#@ task TEXT`, then one or
 * more `#@ expect COMMAND => REGEX`, the teacher's answer (commands), and
 * `#@ done`, which the recording writes after the first command at which
 * every expectation holds. On replay a student must reach a state where
 * each COMMAND (one that changes nothing) prints text the REGEX (POSIX
 * extended) matches; --check checks the teacher's answer does. */
struct qzs_expect {
	char *cmd;
	char *pattern;
	regex_t re;
	int lineno;
};

struct qzs_task {
	char *text;
	int lineno;
	struct qzs_expect *expects;
	size_t nexpects;
	size_t at;           /* the entry it comes before (n: after the last) */
	size_t done;         /* its answer is the entries [at, done) */
};

struct qzs_file {
	char *path;
	char *program;       /* absolute or relative to the file's directory */
	char **args;
	size_t nargs;
	char *build_id;      /* NULL if the header has none */
	bool batch;          /* "#@ tty 0": recorded with gdb -batch's output shapes
	                        (no "Run till exit from ..."), replayed with them */
	long long size;      /* -1 if the header has none */
	struct qzs_entry *entries;
	size_t n;
	char *trailer;       /* comments after the last command, or NULL */
	/* Set for a file cut off before its "#@ end" line (qzdb died while
	 * recording): what the replay warns; the last command, whose output
	 * may be cut short, was dropped. NULL for a whole file. */
	char *cut;
	struct qzs_task *tasks;   /* in file order */
	size_t ntasks, tasks_cap;
};

/* The transcript (called by cmd_run and the output functions). */
/* hidden: a front-end command (CMD_UNRECORDED) whose output a replay
 * checks but the file does not hold; commands it runs are recorded. */
void qzs_cmd_begin(struct qz *q, const char *line, bool hidden);
/* While on (nested counts), commands are a pane's view of the program,
 * not the user's: not recorded, their output not captured. */
void qzs_view(struct qz *q, bool on);
void qzs_cmd_end(struct qz *q);
/* Register the transcript with q (core's module does, in its init). */
void qzs_init(struct qz *q);
/* What the latest top-level command printed. */
const char *qzs_last_output(struct qz *q);

/* Write the transcript so far to path, and from now on append each command
 * as it completes (--record-session). -1 with the error set. */
int qzs_record_to(struct qz *q, const char *path);

/* "#" not followed by a digit (that is a backtrace line). */
bool qzs_is_comment(const char *line);

/* Parse a session file; NULL with a message naming the line on error. */
struct qzs_file *qzs_parse(const char *path, char *err, size_t errlen);
struct qzs_file *qzs_parse_text(const char *text, size_t len, const char *path,
				char *err, size_t errlen);
void qzs_file_free(struct qzs_file *f);
/* The program the file names, resolved against the file's directory. */
char *qzs_program_path(const struct qzs_file *f);
/* The real path of the file's directory (NULL if it cannot be resolved). */
char *qzs_file_dir(const struct qzs_file *f);
/* path (relative to dir unless absolute) names a regular file whose real
 * path lies inside dir, also once symbolic links are followed; its real
 * path in *real if real is not NULL (to free). */
bool qzs_path_inside(const char *dir, const char *path, char **real);
/* The program a replay runs: given (--program, any file the viewer
 * chose) or the one the file names, which must lie inside the file's
 * directory tree. NULL with a message naming the path otherwise. */
char *qzs_replay_program(const struct qzs_file *f, const char *given, char *err, size_t errlen);
/* Check the program against the header's build-id and size; -1 with a
 * message when they differ. */
int qzs_check_program(const struct qzs_file *f, const char *path, char *err, size_t errlen);

/* Outputs equal once process ids and thread ids are normalised. */
bool qzs_output_matches(const char *saved, const char *got);

/* How to replay: check the outputs, and a front end's way to wait for a
 * key before each command (returns 'b' to go back, 'q' to stop, anything
 * else to go on; NULL: never wait). */
struct qzs_replay {
	bool check;
	int (*wait_key)(void *arg);
	void *arg;
	/* Called after each command (the full-screen UI shows its effect);
	 * NULL: nothing. */
	void (*after)(void *arg);
	/* A task reached: the student works on it (any command the replay
	 * allows) until qzs_task_met; 'q' stops the replay. NULL: the
	 * teacher's answer runs, and with check must meet the expectations. */
	int (*task)(void *arg, const struct qzs_task *t);
};

/* Parse a walkthrough's directive (`caption`, `task`, `expect`, `done`,
 * the key of klen bytes, its value v) at line lineno of f: 1 if it is
 * one, 0 if not, -1 with a message in err. */
int qzs_task_directive(struct qzs_file *f, int lineno, const char *key, size_t klen,
		       const char *v, char *err, size_t errlen);
/* At the end of the file: a task still open is an error (a cut file
 * drops it); -1 with a message. */
int qzs_task_finish(struct qzs_file *f, char *err, size_t errlen);
void qzs_tasks_free(struct qzs_file *f);
/* Does every expectation of t hold now? The commands run as views (not
 * recorded, their output not shown); false with the first that does not
 * hold (command and output) in why, if why is not NULL. */
bool qzs_task_met(struct qz *q, const struct qzs_expect *e, size_t n, struct sbuf *why);
/* A command that changes nothing in the program or the debugger (print,
 * info, backtrace, list...): a walkthrough lets a student run these
 * between its steps, and an expectation is one. */
struct cmd_def;
bool qzs_cmd_readonly(const struct cmd_def *c);

/* Who types while a replay waits: nobody (the file's commands), a student
 * between steps (read-only commands), a student on a task (what the
 * replay allows). Set by the replay around its waits. */
enum qzs_student { QZS_FILE, QZS_STUDENT_LOOKS, QZS_STUDENT_TASK };

/* Replay the commands of f in q (loaded with its program). Returns 0 when
 * all went through (and, with check, matched), 1 at the first difference
 * or a refused command. */
int qzs_replay_run(struct qz *q, const struct qzs_file *f, const struct qzs_replay *r);

/* The replay policy: 0 if command c may run with args in this replay,
 * else -1 with the error set and the replay marked to stop. */
struct cmd_def;
int qzs_replay_allows(struct qz *q, const struct cmd_def *c, const char *args);
/* --allow-unsafe: the viewer trusts the file; nothing is refused. */
void qzs_replay_allow_unsafe(struct qz *q, bool allow);

/* May a command write this file? Always in a normal session, never in a
 * replay (unless --allow-unsafe). 0, or -1 with the error set. */
int qzs_check_write(struct qz *q, const char *path);
/* Open a file a command was asked to write (save session, maint dumps):
 * the name must be given and pass qzs_check_write. NULL with the error
 * set. */
FILE *qzs_open_write(struct qz *q, const char *path);

#endif
