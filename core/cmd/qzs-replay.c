/* qzs-replay: running a session file's commands again. A replayed file is
 * data: only commands marked safe in the table run (qzs_replay_allows),
 * the first refusal stops the replay, and nothing is written. Going back a step uses checkpoints, through the same
 * commands a user would type. */
#define _GNU_SOURCE
#include "qzs.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "qzs-int.h"

/* Numbers that legitimately differ from run to run: process and thread ids. */
static void qzs_normalise_ids(struct sbuf *b, const char *s, size_t n)
{
	static const char *const before[] = { "process ", "LWP ", "pid ", NULL };
	for (const char *end = s + n; s < end;) {
		bool id = false;
		for (int i = 0; before[i] && !id; i++)
			id = b->len >= strlen(before[i]) &&
			     !strcmp(b->s + b->len - strlen(before[i]), before[i]);
		if (id && isdigit((unsigned char)*s)) {
			while (s < end && isdigit((unsigned char)*s))
				s++;
			sbuf_addc(b, 'N');
			continue;
		}
		sbuf_addc(b, *s++);
	}
}

/* Lines that depend on where qzdb runs rather than on the program: which
 * file descriptors the program inherited (a terminal or pipe here, a file
 * there) decides whether the checkpoint warning appears and what it
 * lists, and a checkpoint's page count depends on what earlier (e.g.
 * --step's hidden) checkpoints hold. */
static const char *qzs_normalise_line(const char *line, size_t n, size_t *keep)
{
	static const char warn[] = "warning: a rollback does not undo:";
	*keep = n;
	if (n >= sizeof warn - 1 && !strncmp(line, warn, sizeof warn - 1))
		return "";
	if (str_starts(line, "Checkpoint ") && n && line[n - 1] == ')') {
		const char *paren = line + n;
		while (paren > line && *paren != '(')
			paren--;
		if (paren > line && memmem(paren, (size_t)(line + n - paren), " pages, ", 8)) {
			*keep = (size_t)(paren - line);
			return "(pages)";
		}
	}
	return NULL;
}

static char *qzs_normalise(const char *s)
{
	struct sbuf b = {0};
	sbuf_add(&b, "");
	while (*s) {
		size_t n = strcspn(s, "\n"), keep;
		const char *repl = qzs_normalise_line(s, n, &keep);
		if (!repl || *repl) {
			qzs_normalise_ids(&b, s, keep);
			sbuf_add(&b, repl ? repl : "");
			sbuf_addc(&b, '\n');
		}
		s += n + (s[n] == '\n');
	}
	return sbuf_take(&b);
}

bool qzs_output_matches(const char *saved, const char *got)
{
	char *a = qzs_normalise(saved), *b = qzs_normalise(got);
	bool same = !strcmp(a, b);
	free(a);
	free(b);
	return same;
}

/* The replay policy. A session file is data from anyone: only commands
 * marked CMD_REPLAY_SAFE in the table run, a few of those only with
 * harmless arguments, and the first refusal stops the replay. The viewer
 * can lift all of it with --allow-unsafe. */

struct qzs_why {
	const char *name;
	const char *why;
};

/* Why an unsafe command is refused; the names not in the table (shell,
 * make, ...) are refused here too, so that one added later without the
 * flag cannot become a hole either way. */
static const struct qzs_why qzs_whys[] = {
	{"attach", "it attaches to another process"},
	{"bind", "it changes the key bindings"},
	{"theme", "it reads a file the session names"},
	{"save session", "it writes a file"},
	{"maint dump-state", "it writes a file"},
	{"maint dump-checkpoint", "it writes a file"},
	{"maint crash-at-breakpoint", "it crashes qzdb"},
	{"set debug-file-directory", "it makes qzdb read another directory"},
	{"shell", "it runs a shell command"},
	{"!", "it runs a shell command"},
	{"pipe", "it runs a shell command"},
	{"|", "it runs a shell command"},
	{"make", "it runs make"},
	{"cd", "it changes qzdb's directory"},
	{"source", "it runs commands from a file outside the session's directory"},
	{NULL, NULL},
};

