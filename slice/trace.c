/* trace: compact records with block headers; see trace.h. */
#include "trace.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zstd.h>

#include "util/util.h"
#include "util/sorted.h"
#include "spill.h"

void trace_free(struct trace *t)
{
	if (t->spill)
		fclose(t->spill);
	free(t->buf);
	free(t->blks);
	free(t->insns);
	free(t->stmts);
	trace_tab_free(&t->insts);
	trace_tab_free(&t->segs);
	trace_tab_free(&t->cds);
	if (t->tabfile && t->tabfile->f)
		fclose(t->tabfile->f);
	free(t->tabfile);
	free(t->sys);
	free(t->frames);
	if (t->zc)
		free(t->zc->buf);
	free(t->zc);
	memset(t, 0, sizeof *t);
}

/* Forget the records but keep the decode cache and statements. */
void trace_reset(struct trace *t)
{
	t->len = 0;
	t->spilled = 0;
	t->nframes = 0;
	t->file_bytes = 0;
	if (t->zc)
		t->zc->frame = -1;
	if (t->spill && ftruncate(fileno(t->spill), 0) < 0)
		clearerr(t->spill);   /* a stale tail is never read anyway */
	t->n = 0;
	t->last_addr = 0;
	t->nblks = t->nsys = 0;
	trace_tab_clear(&t->segs);
	trace_tab_clear(&t->cds);   /* instances stay: counts go on */
}

static void trace_put_byte(struct trace *t, uint8_t c)
{
	XGROW(t->buf, t->cap, t->len - t->spilled + 1);
	t->buf[t->len - t->spilled] = c;
	t->len++;
}

static void trace_put_u(struct trace *t, uint64_t v)
{
	while (v >= 0x80) {
		trace_put_byte(t, (uint8_t)(v | 0x80));
		v >>= 7;
	}
	trace_put_byte(t, (uint8_t)v);
}

static size_t trace_blk_end(const struct trace *t, size_t b)
{
	return b + 1 < t->nblks ? t->blks[b + 1].off : t->len;
}

/* Compress blocks [b0, b1) (finished, in memory) into a frame at the end
 * of the file. false if the file cannot take it. */
static bool trace_put_frame(struct trace *t, size_t b0, size_t b1)
{
	size_t lo = t->blks[b0].off, hi = trace_blk_end(t, b1 - 1);
	size_t bound = ZSTD_compressBound(hi - lo);
	uint8_t *z = xmalloc(bound);
	size_t c = ZSTD_compress(z, bound, t->buf + (lo - t->spilled), hi - lo, 1);
	bool ok = !ZSTD_isError(c) &&
		  pwrite(fileno(t->spill), z, c, (off_t)t->file_bytes) == (ssize_t)c;
	free(z);
	if (!ok)
		return false;
	XGROW(t->frames, t->frames_cap, t->nframes + 1);
	t->frames[t->nframes++] = (struct trace_frame){ t->file_bytes, (uint32_t)c,
							(uint32_t)(hi - lo), b0 };
	t->file_bytes += c;
	return true;
}

/* The first block not in a frame yet. */
static size_t trace_unframed(const struct trace *t)
{
	if (!t->nframes)
		return 0;
	const struct trace_frame *f = &t->frames[t->nframes - 1];
	size_t b = f->blk0;
	while (b < t->nblks && t->blks[b].off < t->blks[f->blk0].off + f->size)
		b++;
	return b;
}

/* Move the finished blocks' bytes to the temporary file, compressed in
 * frames of about TRACE_FRAME_BYTES (less when the spill limit is lower). */
static void trace_spill(struct trace *t)
{
	if (t->spill_none || (!t->spill && !(t->spill = spill_file()))) {
		t->spill_none = true;   /* no file: everything stays in memory, no more tries */
		return;
	}
	if (!t->zc) {
		t->zc = xcalloc(1, sizeof *t->zc);
		t->zc->frame = -1;
	}
	size_t want = t->spill_at && t->spill_at / 4 < TRACE_FRAME_BYTES ? t->spill_at / 4 :
		      TRACE_FRAME_BYTES;
	size_t b0 = trace_unframed(t), b1 = b0;
	while (b1 < t->nblks) {
		b1++;
		if (trace_blk_end(t, b1 - 1) - t->blks[b0].off < want && b1 < t->nblks)
			continue;
		if (!trace_put_frame(t, b0, b1))
			break;
		b0 = b1;
	}
	size_t keep_from = b0 < t->nblks ? t->blks[b0].off : t->len;
	if (keep_from <= t->spilled)
		return;
	memmove(t->buf, t->buf + (keep_from - t->spilled), t->len - keep_from);
	t->spilled = keep_from;
}

