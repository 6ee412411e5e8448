/* platform: the capability probe. Two virtual machines of one kind differed
 * (PLATFORM.md): on one, debug registers took every write yet never
 * trapped, and the single-step trap after cpuid came an instruction late.
 * So nothing is assumed from the CPU model: a tiny traced child (a fork of
 * qzdb, stopped) is made to execute each instruction in question, and the
 * kernel features are tried for real. Results feed the stepping primitive
 * (core/proc/proc.c), the watchpoints and `info platform`. */
#define _GNU_SOURCE
#include "platform.h"

#include <cpuid.h>
#include <errno.h>
#include <stdlib.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/kabi.h"
#include "util/util.h"

/* The code the probe child is made to run: each instruction in question
 * followed by nops (a late trap lands on one of them) and an int3 that
 * stops the child whatever happens. Hidden symbols: PIE-safe addresses. */
__asm__(".pushsection .text\n"
	".p2align 4\n"
	".globl qz_plat_code_cpuid\n .hidden qz_plat_code_cpuid\n"
	"qz_plat_code_cpuid: cpuid\n nop\n nop\n nop\n int3\n"
	".globl qz_plat_code_rdtsc\n .hidden qz_plat_code_rdtsc\n"
	"qz_plat_code_rdtsc: rdtsc\n nop\n nop\n nop\n int3\n"
	".globl qz_plat_code_rdtscp\n .hidden qz_plat_code_rdtscp\n"
	"qz_plat_code_rdtscp: rdtscp\n nop\n nop\n nop\n int3\n"
	".globl qz_plat_code_xgetbv\n .hidden qz_plat_code_xgetbv\n"
	"qz_plat_code_xgetbv: xgetbv\n nop\n nop\n nop\n int3\n"
	".globl qz_plat_code_rdpid\n .hidden qz_plat_code_rdpid\n"
	"qz_plat_code_rdpid: rdpid %rax\n nop\n nop\n nop\n int3\n"
	".globl qz_plat_code_rdrand\n .hidden qz_plat_code_rdrand\n"
	"qz_plat_code_rdrand: rdrand %rax\n nop\n nop\n nop\n int3\n"
	".globl qz_plat_code_rdseed\n .hidden qz_plat_code_rdseed\n"
	"qz_plat_code_rdseed: rdseed %rax\n nop\n nop\n nop\n int3\n"
	".globl qz_plat_code_write\n .hidden qz_plat_code_write\n"
	"qz_plat_code_write: movq $1, qz_plat_var(%rip)\n"
	".globl qz_plat_code_written\n .hidden qz_plat_code_written\n"
	"qz_plat_code_written: nop\n nop\n int3\n"
	".globl qz_plat_code_exec\n .hidden qz_plat_code_exec\n"
	"qz_plat_code_exec: nop\n"
	".globl qz_plat_code_exec_at\n .hidden qz_plat_code_exec_at\n"
	"qz_plat_code_exec_at: nop\n nop\n int3\n"
	".popsection\n"
	".pushsection .bss\n .p2align 3\n"
	".globl qz_plat_var\n .hidden qz_plat_var\n"
	"qz_plat_var: .quad 0\n"
	".popsection\n");

extern const char qz_plat_code_cpuid[], qz_plat_code_rdtsc[], qz_plat_code_rdtscp[],
	qz_plat_code_xgetbv[], qz_plat_code_rdpid[], qz_plat_code_rdrand[],
	qz_plat_code_rdseed[], qz_plat_code_write[], qz_plat_code_written[],
	qz_plat_code_exec[], qz_plat_code_exec_at[];
extern uint64_t qz_plat_var;

static const char *const plat_insn_name[PLAT_NINSN] = {
	"cpuid", "rdtsc", "rdtscp", "xgetbv", "rdpid", "rdrand", "rdseed",
};

static const char *plat_code(enum plat_insn k)
{
	const char *code[PLAT_NINSN] = {
		qz_plat_code_cpuid, qz_plat_code_rdtsc, qz_plat_code_rdtscp,
		qz_plat_code_xgetbv, qz_plat_code_rdpid, qz_plat_code_rdrand,
		qz_plat_code_rdseed,
	};
	return code[k];
}

