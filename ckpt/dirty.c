/* dirty: which pages of the debuggee changed since the last checkpoint or
 * rollback. Two methods behind one interface:
 * - pagemap: the debuggee's writable ranges are registered (by injected
 *   system calls) with a userfaultfd in asynchronous write-protect mode;
 *   PAGEMAP_SCAN on /proc/PID/pagemap lists the pages written since they
 *   were last protected and protects them again, in one call per range.
 * - hash: every page is read and hashed; a page whose hash differs from
 *   the last scan's changed. Portable, and slower on large memory. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ckpt-int.h"
#include "util/kabi.h"
#include "util/sorted.h"

/* The userfaultfd: qzdb takes a copy (pidfd_getfd) and closes the
 * program's, so the program never sees it and cannot close it (a daemon's
 * close_range(3, ~0U, 0)); tracking lives as long as qzdb's copy. Where
 * the copy is not allowed, the program keeps it at a number near its
 * descriptor limit, out of the way of the numbers it opens, checked
 * before each checkpoint and rollback and made again if the program
 * closed it. */
#define CKPT_UFFD_BELOW_LIMIT 16
#define CKPT_UFFD_MAX_FD 65536
#define CKPT_UFFD_LINK "anon_inode:[userfaultfd]"

struct ckpt_hash {
	uint64_t addr, h;
};

struct ckpt_dirty {
	enum ckpt_method method;
	/* pagemap */
	int pmfd;                     /* /proc/PID/pagemap, in qzdb */
	int ufd;                      /* the userfaultfd in the debuggee, or -1 */
	int lfd;                      /* qzdb's copy of it, or -1 */
	/* hash: the pages as of the last scan, sorted */
	struct ckpt_hash *hs;
	size_t nhs, hs_cap;
	bool first;
	/* both: hash alongside pagemap, to check that they agree */
	struct ckpt_dirty *check;
	char *verdict;                /* the last comparison, for the user */
};

int ckpt_dirty_fd(const struct ckpt_dirty *d)
{
	return d ? d->ufd : -1;
}

/* Walk [lo, hi) with PAGEMAP_SCAN as `how` asks (flags and categories;
 * the range and buffer are filled in here), adding every page reported to
 * out (NULL: only for the side effect, write-protection). -errno on
 * failure. */
static int ckpt_pm_walk(struct ckpt_dirty *d, uint64_t lo, uint64_t hi,
			const struct kabi_pm_scan_arg *how, struct ckpt_addrs *out)
{
	struct kabi_page_region vec[256];
	for (uint64_t a = lo; a < hi;) {
		struct kabi_pm_scan_arg arg = *how;
		arg.size = sizeof arg;
		arg.start = a;
		arg.end = hi;
		arg.vec = (uint64_t)(uintptr_t)vec;
		arg.vec_len = 256;
		long n = ioctl(d->pmfd, KABI_PAGEMAP_SCAN, &arg);
		if (n < 0)
			return -errno;
		for (long i = 0; out && i < n; i++)
			for (uint64_t p = vec[i].start; p < vec[i].end; p += CKPT_PAGE)
				ckpt_addrs_add(out, p);
		if (arg.walk_end <= a)
			break;
		a = arg.walk_end;
	}
	return 0;
}

/* Pages of [lo, hi) with no page behind them (not present), as ranges
 * from PAGEMAP_SCAN: far cheaper than reading /proc/PID/pagemap. */
int ckpt_dirty_holes(struct ckpt_dirty *d, uint64_t lo, uint64_t hi, struct ckpt_addrs *out)
{
	const struct kabi_pm_scan_arg how = {
		.category_inverted = KABI_PAGE_IS_PRESENT, .category_mask = KABI_PAGE_IS_PRESENT,
		.return_mask = KABI_PAGE_IS_PRESENT,
	};
	return ckpt_pm_walk(d, lo, hi, &how, out) < 0 ? -1 : 0;
}

/* Write-protect tracking sees writes, not pages dropped to zero. */
bool ckpt_dirty_misses_holes(const struct ckpt_dirty *d)
{
	return d->method == CKPT_PAGEMAP;
}

const char *ckpt_dirty_name(const struct ckpt_dirty *d)
{
	return d->method == CKPT_PAGEMAP ? "pagemap" : "hash";
}

/* ---- hash ---- */

static uint64_t ckpt_hash_page(const uint8_t *p, bool *zero)
{
	const uint64_t *w = (const uint64_t *)p;
	uint64_t h = 0x9e3779b97f4a7c15ull, any = 0;
	for (size_t i = 0; i < CKPT_PAGE / 8; i += 2) {
		any |= w[i] | w[i + 1];
		h = (h ^ w[i]) * 0xff51afd7ed558ccdull;
		h = (h ^ w[i + 1] ^ (h >> 29)) * 0xc4ceb9fe1a85ec53ull;
	}
	*zero = !any;
	return h ^ (h >> 31);
}

