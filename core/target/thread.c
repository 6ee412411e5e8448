/* thread: thread numbers, names, selection and messages, and the
 * session's side of a fork (which process keeps the breakpoints). The
 * thread commands are in cmd/cmd-thread.c. */
#include "thread.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bp.h"
#include "frame.h"
#include "proc/proc.h"
#include "session.h"
#include "watch.h"
#include "util/util.h"

void thread_name(struct qz *q, int tid, char *buf, size_t len)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/task/%d/comm", proc_pid(q->proc), tid);
	buf[0] = 0;
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

void thread_target_id(const struct proc_thread_info *t, struct sbuf *b)
{
	if (t->fs_base)
		sbuf_printf(b, "Thread 0x%llx (LWP %d)", (unsigned long long)t->fs_base, t->tid);
	else
		sbuf_printf(b, "process %d", t->tid);
}

static void thread_on_thread(void *ctx, const struct proc_thread_info *t, bool created)
{
	struct qz *q = ctx;
	struct sbuf b = {0};
	sbuf_add(&b, created ? "[New " : "[");
	thread_target_id(t, &b);
	sbuf_add(&b, created ? "]\n" : " exited]\n");
	qz_puts(q, b.s);
	sbuf_free(&b);
	if (created)   /* a new thread starts without debug registers */
		watch_arm(q, t->tid);
}

/* Put the original bytes back in a copy of the memory (a fork child that
 * shares nothing with us from now on). */
static void thread_unplant(struct qz *q, struct proc *p, int pid)
{
	for (size_t i = 0; i < q->bps.nsites; i++) {
		const struct bp_site *s = &q->bps.sites[i];
		if (!s->inserted)
			continue;
		if (pid)
			proc_write_pid(pid, s->addr, &s->orig, 1);
		else
			proc_write(p, s->addr, &s->orig, 1);
	}
}

static bool thread_on_fork(void *ctx, struct proc *p, pid_t child, bool may_follow)
{
	struct qz *q = ctx;
	if (!q->thr.follow_child || !may_follow) {
		thread_unplant(q, p, child);
		qz_printf(q, "[Detaching after fork from child process %d]\n", child);
		return false;
	}
	struct proc_thread_info t;
	proc_thread_cur(p, &t);
	qz_printf(q, "[Attaching after Thread 0x%llx (LWP %d) fork to child process %d]\n",
		  (unsigned long long)t.fs_base, t.tid, child);
	qz_printf(q, "[New inferior %d (process %d)]\n", thread_inferior(q) + 1, child);
	thread_unplant(q, p, 0);
	qz_printf(q, "[Detaching after fork from parent process %d]\n", proc_pid(p));
	qz_printf(q, "[Inferior %d (process %d) detached]\n", thread_inferior(q), proc_pid(p));
	q->thr.inferior = thread_inferior(q) + 1;
	q->thr.shown_tid = 0;
	return true;
}

/* The vfork child borrows the memory until it execs or exits: no int3 may
 * be left there for it to hit (it is not traced). */
static void thread_on_vfork(void *ctx, struct proc *p, pid_t child, bool done)
{
	struct qz *q = ctx;
	struct thread_state *ts = &q->thr;
	if (done) {
		for (size_t i = 0; i < ts->nvfork_sites; i++) {
			struct bp_site *s = bp_site_at(&q->bps, ts->vfork_sites[i]);
			if (s)
				bp_site_lift(&q->bps, p, s);
		}
		ts->nvfork_sites = 0;
		return;
	}
	for (size_t i = 0; i < q->bps.nsites; i++) {
		struct bp_site *s = &q->bps.sites[i];
		if (!s->inserted)
			continue;
		XGROW(ts->vfork_sites, ts->vfork_cap, ts->nvfork_sites + 1);
		ts->vfork_sites[ts->nvfork_sites++] = s->addr;
		bp_site_drop(&q->bps, p, s);
	}
	qz_printf(q, "[Detaching after vfork from child process %d]\n", child);
}

void thread_attach(struct qz *q)
{
	struct proc_notify n = { .ctx = q, .thread = thread_on_thread, .fork = thread_on_fork,
				 .vfork = thread_on_vfork };
	q->thr.nvfork_sites = 0;
	proc_set_notify(q->proc, &n);
	q->thr.shown_tid = proc_pid(q->proc);
	q->thr.inferior = 1;
}

int thread_inferior(const struct qz *q)
{
	return q->thr.inferior ? q->thr.inferior : 1;
}

void thread_id(struct qz *q, int num, struct sbuf *b)
{
	if (thread_inferior(q) > 1)
		sbuf_printf(b, "%d.%d", thread_inferior(q), num);
	else
		sbuf_printf(b, "%d", num);
}

void thread_report_switch(struct qz *q)
{
	struct proc_thread_info t;
	if (!qz_running(q) || proc_thread_cur(q->proc, &t) < 0)
		return;
	bool show = (proc_multi(q->proc) || thread_inferior(q) > 1) &&
		    t.tid != q->thr.shown_tid;
	q->thr.shown_tid = t.tid;
	if (!show)
		return;
	struct sbuf b = {0};
	sbuf_add(&b, "[Switching to ");
	thread_target_id(&t, &b);
	sbuf_add(&b, "]\n");
	qz_puts(q, b.s);
	sbuf_free(&b);
}

void thread_who(struct qz *q, struct sbuf *b)
{
	struct proc_thread_info t;
	if (!qz_running(q) || (!proc_multi(q->proc) && thread_inferior(q) < 2) ||
	    proc_thread_cur(q->proc, &t) < 0)
		return;
	char name[64];
	thread_name(q, t.tid, name, sizeof name);
	sbuf_add(b, "Thread ");
	thread_id(q, t.num, b);
	sbuf_printf(b, " \"%s\" ", name);
}

void thread_select(struct qz *q, pid_t tid)
{
	if (!qz_running(q) || proc_select(q->proc, tid) < 0)
		return;
	frame_invalidate(q);
	q->sel_frame = 0;
}
