/* rev-log: the undo log; see rev.h. An entry is items back to back:
 * 'R' num(1) value(8) for a register (insn.h's number), 'V' n(1) 16
 * bytes for xmm register n (the low half of ymm/zmm), 'M' addr(8) len(4)
 * bytes for memory. Applying swaps each saved value with the
 * process's, so undo and redo are the same operation; within an entry the
 * items go in one order back and the other forward, so that overlapping
 * items (a system call's buffer and nothing else, in practice) come out
 * right both ways. */
#include "rev.h"
#include "sys.h"

#include <cpuid.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/user.h>
#include <time.h>
#include <unistd.h>

#include "proc/proc.h"
#include "target/regs.h"
#include "target/session.h"
#include "rec-int.h"
#include "trace.h"
#include "spill.h"

void rev_log_free(struct rev_log *l)
{
	free(l->buf);
	free(l->off);
	if (l->has_fd)
		close(l->fd);
	l->has_fd = l->no_file = false;
	free(l->cache);
	l->cache = NULL;
	l->cache_lo = l->cache_hi = 0;
	l->buf = NULL;
	l->off = NULL;
	l->len = l->cap = l->noff = l->off_cap = 0;
	l->mem_base = 0;
}

#define RL_CACHE ((size_t)64 << 10)

/* Log bytes [off, off+n) in the ring file fd of ring bytes (a power of
 * two, a multiple of RL_CACHE): offset off % ring, in two pieces where it
 * wraps. */
static bool rl_ring_io(int fd, uint64_t ring, uint64_t off, uint8_t *p, size_t n, bool write)
{
	while (n) {
		uint64_t at = off & (ring - 1);
		size_t k = ring - at < n ? (size_t)(ring - at) : n;
		if ((write ? pwrite(fd, p, k, (off_t)at) : pread(fd, p, k, (off_t)at)) != (ssize_t)k)
			return false;
		off += k;
		p += k;
		n -= k;
	}
	return true;
}

/* Write the cache back if it changed; keep = false: forget it too. */
static bool rl_cache_sync(struct rev_log *l, bool keep)
{
	bool ok = true;
	if (l->cache_dirty && l->cache_hi > l->cache_lo)
		ok = rl_ring_io(l->fd, l->ring, l->cache_lo, l->cache,
				(size_t)(l->cache_hi - l->cache_lo), true);
	l->cache_dirty = false;
	if (!keep)
		l->cache_lo = l->cache_hi = 0;
	return ok;
}

/* Bytes [off, off+n) of the file's part (below mem_base) to or from p,
 * through the cache; false if the file failed. */
static bool rl_file_io(struct rev_log *l, uint64_t off, uint8_t *p, size_t n, bool write)
{
	while (n) {
		if (off < l->cache_lo || off >= l->cache_hi) {
			if (!rl_cache_sync(l, false))
				return false;
			if (!l->cache)
				l->cache = xmalloc(RL_CACHE);
			uint64_t lo = off & ~(uint64_t)(RL_CACHE - 1);
			uint64_t hi = lo + RL_CACHE < l->mem_base ? lo + RL_CACHE : l->mem_base;
			if (!rl_ring_io(l->fd, l->ring, lo, l->cache, (size_t)(hi - lo), false))
				return false;
			l->cache_lo = lo;
			l->cache_hi = hi;
		}
		size_t k = l->cache_hi - off < n ? (size_t)(l->cache_hi - off) : n;
		uint8_t *c = l->cache + (off - l->cache_lo);
		if (write) {
			memcpy(c, p, k);
			l->cache_dirty = true;
		} else {
			memcpy(p, c, k);
		}
		off += k;
		p += k;
		n -= k;
	}
	return true;
}

/* No entries: the file's bytes are garbage (the file stays for reuse). */
static void rl_empty(struct rev_log *l)
{
	l->cache_dirty = false;
	l->cache_lo = l->cache_hi = 0;
	l->noff = l->len = 0;
	l->mem_base = 0;
	if (l->has_fd && ftruncate(l->fd, 0) < 0)
		l->no_file = true;   /* cannot reuse it: what comes stays in memory */
}

void rev_log_clear(struct rev_log *l)
{
	rl_empty(l);
	l->pos = l->first = 0;
}

uint64_t rev_file_bytes(const struct rev_log *l)
{
	uint64_t lo = l->noff ? l->off[0] : 0;
	return l->mem_base > lo ? l->mem_base - lo : 0;
}

