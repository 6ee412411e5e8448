/* rec-emu-sites: what the emulate engine's hooks must look at (rec-emu.c):
 * the planted sites (sorted, and a filter of their hashed pcs: every
 * library block and every full hook asks), run targets, the returns the
 * watcher awaits. */
#include <stdlib.h>
#include <string.h>

#include "rec-emu-int.h"
#include "rec-int.h"
#include "slice.h"
#include "target/bp.h"
#include "target/run.h"
#include "target/session.h"
#include "util/util.h"

static int re_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* pc's bit of site_bits. */
static unsigned re_site_bit(uint64_t pc)
{
	return (unsigned)((pc * 0x9e3779b97f4a7c15ull) >> 54);   /* 1024 bits */
}

void re_collect_sites(struct rec_emu *x)
{
	const struct bp_table *t = &x->q->bps;
	x->nsites = 0;
	for (size_t i = 0; i < t->nsites; i++)
		if (t->sites[i].inserted) {
			XGROW(x->sites, x->sites_cap, x->nsites + 1);
			x->sites[x->nsites++] = t->sites[i].addr;
		}
	qsort(x->sites, x->nsites, sizeof *x->sites, re_cmp_u64);
	memset(x->site_bits, 0, sizeof x->site_bits);
	for (size_t i = 0; i < x->nsites; i++)
		x->site_bits[re_site_bit(x->sites[i]) >> 6] |= 1ull << (re_site_bit(x->sites[i]) & 63);
}

/* The index of the first site at or past a (nsites: none). */
static size_t re_site_from(const struct rec_emu *x, uint64_t a)
{
	size_t lo = 0, hi = x->nsites;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (x->sites[mid] < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool re_is_site(const struct rec_emu *x, uint64_t pc)
{
	unsigned b = re_site_bit(pc);
	if (!(x->site_bits[b >> 6] & 1ull << (b & 63)))
		return false;
	return x->sites[re_site_from(x, pc)] == pc;
}

/* The first site, run target or awaited return in [lo, hi), 0. */
uint64_t re_first_inside(const struct rec_emu *x, uint64_t lo, uint64_t hi)
{
	uint64_t first = 0;
	size_t a = re_site_from(x, lo);
	if (a < x->nsites && x->sites[a] < hi)
		first = x->sites[a];
	const struct run_target *t = x->r->target;
	for (int i = 0; t && i < t->n; i++)
		if (t->addr[i] >= lo && t->addr[i] < hi && (!first || t->addr[i] < first))
			first = t->addr[i];
	const struct slice_view_watch *w = &x->r->watch;
	for (size_t i = 0; w->at && i < *w->nrets; i++)
		if (w->rets[i] >= lo && w->rets[i] < hi && (!first || w->rets[i] < first))
			first = w->rets[i];
	return first;
}

/* Is pc one of the returns the watcher awaits in the machine? */
bool re_is_ret(const struct rec_emu *x, uint64_t pc)
{
	const struct slice_view_watch *w = &x->r->watch;
	for (size_t i = 0; w->at && i < *w->nrets; i++)
		if (w->rets[i] == pc)
			return true;
	return false;
}

/* Is pc a run target's address (whatever the stack)? */
bool re_target_at(const struct rec_emu *x, uint64_t pc)
{
	const struct run_target *t = x->r->target;
	for (int i = 0; t && i < t->n; i++)
		if (t->addr[i] == pc)
			return true;
	return false;
}
