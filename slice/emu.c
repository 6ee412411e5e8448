/* emu: the Unicorn machine and its lazily copied memory; see emu.h.
 * Memory comes in chunks of up to EMU_CHUNK bytes (aligned, inside one
 * mapping of the process, with its permissions) read with
 * process_vm_readv into buffers the machine uses directly, so refreshing
 * a page is a read into the buffer. [vvar] is never copied: the kernel
 * changes it behind the program's back (clocks), so instructions that
 * read it fault here and run natively. */
#define _GNU_SOURCE   /* process_vm_readv */
#include "emu.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>

#include <unicorn/unicorn.h>

#include "emu-inline.h"
#include "emu-lean.h"
#include "emu-patch.h"
#include "emu-regs.h"
#include "insn.h"
#include "util/util.h"

#define EMU_PAGE 4096ull
#define EMU_CHUNK (64ull << 10)

struct emu_chunk {
	uint64_t lo, hi;
	uint8_t *buf;
	uint8_t *dirty;          /* per page: in m->dirty already */
	uint32_t prot;           /* UC_PROT_*: without write, never written */
};

struct emu_vma { uint64_t lo, hi; uint32_t prot; };
enum { EMU_NEAR = 64 };   /* emu_near's slots: a power of two */

struct emu {
	uc_engine *uc;
	uc_hook code_hooks[EMU_MAX_SKIP + 2], fault_hook;
	uint64_t code_ranges[EMU_MAX_SKIP + 2][2];   /* each one's as added */
	int ncode_hooks;
	/* lean translations (emu-lean.c): made when first on */
	emu_pick_fn lean_pick;
	emu_hook_fn lean_start;
	struct emu_lean *lean;
	bool lean_on;               /* in this run */
	bool lean_stop;             /* the batch is full: the run stopped for it */
	bool plan_fresh;            /* hooks were deleted since the last run
	                               (Unicorn keeps them in its lists until a
	                               run ends) */
	uc_hook block_hooks[EMU_MAX_SKIP + 1], write_hook;
	int nblock_hooks;
	bool write_hooked;
	/* the plan as it is (emu_hook_plan) */
	uint64_t lo, hi;
	uint64_t skip[EMU_MAX_SKIP][2];
	int nskip;
	bool translated;            /* it ran since all code was dropped */
	/* emu_run_for's time limit: one thread for the machine's life (Unicorn's
	 * own timeout polls every 2 us from a thread made for each run) */
	pthread_t timer;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool timer_made, running, quit;
	volatile bool timed_out;    /* the hooks stop the run (see emu_timer) */
	uint64_t gen, usec;
	clockid_t runner_cpu;       /* the running thread's CPU clock, or */
	bool runner_cpu_ok;         /* wall time: its use at the time out */
	uint64_t out_cpu_ns;
	emu_hook_fn hook;
	emu_block_fn block;
	uint64_t block_pc;          /* the block whose hook runs, 0 */
	bool insn_hooked;           /* the last hook was the code hook: the
	                               stores until the next are its
	                               instruction's */
	bool hooked_marked;         /* which the code hook's owner marks */
	uint64_t stop_pc;           /* a block hook stopped the run before it, 0 */
	emu_write_fn wrote;
	emu_mask_fn mask;
	void *ctx;
	pid_t pid;
	struct emu_chunk *chunks;   /* sorted by lo */
	size_t nchunks, chunks_cap;
	size_t last;                /* chunk of the last lookup */
	uint64_t *dirty;            /* page addresses to write back */
	size_t ndirty, dirty_cap;
	struct emu_vma *vmas;       /* /proc/PID/maps, read on demand */
	size_t nvmas, vmas_cap;
	bool vmas_fresh;            /* read since the last emu_forget */
	uint64_t vdso_lo, vdso_hi;  /* [vdso], as last read (emu_read_vmas) */
	struct emu_regs_at regs_at; /* where the general registers are (emu-regs.c) */
	bool regs_direct;           /* found there: emu_reg reads them with a load */
	uint8_t xmm[16][16];        /* as loaded, to see whether they changed */
	uint32_t mxcsr;
	uint64_t nread, nwritten;
	/* checks compiled into lean translations (emu-inline.c) */
	emu_access_fn access;       /* the owner's check, NULL: none */
	bool out_checks;            /* stores outside the scope checked inline */
	bool inline_stop;           /* one stopped the last run */
	struct emu_near { uint64_t key; size_t i; } near[EMU_NEAR];   /* chunk by addr >> 16 */
};

/* maint emulator-regs api: every read through uc_reg_read (the tests
 * compare both); what the last machine's probe found. */
static bool emu_regs_api;
static char emu_regs_note[200] = "no emulated machine made yet";

void emu_force_reg_api(bool on)
{
	emu_regs_api = on;
}

const char *emu_regs_status(void)
{
	return emu_regs_note;
}

static void emu_code(uc_engine *uc, uint64_t pc, uint32_t size, void *data)
{
	(void)size;
	struct emu *m = data;
	m->insn_hooked = true;
	emu_lean_hooked(m->lean, pc);
	if (m->timed_out)   /* the code hook synced rip: pc */
		uc_emu_stop(uc);
	else
		m->hook(m->ctx, pc);
}

