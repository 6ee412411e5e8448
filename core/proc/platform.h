/* platform: what this CPU, kernel and hypervisor really do, found by a
 * probe on a tiny traced child (never assumed from the CPU model), plus the
 * maintenance overrides that force the fallbacks so every machine can test
 * them. Process-control layer: includes nothing above it. */
#ifndef QZ_PLATFORM_H
#define QZ_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sbuf;

/* Instruction kinds whose single-step trap a hypervisor may deliver late
 * (it emulates them): the trap then arrives one or more instructions on. */
enum plat_insn {
	PLAT_CPUID,
	PLAT_RDTSC,
	PLAT_RDTSCP,
	PLAT_XGETBV,
	PLAT_RDPID,
	PLAT_RDRAND,
	PLAT_RDSEED,
	PLAT_NINSN
};

enum plat_tri { PLAT_UNKNOWN, PLAT_NO, PLAT_YES };

struct platform {
	char vendor[16];          /* "AuthenticAMD", "GenuineIntel" */
	char model[64];           /* brand string */
	char kernel[224];         /* uname system, release and machine */
	char hypervisor[16];      /* CPUID 0x40000000 signature, "" on bare metal */
	bool has_hypervisor;
	/* debug registers: poking DR7 works, and the traps really arrive */
	enum plat_tri dr_exec, dr_write;
	/* per instruction kind: the CPU has it, and a single step over it stops
	 * exactly at the next instruction */
	bool insn_present[PLAT_NINSN];
	enum plat_tri step_exact[PLAT_NINSN];
	/* userfaultfd write-protect (user mode only), with the kernel's
	 * faults too (synchronous, privileged), its async mode, PAGEMAP_SCAN */
	enum plat_tri uffd_wp, uffd_wp_sync, uffd_wp_async, pagemap_scan;
	/* XSAVE: enabled components (XCR0) and the area size they need */
	uint64_t xcr0;
	uint32_t xsave_size;
	bool avx512;
	int landlock_abi;         /* 0: none */
	enum plat_tri seccomp_filter;
	double probe_ms;          /* how long the probe took (0 when cached) */
	bool cached;              /* read from the per-boot cache */
};

/* The probe's findings (probing on the first call). Never NULL. */
const struct platform *platform_get(void);

/* What qzdb uses, after the maintenance overrides: */
bool platform_dr_usable(void);            /* debug-register watchpoints */
bool platform_step_exact(enum plat_insn k); /* single-step trap on time */
bool platform_steps_all_exact(void);      /* ... for every kind: no need to look */

/* The instruction kind at code (n bytes read at the pc), or -1 when it is
 * none of the kinds above; *len gets its length. */
int platform_insn_kind(const uint8_t *code, size_t n, int *len);

/* `maint set debug-registers on|off`, `maint set step-traps on|off`:
 * off forces the fallback whatever the probe found. */
void platform_force_dr_off(bool off);
void platform_force_step_traps_off(bool off);
bool platform_forced_dr_off(void);
bool platform_forced_step_traps_off(void);

/* `info platform` text. */
void platform_describe(struct sbuf *out);

#endif