/* Why name is refused, or NULL if it is not listed. */
static const char *qzs_why_named(const char *name)
{
	for (const struct qzs_why *w = qzs_whys; w->name; w++)
		if (!strcmp(w->name, name))
			return w->why;
	return NULL;
}

static const char *qzs_why(const char *name)
{
	const char *why = qzs_why_named(name);
	return why ? why : "it is not marked safe for a replayed session";
}

static int qzs_refuse(struct qz *q, const char *name, const char *why)
{
	qzs_log(q)->refused = true;
	return qz_error(q, "a replayed session may not run `%s`: %s (replay with "
			"--allow-unsafe to allow it).", name, why);
}

/* Variables that make the dynamic loader run or read other code. */
static bool qzs_loader_var(const char *args)
{
	static const char *const vars[] = { "GCONV_PATH", "GLIBC_TUNABLES", "LOCPATH",
					    "NLSPATH", "HOSTALIASES", "MALLOC_", NULL };
	const char *s = str_skip_space(args);
	if (str_starts(s, "LD_"))
		return true;
	for (int i = 0; vars[i]; i++)
		if (str_starts(s, vars[i]))
			return true;
	return false;
}

/* An output redirection outside quotes: `run >OUT`, `set args >>OUT`. */
static bool qzs_redirects_out(const char *args)
{
	char quote = 0;
	for (const char *s = args; *s; s++) {
		if (quote && *s == quote)
			quote = 0;
		else if (!quote && (*s == '"' || *s == '\''))
			quote = *s;
		else if (!quote && *s == '\\' && s[1])
			s++;
		else if (!quote && *s == '>')
			return true;
	}
	return false;
}

/* While a replay waits, the student types: between steps only what
 * changes nothing (the walkthrough's state stays the file's), on a task
 * what a replay allows; the UI's own commands (the student's keys) run. */
static int qzs_student_allows(struct qz *q, const struct cmd_def *c)
{
	int who = qzs_log(q)->student;
	if (c->flags & CMD_UNRECORDED)
		return 1;
	if (who == QZS_STUDENT_LOOKS && !qzs_cmd_readonly(c))
		return qz_error(q, "Between the walkthrough's steps only commands that change "
				"nothing run (print, info, backtrace, list...), not `%s`; go on "
				"with the walkthrough's key.", c->name);
	return 0;
}

int qzs_replay_allows(struct qz *q, const struct cmd_def *c, const char *args)
{
	struct qzs_log *l = qzs_log(q);
	if (l->student != QZS_FILE) {
		int r = qzs_student_allows(q, c);
		if (r)
			return r > 0 ? 0 : -1;
	}
	if (l->allow_unsafe)
		return 0;
	if (!(c->flags & CMD_REPLAY_SAFE))
		return qzs_refuse(q, c->name, qzs_why(c->name));
	if ((!strcmp(c->name, "set environment") || !strcmp(c->name, "unset environment")) &&
	    qzs_loader_var(args))
		return qzs_refuse(q, c->name, "it changes how the program's libraries are loaded");
	if (!strcmp(c->name, "source") && !qzs_path_inside(l->replay_dir, args, NULL))
		return qzs_refuse(q, c->name, qzs_why(c->name));
	if ((!strcmp(c->name, "run") || !strcmp(c->name, "start") || !strcmp(c->name, "set args")) &&
	    qzs_redirects_out(args))
		return qzs_refuse(q, c->name, "it redirects the program's output to a file");
	return 0;
}

/* `set environment VAR`, `unset env VAR`, whether or not qzdb has them. */
static bool qzs_sets_loader_var(const char *s)
{
	const char *w = str_starts(s, "set ") ? s + 4 : str_starts(s, "unset ") ? s + 6 : NULL;
	if (!w || !str_starts(str_skip_space(w), "env"))
		return false;
	w = str_skip_space(w);
	return qzs_loader_var(w + strcspn(w, " \t"));
}

/* The policy for a line of the file, before it runs. Names that reach
 * outside the debugger are refused by name even when qzdb has no such
 * command (`cd` would otherwise run as a prefix of `cdelete`). */
