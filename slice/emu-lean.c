/* emu-lean: lean translations. Unicorn 2.0.1 compiles the code hook's
 * call into a block's code at translation, for each instruction some code
 * hook's range holds, and at run time calls each hook whose range holds
 * the pc. A hot block of the plan's scope is translated again between
 * runs (uc_ctl_request_cache) while the machine's own code hooks (the
 * plan's ranges, the vdso's) cover only the runs of instructions that
 * need the hook (runs merged while there are more than hooks): the block
 * keeps only those calls, and afterwards the ranges are put back. No
 * hooks of its own: Unicorn walks its whole list of code hooks at every
 * hooked instruction (a never-matching selector cost a bounds check
 * there, about 1 ns each, at every hooked instruction of the run), and
 * uc_hook_del drops every translation a hook selected.
 * The translation holds until its code is dropped (emu_lean_dropped).
 * The hooks are Unicorn's struct hook, written in place: their layout is
 * checked first (type, range, callback as added); if it differs, lean
 * translations are off for the machine's life. */
#include "emu-lean.h"

#include "emu-inline.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

enum {
	EMU_LEAN_HOT = 256,     /* block starts before a block goes lean */
	EMU_LEAN_BATCH = 16,    /* blocks queued before a run stops for them */
	EMU_LEAN_WAIT = 4096,   /* or other blocks' starts after one is queued */
	EMU_LEAN_SLOTS = 8192,  /* counters by pc (a lean block's is kept) */
	EMU_LEAN_MAX = 4096,    /* lean blocks at most (a slot's int16_t) */
	EMU_LEAN_RUNS = EMU_MAX_SKIP + 2,   /* the machine's code hooks at most */
	EMU_LEAN_INSNS = 512,   /* a block's instructions at most (Unicorn's) */
};
/* non-canonical: no instruction runs there */
#define EMU_LEAN_NEVER UINT64_MAX

/* Unicorn 2.0.1's struct hook, as far as it is written or checked */
struct emu_lean_uchook {
	int type, insn, refs, op, op_flags;
	bool to_delete;
	uint64_t begin, end;
	void *callback, *user_data;
};

/* The block hook reads one slot a block start: a lean block's credit is
 * there, not behind two more loads (its block, its first skip). */
struct emu_lean_slot {
	uint64_t pc;
	uint32_t n;              /* starts seen; a lean block's: the offset
	                            of its first unhooked instruction (0:
	                            its first is unhooked) */
	int16_t block;           /* its lean block, -1 */
	uint16_t nskip;          /* a lean block's unhooked instructions */
};

struct emu_lean_blk {
	uint64_t pc;
	uint32_t size;
	uint16_t ninsn;
	uint16_t nskip;          /* unhooked instructions, */
	uint16_t *skip;          /* their offsets, ascending */
	uint8_t *mem;            /* and what each loads and stores, checked
	                            inline (emu-inline.h) */
	uint64_t run[EMU_LEAN_RUNS][2];   /* hooked: [first, last] */
	int nrun;
	int unchecked;           /* emu_lean_request: the skip whose accesses
	                            the translation did not check, -1 */
};

struct emu_lean {
	uc_engine *uc;
	void *cb, *data;
	emu_pick_fn pick;
	void *ctx;
	const char *broken;
	struct emu_lean_slot *slots;
	struct emu_lean_blk *blocks;
	int nblocks;
	struct { uint64_t pc; uint32_t size; } queue[EMU_LEAN_BATCH];
	int nqueue;
	uint32_t waited;         /* block starts since the queue filled from empty */
	int cur;                 /* the lean block running, -1 */
	uint64_t made;           /* lean blocks translated (the machine's life) */
	uint64_t credit;         /* unhooked instructions run */
	bool checks;             /* accesses checked inline (emu_lean_checks) */
	uint64_t first_skip;     /* the running lean block's first unhooked
	                            instruction, 0 */
};

static size_t emu_lean_slot_of(uint64_t pc)
{
	return (size_t)((pc * 0x9e3779b97f4a7c15ull) >> 51);   /* 8192 slots */
}

struct emu_lean *emu_lean_new(uc_engine *uc, void *cb, void *data, emu_pick_fn pick, void *ctx)
{
	struct emu_lean *l = xcalloc(1, sizeof *l);
	*l = (struct emu_lean){ .uc = uc, .cb = cb, .data = data, .pick = pick, .ctx = ctx, .cur = -1 };
	l->slots = xcalloc(EMU_LEAN_SLOTS, sizeof *l->slots);
	for (size_t i = 0; i < EMU_LEAN_SLOTS; i++)
		l->slots[i].block = -1;
	l->blocks = xcalloc(EMU_LEAN_MAX, sizeof *l->blocks);
	return l;
}

