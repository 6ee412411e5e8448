/* slice: backward dynamic slicing over the trace at instruction level,
 * reported at statement-instance level. Walking backwards, each live
 * location (a register, or a memory byte) carries the instances that use
 * it; an instruction that defines a live location joins the slice (its
 * statement instance becomes a member, with a data edge from each user),
 * its uses become live and its control-dependence parent becomes needed.
 * Save/restore instructions only pass their users on (bypass), and blocks
 * whose summaries define nothing live are skipped without decoding. */
#include "slice.h"
#include "edges.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dinfo/image.h"
#include "target/session.h"

/* u64 -> int32 map with open addressing; -1 is "absent". */
struct sl_map {
	uint64_t *keys;           /* key + 1; 0 empty */
	int32_t *vals;
	size_t cap, used;
};

static int32_t *sl_map_slot(struct sl_map *m, uint64_t key, bool add);

static size_t sl_map_home(const struct sl_map *m, uint64_t key)
{
	return (size_t)(((key + 1) * 0x9e3779b97f4a7c15ull) >> 17) & (m->cap - 1);
}

static void sl_map_grow(struct sl_map *m)
{
	struct sl_map old = *m;
	m->cap = old.cap ? old.cap * 2 : 1024;
	m->keys = xcalloc(m->cap, sizeof *m->keys);
	m->vals = xmalloc(m->cap * sizeof *m->vals);
	m->used = 0;
	for (size_t i = 0; i < old.cap; i++)
		if (old.keys[i] && old.vals[i] >= 0)
			*sl_map_slot(m, old.keys[i] - 1, true) = old.vals[i];
	free(old.keys);
	free(old.vals);
}

static int32_t *sl_map_slot(struct sl_map *m, uint64_t key, bool add)
{
	if (add && 2 * (m->used + 1) > m->cap)
		sl_map_grow(m);
	if (!m->cap)
		return NULL;
	size_t h = sl_map_home(m, key);
	while (m->keys[h] && m->keys[h] != key + 1)
		h = (h + 1) & (m->cap - 1);
	if (!m->keys[h]) {
		if (!add)
			return NULL;
		m->keys[h] = key + 1;
		m->vals[h] = -1;
		m->used++;
	}
	return &m->vals[h];
}

static int32_t sl_map_get(struct sl_map *m, uint64_t key)
{
	int32_t *v = sl_map_slot(m, key, false);
	return v ? *v : -1;
}

/* Remove key: the keys after it in its run move back so that every key
 * stays reachable from its home slot (linear probing has no tombstones). */
static void sl_map_del(struct sl_map *m, uint64_t key)
{
	size_t mask = m->cap - 1, i;
	if (!m->cap)
		return;
	for (i = sl_map_home(m, key); m->keys[i] != key + 1; i = (i + 1) & mask)
		if (!m->keys[i])
			return;
	for (size_t j = i;;) {
		m->keys[i] = 0;
		for (;;) {
			j = (j + 1) & mask;
			if (!m->keys[j]) {
				m->used--;
				return;
			}
			size_t k = sl_map_home(m, m->keys[j] - 1);
			if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
				continue;   /* home between the hole and j: stays */
			m->keys[i] = m->keys[j];
			m->vals[i] = m->vals[j];
			i = j;
			break;
		}
	}
}

static void sl_map_free(struct sl_map *m)
{
	free(m->keys);
	free(m->vals);
}

_Static_assert(sizeof(struct slice_edge) == 24, "slice_edge: keep it small");

/* A list of users is a chain of immutable cells; each knows the length
 * of its chain (rbp at -O0 carries a full list through a whole loop, and
 * every instruction's use of it asks). */
struct sl_node { int32_t user, next, len; };
/* Live memory in 8-byte words: the users of each byte (-1: not live). */
struct sl_word { int32_t head[8]; uint8_t live; };
struct sl_hit {
	int32_t head;
	uint8_t reg;
	uint64_t addr;
	bool framed;              /* see struct slice_edge */
	int32_t rbp_off;
};

#define SL_WCACHE 256

#define SL_EDGE_LIST 32

