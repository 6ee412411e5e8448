/* proc: ptrace process control. One process, one thread for now; later
 * issues add threads, fork and attach. */
#define _GNU_SOURCE
#include "proc.h"

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

#include "platform.h"
#include "sandbox.h"
#include "util/util.h"

/* One traced thread. The register cache is per thread: a stop of one thread
 * costs one GETREGS at most, and only for the threads looked at. */
struct proc_thr {
	pid_t tid;
	int num;                      /* gdb's thread number, never reused */
	bool running;
	bool stop_expected;           /* a SIGSTOP we sent has still to arrive */
	bool has_pending;             /* an event kept from a stop-all */
	int pending;                  /* its wait status */
	enum __ptrace_request last_req;
	bool regs_valid;              /* cache holds this stop's registers */
	bool regs_dirty;              /* cache must be written before resuming */
	uint64_t fs_base;             /* the thread pointer, gdb's pthread_t */
	struct user_regs_struct regs;
	bool parked;                  /* moved from its step's SIGTRAP stop to a
	                                 SIGSTOP one (proc_settle): si is the
	                                 siginfo of the stop the user sees */
	siginfo_t si;
};

/* A wait status of a pid we did not know yet (a new thread or child whose
 * first stop came before its parent's event). */
struct proc_early {
	pid_t pid;
	int status;
};

struct proc {
	pid_t pid;
	int memfd;                    /* /proc/PID/mem */
	bool alive;
	struct proc_thr **thr;        /* thr[0] is the leader while it lives */
	size_t nthr, cap;
	struct proc_thr *cur;         /* the selected thread */
	pid_t event_tid;              /* the thread of the last reported stop */
	int next_num;
	bool stepping;                /* last resume stepped cur alone */
	struct proc_early *early;
	size_t nearly, early_cap;
	struct proc_notify notify;
	bool conting;                 /* resumed by proc_cont, not a step */
	/* A single step made by a temporary int3 on the next instruction
	 * (core/proc/platform.c found this instruction kind's trap comes late). */
	uint64_t over_addr;           /* where the int3 is; 0: none planted */
	uint8_t over_orig;            /* the byte it replaced */
	const struct sandbox *sandbox;   /* judges its seccomp stops, or NULL */
	bool sys_stops;               /* proc_cont stops at system calls too */
};

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

static pid_t proc_waitpid(pid_t pid, int *status)
{
	pid_t r;
	do
		r = waitpid(pid, status, __WALL);
	while (r < 0 && errno == EINTR);
	return r;
}

static int proc_open_mem(struct proc *p)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/mem", p->pid);
	p->memfd = open(path, O_RDWR | O_CLOEXEC);
	return p->memfd < 0 ? -1 : 0;
}

/* ---- the thread list ---- */

static struct proc_thr *proc_thr_add(struct proc *p, pid_t tid)
{
	struct proc_thr *t = xcalloc(1, sizeof *t);
	t->tid = tid;
	t->num = ++p->next_num;
	t->last_req = PTRACE_CONT;
	XGROW(p->thr, p->cap, p->nthr + 1);
	p->thr[p->nthr++] = t;
	return t;
}

static struct proc_thr *proc_thr_find(struct proc *p, pid_t tid)
{
	for (size_t i = 0; i < p->nthr; i++)
		if (p->thr[i]->tid == tid)
			return p->thr[i];
	return NULL;
}

static void proc_thr_del(struct proc *p, struct proc_thr *t)
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

static void proc_thr_clear(struct proc *p)
{
	for (size_t i = 0; i < p->nthr; i++)
		free(p->thr[i]);
	p->nthr = 0;
	p->cur = NULL;
}

static void proc_notify_thread(struct proc *p, struct proc_thr *t, bool created)
{
	if (!p->notify.thread)
		return;
	struct proc_thread_info ti = { .tid = t->tid, .num = t->num, .fs_base = t->fs_base };
	p->notify.thread(p->notify.ctx, &ti, created);
}

static int proc_getregs(struct proc_thr *t)
{
	if (t->regs_valid)
		return 0;
	if (ptrace(PTRACE_GETREGS, t->tid, 0, &t->regs) < 0)
		return -1;
	t->regs_valid = true;
	t->fs_base = t->regs.fs_base;
	return 0;
}

