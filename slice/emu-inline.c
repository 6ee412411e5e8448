/* emu-inline.c: checks compiled into lean translations (emu-inline.h).
 *
 * Unicorn 2.0.1 translates guest code with QEMU's TCG. Its x86 front end
 * makes each guest load and store with tcg_gen_qemu_ld/st_i32/i64_x86_64
 * and marks each instruction's start with tcg_gen_op2_x86_64
 * (INDEX_op_insn_start, the guest pc), all called through the library's
 * PLT: qzdb defines functions of the same names (exported by the link's
 * dynamic list, slice/emu-inline.list), which the library then calls;
 * they pass every call on to the library's own (dlsym RTLD_NEXT) and,
 * inside a lean translation, first emit a call of emu_inline_helper with
 * the access's address and a constant (size, store, first). The helper
 * is made known to TCG by putting its description in the translator's
 * helper table (its offset read from tcg_gen_callN's first load) with
 * no flags: TCG then writes the guest registers back before the call, so
 * a refused access can stop the run with QEMU's own exact stop for a
 * fault (cpu_loop_exit_restore: the instruction's pc from TCG's
 * per-instruction data, the run ended by uc_emu_stop's request; the CPU
 * state is found at the offset uc_emu_stop reads it from). Nothing here
 * is trusted until a test machine's run gave the expected accesses, stop
 * and registers (ei_selftest). */
#define _GNU_SOURCE
#include "emu-inline.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu-lean.h"

typedef void ei_ldst_fn(void *s, intptr_t val, intptr_t addr, uintptr_t idx, int memop);
typedef void ei_op2_fn(void *s, int opc, uintptr_t a1, uintptr_t a2);
typedef intptr_t ei_const_fn(void *s, int64_t v);
typedef void ei_free_fn(void *s, void *temp);
typedef void ei_calln_fn(void *s, void *func, void *ret, int nargs, void **args);
typedef void ei_insert_fn(void *table, void *key, void *value);
typedef void *ei_lookup_fn(void *table, const void *key);
typedef void ei_exit_fn(void *cpu, uintptr_t host_pc);

/* QEMU's TCGHelperInfo: func, name, flags (0: may read and write the
 * guest registers: they are written back before the call), sizemask
 * (two 64-bit arguments). */
struct ei_helper_info {
	void *func;
	const char *name;
	unsigned flags, sizemask;
};

enum { EI_OPS = 1024 };   /* TCG opcodes are fewer */

static struct {
	/* the library's functions */
	ei_ldst_fn *ld32, *ld64, *st32, *st64;
	ei_op2_fn *op2;
	ei_const_fn *cst;
	ei_free_fn *tfree;
	ei_calln_fn *calln;
	ei_insert_fn *insert;
	ei_lookup_fn *lookup;
	ei_exit_fn *exit_restore;
	long table_off;          /* TCGContext's helper table */
	long cpu_off;            /* uc_struct's CPUState pointer */
	int insn_start;          /* INDEX_op_insn_start, -1 until known */
	/* calibration: the first pcs insn_start was seen with, by opcode */
	bool calibrating;
	uint64_t cal_pc[EI_OPS];
	/* the translation under way */
	struct emu_inline_blk *blk;
	int cur;                 /* its instruction being translated, -1 */
	bool cur_first;
	/* the run under way */
	uc_engine *uc;
	emu_inline_fn fn;
	void *ctx;
	bool out;                /* stores outside [lo, hi) checked */
	uint64_t lo, hi;
	bool stopped;
	uint64_t calls;
	/* the probe */
	bool probed, ok, allowed_off;
	bool blind;              /* maint emulator-inline blind: never stop */
	char why[200];
} ei = { .insn_start = -1, .cur = -1 };

/* ---- the library's functions, passed through ---- */

static void *ei_next(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);
	if (!f) {   /* the library calls these only if it has them */
		fprintf(stderr, "qzdb: Unicorn has no %s\n", name);
		abort();
	}
	return f;
}

