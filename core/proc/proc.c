/* proc: ptrace process control: launching a program (pinned, redirected,
 * sandboxed) or attaching to a process, killing and detaching. The threads
 * are in proc-thread.c, resuming in proc-resume.c, waiting and events in
 * proc-wait.c, registers and memory in proc-mem.c. */
#define _GNU_SOURCE
#include "proc-int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <stddef.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox.h"
#include "util/util.h"

/* The CPU both tracer and debuggee run on: a ptrace stop costs 3-7x less
 * when they share one (PLATFORM.md). */
static int proc_pick_cpu(void)
{
	int cpu = sched_getcpu();
	return cpu < 0 ? 0 : cpu;
}

static void proc_pin(pid_t pid, int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(pid, sizeof set, &set);
}

static int proc_redirect(const char *path, int fd, int flags)
{
	int nfd = open(path, flags, 0666);
	if (nfd < 0)
		return -1;
	if (nfd != fd) {
		dup2(nfd, fd);
		close(nfd);
	}
	return 0;
}

/* In the child: a session of its own whose controlling terminal is path,
 * so the terminal's Ctrl-C (^C written to a pty master) signals it alone. */
static int proc_own_tty(const char *path)
{
	setsid();
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ioctl(fd, TIOCSCTTY, 0);
	for (int i = 0; i < 3; i++)
		if (fd != i)
			dup2(fd, i);
	if (fd > 2)
		close(fd);
	return 0;
}

/* In the child: mark every descriptor above 2 close-on-exec, so the program
 * starts with exactly stdin, stdout and stderr, as from a shell (qzdb's own
 * and those qzdb inherited are not its business). Marking rather than
 * closing keeps the exec-error pipe open until execve succeeds. Without
 * close_range (before Linux 5.11): each entry of /proc/self/fd, read with
 * getdents64 into a stack buffer (no allocation after fork). */
static void proc_cloexec_above_2(void)
{
	if (syscall(SYS_close_range, 3u, ~0u, CLOSE_RANGE_CLOEXEC) == 0)
		return;
	int d = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char buf[4096];
	long n;
	while (d >= 0 && (n = syscall(SYS_getdents64, d, buf, sizeof buf)) > 0)
		for (long off = 0; off < n;) {
			struct dirent64 *e = (struct dirent64 *)(buf + off);
			int fd = atoi(e->d_name);
			if (fd > 2 && fd != d)
				fcntl(fd, F_SETFD, FD_CLOEXEC);
			off += e->d_reclen;
		}
	if (d >= 0)
		close(d);
}

/* In the child: become traceable, set up, exec. Failures are reported to
 * the parent through the close-on-exec pipe as an errno value. */
static void proc_child(const struct proc_launch *l, int errfd, int cpu)
{
	int e = 0;
	if (l->pin_cpu)
		proc_pin(0, cpu);
	personality(ADDR_NO_RANDOMIZE);
	if (l->tty_path && proc_own_tty(l->tty_path) < 0)
		e = errno;
	if (!e && l->stdin_path && proc_redirect(l->stdin_path, 0, O_RDONLY) < 0)
		e = errno;
	if (!e && l->stdout_path &&
	    proc_redirect(l->stdout_path, 1, O_WRONLY | O_CREAT | O_TRUNC) < 0)
		e = errno;
	signal(SIGINT, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	if (!e && ptrace(PTRACE_TRACEME, 0, 0, 0) < 0)
		e = errno;
	if (!e && l->sandbox)
		e = sandbox_enter(l->sandbox);
	if (!e) {
		proc_cloexec_above_2();
		execv(l->path, l->argv);
		e = errno;
	}
	if (write(errfd, &e, sizeof e) < 0)
		_exit(126);
	_exit(127);
}

pid_t proc_waitpid(pid_t pid, int *status)
{
	pid_t r;
	do
		r = waitpid(pid, status, __WALL);
	while (r < 0 && errno == EINTR);
	return r;
}

int proc_open_mem(struct proc *p)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/mem", p->pid);
	p->memfd = open(path, O_RDWR | O_CLOEXEC);
	return p->memfd < 0 ? -1 : 0;
}

/* ---- launch, kill, detach ---- */

enum {
	PROC_OPTIONS = PTRACE_O_EXITKILL | PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACECLONE |
		       PTRACE_O_TRACEFORK | PTRACE_O_TRACEEXEC |
		       PTRACE_O_TRACEVFORK | PTRACE_O_TRACEVFORKDONE,
};

/* The next stop of pid: 1 if it is the ptrace event ev (0: the signal
 * sig), 0 if another stop, -1 if pid is gone (reaped). */
static int proc_stopped_at(pid_t pid, int ev, int sig)
{
	int status;
	if (proc_waitpid(pid, &status) != pid || !WIFSTOPPED(status))
		return -1;
	return ev ? status >> 8 == (SIGTRAP | ev << 8) : WSTOPSIG(status) == sig;
}

