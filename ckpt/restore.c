/* restore: rolling the process back to a checkpoint. Refusals first,
 * while nothing has changed (a thread of the checkpoint gone, no
 * userfaultfd to be had); then the threads started since are ended, the
 * break and the memory map restored (injected brk, munmap, mmap), then
 * descriptors (open, dup3, lseek, close), then the pages that differ,
 * then registers, blocked signals, the stop's siginfo and the other
 * modules' state. Only pages that may differ are written: those
 * dirtied since the last reset plus the deltas between the checkpoint the
 * memory is based on and the target. */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "ckpt-int.h"
#include "rx.h"
#include "target/frame.h"
#include "target/pagewatch.h"
#include "target/run.h"
#include "util/sorted.h"

/* Is the process still there? If it died (killed from outside), reap it,
 * say so, and forget it. */
bool ckpt_process_check(struct qz *q)
{
	struct user_regs_struct r;
	if (!q->proc || !proc_alive(q->proc))
		return false;
	if (ptrace(PTRACE_GETREGS, proc_pid(q->proc), 0, &r) == 0)
		return true;
	struct proc_stop st;
	proc_wait(q->proc, &st);
	if (st.ev == PROC_EXITED) {
		run_report_exit(q, st.code);
		q->stop = QZ_STOP_EXITED;
	} else if (st.ev == PROC_KILLED) {
		qz_printf(q, "\nProgram terminated with signal %s, %s.\n"
			  "The program no longer exists.\n", sig_name(st.sig), sig_desc(st.sig));
		q->stop = QZ_STOP_KILLED;
	}
	qz_process_gone(q);
	return false;
}

static bool ckpt_map_same(const struct ckpt_map *a, const struct ckpt_map *b)
{
	if (a->prot != b->prot || a->shared != b->shared)
		return false;
	bool fa = a->path && a->path[0] == '/', fb = b->path && b->path[0] == '/';
	if (fa != fb || (fa && strcmp(a->path, b->path)))
		return false;
	return !fa || a->off - a->lo == b->off - b->lo;
}

/* Maps qzdb owns or the kernel provides: never unmapped or remapped. */
static bool ckpt_map_fixed(const struct qz *q, const struct ckpt_state *s,
			   const struct ckpt_map *m)
{
	if (m->path && (!strcmp(m->path, "[vdso]") || !strcmp(m->path, "[vvar]") ||
			!strcmp(m->path, "[vvar_vclock]") || !strcmp(m->path, "[vsyscall]")))
		return true;
	uint64_t own[2] = {s->argpage, q->scratch};
	for (int i = 0; i < 2; i++)
		if (own[i] && own[i] >= m->lo && own[i] < m->hi)
			return true;
	return false;
}

struct ckpt_span {
	uint64_t lo, hi;
	const struct ckpt_map *m;
};

/* The parts of m not covered by a same map of other, appended to out. */
static void ckpt_uncovered(const struct ckpt_map *m, const struct ckpt_os *other,
			   struct ckpt_span **out, size_t *n, size_t *cap)
{
	uint64_t cur = m->lo;
	for (size_t i = 0; i < other->nmaps && cur < m->hi; i++) {
		const struct ckpt_map *o = &other->maps[i];
		if (o->hi <= cur || !ckpt_map_same(m, o))
			continue;
		if (o->lo >= m->hi)
			break;
		if (o->lo > cur) {
			XGROW(*out, *cap, *n + 1);
			(*out)[(*n)++] = (struct ckpt_span){cur, o->lo, m};
		}
		cur = o->hi;
	}
	if (cur < m->hi) {
		XGROW(*out, *cap, *n + 1);
		(*out)[(*n)++] = (struct ckpt_span){cur, m->hi, m};
	}
}

/* Map a file part again: open it by path through the arg page. */
static int ckpt_map_file(struct qz *q, struct ckpt_state *s, const struct ckpt_span *sp)
{
	const struct ckpt_map *m = sp->m;
	size_t len = strlen(m->path) + 1;
	int64_t fd, r;
	if (len > CKPT_PAGE || proc_write(q->proc, s->argpage, m->path, len) < 0 ||
	    ckpt_inject(q, SYS_open, s->argpage, m->shared && (m->prot & PROT_WRITE) ? O_RDWR : O_RDONLY,
			0, 0, 0, 0, &fd) < 0 || fd < 0)
		return -1;
	int flags = (m->shared ? MAP_SHARED : MAP_PRIVATE) | MAP_FIXED;
	int rc = ckpt_inject(q, SYS_mmap, sp->lo, sp->hi - sp->lo, (uint64_t)m->prot, (uint64_t)flags,
			     (uint64_t)fd, m->off + (sp->lo - m->lo), &r);
	ckpt_inject(q, SYS_close, (uint64_t)fd, 0, 0, 0, 0, 0, &fd);
	return rc < 0 || (r < 0 && r > -4096) ? -1 : 0;
}

