/* The save agent: a task sharing the program's address space (cloned
 * from it by an injected clone(CLONE_VM), not one of its threads) that
 * reads the undo engine's userfaultfd. On a write-protect fault it copies
 * the run's pre-images into its store with memcpy, inside the program's
 * memory, so that no page is pinned across processes (process_vm_readv's
 * price), lists the run for qzdb, and lifts the protection. At a rollback
 * it moves them back (UFFDIO_MOVE, which only works from inside the
 * address space).
 * Freestanding: no libc, no globals, no relocations; built into a flat
 * blob (the Makefile) that qzdb maps into the program. */
#include <stddef.h>
#include <stdint.h>

#include "agent-abi.h"

#define PG 4096ul
#define RUN_MAX 4096ul     /* pages: 16 MiB, as undo.c */
#define RUN_GROW 4

/* The child of the clone starts after the syscall instruction with the
 * registers qzdb set (r12: the control area); the parent, single-stepped
 * by qzdb, never runs past it. */
__asm__(".section .text.start,\"ax\"\n"
	".globl agent_start\n"
	"agent_start:\n"
	"	syscall\n"
	"	test %rax, %rax\n"
	"	jnz 1f\n"
	"	mov %r12, %rdi\n"
	"	and $-16, %rsp\n"
	"	call agent_main\n"
	"	mov $60, %eax\n"
	"	xor %edi, %edi\n"
	"	syscall\n"
	"1:	int3\n"
	".previous\n");