struct sl_ctx {
	struct qz *q;
	struct slice *s;
	const struct trace *t;
	struct sl_node *pool;
	size_t npool, pool_cap;
	int32_t reg[64];
	uint64_t livemask;
	struct sl_map mem, pages, cd, edges;   /* mem: word -> index in words */
	struct sl_word *words;
	size_t nwords, words_cap;
	/* Words looked up lately (a word's index never changes): most
	 * instructions touch the same few stack words. */
	uint64_t wkey[SL_WCACHE];    /* word + 1; 0 empty */
	int32_t wval[SL_WCACHE];
	/* The edges made into instances that may still get more, to drop
	 * duplicates (sl_edge_new): those into the instance of the walk's
	 * last edge in a short list, the others' in the edges map (their
	 * instances marked in inmap); what the walk has left behind is
	 * swept out (sl_edge_sweep) with the help of the segments' maxima. */
	int32_t cur_to;
	struct sl_near { int32_t from; uint8_t kind; } near[SL_EDGE_LIST];
	int nnear;
	uint8_t *inmap;           /* a bit an instance */
	size_t sweep_at;
	const struct trace_back *segs;   /* the walk's cursor */
	uint32_t *seg_max;        /* per chunk of segs: the largest instance before it */
	uint32_t *pm;             /* over the cursor's chunk: one more than the */
	size_t pm_first, pm_count;   /* largest instance up to each row */
	size_t live_pages;
	uint64_t *heap;           /* pending control parents, max-heap */
	size_t nheap, heap_cap;
	uint8_t *member;
	struct sl_hit *hits;
	size_t nhits, hits_cap;
	uint64_t seed_lo;         /* below this no record is a seed */
	size_t gc_at;             /* collect the pool when it grows past this */
};

/* The pool is collected once it holds this many cells (or twice what was
 * live the last time): 3 MB, a little under a power of two so that the
 * cells a block adds seldom double the array. */
#define SL_GC_FLOOR (((size_t)1 << 18) - 8192)

static int32_t sl_cons(struct sl_ctx *c, int32_t user, int32_t next)
{
	XGROW(c->pool, c->pool_cap, c->npool + 1);
	c->pool[c->npool] = (struct sl_node){ user, next, next < 0 ? 1 : c->pool[next].len + 1 };
	return (int32_t)c->npool++;
}

/* ---- the pool's garbage collection ----
 * Lists are replaced all the time while the live ones stay few (the
 * users of what is live now), so the pool is copied, live lists only,
 * whenever it has grown well past what was live the last time: a long
 * slice then keeps a small pool that stays in the cache. */

/* Copy list (of old) into c->pool, sharing what is copied already: a
 * copied cell has len -1 and its new index in next. */
static int32_t sl_gc_copy(struct sl_ctx *c, struct sl_node *old, int32_t list, int32_t **stack,
			  size_t *cap)
{
	size_t n = 0;
	int32_t x = list;
	for (; x >= 0 && old[x].len >= 0; x = old[x].next) {
		XGROW(*stack, *cap, n + 1);
		(*stack)[n++] = x;
	}
	int32_t next = x < 0 ? -1 : old[x].next;
	while (n-- > 0) {
		int32_t o = (*stack)[n];
		next = sl_cons(c, old[o].user, next);
		old[o] = (struct sl_node){ old[o].user, next, -1 };
	}
	return next;
}

static void sl_gc(struct sl_ctx *c)
{
	struct sl_node *old = c->pool;
	int32_t *stack = NULL;
	size_t scap = 0;
	c->pool = NULL;
	c->pool_cap = c->npool = 0;
	for (int k = 0; k < 64; k++)
		c->reg[k] = sl_gc_copy(c, old, c->reg[k], &stack, &scap);
	for (size_t w = 0; w < c->nwords; w++)
		for (int j = 0; j < 8; j++)
			c->words[w].head[j] = sl_gc_copy(c, old, c->words[w].head[j], &stack, &scap);
	for (size_t i = 0; i < c->cd.cap; i++)
		if (c->cd.keys[i] && c->cd.vals[i] >= 0)
			c->cd.vals[i] = sl_gc_copy(c, old, c->cd.vals[i], &stack, &scap);
	free(old);
	free(stack);
	c->gc_at = 2 * c->npool > SL_GC_FLOOR ? 2 * c->npool : SL_GC_FLOOR;
}

static bool sl_in(const struct sl_ctx *c, int32_t list, int32_t user)
{
	for (int n = 0; list >= 0 && n < 64; list = c->pool[list].next, n++)
		if (c->pool[list].user == user)
			return true;
	return false;
}

static int sl_len(const struct sl_ctx *c, int32_t list)
{
	return list < 0 ? 0 : c->pool[list].len;
}

/* Users of a and of b; lists are immutable so they can be shared: the
 * shorter list's users are put in front of the longer one. A list keeps
 * at most SL_MAX_USERS users (more only adds edges, never members). */
#define SL_MAX_USERS 32

static int32_t sl_union(struct sl_ctx *c, int32_t a, int32_t b)
{
	if (a < 0 || a == b)
		return b;
	if (b < 0)
		return a;
	int la = sl_len(c, a), lb = sl_len(c, b);
	if (la > lb) {
		int32_t t = a;
		a = b;
		b = t;
		lb = la;
	}
	for (int32_t x = a; x >= 0 && lb < SL_MAX_USERS; x = c->pool[x].next)
		if (!sl_in(c, b, c->pool[x].user)) {
			b = sl_cons(c, c->pool[x].user, b);
			lb++;
		}
	return b;
}

