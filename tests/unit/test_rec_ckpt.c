/* test_rec_ckpt: the slice module's checkpoint hooks, as a rollback will
 * use them: a save while recording and a restore later cut the recording
 * back to the save point, with the same instance counts, so recording on
 * from there numbers instances as the first time; slices computed before
 * keep their instance numbers. */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "modules.h"
#include "target/session.h"
#include "unit.h"
#include "../../slice/slice.h"

static struct sbuf out;

static void sink(void *arg, enum qz_out_kind kind, const char *text)
{
	(void)arg;
	(void)kind;
	sbuf_add(&out, text);
}

static int cmd(struct qz *q, const char *line)
{
	sbuf_reset(&out);
	return cmd_run(q, line);
}

int main(void)
{
	struct qz *q = qz_new((struct qz_sink){ sink, NULL });
	modules_init(q);
	const struct qz_mod *h = mod_find(q, "slice");
	unit_check(h && h->save && h->restore && h->free_saved, "slice registers its hooks", "");
	if (!h || qz_load(q, "tests/build/sl_rec-O0", NULL, 0) < 0)
		return 0;
	cmd(q, "break sl_rec.c:18");
	cmd(q, "run");
	cmd(q, "record on");
	cmd(q, "next");
	struct rec *r = slice_rec(q);
	uint64_t n1 = r->tr.n;
	size_t insts1 = r->tr.insts.n;
	void *saved = h->save(q);
	cmd(q, "break sl_rec.c:20");
	cmd(q, "continue");
	cmd(q, "slice sl_rec.c:19");
	char *first = xstrdup(out.s ? out.s : "");
	uint64_t n2 = r->tr.n;
	unit_check(n1 > 0 && n2 > n1, "recorded on after the save", "n1 %llu n2 %llu",
	      (unsigned long long)n1, (unsigned long long)n2);
	h->restore(q, saved);
	unit_check(r->tr.n == n1 && r->tr.insts.n >= insts1, "restore cuts the recording back",
	      "n %llu (want %llu)", (unsigned long long)r->tr.n, (unsigned long long)n1);
	unit_check(r->on && q->driver != NULL, "recording stays on after the restore", "");
	cmd(q, "info slice 1");
	unit_check(out.s && strstr(out.s, "sl_rec.c:12 #1,#2,#3,#4"), "slices from before keep their instances",
	      "%s", out.s ? out.s : "");
	/* Recording the same region again in a new run numbers it the same
	 * way, and the new instances do not disturb the earlier slice. */
	cmd(q, "info slice 1");
	char *before = xstrdup(out.s ? out.s : "");
	h->free_saved(saved);
	cmd(q, "run");
	cmd(q, "record on");
	cmd(q, "continue");
	cmd(q, "slice sl_rec.c:19");
	cmd(q, "info slice 2");
	const char *again = out.s ? strchr(out.s, '\n') : NULL;
	const char *was = strchr(before, '\n');
	unit_check(again && was && strcmp(again, was) == 0, "a new run gives the same slice",
	      "before:\n%s\nafter:\n%s", before, out.s ? out.s : "");
	cmd(q, "info slice 1");
	unit_check(out.s && strcmp(out.s, before) == 0, "the earlier slice is unchanged", "%s", out.s);
	free(before);
	free(first);
	cmd(q, "kill");
	qz_free(q);
	sbuf_free(&out);
	return 0;
}
