/* access: the read and write events: the program's own loads and stores
 * that touch a heap byte outside every live block (use after free of any
 * size, overflows and underflows by plain instructions). The program then
 * runs under the recorder's engine (slice/view.h's watcher: the emulator,
 * or single-stepping where it cannot), which shows each instruction's
 * accesses to det_acc_check before it runs; the check is one shadow
 * lookup (shadow.c), and only an access to a bad granule stops the
 * machine for the rules. The shadow follows the heap events: a block and
 * its glibc chunk (the size word before it gives the chunk's end: the
 * slack past the block and the next chunk's header are a redzone), freed
 * blocks. Library code is not checked: the allocator reads and writes
 * its freed chunks, and a library call's writes are libwrite's. */
#include <stdio.h>
#include <string.h>

#include "detect-int.h"
#include "slice/view.h"
#include "target/run.h"
#include "target/session.h"

#define ACC_CHUNK_SLACK (64u << 10)   /* a chunk this much bigger is not glibc's */

static bool class_has(const struct detect_state *st, enum spec_event a, enum spec_event b)
{
	return det_rule_on(st, a) || det_rule_on(st, b);
}

bool det_acc_wanted(const struct detect_state *st)
{
	return class_has(st, EV_READ, EV_WRITE) || det_un_wanted(st);
}

bool det_un_wanted(const struct detect_state *st)
{
	return class_has(st, EV_UNINIT, EV_UNINIT);
}

static bool acc_check(struct detect_state *st, const struct slice_view_access *a)
{
	if (!a->user || !a->nmem)
		return false;
	for (int i = 0; i < a->nmem; i++) {
		uint64_t first;
		if (a->mem[i].rw && det_shadow_bad(&st->sh, a->mem[i].addr, a->mem[i].size, &first)) {
			st->acc_hit = *a;
			st->acc_mem = i;
			return true;
		}
	}
	return false;
}

/* The live blocks nearest below (ending at or before a) and above a. */
static void acc_near(struct detect_state *st, uint64_t a, const struct det_block **below,
		     const struct det_block **above)
{
	*below = *above = NULL;
	for (size_t i = 0; i < st->nall; i++) {
		const struct det_block *b = st->all[i];
		if (!b->live)
			continue;
		if (b->addr + b->size <= a && (!*below || b->addr > (*below)->addr))
			*below = b;
		if (b->addr > a && (!*above || b->addr < (*above)->addr))
			*above = b;
	}
}

/* The event of the access the check stopped at; false if none (the
 * shadow and the model disagree: no event). */
static bool acc_event(struct detect_state *st, struct det_event *e)
{
	const struct slice_view_access *a = &st->acc_hit;
	uint64_t addr = a->mem[st->acc_mem].addr, size = a->mem[st->acc_mem].size, first;
	if (!det_shadow_bad(&st->sh, addr, (unsigned)size, &first))
		return false;
	e->ev = a->mem[st->acc_mem].rw & 2 ? EV_WRITE : EV_READ;
	e->f[F_ADDR] = addr;
	e->f[F_SIZE] = size;
	e->site = a->pc + 1;
	e->faulted = a->pc;   /* it has not run: the chain starts at its pointer */
	if (a->mem[st->acc_mem].base < 16 && a->mem[st->acc_mem].base != 4)
		e->reg[F_ADDR] = 1 + a->mem[st->acc_mem].base;
	e->access = e->ev == EV_WRITE ? "write" : "read";
	if (det_shadow_byte(&st->sh, first) == SH_FREED)
		return true;
	const struct det_block *below, *above;
	acc_near(st, first, &below, &above);
	uint64_t past = below ? first - (below->addr + below->size) : UINT64_MAX;
	uint64_t before = above ? above->addr - first : UINT64_MAX;
	if (past == UINT64_MAX && before == UINT64_MAX)
		return false;
	if (past <= before) {
		e->near = below;
		e->f[F_OVER] = addr + size - (below->addr + below->size);
	} else {
		e->near = above;
		e->f[F_UNDER] = above->addr - addr;
	}
	return true;
}

