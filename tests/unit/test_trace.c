/* test_trace: the recording's storage (slice/trace.c): records with
 * memory addresses round-trip through the compact encoding, in memory and
 * spilled to the temporary file; side tables answer by record number; a
 * mark and truncate (a rollback) restores an earlier trace exactly, also
 * when the mark lies in spilled bytes. The side tables (trace-tab.c) keep
 * their rows through compressed chunks, in the file and without one, and
 * answer searches and truncation across chunk boundaries. */
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "../../slice/trace.h"

#define N 20000

struct want { uint32_t id; bool skipped; uint64_t addr[INSN_MAX_MEM]; };

static uint64_t rnd_state = 88172645463325252ull;
static uint64_t rnd(void)
{
	return unit_rnd(&rnd_state);
}

static void add_insn(struct trace *t, const uint8_t *b, int n)
{
	XGROW(t->insns, t->insns_cap, t->ninsns + 1);
	struct trace_insn *e = &t->insns[t->ninsns++];
	memset(e, 0, sizeof *e);
	insn_decode(b, n, 0x1000, &e->in);
}

static void fill(struct trace *t, struct want *w, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++) {
		w[i].id = (uint32_t)(rnd() % t->ninsns);
		const struct insn *in = &t->insns[w[i].id].in;
		w[i].skipped = in->rep && rnd() % 4 == 0;
		for (int k = 0; k < in->nmem; k++)   /* near and far addresses */
			w[i].addr[k] = rnd() % 3 ? 0x7ffffffde000 + rnd() % 4096 : rnd();
		if (i % 97 == 0)
			trace_set_inst(t, (int32_t)(i / 97));
		if (i % 41 == 0)
			trace_set_cd(t, (int64_t)i - 1);
		trace_add(t, w[i].id, w[i].addr, w[i].skipped);
		if (in->kind == INSN_SYSCALL)
			trace_add_sys(t, w[i].addr[0] + 16, 100);
	}
}

/* Do the decoded blocks match w[0..n)? */
static bool same(const struct trace *t, const struct want *w, size_t n, size_t *bad)
{
	struct trace_rec *recs = malloc(TRACE_BLK * sizeof *recs);
	size_t i = 0;
	for (size_t b = 0; b < t->nblks; b++) {
		size_t k = trace_block(t, b, recs);
		for (size_t j = 0; j < k; j++, i++) {
			const struct insn *in = &t->insns[recs[j].id].in;
			bool ok = recs[j].id == w[i].id && recs[j].skipped == w[i].skipped;
			for (int m = 0; ok && !w[i].skipped && m < in->nmem; m++)
				ok = recs[j].addr[m] == w[i].addr[m];
			if (!ok) {
				*bad = i;
				free(recs);
				return false;
			}
		}
	}
	free(recs);
	*bad = i;
	return i == n;
}

