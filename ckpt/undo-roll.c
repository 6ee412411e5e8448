/* undo-roll: checkpoints and rollback with the undo engine (undo.c).
 *
 * The checkpoints form a tree rooted at the base, the checkpoint the live
 * memory started from: the base's pages are the pre-images logged since
 * (its content where the live memory now differs), any other checkpoint's
 * are its content where its parent (the next newer state) differs. A
 * checkpoint adds a root with no pages; nested checkpoints share
 * pre-images (a page written after both is saved once, in the newer);
 * deleting one merges its pages into the checkpoints that point at it
 * (ckpt.c). A rollback to c writes back every page on the path from c to
 * the base and turns the path round, so that c is the new base and every
 * other checkpoint keeps its content (the pages of the path are re-filed
 * under their new parents, sharing the saved copies).
 *
 * Memory the program drops (munmap, mremap, madvise, brk, mmap over) is
 * saved first: libc's calls are stopped at an int3; a drop qzdb did not
 * see coming (a raw system call) is counted by the fault thread's unmap
 * events and said at the next rollback. Private file mappings (.data)
 * cannot be write-protected this way: a shadow copy taken at the epoch's
 * start gives their pre-images by comparison at its end. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ckpt-int.h"
#include "target/run.h"
#include "util/sorted.h"

static uint8_t ckpt_zero_page[CKPT_PAGE];

/* ---- the shadow of private file mappings ---- */

void ckpt_shadow_free(struct ckpt_shadow *sh)
{
	for (size_t i = 0; i < sh->n; i++)
		ckpt_blob_unref(sh->p[i].blob);
	free(sh->p);
	free(sh->logged);
	memset(sh, 0, sizeof *sh);
}

/* Copy the pages of a (sorted) as they are now. */
static void ckpt_shadow_take(struct qz *q, struct ckpt_shadow *sh, const struct ckpt_addrs *a)
{
	ckpt_shadow_free(sh);
	if (!a->n)
		return;
	struct ckpt_blob **b = xmalloc(a->n * sizeof *b);
	uint8_t **bufs = xmalloc(a->n * sizeof *bufs);
	ckpt_blobs_alloc(a->n, b);
	sh->p = xmalloc(a->n * sizeof *sh->p);
	sh->logged = xcalloc(a->n, sizeof *sh->logged);
	for (size_t i = 0; i < a->n; i++) {
		bufs[i] = b[i]->data;
		sh->p[i] = (struct ckpt_page){a->a[i], b[i]};
	}
	sh->n = a->n;
	for (size_t i = 0; i < a->n; i++)   /* one at a time where a run fails */
		if (i == 0 && ckpt_mem_read(q, a->a, a->n, bufs) == 0)
			break;
		else if (ckpt_mem_read(q, &a->a[i], 1, &bufs[i]) < 0)
			memset(bufs[i], 0, CKPT_PAGE);
	for (size_t i = 0; i < a->n; i++)
		bp_mask(&q->bps, a->a[i], bufs[i], CKPT_PAGE);
	free(b);
	free(bufs);
}

/* Pages that changed since the shadow was taken (or went): the shadow's
 * copy is their pre-image, logged once an epoch; the shadow follows. */
static void ckpt_shadow_diff(struct qz *q, struct ckpt_state *s)
{
	struct ckpt_shadow *sh = &s->shadow;
	uint8_t *now = xmalloc(CKPT_PAGE);
	for (size_t i = 0; i < sh->n; i++) {
		uint64_t a = sh->p[i].addr;
		bool gone = ckpt_mem_read(q, &a, 1, &now) < 0;
		if (gone)
			memset(now, 0, CKPT_PAGE);
		else
			bp_mask(&q->bps, a, now, CKPT_PAGE);
		if (!memcmp(now, sh->p[i].blob->data, CKPT_PAGE))
			continue;
		struct ckpt_blob *nb;
		ckpt_blobs_alloc(1, &nb);
		memcpy(nb->data, now, CKPT_PAGE);
		if (!sh->logged[i])
			ckpt_undo_log(s->undo, a, sh->p[i].blob);
		else
			ckpt_blob_unref(sh->p[i].blob);
		sh->logged[i] = true;
		sh->p[i].blob = nb;
	}
	free(now);
}

