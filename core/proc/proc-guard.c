/* proc-guard: an attached program outlives qzdb (no PTRACE_O_EXITKILL),
 * and a qzdb killed with SIGKILL cannot take its int3s out: the program
 * would die of SIGTRAP at the next one it meets (the checkpoint module's
 * on _exit and libc's unmap functions, the user's breakpoints). A guard
 * process forked at attach holds /proc/PID/mem (bound to the program's
 * memory of then: after an exec it writes nowhere) and the read end of a
 * pipe from qzdb, and shares a table with qzdb: the inserted int3s and
 * their original bytes, written before every resume. When qzdb dies its
 * descriptors close before the kernel detaches the program, the guard
 * reads end-of-file and puts back every original byte where an int3 still
 * is. qzdb leaving normally (detach, kill, quit) says so first.
 *
 * Why not debug registers (they need no byte in the program): Linux keeps
 * them armed when the tracer dies or detaches (probed on 6.18: the
 * program dies of SIGTRAP all the same; the flush on detach was reverted
 * upstream), so they would carry the same trap.
 *
 * Left: an int3 met in the microseconds between qzdb's death and the
 * guard's writes still ends the program; a table changed since the last
 * resume (qzdb killed in the middle of a command) is put back as it was
 * at that resume. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc-int.h"
#include "util/util.h"

#define GUARD_MAX 2048                /* int3s kept; more are not guarded */

struct guard_site {
	uint64_t addr;
	uint8_t orig;
};

/* Shared with the guard: two tables, cur the one complete (a qzdb killed
 * while writing the other leaves this one whole). */
struct guard_tab {
	atomic_uint cur;
	uint32_t n[2];
	struct guard_site s[2][GUARD_MAX];
};

struct proc_guard {
	pid_t pid;                    /* the guard */
	int wfd;                      /* qzdb's end of the pipe */
	struct guard_tab *tab;
	uint32_t fill;                /* entries in the table being written */
	void (*list)(void *ctx, struct proc *p);
	void *ctx;
};

static void guard_restore(int memfd, const struct guard_tab *t)
{
	unsigned c = atomic_load(&t->cur) & 1;
	for (uint32_t i = 0; i < t->n[c] && i < GUARD_MAX; i++) {
		const struct guard_site *s = &t->s[c][i];
		uint8_t now;
		if (pread(memfd, &now, 1, (off_t)s->addr) == 1 && now == 0xcc)
			(void)!pwrite(memfd, &s->orig, 1, (off_t)s->addr);
	}
}

/* Close every descriptor but keep (two of them): the guard must not
 * hold qzdb's (a userfaultfd kept open would leave the program's memory
 * write-protected for good; a pipe to qzdb's reader would never end). */
static void guard_close_others(int a, int b)
{
	int lo = a < b ? a : b, hi = a < b ? b : a;
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);   /* dup2 clears it on 0-2 */
	for (int fd = 0; fd < 3; fd++)
		if (fd != lo && fd != hi)
			dup2(null, fd);
	if (null > 2 && null != lo && null != hi)
		close(null);
	if (lo > 3)
		syscall(SYS_close_range, 3u, (unsigned)lo - 1, 0u);
	if (hi > lo + 1)
		syscall(SYS_close_range, (unsigned)lo + 1, (unsigned)hi - 1, 0u);
	syscall(SYS_close_range, (unsigned)hi + 1, ~0u, 0u);
}

static _Noreturn void guard_main(int rfd, int memfd, const struct guard_tab *t)
{
	sigset_t all;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);   /* (SIGKILL still ends it) */
	setsid();   /* out of the terminal's process group: no Ctrl-C, no hangup */
	prctl(PR_SET_NAME, "qzdb-guard");
	guard_close_others(rfd, memfd);
	char c;
	ssize_t r;
	while ((r = read(rfd, &c, 1)) < 0 && errno == EINTR)
		;
	if (r == 0)   /* qzdb is gone without a word */
		guard_restore(memfd, t);
	_exit(0);
}

int proc_guard_on(struct proc *p, void (*list)(void *ctx, struct proc *p), void *ctx)
{
	int pfd[2];
	struct guard_tab *t = mmap(NULL, sizeof *t, PROT_READ | PROT_WRITE,
				   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (t == MAP_FAILED)
		return -1;
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		munmap(t, sizeof *t);
		return -1;
	}
	pid_t pid = fork();
	if (pid == 0)
		guard_main(pfd[0], p->memfd, t);
	close(pfd[0]);
	if (pid < 0) {
		close(pfd[1]);
		munmap(t, sizeof *t);
		return -1;
	}
	struct proc_guard *g = xcalloc(1, sizeof *g);
	*g = (struct proc_guard){pid, pfd[1], t, 0, list, ctx};
	p->guard = g;
	return 0;
}

void proc_guard_put(struct proc *p, uint64_t addr, uint8_t orig)
{
	struct proc_guard *g = p->guard;
	unsigned next = (atomic_load(&g->tab->cur) + 1) & 1;
	if (g->fill < GUARD_MAX)
		g->tab->s[next][g->fill++] = (struct guard_site){addr, orig};
}

/* Before a resume: the int3s in the program now, into the other table,
 * which then becomes the one the guard reads. */
void proc_guard_sync(struct proc *p)
{
	struct proc_guard *g = p->guard;
	unsigned next = (atomic_load(&g->tab->cur) + 1) & 1;
	g->fill = 0;
	g->list(g->ctx, p);
	if (p->over_addr)
		proc_guard_put(p, p->over_addr, p->over_orig);
	g->tab->n[next] = g->fill;
	atomic_store(&g->tab->cur, next);
}

/* qzdb leaves the program itself (its int3s out): the guard ends
 * without writing. */
void proc_guard_off(struct proc *p)
{
	struct proc_guard *g = p->guard;
	if (!g)
		return;
	p->guard = NULL;
	(void)!write(g->wfd, "b", 1);
	close(g->wfd);
	int status;
	while (waitpid(g->pid, &status, 0) < 0 && errno == EINTR)
		;
	munmap(g->tab, sizeof *g->tab);
	free(g);
}
