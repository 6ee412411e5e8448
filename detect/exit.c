/* exit: the program's end as a detection point (`on exit`, `on exit each
 * block`): before the exit rules run, every block a library's own data
 * points at (stdio's buffers), directly or through such blocks, is marked
 * lib_held, so that a leak rule can leave it out with internal(addr). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect-int.h"
#include "target/run.h"
#include "target/session.h"

#define SCAN_MAX (16u << 20)   /* bytes read for reachability, at most */
#define LEAKS_SHOWN 20

/* Mark the live blocks the words of [lo, hi) point at; they are scanned
 * in turn (pushed on work). */
static size_t scan(struct qz *q, struct detect_state *st, uint64_t lo, uint64_t hi,
		   struct det_block ***work, size_t *nwork, size_t *cap)
{
	uint64_t buf[512];
	size_t done = 0;
	for (uint64_t a = lo & ~7ull; a < hi; a += sizeof buf) {
		size_t n = hi - a < sizeof buf ? (size_t)(hi - a) & ~7u : sizeof buf;
		if (!n || qz_read(q, a, buf, n) < 0)
			break;
		done += n;
		for (size_t i = 0; i < n / 8; i++) {
			struct det_block *b = buf[i] ? hmap_get(&st->blocks, buf[i]) : NULL;
			if (!b || !b->live || b->lib_held)
				continue;
			b->lib_held = true;
			XGROW(*work, *cap, *nwork + 1);
			(*work)[(*nwork)++] = b;
		}
	}
	return done;
}

/* The writable mappings of the libraries (their .data, and the .bss that
 * follows as an anonymous mapping). */
static void mark_lib_held(struct qz *q, struct detect_state *st)
{
	char path[64], line[4096];
	snprintf(path, sizeof path, "/proc/%d/maps", (int)proc_pid(q->proc));
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	struct det_block **work = NULL;
	size_t nwork = 0, cap = 0, budget = SCAN_MAX;
	uint64_t lib_end = 0;
	while (fgets(line, sizeof line, f)) {
		uint64_t lo, hi;
		char perms[8] = "", name[4096] = "";
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %*s %*s %*s %4095s", &lo, &hi, perms,
			   name) < 3)
			continue;
		struct qz_module *m = qz_module_at(q, lo);
		bool lib = m && m != &q->exe && name[0] == '/';
		bool bss = !name[0] && lo == lib_end;
		lib_end = lib ? hi : 0;
		if (perms[0] != 'r' || perms[1] != 'w' || !(lib || bss) || !budget)
			continue;
		size_t n = scan(q, st, lo, hi - lo < budget ? hi : lo + budget, &work, &nwork, &cap);
		budget = n < budget ? budget - n : 0;
	}
	fclose(f);
	while (nwork && budget) {
		struct det_block *b = work[--nwork];
		size_t n = b->size < budget ? (size_t)b->size : budget;
		budget -= n;
		scan(q, st, b->addr, b->addr + n, &work, &nwork, &cap);
	}
	free(work);
}

int det_heap_exit(struct qz *q, struct detect_state *st, uint64_t ret)
{
	(void)ret;
	if (st->exit_seen)
		return RUN_AGAIN;
	st->exit_seen = true;
	st->events[EV_EXIT]++;
	mark_lib_held(q, st);
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
