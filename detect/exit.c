/* exit: the program's end as a detection point (`on exit`, `on exit each
 * block`): before the exit rules run, every live block reachable from the
 * roots (the writable data of the program and its libraries, the live part
 * of the stack, other anonymous mappings such as thread stacks), directly
 * or through reachable blocks, is marked reachable, as Valgrind's leak
 * check does: a leak rule reports the others with not reachable(addr)
 * (stdio's buffer is reachable from libc's data, a list whose head was a
 * local of the returned main is not). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect-int.h"
#include "target/run.h"
#include "target/session.h"
#include "util/sorted.h"

#define SCAN_MAX (256u << 20)  /* bytes read for reachability, at most */
#define SCAN_CHUNK 8192        /* words read at a time */
#define LEAKS_SHOWN 20

/* The live blocks by address, for the words that point inside one (a
 * thread's TCB points one word into its DTV: Valgrind's "possibly lost",
 * not a leak), and the blocks reached but not yet scanned. */
struct reach {
	struct span { uint64_t addr, end; struct det_block *b; } *spans;
	size_t nspans;
	struct det_block **work;
	size_t nwork, cap;
	struct det_block *leader;    /* mark_indirect: the group's lost block */
};

static int cmp_span(const void *a, const void *b)
{
	uint64_t x = ((const struct span *)a)->addr, y = ((const struct span *)b)->addr;
	return x < y ? -1 : x > y;
}

static void reach_init(struct reach *r, struct detect_state *st)
{
	memset(r, 0, sizeof *r);
	r->spans = xmalloc((st->nall + 1) * sizeof *r->spans);
	for (size_t i = 0; i < st->nall; i++) {
		struct det_block *b = st->all[i];
		if (b->live)
			r->spans[r->nspans++] = (struct span){ b->addr, b->addr + (b->size ? b->size : 1), b };
	}
	qsort(r->spans, r->nspans, sizeof *r->spans, cmp_span);
}

static struct det_block *reach_block(const struct reach *r, uint64_t w)
{
	size_t k = SORTED_UPTO(r->spans, r->nspans, addr, w);
	return k && w < r->spans[k - 1].end ? r->spans[k - 1].b : NULL;
}

/* What a word pointing into live block b does: mark it and say whether
 * its words are to be scanned in turn. */
typedef bool (*reach_visit)(struct reach *r, struct det_block *b);

static bool visit_root(struct reach *r, struct det_block *b)
{
	(void)r;
	if (b->reachable)
		return false;
	b->reachable = true;
	return true;
}

/* Calls visit on the live blocks the words of [lo, hi) point into,
 * pushing those it says on work. Returns the bytes read. */
static size_t scan(struct qz *q, struct reach *r, uint64_t lo, uint64_t hi, reach_visit visit)
{
	uint64_t *buf = xmalloc(SCAN_CHUNK * sizeof *buf);
	size_t done = 0, size = SCAN_CHUNK * sizeof *buf;
	uint64_t first = r->nspans ? r->spans[0].addr : 0, last = r->nspans ? r->spans[r->nspans - 1].end : 0;
	for (uint64_t a = lo & ~7ull; a < hi; a += size) {
		size_t n = hi - a < size ? (size_t)(hi - a) & ~7u : size;
		if (!n || qz_read(q, a, buf, n) < 0)
			break;
		done += n;
		for (size_t i = 0; i < n / 8; i++) {
			if (buf[i] < first || buf[i] >= last)
				continue;
			struct det_block *b = reach_block(r, buf[i]);
			if (!b || !visit(r, b))
				continue;
			XGROW(r->work, r->cap, r->nwork + 1);
			r->work[r->nwork++] = b;
		}
	}
	free(buf);
	return done;
}

/* Scan what is on work until it is empty or the budget is spent. */
static size_t drain(struct qz *q, struct reach *r, size_t budget, reach_visit visit)
{
	while (r->nwork && budget) {
		struct det_block *b = r->work[--r->nwork];
		size_t n = b->size < budget ? (size_t)b->size : budget;
		budget -= n;
		scan(q, r, b->addr, b->addr + n, visit);
	}
	return budget;
}

/* A mapping that holds a known block (malloc's mmapped chunks): heap,
 * not a root. */
static bool holds_block(struct detect_state *st, uint64_t lo, uint64_t hi)
{
	for (size_t i = 0; i < st->nall; i++)
		if (st->all[i]->live && st->all[i]->addr >= lo && st->all[i]->addr < hi)
			return true;
	return false;
}

/* Whether a writable mapping of /proc/PID/maps is a root; the stack's
 * live part starts at sp. */
static bool is_root(struct qz *q, struct detect_state *st, uint64_t *lo, uint64_t hi,
		    const char *name, uint64_t module_end)
{
	if (strcmp(name, "[stack]") == 0) {
		uint64_t sp = proc_regs(q->proc)->rsp;
		if (sp > *lo && sp < hi)
			*lo = sp;
		return true;
	}
	if (name[0] == '/')
		return qz_module_at(q, *lo) != NULL;
	if (name[0] == '[')
		return false;   /* [heap], [vvar], [vdso] */
	return *lo == module_end || !holds_block(st, *lo, hi);
}