/* The frame holding block b. */
static size_t trace_frame_of(const struct trace *t, size_t b)
{
	size_t lo = SORTED_UPTO(t->frames, t->nframes, blk0, (uint64_t)b);
	return lo ? lo - 1 : 0;
}

/* Frame f decompressed (the cache holds one); NULL if unreadable. */
static const uint8_t *trace_get_frame(const struct trace *t, size_t f)
{
	struct trace_zcache *zc = t->zc;
	const struct trace_frame *fr = &t->frames[f];
	if (zc->frame == (int64_t)f)
		return zc->buf;
	uint8_t *z = xmalloc(fr->csize);
	XGROW(zc->buf, zc->cap, (size_t)fr->size + 16);
	bool ok = pread(fileno(t->spill), z, fr->csize, (off_t)fr->file_off) == (ssize_t)fr->csize &&
		  ZSTD_decompress(zc->buf, zc->cap, z, fr->csize) == fr->size;
	free(z);
	zc->frame = ok ? (int64_t)f : -1;
	return ok ? zc->buf : NULL;
}

uint64_t trace_spilled_records(const struct trace *t)
{
	uint64_t n = (uint64_t)trace_unframed(t) * TRACE_BLK;
	return n < t->n ? n : t->n;
}

const char *trace_file_name(const struct trace *t, char *buf, size_t len)
{
	char link[64];
	buf[0] = 0;
	if (!t->spill)
		return buf;
	snprintf(link, sizeof link, "/proc/self/fd/%d", fileno(t->spill));
	ssize_t n = readlink(link, buf, len - 1);
	buf[n > 0 ? n : 0] = 0;
	return buf;
}

static uint64_t trace_get_u(const uint8_t *b, size_t *pos)
{
	uint64_t v = 0;
	int sh = 0;
	for (;;) {
		uint8_t c = b[(*pos)++];
		v |= (uint64_t)(c & 0x7f) << sh;
		if (!(c & 0x80))
			return v;
		sh += 7;
	}
}

/* Widen the block's write summary by [lo, hi), merging into the nearest
 * range when all are taken. */
static void trace_blk_write(struct trace_blk *b, uint64_t lo, uint64_t hi)
{
	int best = -1;
	uint64_t bestgap = UINT64_MAX;
	for (int i = 0; i < b->nrange; i++) {
		if (lo <= b->hi[i] && hi >= b->lo[i]) {
			best = i;
			bestgap = 0;
			break;
		}
		uint64_t gap = lo > b->hi[i] ? lo - b->hi[i] : b->lo[i] - hi;
		if (gap < bestgap) {
			bestgap = gap;
			best = i;
		}
	}
	if (bestgap != 0 && b->nrange < TRACE_NRANGE) {
		best = b->nrange++;
		b->lo[best] = lo;
		b->hi[best] = hi;
		return;
	}
	if (lo < b->lo[best])
		b->lo[best] = lo;
	if (hi > b->hi[best])
		b->hi[best] = hi;
}

static struct trace_blk *trace_cur_blk(struct trace *t)
{
	if (t->n % TRACE_BLK == 0) {
		if (t->len - t->spilled > (t->spill_at ? t->spill_at : TRACE_SPILL_DEFAULT))
			trace_spill(t);
		XGROW(t->blks, t->blks_cap, t->nblks + 1);
		struct trace_blk *b = &t->blks[t->nblks++];
		memset(b, 0, sizeof *b);
		b->off = t->len;
		b->last_addr = t->last_addr;
	}
	return &t->blks[t->nblks - 1];
}

