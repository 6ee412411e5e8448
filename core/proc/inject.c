/* inject: system calls made on the debuggee's behalf. */
#include "inject.h"

#include <signal.h>
#include <string.h>
#include <sys/user.h>

#include "proc-int.h"

/* Step the syscall at the pc of the registers set up (rax..r9 from nr
 * and args): 0 with the result in *ret, -1 if the process did not come back. */
static int inj_step(struct proc *p, long nr, const uint64_t args[6], int64_t *ret)
{
	struct user_regs_struct *r = proc_regs(p);
	r->rax = (uint64_t)nr;
	r->orig_rax = (uint64_t)-1;   /* no syscall restart on resume */
	r->rdi = args[0];
	r->rsi = args[1];
	r->rdx = args[2];
	r->r10 = args[3];
	r->r8 = args[4];
	r->r9 = args[5];
	proc_regs_dirty(p);
	struct proc_stop st = {0};
	int rc = -1;
	/* A SIGSTOP already pending (checkpoint-interval's timer) stops the
	 * step before the instruction runs: step again, without it. */
	proc_sys_fn hook = p->sys_hook;   /* qzdb's own call: no log sees it */
	p->sys_hook = NULL;
	for (int tries = 0; tries < 3 && proc_step(p, 0) == 0; tries++) {
		proc_wait(p, &st);
		if (st.ev != PROC_SIGNAL || st.sig != SIGSTOP)
			break;
	}
	p->sys_hook = hook;
	if (st.ev == PROC_TRAP) {
		*ret = (int64_t)proc_regs(p)->rax;
		rc = 0;
	}
	return rc;
}

int inj_syscall(struct proc *p, long nr, const uint64_t args[6], int64_t *ret)
{
	static const uint8_t syscall_insn[2] = {0x0f, 0x05};
	proc_stop_all(p);   /* no other thread may run the patched code */
	struct user_regs_struct saved = *proc_regs(p);
	uint64_t pc = saved.rip;
	uint8_t code[2];
	if (proc_read(p, pc, code, 2) < 0 || proc_write(p, pc, syscall_insn, 2) < 0)
		return -1;
	int rc = inj_step(p, nr, args, ret);
	if (!proc_alive(p))
		return -1;
	proc_write(p, pc, code, 2);
	*proc_regs(p) = saved;
	proc_regs_dirty(p);
	return rc;
}

int inj_syscall_at(struct proc *p, uint64_t at, uint64_t r12, long nr, const uint64_t args[6],
		   int64_t *ret)
{
	proc_stop_all(p);
	struct user_regs_struct saved = *proc_regs(p);
	proc_regs(p)->rip = at;
	proc_regs(p)->r12 = r12;
	int rc = inj_step(p, nr, args, ret);
	if (!proc_alive(p))
		return -1;
	*proc_regs(p) = saved;
	proc_regs_dirty(p);
	return rc;
}
