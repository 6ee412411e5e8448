/* proc-wait: waiting for the process: wait statuses of every thread,
 * clone, fork, vfork and exec events, stopping the other threads (all-stop),
 * seccomp stops, and leaving cleanly on SIGTERM, SIGHUP or SIGPIPE. */
#define _GNU_SOURCE
#include "proc-int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox.h"

static bool proc_early_take(struct proc *p, pid_t pid, int *status)
{
	for (size_t i = 0; i < p->nearly; i++) {
		if (p->early[i].pid != pid)
			continue;
		*status = p->early[i].status;
		p->early[i] = p->early[--p->nearly];
		return true;
	}
	return false;
}

static void proc_early_put(struct proc *p, pid_t pid, int status)
{
	if (!WIFSTOPPED(status))
		return;   /* a death of something we do not know: nothing to keep */
	XGROW(p->early, p->early_cap, p->nearly + 1);
	p->early[p->nearly++] = (struct proc_early){ pid, status };
}

/* The first stop of a new thread or child (SIGSTOP), however it comes. */
static bool proc_first_stop(struct proc *p, pid_t pid)
{
	int status;
	if (proc_early_take(p, pid, &status))
		return WIFSTOPPED(status);
	return proc_waitpid(pid, &status) == pid && WIFSTOPPED(status);
}

static unsigned long proc_event_msg(pid_t tid)
{
	unsigned long msg = 0;
	ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg);
	return msg;
}

/* A thread of ours cloned a new one: trace it. It starts stopped; it runs
 * if everything runs. */
static void proc_on_clone(struct proc *p, struct proc_thr *parent, bool run)
{
	pid_t tid = (pid_t)proc_event_msg(parent->tid);
	if (tid <= 0 || !proc_first_stop(p, tid))
		return;
	struct proc_thr *t = proc_thr_add(p, tid);
	proc_getregs(parent);   /* keeps the parent's thread pointer known */
	proc_getregs(t);
	proc_notify_thread(p, t, true);
	if (run)
		proc_thr_run(p, t, proc_cont_req(p), 0);
}

/* Forget the process we traced and trace child instead: its one thread is
 * in its first stop. */
static void proc_follow_child(struct proc *p, pid_t child)
{
	proc_stop_others(p);
	for (size_t i = 0; i < p->nthr; i++) {
		proc_flush_regs(p->thr[i]);
		ptrace(PTRACE_DETACH, p->thr[i]->tid, 0, 0);
	}
	proc_discard_stops(p);
	proc_thr_clear(p);
	p->nearly = 0;
	if (p->memfd >= 0)
		close(p->memfd);
	p->pid = child;
	p->next_num = 0;
	p->cur = proc_thr_add(p, child);
	p->event_tid = child;
	if (proc_open_mem(p) < 0)
		p->alive = false;
}

/* A fork: the child is traced and stopped. The session decides (it removes
 * its breakpoints from the copy it leaves); the child is detached unless it
 * is followed. Returns the thread to resume. */
static struct proc_thr *proc_on_fork(struct proc *p, struct proc_thr *t)
{
	pid_t child = (pid_t)proc_event_msg(t->tid);
	enum __ptrace_request req = t->last_req;
	if (child <= 0 || !proc_first_stop(p, child))
		return t;
	bool follow = p->notify.fork && p->notify.fork(p->notify.ctx, p, child, true);
	if (!follow) {
		ptrace(PTRACE_DETACH, child, 0, 0);
		return t;
	}
	proc_follow_child(p, child);
	p->cur->last_req = req;
	return p->alive ? p->cur : NULL;
}

/* A fork seen while stopping everything: the child is never followed. */
static void proc_fork_leave(struct proc *p, struct proc_thr *t)
{
	pid_t child = (pid_t)proc_event_msg(t->tid);
	if (child <= 0 || !proc_first_stop(p, child))
		return;
	if (p->notify.fork)
		p->notify.fork(p->notify.ctx, p, child, false);
	ptrace(PTRACE_DETACH, child, 0, 0);
}

/* A vfork, or its end (the child exec'd or exited): the session takes its
 * int3s out of the shared memory meanwhile. */
static void proc_on_vfork(struct proc *p, struct proc_thr *t, bool done)
{
	pid_t child = done ? 0 : (pid_t)proc_event_msg(t->tid);
	if (!done && (child <= 0 || !proc_first_stop(p, child)))
		return;
	if (p->notify.vfork)
		p->notify.vfork(p->notify.ctx, p, child, done);
	if (!done)
		ptrace(PTRACE_DETACH, child, 0, 0);
}

