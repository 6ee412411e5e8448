/* edges: the coders of a slice's edges and members; see edges.h. */
#include "edges.h"

#include "slice.h"

/* A block of edges as columns: the compressor finds the repeats. */
struct edges_cols {
	uint32_t from[BLOCKS_N], to[BLOCKS_N];
	uint64_t addr[BLOCKS_N];
	uint32_t off[BLOCKS_N], bits[BLOCKS_N];
};

static void edges_encode(const void *elems, void *coded)
{
	const struct slice_edge *p = elems;
	struct edges_cols *c = coded;
	uint32_t to = 0;
	uint64_t addr = 0;
	for (size_t i = 0; i < BLOCKS_N; i++) {
		c->from[i] = (uint32_t)p[i].from - (uint32_t)p[i].to;
		c->to[i] = (uint32_t)p[i].to - to;
		c->addr[i] = p[i].addr - addr;
		c->off[i] = (uint32_t)p[i].rbp_off;
		c->bits[i] = p[i].def | (uint32_t)p[i].reg << 22 | (uint32_t)p[i].kind << 30 |
			     (uint32_t)p[i].framed << 31;
		to = (uint32_t)p[i].to;
		addr = p[i].addr;
	}
}

static void edges_decode(const void *coded, void *elems)
{
	const struct edges_cols *c = coded;
	struct slice_edge *v = elems;
	uint32_t to = 0;
	uint64_t addr = 0;
	for (size_t i = 0; i < BLOCKS_N; i++) {
		to += c->to[i];
		addr += c->addr[i];
		uint32_t bits = c->bits[i];
		v[i] = (struct slice_edge){ .from = (int32_t)(c->from[i] + to), .to = (int32_t)to,
			.addr = addr, .rbp_off = (int32_t)c->off[i], .def = bits & SLICE_DEF_NONE,
			.reg = (bits >> 22) & 0xff, .kind = (bits >> 30) & 1, .framed = bits >> 31 };
	}
}

const struct blocks_coder edges_coder = {
	sizeof(struct slice_edge), sizeof(struct edges_cols), edges_encode, edges_decode
};

/* Members are found walking backwards: mostly falling by a little. */
static void members_encode(const void *elems, void *coded)
{
	const uint32_t *p = elems;
	uint32_t *c = coded, prev = 0;
	for (size_t i = 0; i < BLOCKS_N; i++) {
		c[i] = p[i] - prev;
		prev = p[i];
	}
}

static void members_decode(const void *coded, void *elems)
{
	const uint32_t *c = coded;
	uint32_t *v = elems, prev = 0;
	for (size_t i = 0; i < BLOCKS_N; i++)
		v[i] = prev += c[i];
}

const struct blocks_coder members_coder = {
	sizeof(int32_t), BLOCKS_N * sizeof(uint32_t), members_encode, members_decode
};
