/* osstate: what the kernel knows about the debuggee that a checkpoint
 * records (memory map, open descriptors, program break), system calls
 * injected on its behalf, and bulk page copies in and out of it. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "ckpt-int.h"
#include "proc/inject.h"

int ckpt_inject(struct qz *q, long nr, uint64_t a0, uint64_t a1, uint64_t a2,
		uint64_t a3, uint64_t a4, uint64_t a5, int64_t *ret)
{
	uint64_t args[6] = {a0, a1, a2, a3, a4, a5};
	return inj_syscall(q->proc, nr, args, ret);
}

static int ckpt_prot(const char *perms)
{
	return (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
	       (perms[2] == 'x' ? PROT_EXEC : 0);
}

static bool ckpt_map_parse(const char *line, struct ckpt_map *m)
{
	unsigned long long lo, hi, off;
	char perms[8];
	int pos = 0;
	if (sscanf(line, "%llx-%llx %7s %llx %*s %*s%n", &lo, &hi, perms, &off, &pos) < 4 || !pos)
		return false;
	const char *p = str_skip_space(line + pos);
	m->lo = lo;
	m->hi = hi;
	m->off = off;
	m->prot = ckpt_prot(perms);
	m->shared = perms[3] == 's';
	m->path = *p ? xstrdup(p) : NULL;
	return true;
}

/* The maps, but for the save agent's [own_lo, own_hi) (agent.c): qzdb's,
 * never part of a checkpoint. */
static int ckpt_maps_read(pid_t pid, struct ckpt_os *os, uint64_t own_lo, uint64_t own_hi)
{
	char path[64], line[PATH_MAX + 128];
	size_t cap = 0;
	snprintf(path, sizeof path, "/proc/%d/maps", pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		XGROW(os->maps, cap, os->nmaps + 1);
		struct ckpt_map *m = &os->maps[os->nmaps];
		if (!ckpt_map_parse(line, m))
			continue;
		if (m->lo >= own_lo && m->hi <= own_hi)
			free(m->path);
		else
			os->nmaps++;
	}
	fclose(f);
	return 0;
}

/* pos and flags from /proc/PID/fdinfo/N. */
static void ckpt_fdinfo(pid_t pid, struct ckpt_fd *fd)
{
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/%d/fdinfo/%d", pid, fd->fd);
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		long long v;
		if (sscanf(line, "pos: %lld", &v) == 1)
			fd->pos = v;
		else if (sscanf(line, "flags: %llo", (unsigned long long *)&v) == 1)
			fd->flags = (int)v;
	}
	fclose(f);
}

/* Does the program's descriptor n share its open file with one of
 * qzdb's own (a descriptor inherited at launch)? Seeking it would move
 * qzdb's offset too. */
static bool ckpt_fd_ours(pid_t pid, int n)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	bool ours = false;
	if (!d)
		return false;
	while (!ours && (e = readdir(d)))
		if (e->d_name[0] != '.' &&
		    syscall(SYS_kcmp, getpid(), pid, 0 /* KCMP_FILE */, atoi(e->d_name), n) == 0)
			ours = true;
	closedir(d);
	return ours;
}

static void ckpt_fd_read(pid_t pid, int n, struct ckpt_fd *fd)
{
	char path[64], target[PATH_MAX];
	struct stat st;
	memset(fd, 0, sizeof *fd);
	fd->fd = n;
	snprintf(path, sizeof path, "/proc/%d/fd/%d", pid, n);
	ssize_t len = readlink(path, target, sizeof target - 1);
	target[len > 0 ? len : 0] = 0;
	fd->path = xstrdup(target);
	fd->regular = stat(path, &st) == 0 && S_ISREG(st.st_mode) && target[0] == '/';
	fd->qzdb_too = ckpt_fd_ours(pid, n);
	ckpt_fdinfo(pid, fd);
}

static int ckpt_fd_cmp(const void *a, const void *b)
{
	return ((const struct ckpt_fd *)a)->fd - ((const struct ckpt_fd *)b)->fd;
}

static int ckpt_fds_read(pid_t pid, struct ckpt_os *os)
{
	char path[64];
	size_t cap = 0;
	snprintf(path, sizeof path, "/proc/%d/fd", pid);
	DIR *d = opendir(path);
	if (!d)
		return -1;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		XGROW(os->fds, cap, os->nfds + 1);
		ckpt_fd_read(pid, atoi(e->d_name), &os->fds[os->nfds++]);
	}
	closedir(d);
	qsort(os->fds, os->nfds, sizeof *os->fds, ckpt_fd_cmp);
	return 0;
}