static int ckpt_map_span(struct qz *q, struct ckpt_state *s, const struct ckpt_span *sp)
{
	int64_t r;
	if (sp->m->path && sp->m->path[0] == '/' && ckpt_map_file(q, s, sp) == 0)
		return 0;
	int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED;
	if (ckpt_inject(q, SYS_mmap, sp->lo, sp->hi - sp->lo, (uint64_t)sp->m->prot,
			(uint64_t)flags, (uint64_t)-1, 0, &r) < 0 || (r < 0 && r > -4096))
		return -1;
	return 0;
}

/* Unmap what the checkpoint did not have, map what it had and lost; the
 * pages of remapped writable memory go to d to be written. */
static int ckpt_restore_maps(struct qz *q, struct ckpt_state *s, const struct ckpt *c,
			     const struct ckpt_os *now, struct ckpt_addrs *d)
{
	struct ckpt_span *sp = NULL;
	size_t n = 0, cap = 0, nun;
	int rc = 0;
	for (size_t i = 0; i < now->nmaps; i++)
		if (!ckpt_map_fixed(q, s, &now->maps[i]))
			ckpt_uncovered(&now->maps[i], &c->os, &sp, &n, &cap);
	nun = n;
	for (size_t i = 0; i < c->os.nmaps; i++)
		if (!ckpt_map_fixed(q, s, &c->os.maps[i]))
			ckpt_uncovered(&c->os.maps[i], now, &sp, &n, &cap);
	for (size_t i = 0; i < nun && rc == 0; i++) {
		int64_t r;
		rc = ckpt_inject(q, SYS_munmap, sp[i].lo, sp[i].hi - sp[i].lo, 0, 0, 0, 0, &r);
	}
	for (size_t i = nun; i < n && rc == 0; i++) {
		rc = ckpt_map_span(q, s, &sp[i]);
		if (rc == 0 && ckpt_map_tracked(s, sp[i].m))
			for (uint64_t a = sp[i].lo; a < sp[i].hi; a += CKPT_PAGE)
				ckpt_addrs_add(d, a);
	}
	free(sp);
	return rc;
}

void ckpt_remapped(const struct qz *q, const struct ckpt_state *s, const struct ckpt *c,
		   const struct ckpt_os *now, struct ckpt_addrs *out)
{
	struct ckpt_span *sp = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < c->os.nmaps; i++)
		if (!ckpt_map_fixed(q, s, &c->os.maps[i]) && ckpt_map_tracked(s, &c->os.maps[i]))
			ckpt_uncovered(&c->os.maps[i], now, &sp, &n, &cap);
	for (size_t i = 0; i < n; i++)
		for (uint64_t a = sp[i].lo; a < sp[i].hi; a += CKPT_PAGE)
			ckpt_addrs_add(out, a);
	free(sp);
}

static const struct ckpt_fd *ckpt_fd_in(const struct ckpt_os *os, int fd)
{
	for (size_t i = 0; i < os->nfds; i++)
		if (os->fds[i].fd == fd)
			return &os->fds[i];
	return NULL;
}

/* Open a closed (or replaced) regular file again under its number. */
static int ckpt_reopen(struct qz *q, struct ckpt_state *s, const struct ckpt_fd *f)
{
	size_t len = strlen(f->path) + 1;
	int64_t fd, r;
	int flags = f->flags & ~(O_CREAT | O_EXCL | O_TRUNC | O_NOCTTY);
	if (len > CKPT_PAGE || proc_write(q->proc, s->argpage, f->path, len) < 0 ||
	    ckpt_inject(q, SYS_open, s->argpage, (uint64_t)flags, 0, 0, 0, 0, &fd) < 0 || fd < 0)
		return -1;
	if (fd != f->fd) {
		ckpt_inject(q, SYS_dup3, (uint64_t)fd, (uint64_t)f->fd, (uint64_t)(f->flags & O_CLOEXEC),
			    0, 0, 0, &r);
		ckpt_inject(q, SYS_close, (uint64_t)fd, 0, 0, 0, 0, 0, &r);
		if (r < 0)
			return -1;
	}
	return 0;
}

