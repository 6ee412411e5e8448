/* cfg: per-function CFG and post-dominator tree (Cooper, Harvey and
 * Kennedy's iterative algorithm on the reverse graph). */
#include "cfg.h"

#include <stdlib.h>
#include <string.h>

#include "insn.h"
#include "target/session.h"
#include "util/util.h"
#include "util/sorted.h"

#define CFG_MAX_BYTES (1 << 20)

struct cfg_block {
	uint64_t start, last;     /* first and last instruction addresses */
	int *succ;                /* block indexes; nblocks = the exit */
	size_t nsucc, succ_cap;
	int ipdom;                /* -1: none (cannot reach the exit) */
};

struct cfg_func {
	uint64_t lo, hi;
	uint64_t *extra;          /* indirect targets seen at run time */
	size_t nextra, extra_cap;
	bool built;
	struct cfg_block *blocks;
	size_t nblocks;
};

struct cfg_cache {
	struct cfg_func *funcs;
	size_t n, cap;
};

struct cfg_cache *cfg_new(void)
{
	return xcalloc(1, sizeof(struct cfg_cache));
}

static void cfg_drop(struct cfg_func *f)
{
	for (size_t i = 0; i < f->nblocks; i++)
		free(f->blocks[i].succ);
	free(f->blocks);
	f->blocks = NULL;
	f->nblocks = 0;
	f->built = false;
}

void cfg_free(struct cfg_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		cfg_drop(&c->funcs[i]);
		free(c->funcs[i].extra);
	}
	free(c->funcs);
	free(c);
}

static struct cfg_func *cfg_func(struct cfg_cache *c, uint64_t lo, uint64_t hi)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->funcs[i].lo == lo)
			return &c->funcs[i];
	XGROW(c->funcs, c->cap, c->n + 1);
	struct cfg_func *f = &c->funcs[c->n++];
	memset(f, 0, sizeof *f);
	f->lo = lo;
	f->hi = hi;
	return f;
}

/* Decoded instructions of a function, in address order. */
struct cfg_code {
	uint64_t *addr;
	struct insn *in;
	size_t n;
	uint8_t *leader;          /* per byte offset */
};

static void cfg_decode(struct qz *q, struct cfg_func *f, struct cfg_code *k)
{
	size_t len = f->hi - f->lo;
	uint8_t *bytes = xcalloc(len + 16, 1);
	if (qz_read(q, f->lo, bytes, len) < 0)
		len = 0;
	k->addr = xmalloc((len + 1) * sizeof *k->addr);
	k->in = xmalloc((len + 1) * sizeof *k->in);
	k->leader = xcalloc(len + 1, 1);
	k->n = 0;
	for (size_t off = 0; off < len;) {
		struct insn *in = &k->in[k->n];
		if (!insn_decode(bytes + off, (int)(len - off < 15 ? len - off : 15), f->lo + off, in))
			break;
		k->addr[k->n++] = f->lo + off;
		off += in->len;
	}
	free(bytes);
}

static bool cfg_in(const struct cfg_func *f, uint64_t a)
{
	return a >= f->lo && a < f->hi;
}

/* gcc's jump table after `lea reg,[rip+T]`: int32 offsets from T. */
static void cfg_jump_table(struct qz *q, struct cfg_func *f, uint64_t t, struct cfg_code *k)
{
	for (int i = 0; i < 4096; i++) {
		int32_t e;
		if (qz_read(q, t + 4 * (uint64_t)i, &e, 4) < 0)
			return;
		uint64_t a = t + (uint64_t)(int64_t)e;
		if (!cfg_in(f, a))
			return;
		k->leader[a - f->lo] = 2;   /* 2: an indirect target */
	}
}

