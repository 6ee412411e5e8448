/* Checkpoints and the other modules' state: a module registered with
 * struct qz_mod has its state saved by `checkpoint`, given back by `rollback`
 * (each time, to the checkpoint's own copy) and freed when the checkpoint
 * goes (cdelete, or the process ending). Drives a real session on
 * tests/build/ckpt_prop-O0. */
#include <stdlib.h>
#include <string.h>

#include "ckpt/ckpt.h"
#include "cmd/cmd.h"
#include "modules.h"
#include "target/session.h"
#include "unit.h"

static struct sbuf out;
static int value, saves, restores, frees;

static void sink(void *arg, enum qz_out_kind kind, const char *text)
{
	(void)arg;
	(void)kind;
	sbuf_add(&out, text);
}

static void *fake_save(struct qz *q)
{
	(void)q;
	int *p = xmalloc(sizeof *p);
	*p = value;
	saves++;
	return p;
}

static void fake_restore(struct qz *q, const void *saved)
{
	(void)q;
	value = *(const int *)saved;
	restores++;
}

static void fake_free(void *saved)
{
	free(saved);
	frees++;
}

static const struct qz_mod fake = {
	.name = "fake", .save = fake_save, .restore = fake_restore, .free_saved = fake_free,
};

static int run(struct qz *q, const char *cmd)
{
	sbuf_reset(&out);
	return cmd_run(q, cmd);
}

int main(void)
{
	struct qz *q = qz_new((struct qz_sink){sink, NULL});
	modules_init(q);
	mod_add(q, &fake);
	if (qz_load(q, "tests/build/ckpt_prop-O0", NULL, 0) < 0) {
		unit_check(false, "ckpt: load fixture", "%s", q->err.s);
		return 0;
	}
	run(q, "break mark");
	run(q, "run");
	value = 1;
	unit_check(run(q, "checkpoint") == CMD_OK && saves == 1, "ckpt: checkpoint saves the module's state",
	      "saves %d, output %s", saves, out.s);
	value = 2;
	run(q, "continue");
	run(q, "checkpoint");
	value = 3;
	unit_check(run(q, "rollback 1") == CMD_OK && value == 1 && restores == 1,
	      "ckpt: rollback restores it", "value %d restores %d", value, restores);
	value = 4;
	unit_check(run(q, "rollback 1") == CMD_OK && value == 1, "ckpt: again, from the same copy",
	      "value %d", value);
	unit_check(run(q, "rollback 2") == CMD_OK && value == 2, "ckpt: rollback to the other checkpoint",
	      "value %d", value);
	run(q, "cdelete 1");
	unit_check(frees == 1, "ckpt: cdelete frees its copy", "frees %d", frees);
	run(q, "kill");
	unit_check(frees == 2, "ckpt: the process ending frees the rest", "frees %d", frees);
	unit_check(run(q, "rollback 2") == CMD_FAIL && strstr(q->err.s, "went with it"),
	      "ckpt: no rollback once the process is gone", "%s", q->err.s ? q->err.s : "");
	qz_free(q);
	sbuf_free(&out);
	return 0;
}