static const struct ckpt_hash *ckpt_hash_find(const struct ckpt_dirty *d, uint64_t a)
{
	size_t lo = SORTED_BELOW(d->hs, d->nhs, addr, a);
	return lo < d->nhs && d->hs[lo].addr == a ? &d->hs[lo] : NULL;
}

/* Hash one map's pages, CHUNK at a time; the new table goes to *nt. */
static int ckpt_hash_map(struct ckpt_dirty *d, struct qz *q, const struct ckpt_map *m,
			 struct ckpt_hash **nt, size_t *nn, size_t *ncap,
			 struct ckpt_addrs *out)
{
	enum { CHUNK = 256 };
	static uint8_t buf[CHUNK][CKPT_PAGE];
	uint8_t *bufs[CHUNK];
	uint64_t addrs[CHUNK];
	for (uint64_t a = m->lo; a < m->hi;) {
		size_t k = 0;
		for (; k < CHUNK && a < m->hi; k++, a += CKPT_PAGE) {
			addrs[k] = a;
			bufs[k] = buf[k];
		}
		if (ckpt_mem_read(q, addrs, k, bufs) < 0)
			return -1;
		for (size_t i = 0; i < k; i++) {
			bool zero;
			uint64_t h = ckpt_hash_page(buf[i], &zero);
			const struct ckpt_hash *old = ckpt_hash_find(d, addrs[i]);
			if (old ? old->h != h : !zero)
				ckpt_addrs_add(out, addrs[i]);
			XGROW(*nt, *ncap, *nn + 1);
			(*nt)[(*nn)++] = (struct ckpt_hash){addrs[i], h};
		}
	}
	return 0;
}

static int ckpt_hash_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct ckpt_hash *)a)->addr, y = ((const struct ckpt_hash *)b)->addr;
	return x < y ? -1 : x > y;
}

static int ckpt_hash_scan(struct ckpt_dirty *d, struct qz *q, struct ckpt_state *s,
			  const struct ckpt_os *os, struct ckpt_addrs *out)
{
	struct ckpt_hash *nt = NULL;
	size_t nn = 0, ncap = 0;
	for (size_t i = 0; i < os->nmaps; i++) {
		if (!ckpt_map_tracked(s, &os->maps[i]))
			continue;
		if (ckpt_hash_map(d, q, &os->maps[i], &nt, &nn, &ncap, out) < 0) {
			free(nt);
			return -1;
		}
	}
	qsort(nt, nn, sizeof *nt, ckpt_hash_cmp);
	free(d->hs);
	d->hs = nt;
	d->nhs = nn;
	d->hs_cap = ncap;
	return 0;
}

/* ---- pagemap ---- */

/* ioctl on the userfaultfd: on qzdb's copy, or in the debuggee with arg
 * copied through the arg page. 0, or -errno. */
static int ckpt_uffd_ioctl(struct ckpt_dirty *d, struct qz *q, struct ckpt_state *s,
			   unsigned long req, void *arg, size_t len)
{
	int64_t r;
	if (d->lfd >= 0)
		return ioctl(d->lfd, req, arg) < 0 ? -errno : 0;
	if (proc_write(q->proc, s->argpage, arg, len) < 0 ||
	    ckpt_inject(q, SYS_ioctl, (uint64_t)d->ufd, req, s->argpage, 0, 0, 0, &r) < 0)
		return -1;
	if (r < 0)
		return (int)r;
	return proc_read(q->proc, s->argpage, arg, len);
}

/* Take the debuggee's descriptor fd into qzdb; the debuggee's is closed. */
static int ckpt_uffd_take(struct ckpt_dirty *d, struct qz *q, int fd)
{
	int64_t r;
	int pidfd = (int)syscall(SYS_pidfd_open, proc_pid(q->proc), 0);
	if (pidfd < 0)
		return -1;
	d->lfd = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	close(pidfd);
	if (d->lfd < 0)
		return -1;
	ckpt_inject(q, SYS_close, (uint64_t)fd, 0, 0, 0, 0, 0, &r);
	return 0;
}