void ckpt_undo_sync(struct qz *q, struct ckpt_state *s)
{
	if (!s->undo || !s->base)
		return;
	ckpt_shadow_diff(q, s);
	ckpt_undo_seal(s->undo, s->base);
}

/* The epoch from now: protection, the shadow, and the pages holding
 * planted int3s saved at once (masked), so no copy made later holds one. */
static void ckpt_undo_begin(struct qz *q, struct ckpt_state *s, const struct ckpt_os *os, bool full)
{
	struct ckpt_addrs sh = {0};
	ckpt_undo_epoch(s->undo, s, os, full, &sh);
	ckpt_shadow_take(q, &s->shadow, &sh);
	ckpt_addrs_free(&sh);
	for (size_t i = 0; i < q->bps.nsites; i++) {
		uint64_t pg = q->bps.sites[i].addr & ~(CKPT_PAGE - 1);
		if (q->bps.sites[i].inserted)
			ckpt_undo_save(s->undo, pg, pg + CKPT_PAGE, &q->bps);
	}
	ckpt_cut_plant(q, s);
}

int ckpt_undo_take(struct qz *q, struct ckpt_state *s, struct ckpt *c)
{
	bool first = !s->base;
	ckpt_undo_flush(s->undo);
	ckpt_undo_sync(q, s);
	if (s->base)
		s->base->parent = c;
	c->parent = NULL;
	XGROW(s->cps, s->cap, s->n + 1);
	s->cps[s->n++] = c;
	s->base = c;
	ckpt_undo_begin(q, s, &c->os, first);
	return 0;
}

/* ---- reading a checkpoint's pages ---- */

static const struct ckpt_page *ckpt_delta_at(const struct ckpt *c, uint64_t a)
{
	size_t i = SORTED_BELOW(c->pages, c->npages, addr, a);
	return i < c->npages && c->pages[i].addr == a ? &c->pages[i] : NULL;
}

/* A walk over a sorted page list asked for rising addresses: a merge
 * walk instead of a binary search a page (a rollback of 512 MiB asks
 * 131072 pages of each list); an address below the last one asked
 * searches again, so any order is still answered right. */
struct ckpt_walk {
	const struct ckpt_page *p;
	size_t n, i;
	uint64_t last;
};

static struct ckpt_walk ckpt_walk_of(const struct ckpt_page *p, size_t n)
{
	return (struct ckpt_walk){p, n, 0, 0};
}

static const struct ckpt_page *ckpt_walk_at(struct ckpt_walk *w, uint64_t a)
{
	if (a < w->last)
		w->i = SORTED_BELOW(w->p, w->n, addr, a);
	w->last = a;
	while (w->i < w->n && w->p[w->i].addr < a)
		w->i++;
	return w->i < w->n && w->p[w->i].addr == a ? &w->p[w->i] : NULL;
}

int ckpt_undo_page(struct qz *q, const struct ckpt *c, uint64_t a, uint8_t *buf)
{
	for (; c; c = c->parent) {
		const struct ckpt_page *p = ckpt_delta_at(c, a);
		if (p) {
			memcpy(buf, p->blob ? p->blob->data : ckpt_zero_page, CKPT_PAGE);
			return 0;
		}
	}
	if (ckpt_mem_read(q, &a, 1, &buf) < 0)
		return -1;
	bp_mask(&q->bps, a, buf, CKPT_PAGE);
	return 0;
}

/* ---- rollback ---- */

/* The path from c up to the base: path[0] = c. */
static size_t ckpt_path(struct ckpt *c, struct ckpt ***out)
{
	size_t n = 0, cap = 0;
	*out = NULL;
	for (; c; c = c->parent) {
		XGROW(*out, cap, n + 1);
		(*out)[n++] = c;
	}
	return n;
}

/* The live pages a rollback needs before it writes: (addr, blob) sorted;
 * a page that cannot be read (unmapped since) gets no blob: zeros. */
struct ckpt_live {
	struct ckpt_page *p;
	size_t n;
};

