/* sbreak: slice breakpoints as entries of the breakpoint table (info
 * breakpoints lists them; delete, disable and enable work on them; they
 * stay across a rollback like every breakpoint). One entry per sbreak
 * command; the statements it covers are st->sb entries tagged with its
 * number. */
#include "sbreak.h"

#include <stdlib.h>
#include <string.h>

#include "rec.h"
#include "slice.h"
#include "target/bp.h"
#include "target/session.h"

struct sb_ext {
	struct qz *q;
	int num;
	int slice;
	size_t ninst;             /* slice instances it stops at */
};

/* Deleted: its statements go. */
static void sb_free(struct bp *b)
{
	struct sb_ext *x = b->ext;
	struct slice_state *st = slice_state(x->q);
	for (size_t k = 0; st && k < st->nsb;)
		if (st->sb[k].bp == x->num)
			st->sb[k] = st->sb[--st->nsb];
		else
			k++;
	free(x);
	b->ext = NULL;
}

static void sb_row(const struct bp *b, struct sbuf *out)
{
	const struct sb_ext *x = b->ext;
	const struct slice_state *st = slice_state(x->q);
	const struct trace *t = &st->rec.tr;
	char nb[256];
	sbuf_printf(out, "%-14s %-4s %-3s %-18s slice %d at ", "sbreak", "keep", b->enabled ? "y" : "n",
		    "", x->slice);
	size_t shown = 0;
	for (size_t k = 0; k < st->nsb; k++) {
		if (st->sb[k].bp != x->num || st->sb[k].stmt < 0 || (size_t)st->sb[k].stmt >= t->nstmts)
			continue;
		if (shown < 4)
			sbuf_printf(out, "%s%s", shown ? ", " : "",
				    rec_stmt_name(&st->rec, st->sb[k].stmt, nb, sizeof nb));
		shown++;
	}
	if (shown > 4)
		sbuf_printf(out, " and %zu more", shown - 4);
	sbuf_printf(out, " (%zu instance%s)\n", x->ninst, x->ninst == 1 ? "" : "s");
	if (b->hits)
		sbuf_printf(out, "\tbreakpoint already hit %d time%s\n", b->hits, b->hits == 1 ? "" : "s");
}

static const struct bp_ext_ops sb_ops = {
	.free = sb_free,
	.row = sb_row,
};

int sb_entry_new(struct qz *q, int slice, size_t ninst)
{
	struct bp *b = bp_new(&q->bps);
	struct sb_ext *x = xcalloc(1, sizeof *x);
	x->q = q;
	x->num = b->num;
	x->slice = slice;
	x->ninst = ninst;
	b->kind = BP_KIND_SBREAK;
	b->ext = x;
	b->ext_ops = &sb_ops;
	b->spec = xasprintf("slice %d", slice);
	return b->num;
}

bool sb_enabled(struct qz *q, int num, bool hit)
{
	struct bp *b = bp_find(&q->bps, num);
	if (!b || !b->enabled)
		return false;
	if (hit)
		b->hits++;
	return true;
}

void sb_delete_slice(struct qz *q, int slice)
{
	for (size_t i = q->bps.n; i-- > 0;) {
		struct bp *b = &q->bps.bps[i];
		if (b->kind == BP_KIND_SBREAK && b->ext && ((struct sb_ext *)b->ext)->slice == slice)
			bp_delete(&q->bps, q->proc, b->num);
	}
}

void sb_fini(struct qz *q)
{
	for (size_t i = 0; i < q->bps.n; i++) {
		struct bp *b = &q->bps.bps[i];
		if (b->kind != BP_KIND_SBREAK)
			continue;
		b->ext_ops = NULL;   /* the slice state is going */
		free(b->ext);
		b->ext = NULL;
	}
}