static void ckpt_restore_fds(struct qz *q, struct ckpt_state *s, const struct ckpt *c,
			     const struct ckpt_os *now, int keep)
{
	int64_t r;
	for (size_t i = 0; i < now->nfds; i++) {
		int fd = now->fds[i].fd;
		if (fd != keep && !now->fds[i].qzdb_too && !ckpt_fd_in(&c->os, fd))
			ckpt_inject(q, SYS_close, (uint64_t)fd, 0, 0, 0, 0, 0, &r);
	}
	for (size_t i = 0; i < c->os.nfds; i++) {
		const struct ckpt_fd *f = &c->os.fds[i], *cur = ckpt_fd_in(now, f->fd);
		bool same = cur && cur->regular == f->regular && !strcmp(cur->path, f->path);
		if (f->qzdb_too || (cur && cur->qzdb_too))
			continue;
		if (!f->regular) {
			if (!cur)
				qz_warn(q, "descriptor %d (%s) was closed and cannot be reopened.",
					f->fd, f->path);
			continue;
		}
		if (!same && ckpt_reopen(q, s, f) < 0) {
			qz_warn(q, "cannot reopen %s as descriptor %d.", f->path, f->fd);
			continue;
		}
		if (!same || cur->pos != f->pos)
			ckpt_inject(q, SYS_lseek, (uint64_t)f->fd, (uint64_t)f->pos, SEEK_SET, 0, 0, 0, &r);
	}
}

static bool ckpt_is_ancestor(const struct ckpt *a, const struct ckpt *b)
{
	for (; b; b = b->parent)
		if (a == b)
			return true;
	return false;
}

/* The pages in which the memory of checkpoint from and of to may differ:
 * the deltas on the path between them in the checkpoint tree. */
static void ckpt_path_pages(const struct ckpt *from, const struct ckpt *to, struct ckpt_addrs *d)
{
	for (int side = 0; side < 2; side++) {
		const struct ckpt *x = side ? to : from, *other = side ? from : to;
		for (; x && !ckpt_is_ancestor(x, other); x = x->parent)
			for (size_t i = 0; i < x->npages; i++)
				ckpt_addrs_add(d, x->pages[i].addr);
	}
}

bool ckpt_page_tracked(const struct ckpt_state *s, const struct ckpt *c, uint64_t a)
{
	size_t lo = SORTED_UPTO(c->os.maps, c->os.nmaps, hi, a);
	return lo < c->os.nmaps && c->os.maps[lo].lo <= a && ckpt_map_tracked(s, &c->os.maps[lo]);
}

/* Planted int3 bytes in pages just written: the written byte becomes the
 * site's original and the int3 goes back. */
void ckpt_replant(struct qz *q, const struct ckpt_addrs *d, uint8_t *const *bufs)
{
	for (size_t i = 0; i < q->bps.nsites; i++) {
		struct bp_site *site = &q->bps.sites[i];
		uint64_t pg = site->addr & ~(CKPT_PAGE - 1);
		if (!site->inserted || !ckpt_addrs_has(d, pg))
			continue;
		for (size_t j = 0; j < d->n; j++)
			if (d->a[j] == pg)
				site->orig = bufs[j][site->addr - pg];
		site->resume = BP_RESUME_UNKNOWN;
		uint8_t int3 = 0xcc;
		proc_write(q->proc, site->addr, &int3, 1);
	}
}

/* Write back every page of d that the checkpoint had writable. */
static int ckpt_write_pages(struct qz *q, const struct ckpt *c, struct ckpt_addrs *d)
{
	static uint8_t zero[CKPT_PAGE];
	struct ckpt_state *s = ckpt_state(q);
	size_t n = 0;
	uint8_t **bufs = xmalloc((d->n + 1) * sizeof *bufs);
	for (size_t i = 0; i < d->n; i++) {
		if (!ckpt_page_tracked(s, c, d->a[i]))
			continue;
		const struct ckpt_blob *b = ckpt_lookup(c, d->a[i]);
		d->a[n] = d->a[i];
		bufs[n++] = b ? (uint8_t *)b->data : zero;
	}
	d->n = n;
	int r = ckpt_mem_write(q, d->a, d->n, bufs);
	if (r == 0)
		ckpt_replant(q, d, bufs);
	free(bufs);
	return r;
}

void ckpt_regs_apply(struct qz *q, const struct ckpt *c)
{
	*proc_regs(q->proc) = c->regs;
	proc_regs_dirty(q->proc);
	if (c->xlen) {
		struct iovec iov = {c->xstate, c->xlen};
		ptrace(PTRACE_SETREGSET, proc_cur_tid(q->proc), (void *)NT_X86_XSTATE, &iov);
	}
	if (c->has_mask)
		ptrace(PTRACE_SETSIGMASK, proc_cur_tid(q->proc), sizeof c->sigmask, &c->sigmask);
}

/* The new stop, as `frame` shows it. */
static void ckpt_report(struct qz *q)
{
	frame_invalidate(q);
	q->sel_frame = 0;
	q->inline_unskip = 0;
	q->libs_stale = true;
	const struct frame *f = frame_get(q, 0);
	if (f)
		frame_print_level(q, 0, f);
}

