/* fault: the segv event (and stack.c's smash event, which comes first).
 * A SIGSEGV the program gets with a fault address
 * (SEGV_MAPERR, SEGV_ACCERR; a general-protection fault has none) is an
 * event with addr = that address; a rule that holds reports before core
 * reports the signal (the stop is the signal's), and its locator's chain
 * starts at the faulting access's base register: where the bad pointer
 * came from (NULL returned by a lookup). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "detect-int.h"
#include "slice/view.h"
#include "target/frame.h"
#include "target/run.h"
#include "target/session.h"

/* The base register of the faulting instruction's memory operand, or -1. */
static int fault_base(struct qz *q, uint64_t pc)
{
	struct slice_view_rec r;
	if (!slice_view_decode(q, pc, &r))
		return -1;
	for (int m = 0; m < r.nmem; m++)
		if (r.mem[m].base < 64 && r.mem[m].base != 4)
			return r.mem[m].base;
	return -1;
}

/* The program's site of the fault: its pc, or the first program frame's
 * return address when a library faulted (strlen(NULL)). Returned as a
 * return address (det_site_text looks up ret - 1). */
uint64_t det_fault_site(struct qz *q, uint64_t pc, bool *in_program)
{
	*in_program = qz_in_program(q, pc);
	if (*in_program)
		return pc + 1;
	const struct frame *f = det_program_frame(q);
	return f ? f->pc : 0;
}

const struct frame *det_program_frame(struct qz *q)
{
	frame_invalidate(q);
	for (int i = 1; i < 32; i++) {
		const struct frame *f = frame_get(q, i);
		if (!f)
			break;
		if (qz_in_program(q, f->pc))
			return f;
	}
	return NULL;
}

int det_on_signal(struct qz *q, int sig)
{
	struct detect_state *st = det_state(q);
	siginfo_t si;
	if (sig != SIGSEGV || !st || !det_any_on(st) || !qz_running(q) ||
	    proc_siginfo(q->proc, &si) < 0)
		return RUN_TARGET;
	det_pre_sync(q, st);   /* qzheap's blocks, if it is the allocator */
	struct sbuf out = {0};
	if (det_stack_smash(q, st, si.si_code, (uint64_t)si.si_addr, &out))
		det_show_report(q, &out, false);
	sbuf_free(&out);
	if (si.si_code != SEGV_MAPERR && si.si_code != SEGV_ACCERR)
		return RUN_TARGET;
	uint64_t pc = proc_pc(q->proc);
	bool in_program;
	struct det_event e = { .ev = EV_SEGV, .f = { [F_ADDR] = (uint64_t)si.si_addr } };
	e.site = det_fault_site(q, pc, &in_program);
	if (in_program) {
		e.reg[F_ADDR] = 1 + fault_base(q, pc);
		e.faulted = pc;
	}
	st->events[EV_SEGV]++;
	if (det_fire(q, &e, &out))
		det_show_report(q, &out, false);
	sbuf_free(&out);
	return RUN_TARGET;   /* the signal is reported and stops as usual */
}
