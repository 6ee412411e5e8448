/* pagewatch: watchpoints by page protection (see pagewatch.h).
 *
 * Each managed page remembers the program's own protection (prog) and the
 * bits we take away (ours). A SIGSEGV with SEGV_ACCERR on a page where
 * ours is applied is handled here: the page gets prog back, the faulting
 * instruction is single-stepped alone (proc_step stops the other threads),
 * and ours is re-applied. If the step faults again under the program's own
 * protection, the fault is the program's: ours goes back on, the original
 * siginfo is restored (PTRACE_SETSIGINFO) and the stop is classified as
 * the program's SIGSEGV, so its handler sees exactly its own fault.
 *
 * The program's own mprotect/pkey_mprotect/munmap/mmap/mremap/brk: while
 * pages are protected, proc_cont resumes with PTRACE_SYSCALL, and at the
 * exit of those calls the managed pages' prog is re-derived from the call
 * (mprotect: its argument; the others: /proc/PID/maps, which shows the new
 * mapping's protection) before ours is applied again. Tracing every system
 * call costs two stops per call, but only while page watchpoints exist;
 * the alternative, a seccomp filter, cannot be removed on detach.
 * A system call that fails with EFAULT because the kernel met one of our
 * protected pages (read() into a watched buffer) is run again with the
 * program's protection, then ours is re-applied at its exit. */
#include "pagewatch.h"

#include <Zydis/Zydis.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>

#include "proc/inject.h"
#include "run.h"
#include "session.h"

#define PW_PAGE 4096ull
#define PW_ALLPROT (PROT_READ | PROT_WRITE | PROT_EXEC)

struct pw_page {
	uint64_t addr;
	int prog;                 /* the program's own protection */
	int ours;                 /* the bits we take away */
	bool mapped;
	bool applied;             /* prog & ~ours is in place */
};

struct pw_owned {
	struct pw_range *r;
	size_t n;
	pw_hit_fn hit;
};

struct pw_state {
	struct pw_owned own[PW_NOWNERS];
	struct pw_page *pages;
	size_t npages, cap;
	bool tracing;             /* proc_trace_syscalls is on */
	pid_t efault_tid;         /* a call re-run unprotected (0: none) */
};

/* A mapping from /proc/PID/maps. */
struct pw_map {
	uint64_t lo, hi;
	int prot;
	bool stack;
};

static struct pw_state *pw_state(struct qz *q)
{
	if (!q->pw)
		q->pw = xcalloc(1, sizeof *q->pw);
	return q->pw;
}

/* ---- the program's mappings ---- */

static size_t pw_read_maps(struct qz *q, struct pw_map **out)
{
	char path[64], line[512];
	snprintf(path, sizeof path, "/proc/%d/maps", proc_pid(q->proc));
	FILE *f = fopen(path, "re");
	size_t n = 0, cap = 0;
	*out = NULL;
	while (f && fgets(line, sizeof line, f)) {
		unsigned long long lo, hi;
		char perm[8];
		if (sscanf(line, "%llx-%llx %7s", &lo, &hi, perm) != 3)
			continue;
		XGROW(*out, cap, n + 1);
		(*out)[n++] = (struct pw_map){
			lo, hi,
			(perm[0] == 'r' ? PROT_READ : 0) | (perm[1] == 'w' ? PROT_WRITE : 0) |
			(perm[2] == 'x' ? PROT_EXEC : 0),
			strstr(line, "[stack]") != NULL,
		};
	}
	if (f)
		fclose(f);
	return n;
}

static const struct pw_map *pw_map_at(const struct pw_map *m, size_t n, uint64_t a)
{
	for (size_t i = 0; i < n; i++)
		if (a >= m[i].lo && a < m[i].hi)
			return &m[i];
	return NULL;
}

bool pw_on_stack(struct qz *q, uint64_t addr)
{
	if (!qz_running(q))
		return false;
	struct pw_map *m;
	size_t n = pw_read_maps(q, &m);
	const struct pw_map *at = pw_map_at(m, n, addr);
	uint64_t sp = proc_regs(q->proc)->rsp;
	bool r = at && (at->stack || (sp >= at->lo && sp < at->hi));
	free(m);
	return r;
}

/* ---- protecting ---- */

