/* undo-agent: the undo engine's side of the save agent (agent.c starts
 * it, ckpt/agent/agent.c is its code): the runs it lists, read at a sync
 * and checked as hostile data, the messages it forwards, its commands,
 * its end, and the rollback it makes. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "undo-int.h"

/* The agent ended, or said something it could not mean (the program can
 * scribble over it): killed, and qzdb's fault thread reads the
 * userfaultfd from now on. A thread whose fault it read and left is
 * woken to fault again, for qzdb. Its store stays: runs not copied out
 * yet are read from there. (Fault thread.) */
static bool undo_agent_absorb_locked(struct ckpt_undo *u, uint64_t n);

static void undo_agent_gone_locked(struct ckpt_undo *u)
{
	if (!u->agent)
		return;
	struct ckpt_agent *a = u->agent;
	syscall(SYS_pidfd_send_signal, a->pidfd, SIGKILL, NULL, 0);
	u->agent = NULL;   /* (no recursion from what it listed) */
	struct pollfd pf = {a->pidfd, POLLIN, 0};
	poll(&pf, 1, 2000);   /* ended: its list no longer moves */
	u->agent = a;
	undo_agent_absorb_locked(u, UINT64_MAX);   /* what it saved and did not say */
	u->agent = NULL;
	ckpt_agent_free(a);
	u->agent = NULL;
	u->agent_ended = true;
	for (size_t i = 0; i < u->nregd; i++) {
		struct uffdio_range r = {u->regd[i].lo, u->regd[i].hi - u->regd[i].lo};
		ioctl(u->ufd, UFFDIO_WAKE, &r);
	}
	pthread_cond_broadcast(&u->agent_cv);
}

/* It saved n pages at addr (store + off) and released them (or is about
 * to): the pages registered and not saved yet are logged as its runs.
 * False: a run it cannot have made. */
static bool undo_agent_saved_locked(struct ckpt_undo *u, const struct agent_run *r)
{
	uint64_t lo = r->addr, n = r->n, len = u->agent->len;
	if (lo % CKPT_PAGE || !n || n > UNDO_RUN_MAX || lo + n * CKPT_PAGE < lo || r->fill > 1 ||
	    (!r->fill && (r->off % CKPT_PAGE || r->off > len || n * CKPT_PAGE > len - r->off)))
		return false;
	u->faults++;
	if (!u->capture) {   /* (a rollback's own writes: nothing to keep, as
				undo_fault_locked; the agent forgets them at the epoch) */
		undo_span_add(&u->unprot, &u->nunprot, &u->unprotcap, lo, lo + n * CKPT_PAGE);
		return true;
	}
	for (uint64_t i = 0; i < n;) {
		uint64_t j = i;
		while (j < n && undo_regd_at(u, lo + j * CKPT_PAGE) && !undo_saved(u, lo + j * CKPT_PAGE))
			undo_saved_set(u, lo + j++ * CKPT_PAGE);
		if (j == i) {   /* (saved again: still protected after a refused release) */
			i++;
			continue;
		}
		XGROW(u->alog, u->alogcap, u->nalog + 1);
		u->alog[u->nalog++] = (struct agent_run){lo + i * CKPT_PAGE, j - i,
							  r->fill ? 0 : r->off + i * CKPT_PAGE, r->fill, r->word};
		undo_span_add(&u->unprot, &u->nunprot, &u->unprotcap, lo + i * CKPT_PAGE, lo + j * CKPT_PAGE);
		u->pages += j - i;
		u->agent_pages += j - i;
		i = j;
	}
	return true;
}

/* Read the runs it listed since the last time, up to n (UINT64_MAX: as
 * many as its count says), from its list in the program's memory. False
 * if anything there is impossible (then it is killed). */
static bool undo_agent_absorb_locked(struct ckpt_undo *u, uint64_t n)
{
	struct ckpt_agent *a = u->agent;
	if (n == UINT64_MAX) {
		struct iovec l = {&n, sizeof n};
		struct iovec r = {(void *)(a->ctl + offsetof(struct agent_ctl, nruns)), sizeof n};
		if (process_vm_readv(u->pid, &l, 1, &r, 1, 0) != (ssize_t)sizeof n)
			return false;
	}
	if (n > a->maxrecs || n < u->agent_seen)
		return false;
	struct agent_run buf[256];
	while (u->agent_seen < n) {
		uint64_t k = n - u->agent_seen < 256 ? n - u->agent_seen : 256;
		struct iovec l = {buf, k * sizeof *buf};
		struct iovec r = {(void *)(a->recs + u->agent_seen * sizeof *buf), k * sizeof *buf};
		if (process_vm_readv(u->pid, &l, 1, &r, 1, 0) != (ssize_t)(k * sizeof *buf))
			return false;
		for (uint64_t i = 0; i < k; i++)
			if (!undo_agent_saved_locked(u, &buf[i]))
				return false;
		u->agent_seen += k;
	}
	return true;
}