/* Bytes [off, off+n) of the log to or from p: the file's part, then the
 * memory's. false if the file failed. */
static bool rl_io(struct rev_log *l, uint64_t off, uint8_t *p, size_t n, bool write)
{
	if (off < l->mem_base) {
		size_t k = l->mem_base - off < n ? (size_t)(l->mem_base - off) : n;
		if (!rl_file_io(l, off, p, k, write))
			return false;
		off += k;
		p += k;
		n -= k;
	}
	if (n && write)
		memcpy(l->buf + (off - l->mem_base), p, n);
	else if (n)
		memcpy(p, l->buf + (off - l->mem_base), n);
	return true;
}

/* A ring for need bytes: the file's bytes of the entries kept, [off[0],
 * mem_base), move to a new file twice the size or more (rare: the default
 * limit fits the first ring). false if there is no new file. */
static bool rl_grow(struct qz *q, struct rev_log *l, uint64_t need)
{
	uint64_t ring = l->ring;
	while (ring < need)
		ring *= 2;
	int fd = spill_fd(q);
	if (fd < 0)
		return false;
	size_t cap = (size_t)1 << 20;
	uint8_t *chunk = xmalloc(cap);
	uint64_t at = l->noff ? l->off[0] : l->mem_base;
	while (at < l->mem_base) {
		size_t n = l->mem_base - at < cap ? (size_t)(l->mem_base - at) : cap;
		if (!rl_ring_io(l->fd, l->ring, at, chunk, n, false) ||
		    !rl_ring_io(fd, ring, at, chunk, n, true))
			break;
		at += n;
	}
	free(chunk);
	if (at < l->mem_base) {
		close(fd);
		return false;
	}
	close(l->fd);
	l->fd = fd;
	l->ring = ring;
	return true;
}

/* The memory holds more than two windows: it all goes to the file (made
 * the first time; none, and everything stays here). Stepping back from
 * the end reads the newest entries through the cache. The file is a ring
 * the log's offsets wrap around: dropped entries' bytes are written over,
 * so the file stays the size of what is kept (and the kernel reuses its
 * pages instead of allocating and freeing a file's worth a run). */
static __attribute__((noinline)) void rl_flush(struct qz *q, struct rev_log *l)
{
	if (l->no_file)
		return;
	if (!l->has_fd) {
		l->fd = spill_fd(q);
		l->has_fd = l->fd >= 0;
		l->no_file = !l->has_fd;
		if (l->no_file)
			return;
		size_t limit = l->limit ? l->limit : REV_LIMIT_DEFAULT;
		for (l->ring = (uint64_t)4 << 20; l->ring < limit + 4 * REV_WINDOW &&
		     l->ring < ((uint64_t)1 << 30); l->ring *= 2)
			;
	}
	size_t n = (size_t)(l->len - l->mem_base);
	uint64_t lo = l->noff ? l->off[0] : l->mem_base;
	if (!rl_cache_sync(l, false) || (l->len - lo > l->ring && !rl_grow(q, l, l->len - lo)) ||
	    !rl_ring_io(l->fd, l->ring, l->mem_base, l->buf, n, true)) {
		l->no_file = true;   /* a full disk: the rest stays in memory */
		return;
	}
	l->mem_base += n;
}


uint64_t rev_count(const struct rev_log *l)
{
	return l->noff;
}

size_t rev_bytes(const struct rev_log *l)
{
	return (size_t)(l->len - (l->noff ? l->off[0] : l->len)) + l->noff * sizeof *l->off;
}

/* rev_sync's rare part (kept out of the recorder's way: rev_sync runs
 * for every instruction). */
static __attribute__((noinline)) void rl_cut(struct rev_log *l, uint64_t n)
{
	if (n <= l->first) {
		rl_empty(l);
	} else {
		l->noff = n - l->first;
		l->len = l->off[l->noff];
		if (l->mem_base > l->len) {
			l->mem_base = l->len;   /* the file holds the rest */
			if (l->cache_hi > l->mem_base)
				rl_cache_sync(l, false);
		}
	}
}

void rev_sync(struct rev_log *l, uint64_t n)
{
	if (n <= l->first || l->first + l->noff > n)
		rl_cut(l, n);
	if (l->pos > n)
		l->pos = n;
}