static void run(size_t spill_at, const char *what)
{
	static const uint8_t push_rbx[] = { 0x53 }, rep_movsb[] = { 0xf3, 0xa4 }, nop[] = { 0x90 },
			     load[] = { 0x48, 0x8b, 0x07 }, sys[] = { 0x0f, 0x05 };
	struct trace t;
	memset(&t, 0, sizeof t);
	t.spill_at = spill_at;
	add_insn(&t, push_rbx, 1);
	add_insn(&t, rep_movsb, 2);
	add_insn(&t, nop, 1);
	add_insn(&t, load, 3);
	add_insn(&t, sys, 2);
	struct want *w = calloc(N, sizeof *w);
	fill(&t, w, 0, N / 2);
	struct trace_mark m;
	trace_mark(&t, &m);
	fill(&t, w, N / 2, N);
	size_t bad = 0;
	char name[200];
	snprintf(name, sizeof name, "%s: %d records round-trip", what, N);
	unit_check(t.n == N && same(&t, w, N, &bad), name, "first difference at record %zu", bad);
	snprintf(name, sizeof name, "%s: spilled as asked", what);
	unit_check(spill_at ? t.spilled > 0 : t.spilled == 0, name, "spilled %zu", t.spilled);
	snprintf(name, sizeof name, "%s: compact (under 6 bytes a record here)", what);
	unit_check(t.len < 6 * (size_t)N, name, "%zu bytes", t.len);
	snprintf(name, sizeof name, "%s: side tables by record number", what);
	unit_check(trace_inst_at(&t, 0) == 0 && trace_inst_at(&t, 97 * 5 + 3) == 5 &&
	      trace_cd_at(&t, 41 * 7) == 41 * 7 - 1 && trace_cd_at(&t, 41 * 7 + 40) == 41 * 7 - 1,
	      name, "inst %d cd %lld", trace_inst_at(&t, 97 * 5 + 3), (long long)trace_cd_at(&t, 41 * 7));
	if (spill_at) {
		snprintf(name, sizeof name, "%s: the mark lies in spilled bytes", what);
		unit_check(t.spilled > m.len, name, "spilled %zu, mark at %zu", t.spilled, m.len);
	}
	trace_truncate(&t, &m);
	snprintf(name, sizeof name, "%s: truncate back to the mark", what);
	unit_check(t.n == N / 2 && same(&t, w, N / 2, &bad) && trace_inst_at(&t, N) == (int32_t)((N / 2 - 1) / 97),
	      name, "n %llu, first difference at %zu", (unsigned long long)t.n, bad);
	rnd_state ^= 12345;
	fill(&t, w, N / 2, N);
	snprintf(name, sizeof name, "%s: record again after truncating", what);
	unit_check(t.n == N && same(&t, w, N, &bad), name, "first difference at record %zu", bad);
	trace_free(&t);
	free(w);
}

/* Row i of the test table: a ascending with gaps, b anything. */
static struct trace_row tab_row(size_t i)
{
	return (struct trace_row){ (uint32_t)(i * 3 + i / 7), (uint32_t)((i * 2654435761u) % 1000) };
}

static bool tab_same(const struct trace_tab *t, size_t n, size_t *bad)
{
	for (size_t i = 0; i < n; i++) {
		struct trace_row r = trace_tab_get(t, i);
		if (r.a != tab_row(i).a || r.b != tab_row(i).b) {
			*bad = i;
			return false;
		}
	}
	*bad = n;
	return t->n == n;
}

static void tables(bool nofile, const char *what)
{
	struct trace_tab_file f = { .failed = nofile };
	struct trace_tab t = { .file = &f };
	size_t n = 3 * TRACE_TAB_CHUNK + 123, bad = 0;
	char name[200];
	for (size_t i = 0; i < n; i++)
		trace_tab_push(&t, tab_row(i));
	snprintf(name, sizeof name, "%s: %zu rows read back through compressed chunks", what, n);
	unit_check(t.nchunks == 3 && tab_same(&t, n, &bad), name, "first difference at row %zu", bad);
	snprintf(name, sizeof name, "%s: chunks are where they should be", what);
	unit_check(nofile ? !f.f && t.chunks[0].mem : f.f && !t.chunks[0].mem && f.end > 0, name,
	      "file %p, mem %p", (void *)f.f, (void *)t.chunks[0].mem);
	snprintf(name, sizeof name, "%s: compressed (under 4 bytes a row)", what);
	size_t cbytes = 0;
	for (size_t k = 0; k < t.nchunks; k++)
		cbytes += t.chunks[k].csize;
	unit_check(cbytes < 4 * 3 * TRACE_TAB_CHUNK, name, "%zu bytes for %d rows", cbytes, 3 * TRACE_TAB_CHUNK);
	bool ok = trace_tab_upto(&t, 0) == 1;
	for (size_t i = 1; i < n && ok; i += 37) {   /* a of row i, and just below it */
		ok = trace_tab_upto(&t, tab_row(i).a) == i + 1 &&
		     trace_tab_upto(&t, tab_row(i).a - 1) == i;
		bad = i;
	}
	snprintf(name, sizeof name, "%s: search by a", what);
	unit_check(ok && trace_tab_upto(&t, UINT32_MAX) == n, name, "wrong at row %zu", bad);
	size_t k = SIZE_MAX, first, count, found = SIZE_MAX;
	const struct trace_row *r;
	uint32_t want = tab_row(2 * TRACE_TAB_CHUNK + 5).b;
	while (found == SIZE_MAX && (r = trace_tab_find_b(&t, want, true, &k, &first, &count)))
		for (size_t j = count; j-- > 0 && found == SIZE_MAX;)
			if (r[j].b == want)
				found = first + j;
	size_t expect = SIZE_MAX;
	for (size_t i = n; i-- > 0 && expect == SIZE_MAX;)
		if (tab_row(i).b == want)
			expect = i;
	snprintf(name, sizeof name, "%s: the last row with a given b", what);
	unit_check(found == expect, name, "found %zu, want %zu", found, expect);
	trace_tab_truncate(&t, 2 * TRACE_TAB_CHUNK);   /* a chunk boundary */
	snprintf(name, sizeof name, "%s: truncate to a chunk boundary", what);
	unit_check(tab_same(&t, 2 * TRACE_TAB_CHUNK, &bad) && trace_tab_last(&t).a == tab_row(2 * TRACE_TAB_CHUNK - 1).a,
	      name, "first difference at row %zu", bad);
	trace_tab_truncate(&t, TRACE_TAB_CHUNK / 2);
	for (size_t i = TRACE_TAB_CHUNK / 2; i < n; i++)
		trace_tab_push(&t, tab_row(i));
	snprintf(name, sizeof name, "%s: truncate inside a chunk, then grow again", what);
	unit_check(tab_same(&t, n, &bad), name, "first difference at row %zu", bad);
	trace_tab_clear(&t);
	trace_tab_push(&t, tab_row(0));
	snprintf(name, sizeof name, "%s: clear", what);
	unit_check(t.n == 1 && t.nchunks == 0 && trace_tab_get(&t, 0).b == tab_row(0).b, name, "n %zu", t.n);
	trace_tab_free(&t);
	if (f.f)
		fclose(f.f);
}

