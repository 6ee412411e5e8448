/* qzs-task: walkthroughs with exercises. A teacher records a session and
 * types `caption TEXT` (shown while the walkthrough is stepped), `task
 * TEXT` and `expect COMMAND => REGEX`; the file then holds "#@ caption",
 * "#@ task", "#@ expect" lines, the teacher's answer, and "#@ done", which
 * the recording writes after the first command at which every expectation
 * holds. A file is data from anyone: the directives have length limits,
 * an expectation's command must change nothing, its pattern compiles with
 * POSIX regcomp (no back-references, which can take exponential time), and
 * every error names its line. */
#define _GNU_SOURCE
#include "qzs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cmds.h"
#include "qzs-int.h"
#include "value/value.h"

#define QZS_TEXT_MAX 500      /* a caption's or a task's text */
#define QZS_PART_MAX 256      /* an expectation's command, its pattern */
#define QZS_EXPECTS_MAX 8     /* per task */
#define QZS_TASKS_MAX 256     /* per file */
#define QZS_MATCH_MAX 65536   /* output bytes a pattern is matched against */
/* An expectation on what the latest command printed, not a command:
 * "expect printed => = 1000" asks the student to print the value. */
#define QZS_PRINTED "printed"

/* Commands that change neither the program nor the debugger's state (the
 * selected frame aside), by their first word. */
bool qzs_cmd_readonly(const struct cmd_def *c)
{
	static const char *const names[] = {
		"print", "output", "x", "info", "backtrace", "frame", "up", "down", "list",
		"ptype", "whatis", "help", "instance", "deps", "echo", "show", "disassemble",
		"printf", "explain", NULL,
	};
	size_t n = strcspn(c->name, " ");
	for (int i = 0; names[i]; i++)
		if (strlen(names[i]) == n && !strncmp(c->name, names[i], n))
			return true;
	return false;
}

/* The command table is assembled when the session starts, after a file
 * is parsed: a name it does not hold yet passes here and is checked again
 * before the replay runs (qzs_tasks_check). */
int qzs_expect_cmd_check(const char *cmd, char *err, size_t errlen)
{
	if (!strcmp(cmd, QZS_PRINTED))
		return 0;
	const struct cmd_def *c = cmd_at(0) ? cmd_resolve(cmd, &(const char *){NULL}) : NULL;
	if (cmd_at(0) && (!c || !qzs_cmd_readonly(c)))
		return snprintf(err, errlen, "an expectation's command must change nothing "
				"(print, info, backtrace, list...), not \"%.40s\"", cmd), -1;
	return 0;
}

int qzs_tasks_check(const struct qzs_file *f, char *err, size_t errlen)
{
	for (size_t i = 0; i < f->ntasks; i++)
		for (size_t j = 0; j < f->tasks[i].nexpects; j++) {
			const struct qzs_expect *e = &f->tasks[i].expects[j];
			int n = snprintf(err, errlen, "%s:%d: ", f->path, e->lineno);
			if (n > 0 && (size_t)n < errlen &&
			    qzs_expect_cmd_check(e->cmd, err + n, errlen - (size_t)n) < 0)
				return -1;
		}
	return 0;
}

void qzs_expect_free(struct qzs_expect *e)
{
	if (e->pattern)
		regfree(&e->re);
	free(e->cmd);
	free(e->pattern);
	memset(e, 0, sizeof *e);
}

/* A back-reference (\1 to \9) makes matching exponential; POSIX extended
 * patterns have none, but glibc accepts them. */
static bool qzs_has_backref(const char *p)
{
	for (; *p; p++)
		if (*p == '\\' && p[1]) {
			if (p[1] >= '1' && p[1] <= '9')
				return true;
			p++;
		}
	return false;
}

int qzs_expect_parse(struct qzs_expect *e, const char *v, char *err, size_t errlen)
{
	const char *arrow = strstr(v, " => ");
	memset(e, 0, sizeof *e);
	if (!arrow)
		return snprintf(err, errlen, "an expectation is \"COMMAND => REGEX\""), -1;
	char *head = xstrndup(v, (size_t)(arrow - v));
	char *cmd = str_trim(head), *pat = str_trim(arrow + 4);
	free(head);
	int rc = -1;
	if (!*cmd || !*pat || strlen(cmd) > QZS_PART_MAX || strlen(pat) > QZS_PART_MAX)
		snprintf(err, errlen, "an expectation's command and pattern are 1 to %d bytes",
			 QZS_PART_MAX);
	else if (qzs_expect_cmd_check(cmd, err, errlen) < 0)
		;
	else if (qzs_has_backref(pat))
		snprintf(err, errlen, "a pattern may not use back-references (\\1...)");
	else if ((rc = regcomp(&e->re, pat, REG_EXTENDED | REG_NOSUB | REG_NEWLINE)) != 0) {
		char why[128];
		regerror(rc, &e->re, why, sizeof why);
		regfree(&e->re);
		snprintf(err, errlen, "bad pattern \"%.60s\": %s", pat, why);
		rc = -1;
	}
	if (rc < 0) {
		free(cmd);
		free(pat);
		return -1;
	}
	e->cmd = cmd;
	e->pattern = pat;
	return 0;
}