/* A block of a skip range (a clean loop): only the time limit. */
static void emu_block_timed(uc_engine *uc, uint64_t pc, uint32_t size, void *data)
{
	(void)uc;
	(void)size;
	struct emu *m = data;
	if (m->timed_out) {
		m->block_pc = pc;
		emu_stop(m);
		m->block_pc = 0;
	}
}

static bool emu_in_skip(const struct emu *m, uint64_t pc)
{
	for (int i = 0; i < m->nskip; i++)
		if (pc >= m->skip[i][0] && pc < m->skip[i][1])
			return true;
	return false;
}

/* A block of the scope (in) or the vdso with lean translations on, not
 * stopped already, no clean loop's: emu-lean.c counts it, or credits a
 * lean one (and, if its first instruction is unhooked, the owner looks at
 * its start), or stops the run to translate a full batch. */
static __attribute__((noinline)) void emu_block_lean(struct emu *m, uint64_t pc, uint32_t size,
						      bool in)
{
	m->block_pc = pc;
	switch (emu_lean_block(m->lean, pc, size, in)) {
	case EMU_LEAN_BARE:   /* its first instruction's hook does not run */
		m->lean_start(m->ctx, pc);
		break;
	case EMU_LEAN_FULL:
		m->lean_stop = true;   /* translate the batch, go on (emu_run_for) */
		emu_stop(m);
		break;
	case EMU_LEAN_NOT:
		break;
	}
	m->block_pc = 0;
}

/* A block outside the plan's scope and the vdso: the block hook decides. */
static __attribute__((noinline)) void emu_block_out(struct emu *m, uint64_t pc, uint32_t size)
{
	if (m->lean_on)
		emu_lean_block(m->lean, pc, size, false);
	m->block_pc = pc;
	if (m->timed_out)
		emu_stop(m);
	else
		m->block(m->ctx, pc, size);
	m->block_pc = 0;
}

/* Every block (one hook: Unicorn 2.0.1 walks the list of block hooks at
 * each block, about 2 ns a hook): outside the plan's scope and the vdso
 * the block hook decides; inside, only the time limit (and lean
 * translations). The rest out of line: a clean loop's blocks come here
 * each turn (40 million times in the bench's work-bound load). */
static void emu_block(uc_engine *uc, uint64_t pc, uint32_t size, void *data)
{
	struct emu *m = data;
	m->insn_hooked = false;
	bool in = pc >= m->lo && pc < m->hi;
	if (!in && (pc < m->vdso_lo || pc >= m->vdso_hi))
		return emu_block_out(m, pc, size);
	if (m->timed_out)
		return emu_block_timed(uc, pc, size, data);
	/* a clean loop's blocks run with no hook: never lean */
	if (m->lean_on && !emu_in_skip(m, pc))
		emu_block_lean(m, pc, size, in);
}

static bool emu_fault(uc_engine *uc, uc_mem_type type, uint64_t addr, int size,
		      int64_t value, void *data);

static void emu_code_hook(struct emu *m, uint64_t lo, uint64_t hi);

struct emu *emu_new(char *why, size_t whylen)
{
	uc_engine *uc;
	emu_patch_stores();   /* before any machine runs its code */
	uc_err e = uc_open(UC_ARCH_X86, UC_MODE_64, &uc);
	if (e != UC_ERR_OK) {
		snprintf(why, whylen, "Unicorn cannot open an x86-64 machine: %s", uc_strerror(e));
		return NULL;
	}
	/* A recent model: the SSE4.2, POPCNT and BMI encodings glibc and -O2
	 * code use mean the same as on the real CPU (tzcnt is not bsf). */
	if ((e = uc_ctl_set_cpu_model(uc, UC_CPU_X86_EPYC)) != UC_ERR_OK) {
		snprintf(why, whylen, "Unicorn has no EPYC CPU model: %s", uc_strerror(e));
		uc_close(uc);
		return NULL;
	}
	struct emu *m = xcalloc(1, sizeof *m);
	m->uc = uc;
	/* before any hook or mapping: the probe runs code of its own */
	m->regs_direct = emu_regs_probe(uc, &m->regs_at, emu_regs_note, sizeof emu_regs_note);
	if (m->regs_direct)
		snprintf(emu_regs_note, sizeof emu_regs_note,
			 "general registers read from Unicorn's CPU state at %p",
			 (const void *)m->regs_at.gpr);
	emu_code_hook(m, 1, 0);   /* every instruction until a plan */
	uc_hook_add(uc, &m->fault_hook, UC_HOOK_MEM_UNMAPPED, (void *)emu_fault, m, 1, 0);
	return m;
}

void emu_free(struct emu *m)
{
	if (!m)
		return;
	if (m->timer_made) {
		pthread_mutex_lock(&m->mu);
		m->quit = true;
		pthread_cond_signal(&m->cv);
		pthread_mutex_unlock(&m->mu);
		pthread_join(m->timer, NULL);
	}
	emu_forget(m);
	emu_lean_free(m->lean);
	uc_close(m->uc);
	free(m->chunks);
	free(m->dirty);
	free(m->vmas);
	free(m);
}

