/* proc-thread: the traced threads: the list (gdb's numbers, never reused),
 * each thread's register cache and resume, and what callers may see of
 * them (proc_thread_info, selection). */
#define _GNU_SOURCE
#include "proc-int.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

struct proc_thr *proc_thr_add(struct proc *p, pid_t tid)
{
	struct proc_thr *t = xcalloc(1, sizeof *t);
	t->tid = tid;
	t->num = ++p->next_num;
	t->last_req = PTRACE_CONT;
	XGROW(p->thr, p->cap, p->nthr + 1);
	p->thr[p->nthr++] = t;
	return t;
}

struct proc_thr *proc_thr_find(struct proc *p, pid_t tid)
{
	for (size_t i = 0; i < p->nthr; i++)
		if (p->thr[i]->tid == tid)
			return p->thr[i];
	return NULL;
}

void proc_thr_del(struct proc *p, struct proc_thr *t)
{
	size_t i = 0;
	while (i < p->nthr && p->thr[i] != t)
		i++;
	if (i == p->nthr)
		return;
	memmove(p->thr + i, p->thr + i + 1, (p->nthr - i - 1) * sizeof *p->thr);
	p->nthr--;
	if (p->cur == t)   /* keep a valid selection: the leader or the first */
		p->cur = p->nthr ? p->thr[0] : NULL;
	free(t);
}

void proc_thr_clear(struct proc *p)
{
	for (size_t i = 0; i < p->nthr; i++)
		free(p->thr[i]);
	p->nthr = 0;
	p->cur = NULL;
}

void proc_notify_thread(struct proc *p, struct proc_thr *t, bool created)
{
	if (!p->notify.thread)
		return;
	struct proc_thread_info ti = { .tid = t->tid, .num = t->num, .fs_base = t->fs_base };
	p->notify.thread(p->notify.ctx, &ti, created);
}

int proc_getregs(struct proc_thr *t)
{
	if (t->regs_valid)
		return 0;
	if (ptrace(PTRACE_GETREGS, t->tid, 0, &t->regs) < 0)
		return -1;
	t->regs_valid = true;
	t->fs_base = t->regs.fs_base;
	return 0;
}

int proc_flush_regs(struct proc_thr *t)
{
	if (!t->regs_dirty)
		return 0;
	t->regs_dirty = false;
	return (int)ptrace(PTRACE_SETREGS, t->tid, 0, &t->regs);
}

int proc_thr_run(struct proc *p, struct proc_thr *t, enum __ptrace_request req, int sig)
{
	if (p->run_hook)
		p->run_hook(p->run_ctx);
	if (p->guard)
		proc_guard_sync(p);
	proc_flush_regs(t);
	t->regs_valid = false;
	t->parked = false;
	t->last_req = req;
	if (req != PTRACE_SYSCALL)   /* a call's exit stop comes only with it */
		t->in_sys = false;
	int r = (int)ptrace(req, t->tid, 0, (void *)(long)sig);
	t->running = r == 0;
	return r;
}

/* ---- what callers see of the threads ---- */

size_t proc_nthreads(const struct proc *p)
{
	return p ? p->nthr : 0;
}

static void proc_info(struct proc_thr *t, struct proc_thread_info *ti)
{
	ti->gone = proc_getregs(t) < 0;
	ti->tid = t->tid;
	ti->num = t->num;
	ti->fs_base = t->fs_base;
}

int proc_thread_at(struct proc *p, size_t i, struct proc_thread_info *ti)
{
	if (i >= p->nthr)
		return -1;
	proc_info(p->thr[i], ti);
	return 0;
}

int proc_thread_cur(struct proc *p, struct proc_thread_info *ti)
{
	if (!p->cur)
		return -1;
	proc_info(p->cur, ti);
	return 0;
}

int proc_select(struct proc *p, pid_t tid)
{
	struct proc_thr *t = proc_thr_find(p, tid);
	if (!t)
		return -1;
	p->cur = t;
	return 0;
}

pid_t proc_event_tid(const struct proc *p)
{
	return p->event_tid;
}

pid_t proc_cur_tid(const struct proc *p)
{
	return p->cur ? p->cur->tid : p->pid;
}

bool proc_multi(const struct proc *p)
{
	return p && p->next_num > 1;
}

void proc_thread_forget(struct proc *p, pid_t tid)
{
	struct proc_thr *t = proc_thr_find(p, tid);
	if (!t || tid == p->pid)
		return;
	proc_notify_thread(p, t, false);
	proc_thr_del(p, t);
}