static void rl_put(struct rev_log *l, const void *p, size_t n)
{
	size_t at = (size_t)(l->len - l->mem_base);
	XGROW(l->buf, l->cap, at + n);
	memcpy(l->buf + at, p, n);
	l->len += n;
}

static void rl_put_reg(struct rev_log *l, int num, uint64_t v)
{
	uint8_t b[10] = { 'R', (uint8_t)num };
	memcpy(b + 2, &v, 8);
	rl_put(l, b, sizeof b);
}

/* Memory [addr, addr+len) as it is now, page by page (what cannot be read
 * is not there to restore). */
static void rl_put_mem(struct rev_log *l, uint64_t addr, uint64_t len, const struct rev_src *s)
{
	while (len) {
		uint64_t n = 4096 - (addr & 4095);
		if (n > len)
			n = len;
		size_t at = (size_t)(l->len - l->mem_base);
		XGROW(l->buf, l->cap, at + 13 + n);
		uint8_t *p = l->buf + at;
		uint32_t n32 = (uint32_t)n;
		if (s->mem(s->ctx, addr, p + 13, n) == 0) {
			p[0] = 'M';
			memcpy(p + 1, &addr, 8);
			memcpy(p + 9, &n32, 4);
			l->len += 13 + n;
		}
		addr += n;
		len -= n;
	}
}

/* Drop the oldest entries down to three quarters of the limit. */
static __attribute__((noinline)) void rl_drop(struct qz *q, struct rev_log *l, size_t limit)
{
	size_t keep = limit / 4 * 3, k = 0;
	while (k + 1 < l->noff && l->len - l->off[k] + (l->noff - k) * 8 > keep)
		k++;
	uint64_t base = l->off[k];
	if (base > l->mem_base) {   /* dropped bytes in memory too */
		memmove(l->buf, l->buf + (base - l->mem_base), (size_t)(l->len - base));
		l->mem_base = base;
	}
	memmove(l->off, l->off + k, (l->noff - k + 1) * sizeof *l->off);
	l->noff -= k;
	l->first += k;
	l->dropped += k;
	if (!l->warned)
		qz_warn(q, "the undo log reached its limit (%zu bytes): reverse execution now "
			"reaches back to instruction %llu only (set record undo-limit)", limit,
			(unsigned long long)l->first + 1);
	l->warned = true;
}

/* Beyond the limit: rl_drop (the check runs for every instruction). */
static void rl_bound(struct qz *q, struct rev_log *l)
{
	size_t limit = l->limit ? l->limit : REV_LIMIT_DEFAULT;
	if (l->noff >= 2 && l->len - l->off[0] + l->noff * sizeof *l->off > limit)
		rl_drop(q, l, limit);
}

/* Start record recno's entry after the entries before it. */
static void rl_begin(struct rev_log *l, uint64_t recno)
{
	rev_sync(l, recno);
	if (l->noff && l->first + l->noff != recno)
		rl_empty(l);   /* a gap: what came before is unreachable */
	if (!l->noff)
		l->first = recno;
	XGROW(l->off, l->off_cap, l->noff + 2);
	l->off[l->noff++] = l->len;
	l->off[l->noff] = l->len;
	l->pos = recno + 1;
}

static void rl_end(struct qz *q, struct rev_log *l)
{
	l->off[l->noff] = l->len;
	if (l->len - l->mem_base > 2 * REV_WINDOW)
		rl_flush(q, l);
}

/* What a memory operand writes. The xsave family writes the whole
 * register-state area of the features enabled (cpuid 0xd: the ymm and zmm
 * halves too), more than its operand's size says; saving too much is
 * harmless (bytes the instruction left alone are restored to themselves). */
static uint64_t rl_write_size(const struct trace_insn *e, const struct insn_mem *m)
{
	static unsigned area;
	if (strncmp(e->in.text, "xsave", 5) != 0)
		return m->size;
	unsigned a, b = 0, c, d;
	if (!area)
		area = __get_cpuid_count(0xd, 0, &a, &b, &c, &d) && b ? b : 4096;
	return area > m->size ? area : m->size;
}

