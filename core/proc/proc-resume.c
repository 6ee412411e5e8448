/* proc-resume: continuing and single-stepping, including the step made
 * by a temporary int3 where the platform's single-step trap comes late. */
#define _GNU_SOURCE
#include "proc-int.h"

#include "platform.h"

void proc_trace_syscalls(struct proc *p, bool on)
{
	p->sys_stops = on;
}

void proc_set_syscall_hook(struct proc *p, proc_sys_fn fn, void *ctx)
{
	p->sys_hook = fn;
	p->sys_ctx = ctx;
}

enum __ptrace_request proc_cont_req(const struct proc *p)
{
	return p->sys_stops || p->sys_hook ? PTRACE_SYSCALL : PTRACE_CONT;
}

int proc_cont(struct proc *p, int sig)
{
	enum __ptrace_request req = proc_cont_req(p);
	p->conting = true;
	if (!p->alive || !p->cur)
		return -1;
	p->stepping = false;
	for (size_t i = 0; i < p->nthr; i++)   /* a step a signal cut short is over */
		p->thr[i]->sys_step = false;
	if (p->nthr == 1)
		return proc_thr_run(p, p->cur, req, sig);
	int r = 0;
	for (size_t i = 0; i < p->nthr; i++) {
		struct proc_thr *t = p->thr[i];
		if (t->running || t->has_pending)
			continue;
		int rr = proc_thr_run(p, t, req, t == p->cur ? sig : 0);
		if (t == p->cur)
			r = rr;
	}
	return r;
}

/* Where a single step from pc must end by a temporary breakpoint instead
 * of the trap flag: after an instruction whose trap this machine delivers
 * late (or when forced). 0 when the trap can be trusted. These
 * instructions never branch, so the next one is pc + length. */
static uint64_t proc_step_over_target(struct proc *p, uint64_t pc)
{
	if (platform_steps_all_exact())
		return 0;
	uint8_t code[16];
	size_t n = sizeof code;
	if (proc_read(p, pc, code, n) < 0) {
		n = 4096 - (pc & 4095);   /* code that ends at a mapping's end */
		if (n >= sizeof code || proc_read(p, pc, code, n) < 0)
			return 0;
	}
	int len = 0, k = platform_insn_kind(code, n, &len);
	return k >= 0 && !platform_step_exact(k) ? pc + (uint64_t)len : 0;
}

static bool proc_step_over_plant(struct proc *p)
{
	uint64_t at = proc_step_over_target(p, proc_pc(p));
	uint8_t int3 = 0xcc;
	if (!at || proc_read(p, at, &p->over_orig, 1) < 0 || proc_write(p, at, &int3, 1) < 0)
		return false;
	p->over_addr = at;
	return true;
}

void proc_step_over_done(struct proc *p, struct proc_stop *st)
{
	uint64_t at = p->over_addr;
	p->over_addr = 0;
	if (!p->alive || st->ev == PROC_EXEC)
		return;   /* gone, or a new program replaced the memory */
	proc_write(p, at, &p->over_orig, 1);
	if (st->ev == PROC_TRAP && proc_pc(p) == at + 1) {
		proc_set_pc(p, at);
		proc_flush_regs(p->cur);   /* the kernel's pc is right at once */
	}
}

int proc_step(struct proc *p, int sig)
{
	p->conting = false;
	if (!p->alive || !p->cur)
		return -1;
	proc_stop_others(p);
	p->stepping = true;
	/* a system call the hook must see: its entry and exit stops make
	 * the step (proc_handle reports the exit as the step's trap) */
	uint8_t code[2];
	p->cur->sys_step = false;
	if (!sig && p->sys_hook && proc_read(p, proc_pc(p), code, 2) == 0 &&
	    code[0] == 0x0f && code[1] == 0x05) {
		p->cur->sys_step = true;
		return proc_thr_run(p, p->cur, PTRACE_SYSCALL, 0);
	}
	/* with a signal the step stops at its handler, before the instruction */
	if (!sig && proc_step_over_plant(p))
		return proc_thr_run(p, p->cur, PTRACE_CONT, 0);
	return proc_thr_run(p, p->cur, PTRACE_SINGLESTEP, sig);
}