static void ckpt_live_read(struct qz *q, const struct ckpt_addrs *a, struct ckpt_live *l)
{
	l->p = xmalloc((a->n + 1) * sizeof *l->p);
	l->n = a->n;
	if (!a->n)
		return;
	struct ckpt_blob **b = xmalloc(a->n * sizeof *b);
	uint8_t **bufs = xmalloc(a->n * sizeof *bufs);
	ckpt_blobs_alloc(a->n, b);
	for (size_t i = 0; i < a->n; i++)
		bufs[i] = b[i]->data;
	bool all = ckpt_mem_read(q, a->a, a->n, bufs) == 0;
	for (size_t i = 0; i < a->n; i++) {
		if (!all && ckpt_mem_read(q, &a->a[i], 1, &bufs[i]) < 0) {
			ckpt_blob_unref(b[i]);
			b[i] = NULL;
		}
		if (b[i])
			bp_mask(&q->bps, a->a[i], b[i]->data, CKPT_PAGE);
		l->p[i] = (struct ckpt_page){a->a[i], b[i]};
	}
	free(b);
	free(bufs);
}

static void ckpt_live_free(struct ckpt_live *l)
{
	for (size_t i = 0; i < l->n; i++)
		ckpt_blob_unref(l->p[i].blob);
	free(l->p);
}

/* Walks over the path's deltas (walks[0..n-1]) and the live pages
 * (walks[n]), for the rising addresses ckpt_path_val is asked. */
static struct ckpt_walk *ckpt_path_walks(struct ckpt **path, size_t n, const struct ckpt_live *live)
{
	struct ckpt_walk *w = xmalloc((n + 1) * sizeof *w);
	for (size_t i = 0; i < n; i++)
		w[i] = ckpt_walk_of(path[i]->pages, path[i]->npages);
	w[n] = ckpt_walk_of(live->p, live->n);
	return w;
}

/* Page a of path[i] (a page some delta of the path holds, or live). */
static struct ckpt_blob *ckpt_path_val(struct ckpt_walk *walks, size_t n, size_t i, uint64_t a)
{
	for (; i < n; i++) {
		const struct ckpt_page *p = ckpt_walk_at(&walks[i], a);
		if (p)
			return p->blob;
	}
	const struct ckpt_page *p = ckpt_walk_at(&walks[n], a);
	return p ? p->blob : NULL;
}

/* The new delta of path[i]: its content at the pages of path[i - 1]'s
 * delta, and for path[1] also at the pages c lacks (extra: mapped now,
 * not at c; the rollback unmaps them). */
static size_t ckpt_reroot_one(struct ckpt **path, size_t n, size_t i, const struct ckpt_live *live,
			      const struct ckpt_addrs *extra, struct ckpt_page **out)
{
	const struct ckpt *prev = path[i - 1];
	size_t ne = i == 1 ? extra->n : 0, k = 0, j = 0, cnt = 0;
	struct ckpt_walk *walks = ckpt_path_walks(path, n, live);
	*out = xmalloc((prev->npages + ne + 1) * sizeof **out);
	while (k < prev->npages || j < ne) {
		uint64_t a;
		if (j >= ne || (k < prev->npages && prev->pages[k].addr <= extra->a[j])) {
			a = prev->pages[k++].addr;
			if (j < ne && extra->a[j] == a)
				j++;
		} else {
			a = extra->a[j++];
		}
		struct ckpt_blob *b = ckpt_path_val(walks, n, i, a);
		if (b)
			b->refs++;
		(*out)[cnt++] = (struct ckpt_page){a, b};
	}
	free(walks);
	return cnt;
}

/* Turn the path round: path[i + 1]'s new pages are its content where
 * path[i]'s differs; path[0] has none. */
static void ckpt_reroot(struct ckpt **path, size_t n, const struct ckpt_live *live,
			const struct ckpt_addrs *extra)
{
	struct ckpt_page **np = xcalloc(n, sizeof *np);
	size_t *cnts = xcalloc(n, sizeof *cnts);
	for (size_t i = 1; i < n; i++)
		cnts[i] = ckpt_reroot_one(path, n, i, live, extra, &np[i]);
	for (size_t i = n; i-- > 0;) {
		struct ckpt *c = path[i];
		size_t cnt = cnts[i];
		for (size_t k = 0; k < c->npages; k++)
			ckpt_blob_unref(c->pages[k].blob);
		free(c->pages);
		c->pages = np[i];
		c->npages = cnt;
		c->ndata = 0;
		for (size_t k = 0; k < cnt; k++)
			c->ndata += np[i][k].blob != NULL;
		c->parent = i ? path[i - 1] : NULL;
	}
	free(np);
	free(cnts);
}

