/* proc: ptrace process control. One process, one thread for now; later
 * issues add threads, fork and attach. */
#define _GNU_SOURCE
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
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

#include "util.h"

struct proc {
	pid_t pid;
	int memfd;                    /* /proc/PID/mem */
	bool alive;
	bool regs_valid;              /* cache holds this stop's registers */
	bool regs_dirty;              /* cache must be written before resuming */
	struct user_regs_struct regs;
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
	int fd = open(path, O_RDWR);
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
	if (!e) {
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
	int cerr = 0;
	ssize_t n = read(pfd[0], &cerr, sizeof cerr);
	close(pfd[0]);
	int status;
	if (n == sizeof cerr) {
		proc_waitpid(pid, &status);
		snprintf(err, errlen, "%s: %s", l->path, strerror(cerr));
		return NULL;
	}
	if (proc_waitpid(pid, &status) < 0 || !WIFSTOPPED(status)) {
		snprintf(err, errlen, "%s: the program did not start under ptrace", l->path);
		return NULL;
	}
	if (l->pin_cpu)
		proc_pin(0, cpu);
	struct proc *p = xcalloc(1, sizeof *p);
	p->pid = pid;
	p->alive = true;
	ptrace(PTRACE_SETOPTIONS, pid, 0, PTRACE_O_EXITKILL | PTRACE_O_TRACESYSGOOD);
	if (proc_open_mem(p) < 0) {
		snprintf(err, errlen, "cannot open /proc/%d/mem: %s", pid, strerror(errno));
		proc_kill(p);
		return NULL;
	}
	return p;
}

void proc_kill(struct proc *p)
{
	if (!p)
		return;
	if (p->alive) {
		kill(p->pid, SIGKILL);
		int status;
		while (proc_waitpid(p->pid, &status) > 0 &&
		       !WIFEXITED(status) && !WIFSIGNALED(status))
			;
	}
	if (p->memfd >= 0)
		close(p->memfd);
	free(p);
}

int proc_detach(struct proc *p)
{
	int r = 0;
	if (p->alive && p->regs_dirty)
		ptrace(PTRACE_SETREGS, p->pid, 0, &p->regs);
	if (p->alive)
		r = ptrace(PTRACE_DETACH, p->pid, 0, 0);
	if (p->memfd >= 0)
		close(p->memfd);
	free(p);
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

static int proc_flush_regs(struct proc *p)
{
	if (!p->regs_dirty)
		return 0;
	p->regs_dirty = false;
	return (int)ptrace(PTRACE_SETREGS, p->pid, 0, &p->regs);
}

static int proc_resume(struct proc *p, enum __ptrace_request req, int sig)
{
	if (!p->alive)
		return -1;
	proc_flush_regs(p);
	p->regs_valid = false;
	return (int)ptrace(req, p->pid, 0, (void *)(long)sig);
}

int proc_cont(struct proc *p, int sig)
{
	return proc_resume(p, PTRACE_CONT, sig);
}

int proc_step(struct proc *p, int sig)
{
	return proc_resume(p, PTRACE_SINGLESTEP, sig);
}

void proc_wait(struct proc *p, struct proc_stop *st)
{
	int status;
	memset(st, 0, sizeof *st);
	if (proc_waitpid(p->pid, &status) < 0) {
		st->ev = PROC_ERROR;
		p->alive = false;
		return;
	}
	if (WIFEXITED(status)) {
		st->ev = PROC_EXITED;
		st->code = WEXITSTATUS(status);
		p->alive = false;
	} else if (WIFSIGNALED(status)) {
		st->ev = PROC_KILLED;
		st->sig = WTERMSIG(status);
		p->alive = false;
	} else if (WIFSTOPPED(status)) {
		st->sig = WSTOPSIG(status) & 0x7f;
		st->ev = st->sig == SIGTRAP ? PROC_TRAP : PROC_SIGNAL;
	}
}

void proc_interrupt(struct proc *p)
{
	if (p->alive)
		syscall(SYS_tgkill, p->pid, p->pid, SIGSTOP);
}

struct user_regs_struct *proc_regs(struct proc *p)
{
	if (!p->regs_valid && p->alive) {
		if (ptrace(PTRACE_GETREGS, p->pid, 0, &p->regs) == 0)
			p->regs_valid = true;
	}
	return &p->regs;
}

void proc_regs_dirty(struct proc *p)
{
	p->regs_dirty = true;
}

int proc_fpregs(struct proc *p, struct user_fpregs_struct *fp)
{
	return (int)ptrace(PTRACE_GETFPREGS, p->pid, 0, fp);
}

uint64_t proc_pc(struct proc *p)
{
	return proc_regs(p)->rip;
}

void proc_set_pc(struct proc *p, uint64_t pc)
{
	proc_regs(p)->rip = pc;
	p->regs_dirty = true;
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
	return (int)ptrace(PTRACE_GETSIGINFO, p->pid, 0, siginfo);
}