/* Instances over many chunks: their spans in the recording. */
static void spans(void)
{
	struct trace t;
	memset(&t, 0, sizeof t);
	static const uint8_t nop[] = { 0x90 };
	add_insn(&t, nop, 1);
	size_t n = 5 * TRACE_TAB_CHUNK;
	for (size_t i = 0; i < n; i++) {   /* instance 0 comes back every 10 records */
		trace_set_inst(&t, i % 10 == 9 ? 0 : trace_new_inst(&t, (uint32_t)(i % 3), (uint32_t)i));
		trace_set_cd(&t, (int64_t)i / 2);
		trace_add(&t, 0, NULL, false);
	}
	uint64_t first = 0, last = 0;
	bool ok0 = trace_inst_span(&t, 0, &first, &last) && first == 0 && last == n - 1;
	int32_t mid = trace_inst_at(&t, 3 * TRACE_TAB_CHUNK + 2);
	uint64_t f2 = 0, l2 = 0;
	bool ok1 = mid > 0 && trace_inst_span(&t, mid, &f2, &l2) && f2 == l2 &&
		   f2 == 3 * TRACE_TAB_CHUNK + 2 && trace_inst_get(&t, mid).n == f2;
	unit_check(ok0 && ok1 && !trace_inst_span(&t, (int32_t)t.insts.n + 5, NULL, NULL),
	      "instance spans over compressed chunks", "inst 0 %llu-%llu, inst %d %llu-%llu",
	      (unsigned long long)first, (unsigned long long)last, mid, (unsigned long long)f2,
	      (unsigned long long)l2);
	struct trace_back sb, cb;
	trace_back_init(&sb, &t.segs);
	trace_back_init(&cb, &t.cds);
	bool ok = true;
	for (uint64_t i = n; i-- > 0 && ok;)
		ok = trace_back_at(&sb, i) == trace_inst_at(&t, i) &&
		     trace_back_at(&cb, i) == trace_cd_at(&t, i) && trace_cd_at(&t, i) == (int64_t)i / 2;
	unit_check(ok, "walking backwards agrees with the searches", "");
	trace_free(&t);
}

int main(void)
{
	run(0, "in memory");
	run(4096, "spilled");
	tables(false, "table in the file");
	tables(true, "table without a file");
	spans();
	return 0;
}
