/* qzheap: the allocator qzdb preloads (LD_PRELOAD) into a program started
 * while only heap-call detectors are on (double-free, invalid-free, leak):
 * malloc, free and the rest run in the program at native speed, with no
 * ptrace stop, and keep in each block's header what the detectors need
 * (size, the call's return address, the program's call site found on the
 * stack when a library called, whether it is live). A free of anything
 * that is not a live block's start stops nowhere here: it jumps to
 * qzheap_bad_free with the stack and rdi of free's entry, where qzdb has
 * its internal stop; qzdb reads the blocks (qzheap_state: the region and
 * its headers, back to back) at such a stop and at exit. Not part of qzdb:
 * built as qzheap.so beside it (detect/preload.c finds it). Thread-safe
 * with one spinlock; blocks are reused last-freed first by size class, as
 * glibc's tcache does. The layout is detect/preload.c's: keep them equal
 * (QZHEAP_VERSION). */
#define _GNU_SOURCE
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define QZHEAP_MAGIC 0x51485a5148455031ull   /* "1PEHQZHQ" */
#define QZHEAP_VERSION 1
#define TAG_LIVE 0x4c4956454c495645ull
#define TAG_FREED 0x4652454546524545ull
#define TAG_PAD 0x5041445041445041ull
#define HDR 64                       /* bytes of header before a block */
#define NSMALL 64                    /* classes of 16..1024 bytes */
#define NCLS (NSMALL + 40)           /* then 2 KiB << k */
#define NOCLS 0xffff                 /* not reused (an aligned block) */
#define RESERVE (1ull << 38)         /* address space reserved, at most */
#define COMMIT (1ull << 20)          /* made writable at a time, at least */

enum { FN_MALLOC, FN_CALLOC, FN_REALLOC, FN_FREE, FN_MEMALIGN, FN_ALIGNED_ALLOC,
       FN_POSIX_MEMALIGN, FN_VALLOC };

/* Before each block, 16-aligned; tag first, span last: the word before the block
 * is its distance to the next block, like glibc's chunk size word, so that
 * qzdb's shadow (access.c) finds the slack after a block there too. */
struct qh {
	uint64_t tag;                    /* TAG_* ^ the block's address: first,
	                                    where an overflow of the block
	                                    before lands */
	uint64_t size;                   /* asked for */
	uint64_t alloc_ret, alloc_prog;  /* return address; the program's call
	                                    site when that is a library's, or 0 */
	uint64_t free_ret, free_prog;
	uint16_t cls;
	uint8_t fn_alloc, fn_free;
	uint32_t pad;
	uint64_t span;                   /* to the next block's start */
};
_Static_assert(sizeof(struct qh) == HDR, "header size");

/* What qzdb reads (by this symbol's address; lo is 0 until the first
 * allocation). */
struct qzheap_state {
	uint64_t magic, version;
	uint64_t lo, bump, commit;       /* blocks in [lo, bump) back to back */
	uint64_t calls[8];               /* per FN_* */
	uint64_t exe_lo, exe_hi;         /* the program's code */
	uint64_t heads[NCLS];            /* freed blocks by class, last first */
	int lock;
};
struct qzheap_state qzheap_state __attribute__((visibility("default"))) = {
	.magic = QZHEAP_MAGIC, .version = QZHEAP_VERSION,
};
extern void *__libc_stack_end;
static uint64_t reserved;            /* bytes of address space at lo */

static uint64_t cap_of(unsigned c)
{
	return c < NSMALL ? (uint64_t)(c + 1) * 16 : 2048ull << (c - NSMALL);
}

static unsigned cls_of(uint64_t n)
{
	if (n <= 1024)
		return n ? (unsigned)((n + 15) / 16 - 1) : 0;
	unsigned c = NSMALL;
	while (c < NCLS - 1 && cap_of(c) < n)
		c++;
	return c;
}

static void lock(void)
{
	while (__atomic_exchange_n(&qzheap_state.lock, 1, __ATOMIC_ACQUIRE))
		sched_yield();
}

static void unlock(void)
{
	__atomic_store_n(&qzheap_state.lock, 0, __ATOMIC_RELEASE);
}

static int find_exe(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	(void)data;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_LOAD && (info->dlpi_phdr[i].p_flags & PF_X)) {
			qzheap_state.exe_lo = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
			qzheap_state.exe_hi = qzheap_state.exe_lo + info->dlpi_phdr[i].p_memsz;
		}
	return 1;   /* the first object is the program */
}