bool proc_sandbox_start(pid_t pid)
{
	struct user_regs_struct r;
	int at = proc_stopped_at(pid, 0, SIGSTOP);
	if (at > 0 && ptrace(PTRACE_SETOPTIONS, pid, 0, PTRACE_O_EXITKILL |
			     PTRACE_O_TRACESECCOMP | PTRACE_O_TRACEEXEC) == 0 &&
	    ptrace(PTRACE_CONT, pid, 0, 0) == 0)
		at = proc_stopped_at(pid, PTRACE_EVENT_SECCOMP, 0);
	if (at > 0 && ptrace(PTRACE_GETREGS, pid, 0, &r) == 0 && r.orig_rax == SYS_execve &&
	    ptrace(PTRACE_CONT, pid, 0, 0) == 0)
		at = proc_stopped_at(pid, PTRACE_EVENT_EXEC, 0);
	else if (at > 0)
		at = 0;
	if (at == 0) {
		int status;
		kill(pid, SIGKILL);
		proc_waitpid(pid, &status);
	}
	return at > 0;
}

struct proc *proc_launch(const struct proc_launch *l, char *err, size_t errlen)
{
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return NULL;
	}
	int cpu = proc_pick_cpu();
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return NULL;
	}
	if (pid == 0) {
		close(pfd[0]);
		proc_child(l, pfd[1], cpu);
	}
	close(pfd[1]);
	bool sandboxed = !l->sandbox || proc_sandbox_start(pid);
	int cerr = 0;
	ssize_t n = read(pfd[0], &cerr, sizeof cerr);
	close(pfd[0]);
	int status;
	if (n == sizeof cerr) {
		proc_waitpid(pid, &status);
		snprintf(err, errlen, "%s: %s", l->path, strerror(cerr));
		return NULL;
	}
	if (!sandboxed) {
		snprintf(err, errlen, "%s: the program did not start in the sandbox", l->path);
		return NULL;
	}
	if (!l->sandbox && (proc_waitpid(pid, &status) < 0 || !WIFSTOPPED(status))) {
		snprintf(err, errlen, "%s: the program did not start under ptrace", l->path);
		return NULL;
	}
	if (l->pin_cpu)
		proc_pin(0, cpu);
	struct proc *p = xcalloc(1, sizeof *p);
	p->pid = pid;
	p->alive = true;
	p->cur = proc_thr_add(p, pid);
	p->event_tid = pid;
	p->sandbox = l->sandbox;
	ptrace(PTRACE_SETOPTIONS, pid, 0, PROC_OPTIONS | (l->sandbox ? PTRACE_O_TRACESECCOMP : 0));
	if (proc_open_mem(p) < 0) {
		snprintf(err, errlen, "cannot open /proc/%d/mem: %s", pid, strerror(errno));
		proc_kill(p);
		return NULL;
	}
	return p;
}

/* The text after key on its line of /proc/PID/status; false if none. */
static bool proc_status_text(pid_t pid, const char *key, char *line, size_t len, char **val)
{
	char path[64];
	bool found = false;
	snprintf(path, sizeof path, "/proc/%d/status", pid);
	FILE *f = fopen(path, "re");
	while (f && !found && fgets(line, (int)len, f))
		found = strncmp(line, key, strlen(key)) == 0;
	if (f)
		fclose(f);
	*val = line + strlen(key);
	return found;
}

long proc_status_field(pid_t pid, const char *key)
{
	char line[256], *val;
	return proc_status_text(pid, key, line, sizeof line, &val) ? strtol(val, NULL, 10) : -1;
}

bool proc_status_mask(pid_t pid, const char *key, uint64_t *mask)
{
	char line[256], *val;
	if (!proc_status_text(pid, key, line, sizeof line, &val))
		return false;
	*mask = strtoull(val, NULL, 16);
	return true;
}

/* Why the kernel refused PTRACE_ATTACH with EPERM, in words a user can act
 * on: another tracer, Yama's ptrace_scope, another owner, or neither. */
static void proc_eperm_reason(pid_t pid, char *err, size_t errlen)
{
	int scope = 0;
	long tracer = proc_status_field(pid, "TracerPid:");
	long uid = proc_status_field(pid, "Uid:");
	FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re");
	if (f) {
		if (fscanf(f, "%d", &scope) != 1)
			scope = 0;
		fclose(f);
	}
	const char *head = "ptrace: Operation not permitted.\n";
	if (tracer > 0)
		snprintf(err, errlen, "%sProcess %d is already traced by process %ld.",
			 head, pid, tracer);
	else if (scope > 0)
		snprintf(err, errlen, "%s/proc/sys/kernel/yama/ptrace_scope is %d: only a "
			 "parent may trace its child%s (as root: echo 0 > "
			 "/proc/sys/kernel/yama/ptrace_scope).", head, scope,
			 scope >= 2 ? ", and only with CAP_SYS_PTRACE" : "");
	else if (uid >= 0 && (uid_t)uid != getuid() && getuid() != 0)
		snprintf(err, errlen, "%sProcess %d belongs to user %ld, not to you.",
			 head, pid, uid);
	else
		snprintf(err, errlen, "%sThe kernel refused: qzdb lacks CAP_SYS_PTRACE "
			 "for process %d (setuid program, other user namespace, or a "
			 "container's security policy).", head, pid);
}