static struct pw_page *pw_page_at(struct pw_state *s, uint64_t addr)
{
	uint64_t a = addr & ~(PW_PAGE - 1);
	for (size_t i = 0; i < s->npages; i++)
		if (s->pages[i].addr == a)
			return &s->pages[i];
	return NULL;
}

static int pw_mprotect(struct qz *q, uint64_t addr, uint64_t len, int prot)
{
	uint64_t args[6] = {addr, len, (uint64_t)prot, 0, 0, 0};
	int64_t ret;
	if (inj_syscall(q->proc, SYS_mprotect, args, &ret) < 0 || ret != 0)
		return -1;
	return 0;
}

/* Put page g into the state it should have: ours on or off. */
static void pw_apply_page(struct qz *q, struct pw_page *g, bool on)
{
	if (!g->mapped || g->applied == on)
		return;
	if (pw_mprotect(q, g->addr, PW_PAGE, on ? g->prog & ~g->ours : g->prog) == 0)
		g->applied = on;
}

static void pw_tracing(struct qz *q)
{
	struct pw_state *s = q->pw;
	bool want = s->npages > 0 && qz_running(q);
	if (q->proc && proc_alive(q->proc) && want != s->tracing)
		proc_trace_syscalls(q->proc, want);
	s->tracing = want && q->proc;
}

static void pw_apply_all(struct qz *q, bool on)
{
	struct pw_state *s = q->pw;
	for (size_t i = 0; qz_running(q) && i < s->npages; i++)
		pw_apply_page(q, &s->pages[i], on);
	pw_tracing(q);
}

/* The bits each page must lose, from every owner's ranges. */
static int pw_wanted(const struct pw_state *s, uint64_t page)
{
	int ours = 0;
	for (int o = 0; o < PW_NOWNERS; o++)
		for (size_t i = 0; i < s->own[o].n; i++) {
			const struct pw_range *r = &s->own[o].r[i];
			if (r->len && r->addr < page + PW_PAGE && r->addr + r->len > page)
				ours |= r->reads ? PW_ALLPROT : PROT_WRITE;
		}
	return ours;
}

static void pw_add_page(struct pw_state *s, uint64_t page, const struct pw_map *m)
{
	if (pw_page_at(s, page))
		return;
	XGROW(s->pages, s->cap, s->npages + 1);
	s->pages[s->npages++] = (struct pw_page){
		.addr = page, .prog = m ? m->prot : 0, .mapped = m != NULL,
	};
}

/* Pages for every range (prog from the maps), and the bits to take. */
static void pw_collect(struct qz *q)
{
	struct pw_state *s = q->pw;
	struct pw_map *m;
	size_t nm = pw_read_maps(q, &m);
	for (int o = 0; o < PW_NOWNERS; o++)
		for (size_t i = 0; i < s->own[o].n; i++) {
			const struct pw_range *r = &s->own[o].r[i];
			for (uint64_t a = r->addr & ~(PW_PAGE - 1); r->len && a < r->addr + r->len;
			     a += PW_PAGE)
				pw_add_page(s, a, pw_map_at(m, nm, a));
		}
	free(m);
}

/* Protect what the ranges want; give pages no range wants back. */
static void pw_update(struct qz *q)
{
	struct pw_state *s = q->pw;
	if (!qz_running(q))
		return;
	pw_collect(q);
	for (size_t i = 0; i < s->npages;) {
		struct pw_page *g = &s->pages[i];
		int ours = pw_wanted(s, g->addr);
		if (ours != g->ours && g->applied)
			pw_apply_page(q, g, false);
		g->ours = ours;
		if (!ours && !g->applied) {
			s->pages[i] = s->pages[--s->npages];
			continue;
		}
		pw_apply_page(q, g, true);
		i++;
	}
	pw_tracing(q);
}

void pw_set(struct qz *q, enum pw_owner owner, const struct pw_range *r, size_t n,
	    pw_hit_fn hit)
{
	struct pw_state *s = pw_state(q);
	struct pw_owned *o = &s->own[owner];
	free(o->r);
	o->r = n ? xmalloc(n * sizeof *r) : NULL;
	if (n)
		memcpy(o->r, r, n * sizeof *r);
	o->n = n;
	o->hit = hit;
	pw_update(q);
}

void pw_protect(struct qz *q, bool on)
{
	if (q->pw)
		pw_apply_all(q, on);
}