/* The watcher's check: the read and write events first, then
 * definedness (which must see every instruction that runs, once). */
static bool watch_check(void *ctx, const struct slice_view_access *a)
{
	struct detect_state *st = ctx;
	st->watch_pc = a->pc;
	st->watch_un = false;
	st->acc_checked += a->user;
	if (st->acc_rw && acc_check(st, a) && !a->again)
		return true;
	st->watch_un = st->un_on && det_un_check(st, a);
	return st->watch_un;
}

/* The same for one load or store the emulator checks inline (view.h's
 * quick), while every is off: true sends its instruction to check. The
 * count of checked instructions is the one check would make: an
 * instruction is counted at its first access, unless it goes to check. */
static bool watch_quick(void *ctx, uint64_t addr, uint32_t size, unsigned flags)
{
	struct detect_state *st = ctx;
	uint64_t first;
	bool to_check = (st->acc_rw && det_shadow_bad(&st->sh, addr, size, &first)) ||
			(st->un_on && det_un_quick(st, addr, size, flags & SLICE_VIEW_STORE));
	if (flags & SLICE_VIEW_FIRST)
		st->acc_checked += !to_check;
	else
		st->acc_checked -= to_check;
	return to_check;
}

static int acc_fire(struct detect_state *st)
{
	struct qz *q = st->acc_q;
	struct det_event e = {0};
	if (!acc_event(st, &e))
		return RUN_STEPPED;
	st->events[e.ev]++;
	struct sbuf out = {0};
	if (!det_fire(q, &e, &out)) {
		sbuf_free(&out);
		return RUN_STEPPED;
	}
	return det_stop(q, &out);
}

static int watch_fire(void *ctx)
{
	struct detect_state *st = ctx;
	return st->watch_un ? det_un_fire(st->acc_q, st, st->watch_pc) : acc_fire(st);
}

static void acc_lost(void *ctx, const char *why)
{
	struct detect_state *st = ctx;
	det_heap_unmachine(st->acc_q, st);
	st->acc_on = st->un_on = false;
	det_undef_reset(&st->un);
	st->acc_lost = "the program started a thread";
	det_shadow_reset(&st->sh);
	qz_warn(st->acc_q, "Memory-access detectors (reads and writes) are off for the rest of "
		"this run: %s.", why);
}

static void acc_native(void *ctx)
{
	struct detect_state *st = ctx;
	det_heap_unmachine(st->acc_q, st);
}

/* glibc's chunk of the block at b: its usable end (the next chunk's
 * header follows) and whether it was mmapped; false if the word before
 * the block is not a plausible chunk size (another allocator). */
static bool acc_chunk(struct qz *q, struct detect_state *st, const struct det_block *b,
		      uint64_t *end, bool *mapped)
{
	uint64_t w;
	if (b->addr < 8 || det_read(q, st, b->addr - 8, &w, 8) < 0)
		return false;
	uint64_t csize = w & ~7ull;
	*mapped = w & 2;
	uint64_t usable = csize - (*mapped ? 16 : 8);
	if (csize < 16 || usable < b->size || usable - b->size > ACC_CHUNK_SLACK)
		return false;
	*end = b->addr + usable;
	return true;
}

void det_acc_alloc(struct qz *q, struct detect_state *st, const struct det_block *b)
{
	if (!st->acc_on)
		return;
	uint64_t end;
	bool mapped;
	if (!acc_chunk(q, st, b, &end, &mapped)) {
		det_shadow_set(&st->sh, b->addr, b->size, SH_OK);
		return;
	}
	/* a mapped chunk's memory goes back to the kernel on free: nothing
	 * of it may stay in the shadow (the segv rule sees its uses) */
	if (!mapped) {
		det_shadow_set(&st->sh, b->addr - 8, 8, SH_RED);       /* its size word */
		det_shadow_set(&st->sh, b->addr + b->size, end + 8 - (b->addr + b->size), SH_RED);
	}
	det_shadow_set(&st->sh, b->addr, b->size, SH_OK);
}