void emu_set_hook(struct emu *m, emu_hook_fn hook, emu_mask_fn mask, void *ctx)
{
	m->hook = hook;
	m->mask = mask;
	m->ctx = ctx;
}

void emu_set_scope_hooks(struct emu *m, emu_block_fn block, emu_write_fn wrote)
{
	m->block = block;
	m->wrote = wrote;
}

void emu_set_hooked_stores_marked(struct emu *m, bool on)
{
	bool was = m->hooked_marked;
	m->hooked_marked = on;
	if (was != on && m->nblock_hooks) {   /* the write hook may change */
		struct emu_plan p = { m->lo, m->hi, (const uint64_t (*)[2])m->skip, m->nskip };
		emu_hook_plan(m, &p);
	}
}

void emu_attach(struct emu *m, pid_t pid)
{
	if (m->pid != pid)
		emu_forget(m);
	m->pid = pid;
}

/* ---- registers ---- */

void emu_load_regs(struct emu *m, const struct user_regs_struct *r,
		   const struct user_fpregs_struct *fp)
{
	const unsigned long long *v[16] = {
		&r->rax, &r->rcx, &r->rdx, &r->rbx, &r->rsp, &r->rbp, &r->rsi, &r->rdi,
		&r->r8, &r->r9, &r->r10, &r->r11, &r->r12, &r->r13, &r->r14, &r->r15,
	};
	for (int i = 0; i < 16; i++)
		uc_reg_write(m->uc, emu_regs_gpr_id[i], v[i]);
	uint64_t fl = r->eflags & ~0x100ull;   /* never the trap flag */
	uc_reg_write(m->uc, UC_X86_REG_RFLAGS, &fl);
	uc_reg_write(m->uc, UC_X86_REG_FS_BASE, &r->fs_base);
	uc_reg_write(m->uc, UC_X86_REG_GS_BASE, &r->gs_base);
	uc_reg_write(m->uc, UC_X86_REG_RIP, &r->rip);
	memcpy(m->xmm, fp->xmm_space, sizeof m->xmm);
	m->mxcsr = fp->mxcsr;
	for (int i = 0; i < 16; i++)
		uc_reg_write(m->uc, UC_X86_REG_XMM0 + i, m->xmm[i]);
	uc_reg_write(m->uc, UC_X86_REG_MXCSR, &m->mxcsr);
}

/* The status flags and DF come from the machine; the rest (IF, TF,
 * reserved bits) stays as the kernel has it. */
#define EMU_FLAGS 0xcd5ull

bool emu_save_regs(struct emu *m, struct user_regs_struct *r, struct user_fpregs_struct *fp)
{
	unsigned long long *v[16] = {
		&r->rax, &r->rcx, &r->rdx, &r->rbx, &r->rsp, &r->rbp, &r->rsi, &r->rdi,
		&r->r8, &r->r9, &r->r10, &r->r11, &r->r12, &r->r13, &r->r14, &r->r15,
	};
	for (int i = 0; i < 16; i++)
		uc_reg_read(m->uc, emu_regs_gpr_id[i], v[i]);
	uint64_t fl = 0;
	uc_reg_read(m->uc, UC_X86_REG_RFLAGS, &fl);
	r->eflags = (r->eflags & ~EMU_FLAGS) | (fl & EMU_FLAGS);
	uc_reg_read(m->uc, UC_X86_REG_FS_BASE, &r->fs_base);
	uc_reg_read(m->uc, UC_X86_REG_GS_BASE, &r->gs_base);
	uc_reg_read(m->uc, UC_X86_REG_RIP, &r->rip);
	uint8_t xmm[16][16];
	uint32_t mxcsr = 0;
	for (int i = 0; i < 16; i++)
		uc_reg_read(m->uc, UC_X86_REG_XMM0 + i, xmm[i]);
	uc_reg_read(m->uc, UC_X86_REG_MXCSR, &mxcsr);
	if (memcmp(xmm, m->xmm, sizeof xmm) == 0 && mxcsr == m->mxcsr)
		return false;
	memcpy(fp->xmm_space, xmm, sizeof xmm);
	fp->mxcsr = mxcsr;
	return true;
}

uint64_t emu_reg(struct emu *m, int reg)
{
	if (m->regs_direct && !emu_regs_api) {
		if (reg >= 0 && reg < 16)
			return m->regs_at.gpr[reg];
		if (reg == INSN_R_FSBASE)
			return *m->regs_at.fs_base;
		if (reg == INSN_R_GSBASE)
			return *m->regs_at.gs_base;
	}
	uint64_t v = 0;
	if (reg >= 0 && reg < 16)
		uc_reg_read(m->uc, emu_regs_gpr_id[reg], &v);
	else if (reg == INSN_R_FSBASE)
		uc_reg_read(m->uc, UC_X86_REG_FS_BASE, &v);
	else if (reg == INSN_R_GSBASE)
		uc_reg_read(m->uc, UC_X86_REG_GS_BASE, &v);
	else if (reg == INSN_R_FLAGS)
		uc_reg_read(m->uc, UC_X86_REG_EFLAGS, &v);
	else if (reg == INSN_R_RIP)
		uc_reg_read(m->uc, UC_X86_REG_RIP, &v);
	return v;
}

