/* agent: the undo engine's save agent, qzdb's side. The agent (its code:
 * ckpt/agent/agent.c) is a task sharing the program's address space,
 * cloned from it by an injected clone(CLONE_VM | CLONE_UNTRACED): not one
 * of its threads (its signals, its threads' list and its wait() do not
 * see it), not traced, running while qzdb holds the program stopped. It
 * reads the userfaultfd and copies pre-images inside the program, where
 * no page is pinned across processes (process_vm_readv/writev's price,
 * what lost to a fork's copy-on-write), and moves them back at a
 * rollback (UFFDIO_MOVE, refused from outside the address space).
 *
 * Its memory, one mapping of the program's [lo, hi) that no checkpoint
 * tracks (ckpt_os_read leaves it out; not inherited by a fork:
 * MADV_DONTFORK; named [anon:qzdb-agent] where the kernel names them):
 * its code, its control area (struct agent_ctl, then its list of runs),
 * its stack, and two stores of AGENT_STORE bytes (reserved, not
 * committed: pages are used as pre-images arrive). It ends when qzdb's
 * end of its command pipe closes (qzdb gone), at SIGKILL (qzdb's, at the
 * end, or its parent thread's death: PR_SET_PDEATHSIG), and whatever it
 * says is checked (undo.c): the program may scribble over its memory. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ckpt-int.h"
#include "ckpt/agent/agent-abi.h"
#include "ckpt/agent/agent-blob.h"
#include "proc/inject.h"

#define AGENT_CODE CKPT_PAGE
#define AGENT_CTL (2ull << 20)          /* the header, then the runs */
#define AGENT_STACK (256ull << 10)
#define AGENT_STORE (1ull << 30)        /* each of the two */
#define AGENT_LEN (AGENT_CODE + AGENT_CTL + AGENT_STACK + 2 * AGENT_STORE)
#ifndef PR_SET_VMA
#define PR_SET_VMA 0x53564d41
#define PR_SET_VMA_ANON_NAME 0
#endif

/* A descriptor of the program's, as qzdb's own (-1 if refused). */
static int agent_getfd(pid_t pid, int64_t fd)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	int mine = pidfd < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, pidfd, (int)fd, 0);
	if (pidfd >= 0)
		close(pidfd);
	return mine;
}

/* A socket pair made in the program (packets: a record a message, and
 * no SIGPIPE for qzdb when the agent is gone): its descriptors there. */
static int agent_socks(struct qz *q, struct ckpt_state *s, int fds[2])
{
	int64_t r;
	int32_t got[2];
	if (ckpt_inject(q, SYS_socketpair, AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, s->argpage, 0, 0,
			&r) < 0 || r < 0 ||
	    proc_read(q->proc, s->argpage, got, sizeof got) < 0)
		return -1;
	fds[0] = got[0];
	fds[1] = got[1];
	return 0;
}

static void agent_close_in(struct qz *q, int fd)
{
	int64_t r;
	if (fd >= 0)
		ckpt_inject(q, SYS_close, (uint64_t)fd, 0, 0, 0, 0, 0, &r);
}

/* Its memory, code in place: lo, or 0. */
static uint64_t agent_map(struct qz *q, struct ckpt_state *s)
{
	int64_t lo, r;
	if (sizeof agent_bin > AGENT_CODE ||
	    ckpt_inject(q, SYS_mmap, 0, AGENT_LEN, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, (uint64_t)-1, 0, &lo) < 0 ||
	    (lo < 0 && lo > -4096))
		return 0;
	static const char name[] = "qzdb-agent";
	if (proc_write(q->proc, (uint64_t)lo, agent_bin, sizeof agent_bin) < 0 ||
	    ckpt_inject(q, SYS_mprotect, (uint64_t)lo, AGENT_CODE, PROT_READ | PROT_EXEC, 0, 0, 0, &r) < 0 ||
	    r < 0 ||
	    ckpt_inject(q, SYS_madvise, (uint64_t)lo, AGENT_LEN, MADV_DONTFORK, 0, 0, 0, &r) < 0 || r < 0) {
		ckpt_inject(q, SYS_munmap, (uint64_t)lo, AGENT_LEN, 0, 0, 0, 0, &r);
		return 0;
	}
	if (proc_write(q->proc, s->argpage, name, sizeof name) == 0)   /* (a name, where the
									   kernel has them) */
		ckpt_inject(q, SYS_prctl, PR_SET_VMA, PR_SET_VMA_ANON_NAME, (uint64_t)lo, AGENT_LEN,
			    s->argpage, 0, &r);
	return (uint64_t)lo;
}