static struct platform plat;
static bool plat_done, plat_dr_off, plat_step_off;

/* ---- decoding the instructions in question ---- */

/* Skip legacy and REX prefixes; *rep says whether F3 was among them. */
static size_t plat_prefixes(const uint8_t *c, size_t n, bool *rep)
{
	size_t i = 0;
	*rep = false;
	for (; i < n && i < 14; i++) {
		uint8_t b = c[i];
		if (b == 0xf3)
			*rep = true;
		else if (!(b == 0x66 || b == 0x67 || b == 0xf2 || b == 0x2e || b == 0x36 ||
			   b == 0x3e || b == 0x26 || b == 0x64 || b == 0x65 || (b & 0xf0) == 0x40))
			break;
		if ((b & 0xf0) == 0x40 && i + 1 < n && c[i + 1] == 0x0f)
			return i + 1;   /* REX comes last */
	}
	return i;
}

/* 0F C7 with a register operand: /6 rdrand, /7 rdseed, F3 /7 rdpid. */
static int plat_kind_c7(uint8_t modrm, bool rep)
{
	if ((modrm & 0xc0) != 0xc0)
		return -1;
	int reg = (modrm >> 3) & 7;
	if (reg == 6 && !rep)
		return PLAT_RDRAND;
	if (reg == 7)
		return rep ? PLAT_RDPID : PLAT_RDSEED;
	return -1;
}

int platform_insn_kind(const uint8_t *code, size_t n, int *len)
{
	bool rep;
	size_t i = plat_prefixes(code, n, &rep);
	if (i + 2 > n || code[i] != 0x0f)
		return -1;
	uint8_t op = code[i + 1];
	int kind = -1, extra = 0;
	if (op == 0xa2)
		kind = PLAT_CPUID;
	else if (op == 0x31)
		kind = PLAT_RDTSC;
	else if (op == 0x01 && i + 3 <= n && (code[i + 2] == 0xf9 || code[i + 2] == 0xd0)) {
		kind = code[i + 2] == 0xf9 ? PLAT_RDTSCP : PLAT_XGETBV;
		extra = 1;
	} else if (op == 0xc7 && i + 3 <= n) {
		kind = plat_kind_c7(code[i + 2], rep);
		extra = 1;
	}
	if (kind >= 0 && len)
		*len = (int)(i + 2 + (size_t)extra);
	return kind;
}

/* ---- what CPUID says ---- */

static void plat_brand(struct platform *pf)
{
	unsigned r[12], max = __get_cpuid_max(0x80000000, NULL);
	if (max < 0x80000004)
		return;
	for (unsigned i = 0; i < 3; i++)
		__cpuid(0x80000002 + i, r[4 * i], r[4 * i + 1], r[4 * i + 2], r[4 * i + 3]);
	char s[49];
	memcpy(s, r, 48);
	s[48] = 0;
	char *t = str_trim(s);
	snprintf(pf->model, sizeof pf->model, "%s", t);
	free(t);
}

static void plat_hypervisor(struct platform *pf, unsigned ecx1)
{
	pf->has_hypervisor = (ecx1 >> 31) & 1;
	if (!pf->has_hypervisor)
		return;
	unsigned a, sig[3];
	__cpuid(0x40000000, a, sig[0], sig[1], sig[2]);
	char raw[13];
	memcpy(raw, sig, 12);
	raw[12] = 0;
	char *t = str_trim(raw);   /* "bhyve bhyve ", "KVMKVMKVM" */
	snprintf(pf->hypervisor, sizeof pf->hypervisor, "%s", t);
	free(t);
}

static uint64_t plat_xgetbv0(void)
{
	uint32_t lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return (uint64_t)hi << 32 | lo;
}