/* Pages to write: every page of the path's deltas, with c's content. */
static void ckpt_path_pages_of(struct ckpt **path, size_t n, struct ckpt_addrs *out)
{
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < path[i]->npages; k++)
			ckpt_addrs_add(out, path[i]->pages[k].addr);
	ckpt_addrs_sort(out);
}

/* Of the pages written, what the rollback needs to read first: pages
 * not in the base's delta (the live content is their value for the
 * checkpoints between) and pages of maps the rollback maps again that
 * no delta holds (their content would go with the old mapping). */
/* Pages c does not have (nor its delta) that the checkpoints between c
 * and the base have: from the live memory (mapped now) or from a delta
 * further up (w: every page of the path's deltas). After the rollback
 * c's state has none of them, so path[1] must keep them itself. */
static void ckpt_live_extra(struct ckpt_state *s, struct ckpt *c, const struct ckpt_os *now,
			    const struct ckpt_addrs *w, struct ckpt_addrs *extra, struct ckpt_addrs *need)
{
	struct ckpt_walk cw = ckpt_walk_of(c->pages, c->npages);
	for (size_t i = 0; i < now->nmaps; i++) {
		const struct ckpt_map *m = &now->maps[i];
		if (!ckpt_map_tracked(s, m))
			continue;
		for (uint64_t a = m->lo; a < m->hi; a += CKPT_PAGE)
			if (!ckpt_page_tracked(s, c, a) && !ckpt_walk_at(&cw, a)) {
				ckpt_addrs_add(extra, a);
				ckpt_addrs_add(need, a);
			}
	}
	for (size_t i = 0; i < w->n; i++)
		if (!ckpt_page_tracked(s, c, w->a[i]) && !ckpt_walk_at(&cw, w->a[i]))
			ckpt_addrs_add(extra, w->a[i]);
	ckpt_addrs_sort(extra);
}

static void ckpt_live_needed(struct qz *q, struct ckpt_state *s, struct ckpt *c, bool path,
			     const struct ckpt_addrs *w, struct ckpt_addrs *need,
			     struct ckpt_addrs *keep, struct ckpt_addrs *extra)
{
	struct ckpt_os now;
	struct ckpt_walk bw = ckpt_walk_of(s->base->pages, s->base->npages);
	for (size_t i = 0; i < w->n; i++)
		if (!ckpt_walk_at(&bw, w->a[i]))
			ckpt_addrs_add(need, w->a[i]);
	if (ckpt_os_read(q, &now, CKPT_OS_MAPS) == 0) {
		if (path)
			ckpt_live_extra(s, c, &now, w, extra, need);
		struct ckpt_addrs re = {0};
		ckpt_remapped(q, s, c, &now, &re);
		ckpt_addrs_sort(&re);
		for (size_t i = 0; i < re.n; i++) {
			uint64_t a = re.a[i];
			size_t m = SORTED_UPTO(now.maps, now.nmaps, hi, a);
			if (m < now.nmaps && now.maps[m].lo <= a && !ckpt_addrs_has(w, a))
				ckpt_addrs_add(keep, a);
		}
		ckpt_addrs_free(&re);
		ckpt_os_free(&now);
	}
	ckpt_addrs_sort(need);
}

/* Write c's content: the path's pages and the kept live ones. */
static int ckpt_undo_write(struct qz *q, struct ckpt_state *s, struct ckpt *c,
			   struct ckpt **path, size_t n, const struct ckpt_addrs *w,
			   const struct ckpt_live *keep, const struct ckpt_live *live)
{
	struct ckpt_addrs d = {0};
	struct ckpt_walk *walks = ckpt_path_walks(path, n, live);
	uint8_t **bufs = xmalloc((w->n + keep->n + 1) * sizeof *bufs);
	for (size_t i = 0, j = 0; i < w->n || j < keep->n;) {
		bool fromw = j >= keep->n || (i < w->n && w->a[i] < keep->p[j].addr);
		uint64_t a = fromw ? w->a[i] : keep->p[j].addr;
		const struct ckpt_blob *b = fromw ? ckpt_path_val(walks, n, 0, a) : keep->p[j].blob;
		fromw ? i++ : j++;
		if (!ckpt_page_tracked(s, c, a))
			continue;
		bufs[d.n] = b ? b->data : ckpt_zero_page;
		ckpt_addrs_add(&d, a);
	}
	int r = ckpt_mem_write(q, d.a, d.n, bufs);
	if (r == 0)
		ckpt_replant(q, &d, bufs);
	free(walks);
	free(bufs);
	ckpt_addrs_free(&d);
	return r;
}

