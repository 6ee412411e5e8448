/* overflow: `info overflows`, every recorded write that ran past the
 * object it started in. Writes are gathered into runs per writer: one
 * statement instance's library call (strcpy, sprintf: all its stores), or
 * one store instruction of a statement over its instances (a copy loop,
 * one byte each); a run grows while each write touches or overlaps it.
 * A run that starts inside an object of known size (a global or static by
 * its ELF symbol, a local of a recorded frame by its DWARF type) and ends
 * past it is an overflow, named with what it ran over. */
#include "overflow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memname.h"
#include "rec.h"
#include "slice.h"
#include "dinfo/image.h"
#include "target/objects.h"
#include "target/session.h"
#include "util/hmap.h"

struct ov_run {
	uint32_t stmt;
	bool user;
	uint64_t lo, hi;
	int32_t inst_lo, inst_hi;
	uint64_t rec;             /* record of its first write */
	uint64_t pc;              /* a library writer: its first pc */
};

struct ov_ctx {
	struct qz *q;
	struct mn_map *map;
	struct hmap open;         /* writer key -> struct ov_run */
	uint64_t lib_floor;       /* in a library call from the program: its
	                             return slot; below it are the library's
	                             own frames, whose writes are not runs */
	uint64_t lib_call;        /* and the function it called (0: indirect) */
	struct ov_report *v;      /* overflows found */
	size_t n, cap;
};

static void ov_add(struct ov_ctx *c, const struct ov_run *r, const struct mn_obj *o)
{
	for (size_t i = 0; i < c->n; i++) {   /* the same overflow again: count it */
		struct ov_report *p = &c->v[i];
		bool same_frame_func = p->obj.frame && o->frame ?
			p->obj.frame->func == o->frame->func : !p->obj.frame && !o->frame;
		if (p->stmt == r->stmt && p->obj.name == o->name && same_frame_func) {
			p->times++;
			p->inst_hi = r->inst_hi;
			if (r->hi - r->lo > p->bytes) {   /* describe the largest */
				p->bytes = r->hi - r->lo;
				p->start = r->lo;
				p->end = r->hi;
				p->obj = *o;
				p->rec = r->rec;
			}
			return;
		}
	}
	XGROW(c->v, c->cap, c->n + 1);
	struct ov_report *p = &c->v[c->n++];
	memset(p, 0, sizeof *p);
	p->stmt = r->stmt;
	p->obj = *o;
	p->start = r->lo;
	p->bytes = r->hi - r->lo;
	p->end = r->hi;
	p->inst_lo = r->inst_lo;
	p->inst_hi = r->inst_hi;
	p->rec = r->rec;
	p->lib_pc = r->user ? 0 : r->pc;
	p->times = 1;
}

/* A closed run: did it leave the object it started in? */
static void ov_judge(struct ov_ctx *c, const struct ov_run *r)
{
	struct mn_obj o;
	mn_lookup(c->q, c->map, r->rec, r->lo, &o);
	bool sized = o.kind == MN_STATIC || o.kind == MN_LOCAL || o.kind == MN_HEAP;
	if (!sized || !o.size || r->hi <= o.base + o.size)
		return;
	ov_add(c, r, &o);
}

/* The open runs of one writer (a few: a library call also writes its own
 * stack frame between the pieces of its output). */
#define OV_RUNS 8
struct ov_runs {
	struct ov_run v[OV_RUNS];
	size_t n;
};

/* Does w grow r at an end? A library call's stores may overlap what it
 * wrote (vector tails): absorbed. A loop's store landing inside what it
 * already wrote starts over (the loop runs again). */
static int ov_grows(const struct ov_run *r, const struct ov_run *w)
{
	if (w->lo <= r->hi && w->hi > r->hi)
		return 1;
	if (w->hi >= r->lo && w->lo < r->lo)
		return 1;
	if (w->lo >= r->lo && w->hi <= r->hi)
		return w->user ? -1 : 0;
	return -1;
}

/* A grown run absorbs the writer's other runs it now touches (a copy that
 * wrote its tail before its middle). */
static void ov_coalesce(struct ov_runs *rs, struct ov_run *g)
{
	for (size_t i = 0; i < rs->n;) {
		struct ov_run *r = &rs->v[i];
		if (r->lo > g->hi || r->hi < g->lo) {
			i++;
			continue;
		}
		g->lo = r->lo < g->lo ? r->lo : g->lo;
		g->hi = r->hi > g->hi ? r->hi : g->hi;
		if (r->rec < g->rec) {
			g->rec = r->rec;
			g->inst_lo = r->inst_lo;
		}
		memmove(r, r + 1, (rs->n - i - 1) * sizeof *r);
		rs->n--;
	}
}