int ckpt_os_read(struct qz *q, struct ckpt_os *os, unsigned what)
{
	pid_t pid = proc_pid(q->proc);
	int64_t brk;
	memset(os, 0, sizeof *os);
	const struct ckpt_state *s = ckpt_state(q);
	if (((what & CKPT_OS_MAPS) && ckpt_maps_read(pid, os, s->agent_lo, s->agent_hi) < 0) ||
	    ((what & CKPT_OS_FDS) && ckpt_fds_read(pid, os) < 0))
		return -1;
	if ((what & CKPT_OS_BRK) && ckpt_inject(q, SYS_brk, 0, 0, 0, 0, 0, 0, &brk) < 0)
		return -1;
	os->brk = (what & CKPT_OS_BRK) ? (uint64_t)brk : 0;
	return 0;
}

void ckpt_os_free(struct ckpt_os *os)
{
	for (size_t i = 0; i < os->nmaps; i++)
		free(os->maps[i].path);
	for (size_t i = 0; i < os->nfds; i++)
		free(os->fds[i].path);
	free(os->maps);
	free(os->fds);
	memset(os, 0, sizeof *os);
}

/* A page of the debuggee's own for the arguments of injected calls that
 * take pointers, mapped once, next to the resume scratch page and far
 * from where the program's own mappings go. */
int ckpt_argpage(struct qz *q, struct ckpt_state *s)
{
	if (s->argpage)
		return 0;
	uint64_t near = q->exe.lo ? q->exe.lo - 24 * CKPT_PAGE : 0;
	int64_t r;
	int flags = MAP_PRIVATE | MAP_ANONYMOUS | (near ? MAP_FIXED_NOREPLACE : 0);
	if (ckpt_inject(q, SYS_mmap, near, CKPT_PAGE, PROT_READ | PROT_WRITE, (uint64_t)flags,
			(uint64_t)-1, 0, &r) < 0)
		return -1;
	if (r < 0 && r > -4096 && near &&
	    ckpt_inject(q, SYS_mmap, 0, CKPT_PAGE, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, (uint64_t)-1, 0, &r) < 0)
		return -1;
	if (r < 0 && r > -4096)
		return -1;
	s->argpage = (uint64_t)r;
	return 0;
}

static bool ckpt_iov_ends(const struct iovec *v, const void *p)
{
	return (const uint8_t *)v->iov_base + v->iov_len == (const uint8_t *)p;
}

/* An iovec list that grows by whole pages, adjacent ones merged. */
static size_t ckpt_iov_add(struct iovec *v, size_t n, const void *p)
{
	if (n && ckpt_iov_ends(&v[n - 1], p)) {
		v[n - 1].iov_len += CKPT_PAGE;
		return n;
	}
	v[n] = (struct iovec){(void *)p, CKPT_PAGE};
	return n + 1;
}

/* Copy n pages between the debuggee and local buffers with one
 * process_vm_readv/writev per IOV_MAX runs (a run: adjacent pages on both
 * sides, as a checkpoint's pages are in its slab); /proc/PID/mem page by
 * page where the fast way falls short. (Two threads, each copying half,
 * gained nothing measurable here: the copy is bound by memory, and the
 * other CPU is often busy.) */
static int ckpt_mem_xfer(struct qz *q, const uint64_t *addrs, size_t n,
			 uint8_t *const *bufs, bool write)
{
	enum { IOVS = 1024, PAGES = 8192 };
	pid_t pid = proc_pid(q->proc);
	struct iovec loc[IOVS], rem[IOVS];
	for (size_t i = 0; i < n;) {
		size_t k = 0, nl = 0, nr = 0;
		for (; i + k < n && k < PAGES; k++) {
			if ((nl == IOVS && !ckpt_iov_ends(&loc[nl - 1], bufs[i + k])) ||
			    (nr == IOVS && !ckpt_iov_ends(&rem[nr - 1], (const void *)addrs[i + k])))
				break;
			nl = ckpt_iov_add(loc, nl, bufs[i + k]);
			nr = ckpt_iov_add(rem, nr, (const void *)addrs[i + k]);
		}
		ssize_t got = write ? process_vm_writev(pid, loc, nl, rem, nr, 0)
				    : process_vm_readv(pid, loc, nl, rem, nr, 0);
		for (size_t j = 0; got != (ssize_t)(k * CKPT_PAGE) && j < k; j++) {
			int r = write ? proc_write(q->proc, addrs[i + j], bufs[i + j], CKPT_PAGE)
				      : proc_read(q->proc, addrs[i + j], bufs[i + j], CKPT_PAGE);
			if (r < 0)
				return -1;
		}
		i += k;
	}
	return 0;
}

int ckpt_mem_read(struct qz *q, const uint64_t *addrs, size_t n, uint8_t **bufs)
{
	return ckpt_mem_xfer(q, addrs, n, bufs, false);
}

