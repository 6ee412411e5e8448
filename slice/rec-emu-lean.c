/* rec-emu-lean: which instructions of a hot block of the program's own
 * code keep the per-instruction hook when emu.c translates it lean
 * (emu-lean.c), and when lean blocks must go. */
#include "rec-emu-int.h"
#include "rec-int.h"
#include "target/run.h"

/* maint emulator-lean off: no lean translations (the tests compare). */
static bool re_lean_off;

void rec_emu_lean(bool on, bool unsync)
{
	re_lean_off = !on;
	emu_lean_unsync(unsync);
}

size_t rec_emu_lean_blocks(const struct rec_emu *x, uint64_t *made, const char **broken)
{
	*made = 0;
	*broken = NULL;
	return x && x->m ? emu_lean_blocks(x->m, made, broken) : 0;
}

/* Is its count all the hook does for in while every is off (no memory
 * operand, call, return, indirect jump, system call)? */
bool re_plain(const struct insn *in)
{
	enum insn_kind k = in->kind;
	return !in->native && !in->nmem && !in->rep && k != INSN_CALL && k != INSN_CALL_IND &&
	       k != INSN_RET && k != INSN_JMP_IND && k != INSN_SYSCALL;
}

/* Could the instruction run unhooked with its loads and stores checked
 * inline (emu.h's emu_set_access)? What else the hook does for it (a
 * call's, a return's, a rep's count, a native step) rules it out; so does
 * an access the translator makes some other way, found when the block is
 * translated (emu-lean.c hooks it then). */
static uint8_t re_checked_mem(const struct insn *in)
{
	enum insn_kind k = in->kind;
	if (in->native || in->rep || in->xstate || !in->nmem || k == INSN_CALL ||
	    k == INSN_CALL_IND || k == INSN_RET || k == INSN_JMP_IND || k == INSN_SYSCALL)
		return 0;
	uint8_t mem = 0;
	for (int i = 0; i < in->nmem; i++)
		mem |= (in->mem[i].rw & INSN_MEM_R ? EMU_ACCESS_LOAD : 0) |
		       (in->mem[i].rw & INSN_MEM_W ? EMU_ACCESS_STORE : 0);
	return mem;
}

/* A direct jump to its own address or before it. */
static bool re_back_jump(const struct insn *in, uint64_t pc)
{
	return (in->kind == INSN_JCC || in->kind == INSN_JMP) && in->target <= pc;
}

/* Which instructions of the hot block [pc, pc+size) of the program's own
 * code keep the hook in a lean translation: what the quick path would not
 * only count (not plain, unless its accesses can be checked inline; a
 * site, run target or awaited return), backward direct jumps (the hot
 * loops' finder counts them) and the first if a backward jump seen lands
 * there (the finder sees the landing as with every instruction hooked),
 * unless the block touches memory with its accesses checked inline: a
 * loop through it is never clean, and the time limit stops it at a block
 * start (re_step times runs while lean blocks exist). Not a block whose
 * hooked backward jump lands on a lean block's unhooked start, nor one of
 * a clean loop (rec-emu-loops.c: it runs with no hook at all). */
int re_lean_pick(void *ctx, uint64_t pc, uint32_t size, struct emu_lean_insn *out, int max)
{
	struct rec_emu *x = ctx;
	int n = 0;
	uint64_t a = pc;
	if (!x->quick_run || rec_watch_every(x->r))
		return -1;
	bool checks = emu_access_inline(x->m) && (!x->r->watch.check || x->r->watch.quick);
	bool touches = false;   /* an access checked inline: never a clean loop */
	int back = -1;          /* the backward jump (a jump ends a block) */
	uint64_t back_to = 0;
	for (; a < pc + size; n++) {
		int64_t id = rec_insn_id(x->q, x->r, a);
		if (id < 0 || n == max)
			return -1;
		const struct trace_insn *e = &x->r->tr.insns[id];
		if (re_in_clean(x, a))
			return -1;   /* a hot loop that runs unhooked stays so */
		if (re_back_jump(&e->in, a)) {
			back = n;
			back_to = e->in.target;
		}
		out[n].off = (uint16_t)(a - pc);
		out[n].mem = checks && !re_plain(&e->in) ? re_checked_mem(&e->in) : 0;
		out[n].hook = (!re_plain(&e->in) && !out[n].mem) || re_is_site(x, a) ||
			      re_target_at(x, a) || re_is_ret(x, a);
		if (out[n].hook)
			out[n].mem = 0;
		touches |= out[n].mem != 0;
		a += e->in.len;
	}
	if (a != pc + size)
		return -1;
	if (touches)
		return n;
	/* the loop finder's */
	if (back >= 0 && emu_lean_bare_at(x->m, back_to))
		return -1;   /* it lands where no hook would see it */
	if (back >= 0)
		out[back].hook = true;
	if (n && hmap_get(&x->back_targets, pc))
		out[0].hook = true;
	return n;
}

/* A backward direct jump e, first seen (no verdict yet) by the full hook:
 * its target is kept; false if it lands on a lean block's unhooked start
 * (the block goes before the next run, the machine stops before e). */
bool re_lean_note_back(struct rec_emu *x, const struct trace_insn *e)
{
	if (!re_back_jump(&e->in, e->pc) || hmap_get(&x->back_targets, e->in.target))
		return true;
	hmap_put(&x->back_targets, e->in.target, (void *)1);
	if (!emu_lean_bare_at(x->m, e->in.target))
		return true;
	x->lean_drop = e->in.target;
	return false;
}

/* Before a run: lean blocks made with other sites, run targets or decoded
 * code go; none outside a lean run with quick verdicts and the block hook
 * (library code unhooked), or while every is on. */
void re_lean_tune(struct rec_emu *x)
{
	bool on = x->quick_run && x->libfree && !re_lean_off && !rec_watch_every(x->r);
	if (x->lean_drop)
		emu_lean_drop(x->m, x->lean_drop, x->lean_drop + 1);
	x->lean_drop = 0;
	if (!on || x->lean_gen != x->gen || x->lean_code_gen != x->r->code_gen)
		emu_lean(x->m, false);
	x->lean_gen = x->gen;
	x->lean_code_gen = x->r->code_gen;
	emu_lean(x->m, on);
}
