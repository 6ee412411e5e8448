/* undo: the undo-log engine's memory side. A checkpoint write-protects
 * the program's writable private memory with a userfaultfd in synchronous
 * mode and copies nothing; the first write to a page after it stops the
 * writing thread in the kernel until qzdb's fault thread (here) has saved
 * the page's old content (its pre-image) and lifted the protection. A
 * rollback writes the pre-images back (undo-roll.c). Memory held is the
 * pre-images of the pages written since, and a checkpoint costs what
 * changed since the last one, not what exists.
 *
 * Why a thread: a faulting thread waits for qzdb while qzdb may be in
 * waitpid for another, and qzdb's own writes (set var, int3s) go through
 * the same protection (made to save first, by proc_set_write_hook).
 * Sequential writers fault once per run, not per page: the run saved on a
 * fault grows fourfold while faults follow on from the last run, up to
 * 16 MiB (a memset of 512 MiB costs about 40 faults instead of 131072;
 * a round trip is about 30 us on an idle machine, and far more on a busy
 * one, where the fault thread waits for its turn on the CPU).
 *
 * Never a hang: qzdb holds the only descriptor (taken with pidfd_getfd;
 * where that is refused the engine is not used), so qzdb gone means the
 * protection gone with it; a page that cannot be read is still released. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <stdio.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "ckpt-int.h"
#include "ckpt/agent/agent-abi.h"
#include "util/kabi.h"
#include "util/sorted.h"

#include "undo-int.h"

/* The lock, ahead of the protector (undo_protector). */
void undo_lock(struct ckpt_undo *u)
{
	atomic_fetch_add(&u->want, 1);
	pthread_mutex_lock(&u->mu);
	atomic_fetch_sub(&u->want, 1);
}

void undo_span_add(struct undo_span **v, size_t *n, size_t *cap, uint64_t lo, uint64_t hi)
{
	if (*n && (*v)[*n - 1].hi == lo) {
		(*v)[*n - 1].hi = hi;
		return;
	}
	XGROW(*v, *cap, *n + 1);
	(*v)[(*n)++] = (struct undo_span){lo, hi};
}

/* The registered span holding a, or NULL. */
const struct undo_span *undo_regd_at(const struct ckpt_undo *u, uint64_t a)
{
	size_t i = SORTED_UPTO(u->regd, u->nregd, hi, a);
	return i < u->nregd && u->regd[i].lo <= a ? &u->regd[i] : NULL;
}

/* Page a's bit in the saved set: its word (NULL if a is not registered
 * or, without make, its span has none saved) and mask. A bitmap per span
 * rather than a hash of pages: a 512 MiB sweep saves 131072 pages, and
 * hashing each cost more than the fault round trips. */
static uint64_t *undo_saved_bit(struct ckpt_undo *u, uint64_t a, bool make, uint64_t *mask)
{
	size_t i = SORTED_UPTO(u->regd, u->nregd, hi, a);
	if (i >= u->nregd || a < u->regd[i].lo || i >= u->nsbits)
		return NULL;
	uint64_t k = (a - u->regd[i].lo) / CKPT_PAGE;
	if (!u->sbits[i] && make)
		u->sbits[i] = xcalloc((size_t)((u->regd[i].hi - u->regd[i].lo) / CKPT_PAGE + 63) / 64,
				      sizeof **u->sbits);
	*mask = 1ull << (k % 64);
	return u->sbits[i] ? &u->sbits[i][k / 64] : NULL;
}

bool undo_saved(struct ckpt_undo *u, uint64_t a)
{
	uint64_t mask, *w = undo_saved_bit(u, a, false, &mask);
	return w && (*w & mask);
}

void undo_saved_set(struct ckpt_undo *u, uint64_t a)
{
	uint64_t mask, *w = undo_saved_bit(u, a, true, &mask);
	if (w)
		*w |= mask;
}

/* A new epoch, or new registered spans: nothing saved. */
static void undo_saved_reset(struct ckpt_undo *u)
{
	for (size_t i = 0; i < u->nsbits; i++)
		free(u->sbits[i]);
	free(u->sbits);
	u->sbits = xcalloc(u->nregd + 1, sizeof *u->sbits);
	u->nsbits = u->nregd;
}

/* [lo, hi) is released (saved, or written by a rollback): not to be
 * protected by the work still pending from the epoch's start. */
static void undo_pend_cut(struct ckpt_undo *u, uint64_t lo, uint64_t hi)
{
	size_t w = 0, n = u->npend;
	struct undo_span tail = {0, 0};
	bool split = false;
	for (size_t i = 0; i < n; i++) {
		struct undo_span sp = u->pend[i];
		if (sp.hi <= lo || hi <= sp.lo) {
			u->pend[w++] = sp;
			continue;
		}
		if (sp.lo < lo)
			u->pend[w++] = (struct undo_span){sp.lo, lo};
		if (hi < sp.hi) {   /* at most one span holds [lo, hi) inside */
			tail = (struct undo_span){hi, sp.hi};
			split = sp.lo < lo;
			if (!split)
				u->pend[w++] = tail;
		}
	}
	u->npend = w;
	if (split) {   /* the second half of a span cut in the middle */
		XGROW(u->pend, u->pendcap, u->npend + 1);
		size_t at = 0;
		while (at < u->npend && u->pend[at].lo < tail.lo)
			at++;
		memmove(&u->pend[at + 1], &u->pend[at], (u->npend - at) * sizeof *u->pend);
		u->pend[at] = tail;
		u->npend++;
	}
}

