/* dd: ddmin over unit ids with a cache and batched, in-order evaluation
 * (see dd.h). Split, test the subsets, then the complements; reduce to
 * the first that fails, else double the granularity until every unit is
 * its own subset: the result is then 1-minimal. */
#include "dd.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

uint64_t dd_hash(const uint32_t *ids, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull ^ n;
	for (size_t i = 0; i < n; i++)
		h = (h ^ ids[i]) * 0x100000001b3ull;
	return hmap_hash_u64(h) | 1;   /* never 0 */
}

static uint64_t dd_key(struct dd *d, const struct dd_cfg *c)
{
	return d->key ? d->key(d->arg, c) | 1 : dd_hash(c->ids, c->n);
}

/* An ahead entry the algorithm has taken into the cache. */
#define DD_USED ((void *)(uintptr_t)0xff)

static void *dd_val(int outcome)
{
	return (void *)(uintptr_t)outcome;
}

/* The candidates of one round, made on demand (a round at granularity n
 * has n complements of about len ids each: too many to hold at once for a
 * long input): c split in n parts, the parts (when subsets) then their
 * complements. n == 0: the one configuration c. */
struct dd_round {
	const uint32_t *c;
	size_t len, n, count;
	size_t from;              /* the first candidate looked at */
	bool subsets;
	uint64_t *keys;           /* 0: not computed yet */
};

static struct dd_cfg dd_cand(const struct dd_round *r, size_t i, uint32_t *buf)
{
	if (!r->n)
		return (struct dd_cfg){ r->c, r->len };
	if (r->subsets && i < r->n)
		return (struct dd_cfg){ r->c + i * r->len / r->n,
					(i + 1) * r->len / r->n - i * r->len / r->n };
	if (r->subsets)
		i -= r->n;
	size_t lo = i * r->len / r->n, hi = (i + 1) * r->len / r->n;
	memcpy(buf, r->c, lo * sizeof *buf);
	memcpy(buf + lo, r->c + hi, (r->len - hi) * sizeof *buf);
	return (struct dd_cfg){ buf, r->len - (hi - lo) };
}

static uint64_t dd_round_key(struct dd *d, struct dd_round *r, size_t i, uint32_t *buf)
{
	if (!r->keys[i]) {
		struct dd_cfg c = dd_cand(r, i, buf);
		r->keys[i] = dd_key(d, &c);
	}
	return r->keys[i];
}

/* Evaluate candidate at (not known yet) together with up to batch-1 of the
 * following unknown candidates; the others' outcomes wait in ahead. */
static int dd_eval_from(struct dd *d, struct dd_round *r, size_t at)
{
	size_t cap = d->batch ? d->batch : 1, k = 0;
	struct dd_cfg *b = xmalloc(cap * sizeof *b);
	uint64_t *bk = xmalloc(cap * sizeof *bk);
	uint32_t **bufs = xcalloc(cap, sizeof *bufs);
	int *out = xmalloc(cap * sizeof *out);
	for (size_t i = at; i < r->count && k < cap; i++) {
		if (!bufs[k])
			bufs[k] = xmalloc((r->len ? r->len : 1) * sizeof **bufs);
		uint64_t key = dd_round_key(d, r, i, bufs[k]);
		if (hmap_get(&d->cache, key) || hmap_get(&d->ahead, key))
			continue;
		bool dup = false;
		for (size_t j = 0; j < k && !dup; j++)
			dup = bk[j] == key;
		if (dup)
			continue;
		b[k] = dd_cand(r, i, bufs[k]);
		bk[k++] = key;
	}
	int rc = d->test(d->arg, b, k, out);
	if (rc == 0) {
		d->launched += k;
		for (size_t j = 1; j < k; j++)
			hmap_put(&d->ahead, bk[j], dd_val(out[j]));
		hmap_put(&d->cache, bk[0], dd_val(out[0]));
		d->runs++;
	}
	for (size_t j = 0; j < cap; j++)
		free(bufs[j]);
	free(bufs);
	free(b);
	free(bk);
	free(out);
	return rc;
}

/* The outcome of candidate i as the sequential algorithm sees it. */
static int dd_outcome_of(struct dd *d, struct dd_round *r, size_t i, uint32_t *buf)
{
	uint64_t key = dd_round_key(d, r, i, buf);
	void *v = hmap_get(&d->cache, key);
	if (v) {
		d->cached++;
		return (int)(uintptr_t)v;
	}
	v = hmap_get(&d->ahead, key);
	if (v && v != DD_USED) {
		hmap_put(&d->ahead, key, DD_USED);   /* hmap removes nothing */
		hmap_put(&d->cache, key, v);
		d->runs++;
		return (int)(uintptr_t)v;
	}
	if (dd_eval_from(d, r, i) < 0)
		return -1;
	return (int)(uintptr_t)hmap_get(&d->cache, key);
}