/* Break, map and descriptors, in that order (brk may unmap heap). */
int ckpt_restore_os(struct qz *q, struct ckpt_state *s, const struct ckpt *c, struct ckpt_addrs *d)
{
	struct ckpt_os now;
	int64_t r;
	if (ckpt_inject(q, SYS_brk, c->os.brk, 0, 0, 0, 0, 0, &r) < 0 ||
	    ckpt_os_read(q, &now, CKPT_OS_MAPS | CKPT_OS_FDS) < 0)
		return -1;
	int rc = ckpt_restore_maps(q, s, c, &now, d);
	if (rc == 0)
		ckpt_restore_fds(q, s, c, &now, ckpt_dirty_fd(s->dirty));
	ckpt_os_free(&now);
	return rc;
}

/* Pages that hold nothing now (dropped, or the break regrown) but held
 * data at the checkpoint must be written too. */
static int ckpt_refill(struct qz *q, struct ckpt_state *s, const struct ckpt *c,
		       struct ckpt_addrs *d)
{
	struct ckpt_addrs h = {0};
	struct ckpt_os now;
	if (!ckpt_dirty_misses_holes(s->dirty))
		return 0;
	if (ckpt_os_read(q, &now, CKPT_OS_MAPS) < 0)
		return -1;
	int r = ckpt_holes(q, s, &now, &h);
	for (size_t i = 0; r == 0 && i < h.n; i++)
		if (ckpt_lookup(c, h.a[i]))
			ckpt_addrs_add(d, h.a[i]);
	ckpt_addrs_free(&h);
	ckpt_os_free(&now);
	return r;
}

/* Scan the dirty pages again so tracking counts from the checkpoint. */
static int ckpt_rescan(struct qz *q, struct ckpt_state *s, struct ckpt_addrs *d, bool reset)
{
	struct ckpt_os now;
	if (ckpt_os_read(q, &now, CKPT_OS_MAPS) < 0)
		return -1;
	int r = ckpt_dirty_scan(s->dirty, q, s, &now, d, reset);
	ckpt_os_free(&now);
	return r;
}

/* Memory map, descriptors, pages; dirty tracking restarted from there. */
static int ckpt_restore(struct qz *q, struct ckpt_state *s, const struct ckpt *c)
{
	struct ckpt_addrs d = {0}, again = {0};
	int rc = ckpt_restore_os(q, s, c, &d);
	if (rc == 0)
		rc = ckpt_rescan(q, s, &d, false);
	if (rc == 0)
		rc = ckpt_refill(q, s, c, &d);
	if (rc == 0) {
		ckpt_path_pages(s->base, c, &d);
		ckpt_addrs_sort(&d);
		rc = ckpt_write_pages(q, c, &d);
	}
	if (rc == 0)
		rc = ckpt_rescan(q, s, &again, true);
	ckpt_addrs_free(&d);
	ckpt_addrs_free(&again);
	return rc;
}

int ckpt_rollback(struct qz *q, struct ckpt *c)
{
	struct ckpt_state *s = ckpt_state(q);
	uint64_t t0 = ckpt_now_ns();
	siginfo_t si;
	bool has_si = ckpt_siginfo_get(q, &si);
	int rc = ckpt_threads_check(q, c);   /* refusals change nothing */
	if (rc == 0)
		rc = ckpt_dirty_check(s->dirty, q, s);
	if (rc == 0)
		rc = ckpt_threads_end_new(q, c);
	/* the memory map as the program made it, as the checkpoint saw it:
	 * pages a watch protected are tracked, compared and written too */
	if (rc == 0)
		pw_protect(q, false);
	if (rc == 0 && (s->undo ? ckpt_undo_restore(q, s, c) : ckpt_restore(q, s, c)) < 0)
		rc = qz_error(q, "Rollback to checkpoint %d failed: the program's state could "
			      "not be restored.", c->id);
	if (rc < 0) {
		if (s->undo)
			ckpt_undo_kick(s->undo);
		pw_protect(q, true);
		if (has_si)
			ckpt_siginfo_put(q, &si);
		return -1;
	}
	s->base = c;
	ckpt_regs_apply(q, c);
	if (c->has_si)   /* continuing delivers the checkpoint's signal as it was */
		ckpt_siginfo_put(q, &c->si);
	mod_restore(q, c->saved);
	rx_rolled_back(q, c);
	pw_protect(q, true);   /* (pagewatch's restore did it, with the pages of then) */
	q->held = false;
	q->stop = c->stop;
	q->stop_sig = c->stop_sig;
	s->took_rollback_ns = ckpt_now_ns() - t0;
	if (s->undo)
		ckpt_undo_kick(s->undo);
	ckpt_report(q);
	return 0;
}
