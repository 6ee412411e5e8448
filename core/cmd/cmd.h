/* cmd: the one command table and the dispatcher every front end calls:
 * key bindings, the command line, batch mode, session replay and tests all
 * go through cmd_run(). */
#ifndef QZ_CMD_H
#define QZ_CMD_H

#include <stdbool.h>
#include <stddef.h>

struct qz;
struct qz_mod;

/* Core's own module (cmd-core.c), first in modules.c's list. */
extern const struct qz_mod core_mod;

enum cmd_flags {
	CMD_NEEDS_PROCESS = 1 << 0,   /* "The program is not being run." */
	CMD_PREFIX = 1 << 1,          /* takes a subcommand: info, set, show */
	CMD_HIDDEN = 1 << 2,          /* not listed by help */
	CMD_NEEDS_STACK = 1 << 3,     /* "No stack." */
	CMD_NEEDS_FRAME = 1 << 4,     /* "No frame selected." */
	CMD_NEEDS_REGS = 1 << 5,      /* "The program has no registers now." */
	/* May run in a replayed session file (a file from anyone): inspection,
	 * stepping, breakpoints, checkpoints, Qzdb's own commands. Unset, the
	 * command is refused in a replay and the replay stops, so a new
	 * command is unsafe until someone decides otherwise. */
	CMD_REPLAY_SAFE = 1 << 6,
	/* The front end's own (scrolling, focus, panes, colours): left out of
	 * session files; the commands it runs in turn are recorded. */
	CMD_UNRECORDED = 1 << 7,
};

typedef int (*cmd_fn)(struct qz *q, const char *args);

struct cmd_def {
	const char *name;      /* "break", or "info breakpoints" for a subcommand */
	const char *aliases;   /* space-separated: "b br" */
	const char *usage;
	unsigned flags;
	cmd_fn fn;
	const char *help;      /* one line */
	const char *long_help; /* more, or NULL */
};

enum cmd_result {
	CMD_OK = 0,
	CMD_FAIL = -1,
	CMD_QUIT = 1,
};

/* Run one command line. Errors are written to the session's sink as
 * QZ_OUT_ERROR text; returns CMD_OK, CMD_FAIL or CMD_QUIT. An empty line
 * repeats nothing (front ends may repeat the last command). */
int cmd_run(struct qz *q, const char *line);
/* Run a command to show its output in a view (a pane's contents): as
 * cmd_run, but the session file never holds it. */
int cmd_run_view(struct qz *q, const char *line);

/* Parse on|off (also 1/0, yes/no; empty means on) into *out, or report
 * the error: the one reading of a boolean setting. */
int cmd_onoff(struct qz *q, const char *a, bool *out);

/* The command table, assembled from the registered modules' arrays
 * (struct qz_mod's cmds): its i-th entry, or NULL past the last. */
const struct cmd_def *cmd_at(size_t i);
/* Resolve a command word (exact, alias, then unique prefix) among the
 * entries under prefix ("" for top level, "info" for info's). */
const struct cmd_def *cmd_lookup(const char *prefix, const char *word,
				 bool *ambiguous);
/* The entry a command line runs (a subcommand when it names one) and its
 * arguments; NULL when the line names no command. */
const struct cmd_def *cmd_resolve(const char *line, const char **args);

#endif
