/* test_trace: the recording's storage (slice/trace.c): records with
 * memory addresses round-trip through the compact encoding, in memory and
 * spilled to the temporary file; side tables answer by record number; a
 * mark and truncate (a rollback) restores an earlier trace exactly, also
 * when the mark lies in spilled bytes. */
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "../../slice/trace.h"

static void check(bool ok, const char *name, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	unit_vcheck(ok, name, fmt, ap);
	va_end(ap);
}

#define N 20000

struct want { uint32_t id; bool skipped; uint64_t addr[INSN_MAX_MEM]; };

static uint64_t rnd_state = 88172645463325252ull;
static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
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
	check(t.n == N && same(&t, w, N, &bad), name, "first difference at record %zu", bad);
	snprintf(name, sizeof name, "%s: spilled as asked", what);
	check(spill_at ? t.spilled > 0 : t.spilled == 0, name, "spilled %zu", t.spilled);
	snprintf(name, sizeof name, "%s: compact (under 6 bytes a record here)", what);
	check(t.len < 6 * (size_t)N, name, "%zu bytes", t.len);
	snprintf(name, sizeof name, "%s: side tables by record number", what);
	check(trace_inst_at(&t, 0) == 0 && trace_inst_at(&t, 97 * 5 + 3) == 5 &&
	      trace_cd_at(&t, 41 * 7) == 41 * 7 - 1 && trace_cd_at(&t, 41 * 7 + 40) == 41 * 7 - 1,
	      name, "inst %d cd %lld", trace_inst_at(&t, 97 * 5 + 3), (long long)trace_cd_at(&t, 41 * 7));
	if (spill_at) {
		snprintf(name, sizeof name, "%s: the mark lies in spilled bytes", what);
		check(t.spilled > m.len, name, "spilled %zu, mark at %zu", t.spilled, m.len);
	}
	trace_truncate(&t, &m);
	snprintf(name, sizeof name, "%s: truncate back to the mark", what);
	check(t.n == N / 2 && same(&t, w, N / 2, &bad) && trace_inst_at(&t, N) == (int32_t)((N / 2 - 1) / 97),
	      name, "n %llu, first difference at %zu", (unsigned long long)t.n, bad);
	rnd_state ^= 12345;
	fill(&t, w, N / 2, N);
	snprintf(name, sizeof name, "%s: record again after truncating", what);
	check(t.n == N && same(&t, w, N, &bad), name, "first difference at record %zu", bad);
	trace_free(&t);
	free(w);
}

int main(void)
{
	run(0, "in memory");
	run(4096, "spilled");
	return 0;
}