static bool undo_wp(struct ckpt_undo *u, uint64_t lo, uint64_t hi, bool on);
static void undo_save_regd_locked(struct ckpt_undo *u, uint64_t lo, uint64_t hi,
				  const struct bp_table *mask);

/* Protect the first chunk of pend; false if the kernel refused. */
static bool undo_pend_step(struct ckpt_undo *u)
{
	uint64_t lo = u->pend[0].lo, hi = u->pend[0].hi;
	if (hi - lo > UNDO_PROT_CHUNK)
		hi = lo + UNDO_PROT_CHUNK;
	if (!undo_wp(u, lo, hi, true))
		return false;
	u->pend[0].lo = hi;
	if (u->pend[0].lo == u->pend[0].hi)
		memmove(&u->pend[0], &u->pend[1], --u->npend * sizeof *u->pend);
	return true;
}

/* The kernel refused to protect the first chunk of pend for a second
 * (undo_wp): its pre-images are copied now, while the program is still
 * stopped (as at the checkpoint), and it is left writable; the range is
 * noted for the warning and for maint checkpoint-stats. */
static void undo_pend_copy(struct ckpt_undo *u)
{
	uint64_t lo = u->pend[0].lo, hi = u->pend[0].hi;
	if (hi - lo > UNDO_PROT_CHUNK)
		hi = lo + UNDO_PROT_CHUNK;
	undo_pend_cut(u, lo, hi);
	for (uint64_t a = lo; a < hi; a += CKPT_PAGE)
		u->refused_pages += undo_regd_at(u, a) && !undo_saved(u, a);
	bool known = false;   /* refused again (a later epoch, a grown heap): listed once */
	for (size_t i = 0; i < u->nrefused; i++) {
		struct undo_span *r = &u->refused[i];
		if (r->lo <= hi && lo <= r->hi) {
			r->lo = lo < r->lo ? lo : r->lo;
			r->hi = hi > r->hi ? hi : r->hi;
			known = true;
		}
	}
	if (!known)
		undo_span_add(&u->refused, &u->nrefused, &u->refusedcap, lo, hi);
	u->copying = true;   /* (pending protection: writable, or released at a fault) */
	undo_save_regd_locked(u, lo, hi, NULL);   /* (without capture: a rollback
						      writes it, nothing to keep) */
	u->copying = false;
}

/* Say which ranges the kernel refused to protect since the last time. */
static void undo_say_refused(struct ckpt_undo *u)
{
	if (u->refused_said == u->nrefused || !u->q)
		return;
	const struct undo_span *r = &u->refused[u->refused_said];
	size_t more = u->nrefused - u->refused_said - 1;
	qz_warn(u->q, "the kernel refused to write-protect 0x%llx-0x%llx%s for a second: "
		"copied now instead (maint checkpoint-stats lists the ranges).",
		(unsigned long long)r->lo, (unsigned long long)r->hi,
		more ? " and other ranges" : "");
	u->refused_said = u->nrefused;
}

/* Finish the pending protection (qzdb's thread, before the program runs
 * or another checkpoint or rollback starts). */
void ckpt_undo_flush(struct ckpt_undo *u)
{
	undo_lock(u);
	uint64_t t0 = u->npend ? ckpt_now_ns() : 0;
	bool refused = false;   /* once refused for a second, the rest is copied
				   without waiting a second a chunk */
	while (u->npend)
		if (refused || !undo_pend_step(u)) {
			refused = true;
			undo_pend_copy(u);
		}
	if (t0)
		u->prot_wait_ns += ckpt_now_ns() - t0;
	undo_say_refused(u);
	pthread_mutex_unlock(&u->mu);
}

/* The protector: protects pend a chunk at a time while the program is
 * stopped, so that a checkpoint or rollback returns without waiting for
 * it (the kernel's page-table work: about 10 ms for 512 MiB); qzdb's
 * thread finishes what is left before the program runs. Between chunks
 * it lets any thread waiting for the lock go first (a write of qzdb's, a
 * fault, a resume). Not the fault thread: that one must stay free to
 * read the kernel's events. (Not SCHED_IDLE: on a busy machine a
 * starved protector holding the lock held qzdb up for a second.) */