void trace_add(struct trace *t, uint32_t id, const uint64_t *addr, bool skipped)
{
	struct trace_blk *b = trace_cur_blk(t);
	const struct insn *in = &t->insns[id].in;
	trace_put_u(t, id);
	b->regdef |= in->def;
	if (in->rep)
		trace_put_byte(t, skipped);
	for (int i = 0; i < in->nmem && !skipped; i++) {
		int64_t d = (int64_t)(addr[i] - t->last_addr);
		trace_put_u(t, ((uint64_t)d << 1) ^ (uint64_t)(d >> 63));   /* zigzag */
		t->last_addr = addr[i];
		if (in->mem[i].rw & INSN_MEM_W)
			trace_blk_write(b, addr[i], addr[i] + in->mem[i].size);
	}
	t->n++;
}

void trace_add_sys(struct trace *t, uint64_t addr, uint64_t len)
{
	if (!t->nblks || !len)
		return;
	XGROW(t->sys, t->sys_cap, t->nsys + 1);
	t->sys[t->nsys++] = (struct trace_sys){ t->n - 1, addr, len, 0, -1 };
	trace_blk_write(&t->blks[t->nblks - 1], addr, addr + len);
}

/* The table tab of t, wired to t's file (made on first use). */
static struct trace_tab *trace_tab_of(struct trace *t, struct trace_tab *tab)
{
	if (!t->tabfile)
		t->tabfile = xcalloc(1, sizeof *t->tabfile);
	tab->file = t->tabfile;
	return tab;
}

/* segs and cds: a value in effect from record t->n on. */
static void trace_set_from(struct trace *t, struct trace_tab *tab, int32_t v)
{
	if (tab->n) {
		struct trace_row last = trace_tab_last(tab);
		if ((int32_t)last.b == v)
			return;
		if (last.a == t->n) {
			trace_tab_set_last(tab, (struct trace_row){ last.a, (uint32_t)v });
			return;
		}
	}
	trace_tab_push(trace_tab_of(t, tab), (struct trace_row){ (uint32_t)t->n, (uint32_t)v });
}

void trace_set_inst(struct trace *t, int32_t inst)
{
	trace_set_from(t, &t->segs, inst);
}

void trace_set_cd(struct trace *t, int64_t parent)
{
	trace_set_from(t, &t->cds, (int32_t)parent);
}

int32_t trace_new_inst(struct trace *t, uint32_t stmt, uint32_t n)
{
	trace_tab_push(trace_tab_of(t, &t->insts), (struct trace_row){ stmt, n });
	return (int32_t)(t->insts.n - 1);
}

struct trace_seg trace_seg_get(const struct trace *t, size_t k)
{
	struct trace_row r = trace_tab_get(&t->segs, k);
	return (struct trace_seg){ r.a, (int32_t)r.b };
}

void trace_back_init(struct trace_back *c, const struct trace_tab *tab)
{
	*c = (struct trace_back){ tab, NULL, 0, 0, tab->n };
}

int32_t trace_back_at(struct trace_back *c, uint64_t i)
{
	for (; c->k > 0; c->k--) {
		size_t r = c->k - 1;
		if (!c->rows || r < c->first || r >= c->first + c->count)
			c->rows = trace_tab_rows(c->tab, r, &c->first, &c->count);
		if (c->rows[r - c->first].a <= i)
			return (int32_t)c->rows[r - c->first].b;
	}
	return -1;
}

bool trace_inst_span(const struct trace *t, int32_t inst, uint64_t *first, uint64_t *last)
{
	size_t k = 0, base, cnt;
	const struct trace_row *r;
	bool found = false;
	while (!found && (r = trace_tab_find_b(&t->segs, (uint32_t)inst, false, &k, &base, &cnt)))
		for (size_t j = 0; j < cnt && !found; j++)
			if ((int32_t)r[j].b == inst && r[j].a < t->n) {
				found = true;
				if (first)
					*first = r[j].a;
			}
	if (!found || !last)
		return found;
	k = SIZE_MAX;
	while ((r = trace_tab_find_b(&t->segs, (uint32_t)inst, true, &k, &base, &cnt)))
		for (size_t j = cnt; j-- > 0;)
			if ((int32_t)r[j].b == inst && r[j].a < t->n) {
				size_t next = base + j + 1;
				*last = (next < t->segs.n ? trace_tab_get(&t->segs, next).a : t->n) - 1;
				if (*last >= t->n)
					*last = t->n - 1;
				return true;
			}
	return true;
}

/* The bytes of block b: in memory, or in its frame decompressed (*tmp
 * then holds zeroes if the file failed; freed by the caller). */