static int qzs_allowed_line(struct qz *q, const char *line)
{
	const char *args, *s = str_skip_space(line);
	size_t n = *s == '!' || *s == '|' ? 1 : strcspn(s, " \t");
	char word[16];
	snprintf(word, sizeof word, "%.*s", (int)(n < sizeof word ? n : sizeof word - 1), s);
	const struct cmd_def *c = cmd_resolve(s, &args);
	bool exact = c && !strcmp(c->name, word);
	if (qzs_log(q)->allow_unsafe)
		return 0;
	if (!exact && qzs_why_named(word))
		return qzs_refuse(q, word, qzs_why_named(word));
	if (qzs_sets_loader_var(s))
		return qzs_refuse(q, "set environment",
				  "it changes how the program's libraries are loaded");
	return c ? qzs_replay_allows(q, c, args) : 0;
}

void qzs_replay_allow_unsafe(struct qz *q, bool allow)
{
	qzs_log(q)->allow_unsafe = allow;
}

static void qzs_show_caption(struct qz *q, const char *comment)
{
	for (const char *s = comment; *s;) {
		size_t n = strcspn(s, "\n");
		qz_printf(q, "# %.*s\n", (int)n, s);
		s += n + (s[n] == '\n');
	}
}

static void qzs_show_diff(struct qz *q, const struct qzs_file *f,
			  const struct qzs_entry *e, const char *got)
{
	qz_printf(q, "%s:%d: the output of `%s` differs.\n--- saved\n%s--- now\n%s---\n",
		  f->path, e->lineno, e->cmd, e->output, got);
}

/* Take a hidden checkpoint before each command while the program runs,
 * so `b` can go back; ckpts[i] is the one taken before command i, or 0.
 * Hidden: the session's own checkpoints keep their numbers, `info
 * checkpoints` does not list these, and nothing enters the transcript. */
static void qzs_mark(struct qz *q, int *ckpts, size_t i)
{
	ckpts[i] = 0;
	if (!qz_running(q))
		return;
	int h = mod_mark(q);
	ckpts[i] = h > 0 ? h : 0;
}

/* Go back to before command i-1; returns the index to resume at. */
static size_t qzs_back(struct qz *q, const int *ckpts, size_t i)
{
	if (i == 0) {
		qz_printf(q, "Already at the first command.\n");
		return i;
	}
	if (!ckpts[i - 1]) {
		qz_printf(q, "Cannot go back: no checkpoint was taken before that command.\n");
		return i;
	}
	if (mod_back(q, ckpts[i - 1]) < 0) {
		qz_printf(q, "Cannot go back: %s\n", q->err.s ? q->err.s : "");
		return i;
	}
	qz_printf(q, "[back one step]\n");
	return i - 1;
}

/* 0: go on; 1: stop (a difference or a refusal); -1: the file quit. */
static int qzs_one(struct qz *q, const struct qzs_file *f, const struct qzs_entry *e,
		   const struct qzs_replay *r)
{
	if (qzs_allowed_line(q, e->cmd) < 0) {
		char *msg = xasprintf("%s:%d: %s", f->path, e->lineno, q->err.s);
		q->sink.write(q->sink.arg, QZ_OUT_ERROR, msg);
		free(msg);
		return 1;
	}
	if (cmd_run(q, e->cmd) == CMD_QUIT)
		return -1;
	if (qzs_log(q)->refused)
		return 1;   /* a nested command or a file write was refused */
	if (r->check && !qzs_output_matches(e->output, qzs_last_output(q))) {
		qzs_show_diff(q, f, e, qzs_last_output(q));
		return 1;
	}
	return 0;
}

/* The replay's progress through f's tasks: 0 not reached, 1 its answer
 * is running, 2 done. */
struct qzs_run {
	struct qz *q;
	const struct qzs_file *f;
	const struct qzs_replay *r;
	char *state;
};

/* A student works on t; 'q' to stop. */
static int qzs_student_task(struct qzs_run *run, const struct qzs_task *t)
{
	struct qzs_log *l = qzs_log(run->q);
	l->student = QZS_STUDENT_TASK;
	int k = run->r->task(run->r->arg, t);
	l->student = QZS_FILE;
	if (k != 'q')
		qz_printf(run->q, "Task done: every expectation holds.\n");
	return k;
}