void tcg_gen_op2_x86_64(void *s, int opc, uintptr_t a1, uintptr_t a2);
void tcg_gen_op2_x86_64(void *s, int opc, uintptr_t a1, uintptr_t a2)
{
	if (!ei.op2)
		ei.op2 = (ei_op2_fn *)ei_next("tcg_gen_op2_x86_64");
	if (ei.calibrating && opc >= 0 && opc < EI_OPS && !ei.cal_pc[opc])
		ei.cal_pc[opc] = a1;
	if (opc == ei.insn_start && !ei.blk && ei.out) {
		/* code outside the scope: its stores are checked */
		ei.cur = a1 < ei.lo || a1 >= ei.hi ? 0 : -1;
		ei.cur_first = false;
	} else if (opc == ei.insn_start && ei.blk) {
		/* the instruction at a1 starts: is it one to check? */
		uint64_t off = a1 - ei.blk->pc;
		ei.cur = -1;
		ei.cur_first = true;
		for (int lo = 0, hi = ei.blk->n; lo < hi && off < 0x10000;) {
			int mid = (lo + hi) / 2;
			if (ei.blk->skip[mid] == off) {
				ei.cur = mid;
				break;
			}
			if (ei.blk->skip[mid] < off)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	ei.op2(s, opc, a1, a2);
}

void emu_inline_helper(uint64_t addr, uint64_t word);

/* The call, when the instruction being translated is one to check. */
static void ei_emit(void *s, intptr_t addr, int memop, bool store)
{
	if (ei.cur < 0 || !ei.ok || (!ei.blk && (!ei.out || !store)))
		return;
	/* each machine has its translator's own table */
	static struct ei_helper_info info = { (void *)emu_inline_helper, "qz_inline", 0,
					      1u << 2 | 1u << 4 };
	void *table = *(void **)((char *)s + ei.table_off);
	if (!ei.lookup(table, (void *)emu_inline_helper))
		ei.insert(table, (void *)emu_inline_helper, &info);
	unsigned flags = (store ? EMU_ACCESS_STORE : 0) | (ei.cur_first ? EMU_ACCESS_FIRST : 0) |
			 (ei.blk ? 0 : EMU_INLINE_OUT);
	intptr_t word = ei.cst(s, (int64_t)(1u << (memop & 3)) | (int64_t)flags << 8);
	void *args[2] = { (char *)s + addr, (char *)s + word };
	ei.calln(s, (void *)emu_inline_helper, NULL, 2, args);
	ei.tfree(s, (char *)s + word);
	if (ei.blk)
		ei.blk->seen[ei.cur] |= store ? EMU_ACCESS_STORE : EMU_ACCESS_LOAD;
	ei.cur_first = false;
}

#define EI_LDST(name, field, store)                                                      \
	void name(void *s, intptr_t val, intptr_t addr, uintptr_t idx, int memop);       \
	void name(void *s, intptr_t val, intptr_t addr, uintptr_t idx, int memop)        \
	{                                                                                \
		if (!ei.field)                                                           \
			ei.field = (ei_ldst_fn *)ei_next(#name);                         \
		ei_emit(s, addr, memop, store);                                          \
		ei.field(s, val, addr, idx, memop);                                      \
	}
EI_LDST(tcg_gen_qemu_ld_i32_x86_64, ld32, false)
EI_LDST(tcg_gen_qemu_ld_i64_x86_64, ld64, false)
EI_LDST(tcg_gen_qemu_st_i32_x86_64, st32, true)
EI_LDST(tcg_gen_qemu_st_i64_x86_64, st64, true)

/* ---- at run time ---- */

__attribute__((noinline)) void emu_inline_helper(uint64_t addr, uint64_t word)
{
	ei.calls++;
	if (!ei.fn || ei.blind || !ei.fn(ei.ctx, addr, (uint32_t)(word & 0xff), (unsigned)(word >> 8)))
		return;
	/* stop before the instruction: the run ends at once, its pc and
	 * registers as before it (QEMU's own exact stop for a fault) */
	ei.stopped = true;
	uc_emu_stop(ei.uc);
	ei.exit_restore(*(void **)((char *)ei.uc + ei.cpu_off),
			(uintptr_t)__builtin_return_address(0));
}

void emu_inline_running(uc_engine *uc, emu_inline_fn fn, void *ctx, bool out, uint64_t lo,
			uint64_t hi)
{
	ei.uc = uc;
	ei.fn = fn;
	ei.ctx = ctx;
	ei.out = uc && out && ei.ok;
	ei.lo = lo;
	ei.hi = hi;
	ei.cur = -1;
	if (uc)
		ei.stopped = false;
}

bool emu_inline_stopped(void)
{
	return ei.stopped;
}

void emu_inline_translating(struct emu_inline_blk *b)
{
	ei.blk = b;
	ei.cur = -1;
	if (b)
		ei.out = false;   /* a lean block is the scope's */
}

/* ---- the probe ---- */

/* The 32-bit displacement of the first `mov disp32(%rdi),%rdi` (48 8b bf)
 * in the first lim bytes of the library's function name, or -1. */
static long ei_disp(const char *name, int lim)
{
	const uint8_t *p = dlsym(RTLD_DEFAULT, name);
	for (int i = 0; p && i + 7 <= lim; i++)
		if (p[i] == 0x48 && p[i + 1] == 0x8b && p[i + 2] == 0xbf) {
			int32_t d;
			memcpy(&d, p + i + 3, 4);
			return d > 0 && d < 0x100000 ? d : -1;
		}
	return -1;
}

static bool ei_fail(const char *why)
{
	snprintf(ei.why, sizeof ei.why, "%s", why);
	return false;
}

static bool ei_find(void)
{
	unsigned major, minor;
	uc_version(&major, &minor);
	if (major != 2 || minor != 0)
		return ei_fail("Unicorn is not 2.0, whose translator this knows");
	/* qzdb's own functions must be the ones the library calls */
	static const struct { const char *name; void *fn; } ours[] = {
		{ "tcg_gen_op2_x86_64", (void *)tcg_gen_op2_x86_64 },
		{ "tcg_gen_qemu_ld_i32_x86_64", (void *)tcg_gen_qemu_ld_i32_x86_64 },
		{ "tcg_gen_qemu_ld_i64_x86_64", (void *)tcg_gen_qemu_ld_i64_x86_64 },
		{ "tcg_gen_qemu_st_i32_x86_64", (void *)tcg_gen_qemu_st_i32_x86_64 },
		{ "tcg_gen_qemu_st_i64_x86_64", (void *)tcg_gen_qemu_st_i64_x86_64 },
	};
	for (size_t i = 0; i < sizeof ours / sizeof *ours; i++)
		if (dlsym(RTLD_DEFAULT, ours[i].name) != ours[i].fn || !dlsym(RTLD_NEXT, ours[i].name))
			return ei_fail("qzdb does not export its translator functions");
	ei.cst = (ei_const_fn *)dlsym(RTLD_DEFAULT, "tcg_const_i64_x86_64");
	ei.tfree = (ei_free_fn *)dlsym(RTLD_DEFAULT, "tcg_temp_free_internal_x86_64");
	ei.calln = (ei_calln_fn *)dlsym(RTLD_DEFAULT, "tcg_gen_callN_x86_64");
	ei.insert = (ei_insert_fn *)dlsym(RTLD_DEFAULT, "g_hash_table_insert");
	ei.lookup = (ei_lookup_fn *)dlsym(RTLD_DEFAULT, "g_hash_table_lookup");
	ei.exit_restore = (ei_exit_fn *)dlsym(RTLD_DEFAULT, "cpu_loop_exit_restore_x86_64");
	if (!ei.cst || !ei.tfree || !ei.calln || !ei.insert || !ei.lookup || !ei.exit_restore)
		return ei_fail("Unicorn lacks a translator function this needs");
	ei.table_off = ei_disp("tcg_gen_callN_x86_64", 64);
	ei.cpu_off = ei_disp("uc_emu_stop", 48);
	if (ei.table_off < 0 || ei.cpu_off < 0)
		return ei_fail("Unicorn's code is not laid out as in 2.0.1");
	return true;
}

/* The test machine: mov $7,%eax; mov (%rbx),%rcx; add $1,%eax;
 * mov %rcx,8(%rbx); add $1,%eax; push %rax; pop %rdx; hlt */
enum { EI_CODE = 0x100000, EI_DATA = 0x200000 };
static const uint8_t ei_code[] = { 0xb8, 7, 0, 0, 0, 0x48, 0x8b, 0x0b, 0x83, 0xc0, 0x01,
				   0x48, 0x89, 0x4b, 0x08, 0x83, 0xc0, 0x01, 0x50, 0x5a, 0xf4 };
static const uint16_t ei_offs[] = { 0, 5, 8, 11, 15, 18, 19, 20 };

struct ei_test {
	int n, stop_at;
	uint64_t addr[8];
	unsigned flags[8];
};

static bool ei_test_fn(void *ctx, uint64_t addr, uint32_t size, unsigned flags)
{
	struct ei_test *t = ctx;
	if (t->n < 8) {
		t->addr[t->n] = addr;
		t->flags[t->n] = flags | size << 8;
	}
	return t->n++ == t->stop_at;
}

/* Run the test code from its start with every instruction checked,
 * stopping at check stop_at (-1: none); the registers after. */
static bool ei_test_run(uc_engine *uc, struct ei_test *t, uint64_t *rip, uint64_t *rax,
			uint64_t *mem1)
{
	uint64_t rbx = EI_DATA, rsp = EI_DATA + 0x8000, zero = 0, v = 0x1234;
	uc_reg_write(uc, UC_X86_REG_RBX, &rbx);
	uc_reg_write(uc, UC_X86_REG_RSP, &rsp);
	uc_reg_write(uc, UC_X86_REG_RAX, &zero);
	uc_mem_write(uc, EI_DATA, &v, 8);
	uc_mem_write(uc, EI_DATA + 8, &zero, 8);
	emu_inline_running(uc, ei_test_fn, t, false, 0, 0);
	uc_err e = uc_emu_start(uc, EI_CODE, 0, 0, 0);   /* to the hlt */
	emu_inline_running(NULL, NULL, NULL, false, 0, 0);
	uc_reg_read(uc, UC_X86_REG_RIP, rip);
	uc_reg_read(uc, UC_X86_REG_RAX, rax);
	uc_mem_read(uc, EI_DATA + 8, mem1, 8);
	return e == UC_ERR_OK;
}

static bool ei_selftest_machine(void)
{
	uc_engine *uc;
	if (uc_open(UC_ARCH_X86, UC_MODE_64, &uc) != UC_ERR_OK)
		return ei_fail("no test machine");
	bool ok = uc_mem_map(uc, EI_CODE, 0x1000, UC_PROT_READ | UC_PROT_EXEC) == UC_ERR_OK &&
		  uc_mem_map(uc, EI_DATA, 0x10000, UC_PROT_READ | UC_PROT_WRITE) == UC_ERR_OK &&
		  uc_mem_write(uc, EI_CODE, ei_code, sizeof ei_code) == UC_ERR_OK;
	/* which opcode carries the pcs (INDEX_op_insn_start) */
	uc_tb tb;
	memset(ei.cal_pc, 0, sizeof ei.cal_pc);
	ei.calibrating = true;
	ok = ok && emu_request_cache(uc, EI_CODE, &tb) == UC_ERR_OK;
	ei.calibrating = false;
	for (int i = 0; ok && i < EI_OPS && ei.insn_start < 0; i++)
		if (ei.cal_pc[i] == EI_CODE)
			ei.insn_start = i;
	if (!ok || ei.insn_start < 0) {
		uc_close(uc);
		return ei_fail("the test machine's translation showed no instruction starts");
	}
	/* translated again, every instruction checked */
	uint8_t seen[8] = { 0 };
	struct emu_inline_blk b = { EI_CODE, ei_offs, 8, seen };
	ei.ok = true;   /* ei_emit emits for the test */
	uc_ctl_remove_cache(uc, EI_CODE, EI_CODE + 0x1000);
	emu_inline_translating(&b);
	ok = emu_request_cache(uc, EI_CODE, &tb) == UC_ERR_OK;
	emu_inline_translating(NULL);
	ei.ok = false;
	/* loads at 5 (mov), 19 (pop); stores at 11 (mov), 18 (push) */
	ok = ok && seen[1] == EMU_ACCESS_LOAD && seen[3] == EMU_ACCESS_STORE &&
	     seen[5] == EMU_ACCESS_STORE && seen[6] == EMU_ACCESS_LOAD && !seen[0] && !seen[2];
	struct ei_test all = { .stop_at = -1 }, stop = { .stop_at = 1 };
	uint64_t rip, rax, mem1, rip2, rax2, mem2;
	ok = ok && ei_test_run(uc, &all, &rip, &rax, &mem1) && all.n == 4 &&
	     all.addr[0] == EI_DATA && all.flags[0] == (8u << 8 | EMU_ACCESS_FIRST) &&
	     all.addr[1] == EI_DATA + 8 &&
	     all.flags[1] == (8u << 8 | EMU_ACCESS_FIRST | EMU_ACCESS_STORE) &&
	     all.addr[2] == EI_DATA + 0x7ff8 && all.addr[3] == EI_DATA + 0x7ff8 && rax == 9 &&
	     mem1 == 0x1234;
	/* the stop before the store: the add before it ran, the store not */
	ok = ok && ei_test_run(uc, &stop, &rip2, &rax2, &mem2) && stop.n == 2 && ei.stopped &&
	     rip2 == EI_CODE + 11 && rax2 == 8 && mem2 == 0;
	uc_close(uc);
	return ok || ei_fail("the test machine's checks or stop were not exact");
}

/* The test, whatever maint set (blind would fail it). */
static bool ei_selftest(void)
{
	bool blind = ei.blind;
	ei.blind = false;
	bool ok = ei_selftest_machine();
	ei.blind = blind;
	return ok;
}

bool emu_inline_ok(char *why, size_t whylen)
{
	if (!ei.probed) {
		ei.probed = true;
		ei.ok = ei_find() && ei_selftest();
		if (!ei.ok)
			ei.insn_start = -1;   /* nothing to take note of */
	}
	if (why)
		snprintf(why, whylen, "%s", ei.allowed_off ? "turned off (maint emulator-inline off)" :
							   ei.why);
	return ei.ok && !ei.allowed_off;
}

void emu_inline_allow(bool on)
{
	ei.allowed_off = !on;
	ei.blind = false;
}

void emu_inline_blind(void)
{
	ei.blind = true;
}

const char *emu_inline_state(void)
{
	static char s[256];
	char why[200];
	if (emu_inline_ok(why, sizeof why))
		snprintf(s, sizeof s, "on: lean translations check their loads and stores inline "
				      "(%llu checks so far)",
			 (unsigned long long)ei.calls);
	else
		snprintf(s, sizeof s, "off: %s", why);
	return s;
}