static void cfg_leaders(struct qz *q, struct cfg_func *f, struct cfg_code *k)
{
	if (k->n)
		k->leader[0] = 1;
	for (size_t i = 0; i < k->n; i++) {
		const struct insn *in = &k->in[i];
		uint64_t next = k->addr[i] + in->len;
		if (in->rip_ref && !cfg_in(f, in->rip_ref))
			cfg_jump_table(q, f, in->rip_ref, k);
		if (in->kind == INSN_OTHER || in->kind == INSN_CALL || in->kind == INSN_CALL_IND ||
		    in->kind == INSN_SYSCALL)
			continue;
		if (cfg_in(f, next) && !k->leader[next - f->lo])
			k->leader[next - f->lo] = 1;
		if ((in->kind == INSN_JCC || in->kind == INSN_JMP) && cfg_in(f, in->target) &&
		    !k->leader[in->target - f->lo])
			k->leader[in->target - f->lo] = 1;
	}
	for (size_t i = 0; i < f->nextra; i++)
		if (cfg_in(f, f->extra[i]))
			k->leader[f->extra[i] - f->lo] = 2;
}

static int cfg_block_of(const struct cfg_func *f, uint64_t a)
{
	size_t lo = SORTED_UPTO(f->blocks, f->nblocks, start, a);
	return lo && a <= f->blocks[lo - 1].last ? (int)lo - 1 : -1;
}

static void cfg_edge(struct cfg_func *f, struct cfg_block *b, uint64_t to)
{
	int s = cfg_in(f, to) ? cfg_block_of(f, to) : (int)f->nblocks;
	if (s < 0)
		s = (int)f->nblocks;
	for (size_t i = 0; i < b->nsucc; i++)
		if (b->succ[i] == s)
			return;
	XGROW(b->succ, b->succ_cap, b->nsucc + 1);
	b->succ[b->nsucc++] = s;
}

static void cfg_block_edges(struct cfg_func *f, struct cfg_block *b, const struct insn *in,
			    const struct cfg_code *k)
{
	uint64_t next = b->last + in->len;
	switch (in->kind) {
	case INSN_JCC:
		cfg_edge(f, b, in->target);
		cfg_edge(f, b, next);
		break;
	case INSN_JMP:
		cfg_edge(f, b, in->target);
		break;
	case INSN_JMP_IND:
		for (size_t off = 0; off < f->hi - f->lo; off++)
			if (k->leader[off] == 2)
				cfg_edge(f, b, f->lo + off);
		if (!b->nsucc)
			cfg_edge(f, b, 0);
		break;
	case INSN_RET:
	case INSN_HALT:
		cfg_edge(f, b, 0);
		break;
	default:
		cfg_edge(f, b, next);
	}
}

static void cfg_blocks(struct cfg_func *f, const struct cfg_code *k)
{
	f->blocks = xcalloc(k->n + 1, sizeof *f->blocks);
	for (size_t i = 0; i < k->n; i++) {
		if (k->leader[k->addr[i] - f->lo] || i == 0)
			f->blocks[f->nblocks++].start = k->addr[i];
		f->blocks[f->nblocks - 1].last = k->addr[i];
	}
	size_t bi = 0;
	for (size_t i = 0; i < k->n; i++) {
		while (bi < f->nblocks && f->blocks[bi].last < k->addr[i])
			bi++;
		if (bi < f->nblocks && f->blocks[bi].last == k->addr[i])
			cfg_block_edges(f, &f->blocks[bi], &k->in[i], k);
	}
}

/* Post-order of the reverse graph from the exit (node nb). */
static void cfg_postorder(const struct cfg_func *f, int **preds, size_t *npreds,
			  int *po, int *order)
{
	int nb = (int)f->nblocks, cnt = 0, sp = 0;
	int *stack = xmalloc((size_t)(nb + 1) * sizeof *stack);
	size_t *it = xcalloc((size_t)nb + 1, sizeof *it);
	for (int i = 0; i <= nb; i++)
		po[i] = -1;
	stack[sp++] = nb;
	po[nb] = -2;
	while (sp) {
		int v = stack[sp - 1];
		if (it[v] < npreds[v]) {
			int w = preds[v][it[v]++];
			if (po[w] == -1) {
				po[w] = -2;
				stack[sp++] = w;
			}
			continue;
		}
		order[cnt] = v;
		po[v] = cnt++;
		sp--;
	}
	for (int i = cnt; i <= nb; i++)
		order[i] = -1;
	free(stack);
	free(it);
}