/* The teacher's answer ended at entry i: with check, it must meet t. */
static int qzs_task_check(struct qzs_run *run, const struct qzs_task *t)
{
	struct sbuf why = {0};
	int rc = 0;
	if (run->r->check && !qzs_task_met(run->q, t->expects, t->nexpects, &why)) {
		qz_printf(run->q, "%s:%d: the recorded answer does not meet the task's "
			  "expectations: %s", run->f->path, t->lineno, why.s);
		rc = 1;
	}
	sbuf_free(&why);
	return rc;
}

/* The tasks at entry i (i == f->n: after the last): a task that starts
 * here is shown and, with a student, worked on (*i moves past the
 * teacher's answer); one whose answer ends here is checked. 0 go on, 1
 * stop (a difference), -1 the student stopped. */
static int qzs_tasks_at(struct qzs_run *run, size_t *i)
{
	const struct qzs_file *f = run->f;
	for (size_t k = 0; k < f->ntasks; k++) {
		const struct qzs_task *t = &f->tasks[k];
		if (t->at == *i && !run->state[k]) {
			qz_printf(run->q, "# Task: %s\n", t->text);
			run->state[k] = 1;
			if (run->r->task) {
				if (qzs_student_task(run, t) == 'q')
					return -1;
				run->state[k] = 2;
				*i = t->done;
			}
		}
		if (t->done == *i && run->state[k] == 1) {
			run->state[k] = 2;
			if (qzs_task_check(run, t))
				return 1;
		}
	}
	return 0;
}

/* Going back before a task's start makes it new again. */
static void qzs_tasks_back(struct qzs_run *run, size_t i)
{
	for (size_t k = 0; k < run->f->ntasks; k++)
		if (run->f->tasks[k].at >= i)
			run->state[k] = 0;
}

/* Before command i with --step: the student looks around (read-only
 * commands) until a key: 'b' back, 'q' stop, else go on. */
static int qzs_wait(struct qzs_run *run, int *ckpts, size_t *i)
{
	struct qzs_log *l = qzs_log(run->q);
	qzs_mark(run->q, ckpts, *i);
	l->student = QZS_STUDENT_LOOKS;
	int k = run->r->wait_key(run->r->arg);
	l->student = QZS_FILE;
	if (k == 'b') {
		*i = qzs_back(run->q, ckpts, *i);
		qzs_tasks_back(run, *i);
	}
	return k;
}

int qzs_replay_run(struct qz *q, const struct qzs_file *f, const struct qzs_replay *r)
{
	int *ckpts = xcalloc(f->n + 1, sizeof *ckpts);
	char err[400];
	if (qzs_tasks_check(f, err, sizeof err) < 0) {   /* the table is known now */
		q->sink.write(q->sink.arg, QZ_OUT_ERROR, err);
		free(ckpts);
		return 1;
	}
	struct qzs_run run = {q, f, r, xcalloc(f->ntasks + 1, 1)};
	int rc = 0;
	struct qzs_log *l = qzs_log(q);
	l->refused = false;
	free(l->replay_dir);
	l->replay_dir = qzs_file_dir(f);
	q->replaying = true;
	if (f->cut)
		qz_warn(q, "%s", f->cut);
	for (size_t i = 0; rc == 0;) {
		size_t was = i;
		if (i < f->n && f->entries[i].comment)   /* the caption, then a task */
			qzs_show_caption(q, f->entries[i].comment);
		if ((rc = qzs_tasks_at(&run, &i)) != 0 || i >= f->n)
			break;
		if (i != was)   /* a student did the task: on after its answer */
			continue;
		const struct qzs_entry *e = &f->entries[i];
		qz_printf(q, "(qzdb) %s\n", e->cmd);
		if (r->wait_key) {
			int k = qzs_wait(&run, ckpts, &i);
			if (k == 'q')
				break;
			if (k == 'b')
				continue;
		}
		rc = qzs_one(q, f, e, r);
		if (r->after)
			r->after(r->arg);
		i++;
	}
	if (rc == 0 && f->trailer)
		qzs_show_caption(q, f->trailer);
	q->replaying = false;
	free(ckpts);
	free(run.state);
	return rc > 0 ? 1 : 0;
}
