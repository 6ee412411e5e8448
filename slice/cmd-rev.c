/* cmd-rev: the reverse-execution commands (gdb's names) and their
 * settings; parsing and printing only, the work is in rev.c. */
#include "rev.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/session.h"
#include "rec.h"
#include "slice.h"

/* With set exec-direction reverse in effect the forward command runs
 * this one (core's cmd_reversed); typed, it is refused as gdb does. */
static int cr_forward_twin(struct qz *q, const char *fwd)
{
	if (!q->exec_reverse || !rev_can(q))
		return 0;
	return qz_error(q, "Already in reverse mode.  Use '%s' or 'set exec-dir forward'.", fwd);
}

/* A repeat count: empty means 1. */
static int cr_count(struct qz *q, const char *a, int *n)
{
	int64_t v;
	const char *s = str_skip_space(a ? a : "");
	*n = 1;
	if (!*s)
		return 0;
	if (!str_to_i64(s, &v) || v < 0 || v > 1000000000)
		return qz_error(q, "Invalid number \"%s\".", s);
	*n = (int)v;
	return 0;
}

int cmd_reverse_stepi(struct qz *q, const char *a)
{
	int n;
	return cr_forward_twin(q, "stepi") < 0 || cr_count(q, a, &n) < 0 ? -1 : rev_stepi(q, n, false);
}

int cmd_reverse_nexti(struct qz *q, const char *a)
{
	int n;
	return cr_forward_twin(q, "nexti") < 0 || cr_count(q, a, &n) < 0 ? -1 : rev_stepi(q, n, true);
}

int cmd_reverse_step(struct qz *q, const char *a)
{
	int n;
	return cr_forward_twin(q, "step") < 0 || cr_count(q, a, &n) < 0 ? -1 : rev_step(q, n);
}

int cmd_reverse_next(struct qz *q, const char *a)
{
	int n;
	return cr_forward_twin(q, "next") < 0 || cr_count(q, a, &n) < 0 ? -1 : rev_next(q, n);
}

int cmd_reverse_finish(struct qz *q, const char *a)
{
	if (cr_forward_twin(q, "finish") < 0)
		return -1;
	if (*str_skip_space(a ? a : ""))
		return qz_error(q, "The \"reverse-finish\" command does not take any arguments.");
	return rev_finish(q);
}

int cmd_reverse_continue(struct qz *q, const char *a)
{
	(void)a;
	return cr_forward_twin(q, "continue") < 0 ? -1 : rev_continue(q);
}

int cmd_last(struct qz *q, const char *a)
{
	return rev_last(q, str_skip_space(a ? a : ""));
}

int cmd_goto_instance(struct qz *q, const char *a)
{
	return rev_goto_instance(q, a ? a : "");
}

/* record goto begin|start|end|N: N as gdb numbers instructions (the
 * number executed since recording began: begin is the first's). */
int cmd_record_goto(struct qz *q, const char *a)
{
	const struct rec *r = slice_rec(q);
	const char *s = str_skip_space(a ? a : "");
	uint64_t n;
	if (strcmp(s, "begin") == 0 || strcmp(s, "start") == 0)
		return rev_goto(q, r->undo.first);
	if (strcmp(s, "end") == 0)
		return rev_goto(q, r->tr.n);
	if (!str_to_u64(s, &n))
		return qz_error(q, "Usage: record goto begin|end|N");
	return rev_goto(q, n);
}

int rev_set(struct qz *q, const char *a)
{
	struct rev_log *l = &slice_rec(q)->undo;
	const char *s = str_skip_space(a);
	uint64_t n;
	if (str_starts(s, "undo-limit")) {
		s = str_skip_space(s + 10);
		if (strcmp(s, "unlimited") == 0)
			n = SIZE_MAX;
		else if (!str_to_u64(s, &n) || n < 4096)
			return qz_error(q, "Usage: set record undo-limit BYTES (at least 4096)|unlimited");
		l->limit = (size_t)n;
		return 0;
	}
	s = str_skip_space(s + 4);   /* "undo" */
	if (strcmp(s, "on") != 0 && strcmp(s, "off") != 0)
		return qz_error(q, "Usage: set record undo on|off");
	if (q->in_past)
		return qz_present(q);
	l->disabled = strcmp(s, "off") == 0;
	return 0;
}

void rev_info(struct qz *q)
{
	const struct rec *r = slice_rec(q);
	const struct rev_log *l = &r->undo;
	if (l->disabled) {
		qz_puts(q, "Undo log: off.\n");
		return;
	}
	if (!l->noff)
		return;
	qz_printf(q, "%s mode:\n", q->in_past ? "Replay" : "Record");
	qz_printf(q, "Lowest recorded instruction number is %llu.\n",
		  (unsigned long long)l->first + 1);
	if (q->in_past)
		qz_printf(q, "Current instruction number is %llu.\n", (unsigned long long)l->pos);
	qz_printf(q, "Highest recorded instruction number is %llu.\n",
		  (unsigned long long)r->tr.n);
	qz_printf(q, "Undo log: %llu instructions, %zu bytes (%.1f bytes per instruction), "
		  "limit %zu bytes", (unsigned long long)l->noff, rev_bytes(l),
		  (double)rev_bytes(l) / (double)l->noff, l->limit ? l->limit : REV_LIMIT_DEFAULT);
	if (l->dropped)
		qz_printf(q, "; %llu oldest dropped", (unsigned long long)l->dropped);
	qz_puts(q, ".\n");
	if (rev_file_bytes(l))
		qz_printf(q, "Undo log: %llu of its bytes in a temporary file, the newest %llu in "
			  "memory.\n", (unsigned long long)rev_file_bytes(l),
			  (unsigned long long)(l->len - l->mem_base));
	if (l->applied)
		qz_printf(q, "Applied %llu entries in %.3f s (%.2f us each).\n",
			  (unsigned long long)l->applied, l->apply_secs,
			  l->apply_secs * 1e6 / (double)l->applied);
}