void pw_release(struct qz *q)
{
	struct pw_state *s = q->pw;
	if (!s)
		return;
	pw_apply_all(q, false);
	for (int o = 0; o < PW_NOWNERS; o++) {
		free(s->own[o].r);
		s->own[o] = (struct pw_owned){0};
	}
	s->npages = 0;
	pw_tracing(q);
}

/* ---- a fault on a protected page ---- */

/* Our page the current SIGSEGV stop faulted on (its siginfo in si), or
 * NULL when the fault is not on a page where our protection is applied. */
static struct pw_page *pw_fault_page(struct qz *q, siginfo_t *si)
{
	struct pw_state *s = q->pw;
	if (!s || !s->npages || proc_siginfo(q->proc, si) < 0 || si->si_signo != SIGSEGV ||
	    si->si_code != SEGV_ACCERR)
		return NULL;
	struct pw_page *g = pw_page_at(s, (uint64_t)(uintptr_t)si->si_addr);
	return g && g->applied ? g : NULL;
}

/* The widest memory operand of the instruction at pc, in bytes (Zydis);
 * 1 when it does not decode. */
static uint64_t pw_access_len(struct qz *q, uint64_t pc)
{
	uint8_t code[15];
	size_t n = sizeof code;
	while (n > 1 && qz_read(q, pc, code, n) < 0)
		n--;
	ZydisDecoder d;
	ZydisDecodedInstruction in;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecoderInit(&d, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&d, code, n, &in, ops)))
		return 1;
	uint64_t len = 1;
	for (int i = 0; i < in.operand_count; i++)
		if (ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY && ops[i].mem.type == ZYDIS_MEMOP_TYPE_MEM &&
		    ops[i].size / 8 > len)
			len = ops[i].size / 8;
	return len;
}

/* Single-step the faulting instruction alone (proc_step stops the other
 * threads) with the program's protection on each of our pages it faults
 * on; an int3 planted on it is lifted for the step. st: the step's stop. */
static void pw_step_fault(struct qz *q, struct pw_page *g, struct proc_stop *st)
{
	struct proc *p = q->proc;
	uint64_t pc = proc_pc(p);
	struct bp_site *site = bp_site_at(&q->bps, pc);
	bool lifted = site && site->inserted && bp_site_drop(&q->bps, p, site) == 0;
	siginfo_t si;
	for (int tries = 0; tries < 8 && g; tries++) {
		pw_apply_page(q, g, false);
		proc_step(p, 0);
		proc_wait(p, st);
		bool again = proc_alive(p) && st->ev == PROC_SIGNAL && st->sig == SIGSTOP &&
			     proc_pc(p) == pc;   /* a stop request came first */
		if (!again)
			g = proc_alive(p) && st->ev == PROC_SIGNAL && st->sig == SIGSEGV ?
			    pw_fault_page(q, &si) : NULL;
	}
	site = lifted && proc_alive(p) ? bp_site_at(&q->bps, pc) : NULL;
	if (site)
		bp_site_lift(&q->bps, p, site);
}

/* At an int3 we planted, continuing must report it (run.c steps off a
 * planted site at the pc without a report). */
static int pw_silent(struct qz *q, bool step)
{
	if (step)
		return RUN_STEPPED;
	const struct bp_site *s = bp_site_at(&q->bps, proc_pc(q->proc));
	return s && s->inserted ? RUN_TARGET : RUN_AGAIN;
}

static int pw_dispatch(struct qz *q, const struct pw_access *a, bool step)
{
	struct pw_state *s = q->pw;
	bool stop = false;
	for (int o = 0; o < PW_NOWNERS; o++)
		if (s->own[o].n && s->own[o].hit && s->own[o].hit(q, a) == RUN_STOPPED)
			stop = true;
	return stop ? RUN_STOPPED : pw_silent(q, step);
}