/* Under the lock. */
static int init(void)
{
	struct qzheap_state *s = &qzheap_state;
	if (s->lo)
		return 0;
	/* a smaller region where the address space is limited (ulimit -v) */
	void *m = MAP_FAILED;
	for (reserved = RESERVE; m == MAP_FAILED && reserved >= COMMIT * 64; reserved >>= 1)
		m = mmap(NULL, reserved, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return -1;
	reserved <<= 1;   /* the loop halved it once more */
	s->lo = s->bump = s->commit = (uint64_t)m;
	return 0;
}

/* Room for n more bytes at bump, made writable. */
static int room(uint64_t n)
{
	struct qzheap_state *s = &qzheap_state;
	if (n > reserved || s->bump + n > s->lo + reserved)
		return -1;
	if (s->bump + n <= s->commit)
		return 0;
	uint64_t want = (s->bump + n - s->commit + COMMIT - 1) & ~(COMMIT - 1);
	if (s->commit + want > s->lo + reserved)
		want = s->lo + reserved - s->commit;
	if (mprotect((void *)s->commit, want, PROT_READ | PROT_WRITE) < 0)
		return -1;
	s->commit += want;
	return 0;
}

/* Could ret follow a call instruction (e8 rel32; ff /2 with a register,
 * disp8, disp32 or SIB operand)? */
static int after_call(uint64_t ret)
{
	const uint8_t *p = (const uint8_t *)ret;
	if (ret - 7 < qzheap_state.exe_lo)
		return 0;
	if (p[-5] == 0xe8)
		return 1;
	for (int len = 2; len <= 7; len++)
		if (p[-len] == 0xff && ((p[-len + 1] >> 3) & 7) == 2)
			return 1;
	return 0;
}

/* The program's call site when a library function called the allocator
 * (strdup's malloc): the first word up the stack that is a return address
 * into the program's code. qzdb checks it again. */
#define MAIN_STACK_GAP (8ull << 20)
static uint64_t prog_site(uint64_t ret, const uint64_t *frame)
{
	struct qzheap_state *s = &qzheap_state;
	if (!s->exe_hi) {
		dl_iterate_phdr(find_exe, NULL);
		if (!s->exe_hi)
			s->exe_hi = 1;
	}
	if (ret >= s->exe_lo && ret < s->exe_hi)
		return 0;
	/* Read only what is surely mapped: the main stack from the frame up
	 * to its top (mmap keeps its growth gap free), else the frame's own
	 * page (a thread's or coroutine's stack may end right above it,
	 * under another stack's guard page); a site not found there is 0. */
	uint64_t f = (uint64_t)frame, top = (uint64_t)__libc_stack_end;
	uint64_t lim = (f | 4095) + 1;
	if (f < top && top - f < MAIN_STACK_GAP)
		lim = top - f < 512 * 8 ? top & ~7ull : f + 512 * 8;
	const uint64_t *end = (const uint64_t *)lim;
	for (const uint64_t *w = frame + 2; w < end; w++)
		if (*w >= s->exe_lo + 7 && *w < s->exe_hi && after_call(*w))
			return *w;
	return 0;
}

static void fork_child(void)
{
	__atomic_store_n(&qzheap_state.lock, 0, __ATOMIC_RELEASE);
}

/* The program's code range early, outside any lock (prog_site does it
 * on first use when a block was made before); a fork holds the lock so
 * that the child's copy of the heap is whole, and the child starts with
 * it free (another thread may have held it). */
__attribute__((constructor)) static void qzheap_init(void)
{
	if (!qzheap_state.exe_hi)
		dl_iterate_phdr(find_exe, NULL);
	pthread_atfork(lock, unlock, fork_child);
}

static struct qh *hdr(void *p)
{
	return (struct qh *)((char *)p - HDR);
}

/* The slack after a block (up to 16 bytes of it) holds a pattern, and
 * the next header's tag is checked: a free finding either overwritten
 * aborts as glibc's free would (an overflow of the block; the heap-call
 * classes do not report it, heap-overflow does). */
#define SLACK 0xa5
static void slack_set(void *p, struct qh *h)
{
	uint64_t n = h->span - HDR - h->size;
	memset((char *)p + h->size, SLACK, n < 16 ? n : 16);
}

static int intact(void *p, struct qh *h)
{
	uint64_t n = h->span - HDR - h->size;
	const unsigned char *s = (const unsigned char *)p + h->size;
	for (uint64_t i = 0; i < n && i < 16; i++)
		if (s[i] != SLACK)
			return 0;
	uint64_t next = (uint64_t)p + h->span;   /* the next block's start */
	if (next - HDR >= qzheap_state.bump)
		return 1;
	uint64_t t = ((struct qh *)(next - HDR))->tag ^ next;
	return t == TAG_LIVE || t == TAG_FREED || t == TAG_PAD;
}

static void corrupt(const char *what)
{
	fprintf(stderr, "%s\n", what);
	abort();
}
#define OVERRUN "free(): invalid next size (qzheap: a block was written past its end)"

/* A freed block's link (its first word) as free left it: 0 or a freed
 * block; else the program wrote into a freed block. */
static void *next_freed(void *p)
{
	uint64_t n = *(uint64_t *)p, lo = qzheap_state.lo;
	if (n && (n < lo + HDR || n >= qzheap_state.bump || (n & 15) ||
		  ((struct qh *)(n - HDR))->tag != (TAG_FREED ^ n)))
		corrupt("malloc(): corrupted free list (qzheap: a freed block was written)");
	return (void *)n;
}

/* Under the lock: a block of n bytes aligned to align (16 or more). */
static void *take(uint64_t n, uint64_t align, int fn, uint64_t ret, const uint64_t *frame)
{
	struct qzheap_state *s = &qzheap_state;
	if (init() < 0)
		return NULL;
	unsigned c = align <= 16 ? cls_of(n) : NOCLS;
	if (c != NOCLS && cap_of(c) < n)
		return NULL;   /* too big for any class */
	void *p;
	if (c != NOCLS && s->heads[c]) {
		p = (void *)s->heads[c];
		s->heads[c] = (uint64_t)next_freed(p);
	} else {
		uint64_t cap = c != NOCLS ? cap_of(c) : (n + 15) & ~15ull;
		uint64_t at = s->bump + HDR, gap = 0;
		if (at % align)
			gap = ((at + HDR + align - 1) & ~(align - 1)) - at;
		if (cap < n || room(gap + HDR + cap) < 0)
			return NULL;
		if (gap) {   /* a pad record keeps the headers walkable */
			struct qh *pad = (struct qh *)s->bump;
			memset(pad, 0, sizeof *pad);
			pad->tag = TAG_PAD ^ at;
			pad->cls = NOCLS;
			pad->span = gap;
		}
		p = (void *)(at + gap);
		s->bump = at + gap + cap;
		hdr(p)->span = cap + HDR;
	}
	struct qh *h = hdr(p);
	h->size = n;
	h->alloc_ret = ret;
	h->alloc_prog = prog_site(ret, frame);
	h->free_ret = h->free_prog = 0;
	h->tag = TAG_LIVE ^ (uint64_t)p;
	h->cls = (uint16_t)c;
	h->fn_alloc = (uint8_t)fn;
	h->fn_free = 0;
	slack_set(p, h);
	s->calls[fn]++;
	return p;
}

static int live(void *p)
{
	struct qzheap_state *s = &qzheap_state;
	uint64_t a = (uint64_t)p;
	return s->lo && a >= s->lo + HDR && a < s->bump && !(a & 15) &&
	       hdr(p)->tag == (TAG_LIVE ^ a);
}

/* Under the lock: p is a live block. */
static void give(void *p, int fn, uint64_t ret, const uint64_t *frame)
{
	struct qh *h = hdr(p);
	h->tag = TAG_FREED ^ (uint64_t)p;
	h->free_ret = ret;
	h->free_prog = prog_site(ret, frame);
	h->fn_free = (uint8_t)fn;
	if (h->cls != NOCLS) {
		*(uint64_t *)p = qzheap_state.heads[h->cls];
		qzheap_state.heads[h->cls] = (uint64_t)p;
	}
}

#define RET ((uint64_t)__builtin_return_address(0))
#define FRAME ((const uint64_t *)__builtin_frame_address(0))

static void *alloc(uint64_t n, uint64_t align, int fn, uint64_t ret, const uint64_t *frame)
{
	lock();
	void *p = take(n, align, fn, ret, frame);
	unlock();
	if (!p)
		errno = ENOMEM;
	return p;
}

__attribute__((visibility("default"))) void *malloc(size_t n)
{
	return alloc(n, 16, FN_MALLOC, RET, FRAME);
}

__attribute__((visibility("default"))) void *calloc(size_t k, size_t n)
{
	size_t t;
	if (__builtin_mul_overflow(k, n, &t)) {
		errno = ENOMEM;
		return NULL;
	}
	lock();
	uint64_t bump = qzheap_state.bump;
	void *p = take(t, 16, FN_CALLOC, RET, FRAME);
	int fresh = p && (uint64_t)p > bump;   /* new memory is zero */
	unlock();
	if (!p)
		errno = ENOMEM;
	else if (!fresh)
		memset(p, 0, t);
	return p;
}

/* Not a live block's start: qzdb's internal stop is here, entered with
 * free's stack and rdi (free jumps here). After a report the program goes
 * on and the free does nothing (glibc would abort). */
__attribute__((visibility("default"), noinline)) void qzheap_bad_free(void *p)
{
	__asm__ volatile("" : : "r"(p) : "memory");
}

/* Returns 0 when done, else free jumps to qzheap_bad_free. */
__attribute__((visibility("hidden"), used)) int qzheap_free(void *p, uint64_t ret,
							    const uint64_t *frame)
{
	__atomic_fetch_add(&qzheap_state.calls[FN_FREE], 1, __ATOMIC_RELAXED);
	if (!p)
		return 0;
	lock();
	int ok = live(p);
	if (ok && !intact(p, hdr(p))) {
		unlock();
		corrupt(OVERRUN);
	}
	if (ok)
		give(p, FN_FREE, ret, frame);
	unlock();
	return !ok;
}

/* free(p): qzheap_free(p, return address, the frame's words), then back
 * to the caller or on to qzheap_bad_free with free's own stack. */
__asm__(".text\n"
	".globl free\n"
	".type free, @function\n"
	"free:\n"
	"	.cfi_startproc\n"
	"	endbr64\n"
	"	push %rdi\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	mov 8(%rsp), %rsi\n"
	"	mov %rsp, %rdx\n"
	"	call qzheap_free\n"
	"	pop %rdi\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	test %eax, %eax\n"
	"	jnz qzheap_bad_free\n"
	"	ret\n"
	"	.cfi_endproc\n"
	".size free, .-free\n");

__attribute__((visibility("default"))) void *realloc(void *old, size_t n)
{
	uint64_t ret = RET;
	if (!old)
		return alloc(n, 16, FN_REALLOC, ret, FRAME);
	lock();
	if (!live(old)) {
		unlock();
		fprintf(stderr, "realloc(): invalid pointer\n");
		abort();
	}
	struct qh *h = hdr(old);
	if (n == 0) {
		qzheap_state.calls[FN_REALLOC]++;
		give(old, FN_REALLOC, ret, FRAME);
		unlock();
		return NULL;
	}
	void *p = NULL;
	if (!intact(old, h)) {
		unlock();
		corrupt(OVERRUN);
	}
	if (h->cls != NOCLS && n <= cap_of(h->cls) && cls_of(n) == h->cls) {
		h->size = n;   /* in place: the same block */
		slack_set(old, h);
		qzheap_state.calls[FN_REALLOC]++;
		p = old;
	} else if ((p = take(n, 16, FN_REALLOC, ret, FRAME))) {
		memcpy(p, old, h->size < n ? h->size : n);
		give(old, FN_REALLOC, ret, FRAME);
	}
	unlock();
	if (!p)
		errno = ENOMEM;
	return p;
}

static int pow2(size_t a)
{
	return a && !(a & (a - 1));
}

__attribute__((visibility("default"))) void *memalign(size_t align, size_t n)
{
	if (!pow2(align)) {
		errno = EINVAL;
		return NULL;
	}
	return alloc(n, align < 16 ? 16 : align, FN_MEMALIGN, RET, FRAME);
}

__attribute__((visibility("default"))) void *aligned_alloc(size_t align, size_t n)
{
	if (!pow2(align)) {
		errno = EINVAL;
		return NULL;
	}
	return alloc(n, align < 16 ? 16 : align, FN_ALIGNED_ALLOC, RET, FRAME);
}

__attribute__((visibility("default"))) int posix_memalign(void **out, size_t align, size_t n)
{
	if (!pow2(align) || align % sizeof(void *))
		return EINVAL;
	void *p = alloc(n, align < 16 ? 16 : align, FN_POSIX_MEMALIGN, RET, FRAME);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

__attribute__((visibility("default"))) void *valloc(size_t n)
{
	return alloc(n, 4096, FN_VALLOC, RET, FRAME);
}

__attribute__((visibility("default"))) void *pvalloc(size_t n)
{
	return alloc((n + 4095) & ~4095ul, 4096, FN_VALLOC, RET, FRAME);
}

__attribute__((visibility("default"))) size_t malloc_usable_size(void *p)
{
	return p && live(p) ? hdr(p)->size : 0;
}