static void *undo_protector(void *arg)
{
	struct ckpt_undo *u = arg;
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	for (;;) {
		struct pollfd pf[2] = {{u->evfd, POLLIN, 0}, {u->workfd, POLLIN, 0}};
		uint64_t n;
		if (poll(pf, 2, -1) < 0 && errno != EINTR)
			break;
		if (pf[0].revents)
			break;
		if (pf[1].revents && read(u->workfd, &n, sizeof n) < 0 && errno != EAGAIN)
			break;
		for (bool more = true; more;) {
			pthread_mutex_lock(&u->mu);
			uint64_t t0 = ckpt_now_ns();
			more = u->npend && !atomic_load(&u->ending) && undo_pend_step(u);
			u->prot_bg_ns += ckpt_now_ns() - t0;
			pthread_mutex_unlock(&u->mu);
			while (more && atomic_load(&u->want))
				sched_yield();
		}
	}
	return NULL;
}

/* Protect or release [lo, hi). The kernel refuses (EAGAIN) while an unmap
 * event is unread: the fault thread reads events outside the lock, so
 * from qzdb's thread a retry soon succeeds; on the fault thread itself
 * the release waits in retry (a faulting thread waits until it comes). */
static bool undo_wp(struct ckpt_undo *u, uint64_t lo, uint64_t hi, bool on)
{
	struct uffdio_writeprotect wp = {{lo, hi - lo}, on ? UFFDIO_WRITEPROTECT_MODE_WP : 0};
	bool fault_thread = u->thr_on && pthread_equal(pthread_self(), u->thr);
	if (!on)
		undo_pend_cut(u, lo, hi);
	else if (u->refuse_test)
		return false;   /* as after a second of EAGAIN */
	for (int tries = 0; ioctl(u->ufd, UFFDIO_WRITEPROTECT, &wp) < 0 && errno == EAGAIN; tries++) {
		if (fault_thread || tries > 20000) {
			if (!on)
				undo_span_add(&u->retry, &u->nretry, &u->retrycap, lo, hi);
			return false;
		}
		usleep(50);
	}
	return true;
}

/* The releases the kernel refused (fault thread, lock held). */
static void undo_retry_locked(struct ckpt_undo *u)
{
	size_t n = u->nretry;
	struct undo_span *v = u->retry;
	u->retry = NULL;
	u->nretry = u->retrycap = 0;
	for (size_t i = 0; i < n; i++)
		undo_wp(u, v[i].lo, v[i].hi, false);
	free(v);
}

/* Page a's pre-image is lost to the checkpoints (counted, and where). */
static void undo_lost_page(struct ckpt_undo *u, uint64_t a)
{
	u->lost++;
	undo_span_add(&u->lostv, &u->nlostv, &u->lostvcap, a, a + CKPT_PAGE);
}

/* Log page a's pre-image b (the log is in fault order). */
static void undo_log_page(struct ckpt_undo *u, uint64_t a, struct ckpt_blob *b)
{
	XGROW(u->log, u->logcap, u->nlog + 1);
	u->log[u->nlog++] = (struct ckpt_page){a, b};
	undo_saved_set(u, a);
}

/* Copy n pages from src (lo's pre-images: lo itself, or the agent's
 * store) into slab blobs, as they are (one read). */
static void undo_copy_pages(struct ckpt_undo *u, uint64_t lo, uint64_t src, size_t n,
			    const struct bp_table *mask)
{
	struct ckpt_blob **b = xmalloc(n * sizeof *b);
	ckpt_blobs_alloc_as(n, b, true);
	struct iovec loc = {b[0]->data, n * CKPT_PAGE}, rem = {(void *)src, n * CKPT_PAGE};
	bool one_slab = n == 1 || b[0]->slab;
	ssize_t got = one_slab ? process_vm_readv(u->pid, &loc, 1, &rem, 1, 0) : -1;
	for (size_t i = 0; got != (ssize_t)(n * CKPT_PAGE) && i < n; i++) {
		struct iovec l1 = {b[i]->data, CKPT_PAGE}, r1 = {(void *)(src + i * CKPT_PAGE), CKPT_PAGE};
		if (process_vm_readv(u->pid, &l1, 1, &r1, 1, 0) != (ssize_t)CKPT_PAGE)
			undo_lost_page(u, lo + i * CKPT_PAGE);   /* still released below */
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t a = lo + i * CKPT_PAGE;
		if (mask)
			bp_mask(mask, a, b[i]->data, CKPT_PAGE);
		undo_log_page(u, a, b[i]);
	}
	free(b);
}

/* Read n pages (at most UNDO_PROBE) of lo's pre-images from src through
 * the scratch buffer: those repeating one word are logged as that word
 * (no copy kept), the others copied into blobs. Returns how many
 * repeated a word. */