/* ---- the parser's side ---- */

static struct qzs_task *qzs_open_task(struct qzs_file *f)
{
	struct qzs_task *t = f->ntasks ? &f->tasks[f->ntasks - 1] : NULL;
	return t && t->done == (size_t)-1 ? t : NULL;
}

static int qzs_task_new(struct qzs_file *f, int lineno, const char *v, char *err, size_t errlen)
{
	if (qzs_open_task(f))
		return snprintf(err, errlen, "a task before the last one's \"#@ done\""), -1;
	if (!*v || strlen(v) > QZS_TEXT_MAX)
		return snprintf(err, errlen, "a task's text is 1 to %d bytes", QZS_TEXT_MAX), -1;
	if (f->ntasks >= QZS_TASKS_MAX)
		return snprintf(err, errlen, "more than %d tasks", QZS_TASKS_MAX), -1;
	XGROW(f->tasks, f->tasks_cap, f->ntasks + 1);
	f->tasks[f->ntasks++] = (struct qzs_task){
		.text = xstrdup(v), .lineno = lineno, .at = f->n, .done = (size_t)-1};
	return 1;
}

static int qzs_task_expect(struct qzs_file *f, int lineno, const char *v, char *err,
			   size_t errlen)
{
	struct qzs_task *t = qzs_open_task(f);
	if (!t)
		return snprintf(err, errlen, "an expectation outside a task"), -1;
	if (t->nexpects >= QZS_EXPECTS_MAX)
		return snprintf(err, errlen, "more than %d expectations", QZS_EXPECTS_MAX), -1;
	struct qzs_expect e;
	if (qzs_expect_parse(&e, v, err, errlen) < 0)
		return -1;
	e.lineno = lineno;
	t->expects = xrealloc(t->expects, (t->nexpects + 1) * sizeof *t->expects);
	t->expects[t->nexpects++] = e;
	return 1;
}

static int qzs_task_done(struct qzs_file *f, char *err, size_t errlen)
{
	struct qzs_task *t = qzs_open_task(f);
	if (!t || !t->nexpects)
		return snprintf(err, errlen, t ? "a task without an expectation" :
				"\"#@ done\" without a task"), -1;
	t->done = f->n;
	return 1;
}

int qzs_task_directive(struct qzs_file *f, int lineno, const char *key, size_t klen,
		       const char *v, char *err, size_t errlen)
{
	char k[8];
	if (klen >= sizeof k)
		return 0;
	memcpy(k, key, klen);
	k[klen] = 0;
	if (!strcmp(k, "task"))
		return qzs_task_new(f, lineno, v, err, errlen);
	if (!strcmp(k, "expect"))
		return qzs_task_expect(f, lineno, v, err, errlen);
	if (!strcmp(k, "done"))
		return qzs_task_done(f, err, errlen);
	return 0;
}

int qzs_task_finish(struct qzs_file *f, char *err, size_t errlen)
{
	for (size_t i = 0; i < f->ntasks; i++) {   /* a cut file lost its last command */
		if (f->tasks[i].at > f->n)
			f->tasks[i].at = f->n;
		if (f->tasks[i].done != (size_t)-1 && f->tasks[i].done > f->n)
			f->tasks[i].done = f->n;
	}
	struct qzs_task *t = qzs_open_task(f);
	if (!t)
		return 0;
	if (f->cut) {   /* recorded up to a crash: the task never ended */
		for (size_t i = 0; i < t->nexpects; i++)
			qzs_expect_free(&t->expects[i]);
		free(t->expects);
		free(t->text);
		f->ntasks--;
		return 0;
	}
	snprintf(err, errlen, "%s:%d: the task has no \"#@ done\" line", f->path, t->lineno);
	return -1;
}

void qzs_tasks_free(struct qzs_file *f)
{
	for (size_t i = 0; i < f->ntasks; i++) {
		for (size_t j = 0; j < f->tasks[i].nexpects; j++)
			qzs_expect_free(&f->tasks[i].expects[j]);
		free(f->tasks[i].expects);
		free(f->tasks[i].text);
	}
	free(f->tasks);
}

/* ---- checking an expectation ---- */

static void qzs_collect(void *arg, enum qz_out_kind kind, const char *text)
{
	struct sbuf *b = arg;
	if (kind != QZ_OUT_ERROR && b->len < QZS_MATCH_MAX)
		sbuf_add(b, text);
}

/* The output of a read-only command, run as a view and shown nowhere;
 * a print's value leaves the value history as it was, so checking an
 * expectation never shifts the $N a transcript shows. */
static bool qzs_run_quiet(struct qz *q, const char *cmd, struct sbuf *out)
{
	struct qz_sink old = q->sink;
	size_t nhist = q->nhistory;
	q->sink = (struct qz_sink){qzs_collect, out};
	sbuf_add(out, "");
	int r = cmd_run_view(q, cmd);
	q->sink = old;
	while (q->nhistory > nhist)
		val_free(&q->history[--q->nhistory]);
	sbuf_reset(&q->err);
	return r == CMD_OK;
}

