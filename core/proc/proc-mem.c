/* proc-mem: registers and memory of the selected thread (the register
 * cache written back before resuming, /proc/PID/mem for memory). */
#define _GNU_SOURCE
#include "proc-int.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static struct user_regs_struct proc_noregs;

struct user_regs_struct *proc_regs(struct proc *p)
{
	if (!p->cur)
		return &proc_noregs;
	if (p->alive)
		proc_getregs(p->cur);
	return &p->cur->regs;
}

void proc_flush(struct proc *p)
{
	for (size_t i = 0; p->alive && i < p->nthr; i++)
		proc_flush_regs(p->thr[i]);
}

void proc_fatal_detach(struct proc *p, bool (*is_int3)(void *ctx, uint64_t addr), void *ctx)
{
	for (size_t i = 0; p->alive && i < p->nthr; i++) {
		struct proc_thr *t = p->thr[i];
		bool answered = t->regs_dirty;   /* qzdb had set this stop's registers */
		siginfo_t si;
		struct user_regs_struct r;
		proc_flush_regs(t);
		if (ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) < 0)
			continue;   /* running: the kernel detaches it when qzdb ends */
		if (!answered && si.si_signo == SIGTRAP && si.si_code == SI_KERNEL &&
		    ptrace(PTRACE_GETREGS, t->tid, 0, &r) == 0 && is_int3(ctx, r.rip - 1)) {
			r.rip--;   /* onto the instruction the int3 stood for */
			ptrace(PTRACE_SETREGS, t->tid, 0, &r);
		}
		int sig = si.si_signo == SIGTRAP || si.si_signo == SIGSTOP ? 0 : si.si_signo;
		ptrace(PTRACE_DETACH, t->tid, 0, (void *)(long)sig);
	}
}

/* A thread last resumed by single-step keeps the trap flag the kernel set
 * for it (cleared at the next resume or PTRACE_DETACH, not when the tracer
 * dies): if qzdb died now, the program would die of SIGTRAP one instruction
 * later. Resume it with PTRACE_CONT, which clears the flag, into a SIGSTOP
 * sent just before: it stops again before running an instruction. */
static void proc_untrap(struct proc *p, struct proc_thr *t)
{
	siginfo_t si;
	if (t->last_req != PTRACE_SINGLESTEP || t->running || t->has_pending ||
	    ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) < 0 || si.si_signo != SIGTRAP ||
	    syscall(SYS_tgkill, p->pid, t->tid, SIGSTOP) < 0)
		return;
	t->stop_expected = true;
	void (*hook)(void *ctx) = p->run_hook;   /* no instruction runs: not a resume */
	p->run_hook = NULL;
	int r = proc_thr_run(p, t, PTRACE_CONT, 0);
	p->run_hook = hook;
	if (r < 0)
		return;
	t->parked = true;
	t->si = si;
	proc_collect(p, t);   /* may find it gone: t is not used after */
}

void proc_settle(struct proc *p)
{
	proc_flush(p);
	for (size_t i = 0; p->alive && i < p->nthr;) {
		size_t n = p->nthr;
		proc_untrap(p, p->thr[i]);
		i += p->nthr == n;   /* the thread may have gone meanwhile */
	}
}

void proc_regs_dirty(struct proc *p)
{
	if (p->cur)
		p->cur->regs_dirty = true;
}

int proc_fpregs(struct proc *p, struct user_fpregs_struct *fp)
{
	return p->cur ? (int)ptrace(PTRACE_GETFPREGS, p->cur->tid, 0, fp) : -1;
}

int proc_set_fpregs(struct proc *p, const struct user_fpregs_struct *fp)
{
	return p->cur ? (int)ptrace(PTRACE_SETFPREGS, p->cur->tid, 0, fp) : -1;
}

uint64_t proc_pc(struct proc *p)
{
	return proc_regs(p)->rip;
}

void proc_set_pc(struct proc *p, uint64_t pc)
{
	proc_regs(p)->rip = pc;
	proc_regs_dirty(p);
}

int proc_read(struct proc *p, uint64_t addr, void *buf, size_t len)
{
	if (!p->alive)
		return -1;
	ssize_t n = pread(p->memfd, buf, len, (off_t)addr);
	return n == (ssize_t)len ? 0 : -1;
}

void proc_set_write_hook(struct proc *p, void (*fn)(void *ctx, uint64_t addr, size_t len),
			 void *ctx)
{
	p->write_hook = fn;
	p->write_ctx = ctx;
}

void proc_set_run_hook(struct proc *p, void (*fn)(void *ctx), void *ctx)
{
	p->run_hook = fn;
	p->run_ctx = ctx;
}

int proc_write(struct proc *p, uint64_t addr, const void *buf, size_t len)
{
	if (!p->alive)
		return -1;
	if (p->write_hook && len)
		p->write_hook(p->write_ctx, addr, len);
	ssize_t n = pwrite(p->memfd, buf, len, (off_t)addr);
	return n == (ssize_t)len ? 0 : -1;
}

int proc_siginfo(struct proc *p, void *siginfo)
{
	if (p->cur && p->cur->parked) {
		memcpy(siginfo, &p->cur->si, sizeof p->cur->si);
		return 0;
	}
	return p->cur ? (int)ptrace(PTRACE_GETSIGINFO, p->cur->tid, 0, siginfo) : -1;
}

int proc_write_pid(pid_t pid, uint64_t addr, const void *buf, size_t len)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/mem", pid);
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = pwrite(fd, buf, len, (off_t)addr);
	close(fd);
	return n == (ssize_t)len ? 0 : -1;
}