static size_t undo_probe_pages(struct ckpt_undo *u, uint64_t lo, uint64_t src, size_t n,
			       const struct bp_table *mask)
{
	struct ckpt_blob *b[UNDO_PROBE], *other[UNDO_PROBE];
	size_t at[UNDO_PROBE], nother = 0, same = 0;
	struct iovec loc = {u->scratch, n * CKPT_PAGE}, rem = {(void *)src, n * CKPT_PAGE};
	ssize_t got = process_vm_readv(u->pid, &loc, 1, &rem, 1, 0);
	for (size_t i = 0; got != (ssize_t)(n * CKPT_PAGE) && i < n; i++) {
		struct iovec l1 = {u->scratch + i * CKPT_PAGE, CKPT_PAGE};
		struct iovec r1 = {(void *)(src + i * CKPT_PAGE), CKPT_PAGE};
		if (process_vm_readv(u->pid, &l1, 1, &r1, 1, 0) != (ssize_t)CKPT_PAGE) {
			memset(l1.iov_base, 0, CKPT_PAGE);
			undo_lost_page(u, lo + i * CKPT_PAGE);   /* still released */
		}
	}
	for (size_t i = 0; i < n; i++) {
		uint8_t *p = u->scratch + i * CKPT_PAGE;
		uint64_t word;
		if (mask)
			bp_mask(mask, lo + i * CKPT_PAGE, p, CKPT_PAGE);
		b[i] = !u->no_fill && ckpt_page_fill(p, &word) ? ckpt_blob_fill(word) : NULL;
		if (b[i])
			same++;
		else
			at[nother++] = i;
	}
	if (nother)
		ckpt_blobs_alloc_as(nother, other, true);
	for (size_t k = 0; k < nother; k++) {
		memcpy(other[k]->data, u->scratch + at[k] * CKPT_PAGE, CKPT_PAGE);
		b[at[k]] = other[k];
	}
	for (size_t i = 0; i < n; i++)
		undo_log_page(u, lo + i * CKPT_PAGE, b[i]);
	u->fills += same;
	return same;
}

/* Save [lo, hi) (pages not saved yet, all of them registered) and let it
 * be written; mask hides int3s in the copies (NULL: none can be there).
 * Read through the scratch buffer while most pages repeat one word (no
 * memory allocated for them); the rest of a run that does not, copied
 * straight into a slab (the extra copy through the scratch buffer would
 * only cost there). */
void undo_fill_locked(struct ckpt_undo *u, uint64_t lo, size_t n, uint64_t word)
{
	for (size_t i = 0; i < n; i++) {
		struct ckpt_blob *b = ckpt_blob_fill(word);
		if (!b) {   /* (the table of words full: a page of it) */
			ckpt_blobs_alloc_as(1, &b, true);
			for (size_t k = 0; k < CKPT_PAGE / 8; k++)
				memcpy(b->data + k * 8, &word, 8);
		} else {
			u->fills++;
		}
		undo_log_page(u, lo + i * CKPT_PAGE, b);
	}
}

void undo_read_locked(struct ckpt_undo *u, uint64_t lo, uint64_t src, size_t n,
			     const struct bp_table *mask)
{
	size_t done = 0;
	for (bool fills = true; fills && done < n;) {
		size_t k = n - done < UNDO_PROBE ? n - done : UNDO_PROBE;
		fills = undo_probe_pages(u, lo + done * CKPT_PAGE, src + done * CKPT_PAGE, k, mask) * 2 >= k;
		done += k;
	}
	if (done < n)
		undo_copy_pages(u, lo + done * CKPT_PAGE, src + done * CKPT_PAGE, n - done, mask);
}

static void undo_save_locked(struct ckpt_undo *u, uint64_t lo, uint64_t hi,
			     const struct bp_table *mask)
{
	uint64_t t0 = ckpt_now_ns();
	size_t n = (size_t)((hi - lo) / CKPT_PAGE);
	undo_read_locked(u, lo, lo, n, mask);
	u->pages += n;
	undo_span_add(&u->unprot, &u->nunprot, &u->unprotcap, lo, hi);
	if (!u->copying)
		undo_wp(u, lo, hi, false);
	u->save_ns += ckpt_now_ns() - t0;
}

/* The run to save for a fault at page a: four times the last while
 * faults follow on from it (up or down), one page otherwise. */
static void undo_fault_locked(struct ckpt_undo *u, uint64_t a)
{
	const struct undo_span *sp = undo_regd_at(u, a);
	u->faults++;
	if (!u->capture || !sp || undo_saved(u, a)) {
		undo_wp(u, a, a + CKPT_PAGE, false);   /* releases the thread */
		if (sp)
			undo_span_add(&u->unprot, &u->nunprot, &u->unprotcap, a, a + CKPT_PAGE);
		return;
	}
	bool up = a == u->run_hi, down = a + CKPT_PAGE == u->run_lo;
	size_t want = up || down ? u->run_len * UNDO_RUN_GROW : 1;
	want = want < UNDO_RUN_MAX ? want : UNDO_RUN_MAX;
	uint64_t lo = a, hi = a + CKPT_PAGE;
	for (size_t k = 1; k < want; k++) {
		if (!down && hi < sp->hi && !undo_saved(u, hi))
			hi += CKPT_PAGE;
		else if (down && lo > sp->lo && !undo_saved(u, lo - CKPT_PAGE))
			lo -= CKPT_PAGE;
		else
			break;
	}
	u->run_lo = lo;
	u->run_hi = hi;
	u->run_len = (size_t)((hi - lo) / CKPT_PAGE);
	undo_save_locked(u, lo, hi, NULL);
}