/* exec: only the leader survives (the execing thread took its id); the
 * memory file of the old image is dead. */
static void proc_on_exec(struct proc *p, struct proc_thr *t)
{
	pid_t tid = t->tid;
	for (size_t i = p->nthr; i-- > 0;)
		if (p->thr[i] != t)
			proc_thr_del(p, p->thr[i]);
	t->tid = tid;
	t->regs_valid = false;
	t->running = false;
	t->stop_expected = false;
	p->cur = t;
	if (p->memfd >= 0)
		close(p->memfd);
	if (proc_open_mem(p) < 0)
		p->alive = false;
}

/* A stop kept for later, from a thread stopped by a stop-all: a breakpoint
 * trap is dropped and the pc moved back onto the int3, so the thread hits it
 * again when resumed (if the breakpoint is still there). */
static void proc_keep(struct proc_thr *t, int status)
{
	siginfo_t si;
	if (WSTOPSIG(status) == SIGTRAP && (status >> 16) == 0 &&
	    ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) == 0 && si.si_code == SI_KERNEL &&
	    proc_getregs(t) == 0) {
		t->regs.rip--;
		t->regs_dirty = true;
		return;
	}
	t->has_pending = true;
	t->pending = status;
}

/* A leader that called pthread_exit is a zombie until the last thread
 * goes: it will never stop, and waiting for it would hang. */