/* A lost block reached from the leader's words: lost through it. A lower
 * lost block led a group already: it joins this one with its group (not
 * scanned again: its group is counted). */
static bool visit_lost(struct reach *r, struct det_block *b)
{
	struct det_block *l = r->leader;
	if (b->reachable || b == l || b->indirect)
		return false;   /* reached from a root, the leader, or in a group */
	bool led = b->addr < l->addr;
	l->ind_bytes += b->size + (led ? b->ind_bytes : 0);
	l->ind_blocks += 1 + (led ? b->ind_blocks : 0);
	b->indirect = true;
	b->ind_bytes = 0;
	b->ind_blocks = 0;
	return !led;
}

/* Valgrind's "indirectly lost": the lost blocks, in address order, lead;
 * what a leader's words reach (and what that reaches) is lost through it.
 * A cycle of lost blocks is led by its lowest address. */
static void mark_indirect(struct qz *q, struct reach *r, size_t budget)
{
	for (size_t i = 0; i < r->nspans && budget; i++) {
		struct det_block *b = r->spans[i].b;
		if (b->reachable || b->indirect)
			continue;
		r->leader = b;
		XGROW(r->work, r->cap, r->nwork + 1);
		r->work[r->nwork++] = b;
		budget = drain(q, r, budget, visit_lost);
	}
}

/* The part of a read-only mapping [*lo, *hi) of module m that is its
 * RELRO data: pointers libc's start-up stored before making it read-only
 * (in a static program, _dl_init_paths' and _dl_find_object_init's
 * blocks, which glibc keeps for the whole run); false if none. */
static bool relro_part(const struct qz_module *m, uint64_t *lo, uint64_t *hi)
{
	uint64_t rlo, rhi;
	if (!m || !m->img || !img_relro(m->img, &rlo, &rhi))
		return false;
	rlo += m->bias;
	rhi += m->bias;
	*lo = *lo > rlo ? *lo : rlo;
	*hi = *hi < rhi ? *hi : rhi;
	return *lo < *hi;
}

/* Mark what the roots reach; false if the budget ran out first (then
 * nothing can be called unreachable). */
static bool mark_reachable(struct qz *q, struct detect_state *st)
{
	char path[64], line[4096];
	snprintf(path, sizeof path, "/proc/%d/maps", (int)proc_pid(q->proc));
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	struct reach r;
	reach_init(&r, st);
	size_t budget = SCAN_MAX;
	uint64_t module_end = 0;
	while (fgets(line, sizeof line, f) && budget) {
		uint64_t lo, hi;
		char perms[8] = "", name[4096] = "";
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %*s %*s %*s %4095s", &lo, &hi, perms,
			   name) < 3)
			continue;
		const struct qz_module *m = name[0] == '/' ? qz_module_at(q, lo) : NULL;
		uint64_t end = hi;
		bool root = perms[0] == 'r' && perms[1] == 'w' && is_root(q, st, &lo, hi, name, module_end);
		if (!root && perms[0] == 'r' && perms[2] != 'x')
			root = relro_part(m, &lo, &hi);
		module_end = m ? end : 0;
		if (!root)
			continue;
		size_t n = scan(q, &r, lo, hi - lo < budget ? hi : lo + budget, visit_root);
		budget = n < budget ? budget - n : 0;
	}
	fclose(f);
	budget = drain(q, &r, budget, visit_root);
	if (budget)
		mark_indirect(q, &r, budget);
	free(r.work);
	free(r.spans);
	return budget > 0;
}

int det_heap_exit(struct qz *q, struct detect_state *st, uint64_t ret)
{
	(void)ret;
	if (st->exit_seen)
		return RUN_AGAIN;
	st->exit_seen = true;
	st->events[EV_EXIT]++;
	if (!mark_reachable(q, st)) {
		qz_warn(q, "The leak check read %u MB without finishing: no block is called "
			"unreachable.", SCAN_MAX >> 20);
		for (size_t i = 0; i < st->nall; i++)
			st->all[i]->reachable = true, st->all[i]->indirect = false;
	}
	struct sbuf out = {0}, more = {0};
	struct det_event e = { .ev = EV_EXIT };
	bool any = det_fire(q, &e, &out);
	size_t shown = 0, extra = 0;
	for (size_t i = 0; i < st->nall; i++) {
		struct det_block *b = st->all[i];
		if (!b->live)
			continue;
		struct det_event eb = { .ev = EV_EXIT, .blk = b,
					.f = { [F_ADDR] = b->addr, [F_SIZE] = b->size } };
		sbuf_reset(&more);
		if (!det_fire(q, &eb, shown < LEAKS_SHOWN ? &out : &more))
			continue;
		any = true;
		shown < LEAKS_SHOWN ? shown++ : extra++;
	}
	sbuf_free(&more);
	if (extra)
		sbuf_printf(&out, "... and %zu more.\n", extra);
	if (!any) {
		sbuf_free(&out);
		return RUN_AGAIN;
	}
	return det_stop(q, &out);
}