/* The program unmapped or dropped [lo, hi): pages of it not saved first
 * (a system call qzdb did not see coming) are lost to the checkpoints. */
static void undo_gone_locked(struct ckpt_undo *u, uint64_t lo, uint64_t hi)
{
	undo_span_add(&u->changed, &u->nchanged, &u->changedcap, lo, hi);
	for (size_t i = 0; u->capture && i < u->nregd; i++) {
		uint64_t a = lo > u->regd[i].lo ? lo : u->regd[i].lo;
		uint64_t e = hi < u->regd[i].hi ? hi : u->regd[i].hi;
		for (; a < e; a += CKPT_PAGE)
			if (!undo_saved(u, a))
				undo_lost_page(u, a);
	}
}

void undo_msg_locked(struct ckpt_undo *u, const struct uffd_msg *m)
{
	if (m->event == UFFD_EVENT_PAGEFAULT)
		undo_fault_locked(u, m->arg.pagefault.address & ~(CKPT_PAGE - 1));
	else if (m->event == UFFD_EVENT_UNMAP || m->event == UFFD_EVENT_REMOVE)
		undo_gone_locked(u, m->arg.remove.start, m->arg.remove.end);
}

static void undo_msg(struct ckpt_undo *u, const struct uffd_msg *m)
{
	undo_lock(u);
	undo_msg_locked(u, m);
	pthread_mutex_unlock(&u->mu);
}

static void *undo_thread(void *arg)
{
	struct ckpt_undo *u = arg;
	struct uffd_msg msgs[16];
	sigset_t all;
	sigfillset(&all);   /* qzdb's signals are the main thread's (its waits) */
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	for (;;) {
		struct pollfd pf[2] = {{u->agent ? u->agent->sock : u->ufd, POLLIN, 0}, {u->evfd, POLLIN, 0}};
		if (poll(pf, 2, u->nretry ? 1 : -1) < 0 && errno != EINTR)
			break;
		if (pf[1].revents)
			break;
		if (u->agent) {   /* (the agent reads the userfaultfd) */
			if (pf[0].revents)
				undo_agent_read(u);
			undo_lock(u);
			if (u->nretry)
				undo_retry_locked(u);
			pthread_mutex_unlock(&u->mu);
			continue;
		}
		ssize_t got = read(u->ufd, msgs, sizeof msgs);
		for (ssize_t i = 0; i < got / (ssize_t)sizeof *msgs; i++)
			undo_msg(u, &msgs[i]);
		if (got < 0 && errno != EAGAIN && errno != EINTR)
			break;
		undo_lock(u);
		if (u->nretry)
			undo_retry_locked(u);
		pthread_mutex_unlock(&u->mu);
	}
	return NULL;
}

/* qzdb writes the program's memory (proc_write): save first. */
static void undo_before_write(void *ctx, uint64_t addr, size_t len)
{
	struct ckpt_undo *u = ctx;
	uint64_t lo = addr & ~(CKPT_PAGE - 1), hi = (addr + len + CKPT_PAGE - 1) & ~(CKPT_PAGE - 1);
	undo_lock(u);
	undo_agent_sync_locked(u);
	for (uint64_t a = lo; a < hi; a += CKPT_PAGE) {
		if (!undo_regd_at(u, a) || undo_saved(u, a))
			continue;
		if (u->capture) {
			undo_save_locked(u, a, a + CKPT_PAGE, NULL);
		} else {   /* a rollback's own write (a system call's code): let it */
			undo_wp(u, a, a + CKPT_PAGE, false);
			undo_span_add(&u->unprot, &u->nunprot, &u->unprotcap, a, a + CKPT_PAGE);
		}
	}
	pthread_mutex_unlock(&u->mu);
}

static void undo_before_run(void *ctx)
{
	struct ckpt_undo *u = ctx;
	ckpt_undo_flush(u);
	u->agent_ran = true;   /* (qzdb's thread alone reads and clears it) */
}

/* Save the unsaved pages of one registered span's part [lo, hi). */
static void undo_save_span_locked(struct ckpt_undo *u, uint64_t lo, uint64_t hi,
				  const struct bp_table *mask)
{
	for (uint64_t a = lo; a < hi;) {
		if (undo_saved(u, a)) {
			a += CKPT_PAGE;
			continue;
		}
		uint64_t e = a + CKPT_PAGE;
		while (e < hi && !undo_saved(u, e) && e - a < UNDO_RUN_MAX * CKPT_PAGE)
			e += CKPT_PAGE;
		undo_save_locked(u, a, e, mask);
		a = e;
	}
}

/* Save the unsaved registered pages of [lo, hi): by the registered spans,
 * so that a wild length costs nothing and no page outside them is logged. */
static void undo_save_regd_locked(struct ckpt_undo *u, uint64_t lo, uint64_t hi,
				  const struct bp_table *mask)
{
	for (size_t i = 0; u->capture && i < u->nregd; i++) {
		uint64_t a = lo > u->regd[i].lo ? lo : u->regd[i].lo;
		uint64_t e = hi < u->regd[i].hi ? hi : u->regd[i].hi;
		if (a < e)
			undo_save_span_locked(u, a, e, mask);
	}
}