void det_acc_free(struct qz *q, struct detect_state *st, const struct det_block *b)
{
	uint64_t end;
	bool mapped;
	if (!st->acc_on || !acc_chunk(q, st, b, &end, &mapped) || mapped)
		return;
	det_shadow_set(&st->sh, b->addr, end - b->addr, SH_FREED);
}

void det_acc_rebuild(struct qz *q, struct detect_state *st)
{
	det_shadow_reset(&st->sh);
	for (int live = 0; live < 2; live++)   /* live blocks over freed ones */
		for (size_t i = 0; st->acc_on && qz_running(q) && i < st->nall; i++)
			if (st->all[i]->live && live)
				det_acc_alloc(q, st, st->all[i]);
			else if (!st->all[i]->live && !live)
				det_acc_free(q, st, st->all[i]);
	/* what was undefined then is not known: defined (nothing reported) */
	det_undef_reset(&st->un);
	det_un_regs_clear(st);
}

/* The memory events run the program in the emulator, which runs glibc's
 * AVX2 and EVEX string functions one native step at a time (tens of µs
 * an instruction): programs started while they are on get the SSE2 ones
 * (as under Valgrind, whose CPU has no AVX-512), unless the user chose. */
void det_acc_libc(struct detect_state *st)
{
	bool want = det_acc_wanted(st);
	if (want && !st->libc_set && !slice_view_libc_is_baseline()) {
		slice_view_libc_baseline(true);
		st->libc_set = true;
	} else if (!want && st->libc_set) {
		slice_view_libc_baseline(false);
		st->libc_set = false;
	}
}

void det_acc_arm(struct qz *q)
{
	struct detect_state *st = det_state(q);
	if (st->entry_site)   /* the program's entry arms it */
		return;
	if (!det_acc_wanted(st) || !qz_running(q)) {
		det_acc_disarm(q);
		return;
	}
	if (qz_exe_mixed(q)) {   /* every access would be libc's too: its allocator's */
		det_acc_disarm(q);
		st->acc_lost = "not checked: a static program without debug information, whose own "
			       "code cannot be told from libc's (build it with -g)";
		qz_warn(q, "Memory accesses are %s.", st->acc_lost);
		return;
	}
	if (st->acc_on && slice_view_watching(q, NULL) && st->un_on == det_un_wanted(st) &&
	    st->acc_rw == class_has(st, EV_READ, EV_WRITE))
		return;
	st->acc_rw = class_has(st, EV_READ, EV_WRITE);
	bool un = det_un_wanted(st);
	if (un && !st->un_on)   /* definedness from here on */
		det_un_regs_clear(st);
	st->un_on = un;
	struct slice_view_watch w = { watch_check, watch_fire, acc_lost, det_un_sys, st,
				      un ? &st->un_every : NULL,
				      det_heap_at, st->mrets, &st->nmrets, acc_native,
				      un ? det_un_sys : NULL, watch_quick };
	st->acc_q = q;
	if (slice_view_watch(q, &w) < 0) {
		qz_warn(q, "Memory-access detectors are off: %s", q->err.s ? q->err.s : "");
		sbuf_reset(&q->err);
		return;
	}
	st->acc_on = true;
	slice_view_watching(q, &st->acc_engine);
	st->acc_lost = NULL;
}

void det_acc_disarm(struct qz *q)
{
	struct detect_state *st = det_state(q);
	det_heap_unmachine(q, st);
	if (st->acc_on && qz_running(q))
		slice_view_unwatch(q);
	st->acc_on = st->un_on = false;
	st->acc_engine = NULL;
	det_shadow_reset(&st->sh);
	det_undef_reset(&st->un);
}