const uint64_t *emu_gpr_view(const struct emu *m)
{
	return m->regs_direct && !emu_regs_api ? m->regs_at.gpr : NULL;
}

void emu_xmm(struct emu *m, int n, void *out)
{
	uc_reg_read(m->uc, UC_X86_REG_XMM0 + n, out);
}

uint64_t emu_pc(struct emu *m)
{
	uint64_t v = 0;
	uc_reg_read(m->uc, UC_X86_REG_RIP, &v);
	return v;
}

/* ---- running ---- */

/* The CPU time of the thread running the machine, in ns (wall time if
 * its clock could not be had). */
static uint64_t emu_runner_cpu_ns(const struct emu *m)
{
	struct timespec t;
	if (!m->runner_cpu_ok || clock_gettime(m->runner_cpu, &t) != 0)
		clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* The timer thread: a run still going usec after it began (the same
 * run: gen) is stopped by the next hook. Not by uc_emu_stop from here:
 * stopped at the start of an unhooked block, Unicorn 2.0.1 leaves rip
 * where the last hook or store synced it (a hot loop went on from an
 * earlier instruction with later registers); every block outside the
 * code hooks has a block hook, a hot loop's head one (emu_hook_plan). */
static void *emu_timer(void *arg)
{
	struct emu *m = arg;
	pthread_mutex_lock(&m->mu);
	while (!m->quit) {
		if (!m->running) {
			pthread_cond_wait(&m->cv, &m->mu);
			continue;
		}
		uint64_t gen = m->gen;
		struct timespec t;
		clock_gettime(CLOCK_REALTIME, &t);
		uint64_t ns = (uint64_t)t.tv_nsec + m->usec * 1000;
		t.tv_sec += (time_t)(ns / 1000000000);
		t.tv_nsec = (long)(ns % 1000000000);
		int rc = 0;
		while (m->running && m->gen == gen && !m->quit && rc != ETIMEDOUT)
			rc = pthread_cond_timedwait(&m->cv, &m->mu, &t);
		if (rc == ETIMEDOUT && m->running && m->gen == gen && !m->quit) {
			/* no hook came while the machine ran 10 times as long
			 * (a loop inside a loop's range): stop anyhow (rip may
			 * be stale then). Counted in the machine thread's CPU
			 * time: descheduled on a loaded machine, it met no hook
			 * only because it did not run (a stale rip broke the
			 * program under make test's load). */
			uint64_t cpu = emu_runner_cpu_ns(m);
			if (m->timed_out && cpu - m->out_cpu_ns >= m->usec * 1000) {
				uc_emu_stop(m->uc);
				m->running = false;
			} else if (!m->timed_out) {
				m->timed_out = true;
				m->out_cpu_ns = cpu;
				m->usec *= 10;
			}
		}
	}
	pthread_mutex_unlock(&m->mu);
	return NULL;
}

static void emu_timer_set(struct emu *m, bool running, uint64_t usec)
{
	pthread_mutex_lock(&m->mu);
	m->running = running;
	m->usec = usec;
	m->gen++;
	pthread_cond_signal(&m->cv);
	pthread_mutex_unlock(&m->mu);
}

static struct emu_chunk *emu_chunk_at(struct emu *m, uint64_t addr);
static bool emu_map_chunk(struct emu *m, uint64_t addr);

/* emu_chunk_at through a table by 64 KiB (checks go back and forth between
 * stack, heap and data), emptied when chunks come or go. */
static struct emu_chunk *emu_near(struct emu *m, uint64_t addr)
{
	size_t k = (size_t)(addr >> 16) & (EMU_NEAR - 1);
	uint64_t key = addr >> 16 | 1ull << 63;   /* never 0, an empty slot's */
	if (m->near[k].key == key && m->near[k].i < m->nchunks) {
		struct emu_chunk *c = &m->chunks[m->near[k].i];
		if (addr >= c->lo && addr < c->hi)
			return c;
	}
	struct emu_chunk *c = emu_chunk_at(m, addr);
	if (c)
		m->near[k] = (struct emu_near){ key, (size_t)(c - m->chunks) };
	return c;
}

/* emu_dirty, unless [addr, addr+size)'s pages in chunk c are marked. */
static void emu_mark(struct emu *m, const struct emu_chunk *c, uint64_t addr, uint32_t size)
{
	if (!c || size > c->hi - addr || !c->dirty[(addr - c->lo) / EMU_PAGE] ||
	    !c->dirty[(addr + size - 1 - c->lo) / EMU_PAGE])
		emu_dirty(m, addr, size);
}

/* A store the code hook's owner did not see: marked, and the owner told. */
static void emu_stored(struct emu *m, uint64_t addr, uint32_t size)
{
	emu_mark(m, emu_near(m, addr), addr, size);
	if (m->wrote)
		m->wrote(m->ctx, addr, size);
}

/* A store outside the hooked code: its page goes back to the process.
 * (The hook is on every store; a hooked instruction's are the code
 * hook's owner's: it marked them and told the watcher already.) */
static void emu_wrote(uc_engine *uc, uc_mem_type type, uint64_t addr, int size, int64_t value,
		      void *data)
{
	(void)uc;
	(void)type;
	(void)value;
	struct emu *m = data;
	if (!m->insn_hooked || !m->hooked_marked)
		emu_stored(m, addr, (uint32_t)size);
}

/* A compiled-in check (emu-inline.c): a store outside the scope as the
 * write hook sees one; a lean block's access: outside the chunks (once
 * copied in) or not allowed there (a fault), the run stops before it and
 * the hook sees it; else the owner's check; a store let go is marked. */
static bool emu_inline_check(void *ctx, uint64_t addr, uint32_t size, unsigned flags)
{
	struct emu *m = ctx;
	if (flags & EMU_INLINE_OUT) {
		emu_stored(m, addr, size);
		return false;
	}
	struct emu_chunk *c = emu_near(m, addr);
	if (!c && emu_map_chunk(m, addr))   /* as the fault hook would */
		c = emu_near(m, addr);
	uint32_t need = flags & EMU_ACCESS_STORE ? UC_PROT_WRITE : UC_PROT_READ;
	if (!c || size > c->hi - addr || !(c->prot & need) || m->access(m->ctx, addr, size, flags))
		return true;
	if (flags & EMU_ACCESS_STORE)
		emu_mark(m, c, addr, size);
	return false;
}

void emu_set_access(struct emu *m, emu_access_fn fn)
{
	m->access = fn;
}

bool emu_access_inline(struct emu *m)
{
	return m->access && emu_inline_ok(NULL, 0);
}

bool emu_access_stopped(const struct emu *m)
{
	return m->inline_stop;
}

enum emu_end emu_run_for(struct emu *m, uint64_t pc, uint64_t usec)
{
	if (usec && !m->timer_made) {
		pthread_mutex_init(&m->mu, NULL);
		pthread_cond_init(&m->cv, NULL);
		m->timer_made = pthread_create(&m->timer, NULL, emu_timer, m) == 0;
	}
	bool timed = usec && m->timer_made;
	m->timed_out = false;
	if (timed) {
		m->runner_cpu_ok = pthread_getcpuclockid(pthread_self(), &m->runner_cpu) == 0;
		emu_timer_set(m, true, usec);
	}
	/* without the thread, Unicorn's own time limit */
	m->translated = true;
	uc_err e;
	do {   /* again after a stop for lean translations */
		if (m->lean_on && !m->plan_fresh)
			emu_lean_translate(m->lean, m->code_hooks,
					   (const uint64_t (*)[2])m->code_ranges, m->ncode_hooks);
		m->stop_pc = 0;
		m->lean_stop = false;
		m->insn_hooked = false;
		emu_inline_running(m->uc, m->access ? emu_inline_check : NULL, m, m->out_checks, m->lo,
				   m->hi);
		e = uc_emu_start(m->uc, pc, 0, timed ? 0 : usec, 0);
		m->inline_stop = emu_inline_stopped();
		emu_inline_running(NULL, NULL, NULL, false, 0, 0);
		m->plan_fresh = false;
		pc = m->stop_pc;
	} while (e == UC_ERR_OK && m->lean_stop && !m->timed_out && !m->inline_stop);
	if (timed)
		emu_timer_set(m, false, 0);
	if (m->stop_pc)
		uc_reg_write(m->uc, UC_X86_REG_RIP, &m->stop_pc);
	if (m->lean)
		emu_lean_stopped(m->lean, emu_pc(m));
	return e == UC_ERR_OK ? EMU_STOPPED : EMU_FAULT;
}

enum emu_end emu_run(struct emu *m, uint64_t pc)
{
	return emu_run_for(m, pc, 0);
}

/* Drop what was translated of [lo, hi) so it is translated again with
 * the hooks as they are now (a hook's call is compiled into the code at
 * translation). Chunk by chunk: Unicorn 2.0.1 turns the start of a range
 * into a RAM address and takes the rest as contiguous, which holds inside
 * one mapping only. Not uc_ctl_flush_tlb: a flush memsets Unicorn's whole
 * 1 GiB code buffer (faulted in the first time: about a second and 1 GiB
 * of resident memory, the largest cost of a short detect run). */
static void emu_drop_code(struct emu *m, uint64_t lo, uint64_t hi)
{
	emu_lean_dropped(m->lean, lo, hi);
	for (size_t i = 0; i < m->nchunks; i++) {
		const struct emu_chunk *c = &m->chunks[i];
		uint64_t a = c->lo > lo ? c->lo : lo, b = c->hi < hi ? c->hi : hi;
		if (a < b && (c->prot & UC_PROT_EXEC))
			uc_ctl_remove_cache(m->uc, a, b);
	}
}

static bool emu_has_range(const uint64_t (*r)[2], int n, uint64_t lo, uint64_t hi)
{
	for (int i = 0; i < n; i++)
		if (r[i][0] == lo && r[i][1] == hi)
			return true;
	return false;
}

/* Drop the code of the ranges of r that o does not have. */
static void emu_drop_unshared(struct emu *m, const uint64_t (*r)[2], int n,
			      const uint64_t (*o)[2], int no)
{
	for (int i = 0; i < n; i++)
		if (!emu_has_range(o, no, r[i][0], r[i][1]))
			emu_drop_code(m, r[i][0], r[i][1]);
}

/* Translate again what p hooks differently from the plan as it is: all
 * code when the hooked range moves (library code gains or loses its
 * per-instruction hook), else the skip ranges that come or go. Nothing
 * when nothing ran since the last time all was dropped. */
static void emu_plan_retranslate(struct emu *m, const struct emu_plan *p, int nskip)
{
	if (!m->translated)
		return;
	if (p->lo != m->lo || p->hi != m->hi) {
		emu_drop_code(m, 0, UINT64_MAX);
		m->translated = false;
		return;
	}
	const uint64_t (*was)[2] = (const uint64_t (*)[2])m->skip;
	emu_drop_unshared(m, was, m->nskip, p->skip, nskip);
	emu_drop_unshared(m, p->skip, nskip, was, m->nskip);
}

static void emu_read_vmas(struct emu *m);

static void emu_code_hook(struct emu *m, uint64_t lo, uint64_t hi)
{
	m->code_ranges[m->ncode_hooks][0] = lo;
	m->code_ranges[m->ncode_hooks][1] = hi;
	uc_hook_add(m->uc, &m->code_hooks[m->ncode_hooks++], UC_HOOK_CODE, (void *)emu_code, m, lo,
		    hi);
}

/* Code hooks over [lo, hi] (inclusive) but the skip ranges inside it. */
static void emu_code_hooks_but(struct emu *m, uint64_t lo, uint64_t hi,
			       const uint64_t (*skip)[2], int n)
{
	uint64_t from = lo;
	for (int i = 0; i < n; i++) {
		if (skip[i][0] > from)
			emu_code_hook(m, from, skip[i][0] - 1);
		from = skip[i][1];
	}
	if (from <= hi && (from || !n))
		emu_code_hook(m, from, hi);
}

void emu_hook_plan(struct emu *m, const struct emu_plan *p)
{
	int nskip = p->nskip < EMU_MAX_SKIP ? p->nskip : EMU_MAX_SKIP;
	for (int i = 0; i < m->ncode_hooks; i++)
		uc_hook_del(m->uc, m->code_hooks[i]);
	for (int i = 0; i < m->nblock_hooks; i++)
		uc_hook_del(m->uc, m->block_hooks[i]);
	if (m->write_hooked)
		uc_hook_del(m->uc, m->write_hook);
	m->ncode_hooks = m->nblock_hooks = 0;
	m->write_hooked = false;
	m->plan_fresh = true;
	/* stores outside the scope checked inline (no write hook: it sends
	 * every load and store to Unicorn's slow path), when every store
	 * inside is the code hook's owner's or checked inline too */
	bool out = emu_access_inline(m) && m->hooked_marked && p->lo < p->hi && m->block;
	if (out != m->out_checks && m->translated) {   /* code made the other way */
		emu_drop_code(m, 0, UINT64_MAX);
		m->translated = false;
	}
	m->out_checks = out;
	emu_plan_retranslate(m, p, nskip);
	m->lo = p->lo;
	m->hi = p->hi;
	m->nskip = nskip;
	memmove(m->skip, p->skip, (size_t)nskip * sizeof *p->skip);   /* p may be m's own */
	if (p->lo >= p->hi || !m->block) {
		/* the time limit stops a loop at its head (emu_timer): each
		 * turn runs it, and one hook a turn costs less than one a block */
		for (int i = 0; i < nskip; i++)
			uc_hook_add(m->uc, &m->block_hooks[m->nblock_hooks++], UC_HOOK_BLOCK,
				    (void *)emu_block_timed, m, p->skip[i][0], p->skip[i][0]);
		emu_code_hooks_but(m, 0, UINT64_MAX, p->skip, nskip);
		return;
	}
	emu_code_hooks_but(m, p->lo, p->hi - 1, p->skip, nskip);
	/* The vdso's code is hooked too: its reads of the vvar page (which
	 * the machine cannot map) fault, and a fault inside an unhooked block
	 * leaves Unicorn 2.0.1 running the rest of the block with rip at its
	 * start (the CPU then ran clock_gettime's first instructions twice). */
	if (!m->vmas_fresh)
		emu_read_vmas(m);
	if (m->vdso_lo < m->vdso_hi)
		emu_code_hook(m, m->vdso_lo, m->vdso_hi - 1);
	/* blocks outside: the block hook decides; stores there mark their
	 * pages (the code hook does it inside) */
	uc_hook_add(m->uc, &m->block_hooks[m->nblock_hooks++], UC_HOOK_BLOCK, (void *)emu_block, m,
		    1, 0);
	if (!m->out_checks)
		m->write_hooked = uc_hook_add(m->uc, &m->write_hook, UC_HOOK_MEM_WRITE,
					      (void *)emu_wrote, m, 1, 0) == UC_ERR_OK;
}

/* From a block hook the stop takes effect before the block's first
 * instruction, but Unicorn 2.0.1 leaves rip where the last store or code
 * hook synced it (while a code hook exists it does not sync it at a
 * block's start): rip is set to the block's address after the run, or the
 * process would run the previous block's last instruction again (a call
 * pushed its return address twice). */
void emu_stop(struct emu *m)
{
	if (m->block_pc && !m->stop_pc)
		m->stop_pc = m->block_pc;
	uc_emu_stop(m->uc);
}

/* ---- memory ---- */

static void emu_read_vmas(struct emu *m)
{
	char path[64], line[512];
	snprintf(path, sizeof path, "/proc/%d/maps", (int)m->pid);
	m->nvmas = 0;
	m->vmas_fresh = true;
	m->vdso_lo = m->vdso_hi = 0;
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		unsigned long long lo, hi;
		char perms[8];
		if (sscanf(line, "%llx-%llx %7s", &lo, &hi, perms) != 3 || perms[0] != 'r')
			continue;
		if (strstr(line, "[vdso]")) {
			m->vdso_lo = lo;
			m->vdso_hi = hi;
		}
		if (strstr(line, "[vvar") || strstr(line, "[vsyscall]"))
			continue;
		uint32_t prot = UC_PROT_READ | (perms[1] == 'w' ? UC_PROT_WRITE : 0) |
				(perms[2] == 'x' ? UC_PROT_EXEC : 0);
		XGROW(m->vmas, m->vmas_cap, m->nvmas + 1);
		m->vmas[m->nvmas++] = (struct emu_vma){ lo, hi, prot };
	}
	fclose(f);
}

