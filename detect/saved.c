/* saved: the heap model follows the process through checkpoints: a
 * checkpoint copies it, a rollback puts the copy back (else a free
 * replayed after a rollback would look like a double free). */
#include <stdlib.h>
#include <string.h>

#include "detect-int.h"
#include "target/session.h"

struct det_saved {
	struct det_block *blocks;
	size_t nblocks;
	struct det_pending *pend;
	size_t npend;
	bool exit_seen;
	uint64_t skip_sp, skip_ret;
};

void *det_save(struct qz *q)
{
	struct detect_state *st = det_state(q);
	struct det_saved *s = xcalloc(1, sizeof *s);
	s->blocks = xmalloc((st->nall + 1) * sizeof *s->blocks);
	for (size_t i = 0; i < st->nall; i++)
		s->blocks[i] = *st->all[i];
	s->nblocks = st->nall;
	s->pend = xmalloc((st->npend + 1) * sizeof *st->pend);
	if (st->npend)
		memcpy(s->pend, st->pend, st->npend * sizeof *st->pend);
	s->npend = st->npend;
	s->exit_seen = st->exit_seen;
	s->skip_sp = st->skip_sp;
	s->skip_ret = st->skip_ret;
	return s;
}

void det_restore(struct qz *q, const void *saved)
{
	struct detect_state *st = det_state(q);
	const struct det_saved *s = saved;
	if (!s)
		return;
	/* the awaited returns: the sites of now go, those of then come back */
	for (size_t i = 0; qz_running(q) && i < st->npend; i++)
		if (!st->pend[i].machine)
			bp_site_del(&q->bps, q->proc, st->pend[i].ret);
	st->npend = 0;
	for (size_t i = 0; qz_running(q) && i < s->npend; i++)
		if (bp_site_add(&q->bps, q->proc, s->pend[i].ret) == 0) {
			XGROW(st->pend, st->pend_cap, st->npend + 1);
			st->pend[st->npend] = s->pend[i];
			st->pend[st->npend++].machine = false;   /* planted now */
		}
	det_mrets_sync(st);
	for (size_t i = 0; i < st->nall; i++)
		free(st->all[i]);
	st->nall = 0;
	hmap_free(&st->blocks);
	memset(&st->blocks, 0, sizeof st->blocks);
	for (size_t i = 0; i < s->nblocks; i++) {
		struct det_block *b = xmemdup(&s->blocks[i], sizeof *b);
		hmap_put(&st->blocks, b->addr, b);
		XGROW(st->all, st->all_cap, st->nall + 1);
		st->all[st->nall++] = b;
	}
	st->exit_seen = s->exit_seen;
	st->skip_sp = s->skip_sp;
	st->skip_ret = s->skip_ret;
	det_acc_rebuild(q, st);
}

void det_free_saved(void *saved)
{
	struct det_saved *s = saved;
	if (!s)
		return;
	free(s->blocks);
	free(s->pend);
	free(s);
}