static void plat_xsave(struct platform *pf, unsigned ecx1)
{
	unsigned a, b, c, d;
	if (!((ecx1 >> 27) & 1) || !__get_cpuid_count(0xd, 0, &a, &b, &c, &d))
		return;   /* no OSXSAVE: the FXSAVE area only */
	pf->xcr0 = plat_xgetbv0();
	/* ecx: the area every supported component needs, the bound the
	 * kernel's NT_X86_XSTATE regset never exceeds */
	pf->xsave_size = c > b ? c : b;
	unsigned eb7 = 0;
	if (__get_cpuid_count(7, 0, &a, &eb7, &c, &d))
		pf->avx512 = ((eb7 >> 16) & 1) && (pf->xcr0 & 0xe0) == 0xe0;
}

static void plat_cpuid(struct platform *pf)
{
	unsigned a, b, c, d, max = __get_cpuid_max(0, NULL);
	__cpuid(0, a, b, c, d);
	memcpy(pf->vendor, &b, 4);
	memcpy(pf->vendor + 4, &d, 4);
	memcpy(pf->vendor + 8, &c, 4);
	plat_brand(pf);
	__cpuid(1, a, b, c, d);
	unsigned ecx1 = c, edx1 = d, eb7 = 0, ec7 = 0, ed81 = 0;
	if (max >= 7)
		__cpuid_count(7, 0, a, eb7, ec7, d);
	if (__get_cpuid_max(0x80000000, NULL) >= 0x80000001)
		__cpuid(0x80000001, a, b, c, ed81);
	plat_hypervisor(pf, ecx1);
	plat_xsave(pf, ecx1);
	pf->insn_present[PLAT_CPUID] = true;
	pf->insn_present[PLAT_RDTSC] = (edx1 >> 4) & 1;
	pf->insn_present[PLAT_RDTSCP] = (ed81 >> 27) & 1;
	pf->insn_present[PLAT_XGETBV] = (ecx1 >> 27) & 1;
	pf->insn_present[PLAT_RDPID] = (ec7 >> 22) & 1;
	pf->insn_present[PLAT_RDRAND] = (ecx1 >> 30) & 1;
	pf->insn_present[PLAT_RDSEED] = (eb7 >> 18) & 1;
}

/* ---- what the kernel offers ---- */

static void plat_kernel(struct platform *pf)
{
	struct utsname u;
	if (uname(&u) == 0)
		snprintf(pf->kernel, sizeof pf->kernel, "%s %s %s", u.sysname, u.release, u.machine);
}

/* A userfaultfd with these features, API handshake done; -1 if refused. */
static int plat_uffd_open(uint64_t features, int mode)
{
	int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | mode);
	if (fd < 0)
		return -1;
	struct kabi_uffd_api api = {KABI_UFFD_API, features, 0};
	if (ioctl(fd, KABI_UFFDIO_API, &api) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Register one fresh page for write-protection: what checkpoints and
 * write watchpoints ask of the kernel. */
static bool plat_uffd_wp_works(int fd, void *page)
{
	struct kabi_uffd_register reg = {(uint64_t)(uintptr_t)page, 4096,
					 KABI_UFFDIO_REGISTER_MODE_WP, 0};
	return ioctl(fd, KABI_UFFDIO_REGISTER, &reg) == 0;
}

static bool plat_pagemap_scan(void *page)
{
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	struct kabi_page_region r;
	struct kabi_pm_scan_arg arg = {
		.size = sizeof arg, .start = (uint64_t)(uintptr_t)page,
		.end = (uint64_t)(uintptr_t)page + 4096, .vec = (uint64_t)(uintptr_t)&r,
		.vec_len = 1, .category_mask = KABI_PAGE_IS_PRESENT,
		.return_mask = KABI_PAGE_IS_PRESENT,
	};
	bool ok = ioctl(fd, KABI_PAGEMAP_SCAN, &arg) >= 0;
	close(fd);
	return ok;
}

static enum plat_tri plat_yes(bool b)
{
	return b ? PLAT_YES : PLAT_NO;
}

static void plat_uffd(struct platform *pf)
{
	void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return;
	int fd = plat_uffd_open(KABI_UFFD_FEATURE_PAGEFAULT_FLAG_WP, KABI_UFFD_USER_MODE_ONLY);
	pf->uffd_wp = plat_yes(fd >= 0 && plat_uffd_wp_works(fd, page));
	if (fd >= 0)
		close(fd);
	/* the checkpoints' undo log: every write, the kernel's too (read()
	 * into a buffer), so not user-mode-only: privileged */
	fd = plat_uffd_open(KABI_UFFD_FEATURE_PAGEFAULT_FLAG_WP | KABI_UFFD_FEATURE_WP_UNPOPULATED, 0);
	pf->uffd_wp_sync = plat_yes(fd >= 0 && plat_uffd_wp_works(fd, page));
	if (fd >= 0)
		close(fd);
	fd = plat_uffd_open(KABI_UFFD_FEATURE_WP_ASYNC | KABI_UFFD_FEATURE_WP_UNPOPULATED,
			    KABI_UFFD_USER_MODE_ONLY);
	pf->uffd_wp_async = plat_yes(fd >= 0 && plat_uffd_wp_works(fd, page));
	if (fd >= 0)
		close(fd);
	pf->pagemap_scan = plat_yes(plat_pagemap_scan(page));
	munmap(page, 4096);
}

static void plat_confinement(struct platform *pf)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	pf->landlock_abi = abi > 0 ? (int)abi : 0;
	uint32_t action = SECCOMP_RET_TRACE;
	pf->seccomp_filter = plat_yes(syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0);
}