void emu_lean_checks(struct emu_lean *l, bool on)
{
	if (l->checks != on)
		emu_lean_dropped(l, 0, UINT64_MAX);
	l->checks = on;
}

void emu_lean_free(struct emu_lean *l)
{
	if (!l)
		return;
	for (int i = 0; i < l->nblocks; i++) {
		free(l->blocks[i].skip);
		free(l->blocks[i].mem);
	}
	free(l->blocks);
	free(l->slots);
	free(l);
}

enum emu_lean_at emu_lean_block(struct emu_lean *l, uint64_t pc, uint32_t size, bool in)
{
	l->cur = -1;
	l->first_skip = 0;
	if (!in || !size)
		return EMU_LEAN_NOT;
	struct emu_lean_slot *s = &l->slots[emu_lean_slot_of(pc)];
	if (s->pc == pc && s->block >= 0) {
		l->cur = s->block;
		l->first_skip = pc + s->n;
		l->credit += s->nskip;
		return s->n == 0 ? EMU_LEAN_BARE : EMU_LEAN_NOT;
	}
	if (s->pc != pc) {
		if (s->block >= 0)   /* a lean block's slot stays its */
			return EMU_LEAN_NOT;
		s->pc = pc;
		s->n = 0;
	}
	if (++s->n != EMU_LEAN_HOT || l->broken || l->nqueue == EMU_LEAN_BATCH)
		/* queued blocks wait for a full batch or the run's end, but not
		 * for good: a loop with no system call would run hooked on */
		return l->nqueue && ++l->waited == EMU_LEAN_WAIT ? EMU_LEAN_FULL : EMU_LEAN_NOT;
	l->queue[l->nqueue].pc = pc;
	l->queue[l->nqueue++].size = size;
	return l->nqueue == EMU_LEAN_BATCH ? EMU_LEAN_FULL : EMU_LEAN_NOT;
}

bool emu_lean_bare(const struct emu_lean *l, uint64_t pc)
{
	const struct emu_lean_slot *s = &l->slots[emu_lean_slot_of(pc)];
	return s->pc == pc && s->block >= 0 && s->n == 0;
}

/* Forget lean block i (its slot counts again from 0). */
static void emu_lean_forget(struct emu_lean *l, int i)
{
	struct emu_lean_blk *b = &l->blocks[i];
	l->slots[emu_lean_slot_of(b->pc)] = (struct emu_lean_slot){ b->pc, 0, -1, 0 };
	free(b->skip);
	free(b->mem);
	if (i != --l->nblocks) {
		*b = l->blocks[l->nblocks];
		l->slots[emu_lean_slot_of(b->pc)].block = (int16_t)i;
	}
	if (l->cur == i || l->cur == l->nblocks)
		l->cur = -1;
}

/* A block runs from its start to its end: in a translation made in full
 * the hook runs at the first instruction the lean one leaves unhooked. */
void emu_lean_hooked(struct emu_lean *l, uint64_t pc)
{
	if (!l || pc != l->first_skip || l->cur < 0)
		return;
	const struct emu_lean_blk *b = &l->blocks[l->cur];
	l->credit -= b->nskip;   /* each of its instructions counts itself */
	emu_lean_forget(l, l->cur);
}

void emu_lean_dropped(struct emu_lean *l, uint64_t lo, uint64_t hi)
{
	if (!l)
		return;
	bool all = !lo && hi == UINT64_MAX;
	for (int i = 0; i < l->nblocks;) {
		struct emu_lean_blk b = l->blocks[i];
		if (!all && (b.pc >= hi || b.pc + b.size <= lo)) {
			i++;
			continue;
		}
		/* its code goes, whole (it may reach past [lo, hi)); and the
		 * lean blocks that code meets */
		uc_ctl_remove_cache(l->uc, b.pc, b.pc + b.size);
		emu_lean_forget(l, i);
		if (!all) {
			emu_lean_dropped(l, b.pc, b.pc + b.size);
			i = 0;
		}
	}
}

/* Are the hooks as added (Unicorn's struct hook as this file reads it)? */
static bool emu_lean_hook_is(const struct emu_lean *l, uc_hook h, uint64_t begin, uint64_t end)
{
	const struct emu_lean_uchook *k = (const void *)h;
	return k && k->type == UC_HOOK_CODE && !k->to_delete && k->begin == begin &&
	       k->end == end && k->callback == l->cb && k->user_data == l->data;
}

static bool emu_lean_layout_ok(struct emu_lean *l, const uc_hook *hooks,
			       const uint64_t (*ranges)[2], int n)
{
	for (int i = 0; i < n; i++)
		if (!emu_lean_hook_is(l, hooks[i], ranges[i][0], ranges[i][1]))
			return false;
	return true;
}