static int cfg_intersect(const int *ipdom, const int *po, int a, int b)
{
	while (a != b) {
		while (po[a] < po[b])
			a = ipdom[a];
		while (po[b] < po[a])
			b = ipdom[b];
	}
	return a;
}

static void cfg_postdom(struct cfg_func *f)
{
	int nb = (int)f->nblocks;
	int **preds = xcalloc((size_t)nb + 1, sizeof *preds);
	size_t *npreds = xcalloc((size_t)nb + 1, sizeof *npreds), *cap = xcalloc((size_t)nb + 1, sizeof *cap);
	for (int b = 0; b < nb; b++)
		for (size_t j = 0; j < f->blocks[b].nsucc; j++) {
			int s = f->blocks[b].succ[j];
			XGROW(preds[s], cap[s], npreds[s] + 1);
			preds[s][npreds[s]++] = b;
		}
	int *po = xmalloc((size_t)(nb + 1) * sizeof *po), *order = xmalloc((size_t)(nb + 1) * sizeof *order);
	int *ipdom = xmalloc((size_t)(nb + 1) * sizeof *ipdom);
	cfg_postorder(f, preds, npreds, po, order);
	for (int i = 0; i <= nb; i++)
		ipdom[i] = -1;
	ipdom[nb] = nb;
	for (bool changed = true; changed;) {
		changed = false;
		for (int i = nb - 1; i >= 0; i--) {   /* reverse post-order */
			int b = order[i];
			if (b < 0 || b == nb)
				continue;
			int d = -1;
			for (size_t j = 0; j < f->blocks[b].nsucc; j++) {
				int s = f->blocks[b].succ[j];
				if (ipdom[s] < 0)
					continue;
				d = d < 0 ? s : cfg_intersect(ipdom, po, d, s);
			}
			if (d != ipdom[b]) {
				ipdom[b] = d;
				changed = true;
			}
		}
	}
	for (int b = 0; b < nb; b++)
		f->blocks[b].ipdom = ipdom[b];
	for (int i = 0; i <= nb; i++)
		free(preds[i]);
	free(preds); free(npreds); free(cap); free(po); free(order); free(ipdom);
}

static void cfg_build(struct qz *q, struct cfg_func *f)
{
	struct cfg_code k;
	if (f->hi - f->lo > CFG_MAX_BYTES)
		f->hi = f->lo + CFG_MAX_BYTES;
	cfg_decode(q, f, &k);
	cfg_leaders(q, f, &k);
	cfg_blocks(f, &k);
	cfg_postdom(f);
	free(k.addr);
	free(k.in);
	free(k.leader);
	f->built = true;
}

uint64_t cfg_ipdom(struct cfg_cache *c, struct qz *q, uint64_t lo, uint64_t hi, uint64_t pc)
{
	struct cfg_func *f = cfg_func(c, lo, hi);
	if (!f->built)
		cfg_build(q, f);
	int b = cfg_block_of(f, pc);
	if (b < 0)
		return 0;
	int d = f->blocks[b].ipdom;
	if (d < 0 || d >= (int)f->nblocks)
		return 0;
	return f->blocks[d].start;
}

void cfg_add_target(struct cfg_cache *c, uint64_t lo, uint64_t hi, uint64_t target)
{
	struct cfg_func *f = cfg_func(c, lo, hi);
	for (size_t i = 0; i < f->nextra; i++)
		if (f->extra[i] == target)
			return;
	XGROW(f->extra, f->extra_cap, f->nextra + 1);
	f->extra[f->nextra++] = target;
	cfg_drop(f);
}