/* The process's other threads, from /proc/PID/task, until a pass finds no
 * new one (a thread may start while we attach; once its creator is traced
 * with TRACECLONE the kernel reports the rest). */
static void proc_attach_threads(struct proc *p)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/task", p->pid);
	for (bool found = true; found;) {
		found = false;
		DIR *d = opendir(path);
		for (struct dirent *e; d && (e = readdir(d));) {
			pid_t tid = (pid_t)atoi(e->d_name);
			int status;
			if (tid <= 0 || proc_thr_find(p, tid))
				continue;
			if (ptrace(PTRACE_ATTACH, tid, 0, 0) < 0 ||
			    proc_waitpid(tid, &status) != tid || !WIFSTOPPED(status))
				continue;
			ptrace(PTRACE_SETOPTIONS, tid, 0, PROC_OPTIONS & ~PTRACE_O_EXITKILL);
			proc_thr_add(p, tid);
			found = true;
		}
		if (d)
			closedir(d);
	}
}

struct proc *proc_attach(pid_t pid, char *err, size_t errlen)
{
	int status;
	if (pid <= 0 || ptrace(PTRACE_ATTACH, pid, 0, 0) < 0) {
		if (pid > 0 && errno == EPERM)
			proc_eperm_reason(pid, err, errlen);
		else
			snprintf(err, errlen, "ptrace: %s.", pid > 0 ? strerror(errno) :
				 "No such process");
		return NULL;
	}
	/* The SIGSTOP of the attach; another signal first stays pending in
	 * the kernel's view only if we pass it on: keep waiting for ours. */
	for (;;) {
		if (proc_waitpid(pid, &status) < 0 || !WIFSTOPPED(status)) {
			snprintf(err, errlen, "ptrace: process %d is gone.", pid);
			return NULL;
		}
		if (WSTOPSIG(status) == SIGSTOP)
			break;
		ptrace(PTRACE_CONT, pid, 0, WSTOPSIG(status));
	}
	struct proc *p = xcalloc(1, sizeof *p);
	p->pid = pid;
	p->alive = true;
	p->cur = proc_thr_add(p, pid);
	p->event_tid = pid;
	/* No PTRACE_O_EXITKILL: an attached process outlives qzdb. */
	ptrace(PTRACE_SETOPTIONS, pid, 0, PROC_OPTIONS & ~PTRACE_O_EXITKILL);
	proc_attach_threads(p);
	if (proc_open_mem(p) < 0) {
		snprintf(err, errlen, "cannot open /proc/%d/mem: %s", pid, strerror(errno));
		proc_detach(p);
		return NULL;
	}
	return p;
}

void proc_set_notify(struct proc *p, const struct proc_notify *n)
{
	p->notify = *n;
}

static void proc_free(struct proc *p)
{
	proc_guard_off(p);
	if (p->memfd >= 0)
		close(p->memfd);
	proc_thr_clear(p);
	free(p->thr);
	free(p->early);
	free(p);
}

/* Reap every traced thread after SIGKILL: the leader's status comes only
 * once the others are reaped. */
void proc_kill(struct proc *p)
{
	if (!p)
		return;
	if (p->alive) {
		kill(p->pid, SIGKILL);
		int status;
		for (size_t i = 0; i < p->nthr; i++)
			if (p->thr[i]->tid != p->pid)
				proc_waitpid(p->thr[i]->tid, &status);
		while (proc_waitpid(p->pid, &status) > 0 &&
		       !WIFEXITED(status) && !WIFSIGNALED(status))
			;
		/* Threads born after our last look die too; reap their statuses. */
		while (waitpid(-1, &status, __WALL | WNOHANG) > 0)
			;
	}
	proc_free(p);
}

/* A debug register left armed would trap the program after we leave it
 * (watchpoints, alter's watched calls): DR7 off, whoever armed them. */
static void proc_clear_dr7(pid_t tid)
{
	ptrace(PTRACE_POKEUSER, tid, offsetof(struct user, u_debugreg[7]), 0);
}

void proc_discard_stops(struct proc *p)
{
	for (size_t i = 0; i < p->nthr; i++)
		if (p->thr[i]->stop_expected) {
			kill(p->pid, SIGCONT);
			return;
		}
}

int proc_detach(struct proc *p)
{
	int r = 0;
	if (p->alive) {
		proc_stop_others(p);
		for (size_t i = 0; i < p->nthr; i++) {
			struct proc_thr *t = p->thr[i];
			proc_flush_regs(t);
			proc_clear_dr7(t->tid);
			int sig = t->has_pending && WSTOPSIG(t->pending) != SIGTRAP ?
				  WSTOPSIG(t->pending) : 0;
			if (ptrace(PTRACE_DETACH, t->tid, 0, (void *)(long)sig) < 0 &&
			    t->tid == p->pid)
				r = -1;
		}
		proc_discard_stops(p);
	}
	proc_free(p);
	return r;
}

pid_t proc_pid(const struct proc *p)
{
	return p->pid;
}

bool proc_alive(const struct proc *p)
{
	return p && p->alive;
}