static void emu_lean_range(uc_hook h, uint64_t begin, uint64_t end)
{
	struct emu_lean_uchook *k = (void *)h;
	k->begin = begin;
	k->end = end;
}

/* The hooked runs of in[0..n) (each from its first hooked instruction to
 * its last, indices), at most max: the two closest runs merge while there
 * are more (the instructions between are hooked then). */
static int emu_lean_runs(struct emu_lean_insn *in, int n, int (*run)[2], int max)
{
	int nrun = 0;
	for (int i = 0; i < n; i++) {
		if (!in[i].hook)
			continue;
		if (nrun && run[nrun - 1][1] == i - 1)
			run[nrun - 1][1] = i;
		else {
			run[nrun][0] = run[nrun][1] = i;
			nrun++;
		}
	}
	while (nrun > max) {
		int best = 0;
		for (int k = 1; k + 1 < nrun; k++)
			if (run[k + 1][0] - run[k][1] < run[best + 1][0] - run[best][1])
				best = k;
		run[best][1] = run[best + 1][1];
		memmove(run[best + 1], run[best + 2], (size_t)(nrun - best - 2) * sizeof run[0]);
		nrun--;
	}
	for (int k = 0; k < nrun; k++)
		for (int i = run[k][0]; i <= run[k][1]; i++)
			in[i].hook = true;
	return nrun;
}

uc_err emu_request_cache(uc_engine *uc, uint64_t pc, uc_tb *tb)
{
	uint32_t ctl = UC_CTL_TB_REQUEST_CACHE | 2u << 26 | (uint32_t)UC_CTL_IO_READ_WRITE << 30;
	return uc_ctl(uc, (uc_control_type)ctl, pc, tb);
}

/* Translate block b (its code dropped) with only its runs hooked: the
 * machine's code hooks select them meanwhile (hook k run k), then are put
 * back. */
static bool emu_lean_request(struct emu_lean *l, struct emu_lean_blk *b, int ni,
			     const uc_hook *hooks, const uint64_t (*ranges)[2], int n)
{
	if (b->nrun > n)
		return false;
	for (int k = 0; k < n; k++)
		emu_lean_range(hooks[k], k < b->nrun ? b->run[k][0] : EMU_LEAN_NEVER,
			       k < b->nrun ? b->run[k][1] : EMU_LEAN_NEVER);
	uc_tb tb;
	uint8_t seen[EMU_LEAN_INSNS] = { 0 };
	struct emu_inline_blk ib = { b->pc, b->skip, b->nskip, seen };
	emu_inline_translating(l->checks ? &ib : NULL);
	uc_err e = emu_request_cache(l->uc, b->pc, &tb);
	emu_inline_translating(NULL);
	for (int i = 0; i < n; i++)
		emu_lean_range(hooks[i], ranges[i][0], ranges[i][1]);
	/* not the block the owner looked at: it goes (translated in full) */
	if (e != UC_ERR_OK || tb.pc != b->pc || tb.size != b->size || tb.icount != ni)
		return false;
	/* each unhooked instruction's accesses all checked, and no other:
	 * one whose accesses the translator makes otherwise (a locked
	 * instruction's atomics, x87's helpers) must keep its hook */
	for (int i = 0; i < b->nskip; i++)
		if (seen[i] != (l->checks ? b->mem[i] : 0)) {
			b->unchecked = i;
			return false;
		}
	return true;
}

/* Block b of the instructions in[0..ni) (hook and mem as decided): its
 * unhooked ones and the hooked runs; false if none is unhooked. */
static bool emu_lean_make(struct emu_lean *l, struct emu_lean_blk *b, uint64_t pc, uint32_t size,
			  struct emu_lean_insn *in, int ni, int maxrun)
{
	int run[EMU_LEAN_INSNS][2];
	int nrun = emu_lean_runs(in, ni, run, maxrun), nskip = 0;
	for (int i = 0; i < ni; i++)
		nskip += !in[i].hook;
	if (!nskip)
		return false;
	*b = (struct emu_lean_blk){ pc, size, (uint16_t)ni, (uint16_t)nskip,
				    xcalloc((size_t)nskip, sizeof *b->skip),
				    xcalloc((size_t)nskip, 1), { { 0 } }, nrun, -1 };
	nskip = 0;
	for (int i = 0; i < ni; i++)
		if (!in[i].hook) {
			b->mem[nskip] = l->checks ? in[i].mem : 0;
			b->skip[nskip++] = in[i].off;
		}
	for (int k = 0; k < nrun; k++) {
		b->run[k][0] = pc + in[run[k][0]].off;
		b->run[k][1] = pc + in[run[k][1]].off;
	}
	return true;
}