void rev_note_insn(struct qz *q, struct rev_log *l, uint64_t recno, const struct trace_insn *e,
		   const uint64_t *addr, bool skipped, const struct rev_src *src)
{
	if (l->disabled)
		return;
	rl_begin(l, recno);
	rl_put_reg(l, INSN_R_RIP, e->pc);
	rl_put_reg(l, INSN_R_RSP, src->reg(src->ctx, INSN_R_RSP));
	uint64_t def = e->in.def | e->in.cond_def;
	for (int r = 0; r < 16; r++)
		if (r != INSN_R_RSP && (def & (1ull << r)))
			rl_put_reg(l, r, src->reg(src->ctx, r));
	static const int other[] = { INSN_R_FLAGS, INSN_R_FSBASE, INSN_R_GSBASE };
	for (size_t i = 0; i < sizeof other / sizeof *other; i++)
		if (def & (1ull << other[i]))
			rl_put_reg(l, other[i], src->reg(src->ctx, other[i]));
	for (int v = 0; v < 16; v++)
		if (def & (1ull << (INSN_R_VEC0 + v))) {
			uint8_t b[18] = { 'V', (uint8_t)v };
			src->xmm(src->ctx, v, b + 2);
			rl_put(l, b, sizeof b);
		}
	for (int i = 0; i < e->in.nmem && !skipped; i++)
		if (e->in.mem[i].rw & (INSN_MEM_W | INSN_MEM_CW))
			rl_put_mem(l, addr[i], rl_write_size(e, &e->in.mem[i]), src);
	rl_end(q, l);
	rl_bound(q, l);
}

/* The most a system call may write: its result bounded by the count it
 * was given (read-like calls), else rec_sys_writes' fixed sizes. */
static long rl_sys_bound(const struct user_regs_struct *a)
{
	switch ((long)a->rax) {
	case 0: case 17: case 45: case 217: case 89: return (long)a->rdx;
	case 267: return (long)a->r10;
	case 318: return (long)a->rsi;
	default: return 0;
	}
}

struct rl_proc {
	struct qz *q;
	const struct user_regs_struct *regs;
	struct user_fpregs_struct fp;
	bool have_fp;            /* fp was read (once an instruction) */
};

static uint64_t rl_proc_reg(void *ctx, int reg)
{
	const struct rl_proc *p = ctx;
	if (reg == INSN_R_FLAGS)
		return p->regs->eflags;
	return insn_reg_value(p->regs, reg);
}

static void rl_proc_xmm(void *ctx, int n, void *out)
{
	struct rl_proc *p = ctx;
	if (!p->have_fp && proc_fpregs(p->q->proc, &p->fp) < 0)
		memset(&p->fp, 0, sizeof p->fp);
	p->have_fp = true;
	memcpy(out, (const uint8_t *)p->fp.xmm_space + 16 * n, 16);
}

static int rl_proc_mem(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct rl_proc *p = ctx;
	return proc_read(p->q->proc, addr, buf, len);
}

void rev_note_insn_proc(struct qz *q, struct rev_log *l, uint64_t recno,
			const struct trace_insn *e, const uint64_t *addr, bool skipped,
			const struct user_regs_struct *regs)
{
	struct rl_proc p = { .q = q, .regs = regs };
	struct rev_src s = { rl_proc_reg, rl_proc_mem, rl_proc_xmm, &p };
	rev_note_insn(q, l, recno, e, addr, skipped, &s);
}

void rev_note_sys(struct qz *q, struct rev_log *l, uint64_t recno,
		  const struct user_regs_struct *regs)
{
	struct sys_writes w;
	if (l->disabled || !l->noff || l->first + l->noff != recno + 1)
		return;
	/* before the call: what it may write, at most its count */
	if (!rec_sys_writes(q, regs, rl_sys_bound(regs), &w) || !w.n)
		return;
	struct rl_proc p = { .q = q, .regs = regs };
	struct rev_src s = { rl_proc_reg, rl_proc_mem, rl_proc_xmm, &p };
	for (int i = 0; i < w.n; i++) {
		uint64_t len = w.v[i].len;
		if (len > ((uint64_t)64 << 20))
			len = (uint64_t)64 << 20;
		if (len)
			rl_put_mem(l, w.v[i].addr, len, &s);
	}
	rl_end(q, l);
	rl_bound(q, l);
}