static void sl_heap_push(struct sl_ctx *c, uint64_t v)
{
	XGROW(c->heap, c->heap_cap, c->nheap + 1);
	size_t i = c->nheap++;
	while (i && c->heap[(i - 1) / 2] < v) {
		c->heap[i] = c->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	c->heap[i] = v;
}

static void sl_heap_pop(struct sl_ctx *c)
{
	uint64_t v = c->heap[--c->nheap];
	size_t i = 0;
	for (;;) {
		size_t l = 2 * i + 1, big = i;
		uint64_t bv = v;
		if (l < c->nheap && c->heap[l] > bv)
			big = l, bv = c->heap[l];
		if (l + 1 < c->nheap && c->heap[l + 1] > bv)
			big = l + 1;
		if (big == i)
			break;
		c->heap[i] = c->heap[big];
		i = big;
	}
	if (c->nheap)
		c->heap[i] = v;
}

static bool sl_pruned(const struct slice *s, uint64_t a)
{
	for (size_t i = 0; i < s->npruned; i++)
		if (a >= s->pruned[i].lo && a < s->pruned[i].hi)
			return true;
	return false;
}

/* pages counts the live words of each 4 KiB page, for sl_skip. */
static void sl_page_count(struct sl_ctx *c, uint64_t a, int d)
{
	int32_t *p = sl_map_slot(&c->pages, a >> 12, true);
	if (*p < 0)
		*p = 0;
	if (*p == 0 && d > 0)
		c->live_pages++;
	*p += d;
	if (*p == 0)
		c->live_pages--;
}

static struct sl_word *sl_word(struct sl_ctx *c, uint64_t a, bool add)
{
	size_t h = (a >> 3) & (SL_WCACHE - 1);
	if (c->wkey[h] == (a >> 3) + 1)
		return &c->words[c->wval[h]];
	int32_t *v = sl_map_slot(&c->mem, a >> 3, add);
	if (!v || (*v < 0 && !add))
		return NULL;
	if (*v < 0) {
		XGROW(c->words, c->words_cap, c->nwords + 1);
		struct sl_word *w = &c->words[c->nwords];
		memset(w->head, 0xff, sizeof w->head);
		w->live = 0;
		*v = (int32_t)c->nwords++;
	}
	c->wkey[h] = (a >> 3) + 1;
	c->wval[h] = *v;
	return &c->words[*v];
}

static void sl_use_mem(struct sl_ctx *c, uint64_t a, uint64_t len, int32_t users)
{
	struct sl_word *w = NULL;
	int32_t from = -2, to = -2;   /* the last union, reused for equal heads */
	for (uint64_t b = a; b < a + len; b++) {
		if (c->s->npruned && sl_pruned(c->s, b))
			continue;
		if (!w || (b & 7) == 0)
			w = sl_word(c, b, true);
		int32_t *h = &w->head[b & 7];
		if (*h < 0 && w->live++ == 0)
			sl_page_count(c, b, 1);
		if (*h != from) {
			from = *h;
			to = sl_union(c, *h, users);
		}
		*h = to;
	}
}

static void sl_hit(struct sl_ctx *c, int32_t head, uint8_t reg, uint64_t addr)
{
	struct sl_hit *h = c->nhits ? &c->hits[c->nhits - 1] : NULL;
	if (h && h->head == head && h->reg == reg && reg == 0xff)
		return;   /* the next byte of the same location */
	XGROW(c->hits, c->hits_cap, c->nhits + 1);
	c->hits[c->nhits++] = (struct sl_hit){ head, reg, addr, false, 0 };
}

/* Byte addr, which system-call write sys defined (-1: no record did),
 * is used by the instances of list users. */
static void sl_report(struct sl_ctx *c, int32_t users, int32_t sys, uint64_t addr)
{
	struct slice_uses *u = c->s->uses;
	for (int n = 0; users >= 0 && n < 8; users = c->pool[users].next, n++) {
		XGROW(u->v, u->cap, u->n + 1);
		u->v[u->n++] = (struct slice_use){ c->pool[users].user, sys, addr };
	}
}

/* The bytes still live at the start of the recording. */
static void sl_report_entry(struct sl_ctx *c)
{
	for (size_t i = 0; i < c->mem.cap; i++) {
		if (!c->mem.keys[i] || c->mem.vals[i] < 0)
			continue;
		const struct sl_word *w = &c->words[c->mem.vals[i]];
		for (int j = 0; j < 8; j++)
			if (w->head[j] >= 0)
				sl_report(c, w->head[j], -1, (c->mem.keys[i] - 1) * 8 + (uint64_t)j);
	}
}

/* m: the operand that writes (NULL: a system call, the sys-th write of the
 * trace's table; -1 otherwise), for naming. */
static void sl_def_mem(struct sl_ctx *c, uint64_t a, uint64_t len, bool cond,
		       const struct insn_mem *m, int32_t sys)
{
	struct sl_word *w = NULL;
	if (!c->mem.cap)
		return;
	for (uint64_t b = a; b < a + len; b++) {
		if (!w || (b & 7) == 0 || b == a)
			w = sl_word(c, b, false);
		if (!w) {
			b |= 7;   /* nothing live in this word */
			continue;
		}
		int32_t *v = &w->head[b & 7];
		if (*v < 0)
			continue;
		size_t before = c->nhits;
		if (sys >= 0 && c->s->uses)
			sl_report(c, *v, sys, b);
		sl_hit(c, *v, 0xff, b);
		int64_t off = m ? m->disp + (int64_t)(b - a) : 0;
		if (c->nhits > before && m && m->base == INSN_R_RBP && m->index == INSN_R_NONE &&
		    off >= INT32_MIN && off <= INT32_MAX) {
			c->hits[c->nhits - 1].framed = true;
			c->hits[c->nhits - 1].rbp_off = (int32_t)off;
		}
		if (!cond) {
			*v = -1;
			if (--w->live == 0)
				sl_page_count(c, b, -1);
		}
	}
}

static void sl_defs(struct sl_ctx *c, uint64_t i, const struct trace_rec *r, const struct insn *in)
{
	uint64_t d = in->def & c->livemask;
	for (int k = 0; d; k++, d >>= 1) {
		if (!(d & 1))
			continue;
		sl_hit(c, c->reg[k], (uint8_t)k, 0);
		if (!(in->cond_def & (1ull << k))) {
			c->reg[k] = -1;
			c->livemask &= ~(1ull << k);
		}
	}
	for (int k = 0; k < in->nmem && !r->skipped; k++)
		if (in->mem[k].rw & INSN_MEM_W)
			sl_def_mem(c, r->addr[k], in->mem[k].size, in->mem[k].rw & INSN_MEM_CW,
				   &in->mem[k], -1);
	if (in->kind == INSN_SYSCALL) {
		size_t n, first = trace_sys_of(c->t, i, &n);
		for (size_t k = first; k < first + n; k++)
			sl_def_mem(c, c->t->sys[k].addr, c->t->sys[k].len, false, NULL, (int32_t)k);
	}
}

static void sl_uses(struct sl_ctx *c, const struct trace_rec *r, const struct insn *in, int32_t users)
{
	uint64_t u = in->use & ~c->s->pruned_regs;
	for (int k = 0; u; k++, u >>= 1) {
		if (!(u & 1))
			continue;
		c->reg[k] = sl_union(c, c->reg[k], users);
		c->livemask |= 1ull << k;
	}
	for (int k = 0; k < in->nmem && !r->skipped; k++)
		if (in->mem[k].rw & INSN_MEM_R)
			sl_use_mem(c, r->addr[k], in->mem[k].size, users);
}

/* An fxsave/xsave or its restore that is no statement of the program (the
 * dynamic linker's lazy-binding trampoline saves every vector register
 * around the binding): each register goes through its own slot of the
 * area, so a register restored unchanged depends on what it held before
 * the save, not on every register saved with it. Registers without a slot
 * in the legacy region (xmm16-31, k0-7, upper lanes) pass through: the
 * pair gives them back unchanged. */
static void sl_xstate(struct sl_ctx *c, const struct trace_rec *r, const struct insn *in)
{
	if (!in->nmem || r->skipped)
		return;
	uint64_t area = r->addr[0];
	for (int s = 0; s < INSN_NSLOTS; s++) {
		const struct insn_slot *sl = &insn_xstate_slots[s];
		uint64_t bit = 1ull << sl->reg;
		if (in->xstate == INSN_XRSTOR && (c->livemask & bit)) {
			int32_t users = c->reg[sl->reg];
			c->reg[sl->reg] = -1;
			c->livemask &= ~bit;
			sl_use_mem(c, area + sl->off, sl->size, users);
		} else if (in->xstate == INSN_XSAVE && !(c->s->pruned_regs & bit)) {
			size_t before = c->nhits;
			sl_def_mem(c, area + sl->off, sl->size, false, NULL, -1);
			int32_t users = -1;
			for (size_t k = before; k < c->nhits; k++)
				users = sl_union(c, c->hits[k].head, users);
			c->nhits = before;
			if (users >= 0) {
				c->reg[sl->reg] = sl_union(c, c->reg[sl->reg], users);
				c->livemask |= bit;
			}
		}
	}
	if (in->xstate == INSN_XSAVE)   /* the header and the rest are private */
		sl_def_mem(c, area, in->mem[0].size, false, NULL, -1);
	c->nhits = 0;
}

/* Edges into an instance are made only while the walk is at its records,
 * and instances are numbered in the order they begin: an instance larger
 * than every one in effect at or before the walk's position has no
 * records left to walk, so its edges can no longer repeat. The map keeps
 * the edges made into the others: key (to, kind, from / 16), a mask of
 * from % 16. */
static uint64_t sl_edge_key(int32_t from, int32_t to, uint8_t kind)
{
	return (uint64_t)(uint32_t)to << 28 | (uint64_t)kind << 27 | (uint32_t)from >> 4;
}

/* Per chunk of the segments (the instance in effect from a record on):
 * the largest instance in effect in the chunks before it. */
static uint32_t *sl_seg_maxima(const struct trace *t)
{
	size_t nk = (t->segs.n + TRACE_TAB_CHUNK - 1) / TRACE_TAB_CHUNK;
	uint32_t *m = xmalloc((nk + 1) * sizeof *m), max = 0;
	for (size_t k = 0; k < nk; k++) {
		m[k] = max;
		size_t first, count;
		const struct trace_row *r = trace_tab_rows(&t->segs, k * TRACE_TAB_CHUNK, &first, &count);
		for (size_t j = 0; j < count; j++)
			if ((int32_t)r[j].b >= 0 && r[j].b + 1 > max)
				max = r[j].b + 1;
	}
	m[nk] = max;
	return m;
}

/* One more than the largest instance in effect at or before the walk's
 * position (0: none): the maxima of the cursor's chunk, row by row, made
 * when the cursor enters it. */
static uint32_t sl_open_below(struct sl_ctx *c)
{
	const struct trace_back *b = c->segs;
	if (!b || !b->k)
		return 0;
	size_t row = b->k - 1;
	if (row < c->pm_first || row >= c->pm_first + c->pm_count) {
		const struct trace_row *r = trace_tab_rows(&c->t->segs, row, &c->pm_first, &c->pm_count);
		uint32_t max = c->seg_max[row / TRACE_TAB_CHUNK];
		if (!c->pm)
			c->pm = xmalloc(TRACE_TAB_CHUNK * sizeof *c->pm);
		for (size_t j = 0; j < c->pm_count; j++) {
			if ((int32_t)r[j].b >= 0 && r[j].b + 1 > max)
				max = r[j].b + 1;
			c->pm[j] = max;
		}
	}
	return c->pm[row - c->pm_first];
}

/* Drop the keys of instances the walk has left behind. */
static void sl_edge_sweep(struct sl_ctx *c)
{
	uint32_t open = sl_open_below(c);
	struct sl_map old = c->edges;
	memset(&c->edges, 0, sizeof c->edges);
	for (size_t i = 0; i < old.cap; i++)
		if (old.keys[i] && old.vals[i] >= 0 && ((old.keys[i] - 1) >> 28) < open)
			*sl_map_slot(&c->edges, old.keys[i] - 1, true) = old.vals[i];
	sl_map_free(&old);
	c->sweep_at = 2 * c->edges.used > ((size_t)1 << 16) ? 2 * c->edges.used : (size_t)1 << 16;
}

/* The short list goes to the map, unless its instance is behind the
 * walk already (most are: an instance's records are mostly one run). */
static void sl_near_flush(struct sl_ctx *c)
{
	if (c->nnear && (uint32_t)c->cur_to < sl_open_below(c)) {
		if (c->edges.used + (size_t)c->nnear >= c->sweep_at)
			sl_edge_sweep(c);
		for (int k = 0; k < c->nnear; k++) {
			const struct sl_near *n = &c->near[k];
			int32_t *v = sl_map_slot(&c->edges, sl_edge_key(n->from, c->cur_to, n->kind), true);
			*v = (*v < 0 ? 0 : *v) | 1 << (n->from & 15);
		}
		c->inmap[c->cur_to >> 3] |= (uint8_t)(1u << (c->cur_to & 7));
	}
	c->nnear = 0;
}

/* Is the edge new? */
static bool sl_edge_new(struct sl_ctx *c, int32_t from, int32_t to, uint8_t kind)
{
	if (to != c->cur_to) {
		sl_near_flush(c);
		c->cur_to = to;
	}
	for (int k = 0; k < c->nnear; k++)
		if (c->near[k].from == from && c->near[k].kind == kind)
			return false;
	if (c->inmap[to >> 3] & (1u << (to & 7))) {
		int32_t *v = sl_map_slot(&c->edges, sl_edge_key(from, to, kind), false);
		if (v && *v >= 0 && (*v & 1 << (from & 15)))
			return false;
	}
	if (c->nnear == SL_EDGE_LIST)
		sl_near_flush(c);
	c->near[c->nnear++] = (struct sl_near){ from, kind };
	return true;
}

static void sl_edge(struct sl_ctx *c, int32_t from, int32_t to, uint8_t kind,
		    const struct sl_hit *h, uint32_t def)
{
	if (from == to || from < 0 || !sl_edge_new(c, from, to, kind))
		return;
	struct slice *s = c->s;
	struct slice_edge e = {
		.from = from, .to = to, .addr = h ? h->addr : 0, .rbp_off = h ? h->rbp_off : 0,
		.def = def < SLICE_DEF_NONE ? def : SLICE_DEF_NONE, .reg = h ? h->reg : 0xff,
		.kind = kind, .framed = h && h->framed };
	blocks_push(s->edges, &e);
	s->nedges++;
}

static void sl_member(struct sl_ctx *c, int32_t inst)
{
	uint8_t bit = (uint8_t)(1u << (inst & 7));
	if (c->member[inst >> 3] & bit)
		return;
	c->member[inst >> 3] |= bit;
	blocks_push(c->s->members, &inst);
	c->s->nmembers++;
	c->s->top = inst > c->s->top ? inst : c->s->top;
}

/* One record, walking backwards. */
static void sl_record(struct sl_ctx *c, uint64_t i, const struct trace_rec *r,
		      int32_t inst, int64_t cdp)
{
	const struct insn *in = &c->t->insns[r->id].in;
	bool seed = i >= c->seed_lo && c->s->kind == SLICE_ALL && inst == c->s->crit;
	c->nhits = 0;
	int32_t cdu = -1;
	if (c->nheap && c->heap[0] == i) {
		cdu = sl_map_get(&c->cd, i);
		sl_map_del(&c->cd, i);   /* pending parents stay few */
		while (c->nheap && c->heap[0] == i)
			sl_heap_pop(c);
	}
	if (in->xstate && (inst < 0 || cdu < 0) && !seed)
		return sl_xstate(c, r, in);
	sl_defs(c, i, r, in);
	if (!c->nhits && cdu < 0 && !seed)
		return;
	if ((in->save_restore || inst < 0) && !seed && cdu < 0) {
		int32_t users = -1;   /* bypass: pass the users on */
		for (size_t k = 0; k < c->nhits; k++)
			users = sl_union(c, c->hits[k].head, users);
		sl_uses(c, r, in, users);
		return;
	}
	if (inst < 0)
		return;
	sl_member(c, inst);
	for (size_t k = 0; k < c->nhits; k++)
		for (int32_t x = c->hits[k].head; x >= 0; x = c->pool[x].next)
			sl_edge(c, c->pool[x].user, inst, SLICE_DATA, &c->hits[k], r->id);
	for (int32_t x = cdu; x >= 0; x = c->pool[x].next)
		sl_edge(c, c->pool[x].user, inst, SLICE_CONTROL, NULL, UINT32_MAX);
	int32_t me = sl_cons(c, inst, -1);
	sl_uses(c, r, in, me);
	if (cdp >= 0) {
		int32_t *v = sl_map_slot(&c->cd, (uint64_t)cdp, true);
		if (*v < 0)
			sl_heap_push(c, (uint64_t)cdp);
		*v = sl_union(c, *v, me);
	}
}

/* Can block b be skipped: defines nothing live, needs no control parent? */
static bool sl_skip(struct sl_ctx *c, size_t b)
{
	const struct trace_blk *k = &c->t->blks[b];
	uint64_t first = (uint64_t)b * TRACE_BLK;
	if (first + TRACE_BLK > c->seed_lo && c->s->kind == SLICE_ALL)
		return false;
	if (k->regdef & c->livemask)
		return false;
	if (c->nheap && c->heap[0] >= first)
		return false;
	if (!c->live_pages)
		return true;
	for (int j = 0; j < k->nrange; j++) {
		uint64_t p0 = k->lo[j] >> 12, p1 = (k->hi[j] - 1) >> 12;
		if (p1 - p0 > 256)
			return false;
		for (uint64_t p = p0; p <= p1; p++)
			if (sl_map_get(&c->pages, p) > 0)
				return false;
	}
	return true;
}

static void sl_ctx_free(struct sl_ctx *c)
{
	free(c->pool);
	sl_map_free(&c->mem);
	sl_map_free(&c->pages);
	sl_map_free(&c->cd);
	sl_map_free(&c->edges);
	free(c->heap);
	free(c->words);
	free(c->seg_max);
	free(c->pm);
	free(c->inmap);
	free(c->member);
	free(c->hits);
}

static void sl_seed(struct sl_ctx *c)
{
	struct slice *s = c->s;
	int32_t me = sl_cons(c, s->crit, -1);
	sl_member(c, s->crit);
	if (s->kind == SLICE_REG) {
		c->reg[s->reg] = me;
		c->livemask |= 1ull << s->reg;
	} else if (s->kind == SLICE_MEM) {
		sl_use_mem(c, s->addr, s->size, me);
	}
}

static void sl_walk(struct sl_ctx *c, uint64_t end)
{
	const struct trace *t = c->t;
	struct trace_rec *recs = xmalloc(TRACE_BLK * sizeof *recs);
	size_t nb = (size_t)(end / TRACE_BLK) + 1;
	struct trace_back segs, cds;
	trace_back_init(&segs, &t->segs);
	trace_back_init(&cds, &t->cds);
	c->segs = &segs;
	rec_progress_start(slice_rec(c->q));
	for (size_t b = nb; b-- > 0;) {
		if ((b & 1023) == 0)
			rec_slice_tick(slice_rec(c->q), (uint64_t)(nb - b) * TRACE_BLK, end + 1);
		if (b * TRACE_BLK + TRACE_BLK - 1 <= end && sl_skip(c, b))
			continue;
		if (c->npool > c->gc_at)
			sl_gc(c);
		size_t n = trace_block(t, b, recs);
		for (size_t k = n; k-- > 0;) {
			uint64_t i = (uint64_t)b * TRACE_BLK + k;
			if (i > end)
				continue;
			sl_record(c, i, &recs[k], trace_back_at(&segs, i), trace_back_at(&cds, i));
		}
	}
	slice_rec(c->q)->prog.active = false;
	c->segs = NULL;
	free(recs);
}

static void sl_count_stmts(const struct trace *t, struct slice *s)
{
	uint8_t *seen = xcalloc(t->nstmts + 1, 1);
	s->nstmts = 0;
	for (size_t i = 0; i < s->nmembers; i++) {
		uint32_t st = trace_inst_get(t, slice_member_at(s, i)).stmt;
		if (!seen[st]) {
			seen[st] = 1;
			s->nstmts++;
		}
	}
	free(seen);
}

int slice_compute(struct qz *q, struct slice *s)
{
	struct rec *r = slice_rec(q);
	const struct trace *t = &r->tr;
	uint64_t first = 0, last = 0;
	if (!trace_inst_span(t, s->crit, &first, &last))
		return qz_error(q, "That statement instance is not in the recording.");
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct sl_ctx c = { .q = q, .s = s, .t = t, .seed_lo = first, .gc_at = SL_GC_FLOOR };
	for (int k = 0; k < 64; k++)
		c.reg[k] = -1;
	c.member = xcalloc(t->insts.n / 8 + 1, 1);   /* a bit an instance */
	c.seg_max = sl_seg_maxima(t);
	c.inmap = xcalloc(t->insts.n / 8 + 1, 1);
	c.cur_to = -1;
	c.sweep_at = (size_t)1 << 16;
	blocks_free(s->members);
	blocks_free(s->edges);
	s->members = blocks_new(q, &members_coder);
	s->edges = blocks_new(q, &edges_coder);
	s->nmembers = s->nedges = 0;
	s->top = -1;
	sl_seed(&c);
	sl_walk(&c, last);
	if (s->uses)
		sl_report_entry(&c);
	sl_count_stmts(t, s);
	sl_ctx_free(&c);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	s->seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	return 0;
}

struct slice *slice_find(struct qz *q, int id)
{
	struct slice_state *st = slice_state(q);
	for (size_t i = 0; i < st->n; i++)
		if (st->slices[i].id == id)
			return &st->slices[i];
	return NULL;
}

bool slice_edge_at(const struct slice *s, size_t i, struct slice_edge *e)
{
	const struct slice_edge *p = blocks_get(s->edges, i);
	if (p)
		*e = *p;
	return p;
}

int32_t slice_member_at(const struct slice *s, size_t i)
{
	const int32_t *p = blocks_get(s->members, i);
	return p ? *p : s->crit;
}

void slice_free(struct slice *s)
{
	free(s->what);
	free(s->pruned);
	blocks_free(s->members);
	blocks_free(s->edges);
	s->what = NULL;
	s->pruned = NULL;
	s->members = NULL;
	s->edges = NULL;
	s->nmembers = s->nedges = 0;
}

bool slice_has(const struct slice *s, int32_t inst)
{
	for (size_t i = 0; i < s->nmembers; i++)
		if (slice_member_at(s, i) == inst)
			return true;
	return false;
}

const char *slice_inst_name(struct qz *q, int32_t inst, char *buf, size_t len)
{
	const struct rec *r = slice_rec(q);
	char sb[256];
	struct trace_inst in = trace_inst_get(&r->tr, inst);
	snprintf(buf, len, "%s#%u", rec_stmt_name(r, (int32_t)in.stmt, sb, sizeof sb), in.n);
	return buf;
}

/* Where a data edge's defining instruction is, 0 if unknown. */
static uint64_t sl_def_pc(struct qz *q, const struct slice_edge *e)
{
	const struct trace *t = &slice_rec(q)->tr;
	return e->def != SLICE_DEF_NONE && e->def < t->ninsns ? t->insns[e->def].pc : 0;
}

/* The local a [rbp+D] store wrote, when the frame base is the CFA (rbp+16
 * once the frame is set up, as gcc's frames are). */
static const char *sl_local_name(struct qz *q, const struct slice_edge *e, int64_t *off)
{
	uint64_t pc = sl_def_pc(q, e);
	if (!q->exe.di || pc < q->exe.lo || pc >= q->exe.hi)
		return NULL;
	pc -= q->exe.bias;
	const struct di_func *f = di_func_at(q->exe.di, pc);
	if (!f || f->frame_base.len != 1 || f->frame_base.ops[0] != 0x9c)
		return NULL;
	const struct di_var *vars[64];
	size_t n = di_vars_at(f, pc, vars, 64);
	for (size_t i = 0; i < n; i++) {
		int64_t fb;
		if (!vars[i]->type || !mn_fbreg(vars[i], pc, &fb))
			continue;
		int64_t lo = 16 + fb, size = (int64_t)di_type_strip(vars[i]->type)->size;
		if (e->rbp_off >= lo && e->rbp_off < lo + (size ? size : 1)) {
			*off = e->rbp_off - lo;
			return vars[i]->name;
		}
	}
	return NULL;
}

/* DWARF's register number of the recorder's register r, -1. */
static int sl_reg_dwarf(int r)
{
	static const int map[16] = { 0, 2, 1, 3, 7, 6, 4, 5, 8, 9, 10, 11, 12, 13, 14, 15 };
	return r >= 0 && r < 16 ? map[r] : -1;
}

/* Does location l put the variable in DWARF register d at or just after
 * link-time pc (a location range begins after the instruction that sets
 * it)? */
static bool sl_loc_in_reg(const struct di_locexpr *l, int d, uint64_t pc)
{
	bool at = l->always || (pc >= l->lo && pc < l->hi) || (pc < l->lo && l->lo - pc <= 16);
	return at && l->len == 1 && l->ops[0] == 0x50 + d;
}

const char *slice_reg_var(struct qz *q, const struct slice_edge *e)
{
	int d = sl_reg_dwarf(e->reg);
	uint64_t pc = sl_def_pc(q, e);
	if (d < 0 || !q->exe.di || pc < q->exe.lo || pc >= q->exe.hi)
		return NULL;
	pc -= q->exe.bias;
	const struct di_func *f = di_func_at(q->exe.di, pc);
	const struct di_var *vars[64];
	size_t n = f ? di_vars_at(f, pc, vars, 64) : 0;
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < vars[i]->nlocs; k++)
			if (sl_loc_in_reg(&vars[i]->locs[k], d, pc))
				return vars[i]->name;
	return NULL;
}