static bool proc_zombie(pid_t pid, pid_t tid)
{
	char path[64], buf[256];
	snprintf(path, sizeof path, "/proc/%d/task/%d/stat", pid, tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	const char *st = strrchr(buf, ')');
	return !st || st[1] == 0 || st[2] == 'Z' || st[2] == 'X';
}

/* Wait for tid's next status; for the leader, poll, giving up when it is a
 * zombie (then 0). */
static pid_t proc_wait_thr(struct proc *p, pid_t tid, int *status)
{
	if (tid != p->pid)
		return proc_waitpid(tid, status);
	for (;;) {
		pid_t r = waitpid(tid, status, __WALL | WNOHANG);
		if (r != 0 || proc_zombie(p->pid, tid))
			return r;
		usleep(100);
	}
}

/* A sandboxed program's call stopped by its seccomp filter: the sandbox
 * lets it run or skips it (EPERM), the registers then written back when t
 * resumes. t stays stopped. */
static void proc_on_seccomp(struct proc *p, struct proc_thr *t)
{
	if (p->sandbox && proc_getregs(t) == 0 && !sandbox_judge(p->sandbox, p->pid, &t->regs))
		t->regs_dirty = true;
}

void proc_collect(struct proc *p, struct proc_thr *u)
{
	while (u->running) {
		int status;
		pid_t r = proc_wait_thr(p, u->tid, &status);
		if (r == 0) {   /* a zombie leader: it stays as it is */
			u->running = false;
			return;
		}
		if (r < 0 || WIFEXITED(status) || WIFSIGNALED(status)) {
			if (u->tid != p->pid) {
				proc_notify_thread(p, u, false);
				proc_thr_del(p, u);
			} else {
				u->running = false;
			}
			return;
		}
		u->running = false;
		int ev = status >> 16;
		if (ev == PTRACE_EVENT_CLONE)
			proc_on_clone(p, u, false);
		else if (ev == PTRACE_EVENT_FORK)
			proc_fork_leave(p, u);
		else if (ev == PTRACE_EVENT_VFORK || ev == PTRACE_EVENT_VFORK_DONE)
			proc_on_vfork(p, u, ev == PTRACE_EVENT_VFORK_DONE);
		else if (ev == PTRACE_EVENT_SECCOMP)   /* judged now, skipped or run later */
			proc_on_seccomp(p, u);
		else if (WSTOPSIG(status) == SIGSTOP && u->stop_expected)
			u->stop_expected = false;
		else if (ev == 0)
			proc_keep(u, status);
	}
}

void proc_stop_others(struct proc *p)
{
	if (p->nthr < 2)
		return;
	for (size_t i = 0; i < p->nthr; i++) {
		struct proc_thr *u = p->thr[i];
		if (u->running && !u->stop_expected) {
			syscall(SYS_tgkill, p->pid, u->tid, SIGSTOP);
			u->stop_expected = true;
		}
	}
	for (size_t i = 0; i < p->nthr;) {
		struct proc_thr *u = p->thr[i];
		size_t n = p->nthr;
		proc_collect(p, u);
		if (p->nthr == n || (i < p->nthr && p->thr[i] == u))
			i++;   /* u was not deleted */
	}
}

void proc_stop_all(struct proc *p)
{
	if (p->alive)
		proc_stop_others(p);
}

/* ---- leaving on a signal (SIGTERM, SIGHUP, SIGPIPE) ----
 * A program resumed with proc_cont may run for ever while qzdb waits for
 * it. The front end's handler calls proc_quit_signal, which stops the
 * thread the wait is for with SIGSTOP (or the wait does, if the signal came
 * before it); proc_wait reports that stop with quit set, so the command
 * ends at an ordinary stop and the front end cleans up from there. */
static volatile sig_atomic_t proc_quit_sig;
static volatile pid_t proc_quit_pid, proc_quit_tid;   /* whom the handler stops */
static volatile pid_t proc_quit_sent;                 /* sent SIGSTOP to, or 0 */

void proc_quit_signal(int sig)
{
	int e = errno;
	pid_t tid = proc_quit_tid;
	proc_quit_sig = sig;
	if (tid && !proc_quit_sent && syscall(SYS_tgkill, proc_quit_pid, tid, SIGSTOP) == 0)
		proc_quit_sent = tid;
	errno = e;
}

int proc_quit_pending(void)
{
	return proc_quit_sig;
}

/* Before waiting for a process proc_cont resumed: name the thread the
 * handler is to stop, and stop it now if the signal came already. */
static void proc_quit_arm(struct proc *p)
{
	struct proc_thr *t = p->cur && p->cur->running ? p->cur : NULL;
	for (size_t i = 0; !t && i < p->nthr; i++)
		if (p->thr[i]->running)
			t = p->thr[i];
	if (!t || t->stop_expected)   /* nothing runs, or a SIGSTOP is on its way */
		return;
	proc_quit_pid = p->pid;
	proc_quit_tid = t->tid;
	if (!proc_quit_sig)
		return;
	sigset_t all, old;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	if (!proc_quit_sent && syscall(SYS_tgkill, p->pid, t->tid, SIGSTOP) == 0)
		proc_quit_sent = t->tid;
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/* A status of the thread we sent the quit's SIGSTOP to: whatever it is,
 * the SIGSTOP is this stop or still to come (stop_expected). True when it
 * is the stop to report. */
static bool proc_quit_stop(struct proc_thr *t, int status)
{
	if (t->tid == proc_quit_sent) {
		proc_quit_sent = 0;
		t->stop_expected = true;
	}
	return proc_quit_sig && WIFSTOPPED(status) && (status >> 16) == 0 &&
	       WSTOPSIG(status) == SIGSTOP && t->stop_expected;
}

static bool proc_alarm_on;

void proc_alarm_window(bool on)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	sigprocmask(on ? SIG_BLOCK : SIG_UNBLOCK, &set, NULL);
	proc_alarm_on = on;
}

static pid_t proc_wait_windowed(struct proc *p, pid_t want, int *status)
{
	sigset_t set;
	bool window = proc_alarm_on && p->conting;
	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	if (window)
		sigprocmask(SIG_UNBLOCK, &set, NULL);
	pid_t r;
	do {
		if (p->conting)
			proc_quit_arm(p);
		r = waitpid(want, status, __WALL);
		proc_quit_tid = 0;
	} while (r < 0 && errno == EINTR);
	if (window)
		sigprocmask(SIG_BLOCK, &set, NULL);
	return r;
}

/* The next wait status: a kept one first (unless stepping), else from the
 * kernel. NULL when nothing is left to wait for. */
static struct proc_thr *proc_next(struct proc *p, int *status)
{
	if (!p->stepping)
		for (size_t i = 0; i < p->nthr; i++)
			if (p->thr[i]->has_pending) {
				p->thr[i]->has_pending = false;
				*status = p->thr[i]->pending;
				return p->thr[i];
			}
	for (;;) {
		pid_t want = p->stepping && p->cur ? p->cur->tid : p->nthr > 1 ? -1 : p->pid;
		pid_t r = proc_wait_windowed(p, want, status);
		if (r < 0)
			return NULL;
		struct proc_thr *t = proc_thr_find(p, r);
		if (t)
			return t;
		proc_early_put(p, r, *status);
	}
}

static void proc_gone(struct proc *p, int status, struct proc_stop *st)
{
	if (WIFEXITED(status)) {
		st->ev = PROC_EXITED;
		st->code = WEXITSTATUS(status);
	} else {
		st->ev = PROC_KILLED;
		st->sig = WTERMSIG(status);
	}
	p->alive = false;
	proc_thr_clear(p);
}

/* A thread other than the leader died. If it was being stepped alone, the
 * others are let run so that something can still happen. */
static void proc_thr_gone(struct proc *p, struct proc_thr *t)
{
	bool was_stepped = p->stepping && p->cur == t;
	proc_notify_thread(p, t, false);
	proc_thr_del(p, t);
	if (was_stepped) {
		p->stepping = false;
		for (size_t i = 0; i < p->nthr; i++)
			if (!p->thr[i]->running && !p->thr[i]->has_pending)
				proc_thr_run(p, p->thr[i], PTRACE_CONT, 0);
	}
}

/* A ptrace event stop (ev) of t: handled here, t resumed as before. True
 * for exec, which the caller reports. */
static bool proc_on_event(struct proc *p, struct proc_thr *t, int ev)
{
	struct proc_thr *r = t;
	if (ev == PTRACE_EVENT_EXEC) {
		proc_on_exec(p, t);
		p->event_tid = t->tid;
		return true;
	}
	if (ev == PTRACE_EVENT_CLONE)
		proc_on_clone(p, t, !p->stepping);
	else if (ev == PTRACE_EVENT_FORK)
		r = proc_on_fork(p, t);
	else if (ev == PTRACE_EVENT_VFORK || ev == PTRACE_EVENT_VFORK_DONE)
		proc_on_vfork(p, t, ev == PTRACE_EVENT_VFORK_DONE);
	else if (ev == PTRACE_EVENT_SECCOMP)
		proc_on_seccomp(p, t);
	if (r)
		proc_thr_run(p, r, r->last_req, 0);
	return false;
}

/* A system-call stop while the syscall hook is set: the hook sees it; it
 * is reported when the hook says so, when page watchpoints trace calls
 * too (run.c's pw_classify acts on it), or as the end of a step over the
 * call. True when it is a stop to report. */
static bool proc_on_syscall(struct proc *p, struct proc_thr *t)
{
	bool entry = !t->in_sys;
	t->in_sys = entry;
	p->cur = t;
	p->event_tid = t->tid;
	bool go = p->sys_hook(p->sys_ctx, p, entry);
	if (!entry && t->sys_step) {
		t->sys_step = false;
		return true;
	}
	if (!go || p->sys_stops)
		return true;
	proc_thr_run(p, t, PTRACE_SYSCALL, 0);
	return false;
}

/* Handle one status; true when it is a stop to report (st filled). */
static bool proc_handle(struct proc *p, struct proc_thr *t, int status, struct proc_stop *st)
{
	if (proc_quit_stop(t, status)) {
		t->running = t->stop_expected = false;
		p->cur = t;
		p->event_tid = t->tid;
		*st = (struct proc_stop){ .ev = PROC_SIGNAL, .sig = SIGSTOP, .quit = true };
		return true;
	}
	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		if (t->tid != p->pid) {
			proc_thr_gone(p, t);
			return false;
		}
		proc_gone(p, status, st);
		return true;
	}
	t->running = false;
	int sig = WSTOPSIG(status), ev = status >> 16;
	if (ev) {
		if (!proc_on_event(p, t, ev))
			return false;
		st->ev = PROC_EXEC;
		st->sig = SIGTRAP;
		return true;
	}
	if (sig == SIGSTOP && t->stop_expected) {   /* ours, late: swallow it */
		t->stop_expected = false;
		proc_thr_run(p, t, t->last_req, 0);
		return false;
	}
	if (sig == (SIGTRAP | 0x80) && p->sys_hook && !proc_on_syscall(p, t))
		return false;
	p->cur = t;
	p->event_tid = t->tid;
	st->sig = sig & 0x7f;
	st->ev = st->sig == SIGTRAP ? PROC_TRAP : PROC_SIGNAL;
	return true;
}

void proc_wait(struct proc *p, struct proc_stop *st)
{
	memset(st, 0, sizeof *st);
	for (;;) {
		int status;
		struct proc_thr *t = p->alive ? proc_next(p, &status) : NULL;
		if (!t) {
			st->ev = PROC_ERROR;
			p->alive = false;
			p->over_addr = 0;
			proc_thr_clear(p);
			return;
		}
		if (proc_handle(p, t, status, st)) {
			if (p->over_addr)
				proc_step_over_done(p, st);
			return;
		}
	}
}

void proc_interrupt(struct proc *p)
{
	if (p->alive)
		syscall(SYS_tgkill, p->pid, p->pid, SIGSTOP);
}