static uint64_t *rl_reg_ptr(struct user_regs_struct *r, int num)
{
	switch (num) {
	case 0: return (uint64_t *)&r->rax;  case 1: return (uint64_t *)&r->rcx;
	case 2: return (uint64_t *)&r->rdx;  case 3: return (uint64_t *)&r->rbx;
	case 4: return (uint64_t *)&r->rsp;  case 5: return (uint64_t *)&r->rbp;
	case 6: return (uint64_t *)&r->rsi;  case 7: return (uint64_t *)&r->rdi;
	case 8: return (uint64_t *)&r->r8;   case 9: return (uint64_t *)&r->r9;
	case 10: return (uint64_t *)&r->r10; case 11: return (uint64_t *)&r->r11;
	case 12: return (uint64_t *)&r->r12; case 13: return (uint64_t *)&r->r13;
	case 14: return (uint64_t *)&r->r14; case 15: return (uint64_t *)&r->r15;
	case INSN_R_FLAGS: return (uint64_t *)&r->eflags;
	case INSN_R_FSBASE: return (uint64_t *)&r->fs_base;
	case INSN_R_GSBASE: return (uint64_t *)&r->gs_base;
	case INSN_R_RIP: return (uint64_t *)&r->rip;
	default: return NULL;
	}
}

/* Swap one item with the process (xs: its XSAVE area, read by the caller
 * when the entry has an xmm item); the item's length. */
static size_t rl_swap(struct qz *q, struct user_regs_struct *regs, uint8_t *xs, uint8_t *p)
{
	if (p[0] == 'V') {
		uint8_t tmp[16], *slot = xs + 160 + 16 * p[1];   /* the legacy area's xmm */
		memcpy(tmp, slot, 16);
		memcpy(slot, p + 2, 16);
		memcpy(p + 2, tmp, 16);
		return 18;
	}
	if (p[0] == 'R') {
		uint64_t *slot = rl_reg_ptr(regs, p[1]), v;
		memcpy(&v, p + 2, 8);
		if (slot) {
			memcpy(p + 2, slot, 8);
			*slot = v;
		}
		return 10;
	}
	uint64_t addr;
	uint32_t n;
	memcpy(&addr, p + 1, 8);
	memcpy(&n, p + 9, 4);
	uint8_t tmp[4096];
	if (n <= sizeof tmp && proc_read(q->proc, addr, tmp, n) == 0 &&
	    proc_write(q->proc, addr, p + 13, n) == 0)
		memcpy(p + 13, tmp, n);
	return 13 + (size_t)n;
}

static double rl_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void rev_apply(struct qz *q, struct rev_log *l, uint64_t i, bool back)
{
	if (i < l->first || i >= l->first + l->noff)
		return;
	double t0 = rl_now();
	static uint8_t **items;   /* a read's buffer is an item a page */
	static size_t cap;
	static uint8_t *ent;      /* the entry, wherever it is kept */
	static size_t ent_cap;
	size_t n = 0;
	uint64_t at = l->off[i - l->first], len = l->off[i - l->first + 1] - at;
	XGROW(ent, ent_cap, len + 1);
	if (!rl_io(l, at, ent, (size_t)len, false))
		return;   /* the file lost it: the process stays where it is */
	uint8_t *p = ent, *end = ent + len;
	bool vec = false;
	while (p < end) {
		XGROW(items, cap, n + 1);
		items[n++] = p;
		vec |= p[0] == 'V';
		p += p[0] == 'R' ? 10 : p[0] == 'V' ? 18 :
		     13 + (size_t)(p[9] | p[10] << 8 | p[11] << 16 | (uint32_t)p[12] << 24);
	}
	struct user_regs_struct *regs = proc_regs(q->proc);
	/* xmm through the XSAVE area, not SETFPREGS: that would mark the x87
	 * state in use (XSTATE_BV), a change the program never made */
	size_t xlen = 0;
	uint8_t *xs = vec ? regs_xstate_read(proc_cur_tid(q->proc), &xlen) : NULL;
	for (size_t k = 0; k < n; k++) {
		uint8_t *it = items[back ? k : n - 1 - k];
		if (it[0] != 'V' || (xs && xlen >= 512 + 8))
			rl_swap(q, regs, xs, it);
	}
	if (xs && xlen >= 512 + 8) {
		xs[512] |= 2;   /* XSTATE_BV: the SSE state is the area's */
		regs_xstate_write(proc_cur_tid(q->proc), xs, xlen);
	}
	free(xs);
	rl_io(l, at, ent, (size_t)len, true);   /* the swapped values */
	proc_regs_dirty(q->proc);
	l->apply_secs += rl_now() - t0;
	l->applied++;
}