/* The record where instance inst began (for the frames live then). */
static uint64_t sl_first_rec(const struct trace *t, int32_t inst)
{
	uint64_t first;
	return trace_inst_span(t, inst, &first, NULL) ? first : UINT64_MAX;
}

const char *slice_edge_label(struct qz *q, const struct slice_edge *e, char *buf, size_t len)
{
	int64_t loff;
	const char *local = e->framed ? sl_local_name(q, e, &loff) : NULL;
	if (local) {
		if (loff)
			snprintf(buf, len, "%s+%lld", local, (long long)loff);
		else
			snprintf(buf, len, "%s", local);
		return buf;
	}
	if (e->reg != 0xff) {
		snprintf(buf, len, "$%s", insn_reg_name(e->reg));
		return buf;
	}
	struct mn_map *map = &slice_state(q)->names;
	struct mn_obj o;
	mn_update(q, map);
	mn_lookup(q, map, sl_first_rec(&slice_rec(q)->tr, e->to), e->addr, &o);
	return mn_text(q, &o, e->addr, buf, len);
}

bool slice_stale(struct qz *q, const struct slice *s)
{
	const struct trace *t = &slice_rec(q)->tr;
	if (s->crit >= (int32_t)t->insts.n || !trace_inst_span(t, s->crit, NULL, NULL))
		return true;
	return s->top >= (int32_t)t->insts.n;
}