/* ---- the traced child ---- */

static pid_t plat_child(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		raise(SIGSTOP);
		_exit(0);   /* never reached: the parent moves the pc */
	}
	int st;
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st)) {
		if (pid > 0)
			kill(pid, SIGKILL);
		return -1;
	}
	return pid;
}

/* Resume the child at pc (rax = rcx = 0: cpuid leaf 0, xgetbv XCR0) with
 * req; the pc of the SIGTRAP stop it comes to, or 0. */
static uint64_t plat_run_at(pid_t pid, const void *pc, enum __ptrace_request req)
{
	struct user_regs_struct r;
	int st;
	if (ptrace(PTRACE_GETREGS, pid, 0, &r) < 0)
		return 0;
	r.rip = (uint64_t)(uintptr_t)pc;
	r.rax = r.rcx = 0;
	if (ptrace(PTRACE_SETREGS, pid, 0, &r) < 0 || ptrace(req, pid, 0, 0) < 0 ||
	    waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st) || WSTOPSIG(st) != SIGTRAP ||
	    ptrace(PTRACE_GETREGS, pid, 0, &r) < 0)
		return 0;
	return r.rip;
}

/* Three single steps over the instruction, each must stop right after it:
 * a hypervisor's late trap need not come every time. */
static enum plat_tri plat_step_probe(pid_t pid, enum plat_insn k)
{
	const char *code = plat_code(k);
	int len = 0;
	if (platform_insn_kind((const uint8_t *)code, 16, &len) != (int)k)
		return PLAT_UNKNOWN;   /* our decoder disagrees with the assembler */
	for (int i = 0; i < 3; i++) {
		uint64_t pc = plat_run_at(pid, code, PTRACE_SINGLESTEP);
		if (!pc)
			return PLAT_UNKNOWN;
		if (pc != (uint64_t)(uintptr_t)code + (uint64_t)len)
			return PLAT_NO;
	}
	return PLAT_YES;
}

static int plat_poke_dr(pid_t pid, int i, uint64_t v)
{
	return (int)ptrace(PTRACE_POKEUSER, pid, offsetof(struct user, u_debugreg[i]), v);
}

static uint64_t plat_peek_dr6(pid_t pid)
{
	errno = 0;
	long v = ptrace(PTRACE_PEEKUSER, pid, offsetof(struct user, u_debugreg[6]), 0);
	return errno ? 0 : (uint64_t)v;
}

/* Debug register slot set to addr with the DR7 bits given; the child run
 * from start must stop at expect with that slot's DR6 bit set. */