static long sys6(long nr, long a, long b, long c, long d, long e, long f)
{
	long r;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	__asm__ volatile("syscall" : "=a"(r) : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return r;
}

#define SYS_read 0
#define SYS_write 1
#define SYS_poll 7
#define SYS_ioctl 16
#define SYS_pread64 17
#define SYS_exit 60
#define SYS_madvise 28
#define SYS_prctl 157
#define MADV_POPULATE_WRITE 23
#define SYS_close_range 436

/* linux/userfaultfd.h, without its includes */
#define UFFD_EVENT_PAGEFAULT 0x12
#define UFFD_PAGEFAULT_FLAG_WP (1 << 1)
#define UFFDIO_WRITEPROTECT 0xc018aa06ul
#define UFFDIO_MOVE 0xc028aa05ul
#define UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES (1 << 1)

static void copy(void *d, const void *s, uint64_t n)
{
	__asm__ volatile("rep movsq" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
	(void)d;
}

struct agent {
	struct agent_ctl *c;
	struct agent_run *runs;
	uint64_t nruns, stored;
	uint64_t run_lo, run_hi, run_len;
	uint64_t pm[RUN_MAX];
};

static void send(struct agent *a, uint64_t kind, uint64_t seq, uint64_t addr, uint64_t n,
		 uint64_t off, const void *msg)
{
	struct agent_rec r = {kind, seq, addr, n, off, 0, {0}};
	if (msg)
		copy(r.msg, msg, sizeof r.msg / 8);
	if (sys6(SYS_write, a->c->recfd, (long)&r, sizeof r, 0, 0, 0) != sizeof r)
		sys6(SYS_exit, 1, 0, 0, 0, 0, 0);   /* qzdb gone: nothing more to do */
}

/* How many of the n pages from lo are still write-protected (never
 * saved this epoch): bit 57 of their pagemap entries. */
static uint64_t protected_run(struct agent *a, uint64_t lo, uint64_t n)
{
	if (sys6(SYS_pread64, a->c->pmfd, (long)a->pm, (long)(n * 8), (long)(lo / PG * 8), 0, 0) != (long)(n * 8))
		return 0;
	uint64_t k = 0;
	while (k < n && (a->pm[k] >> 57 & 1))
		k++;
	return k;
}

static uint64_t protected_down(struct agent *a, uint64_t hi, uint64_t n)
{
	if (hi / PG < n)
		n = hi / PG;
	if (!n || sys6(SYS_pread64, a->c->pmfd, (long)a->pm, (long)(n * 8), (long)((hi / PG - n) * 8), 0, 0) != (long)(n * 8))
		return 0;
	uint64_t k = 0;
	while (k < n && (a->pm[n - 1 - k] >> 57 & 1))
		k++;
	return k;
}

static long wp_off(struct agent *a, uint64_t lo, uint64_t len)
{
	uint64_t w[3] = {lo, len, 0};
	return sys6(SYS_ioctl, a->c->ufd, (long)UFFDIO_WRITEPROTECT, (long)w, 0, 0, 0);
}

/* Do the n pages at lo all repeat one 8-byte word (zeros, a memset)? */
static int same_word(uint64_t lo, uint64_t n, uint64_t *word)
{
	const volatile uint64_t *w = (const uint64_t *)lo;
	uint64_t first = w[0];
	for (uint64_t i = 0; i < n * PG / 8; i++)
		if (w[i] != first)
			return 0;
	*word = first;
	return 1;
}

static void fill_words(uint64_t lo, uint64_t n, uint64_t word)
{
	uint64_t cnt = n * PG / 8;
	void *d = (void *)lo;
	__asm__ volatile("rep stosq" : "+D"(d), "+c"(cnt) : "a"(word) : "memory");
}

/* A write-protect fault at page p: save the run (four times the last
 * while faults follow on from it) and release it; false: qzdb's to do
 * (nothing it can save, or the release refused: EAGAIN while an unmap
 * event is unread; qzdb, told the run is saved, releases it). */
static int save(struct agent *a, uint64_t p)
{
	int up = p == a->run_hi, down = p + PG == a->run_lo;
	uint64_t want = up || down ? a->run_len * RUN_GROW : 1;
	want = want < RUN_MAX ? want : RUN_MAX;
	uint64_t lo = p, n;
	if (down) {
		n = protected_down(a, p + PG, want);
		lo = p + PG - n * PG;
	} else {
		n = protected_run(a, p, want);
	}
	if (!n || a->nruns >= a->c->maxrecs || a->stored + n * PG > a->c->len)
		return 0;
	uint64_t word = 0;
	if (a->c->fill && same_word(lo, n, &word)) {   /* held as the word: no copy */
		a->runs[a->nruns++] = (struct agent_run){lo, n, 0, 1, word};
	} else {
		/* the store's pages allocated at once (fewer than a fault each) */
		sys6(SYS_madvise, (long)(a->c->store + a->stored), (long)(n * PG), MADV_POPULATE_WRITE,
		     0, 0, 0);
		copy((void *)(a->c->store + a->stored), (const void *)lo, n * PG / 8);
		a->runs[a->nruns++] = (struct agent_run){lo, n, a->stored, 0, 0};
		a->stored += n * PG;
	}
	__asm__ volatile("" ::: "memory");
	a->c->nruns = a->nruns;   /* before the release: a dying agent leaves it known */
	a->run_lo = lo;
	a->run_hi = lo + n * PG;
	a->run_len = n;
	return wp_off(a, lo, n * PG) == 0;
}

static long move(struct agent *a, uint64_t dst, uint64_t src, uint64_t len, uint64_t mode)
{
	uint64_t m[5] = {dst, src, len, mode, 0};
	return sys6(SYS_ioctl, a->c->ufd, (long)UFFDIO_MOVE, (long)m, 0, 0, 0);
}

/* Put every saved run back: move the written pages out to the trash and
 * the pre-images in (no copy), or copy where the kernel refuses. */
static void roll(struct agent *a, uint64_t seq)
{
	int moved_all = a->c->move != 0, failed = 0;
	for (uint64_t i = 0; i < a->nruns; i++) {
		struct agent_run r = a->runs[i];
		uint64_t len = r.n * PG;
		if (r.fill) {
			fill_words(r.addr, r.n, r.word);
			continue;
		}
		if (moved_all && move(a, a->c->trash + r.off, r.addr, len, UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES) == (long)0 &&
		    move(a, r.addr, a->c->store + r.off, len, 0) == 0)
			continue;
		moved_all = 0;
		copy((void *)r.addr, (const void *)(a->c->store + r.off), len / 8);
	}
	if (moved_all && a->nruns) {   /* the written pages, populated, hold the next saves */
		uint64_t t = a->c->store;
		a->c->store = a->c->trash;
		a->c->trash = t;
	}
	a->nruns = a->stored = a->c->nruns = 0;
	send(a, AGENT_ROLLED, seq, a->c->store, 0, (uint64_t)failed, NULL);
	a->run_lo = a->run_hi = a->run_len = 0;
}

void agent_main(struct agent_ctl *c)
{
	struct agent a0;   /* (its pm array is not cleared: no memset here) */
	struct agent *a = &a0;
	a->c = c;
	a->nruns = a->stored = c->nruns = 0;
	a->run_lo = a->run_hi = a->run_len = 0;
	a->runs = (struct agent_run *)c->recs;
	uint64_t dfl[4] = {0, 0, 0, 0};   /* SIG_DFL: a fault of its own never runs
					    a handler of the program's (copied by the clone) */
	for (long sig = 1; sig <= 64; sig++)
		if (sig != 9 && sig != 19)
			sys6(13 /* rt_sigaction */, sig, (long)dfl, 0, 8, 0, 0);
	uint64_t all = ~0ull;
	sys6(14 /* rt_sigprocmask */, 0 /* SIG_BLOCK */, (long)&all, 0, 8, 0, 0);   /* the
		program's signals (to its group) are not for it */
	sys6(SYS_prctl, 1 /* PR_SET_PDEATHSIG */, 9 /* SIGKILL */, 0, 0, 0, 0);
	sys6(SYS_prctl, 15 /* PR_SET_NAME */, (long)"qzdb-agent", 0, 0, 0, 0);
	int keep[4] = {c->ufd, c->cmdfd, c->recfd, c->pmfd};
	for (int i = 0; i < 4; i++)   /* (sorted, so the gaps can be closed) */
		for (int j = i + 1; j < 4; j++)
			if (keep[j] < keep[i]) {
				int t = keep[i];
				keep[i] = keep[j];
				keep[j] = t;
			}
	long from = 0;
	for (int i = 0; i < 4; i++) {
		if (keep[i] > from)
			sys6(SYS_close_range, from, keep[i] - 1, 0, 0, 0, 0);
		from = keep[i] + 1;
	}
	sys6(SYS_close_range, from, ~0u, 0, 0, 0, 0);
	for (;;) {
		struct { int fd; short ev, rev; } pf[2] = {{c->ufd, 1, 0}, {c->cmdfd, 1, 0}};
		if (sys6(SYS_poll, (long)pf, 2, -1, 0, 0, 0) < 0)
			continue;
		if (pf[0].rev & 1) {
			uint8_t msgs[16][32];
			long got = sys6(SYS_read, c->ufd, (long)msgs, sizeof msgs, 0, 0, 0);
			for (long i = 0; i < got / 32; i++) {
				uint8_t ev = msgs[i][0];
				uint64_t flags, addr;
				copy(&flags, &msgs[i][8], 1);
				copy(&addr, &msgs[i][16], 1);
				if (ev == UFFD_EVENT_PAGEFAULT && (flags & UFFD_PAGEFAULT_FLAG_WP) &&
				    save(a, addr & ~(PG - 1)))
					continue;
				send(a, AGENT_MSG, 0, 0, 0, 0, msgs[i]);
			}
		}
		if (pf[1].rev & ~1)   /* (POLLHUP, POLLERR: qzdb gone) */
			if (!(pf[1].rev & 1))
				break;
		if (pf[1].rev & 1) {
			struct agent_cmd cmd;
			if (sys6(SYS_read, c->cmdfd, (long)&cmd, sizeof cmd, 0, 0, 0) != sizeof cmd)
				break;
			if (cmd.op == AGENT_QUIT)
				break;
			if (cmd.op == AGENT_ROLL) {
				roll(a, cmd.seq);
				continue;
			}
			if (cmd.op == AGENT_RESET) {
				a->nruns = a->stored = c->nruns = 0;
				a->run_lo = a->run_hi = a->run_len = 0;
			}
			send(a, AGENT_SYNCED, cmd.seq, 0, a->nruns, 0, NULL);
		}
	}
}