/* Translate the block [pc, pc+size) lean, if its owner lets it and some
 * instruction can go unhooked. Dropping its code drops every translation
 * meeting it: the lean ones among them are translated lean again. An
 * unhooked instruction whose accesses the translation did not check gets
 * its hook, and the block is translated again. */
static void emu_lean_one(struct emu_lean *l, uint64_t pc, uint32_t size, const uc_hook *hooks,
			 const uint64_t (*ranges)[2], int n)
{
	struct emu_lean_insn in[EMU_LEAN_INSNS];
	struct emu_lean_slot *s = &l->slots[emu_lean_slot_of(pc)];
	/* a block across 64 KiB may span two of emu.c's chunks: its code
	 * cannot be dropped as one range */
	if (s->pc != pc || s->block >= 0 || l->nblocks == EMU_LEAN_MAX || ((pc ^ (pc + size - 1)) >> 16))
		return;
	int ni = l->pick(l->ctx, pc, size, in, EMU_LEAN_INSNS);
	if (ni <= 0)
		return;
	bool made = false;
	for (int tries = 0; tries < 4 && !made; tries++) {
		/* dropping may have moved the blocks: the next free one */
		struct emu_lean_blk *b = &l->blocks[l->nblocks];
		if (l->nblocks == EMU_LEAN_MAX ||
		    !emu_lean_make(l, b, pc, size, in, ni, n < EMU_LEAN_RUNS ? n : EMU_LEAN_RUNS))
			return;
		uc_ctl_remove_cache(l->uc, pc, pc + size);
		made = emu_lean_request(l, b, ni, hooks, ranges, n);
		if (!made) {
			int u = b->unchecked;
			uint16_t uoff = u >= 0 ? b->skip[u] : 0;
			free(b->skip);
			free(b->mem);
			uc_ctl_remove_cache(l->uc, pc, pc + size);
			emu_lean_dropped(l, pc, pc + size);
			if (u < 0)
				return;
			for (int i = 0; i < ni; i++)
				if (in[i].off == uoff)
					in[i].hook = true;
		}
	}
	if (!made)
		return;
	const struct emu_lean_blk *b = &l->blocks[l->nblocks];
	s->block = (int16_t)l->nblocks++;
	s->nskip = b->nskip;
	s->n = b->skip[0];
	l->made++;
	for (int i = 0; i < l->nblocks; i++) {
		struct emu_lean_blk *o = &l->blocks[i];
		if (o->pc != pc && o->pc < pc + size && o->pc + o->size > pc &&
		    !emu_lean_request(l, o, o->ninsn, hooks, ranges, n)) {
			emu_lean_dropped(l, o->pc, o->pc + o->size);
			i = -1;   /* the list changed (the new block may be gone too) */
		}
	}
}

/* maint emulator-lean unsync (the tests'): at each run's start the lean
 * blocks' code is dropped behind their bookkeeping's back, as Unicorn does
 * when it translates again by itself (emu_lean_hooked must find it). */
static bool emu_lean_unsynced;

void emu_lean_unsync(bool on)
{
	emu_lean_unsynced = on;
}

void emu_lean_translate(struct emu_lean *l, const uc_hook *hooks, const uint64_t (*ranges)[2],
			int n)
{
	for (int i = 0; emu_lean_unsynced && i < l->nblocks; i++)
		uc_ctl_remove_cache(l->uc, l->blocks[i].pc, l->blocks[i].pc + l->blocks[i].size);
	l->waited = 0;
	if (!l->nqueue || l->broken)
		return;
	if (!n) {   /* nothing to select a run with (skip ranges cover the scope) */
		l->nqueue = 0;
		return;
	}
	if (!emu_lean_layout_ok(l, hooks, ranges, n))
		l->broken = "Unicorn's hooks are not laid out as in 2.0.1";
	for (int i = 0; i < l->nqueue && !l->broken; i++)
		emu_lean_one(l, l->queue[i].pc, l->queue[i].size, hooks, ranges, n);
	l->nqueue = 0;
}

void emu_lean_stopped(struct emu_lean *l, uint64_t pc)
{
	if (l->cur < 0)
		return;
	const struct emu_lean_blk *b = &l->blocks[l->cur];
	l->cur = -1;
	if (pc < b->pc || pc >= b->pc + b->size)
		return;
	for (int i = b->nskip; i > 0 && b->pc + b->skip[i - 1] >= pc; i--)
		l->credit--;
}

uint64_t emu_lean_take(struct emu_lean *l)
{
	uint64_t c = l->credit;
	l->credit = 0;
	return c;
}

size_t emu_lean_nblocks(const struct emu_lean *l)
{
	return l ? (size_t)l->nblocks : 0;
}

uint64_t emu_lean_made(const struct emu_lean *l)
{
	return l ? l->made : 0;
}

const char *emu_lean_broken(const struct emu_lean *l)
{
	return l ? l->broken : NULL;
}