static enum plat_tri plat_dr_probe(pid_t pid, int slot, const void *addr, uint64_t dr7,
				   const char *start, const char *expect)
{
	if (plat_poke_dr(pid, slot, (uint64_t)(uintptr_t)addr) < 0 || plat_poke_dr(pid, 7, dr7) < 0)
		return PLAT_NO;
	uint64_t pc = plat_run_at(pid, start, PTRACE_CONT);
	bool hit = pc == (uint64_t)(uintptr_t)expect && ((plat_peek_dr6(pid) >> slot) & 1);
	plat_poke_dr(pid, 7, 0);
	plat_poke_dr(pid, 6, 0);
	return pc ? plat_yes(hit) : PLAT_UNKNOWN;
}

/* A write watch on qz_plat_var (DR0: enabled, write, 8 bytes) stops right
 * after the store. */
static enum plat_tri plat_dr_write(pid_t pid)
{
	return plat_dr_probe(pid, 0, &qz_plat_var, 1 | 1u << 16 | 2u << 18,
			     qz_plat_code_write, qz_plat_code_written);
}

/* An execute breakpoint (DR1) stops before the nop. */
static enum plat_tri plat_dr_exec(pid_t pid)
{
	return plat_dr_probe(pid, 1, qz_plat_code_exec_at, 1u << 2,
			     qz_plat_code_exec, qz_plat_code_exec_at);
}