static const struct emu_vma *emu_vma_at(struct emu *m, uint64_t addr)
{
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < m->nvmas; i++)
			if (addr >= m->vmas[i].lo && addr < m->vmas[i].hi)
				return &m->vmas[i];
		if (m->vmas_fresh)
			return NULL;
		emu_read_vmas(m);   /* the stack may have grown natively */
	}
	return NULL;
}

/* The index of the first chunk with hi > addr. */
static size_t emu_chunk_pos(const struct emu *m, uint64_t addr)
{
	size_t lo = 0, hi = m->nchunks;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (m->chunks[mid].hi <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct emu_chunk *emu_chunk_at(struct emu *m, uint64_t addr)
{
	if (m->last < m->nchunks && addr >= m->chunks[m->last].lo && addr < m->chunks[m->last].hi)
		return &m->chunks[m->last];
	size_t i = emu_chunk_pos(m, addr);
	if (i == m->nchunks || addr < m->chunks[i].lo)
		return NULL;
	m->last = i;
	return &m->chunks[i];
}

static bool emu_read_into(struct emu *m, uint64_t addr, uint8_t *buf, size_t len)
{
	if (vm_read(m->pid, addr, buf, len) != len)
		return false;
	if (m->mask)
		m->mask(m->ctx, addr, buf, len, false);
	m->nread += len;
	return true;
}

/* Copy the chunk around addr from the process and map it. */
static bool emu_map_chunk(struct emu *m, uint64_t addr)
{
	const struct emu_vma *v = emu_vma_at(m, addr);
	if (!v)
		return false;
	uint64_t lo = addr & ~(EMU_CHUNK - 1), hi = lo + EMU_CHUNK;
	if (lo < v->lo)
		lo = v->lo;
	if (hi > v->hi)
		hi = v->hi;
	size_t i = emu_chunk_pos(m, lo);   /* never overlap a chunk mapped already */
	if (i > 0 && m->chunks[i - 1].hi > lo)
		lo = m->chunks[i - 1].hi;
	if (i < m->nchunks && m->chunks[i].lo < hi)
		hi = m->chunks[i].lo;
	if (addr < lo || addr >= hi)
		return false;
	/* its stores may change code translated: Unicorn must look for it,
	 * or the CPU runs the chunk's instructions */
	if ((v->prot & UC_PROT_WRITE) && (v->prot & UC_PROT_EXEC) && !emu_stores_exact())
		return false;
	uint8_t *buf = aligned_alloc(EMU_PAGE, hi - lo);
	if (!buf || !emu_read_into(m, lo, buf, hi - lo) ||
	    uc_mem_map_ptr(m->uc, lo, hi - lo, v->prot, buf) != UC_ERR_OK) {
		free(buf);
		return false;
	}
	XGROW(m->chunks, m->chunks_cap, m->nchunks + 1);
	memmove(&m->chunks[i + 1], &m->chunks[i], (m->nchunks - i) * sizeof *m->chunks);
	m->chunks[i] = (struct emu_chunk){ lo, hi, buf, xcalloc((hi - lo) / EMU_PAGE, 1), v->prot };
	m->nchunks++;
	m->last = i;
	memset(m->near, 0, sizeof m->near);   /* the indices moved */
	return true;
}

static bool emu_fault(uc_engine *uc, uc_mem_type type, uint64_t addr, int size,
		      int64_t value, void *data)
{
	(void)uc;
	(void)type;
	(void)size;
	(void)value;
	return emu_map_chunk(data, addr);
}

/* The machine's memory is the chunks' buffers (uc_mem_map_ptr): a read
 * inside one is a copy from there. uc_mem_read finds the mapping and
 * copies through QEMU's address space (the hooks read memory at every
 * return and for the detectors' values); it does what spans chunks. */
int emu_read(struct emu *m, uint64_t addr, void *buf, size_t len)
{
	const struct emu_chunk *c = emu_chunk_at(m, addr);
	if (c && len <= c->hi - addr) {
		memcpy(buf, c->buf + (addr - c->lo), len);
		return 0;
	}
	return uc_mem_read(m->uc, addr, buf, len) == UC_ERR_OK ? 0 : -1;
}

uint64_t emu_read_u64(struct emu *m, uint64_t addr)
{
	uint64_t v = 0;
	if (emu_read(m, addr, &v, sizeof v) != 0)
		return 0;
	return v;
}

void emu_dirty(struct emu *m, uint64_t addr, uint64_t len)
{
	uint64_t end = addr + (len ? len : 1);
	for (uint64_t p = addr & ~(EMU_PAGE - 1); p < end; p += EMU_PAGE) {
		struct emu_chunk *c = emu_chunk_at(m, p);
		if (!c && emu_map_chunk(m, p))   /* written before ever read */
			c = emu_chunk_at(m, p);
		/* A write to a read-only chunk faults: it never happens here. */
		if (!c || c->dirty[(p - c->lo) / EMU_PAGE] || !(c->prot & UC_PROT_WRITE))
			continue;
		c->dirty[(p - c->lo) / EMU_PAGE] = 1;
		XGROW(m->dirty, m->dirty_cap, m->ndirty + 1);
		m->dirty[m->ndirty++] = p;
	}
}

int emu_write_back(struct emu *m)
{
	int rc = 0;
	for (size_t i = 0; i < m->ndirty; i++) {
		uint64_t p = m->dirty[i];
		struct emu_chunk *c = emu_chunk_at(m, p);
		if (!c)
			continue;
		uint8_t *b = c->buf + (p - c->lo);
		c->dirty[(p - c->lo) / EMU_PAGE] = 0;
		if (m->mask)
			m->mask(m->ctx, p, b, EMU_PAGE, true);
		struct iovec l = { b, EMU_PAGE }, r = { (void *)p, EMU_PAGE };
		if (process_vm_writev(m->pid, &l, 1, &r, 1, 0) != (ssize_t)EMU_PAGE)
			rc = -1;
		if (m->mask)
			m->mask(m->ctx, p, b, EMU_PAGE, false);
		m->nwritten += EMU_PAGE;
	}
	m->ndirty = 0;
	return rc;
}

void emu_refresh(struct emu *m, uint64_t addr, uint64_t len)
{
	uint64_t end = addr + (len ? len : 1);
	for (uint64_t p = addr & ~(EMU_PAGE - 1); p < end; p += EMU_PAGE) {
		struct emu_chunk *c = emu_chunk_at(m, p);
		if (!c)
			continue;
		if (!emu_read_into(m, p, c->buf + (p - c->lo), EMU_PAGE))
			memset(c->buf + (p - c->lo), 0, EMU_PAGE);
		if (c->prot & UC_PROT_EXEC)   /* code read() into it */
			emu_drop_code(m, p, p + EMU_PAGE);
	}
}

void emu_forget(struct emu *m)
{
	emu_lean_dropped(m->lean, 0, UINT64_MAX);
	for (size_t i = 0; i < m->nchunks; i++) {
		struct emu_chunk *c = &m->chunks[i];
		uc_ctl_remove_cache(m->uc, c->lo, c->hi);
		uc_mem_unmap(m->uc, c->lo, c->hi - c->lo);
		free(c->buf);
		free(c->dirty);
	}
	m->nchunks = 0;
	m->ndirty = 0;
	m->last = 0;
	memset(m->near, 0, sizeof m->near);
	m->vmas_fresh = false;
	m->nvmas = 0;
}

void emu_stats(const struct emu *m, uint64_t *bytes_in, uint64_t *bytes_out)
{
	*bytes_in = m->nread;
	*bytes_out = m->nwritten;
}

/* ---- lean translations (emu-lean.c) ---- */

void emu_set_lean_pick(struct emu *m, emu_pick_fn pick, emu_hook_fn start)
{
	m->lean_pick = pick;
	m->lean_start = start;
}

void emu_lean_drop(struct emu *m, uint64_t lo, uint64_t hi)
{
	emu_lean_dropped(m->lean, lo, hi);
}

bool emu_lean_bare_at(const struct emu *m, uint64_t pc)
{
	return m->lean && emu_lean_bare(m->lean, pc);
}

void emu_lean(struct emu *m, bool on)
{
	on = on && m->lean_pick && m->lean_start && m->block && m->lo < m->hi;
	if (on && !m->lean)
		m->lean = emu_lean_new(m->uc, (void *)emu_code, m, m->lean_pick, m->ctx);
	if (m->lean)
		emu_lean_checks(m->lean, emu_access_inline(m));
	if (!on)   /* lean blocks hook too little now */
		emu_lean_dropped(m->lean, 0, UINT64_MAX);
	m->lean_on = on && m->lean;
}

uint64_t emu_lean_skipped(struct emu *m)
{
	return m->lean ? emu_lean_take(m->lean) : 0;
}

size_t emu_lean_blocks(const struct emu *m, uint64_t *made, const char **broken)
{
	*made = emu_lean_made(m->lean);
	*broken = emu_lean_broken(m->lean);
	return emu_lean_nblocks(m->lean);
}

bool emu_lean_any(const struct emu *m)
{
	return emu_lean_nblocks(m->lean) > 0;
}