void ckpt_agent_free(struct ckpt_agent *a)
{
	if (!a)
		return;
	if (a->pidfd >= 0) {
		syscall(SYS_pidfd_send_signal, a->pidfd, SIGKILL, NULL, 0);
		struct pollfd pf = {a->pidfd, POLLIN, 0};
		poll(&pf, 1, 2000);   /* (its end: no write of its after this) */
		close(a->pidfd);
	}
	if (a->sock >= 0)
		close(a->sock);
	free(a);
}

/* Start it in the stopped program, the userfaultfd being the program's
 * descriptor ufd (with the API done); NULL where anything is refused
 * (the undo engine then saves from qzdb, as without it). */
struct ckpt_agent *ckpt_agent_start(struct qz *q, int64_t ufd, bool move, bool fill)
{
	struct ckpt_state *s = ckpt_state(q);
	pid_t pid = proc_pid(q->proc);
	int sv[2] = {-1, -1};
	int64_t pm = -1, child = -1;
	struct ckpt_agent *a = NULL;
	if (ckpt_argpage(q, s) < 0)
		return NULL;
	uint64_t lo = agent_map(q, s);
	if (!lo)
		return NULL;
	static const char pmpath[] = "/proc/self/pagemap";
	if (agent_socks(q, s, sv) < 0 ||
	    proc_write(q->proc, s->argpage, pmpath, sizeof pmpath) < 0 ||
	    ckpt_inject(q, SYS_open, s->argpage, O_RDONLY | O_CLOEXEC, 0, 0, 0, 0, &pm) < 0 || pm < 0)
		goto out;
	uint64_t ctl = lo + AGENT_CODE, stack_top = ctl + AGENT_CTL + AGENT_STACK;
	struct agent_ctl c = {
		.magic = AGENT_MAGIC, .ufd = (int32_t)ufd, .cmdfd = sv[0], .recfd = sv[0],
		.pmfd = (int32_t)pm, .store = stack_top, .trash = stack_top + AGENT_STORE,
		.len = AGENT_STORE, .recs = ctl + CKPT_PAGE,
		.maxrecs = (AGENT_CTL - CKPT_PAGE) / sizeof(struct agent_run), .move = move,
		.fill = fill,
	};
	a = xcalloc(1, sizeof *a);
	a->pidfd = -1;
	a->sock = agent_getfd(pid, sv[1]);
	a->lo = lo;
	a->hi = lo + AGENT_LEN;
	a->store = c.store;
	a->trash = c.trash;
	a->len = AGENT_STORE;
	a->ctl = ctl;
	a->recs = c.recs;
	a->maxrecs = c.maxrecs;
	uint64_t args[6] = {CLONE_VM | CLONE_UNTRACED, stack_top, 0, 0, 0, 0};
	if (a->sock < 0 || proc_write(q->proc, ctl, &c, sizeof c) < 0 ||
	    inj_syscall_at(q->proc, lo, ctl, SYS_clone, args, &child) < 0 || child <= 0)
		goto out;
	a->pid = (pid_t)child;
	a->pidfd = (int)syscall(SYS_pidfd_open, a->pid, 0);
out:
	agent_close_in(q, sv[0]);   /* (the agent has its copies) */
	agent_close_in(q, sv[1]);
	agent_close_in(q, (int)pm);
	if (a && a->pidfd >= 0) {
		s->agent_lo = a->lo;
		s->agent_hi = a->hi;
		s->agent_pid = a->pid;
		return a;
	}
	ckpt_agent_free(a);
	int64_t r;
	if (proc_alive(q->proc))
		ckpt_inject(q, SYS_munmap, lo, AGENT_LEN, 0, 0, 0, 0, &r);
	return NULL;
}

/* Its memory out of the program (at the end, the agent gone). */
void ckpt_agent_unmap(struct qz *q, struct ckpt_state *s)
{
	int64_t r;
	if (s->agent_hi && proc_alive(q->proc))
		ckpt_inject(q, SYS_munmap, s->agent_lo, s->agent_hi - s->agent_lo, 0, 0, 0, 0, &r);
	s->agent_lo = s->agent_hi = 0;
}
