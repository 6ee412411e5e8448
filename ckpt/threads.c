/* threads: the thread set a checkpoint records, and what a rollback does
 * with threads started since: they are ended (an exit system call made in
 * each, alone, while the others stay stopped), as their stacks and the
 * libc state that knows them go back to before they existed. A thread of
 * the checkpoint that has exited since cannot be brought back: the
 * rollback is refused before anything changes. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "ckpt-int.h"

void ckpt_threads_save(struct qz *q, struct ckpt *c)
{
	size_t n = proc_nthreads(q->proc);
	c->tid = proc_cur_tid(q->proc);
	c->tids = xmalloc((n + 1) * sizeof *c->tids);
	c->ntids = 0;
	for (size_t i = 0; i < n; i++) {
		struct proc_thread_info ti;
		if (proc_thread_at(q->proc, i, &ti) == 0)
			c->tids[c->ntids++] = ti.tid;
	}
}

static bool ckpt_had_thread(const struct ckpt *c, pid_t tid)
{
	for (size_t i = 0; i < c->ntids; i++)
		if (c->tids[i] == tid)
			return true;
	return false;
}

static bool ckpt_has_thread(struct qz *q, pid_t tid)
{
	for (size_t i = 0; i < proc_nthreads(q->proc); i++) {
		struct proc_thread_info ti;
		if (proc_thread_at(q->proc, i, &ti) == 0 && ti.tid == tid)
			return true;
	}
	return false;
}

int ckpt_threads_check(struct qz *q, const struct ckpt *c)
{
	for (size_t i = 0; i < c->ntids; i++)
		if (!ckpt_has_thread(q, c->tids[i]))
			return qz_error(q, "Thread LWP %d of checkpoint %d has exited since: a rollback "
				       "cannot bring it back (nothing was changed).", c->tids[i], c->id);
	return 0;
}

/* Run an exit system call in thread tid alone (2 bytes at its pc patched,
 * every other thread stopped) and reap it. */
static int ckpt_thread_exit(struct qz *q, pid_t tid)
{
	static const uint8_t sc[2] = {0x0f, 0x05};
	struct user_regs_struct r;
	uint8_t code[2];
	int status = 0;
	if (ptrace(PTRACE_GETREGS, tid, 0, &r) < 0 || proc_read(q->proc, r.rip, code, 2) < 0 ||
	    proc_write(q->proc, r.rip, sc, 2) < 0)
		return -1;
	uint64_t pc = r.rip;
	r.rax = SYS_exit;
	r.orig_rax = (uint64_t)-1;   /* no restart of the call it was in */
	r.rdi = 0;
	bool ok = ptrace(PTRACE_SETREGS, tid, 0, &r) == 0;
	/* A signal already queued for it (a stop-all's SIGSTOP) may stop it
	 * before the instruction: let it go on without the signal. */
	for (int tries = 0; ok && tries < 4; tries++) {
		ok = ptrace(PTRACE_CONT, tid, 0, 0) == 0 && waitpid(tid, &status, __WALL) == tid;
		if (ok && !WIFSTOPPED(status))
			break;
	}
	proc_write(q->proc, pc, code, 2);
	if (!ok || WIFSTOPPED(status))
		return -1;
	proc_thread_forget(q->proc, tid);
	return 0;
}

int ckpt_threads_end_new(struct qz *q, const struct ckpt *c)
{
	int ended = 0;
	proc_stop_all(q->proc);
	for (size_t i = proc_nthreads(q->proc); i-- > 0;) {
		struct proc_thread_info ti;
		if (proc_thread_at(q->proc, i, &ti) < 0 || ckpt_had_thread(c, ti.tid))
			continue;
		if (ckpt_thread_exit(q, ti.tid) < 0)
			return qz_error(q, "Cannot end thread LWP %d, started after checkpoint %d.",
				       ti.tid, c->id);
		ended++;
	}
	if (proc_select(q->proc, c->tid) < 0)
		return qz_error(q, "The thread of checkpoint %d is gone.", c->id);
	if (ended)
		qz_printf(q, "Ended %d thread%s started after checkpoint %d.\n", ended,
			  ended > 1 ? "s" : "", c->id);
	return 0;
}