static void ov_write(struct ov_ctx *c, uint64_t key, const struct ov_run *w)
{
	struct ov_runs *rs = hmap_get(&c->open, key);
	if (!rs)
		hmap_put(&c->open, key, rs = xcalloc(1, sizeof *rs));
	for (size_t i = 0; i < rs->n; i++) {
		struct ov_run *r = &rs->v[i];
		int g = ov_grows(r, w);
		if (g == 0)   /* written again inside what the call wrote */
			return;
		if (g < 0 && !(w->lo < r->hi && w->hi > r->lo))
			continue;
		if (g > 0) {   /* grown: now the most recent (evicted last) */
			struct ov_run grown = *r;
			grown.lo = w->lo < r->lo ? w->lo : r->lo;
			grown.hi = w->hi > r->hi ? w->hi : r->hi;
			grown.inst_hi = w->inst_hi;
			memmove(r, r + 1, (rs->n - i - 1) * sizeof *r);
			rs->n--;
			ov_coalesce(rs, &grown);
			rs->v[rs->n++] = grown;
			return;
		}
		ov_judge(c, r);   /* written again from inside: a new run */
		*r = *w;
		return;
	}
	if (rs->n == OV_RUNS) {
		ov_judge(c, &rs->v[0]);
		memmove(&rs->v[0], &rs->v[1], (OV_RUNS - 1) * sizeof rs->v[0]);
		rs->n--;
	}
	rs->v[rs->n++] = *w;
}

/* Does a call to target leave the program's own code (a PLT stub, a
 * library, an indirect call through the GOT)? */
static bool ov_to_library(struct qz *q, uint64_t target)
{
	if (!target || !q->exe.img || target < q->exe.bias)
		return true;
	const char *sec = img_section_at(q->exe.img, target - q->exe.bias);
	return !sec || img_in_plt(q->exe.img, target - q->exe.bias);
}

static void ov_record(struct ov_ctx *c, const struct trace *t, uint64_t i,
		      const struct trace_rec *rec)
{
	const struct trace_insn *ti = &t->insns[rec->id];
	int32_t inst = trace_inst_at(t, i);
	if (inst < 0 || rec->skipped)
		return;
	uint32_t stmt = trace_inst_get(t, inst).stmt;
	bool call = ti->in.kind == INSN_CALL || ti->in.kind == INSN_CALL_IND;
	for (int k = 0; k < ti->in.nmem; k++) {
		const struct insn_mem *im = &ti->in.mem[k];
		if (call && ti->user && (im->rw & INSN_MEM_W) && !c->lib_floor &&
		    ov_to_library(c->q, ti->in.target)) {
			c->lib_floor = rec->addr[k];
			c->lib_call = ti->in.target;
		}
		if (ti->in.kind == INSN_RET && rec->addr[k] == c->lib_floor)
			c->lib_floor = 0;   /* back in the program */
		if (!ti->user && c->lib_floor && rec->addr[k] < c->lib_floor &&
		    c->lib_floor - rec->addr[k] < (1u << 20))
			continue;
		if (!(im->rw & (INSN_MEM_W | INSN_MEM_CW)) || call || ti->in.save_restore ||
		    (ti->in.kind == INSN_OTHER && !strncmp(ti->in.text, "push", 4)))
			continue;
		uint64_t key = (uint64_t)stmt << 32 |
			       (ti->user ? (ti->pc & 0x7fffffff) : 0x80000000u | (uint32_t)inst);
		struct ov_run w = { .stmt = stmt, .user = ti->user, .lo = rec->addr[k],
				    .hi = rec->addr[k] + im->size, .inst_lo = inst, .inst_hi = inst,
				    .rec = i, .pc = ti->user ? ti->pc : c->lib_call ? c->lib_call : ti->pc };
		ov_write(c, key, &w);
	}
}

size_t ov_find(struct qz *q, struct mn_map *map, struct ov_report **out)
{
	const struct trace *t = &slice_rec(q)->tr;
	struct ov_ctx c = { .q = q, .map = map };
	mn_update(q, map);
	struct trace_rec *recs = xmalloc(TRACE_BLK * sizeof *recs);
	for (size_t b = 0; b < t->nblks; b++) {
		if (!t->blks[b].nrange)   /* the block writes no memory */
			continue;
		size_t n = trace_block(t, b, recs);
		for (size_t k = 0; k < n; k++)
			if (recs[k].id < t->ninsns)
				ov_record(&c, t, (uint64_t)b * TRACE_BLK + k, &recs[k]);
	}
	free(recs);
	for (size_t i = 0; i < c.open.cap; i++) {
		struct ov_runs *rs = hmap_slot(&c.open, i);
		for (size_t k = 0; rs && k < rs->n; k++)
			ov_judge(&c, &rs->v[k]);
		free(rs);
	}
	hmap_free(&c.open);
	*out = c.v;
	return c.n;
}