int ckpt_undo_save(struct ckpt_undo *u, uint64_t lo, uint64_t hi, const struct bp_table *mask)
{
	undo_lock(u);
	undo_agent_sync_locked(u);   /* (what the agent saved is saved) */
	undo_save_regd_locked(u, lo & ~(CKPT_PAGE - 1), hi, mask);
	pthread_mutex_unlock(&u->mu);
	return 0;
}

static int undo_page_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct ckpt_page *)a)->addr, y = ((const struct ckpt_page *)b)->addr;
	return x < y ? -1 : x > y;
}

void ckpt_undo_seal(struct ckpt_undo *u, struct ckpt *c)
{
	undo_lock(u);
	undo_agent_pull_locked(u);
	size_t k = 1;
	while (k < u->nlog && u->log[k - 1].addr < u->log[k].addr)
		k++;
	if (k < u->nlog)   /* (a forward sweep logs in order) */
		qsort(u->log, u->nlog, sizeof *u->log, undo_page_cmp);
	struct ckpt_page *m = xmalloc((c->npages + u->nlog + 1) * sizeof *m);
	size_t i = 0, j = 0, n = 0;
	while (i < c->npages || j < u->nlog)
		m[n++] = j >= u->nlog || (i < c->npages && c->pages[i].addr < u->log[j].addr)
				 ? c->pages[i++] : u->log[j++];
	free(c->pages);
	c->pages = m;
	c->npages = n;
	c->ndata += u->nlog;
	u->nlog = 0;
	pthread_mutex_unlock(&u->mu);
}

static bool undo_span_in(const struct undo_span *v, size_t n, uint64_t lo, uint64_t hi)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].lo == lo && v[i].hi == hi)
			return true;
	return false;
}

static bool undo_span_meets(const struct undo_span *v, size_t n, uint64_t lo, uint64_t hi)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].lo < hi && lo < v[i].hi)
			return true;
	return false;
}

static int undo_span_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct undo_span *)a)->lo, y = ((const struct undo_span *)b)->lo;
	return x < y ? -1 : x > y;
}

/* Sort and join overlapping or touching spans (each protected once). */
static size_t undo_spans_merge(struct undo_span *v, size_t n)
{
	size_t w = 0;
	if (n < 2)   /* v may be NULL when n is 0: qsort's argument must not */
		return n;
	qsort(v, n, sizeof *v, undo_span_cmp);
	for (size_t i = 0; i < n; i++) {
		if (w && v[i].lo <= v[w - 1].hi) {
			if (v[i].hi > v[w - 1].hi)
				v[w - 1].hi = v[i].hi;
		} else {
			v[w++] = v[i];
		}
	}
	return w;
}

int undo_register(struct ckpt_undo *u, uint64_t lo, uint64_t hi)
{
	struct uffdio_register reg = {{lo, hi - lo}, UFFDIO_REGISTER_MODE_WP, 0};
	return ioctl(u->ufd, UFFDIO_REGISTER, &reg) == 0 ? 0 : -1;
}

/* Anonymous memory only: the kernel's synchronous write-protect takes
 * no private file mapping (a program's and its libraries' .data). */
static bool undo_map_anon(const struct ckpt_map *m)
{
	return !m->path || m->path[0] == '[';
}

/* Register the maps not registered as they are; they are protected
 * whole (into prot), the others keep their protection. The maps that
 * cannot be registered go to shadow (ckpt_shadow_take). */
static void undo_maps_locked(struct ckpt_undo *u, struct ckpt_state *s, const struct ckpt_os *os,
			     bool full, struct undo_span **prot, size_t *np, size_t *pcap,
			     struct ckpt_addrs *shadow)
{
	struct undo_span *nr = NULL;
	size_t nn = 0, cap = 0;
	for (size_t i = 0; i < os->nmaps; i++) {
		const struct ckpt_map *m = &os->maps[i];
		if (!ckpt_map_tracked(s, m))
			continue;
		bool known = undo_span_in(u->regd, u->nregd, m->lo, m->hi) &&
			     !undo_span_meets(u->changed, u->nchanged, m->lo, m->hi);
		if (!undo_map_anon(m) || (!known && undo_register(u, m->lo, m->hi) < 0)) {
			for (uint64_t a = m->lo; a < m->hi; a += CKPT_PAGE)
				ckpt_addrs_add(shadow, a);
			continue;
		}
		if (!known || full)
			undo_span_add(prot, np, pcap, m->lo, m->hi);
		XGROW(nr, cap, nn + 1);
		nr[nn++] = (struct undo_span){m->lo, m->hi};
	}
	free(u->regd);
	u->regd = nr;
	u->nregd = nn;
	undo_saved_reset(u);   /* (the epoch starts with nothing saved) */
}

