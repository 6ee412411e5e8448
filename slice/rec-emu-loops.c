/* rec-emu-loops: hot loops of the program's own code that touch no
 * memory (lean runs, while the watcher wants memory instructions only):
 * found by their backward branch taken 1024 times, they run without the
 * per-instruction hook (emu.c's plan) until something there must be
 * looked at again. */
#include <string.h>

#include "rec-emu-int.h"
#include "rec-int.h"
#include "target/run.h"

bool re_overlaps(uint64_t lo, uint64_t hi, uint64_t a, uint64_t len)
{
	return a < hi && a + (len ? len : 1) > lo;
}

/* Clean ranges meeting [a, a+len) are hooked again (all if len is 0 and a
 * is 0). */
void re_clean_drop(struct rec_emu *x, uint64_t a, uint64_t len)
{
	int k = 0;
	for (int i = 0; i < x->nclean; i++)
		if ((a || len) && !re_overlaps(x->clean[i][0], x->clean[i][1], a, len))
			memmove(x->clean[k++], x->clean[i], sizeof x->clean[i]);
	if (k != x->nclean)
		x->retune = true;
	x->nclean = k;
}

bool re_in_clean(const struct rec_emu *x, uint64_t a)
{
	for (int i = 0; i < x->nclean; i++)
		if (a >= x->clean[i][0] && a < x->clean[i][1])
			return true;
	return false;
}

/* The backward branch at pc was taken once more: true the 1024th time. */
bool re_loop_hot(struct rec_emu *x, uint64_t pc)
{
	size_t i = (size_t)((pc * 0x9e3779b97f4a7c15ull) >> 58);
	if (x->loops[i].pc != pc) {
		x->loops[i].pc = pc;
		x->loops[i].n = 0;
	}
	return ++x->loops[i].n == 1024;
}

/* The loop [lo, hi): straight code of the program's own, no memory
 * operand, no call, return, indirect jump, system call or instruction
 * the machine cannot run, no site, run target or awaited return. */
static bool re_loop_clean(struct rec_emu *x, uint64_t lo, uint64_t hi)
{
	struct rec *r = x->r;
	uint64_t a = lo;
	while (a < hi) {
		int64_t id = rec_insn_id(x->q, r, a);
		if (id < 0)
			return false;
		const struct trace_insn *e = &r->tr.insns[id];
		enum insn_kind k = e->in.kind;
		if (!e->user || e->in.native || e->in.nmem || e->in.rep || k == INSN_CALL ||
		    k == INSN_CALL_IND || k == INSN_RET || k == INSN_JMP_IND || k == INSN_SYSCALL ||
		    re_is_site(x, a) || re_is_ret(x, a))
			return false;
		a += e->in.len;
	}
	const struct run_target *t = r->target;
	for (int i = 0; t && i < t->n; i++)
		if (t->addr[i] >= lo && t->addr[i] < hi)
			return false;
	return a == hi;
}

/* A loop found hot: true if it joins the clean ranges. */
bool re_clean_add(struct rec_emu *x, uint64_t lo, uint64_t hi)
{
	if (x->nclean == EMU_MAX_SKIP || !re_loop_clean(x, lo, hi))
		return false;
	int i = x->nclean;
	for (int k = 0; k < x->nclean; k++)
		if (re_overlaps(x->clean[k][0], x->clean[k][1], lo, hi - lo))
			return false;
	while (i > 0 && x->clean[i - 1][0] > lo) {
		memcpy(x->clean[i], x->clean[i - 1], sizeof x->clean[i]);
		i--;
	}
	x->clean[i][0] = lo;
	x->clean[i][1] = hi;
	x->nclean++;
	x->clean_found++;
	x->retune = true;
	return true;
}
