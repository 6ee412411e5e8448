/* explain-rec: what the recording says about a crash, for explain: the
 * bad value followed back from the faulting instruction (a pointer loaded
 * from memory, a return address) to the statements that wrote it and,
 * when those writes ran past an object, the overflow, in the program's
 * names. */
#include "explain-rec.h"

#include <ctype.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "dinfo/source.h"
#include "memname.h"
#include "overflow.h"
#include "rec.h"
#include "slice.h"
#include "target/session.h"
#include "whowrote.h"

/* Records read backwards, one block kept. */
struct exr_cur {
	const struct trace *t;
	size_t blk, n;
	struct trace_rec recs[TRACE_BLK];
};

static bool exr_get(struct exr_cur *c, uint64_t i, const struct trace_rec **r,
		    const struct trace_insn **ti)
{
	if (i >= c->t->n)
		return false;
	size_t b = (size_t)(i / TRACE_BLK);
	if (b != c->blk) {
		c->n = trace_block(c->t, b, c->recs);
		c->blk = b;
	}
	size_t k = (size_t)(i % TRACE_BLK);
	if (k >= c->n || c->recs[k].id >= c->t->ninsns)
		return false;
	*r = &c->recs[k];
	*ti = &c->t->insns[c->recs[k].id];
	return true;
}

/* The memory a bad address came from: from the faulting record's base
 * register back through register copies to the load that produced it. */
static bool exr_loaded_from(struct exr_cur *c, uint64_t i, int reg, uint64_t *m, uint64_t *size)
{
	const struct trace_rec *r;
	const struct trace_insn *ti;
	for (uint64_t k = i, hops = 0; k-- > 0 && i - k < 100000 && hops < 8;) {
		if (!exr_get(c, k, &r, &ti) || !(ti->in.def & (1ull << reg)))
			continue;
		for (int x = 0; x < ti->in.nmem && !r->skipped; x++)
			if (ti->in.mem[x].rw & INSN_MEM_R) {
				*m = r->addr[x];
				*size = ti->in.mem[x].size;
				return true;
			}
		uint64_t use = ti->in.use & 0xffff & ~(1ull << INSN_R_RSP);
		if (__builtin_popcountll(use) != 1)
			return false;
		reg = __builtin_ctzll(use);   /* a register copy: follow it */
		hops++;
	}
	return false;
}

/* The statement text of instance inst, or NULL. */
static const char *exr_text(struct qz *q, int32_t inst)
{
	const struct trace *t = &slice_rec(q)->tr;
	const struct trace_stmt *st = &t->stmts[trace_inst_get(t, inst).stmt];
	const char *text = st->file ? src_line(st->file, st->line, NULL) : NULL;
	return text ? str_skip_space(text) : NULL;
}

/* "ov_ret.c:11 #30-#37 (`dst[i] = src[i];`)" for the last writers of
 * [a, a+size); false if the recording did not write them. */
static bool exr_writers(struct qz *q, uint64_t a, uint64_t size, struct sbuf *b)
{
	const struct trace *t = &slice_rec(q)->tr;
	struct ww_byte w[16] = {{0}};
	ww_walk(q, w, a, size, slice_rec(q)->tr.n);
	int32_t first = -1;
	uint32_t lo = UINT32_MAX, hi = 0;
	bool sys = false, other = false;
	for (uint64_t k = 0; k < size; k++) {
		if (!w[k].found)
			continue;
		sys |= w[k].sys;
		if (w[k].inst < 0)
			continue;
		if (first < 0)
			first = w[k].inst;
		other |= trace_inst_get(t, w[k].inst).stmt != trace_inst_get(t, first).stmt;
		uint32_t n = trace_inst_get(t, w[k].inst).n;
		lo = n < lo ? n : lo;
		hi = n > hi ? n : hi;
	}
	if (first < 0)
		return sys ? (sbuf_add(b, "a system call"), true) : false;
	char nb[256];
	sbuf_printf(b, "%s", rec_stmt_name(slice_rec(q), (int32_t)trace_inst_get(t, first).stmt, nb, sizeof nb));
	sbuf_printf(b, lo == hi ? " #%u" : " #%u-#%u", lo, hi);
	const char *text = exr_text(q, first);
	if (text)
		sbuf_printf(b, " (`%s`)", text);
	if (lo != hi)
		sbuf_add(b, hi - lo + 1 == size ? ", one byte at each instance" :
			 ", a few bytes at each instance");
	if (other)
		sbuf_add(b, " and other statements");
	return true;
}