int ckpt_mem_write(struct qz *q, const uint64_t *addrs, size_t n, uint8_t *const *bufs)
{
	return ckpt_mem_xfer(q, addrs, n, bufs, true);
}

/* Is swap in use? A swapped page and a write-protected hole look alike
 * in /proc/PID/pagemap (both "swapped"). */
static bool ckpt_swap_on(void)
{
	char line[256];
	int n = 0;
	FILE *f = fopen("/proc/swaps", "re");
	if (!f)
		return false;
	while (fgets(line, sizeof line, f))
		n++;
	fclose(f);
	return n > 1;
}

/* Pages of the tracked maps that hold no page now (never touched, or
 * dropped by munmap/MADV_DONTNEED/brk): they read as zeros. */
int ckpt_holes(struct qz *q, const struct ckpt_state *s, const struct ckpt_os *os,
	       struct ckpt_addrs *out)
{
	char path[64];
	enum { BATCH = 4096 };
	static uint64_t ent[BATCH];
	uint64_t mask = 1ull << 63 | (ckpt_swap_on() ? 1ull << 62 : 0);
	if (!ckpt_swap_on() && s->dirty && ckpt_dirty_misses_holes(s->dirty)) {
		for (size_t i = 0; i < os->nmaps; i++)
			if (ckpt_map_tracked(s, &os->maps[i]) &&
			    ckpt_dirty_holes(s->dirty, os->maps[i].lo, os->maps[i].hi, out) < 0)
				return -1;
		return 0;
	}
	snprintf(path, sizeof path, "/proc/%d/pagemap", proc_pid(q->proc));
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	for (size_t i = 0; i < os->nmaps; i++) {
		const struct ckpt_map *m = &os->maps[i];
		if (!ckpt_map_tracked(s, m))
			continue;
		for (uint64_t a = m->lo; a < m->hi;) {
			size_t k = (size_t)((m->hi - a) / CKPT_PAGE);
			k = k < BATCH ? k : BATCH;
			ssize_t got = pread(fd, ent, k * 8, (off_t)(a / CKPT_PAGE * 8));
			if (got != (ssize_t)(k * 8)) {
				close(fd);
				return -1;
			}
			for (size_t j = 0; j < k; j++, a += CKPT_PAGE)
				if (!(ent[j] & mask))
					ckpt_addrs_add(out, a);
		}
	}
	close(fd);
	return 0;
}

void ckpt_addrs_add(struct ckpt_addrs *s, uint64_t a)
{
	XGROW(s->a, s->cap, s->n + 1);
	s->a[s->n++] = a;
}

static int ckpt_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The end of the ascending run that starts at i. */
static size_t ckpt_run_end(const uint64_t *a, size_t n, size_t i)
{
	while (++i < n && a[i - 1] <= a[i])
		;
	return i;
}

/* Merge neighbouring ascending runs of a into t, pairwise; the number
 * of merged pairs (1: t is sorted). */
static size_t ckpt_merge_pass(const uint64_t *a, uint64_t *t, size_t n)
{
	size_t i = 0, pairs = 0;
	while (i < n) {
		size_t m = ckpt_run_end(a, n, i), e = m < n ? ckpt_run_end(a, n, m) : n;
		size_t x = i, y = m, o = i;
		while (x < m || y < e)
			t[o++] = y >= e || (x < m && a[x] <= a[y]) ? a[x++] : a[y++];
		i = e;
		pairs++;
	}
	return pairs;
}

/* Sort and drop duplicates. The sets come as a few ascending runs (one
 * per scan or checkpoint delta appended): merging the runs costs far
 * less than qsort did (0.5 ms for 32768 addresses in a rollback). */
void ckpt_addrs_sort(struct ckpt_addrs *s)
{
	if (!s->n)
		return;
	if (ckpt_run_end(s->a, s->n, 0) < s->n) {
		uint64_t *t = xmalloc(s->cap * sizeof *t);   /* s->a's size: they swap */
		size_t pairs;
		do {
			pairs = ckpt_merge_pass(s->a, t, s->n);
			uint64_t *x = s->a;
			s->a = t;
			t = x;
		} while (pairs > 1);
		free(t);
	}
	size_t w = 1;
	for (size_t i = 1; i < s->n; i++)
		if (s->a[i] != s->a[w - 1])
			s->a[w++] = s->a[i];
	s->n = w;
}

bool ckpt_addrs_has(const struct ckpt_addrs *s, uint64_t a)
{
	return s->n && bsearch(&a, s->a, s->n, sizeof *s->a, ckpt_u64_cmp);
}

void ckpt_addrs_free(struct ckpt_addrs *s)
{
	free(s->a);
	memset(s, 0, sizeof *s);
}