/* The debuggee's soft limit on descriptors (its next open fails there). */
static long ckpt_nofile(pid_t pid)
{
	char path[64], line[256];
	long soft = 1024;
	snprintf(path, sizeof path, "/proc/%d/limits", pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return soft;
	while (fgets(line, sizeof line, f))
		if (str_starts(line, "Max open files"))
			soft = strtol(line + strlen("Max open files"), NULL, 10);
	fclose(f);
	return soft > 0 ? soft : 1024;
}

/* Move the debuggee's descriptor fd near its limit; the new number. */
static int ckpt_uffd_high(struct qz *q, int fd)
{
	int64_t nfd, r;
	long at = ckpt_nofile(proc_pid(q->proc));
	at = (at < CKPT_UFFD_MAX_FD ? at : CKPT_UFFD_MAX_FD) - CKPT_UFFD_BELOW_LIMIT;
	if (at <= fd || ckpt_inject(q, SYS_fcntl, (uint64_t)fd, F_DUPFD_CLOEXEC, (uint64_t)at,
				    0, 0, 0, &nfd) < 0 || nfd < 0)
		return fd;
	ckpt_inject(q, SYS_close, (uint64_t)fd, 0, 0, 0, 0, 0, &r);
	return (int)nfd;
}

static int ckpt_uffd_open(struct ckpt_dirty *d, struct qz *q, struct ckpt_state *s)
{
	int64_t fd;
	if (ckpt_argpage(q, s) < 0 ||
	    ckpt_inject(q, SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | KABI_UFFD_USER_MODE_ONLY,
			0, 0, 0, 0, 0, &fd) < 0 || fd < 0)
		return -1;
	if (s->uffd_in_program || ckpt_uffd_take(d, q, (int)fd) < 0)
		d->ufd = ckpt_uffd_high(q, (int)fd);
	struct kabi_uffd_api api = {
		KABI_UFFD_API, KABI_UFFD_FEATURE_WP_ASYNC | KABI_UFFD_FEATURE_WP_UNPOPULATED, 0,
	};
	if (ckpt_uffd_ioctl(d, q, s, KABI_UFFDIO_API, &api, sizeof api) != 0)
		return -1;
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/pagemap", proc_pid(q->proc));
	if (d->pmfd < 0)
		d->pmfd = open(path, O_RDONLY | O_CLOEXEC);
	return d->pmfd < 0 ? -1 : 0;
}

/* Is the debuggee's descriptor ufd still a userfaultfd (the program may
 * have closed it, or put another file at its number)? */
static bool ckpt_uffd_there(struct qz *q, int ufd)
{
	char path[64], target[64];
	snprintf(path, sizeof path, "/proc/%d/fd/%d", proc_pid(q->proc), ufd);
	ssize_t n = readlink(path, target, sizeof target - 1);
	target[n > 0 ? n : 0] = 0;
	return !strcmp(target, CKPT_UFFD_LINK);
}

int ckpt_dirty_check(struct ckpt_dirty *d, struct qz *q, struct ckpt_state *s)
{
	if (!d || d->method != CKPT_PAGEMAP || d->lfd >= 0 || ckpt_uffd_there(q, d->ufd))
		return 0;
	int old = d->ufd;
	d->ufd = -1;   /* not ours any more: never closed by qzdb */
	if (ckpt_uffd_open(d, q, s) < 0)
		return qz_error(q, "The program closed qzdb's userfaultfd (descriptor %d) and a new "
			       "one cannot be made: nothing was changed; `set checkpoint-method hash` "
			       "after deleting the checkpoints avoids it.", old);
	qz_printf(q, "The program closed qzdb's userfaultfd (descriptor %d): made again as "
		  "descriptor %d, every page compared once.\n", old, d->ufd);
	return 0;
}

/* One PAGEMAP_SCAN pass over [lo, hi): the pages in the categories asked,
 * write-protecting the written ones when wp. -errno on failure. */
static int ckpt_pm_scan(struct ckpt_dirty *d, uint64_t lo, uint64_t hi, bool wp,
			uint64_t anyof, struct ckpt_addrs *out)
{
	const struct kabi_pm_scan_arg how = {
		.flags = wp ? KABI_PM_SCAN_WP_MATCHING | KABI_PM_SCAN_CHECK_WPASYNC : 0,
		.category_anyof_mask = anyof, .return_mask = anyof,
	};
	return ckpt_pm_walk(d, lo, hi, &how, out);
}

static int ckpt_pm_register(struct ckpt_dirty *d, struct qz *q, struct ckpt_state *s,
			    const struct ckpt_map *m)
{
	struct kabi_uffd_register reg = {m->lo, m->hi - m->lo, KABI_UFFDIO_REGISTER_MODE_WP, 0};
	return ckpt_uffd_ioctl(d, q, s, KABI_UFFDIO_REGISTER, &reg, sizeof reg) ? -1 : 0;
}

/* A range not registered yet: register it; every page that holds data
 * counts as changed (file pages never touched hold the file's data, so
 * all of a file mapping's pages count). */
static int ckpt_pm_new_map(struct ckpt_dirty *d, struct qz *q, struct ckpt_state *s,
			   const struct ckpt_map *m, struct ckpt_addrs *out)
{
	if (ckpt_pm_register(d, q, s, m) < 0)
		return -1;
	if (m->path && m->path[0] == '/') {
		for (uint64_t p = m->lo; p < m->hi; p += CKPT_PAGE)
			ckpt_addrs_add(out, p);
	} else if (ckpt_pm_scan(d, m->lo, m->hi, false,
				KABI_PAGE_IS_PRESENT | KABI_PAGE_IS_SWAPPED, out) < 0) {
		return -1;
	}
	return ckpt_pm_scan(d, m->lo, m->hi, true, KABI_PAGE_IS_WRITTEN, NULL) < 0 ? -1 : 0;
}

static int ckpt_pm_scan_all(struct ckpt_dirty *d, struct qz *q, struct ckpt_state *s,
			    const struct ckpt_os *os, struct ckpt_addrs *out, bool reset)
{
	for (size_t i = 0; i < os->nmaps; i++) {
		const struct ckpt_map *m = &os->maps[i];
		if (!ckpt_map_tracked(s, m))
			continue;
		int r = ckpt_pm_scan(d, m->lo, m->hi, reset, KABI_PAGE_IS_WRITTEN, out);
		if (r == -EPERM || r == -EINVAL)
			r = ckpt_pm_new_map(d, q, s, m, out);
		if (r < 0)
			return -1;
	}
	return 0;
}

/* ---- both ---- */

/* Hash and pagemap describe the same checkpoint when every page whose
 * content changed (hash) was also reported written (pagemap): pagemap may
 * report more (a write of the same bytes), never less. */
static int ckpt_dirty_compare(struct ckpt_dirty *d, struct qz *q, struct ckpt_state *s,
			      const struct ckpt_os *os, const struct ckpt_addrs *pm)
{
	struct ckpt_addrs h = {0};
	if (ckpt_hash_scan(d->check, q, s, os, &h) < 0)
		return -1;
	ckpt_addrs_sort(&h);
	uint64_t bad = 0;
	size_t nbad = 0;
	for (size_t i = 0; i < h.n; i++)
		if (!ckpt_addrs_has(pm, h.a[i]) && !nbad++)
			bad = h.a[i];
	free(d->verdict);
	if (nbad)
		d->verdict = xasprintf("Dirty-page methods DISAGREE: %zu changed pages missed by "
				       "pagemap, first at 0x%llx", nbad, (unsigned long long)bad);
	else
		d->verdict = xasprintf("Dirty-page methods agree: pagemap %zu pages, hash %zu pages, "
				       "same memory image", pm->n, h.n);
	ckpt_addrs_free(&h);
	return 0;
}

const char *ckpt_dirty_verdict(const struct ckpt_dirty *d)
{
	return d ? d->verdict : NULL;
}

/* ---- the interface ---- */

static void ckpt_dirty_close(struct ckpt_dirty *d, struct qz *q)
{
	if (d->pmfd >= 0)
		close(d->pmfd);
	d->pmfd = -1;
	if (d->lfd >= 0)
		close(d->lfd);
	d->lfd = -1;
	if (d->ufd >= 0 && q && proc_alive(q->proc) && ckpt_uffd_there(q, d->ufd)) {
		int64_t r;
		ckpt_inject(q, SYS_close, (uint64_t)d->ufd, 0, 0, 0, 0, 0, &r);
	}
	d->ufd = -1;
}

struct ckpt_dirty *ckpt_dirty_new(struct qz *q, struct ckpt_state *s, enum ckpt_method want)
{
	struct ckpt_dirty *d = xcalloc(1, sizeof *d);
	d->pmfd = d->ufd = d->lfd = -1;
	d->method = CKPT_HASH;
	d->first = true;
	if (want != CKPT_HASH && ckpt_uffd_open(d, q, s) == 0)
		d->method = CKPT_PAGEMAP;
	else
		ckpt_dirty_close(d, q);
	if (want == CKPT_PAGEMAP && d->method != CKPT_PAGEMAP) {
		free(d);
		return NULL;
	}
	if (want == CKPT_BOTH && d->method == CKPT_PAGEMAP)
		d->check = ckpt_dirty_new(q, s, CKPT_HASH);
	return d;
}

int ckpt_dirty_scan(struct ckpt_dirty *d, struct qz *q, struct ckpt_state *s,
		    const struct ckpt_os *os, struct ckpt_addrs *out, bool reset)
{
	int r = d->method == CKPT_PAGEMAP ? ckpt_pm_scan_all(d, q, s, os, out, reset)
					  : ckpt_hash_scan(d, q, s, os, out);
	ckpt_addrs_sort(out);
	d->first = false;
	if (r == 0 && d->check && reset)
		r = ckpt_dirty_compare(d, q, s, os, out);
	return r;
}

void ckpt_dirty_free(struct ckpt_dirty *d, struct qz *q)
{
	if (!d)
		return;
	if (d->check)
		ckpt_dirty_free(d->check, q);
	ckpt_dirty_close(d, q);
	free(d->hs);
	free(d->verdict);
	free(d);
}