void ckpt_undo_epoch(struct ckpt_undo *u, struct ckpt_state *s, const struct ckpt_os *os, bool full,
		     struct ckpt_addrs *shadow)
{
	struct undo_span *prot = NULL;
	size_t np = 0, pcap = 0;
	undo_lock(u);
	if (u->agent) {   /* what it saved since the seal (a rollback's writes) is not kept */
		undo_agent_sync_locked(u);
		u->agent_seen = 0;
		undo_agent_ask_locked(u, AGENT_RESET);
	}
	u->nalog = 0;
	undo_maps_locked(u, s, os, full, &prot, &np, &pcap, shadow);
	for (size_t i = 0; !full && i < u->nunprot; i++)
		if (undo_regd_at(u, u->unprot[i].lo))
			undo_span_add(&prot, &np, &pcap, u->unprot[i].lo, u->unprot[i].hi);
	for (size_t i = 0; i < u->npend; i++)   /* (none: flushed before a checkpoint) */
		undo_span_add(&prot, &np, &pcap, u->pend[i].lo, u->pend[i].hi);
	np = undo_spans_merge(prot, np);
	free(u->pend);
	u->pend = prot;   /* protected by the fault thread, or before the program runs */
	u->npend = np;
	u->pendcap = pcap;
	prot = NULL;
	u->nunprot = u->nchanged = 0;
	u->run_lo = u->run_hi = 0;
	u->capture = true;
	pthread_mutex_unlock(&u->mu);
}

/* Start the protector on what the epoch left pending: at the end of the
 * checkpoint or rollback command, so that on a shared CPU it does not
 * hold up the command itself. (Without it, all is done before the
 * program runs.) */
void ckpt_undo_kick(struct ckpt_undo *u)
{
	uint64_t one = 1;
	if (u->prot_on && write(u->workfd, &one, sizeof one) < 0)
		ckpt_undo_flush(u);
}

/* Pre-images found by other means (the shadow's), into the log. */
void ckpt_undo_log(struct ckpt_undo *u, uint64_t addr, struct ckpt_blob *b)
{
	undo_lock(u);
	XGROW(u->log, u->logcap, u->nlog + 1);
	u->log[u->nlog++] = (struct ckpt_page){addr, b};
	pthread_mutex_unlock(&u->mu);
}

void ckpt_undo_release(struct ckpt_undo *u, const struct ckpt_addrs *pages)
{
	undo_lock(u);
	undo_agent_sync_locked(u);
	u->capture = false;
	for (size_t i = 0; i < pages->n;) {
		if (undo_saved(u, pages->a[i])) {   /* writable already */
			i++;
			continue;
		}
		size_t j = i + 1;
		while (j < pages->n && pages->a[j] == pages->a[j - 1] + CKPT_PAGE &&
		       !undo_saved(u, pages->a[j]))
			j++;
		uint64_t lo = pages->a[i], hi = pages->a[j - 1] + CKPT_PAGE;
		undo_wp(u, lo, hi, false);   /* (the parts not registered refuse) */
		undo_span_add(&u->unprot, &u->nunprot, &u->unprotcap, lo, hi);
		i = j;
	}
	pthread_mutex_unlock(&u->mu);
}

/* Spans for a message: "0x..-0x.., 0x..-0x.." (the first 8, then how many more). */
static void undo_spans_say(struct sbuf *b, const struct undo_span *v, size_t n)
{
	for (size_t i = 0; i < n && i < 8; i++)
		sbuf_printf(b, "%s0x%llx-0x%llx", i ? ", " : "", (unsigned long long)v[i].lo,
			    (unsigned long long)v[i].hi);
	if (n > 8)
		sbuf_printf(b, " and %zu more ranges", n - 8);
}

uint64_t ckpt_undo_lost(struct ckpt_undo *u, bool clear, struct sbuf *where)
{
	undo_lock(u);
	uint64_t n = u->lost;
	if (where)
		undo_spans_say(where, u->lostv, u->nlostv);
	if (clear)
		u->lost = u->nlostv = 0;
	pthread_mutex_unlock(&u->mu);
	return n;
}

void ckpt_undo_counts(struct ckpt_undo *u, struct ckpt_undo_stats *st)
{
	undo_lock(u);
	st->faults = u->faults;
	st->pages = u->pages;
	st->fills = u->fills;
	st->save_ns = u->save_ns;
	st->prot_bg_ns = u->prot_bg_ns;
	st->prot_wait_ns = u->prot_wait_ns;
	st->refused_pages = u->refused_pages;
	st->nrefused = u->nrefused;
	sbuf_reset(&st->refused);
	undo_spans_say(&st->refused, u->refused, u->nrefused);
	pthread_mutex_unlock(&u->mu);
}

/* Does the program run under a seccomp filter (a replay's sandbox)? It
 * may refuse or punish the call: not tried there (nor when unreadable). */
static bool undo_filtered(pid_t pid)
{
	return proc_status_field(pid, "Seccomp:") != 0;
}

/* A userfaultfd made in the program (by an injected call), one that also
 * takes the kernel's own writes (read() into a buffer): not user-mode-only,
 * so it needs privilege (vm.unprivileged_userfaultfd, CAP_SYS_PTRACE).
 * With agent, the save agent is started on it before the program's
 * descriptor is closed (*agent: NULL where refused). */
