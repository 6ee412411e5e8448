/* The userfaultfd left in the program (where qzdb may not take a copy of
 * it): it sits near the program's descriptor limit, and a program that
 * closes it (close_range) or puts a file over its number (dup2) gets a
 * new one at the next rollback, said in one line; the rollback is
 * complete (dumps equal). Drives tests/build/ckpt_close-O0. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt/ckpt.h"
#include "ckpt/ckpt-int.h"
#include "cmd/cmd.h"
#include "modules.h"
#include "target/session.h"
#include "unit.h"

static struct sbuf out;

static void sink(void *arg, enum qz_out_kind kind, const char *text)
{
	(void)arg;
	(void)kind;
	sbuf_add(&out, text);
}

static bool same_file(const char *a, const char *b)
{
	char *r = unit_run("cmp %s %s >/dev/null 2>&1 && echo same", a, b);
	bool same = !strcmp(r, "same\n");
	free(r);
	return same;
}

/* The program's userfaultfd number: a descriptor near its limit. */
static bool uffd_high(struct qz *q)
{
	char *r = unit_run("ls -l /proc/%d/fd | grep -c 'userfaultfd'", proc_pid(q->proc));
	char *h = unit_run("ls /proc/%d/fd | sort -n | tail -1", proc_pid(q->proc));
	bool ok = atoi(r) == 1 && atoi(h) > 900;
	free(r);
	free(h);
	return ok;
}

static void one(const char *mode)
{
	char name[64], s1[64], r1[64];
	struct qz *q = qz_new((struct qz_sink){sink, NULL});
	modules_init(q);
	ckpt_state(q)->uffd_in_program = true;
	if (qz_load(q, "tests/build/ckpt_close-O0", (char *[]){(char *)mode}, 1) < 0) {
		unit_check(false, "uffd: load fixture", "%s", q->err.s);
		return;
	}
	snprintf(s1, sizeof s1, "tests/build/ckpt-uffd-%s.s1", mode);
	snprintf(r1, sizeof r1, "tests/build/ckpt-uffd-%s.r1", mode);
	cmd_run(q, "break ready");
	cmd_run(q, "break closed");
	cmd_run(q, "run");
	cmd_run(q, "checkpoint");
	snprintf(name, sizeof name, "uffd %s: in the program, near its limit", mode);
	unit_check(uffd_high(q), name, "no userfaultfd at a high number");
	cmd_run(q, "maint dump-state tests/build/ckpt-uffd-x");
	rename("tests/build/ckpt-uffd-x", s1);
	cmd_run(q, "continue");
	sbuf_reset(&out);
	int rc = cmd_run(q, "rollback 1");
	snprintf(name, sizeof name, "uffd %s: made again, said", mode);
	unit_check(rc == CMD_OK && strstr(out.s ? out.s : "", "The program closed qzdb's userfaultfd "
				     "(descriptor ") && strstr(out.s, "made again as descriptor"),
	      name, "rc %d, output %s, error %s", rc, out.s ? out.s : "", q->err.s ? q->err.s : "");
	cmd_run(q, "maint dump-state tests/build/ckpt-uffd-x");
	rename("tests/build/ckpt-uffd-x", r1);
	snprintf(name, sizeof name, "uffd %s: rollback complete", mode);
	unit_check(same_file(s1, r1), name, "%s and %s differ", s1, r1);
	snprintf(name, sizeof name, "uffd %s: new one near the limit", mode);
	unit_check(uffd_high(q), name, "no userfaultfd at a high number");
	cmd_run(q, "continue");
	sbuf_reset(&out);
	rc = cmd_run(q, "rollback 1");
	snprintf(name, sizeof name, "uffd %s: second rollback complete", mode);
	cmd_run(q, "maint dump-state tests/build/ckpt-uffd-x");
	unit_check(rc == CMD_OK && same_file(s1, "tests/build/ckpt-uffd-x"), name, "rc %d %s", rc,
	      q->err.s ? q->err.s : "");
	cmd_run(q, "kill");
	qz_free(q);
}

int main(void)
{
	one("close");
	one("dup2");
	sbuf_free(&out);
	return 0;
}
