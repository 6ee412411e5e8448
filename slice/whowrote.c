/* whowrote: `who-wrote ADDR [SIZE] | LVALUE` and `info overflows`: the
 * recording asked about memory. who-wrote walks the trace backwards and
 * gives each byte its last writer (a statement instance, the library
 * function inside it, or a system call); blocks whose summary writes
 * nothing there are skipped. */
#include "whowrote.h"

#include <stdlib.h>
#include <string.h>

#include "memname.h"
#include "overflow.h"
#include "rec.h"
#include "slice.h"
#include "target/objects.h"
#include "target/session.h"

static bool ww_blk_may(const struct trace_blk *b, uint64_t lo, uint64_t hi)
{
	for (int k = 0; k < b->nrange; k++)
		if (b->lo[k] < hi && b->hi[k] > lo)
			return true;
	return false;
}

/* Bytes [lo, hi) of a write at record i by pc: those not yet claimed. */
static size_t ww_claim(struct ww_byte *w, uint64_t a, uint64_t size, uint64_t wlo,
		       uint64_t whi, const struct ww_byte *who)
{
	size_t got = 0;
	for (uint64_t x = wlo > a ? wlo : a; x < whi && x < a + size; x++)
		if (!w[x - a].found) {
			w[x - a] = *who;
			got++;
		}
	return got;
}

static size_t ww_sys(const struct trace *t, uint64_t i, struct ww_byte *w, uint64_t a,
		     uint64_t size, int32_t inst)
{
	size_t n, got = 0;
	size_t first = trace_sys_of(t, i, &n);
	for (size_t k = 0; k < n; k++) {
		const struct trace_sys *s = &t->sys[first + k];
		struct ww_byte who = { .found = true, .sys = true, .inst = inst, .rec = i };
		got += ww_claim(w, a, size, s->addr, s->addr + s->len, &who);
	}
	return got;
}

static size_t ww_rec(const struct trace *t, uint64_t i, const struct trace_rec *r,
		     struct ww_byte *w, uint64_t a, uint64_t size)
{
	const struct trace_insn *ti = &t->insns[r->id];
	int32_t inst = trace_inst_at(t, i);
	size_t got = ww_sys(t, i, w, a, size, inst);
	for (int k = 0; k < ti->in.nmem && !r->skipped; k++) {
		const struct insn_mem *im = &ti->in.mem[k];
		if (!(im->rw & (INSN_MEM_W | INSN_MEM_CW)))
			continue;
		struct ww_byte who = { .found = true, .inst = inst, .rec = i, .pc = ti->pc };
		got += ww_claim(w, a, size, r->addr[k], r->addr[k] + im->size, &who);
	}
	return got;
}

void ww_walk(struct qz *q, struct ww_byte *w, uint64_t a, uint64_t size, uint64_t end)
{
	const struct trace *t = &slice_rec(q)->tr;
	struct trace_rec *recs = xmalloc(TRACE_BLK * sizeof *recs);
	size_t left = size;
	end = end < t->n ? end : t->n;
	size_t top = (size_t)((end + TRACE_BLK - 1) / TRACE_BLK);
	for (size_t b = top < t->nblks ? top : t->nblks; b-- > 0 && left;) {
		bool sys = false;
		for (size_t k = 0; k < t->nsys && !sys; k++)
			sys = t->sys[k].at / TRACE_BLK == b && t->sys[k].addr < a + size &&
			      t->sys[k].addr + t->sys[k].len > a;
		if (!sys && !ww_blk_may(&t->blks[b], a, a + size))
			continue;
		size_t n = trace_block(t, b, recs);
		if ((uint64_t)b * TRACE_BLK + n > end)
			n = (size_t)(end - (uint64_t)b * TRACE_BLK);
		for (size_t k = n; k-- > 0 && left;)
			if (recs[k].id < t->ninsns)
				left -= ww_rec(t, (uint64_t)b * TRACE_BLK + k, &recs[k], w, a, size);
	}
	free(recs);
}

/* Bytes y continues the line of x: the same writer, or the next instance
 * of the same statement (a loop writing one byte each). */
