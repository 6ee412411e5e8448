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

/* Evaluate cands[at] (not known yet) together with up to batch-1 of the
 * following unknown candidates; the others' outcomes wait in ahead. */
static int dd_eval_from(struct dd *d, const struct dd_cfg *cands, const uint64_t *keys,
			size_t at, size_t n)
{
	size_t cap = d->batch ? d->batch : 1, k = 0;
	struct dd_cfg *b = xmalloc(cap * sizeof *b);
	uint64_t *bk = xmalloc(cap * sizeof *bk);
	int *out = xmalloc(cap * sizeof *out);
	for (size_t i = at; i < n && k < cap; i++) {
		if (hmap_get(&d->cache, keys[i]) || hmap_get(&d->ahead, keys[i]))
			continue;
		bool dup = false;
		for (size_t j = 0; j < k && !dup; j++)
			dup = bk[j] == keys[i];
		if (dup)
			continue;
		b[k] = cands[i];
		bk[k++] = keys[i];
	}
	int rc = d->test(d->arg, b, k, out);
	if (rc == 0) {
		d->launched += k;
		for (size_t j = 1; j < k; j++)
			hmap_put(&d->ahead, bk[j], dd_val(out[j]));
		hmap_put(&d->cache, bk[0], dd_val(out[0]));
		d->runs++;
	}
	free(b);
	free(bk);
	free(out);
	return rc;
}

/* The outcome of cands[i] as the sequential algorithm sees it. */
static int dd_outcome_of(struct dd *d, const struct dd_cfg *cands, const uint64_t *keys,
			 size_t i, size_t n)
{
	void *v = hmap_get(&d->cache, keys[i]);
	if (v) {
		d->cached++;
		return (int)(uintptr_t)v;
	}
	v = hmap_get(&d->ahead, keys[i]);
	if (v && v != DD_USED) {
		hmap_put(&d->ahead, keys[i], DD_USED);   /* hmap removes nothing */
		hmap_put(&d->cache, keys[i], v);
		d->runs++;
		return (int)(uintptr_t)v;
	}
	if (dd_eval_from(d, cands, keys, i, n) < 0)
		return -1;
	return (int)(uintptr_t)hmap_get(&d->cache, keys[i]);
}

/* Index of the first failing candidate, -1 if none, -2 if stopped. */
static long dd_first_fail(struct dd *d, const struct dd_cfg *cands, size_t n)
{
	uint64_t *keys = xmalloc((n ? n : 1) * sizeof *keys);
	for (size_t i = 0; i < n; i++)
		keys[i] = dd_key(d, &cands[i]);
	long r = -1;
	for (size_t i = 0; i < n && r == -1; i++) {
		int o = dd_outcome_of(d, cands, keys, i, n);
		if (o < 0)
			r = -2;
		else if (o == DD_FAIL)
			r = (long)i;
	}
	free(keys);
	return r;
}

int dd_test1(struct dd *d, const uint32_t *ids, size_t n)
{
	struct dd_cfg c = { ids, n };
	long r = dd_first_fail(d, &c, 1);
	return r == -2 ? -1 : r == 0 ? DD_FAIL : (int)(uintptr_t)hmap_get(&d->cache, dd_key(d, &c));
}

void dd_known(struct dd *d, const uint32_t *ids, size_t n, int outcome)
{
	struct dd_cfg c = { ids, n };
	hmap_put(&d->cache, dd_key(d, &c), dd_val(outcome));
}

/* Subsets (unless complements only) then complements of c split in n. */
static size_t dd_candidates(const struct dd *d, const uint32_t *c, size_t len, size_t n,
			    uint32_t *store, struct dd_cfg *cands)
{
	size_t k = 0, used = 0;
	if (!d->complements_only || n == 2)
		for (size_t i = 0; i < n; i++) {
			size_t lo = i * len / n, hi = (i + 1) * len / n;
			cands[k++] = (struct dd_cfg){ c + lo, hi - lo };
		}
	if (n == 2)
		return k;   /* the complements are the subsets */
	for (size_t i = 0; i < n; i++) {
		size_t lo = i * len / n, hi = (i + 1) * len / n;
		uint32_t *s = store + used;
		memcpy(s, c, lo * sizeof *c);
		memcpy(s + lo, c + hi, (len - hi) * sizeof *c);
		cands[k++] = (struct dd_cfg){ s, len - (hi - lo) };
		used += len - (hi - lo);
	}
	return k;
}

int dd_min(struct dd *d, const uint32_t *ids, size_t len, uint32_t **out, size_t *nout)
{
	uint32_t *c = xmemdup(ids, (len ? len : 1) * sizeof *ids);
	size_t n = 2;
	int rc = 0;
	while (len >= 2) {
		if (n > len)
			n = len;
		uint32_t *store = xmalloc(n * len * sizeof *store);
		struct dd_cfg *cands = xmalloc(2 * n * sizeof *cands);
		size_t nc = dd_candidates(d, c, len, n, store, cands);
		long f = dd_first_fail(d, cands, nc);
		if (f >= 0) {
			bool subset = !d->complements_only && (size_t)f < n;
			memmove(c, cands[f].ids, cands[f].n * sizeof *c);
			len = cands[f].n;
			n = subset ? 2 : (n - 1 > 2 ? n - 1 : 2);
			if (d->step)
				d->step(d->arg, &(struct dd_cfg){ c, len });
		}
		free(store);
		free(cands);
		if (f == -2) {
			d->stopped = true;
			rc = -1;
			break;
		}
		if (f < 0) {
			if (n >= len)
				break;
			n = 2 * n < len ? 2 * n : len;
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