/* What the bytes hold now, if they read as text: ` ("for-the-" as text)`. */
static void exr_as_text(struct qz *q, uint64_t a, uint64_t size, struct sbuf *b)
{
	char buf[16];
	if (size > sizeof buf || qz_read(q, a, buf, size) < 0)
		return;
	for (uint64_t k = 0; k < size; k++)
		if (!isprint((unsigned char)buf[k]))
			return;
	sbuf_printf(b, " (the text \"%.*s\")", (int)size, buf);
}

/* The overflow whose bytes cover addr, said as the root cause. */
static void exr_overflow(struct qz *q, struct mn_map *map, uint64_t addr, struct sbuf *b)
{
	struct ov_report *v;
	size_t n = ov_find(q, map, &v);
	for (size_t i = 0; i < n; i++) {
		if (addr < v[i].start || addr >= v[i].end)
			continue;
		sbuf_add(b, "Those bytes were written past the end of an object: ");
		ov_describe(q, map, &v[i], b);
		sbuf_add(b, ". That write is the cause to fix.\n");
		break;
	}
	free(v);
}

/* The record of the crash: the last one at the stopped pc. */
static bool exr_crash_rec(struct qz *q, struct exr_cur *c, uint64_t *i)
{
	const struct trace_rec *r;
	const struct trace_insn *ti;
	uint64_t pc = proc_pc(q->proc);
	for (uint64_t k = c->t->n; k-- > 0 && c->t->n - k <= 16;)
		if (exr_get(c, k, &r, &ti) && ti->pc == pc) {
			*i = k;
			return true;
		}
	return false;
}

static void exr_about(struct qz *q, struct mn_map *map, uint64_t rec, uint64_t m,
		      uint64_t size, const char *how, struct sbuf *b)
{
	char at[256];
	struct mn_obj o;
	mn_lookup(q, map, rec, m, &o);
	struct sbuf who = {0};
	if (!exr_writers(q, m, size, &who)) {
		sbuf_free(&who);
		return;
	}
	sbuf_printf(b, "From the recording: %s %s", how, mn_text(q, &o, m, at, sizeof at));
	exr_as_text(q, m, size, b);
	sbuf_printf(b, ", last written by %s.\n", who.s);
	sbuf_free(&who);
	exr_overflow(q, map, m, b);
}

/* An abort inside malloc or free: a recorded write past a malloc block
 * is what damaged the bookkeeping the library checks. */
static void exr_heap(struct qz *q, struct mn_map *map, struct sbuf *b)
{
	struct ov_report *v;
	size_t n = ov_find(q, map, &v);
	for (size_t i = 0; i < n; i++) {
		if (v[i].obj.kind != MN_HEAP)
			continue;
		sbuf_add(b, "From the recording: a write ran past a malloc block into the bookkeeping "
			 "malloc keeps beside it: ");
		ov_describe(q, map, &v[i], b);
		sbuf_add(b, ". That write is the cause to fix.\n");
		break;
	}
	free(v);
}

void exr_crash(struct qz *q, struct sbuf *b)
{
	struct exr_cur *c = xcalloc(1, sizeof *c);
	c->t = &slice_rec(q)->tr;
	c->blk = SIZE_MAX;
	struct mn_map *map = &slice_state(q)->names;
	const struct trace_rec *r;
	const struct trace_insn *ti;
	uint64_t i, m, size;
	if (!c->t->n) {
		free(c);
		return;
	}
	mn_update(q, map);
	if (q->stop_sig == SIGABRT || !exr_crash_rec(q, c, &i) || !exr_get(c, i, &r, &ti)) {
		if (q->stop_sig == SIGABRT)
			exr_heap(q, map, b);
		free(c);
		return;
	}
	for (int x = 0; x < ti->in.nmem && !r->skipped; x++) {
		const struct insn_mem *im = &ti->in.mem[x];
		if (ti->in.kind == INSN_RET && (im->rw & INSN_MEM_R)) {
			exr_about(q, map, i, r->addr[x], 8, "the function returned through", b);
			break;
		}
		if (im->base != INSN_R_NONE && im->base != INSN_R_RSP && im->base != INSN_R_RIP &&
		    exr_loaded_from(c, i, im->base, &m, &size) && size <= 16) {
			exr_about(q, map, i, m, size, "the address it used was loaded from", b);
			break;
		}
	}
	free(c);
}