static void undo_agent_rec_locked(struct ckpt_undo *u, const struct agent_rec *r)
{
	if (!u->agent)
		return;
	if (r->kind == AGENT_MSG) {   /* (a fault it left: what it saved first) */
		struct uffd_msg m;
		memcpy(&m, r->msg, sizeof m);
		if (!undo_agent_absorb_locked(u, UINT64_MAX)) {
			undo_agent_gone_locked(u);
			return;
		}
		undo_msg_locked(u, &m);
	} else if ((r->kind == AGENT_SYNCED || r->kind == AGENT_ROLLED) && r->seq <= u->agent_seq) {
		if (r->kind == AGENT_ROLLED)
			u->agent_rolled = r->addr;
		else if (!undo_agent_absorb_locked(u, r->n)) {
			undo_agent_gone_locked(u);
			return;
		}
		u->agent_acked = r->seq;
		pthread_cond_broadcast(&u->agent_cv);
	} else {
		undo_agent_gone_locked(u);
	}
}

/* Read what the agent sent (fault thread): false when it has ended. */
bool undo_agent_read(struct ckpt_undo *u)
{
	for (int k = 0; k < 64; k++) {
		struct agent_rec r;
		ssize_t got = recv(u->agent->sock, &r, sizeof r, MSG_DONTWAIT);
		if (got < 0 && (errno == EAGAIN || errno == EINTR))
			return true;
		undo_lock(u);
		if (got != (ssize_t)sizeof r)
			undo_agent_gone_locked(u);   /* (ended: 0; or a short record) */
		else
			undo_agent_rec_locked(u, &r);
		bool on = u->agent != NULL;
		pthread_mutex_unlock(&u->mu);
		if (!on)
			return false;
	}
	return true;
}

/* Send the agent op and wait for its answer, the lock held (released
 * while waiting). False if it has ended or does not answer within 10
 * seconds (then it is killed: the fault thread takes over). */
bool undo_agent_ask_locked(struct ckpt_undo *u, uint64_t op)
{
	if (!u->agent)
		return false;
	struct agent_cmd c = {op, ++u->agent_seq};
	bool killed = send(u->agent->sock, &c, sizeof c, MSG_NOSIGNAL) != (ssize_t)sizeof c;
	if (killed)
		syscall(SYS_pidfd_send_signal, u->agent->pidfd, SIGKILL, NULL, 0);
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 10;
	while (u->agent && u->agent_acked < c.seq) {
		if (pthread_cond_timedwait(&u->agent_cv, &u->mu, &ts) == ETIMEDOUT && u->agent && !killed) {
			syscall(SYS_pidfd_send_signal, u->agent->pidfd, SIGKILL, NULL, 0);
			killed = true;
			ts.tv_sec += 10;
		}
	}
	return u->agent && u->agent_acked >= c.seq;
}

/* Everything the agent did while the program ran is known here. */
void undo_agent_sync_locked(struct ckpt_undo *u)
{
	if (u->agent && u->agent_ran)
		undo_agent_ask_locked(u, AGENT_SYNC);
	u->agent_ran = false;
}

/* Copy the agent's runs out of its store into the log (a checkpoint's
 * content from now on: qzdb's tree holds it), and let it start again. */
void undo_agent_pull_locked(struct ckpt_undo *u)
{
	undo_agent_sync_locked(u);
	if (!u->nalog)
		return;
	for (size_t i = 0; i < u->nalog; i++)
		if (u->alog[i].fill)
			undo_fill_locked(u, u->alog[i].addr, u->alog[i].n, u->alog[i].word);
		else
			undo_read_locked(u, u->alog[i].addr, u->agent_store + u->alog[i].off, u->alog[i].n,
					 NULL);
	u->nalog = 0;
	u->agent_seen = 0;
	undo_agent_ask_locked(u, AGENT_RESET);
}

bool ckpt_undo_agent_roll(struct ckpt_undo *u)
{
	undo_lock(u);
	undo_agent_sync_locked(u);
	bool ok = u->agent && !u->nchanged && !u->lost;
	if (ok)
		u->agent_seen = 0;
	if (ok && (ok = undo_agent_ask_locked(u, AGENT_ROLL))) {
		if (u->agent_rolled == u->agent->store || u->agent_rolled == u->agent->trash) {
			u->agent_moved += u->agent_rolled != u->agent_store;
			u->agent_store = u->agent_rolled;
		} else {   /* (nonsense: its store is not known any more) */
			syscall(SYS_pidfd_send_signal, u->agent->pidfd, SIGKILL, NULL, 0);
		}
		u->agent_rolls++;
		u->nalog = 0;
	}
	pthread_mutex_unlock(&u->mu);
	return ok;
}

void ckpt_undo_agent_counts(struct ckpt_undo *u, struct sbuf *b)
{
	undo_lock(u);
	if (u->agent)
		sbuf_printf(b, "save agent: pid %d, %llu pages saved in the program, %llu rollbacks by it "
			    "(%llu moving the pages back)\n", (int)u->agent->pid,
			    (unsigned long long)u->agent_pages, (unsigned long long)u->agent_rolls,
			    (unsigned long long)u->agent_moved);
	else if (u->agent_ended)
		sbuf_printf(b, "save agent: ended (%llu pages saved in the program before); qzdb saves\n",
			    (unsigned long long)u->agent_pages);
	pthread_mutex_unlock(&u->mu);
}