static int proc_flush_regs(struct proc_thr *t)
{
	if (!t->regs_dirty)
		return 0;
	t->regs_dirty = false;
	return (int)ptrace(PTRACE_SETREGS, t->tid, 0, &t->regs);
}

/* Resume one stopped thread the way it was last resumed (or as req). */
static int proc_thr_run(struct proc_thr *t, enum __ptrace_request req, int sig)
{
	proc_flush_regs(t);
	t->regs_valid = false;
	t->parked = false;
	t->last_req = req;
	int r = (int)ptrace(req, t->tid, 0, (void *)(long)sig);
	t->running = r == 0;
	return r;
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

/* The sandboxed child's start: its SIGSTOP before the filter (seccomp stops
 * asked for now), the filter's stop at its execve of our program, the only
 * exec let through, and the exec. False when the child died (its error is
 * in the pipe) or strayed (then killed). */
static bool proc_sandbox_start(pid_t pid)
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

/* A field of /proc/PID/status ("TracerPid:", "Uid:"), -1 if unreadable. */
static long proc_status_field(pid_t pid, const char *key)
{
	char path[64], line[256];
	long v = -1;
	snprintf(path, sizeof path, "/proc/%d/status", pid);
	FILE *f = fopen(path, "re");
	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, key, strlen(key)) == 0) {
			v = strtol(line + strlen(key), NULL, 10);
			break;
		}
	if (f)
		fclose(f);
	return v;
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

static void proc_stop_others(struct proc *p);

/* A debug register left armed would trap the program after we leave it
 * (watchpoints, alter's watched calls): DR7 off, whoever armed them. */
static void proc_clear_dr7(pid_t tid)
{
	ptrace(PTRACE_POKEUSER, tid, offsetof(struct user, u_debugreg[7]), 0);
}

/* After detaching: a SIGSTOP we sent and never collected would stop the
 * process for good; SIGCONT discards pending stop signals. */
static void proc_discard_stops(struct proc *p)
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

/* ---- resuming ---- */

void proc_trace_syscalls(struct proc *p, bool on)
{
	p->sys_stops = on;
}

int proc_cont(struct proc *p, int sig)
{
	enum __ptrace_request req = p->sys_stops ? PTRACE_SYSCALL : PTRACE_CONT;
	p->conting = true;
	if (!p->alive || !p->cur)
		return -1;
	p->stepping = false;
	if (p->nthr == 1)
		return proc_thr_run(p->cur, req, sig);
	int r = 0;
	for (size_t i = 0; i < p->nthr; i++) {
		struct proc_thr *t = p->thr[i];
		if (t->running || t->has_pending)
			continue;
		int rr = proc_thr_run(t, req, t == p->cur ? sig : 0);
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

/* The stop after a step over: the int3 comes out, and its trap looks like
 * the single step's (pc on the next instruction). */
static void proc_step_over_done(struct proc *p, struct proc_stop *st)
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
	/* with a signal the step stops at its handler, before the instruction */
	if (!sig && proc_step_over_plant(p))
		return proc_thr_run(p->cur, PTRACE_CONT, 0);
	return proc_thr_run(p->cur, PTRACE_SINGLESTEP, sig);
}

/* ---- waiting ---- */

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
		proc_thr_run(t, p->sys_stops ? PTRACE_SYSCALL : PTRACE_CONT, 0);
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

/* Collect the stop of one thread we sent SIGSTOP to. */
static void proc_collect(struct proc *p, struct proc_thr *u)
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

/* All-stop: once one thread stops for the user, stop the others (SIGSTOP
 * through tgkill) and collect their stops. */
static void proc_stop_others(struct proc *p)
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
				proc_thr_run(p->thr[i], PTRACE_CONT, 0);
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
		proc_thr_run(r, r->last_req, 0);
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
		proc_thr_run(t, t->last_req, 0);
		return false;
	}
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

/* ---- registers and memory of the selected thread ---- */

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
	if (proc_thr_run(t, PTRACE_CONT, 0) < 0)
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

int proc_write(struct proc *p, uint64_t addr, const void *buf, size_t len)
{
	if (!p->alive)
		return -1;
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

/* ---- threads ---- */

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