/* "5,001" */
static const char *ov_num(uint64_t n, char *buf, size_t len)
{
	char raw[32];
	int k = snprintf(raw, sizeof raw, "%llu", (unsigned long long)n), o = 0;
	for (int i = 0; i < k && o + 2 < (int)len; i++) {
		if (i && (k - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = raw[i];
	}
	buf[o] = 0;
	return buf;
}

/* Where a malloc block was allocated, as far as the recording shows: the
 * statement during which the allocator (library code) last wrote the
 * block's size field before the overflow began. */
static void ov_alloc_site(struct qz *q, const struct mn_obj *o, uint64_t before, struct sbuf *b)
{
	const struct trace *t = &slice_rec(q)->tr;
	struct trace_rec *recs = xmalloc(TRACE_BLK * sizeof *recs);
	int32_t site = -1;
	for (size_t blk = (size_t)(before / TRACE_BLK) + 1; blk-- > 0 && site < 0;) {
		bool may = false;   /* the block's summary of what it writes */
		for (int k = 0; k < t->blks[blk].nrange; k++)
			may |= t->blks[blk].lo[k] < o->base && t->blks[blk].hi[k] > o->base - 8;
		if (!may)
			continue;
		size_t n = trace_block(t, blk, recs);
		for (size_t k = n; k-- > 0 && site < 0;) {
			uint64_t i = (uint64_t)blk * TRACE_BLK + k;
			const struct trace_insn *ti = recs[k].id < t->ninsns ? &t->insns[recs[k].id] : NULL;
			if (i > before || !ti || ti->user || recs[k].skipped)
				continue;
			for (int m = 0; m < ti->in.nmem && site < 0; m++)
				if ((ti->in.mem[m].rw & INSN_MEM_W) && recs[k].addr[m] == o->base - 8)
					site = trace_inst_at(t, i);
		}
	}
	free(recs);
	char nb[300];
	if (site >= 0)
		sbuf_printf(b, " (allocated at %s)", slice_inst_name(q, site, nb, sizeof nb));
}

/* What the run covered past the object's end: up to three names. */
static void ov_over(struct qz *q, struct mn_map *map, const struct ov_report *p, struct sbuf *b)
{
	uint64_t a = p->obj.base + p->obj.size;
	int named = 0;
	while (a < p->end && named < 3) {
		struct mn_obj o;
		char nb[200];
		mn_lookup(q, map, p->rec, a, &o);
		if (o.kind == MN_STATIC_GAP) {   /* past every object of the program */
			sbuf_printf(b, "%s%llu bytes past the end of the program's data", named ? ", then " :
				    " over ", (unsigned long long)(p->end - a));
			return;
		}
		sbuf_printf(b, "%s%s", named ? ", " : " over ", mn_text(q, &o, a, nb, sizeof nb));
		named++;
		uint64_t next = o.kind == MN_NONE || o.kind == MN_FRAME || o.kind == MN_HEAP_META ||
				(o.kind == MN_HEAP && !o.size) || o.kind == MN_STACK ||
				o.kind == MN_LIB || o.kind == MN_STATIC_GAP ? a + 8 : o.base + o.size;
		a = next > a ? next : a + 1;
	}
	if (a < p->end)
		sbuf_add(b, " and more");
}

void ov_describe(struct qz *q, struct mn_map *map, const struct ov_report *p, struct sbuf *b)
{
	const struct trace *t = &slice_rec(q)->tr;
	char nb[256], d[200], n1[32], n2[32], sym[200];
	sbuf_printf(b, "%s", rec_stmt_name(slice_rec(q), (int32_t)p->stmt, nb, sizeof nb));
	uint32_t lo = trace_inst_get(t, p->inst_lo).n, hi = trace_inst_get(t, p->inst_hi).n;
	if (lo == hi)
		sbuf_printf(b, " #%u", lo);
	else
		sbuf_printf(b, " #%u-#%u", lo, hi);
	if (p->lib_pc && qz_symbolize(q, p->lib_pc, sym, sizeof sym))
		sbuf_printf(b, " (in %.*s)", (int)strcspn(sym, "+@"), sym);
	sbuf_printf(b, " wrote %s bytes into %s", ov_num(p->bytes, n1, sizeof n1),
		    mn_decl(&p->obj, d, sizeof d));
	if (p->obj.kind == MN_HEAP)
		ov_alloc_site(q, &p->obj, p->rec, b);
	if (p->obj.kind == MN_LOCAL)
		sbuf_printf(b, " (a local of %s)", mn_frame_func(p->obj.frame));
	if (p->start != p->obj.base)
		sbuf_printf(b, " from offset %llu", (unsigned long long)(p->start - p->obj.base));
	sbuf_printf(b, ": %s past its end,", ov_num(p->end - p->obj.base - p->obj.size, n2, sizeof n2));
	ov_over(q, map, p, b);
	if (p->times > 1)
		sbuf_printf(b, " (%zu times)", p->times);
}