/* The next run of maps from *i that touch with the same protection:
 * [lo, hi) (VMAs merge and split as the kernel likes: registering them
 * with the userfaultfd merges a heap with the anonymous map before it). */
static bool ckpt_map_run(const struct ckpt_os *os, size_t *i, uint64_t *lo, uint64_t *hi, int *prot)
{
	if (*i >= os->nmaps)
		return false;
	const struct ckpt_map *m = &os->maps[(*i)++];
	*lo = m->lo;
	*hi = m->hi;
	*prot = m->prot | (m->shared ? 0x100 : 0);
	while (*i < os->nmaps && os->maps[*i].lo == *hi &&
	       (os->maps[*i].prot | (os->maps[*i].shared ? 0x100 : 0)) == *prot)
		*hi = os->maps[(*i)++].hi;
	return true;
}

/* Are the maps now those of c (nothing mapped, unmapped or moved since)? */
static bool ckpt_maps_as_at(struct qz *q, const struct ckpt *c)
{
	struct ckpt_os now;
	if (ckpt_os_read(q, &now, CKPT_OS_MAPS) < 0)
		return false;
	size_t i = 0, j = 0;
	uint64_t lo1, hi1, lo2, hi2;
	int p1, p2;
	bool same = true, more;
	while (same && (more = ckpt_map_run(&now, &i, &lo1, &hi1, &p1)))
		same = ckpt_map_run(&c->os, &j, &lo2, &hi2, &p2) && lo1 == lo2 && hi1 == hi2 && p1 == p2;
	same = same && j == c->os.nmaps;
	ckpt_os_free(&now);
	return same;
}

int ckpt_undo_restore(struct qz *q, struct ckpt_state *s, struct ckpt *c)
{
	struct ckpt **path;
	struct ckpt_addrs w = {0}, need = {0}, keep = {0}, remap = {0}, extra = {0};
	struct ckpt_live live = {0}, kept = {0};
	ckpt_undo_flush(s->undo);
	/* back to the base itself, the maps as they were: the save agent puts
	   its runs back in the program (moved, not copied); the rest as below */
	if (c == s->base && ckpt_maps_as_at(q, c))
		ckpt_undo_agent_roll(s->undo);
	ckpt_undo_sync(q, s);
	size_t n = ckpt_path(c, &path);
	if (!n || path[n - 1] != s->base) {
		free(path);
		return qz_error(q, "Checkpoint %d is not connected to the current state.", c->id);
	}
	ckpt_path_pages_of(path, n, &w);
	ckpt_live_needed(q, s, c, n > 1, &w, &need, &keep, &extra);
	ckpt_live_read(q, &need, &live);
	ckpt_live_read(q, &keep, &kept);
	struct ckpt_addrs rel = {0};
	for (size_t i = 0; i < w.n; i++)
		ckpt_addrs_add(&rel, w.a[i]);
	for (size_t i = 0; i < keep.n; i++)
		ckpt_addrs_add(&rel, keep.a[i]);
	ckpt_addrs_sort(&rel);
	ckpt_undo_release(s->undo, &rel);
	ckpt_addrs_free(&rel);
	int rc = ckpt_restore_os(q, s, c, &remap);
	if (rc == 0)
		rc = ckpt_undo_write(q, s, c, path, n, &w, &kept, &live);
	ckpt_reroot(path, n, &live, &extra);   /* the data now holds c's content */
	s->base = c;
	struct sbuf where = {0};
	uint64_t lost = ckpt_undo_lost(s->undo, true, &where);
	struct ckpt_os now;
	if (ckpt_os_read(q, &now, CKPT_OS_MAPS) == 0) {
		ckpt_undo_begin(q, s, &now, false);
		ckpt_os_free(&now);
	}
	ckpt_undo_lost(s->undo, true, NULL);   /* the rollback's own unmapping */
	if (lost)
		qz_warn(q, "%llu page%s dropped by a system call qzdb did not stop at (not "
			"through libc), not saved first: %s read%s as zeros after this rollback, "
			"not as at checkpoint %d; the rest is as it was.", (unsigned long long)lost,
			lost == 1 ? " was" : "s were", where.s, lost == 1 ? "s" : "", c->id);
	sbuf_free(&where);
	ckpt_live_free(&live);
	ckpt_live_free(&kept);
	ckpt_addrs_free(&w);
	ckpt_addrs_free(&need);
	ckpt_addrs_free(&keep);
	ckpt_addrs_free(&remap);
	ckpt_addrs_free(&extra);
	free(path);
	return rc;
}