static void plat_traced(struct platform *pf)
{
	pid_t pid = plat_child();
	if (pid < 0)
		return;   /* ptrace refused: everything stays unknown (fallbacks) */
	for (int k = 0; k < PLAT_NINSN; k++)
		if (pf->insn_present[k])
			pf->step_exact[k] = plat_step_probe(pid, k);
	pf->dr_write = plat_dr_write(pid);
	pf->dr_exec = plat_dr_exec(pid);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static double plat_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

const struct platform *platform_get(void)
{
	if (plat_done)
		return &plat;
	plat_done = true;
	double t0 = plat_now_ms();
	plat_cpuid(&plat);
	plat_kernel(&plat);
	plat_uffd(&plat);
	plat_confinement(&plat);
	plat_traced(&plat);
	plat.probe_ms = plat_now_ms() - t0;
	return &plat;
}

/* ---- what qzdb uses ---- */

bool platform_dr_usable(void)
{
	const struct platform *pf = platform_get();
	return !plat_dr_off && pf->dr_write == PLAT_YES;
}

bool platform_step_exact(enum plat_insn k)
{
	const struct platform *pf = platform_get();
	return !plat_step_off && pf->step_exact[k] == PLAT_YES;
}

bool platform_steps_all_exact(void)
{
	const struct platform *pf = platform_get();
	for (int k = 0; k < PLAT_NINSN; k++)
		if (pf->insn_present[k] && !platform_step_exact(k))
			return false;
	return true;
}

void platform_force_dr_off(bool off) { plat_dr_off = off; }
void platform_force_step_traps_off(bool off) { plat_step_off = off; }
bool platform_forced_dr_off(void) { return plat_dr_off; }
bool platform_forced_step_traps_off(void) { return plat_step_off; }

/* ---- info platform ---- */

static const char *plat_tri_word(enum plat_tri t)
{
	return t == PLAT_YES ? "yes" : t == PLAT_NO ? "no" : "unknown";
}

static void plat_row(struct sbuf *out, const char *name, const char *value, const char *instead)
{
	sbuf_printf(out, "%-34s %s", name, value);
	if (instead)
		sbuf_printf(out, " (%s)", instead);
	sbuf_addc(out, '\n');
}

static void plat_describe_dr(struct sbuf *out, const struct platform *pf)
{
	const char *fb = "watchpoints use page protection instead";
	const char *forced = plat_dr_off ? "forced off by maint set debug-registers off; " : "";
	char why[160];
	snprintf(why, sizeof why, "%s%s", forced, fb);
	bool use = platform_dr_usable();
	plat_row(out, "Debug registers, write watch:", plat_tri_word(pf->dr_write), use ? NULL : why);
	plat_row(out, "Debug registers, execute:", plat_tri_word(pf->dr_exec), NULL);
}

static void plat_describe_steps(struct sbuf *out, const struct platform *pf)
{
	for (int k = 0; k < PLAT_NINSN; k++) {
		char name[64];
		snprintf(name, sizeof name, "Single-step trap after %s:", plat_insn_name[k]);
		if (!pf->insn_present[k]) {
			plat_row(out, name, "not on this CPU", NULL);
			continue;
		}
		const char *v = pf->step_exact[k] == PLAT_YES ? "on time"
			      : pf->step_exact[k] == PLAT_NO ? "late" : "unknown";
		const char *fb = platform_step_exact(k) ? NULL
			       : plat_step_off ? "forced off by maint set step-traps off; "
						 "stepped by a temporary breakpoint"
					       : "stepped by a temporary breakpoint";
		plat_row(out, name, v, fb);
	}
}

static void plat_describe_xsave(struct sbuf *out, const struct platform *pf)
{
	static const char *const comp[] = {"x87", "sse", "avx", "bndregs", "bndcsr", "opmask",
					   "zmm_hi256", "hi16_zmm", "pt", "pkru"};
	sbuf_printf(out, "%-34s ", "XSAVE area:");
	if (!pf->xsave_size) {
		sbuf_add(out, "no (FXSAVE layout only)\n");
		return;
	}
	sbuf_printf(out, "%u bytes, XCR0 0x%llx:", pf->xsave_size, (unsigned long long)pf->xcr0);
	for (unsigned i = 0; i < 64; i++)
		if ((pf->xcr0 >> i) & 1)
			sbuf_printf(out, " %s", i < ARRAY_LEN(comp) ? comp[i] : "other");
	sbuf_addc(out, '\n');
	plat_row(out, "AVX-512:", pf->avx512 ? "yes" : "no", NULL);
}

static void plat_describe_kernel(struct sbuf *out, const struct platform *pf)
{
	plat_row(out, "userfaultfd write-protect:", plat_tri_word(pf->uffd_wp), NULL);
	plat_row(out, "userfaultfd sync write-protect:", plat_tri_word(pf->uffd_wp_sync),
		 pf->uffd_wp_sync == PLAT_YES ? "checkpoints: undo log, a copy of what is written"
		 : "checkpoints: pagemap or hash, a copy at each checkpoint");
	plat_row(out, "userfaultfd async write-protect:", plat_tri_word(pf->uffd_wp_async), NULL);
	plat_row(out, "PAGEMAP_SCAN:", plat_tri_word(pf->pagemap_scan),
		 pf->pagemap_scan == PLAT_YES && pf->uffd_wp_async == PLAT_YES ? NULL
		 : "checkpoints find changed pages by hashing");
	char ll[32];
	snprintf(ll, sizeof ll, "ABI %d", pf->landlock_abi);
	plat_row(out, "Landlock:", pf->landlock_abi ? ll : "no",
		 !pf->landlock_abi ? "no sandbox: replay needs --unsandboxed"
		 : pf->landlock_abi >= 4 ? "sandboxed programs write only under a scratch "
					   "directory, no TCP"
		 : "sandboxed programs write only under a scratch directory");
	plat_row(out, "seccomp filters:", plat_tri_word(pf->seccomp_filter),
		 pf->seccomp_filter == PLAT_YES ? "sandbox denials reported"
		 : "no sandbox: replay needs --unsandboxed");
}

void platform_describe(struct sbuf *out)
{
	const struct platform *pf = platform_get();
	plat_row(out, "CPU:", pf->vendor, pf->model[0] ? pf->model : NULL);
	plat_row(out, "Kernel:", pf->kernel, NULL);
	plat_row(out, "Hypervisor:", pf->has_hypervisor ? (pf->hypervisor[0] ? pf->hypervisor : "yes")
						      : "none", NULL);
	plat_describe_dr(out, pf);
	plat_describe_steps(out, pf);
	plat_describe_xsave(out, pf);
	plat_describe_kernel(out, pf);
	sbuf_printf(out, "%-34s %.1f ms\n", "Probe took:", pf->probe_ms);
}
