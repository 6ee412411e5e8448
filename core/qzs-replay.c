/* qzs-replay: running a session file's commands again. A replayed file is
 * data: commands that reach outside the debugger (a shell, a pipe) are
 * refused, and file writes are kept under the current directory
 * (qzs_may_write). Going back a step uses checkpoints, through the same
 * commands a user would type. */
#define _GNU_SOURCE
#include "qzs.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "../ckpt/ckpt.h"

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

/* Commands a replayed file may not run. None of these exist in qzdb today;
 * the list keeps a future `shell` from becoming a hole. */
static bool qzs_refused(const char *cmd)
{
	static const char *const words[] = { "shell", "pipe", "make", "!", "|", NULL };
	const char *s = str_skip_space(cmd);
	if (*s == '!' || *s == '|')
		return true;
	size_t n = strcspn(s, " \t");
	for (int i = 0; words[i]; i++)
		if (strlen(words[i]) == n && !strncmp(s, words[i], n))
			return true;
	return false;
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
	int h = ckpt_hidden_take(q);
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
	if (ckpt_hidden_rollback(q, ckpts[i - 1]) < 0) {
		qz_printf(q, "Cannot go back: %s\n", q->err.s ? q->err.s : "");
		return i;
	}
	qz_printf(q, "[back one step]\n");
	return i - 1;
}

static int qzs_one(struct qz *q, const struct qzs_file *f, const struct qzs_entry *e,
		   const struct qzs_replay *r)
{
	if (qzs_refused(e->cmd)) {   /* skipped; the replay goes on */
		qz_error(q, "%s:%d: a session file may not run `%s`: skipped, not run.",
			 f->path, e->lineno, e->cmd);
		q->sink.write(q->sink.arg, QZ_OUT_ERROR, q->err.s);
		return 2;
	}
	if (cmd_run(q, e->cmd) == CMD_QUIT)
		return -1;
	if (r->check && !qzs_output_matches(e->output, qzs_last_output(q))) {
		qzs_show_diff(q, f, e, qzs_last_output(q));
		return 1;
	}
	return 0;
}

int qzs_replay_run(struct qz *q, const struct qzs_file *f, const struct qzs_replay *r)
{
	int *ckpts = xcalloc(f->n + 1, sizeof *ckpts);
	int rc = 0;
	bool refused = false;   /* a refused command makes the replay fail at the end */
	q->replaying = true;
	for (size_t i = 0; i < f->n && rc == 0;) {
		const struct qzs_entry *e = &f->entries[i];
		if (e->comment)
			qzs_show_caption(q, e->comment);
		qz_printf(q, "(qzdb) %s\n", e->cmd);
		if (r->wait_key) {
			qzs_mark(q, ckpts, i);
			int k = r->wait_key(r->arg);
			if (k == 'q')
				break;
			if (k == 'b') {
				i = qzs_back(q, ckpts, i);
				continue;
			}
		}
		rc = qzs_one(q, f, e, r);
		if (rc == 2) {
			refused = true;
			rc = 0;
		}
		if (r->after)
			r->after(r->arg);
		i++;
	}
	if (rc == 0 && f->trailer)
		qzs_show_caption(q, f->trailer);
	q->replaying = false;
	free(ckpts);
	return rc > 0 || refused ? 1 : 0;
}