/* What the latest command the user (or the file) typed printed: the UI's
 * own commands (keys, scrolling) are not it. */
static void qzs_printed(struct qz *q, struct sbuf *out)
{
	struct qzs_log *l = qzs_log(q);
	size_t i = l->n;
	while (i > 0 && (l->items[i - 1].hidden || l->items[i - 1].directive))
		i--;
	sbuf_add(out, i && l->items[i - 1].out.s ? l->items[i - 1].out.s : "");
	if (out->len > QZS_MATCH_MAX)
		out->s[out->len = QZS_MATCH_MAX] = 0;
}

bool qzs_task_met(struct qz *q, const struct qzs_expect *e, size_t n, struct sbuf *why)
{
	for (size_t i = 0; i < n; i++) {
		struct sbuf out = {0};
		bool ran = !strcmp(e[i].cmd, QZS_PRINTED) ? (qzs_printed(q, &out), true)
			: qzs_run_quiet(q, e[i].cmd, &out);
		bool ok = ran && regexec(&e[i].re, out.s, 0, NULL, 0) == 0;
		if (!ok && why)
			sbuf_printf(why, "`%s` printed: %s", e[i].cmd,
				    out.len ? out.s : "(nothing, or an error)\n");
		sbuf_free(&out);
		if (!ok)
			return false;
	}
	return true;
}

/* ---- the recording's side: caption, task, expect ---- */

int qzs_caption_check(const char *text, char *err, size_t errlen)
{
	if (!*text || strlen(text) > QZS_TEXT_MAX)
		return snprintf(err, errlen, "a caption is 1 to %d bytes", QZS_TEXT_MAX), -1;
	return 0;
}

/* The command being run becomes a directive in the file. */
static void qzs_directive(struct qz *q, const char *fmt, const char *text)
{
	struct qzs_log *l = qzs_log(q);
	if (!l->n)
		return;
	struct qzs_item *it = &l->items[l->n - 1];
	free(it->directive);
	it->directive = xasprintf(fmt, text);
}

static int qzs_text_arg(struct qz *q, const char *what, const char *a)
{
	if (!*a)
		return qz_error(q, "Argument required (the %s's text).", what);
	if (strlen(a) > QZS_TEXT_MAX)
		return qz_error(q, "A %s is at most %d bytes.", what, QZS_TEXT_MAX);
	return 0;
}

int cmd_caption(struct qz *q, const char *a)
{
	if (qzs_text_arg(q, "caption", a) < 0)
		return -1;
	qzs_directive(q, "caption %s", a);
	return 0;
}

void qzs_task_log_free(struct qzs_log *l)
{
	for (size_t i = 0; i < l->nexpects; i++)
		qzs_expect_free(&l->expects[i]);
	free(l->expects);
	l->expects = NULL;
	l->nexpects = 0;
	l->task_open = false;
}

int cmd_task(struct qz *q, const char *a)
{
	struct qzs_log *l = qzs_log(q);
	if (qzs_text_arg(q, "task", a) < 0)
		return -1;
	if (l->task_open)
		return qz_error(q, "A task is open: its expectations do not hold yet.");
	qzs_task_log_free(l);
	l->task_open = true;
	qzs_directive(q, "task %s", a);
	qz_printf(q, "Task: %s\nAdd what the answer must show with \"expect COMMAND => "
		  "REGEX\", then answer it.\n", a);
	return 0;
}

int cmd_expect(struct qz *q, const char *a)
{
	struct qzs_log *l = qzs_log(q);
	char err[256];
	struct qzs_expect e;
	if (!l->task_open)
		return qz_error(q, "No task: \"task TEXT\" first.");
	if (l->nexpects >= QZS_EXPECTS_MAX)
		return qz_error(q, "A task has at most %d expectations.", QZS_EXPECTS_MAX);
	if (qzs_expect_parse(&e, a, err, sizeof err) < 0)
		return qz_error(q, "expect: %s.", err);
	l->expects = xrealloc(l->expects, (l->nexpects + 1) * sizeof *l->expects);
	l->expects[l->nexpects++] = e;
	qzs_directive(q, "expect %s", a);
	qz_printf(q, "Expecting `%s` to match /%s/.\n", e.cmd, e.pattern);
	return 0;
}

/* After each command of a recording with an open task: once every
 * expectation holds, "#@ done" follows that command. */
void qzs_task_after(struct qz *q)
{
	struct qzs_log *l = qzs_log(q);
	if (!l->task_open || !l->nexpects || q->replaying || !l->n || l->items[l->n - 1].directive)
		return;   /* checked after the answer's commands, not the directives */
	if (!qzs_task_met(q, l->expects, l->nexpects, NULL))
		return;
	XGROW(l->items, l->cap, l->n + 1);
	struct qzs_item *it = &l->items[l->n++];
	memset(it, 0, sizeof *it);
	it->cmd = xstrdup("");
	it->directive = xstrdup("done");
	sbuf_add(&it->out, "");
	qzs_task_log_free(l);
	q->sink.write(q->sink.arg, QZ_OUT_TEXT, "Task done: every expectation holds.\n");
}