static int pw_fault(struct qz *q, struct proc_stop *st, bool step)
{
	siginfo_t si;
	struct pw_page *g = pw_fault_page(q, &si);
	if (!g)
		return -1;
	proc_stop_all(q->proc);
	uint64_t at = (uint64_t)(uintptr_t)si.si_addr;
	uint64_t len = pw_access_len(q, proc_pc(q->proc));
	/* an access that began on the page before reports this page's start */
	struct pw_access a = {at & (PW_PAGE - 1) ? at : at - (len - 1), len + (at & (PW_PAGE - 1) ? 0 : len - 1)};
	struct proc_stop st2;
	pw_step_fault(q, g, &st2);
	if (!proc_alive(q->proc)) {
		*st = st2;
		return -1;
	}
	bool own = st2.ev != PROC_TRAP;
	if (own)
		proc_siginfo(q->proc, &si);   /* the program's own fault or signal */
	pw_apply_all(q, true);
	if (!own)
		return pw_dispatch(q, &a, step);
	/* the injections replaced the stop's siginfo: the program's handler
	 * must see its own */
	ptrace(PTRACE_SETSIGINFO, proc_cur_tid(q->proc), 0, &si);
	*st = st2;
	return -1;
}

/* ---- the program's own memory-map system calls ---- */

static bool pw_in(uint64_t page, uint64_t lo, uint64_t len)
{
	return page + PW_PAGE > lo && page < lo + len;
}

/* mprotect succeeded: the pages it covered have the program's new
 * protection, and lost ours. */
static void pw_program_prot(struct pw_state *s, uint64_t addr, uint64_t len, int prot)
{
	for (size_t i = 0; i < s->npages; i++) {
		struct pw_page *g = &s->pages[i];
		if (!pw_in(g->addr, addr, len))
			continue;
		g->prog = prot & PW_ALLPROT;
		g->applied = false;
	}
}

/* A mremap moved pages that had our protection: the copies keep it, so
 * give them the program's. */
static void pw_moved(struct qz *q, const struct user_regs_struct *r)
{
	struct pw_state *s = q->pw;
	uint64_t from = r->rdi, to = r->rax;
	uint64_t len = r->rsi < r->rdx ? r->rsi : r->rdx;
	for (size_t i = 0; from != to && i < s->npages; i++) {
		struct pw_page *g = &s->pages[i];
		if (g->applied && pw_in(g->addr, from, len))
			pw_mprotect(q, to + (g->addr - from), PW_PAGE, g->prog);
	}
}

/* munmap, mmap, mremap, brk: which managed pages are mapped now, and with
 * what protection where a new mapping replaced the old (from the maps,
 * which show a fresh mapping's own protection). */
static void pw_remapped(struct qz *q, long nr, const struct user_regs_struct *r)
{
	struct pw_state *s = q->pw;
	if (nr == SYS_mremap)
		pw_moved(q, r);
	uint64_t lo = r->rax, len = nr == SYS_mmap ? r->rsi : nr == SYS_mremap ? r->rdx : 0;
	struct pw_map *m;
	size_t nm = pw_read_maps(q, &m);
	for (size_t i = 0; i < s->npages; i++) {
		struct pw_page *g = &s->pages[i];
		const struct pw_map *at = pw_map_at(m, nm, g->addr);
		bool fresh = !g->mapped || pw_in(g->addr, lo, len);
		if (at && fresh)
			g->prog = at->prot;
		if (!at || fresh)
			g->applied = false;
		g->mapped = at != NULL;
	}
	free(m);
}

static bool pw_any_applied(const struct pw_state *s)
{
	for (size_t i = 0; i < s->npages; i++)
		if (s->pages[i].applied)
			return true;
	return false;
}

/* A call that failed with EFAULT because the kernel met a page we
 * protected: run it again with the program's protection (ours comes back
 * at its exit). A call the program made wrong fails again, the same way. */
static bool pw_efault_retry(struct qz *q, struct user_regs_struct *r)
{
	struct pw_state *s = q->pw;
	if ((int64_t)r->rax != -EFAULT || !pw_any_applied(s))
		return false;
	for (size_t i = 0; i < s->npages; i++)
		pw_apply_page(q, &s->pages[i], false);
	r = proc_regs(q->proc);   /* (the injections refreshed the cache) */
	r->rax = r->orig_rax;
	r->rip -= 2;
	proc_regs_dirty(q->proc);
	s->efault_tid = proc_cur_tid(q->proc);
	return true;
}