static bool ww_same(const struct trace *t, const struct ww_byte *x, const struct ww_byte *last,
		    const struct ww_byte *y)
{
	if (!x->found || !y->found)
		return x->found == y->found;
	if (x->sys != y->sys || x->inst < 0 || y->inst < 0)
		return x->rec == y->rec;
	const struct trace_inst av = trace_inst_get(t, last->inst), bv = trace_inst_get(t, y->inst);
	const struct trace_inst *a = &av, *b = &bv;
	return a->stmt == b->stmt && (b->n == a->n || b->n == a->n + 1) &&
	       (x->pc == y->pc || x->inst == y->inst);
}

static void ww_line(struct qz *q, struct mn_map *map, const struct ww_byte *w,
		    const struct ww_byte *last, uint64_t a, uint64_t lo, uint64_t hi)
{
	char nb[300], sym[200], at[200];
	struct mn_obj o;
	mn_lookup(q, map, w->found ? w->rec : UINT64_MAX, a + lo, &o);
	mn_text(q, &o, a + lo, at, sizeof at);
	if (hi - lo > 1)
		qz_printf(q, "  %s, %llu bytes: ", at, (unsigned long long)(hi - lo));
	else
		qz_printf(q, "  %s: ", at);
	if (!w->found) {
		qz_puts(q, "not written while recording\n");
		return;
	}
	const struct trace *t = &slice_rec(q)->tr;
	if (w->inst >= 0)
		qz_printf(q, "%s", slice_inst_name(q, w->inst, nb, sizeof nb));
	else
		qz_puts(q, "before any statement");
	if (last->inst >= 0 && last->inst != w->inst)
		qz_printf(q, "-#%u", trace_inst_get(t, last->inst).n);
	const struct trace_insn *ti = NULL;
	for (size_t k = 0; k < t->ninsns && !w->sys && !ti; k++)
		if (t->insns[k].pc == w->pc)
			ti = &t->insns[k];
	if (w->sys)
		qz_puts(q, " (a system call)");
	else if (ti && !ti->user && qz_symbolize(q, w->pc, sym, sizeof sym))
		qz_printf(q, " (in %.*s)", (int)strcspn(sym, "+"), sym);
	qz_puts(q, "\n");
}

int ww_report(struct qz *q, struct mn_map *map, uint64_t a, uint64_t size, const char *what)
{
	struct ww_byte *w = xcalloc(size, sizeof *w);
	mn_update(q, map);
	ww_walk(q, w, a, size, slice_rec(q)->tr.n);
	qz_printf(q, "Last writes to %s (%llu byte%s at 0x%llx):\n", what,
		  (unsigned long long)size, size == 1 ? "" : "s", (unsigned long long)a);
	const struct trace *t = &slice_rec(q)->tr;
	for (uint64_t lo = 0; lo < size;) {
		uint64_t hi = lo + 1;
		struct mn_obj o0, o1;
		mn_lookup(q, map, w[lo].found ? w[lo].rec : UINT64_MAX, a + lo, &o0);
		while (hi < size && ww_same(t, &w[lo], &w[hi - 1], &w[hi])) {
			mn_lookup(q, map, w[hi].found ? w[hi].rec : UINT64_MAX, a + hi, &o1);
			if (o1.kind != o0.kind || o1.base != o0.base || o1.name != o0.name)
				break;   /* another object: another line */
			hi++;
		}
		ww_line(q, map, &w[lo], &w[hi - 1], a, lo, hi);
		lo = hi;
	}
	free(w);
	return 0;
}

int ww_overflows(struct qz *q, struct mn_map *map)
{
	struct ov_report *v;
	size_t n = ov_find(q, map, &v);
	if (!n)
		qz_puts(q, "No recorded write ran past the object it started in (globals, statics, "
			"locals of recorded frames and malloc blocks are checked).\n");
	for (size_t i = 0; i < n; i++) {
		struct sbuf b = {0};
		ov_describe(q, map, &v[i], &b);
		qz_printf(q, "%s\n", b.s);
		sbuf_free(&b);
	}
	free(v);
	return 0;
}