static const uint8_t *trace_block_bytes(const struct trace *t, size_t b, uint8_t **tmp)
{
	const struct trace_blk *blk = &t->blks[b];
	*tmp = NULL;
	if (blk->off >= t->spilled)
		return t->buf + (blk->off - t->spilled);
	size_t f = trace_frame_of(t, b);
	const uint8_t *fr = trace_get_frame(t, f);
	if (fr)
		return fr + (blk->off - t->blks[t->frames[f].blk0].off);
	*tmp = xcalloc(trace_blk_end(t, b) - blk->off + 16, 1);
	return *tmp;
}

size_t trace_block(const struct trace *t, size_t b, struct trace_rec *recs)
{
	const struct trace_blk *blk = &t->blks[b];
	uint8_t *tmp;
	const uint8_t *bytes = trace_block_bytes(t, b, &tmp);
	size_t pos = 0, k = 0;
	uint64_t last = blk->last_addr;
	uint64_t first = (uint64_t)b * TRACE_BLK;
	while (k < TRACE_BLK && first + k < t->n) {
		struct trace_rec *r = &recs[k++];
		r->id = (uint32_t)trace_get_u(bytes, &pos);
		const struct insn *in = &t->insns[r->id].in;
		r->skipped = in->rep ? bytes[pos++] : false;
		for (int i = 0; i < in->nmem && !r->skipped; i++) {
			uint64_t z = trace_get_u(bytes, &pos);
			last += (z >> 1) ^ (0 - (z & 1));
			r->addr[i] = last;
		}
	}
	free(tmp);
	return k;
}

/* The value of segs or cds in effect at record i. */
static int32_t trace_from_at(const struct trace_tab *tab, uint64_t i)
{
	size_t lo = trace_tab_upto(tab, i > UINT32_MAX ? UINT32_MAX : (uint32_t)i);
	return lo ? (int32_t)trace_tab_get(tab, lo - 1).b : -1;
}

int32_t trace_inst_at(const struct trace *t, uint64_t i)
{
	return trace_from_at(&t->segs, i);
}

int64_t trace_cd_at(const struct trace *t, uint64_t i)
{
	return trace_from_at(&t->cds, i);
}

size_t trace_sys_of(const struct trace *t, uint64_t i, size_t *n)
{
	size_t lo = SORTED_BELOW(t->sys, t->nsys, at, i);
	size_t k = lo;
	while (k < t->nsys && t->sys[k].at == i)
		k++;
	*n = k - lo;
	return lo;
}

void trace_mark(const struct trace *t, struct trace_mark *m)
{
	*m = (struct trace_mark){ t->n, t->len, t->nblks, t->segs.n, t->cds.n, t->nsys,
				  t->insts.n, t->last_addr };
}

/* Back to a mark. The block in progress at the mark keeps a summary that
 * may cover more than what is left: a summary only has to be an upper
 * bound. */
void trace_truncate(struct trace *t, const struct trace_mark *m)
{
	if (m->n > t->n)
		return;
	if (m->len < t->spilled) {   /* bring the mark's frame back */
		size_t f = trace_frame_of(t, m->nblks ? m->nblks - 1 : 0);
		size_t from = t->blks[t->frames[f].blk0].off;
		const uint8_t *fr = trace_get_frame(t, f);
		XGROW(t->buf, t->cap, m->len - from + 1);
		if (fr)
			memcpy(t->buf, fr, m->len - from);
		else
			memset(t->buf, 0, m->len - from);
		t->spilled = from;
		t->nframes = f;
		t->file_bytes = t->frames[f].file_off;
		t->zc->frame = -1;
	}
	t->n = m->n;
	t->len = m->len;
	t->nblks = m->nblks;
	trace_tab_truncate(&t->segs, m->nsegs);
	trace_tab_truncate(&t->cds, m->ncds);
	t->nsys = m->nsys;
	t->last_addr = m->last_addr;   /* instances stay: slices name them */
}

size_t trace_bytes(const struct trace *t)
{
	return t->len - t->spilled + t->nblks * sizeof *t->blks + trace_tab_bytes(&t->segs) +
	       trace_tab_bytes(&t->cds) + t->nsys * sizeof *t->sys + trace_tab_bytes(&t->insts);
}
