/* test_edges: a slice's edges and members (slice/blocks.c with
 * edges.c's coders) come back exactly as they went in, field by field,
 * read in order and at random, across many compressed blocks: in the
 * temporary file, and with temporary files off (the blocks stay
 * compressed in memory); the file really holds them (memory stays
 * small), and with files off nothing is written; one freed gives its
 * bytes in the shared file back without touching the other's. */
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "../../slice/blocks.h"
#include "../../slice/edges.h"
#include "../../slice/slice.h"
#include "../../slice/spill.h"

#define N 100000

static uint64_t rnd_state = 88172645463325252ull;
static uint64_t rnd(void)
{
	return unit_rnd(&rnd_state);
}

/* Edges as a slice makes them (to falling slowly, from a little above,
 * stack addresses) and at the fields' limits. */
static struct slice_edge make(size_t i)
{
	struct slice_edge e = {0};
	if (rnd() % 8) {
		e.to = (int32_t)(3000000 - i * 3 - rnd() % 3);
		e.from = e.to + 1 + (int32_t)(rnd() % 40);
		e.addr = rnd() % 2 ? 0x7ffffffde000 + rnd() % 4096 : 0;
	} else {
		e.to = (int32_t)(rnd() % 0x7fffffff);
		e.from = (int32_t)(rnd() % 0x7fffffff);
		e.addr = rnd();
	}
	e.rbp_off = (int32_t)rnd();
	e.def = rnd() % 5 ? (uint32_t)(rnd() % SLICE_DEF_NONE) : SLICE_DEF_NONE;
	e.reg = (uint8_t)(rnd() % 3 ? 0xff : rnd());
	e.kind = rnd() % 2;
	e.framed = rnd() % 2;
	return e;
}

static bool same(const struct slice_edge *a, const struct slice_edge *b)
{
	return a->from == b->from && a->to == b->to && a->addr == b->addr &&
	       a->rbp_off == b->rbp_off && a->def == b->def && a->reg == b->reg &&
	       a->kind == b->kind && a->framed == b->framed;
}

static void round_trip(const char *how)
{
	struct slice_edge *want = malloc(N * sizeof *want);
	struct blocks *es = blocks_new(NULL, &edges_coder);
	struct blocks *ms = blocks_new(NULL, &members_coder);
	int32_t *wm = malloc(N * sizeof *wm);
	for (size_t i = 0; i < N; i++) {
		want[i] = make(i);
		blocks_push(es, &want[i]);
		wm[i] = i % 5 ? (int32_t)(3000000 - i * 3) : (int32_t)(rnd() % 0x7fffffff);
		blocks_push(ms, &wm[i]);
	}
	char name[128];
	snprintf(name, sizeof name, "%s: count", how);
	unit_check(blocks_count(es) == N && blocks_count(ms) == N, name, "%zu", blocks_count(es));
	size_t bad = SIZE_MAX;
	for (size_t i = 0; i < N && bad == SIZE_MAX; i++) {
		const struct slice_edge *e = blocks_get(es, i);
		const int32_t *m = blocks_get(ms, i);
		if (!e || !same(e, &want[i]) || !m || *m != wm[i])
			bad = i;
	}
	snprintf(name, sizeof name, "%s: in order", how);
	unit_check(bad == SIZE_MAX, name, "edge %zu differs", bad);
	for (int k = 0; k < 3000 && bad == SIZE_MAX; k++) {
		size_t i = rnd() % N;
		const struct slice_edge *e = blocks_get(es, i);
		const int32_t *m = blocks_get(ms, i);
		if (!e || !same(e, &want[i]) || !m || *m != wm[i])
			bad = i;
	}
	snprintf(name, sizeof name, "%s: at random", how);
	unit_check(bad == SIZE_MAX, name, "edge %zu differs", bad);
	bool on = spill_enabled();
	snprintf(name, sizeof name, "%s: where the blocks are", how);
	unit_check(on ? blocks_file_bytes(es) > 0 && blocks_mem_bytes(es) < (size_t)2 << 20 &&
		   blocks_file_bytes(ms) > 0
		 : blocks_file_bytes(es) == 0 && blocks_mem_bytes(es) > 0 && blocks_file_bytes(ms) == 0,
	      name, "file %llu bytes, memory %zu bytes (the edges: %zu bytes)",
	      (unsigned long long)blocks_file_bytes(es), blocks_mem_bytes(es), N * sizeof *want);
	/* the two share the file, their blocks interleaved: the members'
	 * bytes given back leave the edges' whole */
	blocks_free(ms);
	bad = SIZE_MAX;
	for (size_t i = 0; i < N && bad == SIZE_MAX; i += 7) {
		const struct slice_edge *e = blocks_get(es, i);
		if (!e || !same(e, &want[i]))
			bad = i;
	}
	snprintf(name, sizeof name, "%s: after a neighbour is freed", how);
	unit_check(bad == SIZE_MAX, name, "edge %zu differs", bad);
	blocks_free(es);
	free(want);
	free(wm);
}

int main(void)
{
	round_trip("file");
	spill_set_enabled(false);
	round_trip("memory");
	spill_set_enabled(true);
	struct blocks *es = blocks_new(NULL, &edges_coder);
	unit_check(blocks_count(es) == 0 && blocks_count(NULL) == 0, "empty", "count %zu", blocks_count(es));
	blocks_free(es);
	return 0;
}