/* ---- libc's calls that drop memory ---- */

static const char *const ckpt_cut_names[CKPT_NCUT] = {"munmap", "mremap", "madvise", "mmap", "brk"};

static void ckpt_cut_module(struct qz *q, struct ckpt_state *s, const struct qz_module *m)
{
	for (int k = 0; m->img && m->lo && k < CKPT_NCUT && s->ncut < CKPT_CUT_SITES; k++) {
		const struct img_sym *sym = img_sym_named(m->img, ckpt_cut_names[k]);
		if (!sym || !sym->addr)
			continue;
		s->cut[s->ncut++] = (struct ckpt_cut){sym->addr + m->bias, k};
		bp_site_add(&q->bps, q->proc, sym->addr + m->bias);
	}
}

/* In every module that has them (libc; the program itself if static). */
void ckpt_cut_plant(struct qz *q, struct ckpt_state *s)
{
	if (s->cut_planted)
		return;
	s->cut_planted = true;
	qz_refresh_modules(q);
	ckpt_cut_module(q, s, &q->exe);
	for (size_t i = 0; i < q->nlibs; i++)
		ckpt_cut_module(q, s, &q->libs[i]);
}

void ckpt_cut_remove(struct qz *q, struct ckpt_state *s)
{
	for (int k = 0; k < s->ncut; k++)
		if (q->proc && proc_alive(q->proc))
			bp_site_del(&q->bps, q->proc, s->cut[k].addr);
	s->ncut = 0;
	s->cut_planted = false;
}

static uint64_t ckpt_page_up(uint64_t a)
{
	return (a + CKPT_PAGE - 1) & ~(CKPT_PAGE - 1);
}

/* The end of the heap now ([heap]'s end in the maps). */
static uint64_t ckpt_heap_end(struct qz *q)
{
	struct ckpt_os os;
	uint64_t end = 0;
	if (ckpt_os_read(q, &os, CKPT_OS_MAPS) < 0)
		return 0;
	for (size_t i = 0; i < os.nmaps; i++)
		if (os.maps[i].path && !strcmp(os.maps[i].path, "[heap]"))
			end = os.maps[i].hi;
	ckpt_os_free(&os);
	return end;
}

/* What the call at its first instruction is about to drop: saved now. */
bool ckpt_cut_hit(struct qz *q, struct ckpt_state *s, uint64_t pc)
{
	int i = 0;
	while (i < s->ncut && s->cut[i].addr != pc)
		i++;
	if (i == s->ncut || !s->undo)
		return false;
	int k = s->cut[i].kind;
	const struct user_regs_struct *r = proc_regs(q->proc);
	uint64_t lo = r->rdi, len = r->rsi;
	if (k == CKPT_CUT_BRK) {
		uint64_t end = ckpt_heap_end(q);
		lo = ckpt_page_up(r->rdi);
		len = end > lo ? end - lo : 0;
	} else if (k == CKPT_CUT_MADVISE && r->rdx != MADV_DONTNEED && r->rdx != MADV_FREE &&
		   r->rdx != MADV_REMOVE && r->rdx != 24 /* MADV_DONTNEED_LOCKED */) {
		len = 0;
	} else if (k == CKPT_CUT_MMAP && !(r->rcx & MAP_FIXED)) {
		len = 0;
	}
	if (len)
		ckpt_undo_save(s->undo, lo, lo + ckpt_page_up(len), &q->bps);
	if (k == CKPT_CUT_MREMAP && (r->rcx & MREMAP_FIXED))
		ckpt_undo_save(s->undo, r->r8, r->r8 + ckpt_page_up(r->rdx), &q->bps);
	return true;
}