static void pw_syscall_exit(struct qz *q, struct user_regs_struct *r)
{
	struct pw_state *s = q->pw;
	long nr = (long)r->orig_rax;
	int64_t ret = (int64_t)r->rax;
	if (s->efault_tid == proc_cur_tid(q->proc)) {
		s->efault_tid = 0;
		pw_apply_all(q, true);
		return;
	}
	if (pw_efault_retry(q, r))
		return;
	bool ok = ret >= 0 || ret < -4095;
	if ((nr == SYS_mprotect || nr == SYS_pkey_mprotect) && ret == 0)
		pw_program_prot(s, r->rdi, r->rsi, (int)r->rdx);
	else if ((nr == SYS_munmap || nr == SYS_mmap || nr == SYS_mremap || nr == SYS_brk ||
		  nr == SYS_shmat || nr == SYS_shmdt) && ok)
		pw_remapped(q, nr, r);
	else
		return;
	pw_update(q);
}

/* A system-call stop (PTRACE_SYSCALL): act at the exit of the calls that
 * change mappings; the entry (rax = -ENOSYS) needs nothing. */
static int pw_syscall_stop(struct qz *q)
{
	siginfo_t si;
	if (!q->pw || !q->pw->tracing || proc_siginfo(q->proc, &si) < 0 ||
	    si.si_code != (SIGTRAP | 0x80))
		return -1;
	struct user_regs_struct *r = proc_regs(q->proc);
	if ((int64_t)r->rax != -ENOSYS || r->orig_rax == (uint64_t)-1) {
		proc_stop_all(q->proc);   /* injections need every thread stopped */
		pw_syscall_exit(q, proc_regs(q->proc));
	}
	return pw_silent(q, false);
}

int pw_classify(struct qz *q, struct proc_stop *st, bool step)
{
	if (!q->pw || !q->pw->npages || !qz_running(q))
		return -1;
	if (st->ev == PROC_SIGNAL && st->sig == SIGSEGV)
		return pw_fault(q, st, step);
	if (st->ev == PROC_TRAP && !step)
		return pw_syscall_stop(q);
	return -1;
}

/* ---- process and checkpoint hooks ---- */

static void pw_forget(struct qz *q)
{
	struct pw_state *s = pw_state(q);
	for (int o = 0; o < PW_NOWNERS; o++) {
		free(s->own[o].r);
		s->own[o] = (struct pw_owned){0};
	}
	s->npages = 0;
	s->tracing = false;
	s->efault_tid = 0;
}

struct pw_saved {
	struct pw_page *pages;
	size_t n;
};

static void *pw_save(struct qz *q)
{
	struct pw_state *s = pw_state(q);
	struct pw_saved *sv = xcalloc(1, sizeof *sv);
	sv->n = s->npages;
	sv->pages = xmemdup(s->pages, sv->n * sizeof *sv->pages);
	return sv;   /* (ckpt lifted ours for the snapshot: pw_protect) */
}

/* A rollback restored the mappings of the checkpoint's moment (possibly
 * with the protection we had on then): the program's protection of that
 * moment back on its pages, then ours applied afresh. */
static void pw_restore(struct qz *q, const void *saved)
{
	const struct pw_saved *sv = saved;
	struct pw_state *s = pw_state(q);
	for (size_t i = 0; i < sv->n; i++)
		if (sv->pages[i].mapped)
			pw_mprotect(q, sv->pages[i].addr, PW_PAGE, sv->pages[i].prog);
	for (size_t i = 0; i < s->npages; i++) {
		struct pw_page *g = &s->pages[i];
		for (size_t j = 0; j < sv->n; j++)
			if (sv->pages[j].addr == g->addr) {
				g->prog = sv->pages[j].prog;
				g->mapped = sv->pages[j].mapped;
			}
		g->applied = false;
	}
	s->efault_tid = 0;
	pw_update(q);
}

static void pw_free_saved(void *saved)
{
	struct pw_saved *sv = saved;
	free(sv->pages);
	free(sv);
}

static void pw_fini(struct qz *q)
{
	if (!q->pw)
		return;
	pw_forget(q);
	free(q->pw->pages);
	free(q->pw);
	q->pw = NULL;
}

static const struct qz_mod pw_mod = {
	.name = "pagewatch",
	.save = pw_save,
	.restore = pw_restore,
	.free_saved = pw_free_saved,
	.on_start = pw_forget,
	.on_gone = pw_forget,
	.fini = pw_fini,
};

void pw_init(struct qz *q)
{
	pw_state(q);
	mod_add(q, &pw_mod);
}