static int undo_open_fd(struct qz *q, bool agent, bool fill, struct ckpt_agent **out)
{
	int64_t fd, r;
	*out = NULL;
	if (undo_filtered(proc_pid(q->proc)))
		return -1;
	if (ckpt_inject(q, SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK, 0, 0, 0, 0, 0, &fd) < 0 || fd < 0)
		return -1;
	int pidfd = (int)syscall(SYS_pidfd_open, proc_pid(q->proc), 0);
	int mine = pidfd < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, pidfd, (int)fd, 0);
	if (pidfd >= 0)
		close(pidfd);
	uint64_t want = UFFD_FEATURE_PAGEFAULT_FLAG_WP | KABI_UFFD_FEATURE_WP_UNPOPULATED |
			UFFD_FEATURE_EVENT_UNMAP | UFFD_FEATURE_EVENT_REMOVE;
	struct uffdio_api api = {UFFD_API, want | (agent ? KABI_UFFD_FEATURE_MOVE : 0), 0};
	if (mine >= 0 && ioctl(mine, UFFDIO_API, &api) != 0) {
		close(mine);
		mine = -1;
	}
	if (mine >= 0 && agent)
		*out = ckpt_agent_start(q, fd, true, fill);
	ckpt_inject(q, SYS_close, (uint64_t)fd, 0, 0, 0, 0, 0, &r);
	return mine;
}

/* The agent's stores registered, so that UFFDIO_MOVE takes them. */
static bool undo_agent_register(struct ckpt_undo *u, struct ckpt_agent *a)
{
	return undo_register(u, a->store, a->store + a->len) == 0 &&
	       undo_register(u, a->trash, a->trash + a->len) == 0;
}

struct ckpt_undo *ckpt_undo_new(struct qz *q, bool background, bool refuse_test, bool no_fill,
				bool agent)
{
	struct ckpt_agent *a;
	int fd = undo_open_fd(q, agent, !no_fill, &a);
	if (fd < 0 && agent)   /* (a kernel without UFFDIO_MOVE refuses the feature) */
		fd = undo_open_fd(q, false, false, &a);
	if (fd < 0)
		return NULL;
	struct ckpt_undo *u = xcalloc(1, sizeof *u);
	u->ufd = fd;
	u->pid = proc_pid(q->proc);
	u->q = q;
	u->refuse_test = refuse_test;
	u->no_fill = no_fill;
	u->evfd = eventfd(0, EFD_CLOEXEC);
	u->workfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	u->scratch = aligned_alloc(CKPT_PAGE, UNDO_PROBE * CKPT_PAGE);
	pthread_mutex_init(&u->mu, NULL);
	pthread_cond_init(&u->agent_cv, NULL);
	if (a && !undo_agent_register(u, a)) {
		ckpt_agent_free(a);
		a = NULL;
	}
	u->agent = a;
	u->agent_store = a ? a->store : 0;
	if (!u->scratch || u->evfd < 0 || u->workfd < 0 || pthread_create(&u->thr, NULL, undo_thread, u) != 0) {
		ckpt_undo_free(u, NULL);
		return NULL;
	}
	u->thr_on = true;
	u->prot_on = background && pthread_create(&u->prot_thr, NULL, undo_protector, u) == 0;
	proc_set_write_hook(q->proc, undo_before_write, u);
	proc_set_run_hook(q->proc, undo_before_run, u);
	return u;
}

/* Closing qzdb's descriptor ends the protection: the kernel lifts it
 * and wakes any thread still waiting. */
void ckpt_undo_free(struct ckpt_undo *u, struct qz *q)
{
	if (!u)
		return;
	if (q && q->proc) {
		proc_set_write_hook(q->proc, NULL, NULL);
		proc_set_run_hook(q->proc, NULL, NULL);
	}
	atomic_store(&u->ending, true);   /* (a protection nobody will use) */
	if (u->thr_on) {
		uint64_t one = 1;
		if (write(u->evfd, &one, sizeof one) < 0)
			pthread_cancel(u->thr);
		pthread_join(u->thr, NULL);
	}
	if (u->prot_on)
		pthread_join(u->prot_thr, NULL);   /* (evfd ends it too) */
	ckpt_agent_free(u->agent);   /* (before the descriptor: it may be waiting) */
	close(u->ufd);
	if (u->evfd >= 0)
		close(u->evfd);
	if (u->workfd >= 0)
		close(u->workfd);
	for (size_t i = 0; i < u->nlog; i++)
		ckpt_blob_unref(u->log[i].blob);
	for (size_t i = 0; i < u->nsbits; i++)
		free(u->sbits[i]);
	free(u->sbits);
	free(u->log);
	free(u->unprot);
	free(u->changed);
	free(u->retry);
	free(u->refused);
	free(u->lostv);
	free(u->regd);
	free(u->pend);
	free(u->scratch);
	free(u->alog);
	pthread_cond_destroy(&u->agent_cv);
	pthread_mutex_destroy(&u->mu);
	free(u);
}