/* Index of the round's first failing candidate, -1 if none, -2 if
 * stopped. */
static long dd_first_fail(struct dd *d, struct dd_round *r)
{
	uint32_t *buf = xmalloc((r->len ? r->len : 1) * sizeof *buf);
	r->keys = xcalloc(r->count ? r->count : 1, sizeof *r->keys);
	long res = -1;
	for (size_t i = r->from; i < r->count && res == -1; i++) {
		int o = dd_outcome_of(d, r, i, buf);
		if (o < 0)
			res = -2;
		else if (o == DD_FAIL)
			res = (long)i;
	}
	free(buf);
	free(r->keys);
	r->keys = NULL;
	return res;
}

int dd_test1(struct dd *d, const uint32_t *ids, size_t n)
{
	struct dd_round r = { .c = ids, .len = n, .count = 1 };
	long f = dd_first_fail(d, &r);
	struct dd_cfg c = { ids, n };
	return f == -2 ? -1 : f == 0 ? DD_FAIL : (int)(uintptr_t)hmap_get(&d->cache, dd_key(d, &c));
}

void dd_known(struct dd *d, const uint32_t *ids, size_t n, int outcome)
{
	struct dd_cfg c = { ids, n };
	hmap_put(&d->cache, dd_key(d, &c), dd_val(outcome));
}

/* One unit out at a time, going on from where the last one went out
 * rather than from the start (ddmin at single units starts over after
 * each removal: a pass of the whole input per unit removed); a pass from
 * the start that removes nothing ends it. Configurations met again are
 * answered by the cache. */
int dd_min_linear(struct dd *d, const uint32_t *ids, size_t len, uint32_t **out, size_t *nout)
{
	uint32_t *c = xmemdup(ids, (len ? len : 1) * sizeof *ids);
	size_t from = 0;
	int rc = 0;
	while (len >= 2) {
		/* granularity len, complements: "c without unit i" */
		struct dd_round r = { .c = c, .len = len, .n = len, .count = len, .from = from };
		long f = dd_first_fail(d, &r);
		if (f == -2) {
			d->stopped = true;
			rc = -1;
			break;
		}
		if (f >= 0) {
			memmove(c + f, c + f + 1, (len - (size_t)f - 1) * sizeof *c);
			len--;
			from = (size_t)f;
			if (d->step)
				d->step(d->arg, &(struct dd_cfg){ c, len });
			continue;
		}
		if (from == 0)
			break;
		from = 0;
	}
	*out = c;
	*nout = len;
	return rc;
}

int dd_min(struct dd *d, const uint32_t *ids, size_t len, uint32_t **out, size_t *nout)
{
	uint32_t *c = xmemdup(ids, (len ? len : 1) * sizeof *ids);
	size_t n = 2, from = 0;
	int rc = 0;
	while (len >= 2) {
		if (n > len)
			n = len;
		if (d->linear_tail && n == len && len > 2) {
			uint32_t *res;
			rc = dd_min_linear(d, c, len, &res, &len);
			free(c);
			c = res;
			break;
		}
		/* with n == 2 the complements are the subsets */
		struct dd_round r = { .c = c, .len = len, .n = n, .from = from,
				      .subsets = !d->sweep && (!d->complements_only || n == 2) };
		r.count = r.subsets && n == 2 ? 2 : r.subsets ? 2 * n : n;
		long f = dd_first_fail(d, &r);
		if (f >= 0) {
			bool subset = r.subsets && n > 2 && (size_t)f < n;
			uint32_t *buf = xmalloc(len * sizeof *buf);
			struct dd_cfg now = dd_cand(&r, (size_t)f, buf);
			memmove(c, now.ids, now.n * sizeof *c);
			free(buf);
			len = now.n;
			n = subset ? 2 : (n - 1 > 2 ? n - 1 : 2);
			/* sweeping: the chunk that followed the removed one is
			 * at f now */
			from = d->sweep ? (size_t)f : 0;
			if (d->step)
				d->step(d->arg, &(struct dd_cfg){ c, len });
		}
		if (f == -2) {
			d->stopped = true;
			rc = -1;
			break;
		}
		if (f < 0) {
			if (n >= len && from) {   /* the pass at single units */
				from = 0;         /* starts at the first */
				continue;
			}
			if (n >= len)
				break;
			n = 2 * n < len ? 2 * n : len;
			from = 0;
		}
	}
	*out = c;
	*nout = len;
	return rc;
}

void dd_free(struct dd *d)
{
	hmap_free(&d->cache);
	hmap_free(&d->ahead);
}
