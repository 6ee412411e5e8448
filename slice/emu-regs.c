/* emu-regs: finding the emulated CPU's registers in Unicorn's memory; see
 * emu-regs.h. QEMU keeps them in CPUX86State (target_ulong regs[16] at
 * its start, in the encoding's order); uc_reg_read of a general register
 * copies one from there, and TCG writes its globals back there before it
 * calls a hook's helper and before each load or store, so a load from
 * there gives what uc_reg_read would, in every hook. Unicorn does not
 * export the address: distinctive values are written with uc_reg_write
 * and looked for near the pointers the uc_engine holds, every read of
 * that memory through process_vm_readv on ourselves (an unmapped address
 * is an error there, not a crash). A place is trusted only after three
 * more sets of values written show there and a short emulated run whose
 * instructions change every register shows there at each instruction,
 * as uc_reg_read reads them, and at its end as computed here. */
#include "emu-regs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"

const int emu_regs_gpr_id[16] = {
	UC_X86_REG_RAX, UC_X86_REG_RCX, UC_X86_REG_RDX, UC_X86_REG_RBX,
	UC_X86_REG_RSP, UC_X86_REG_RBP, UC_X86_REG_RSI, UC_X86_REG_RDI,
	UC_X86_REG_R8, UC_X86_REG_R9, UC_X86_REG_R10, UC_X86_REG_R11,
	UC_X86_REG_R12, UC_X86_REG_R13, UC_X86_REG_R14, UC_X86_REG_R15,
};

enum { EMU_REGS_FS = 16, EMU_REGS_GS = 17, EMU_REGS_N = 18 };

#define EMU_REGS_HOLDER (16u << 10)    /* bytes of the uc_engine looked at */
#define EMU_REGS_WINDOW (128u << 10)   /* bytes looked at from each pointer */
#define EMU_REGS_SCRATCH 0x10000ull    /* the probe run's page (nothing else mapped) */

static int emu_regs_uc_id(int i)
{
	return i < 16 ? emu_regs_gpr_id[i] : i == EMU_REGS_FS ? UC_X86_REG_FS_BASE : UC_X86_REG_GS_BASE;
}

/* Value i of set k: no pointer, no small number, each distinct. */
static uint64_t emu_regs_pattern(int k, int i)
{
	return (0x9e3779b97f4a7c15ull * (uint64_t)(k * 64 + i + 1)) ^ 0xa5c3000000000000ull;
}

static bool emu_regs_write_set(uc_engine *uc, int k)
{
	for (int i = 0; i < EMU_REGS_N; i++) {
		uint64_t v = emu_regs_pattern(k, i);
		if (uc_reg_write(uc, emu_regs_uc_id(i), &v) != UC_ERR_OK)
			return false;
	}
	return true;
}

/* The word index of want[0..n) in w[0..nw), from `from`; -1. */
static long emu_regs_find(const uint64_t *w, size_t nw, size_t from, const uint64_t *want, size_t n)
{
	for (size_t i = from; i + n <= nw; i++)
		if (w[i] == want[0] && memcmp(&w[i], want, n * sizeof *want) == 0)
			return (long)i;
	return -1;
}

/* Where set 0 shows near a pointer the engine holds. */
static bool emu_regs_locate(uc_engine *uc, struct emu_regs_at *at)
{
	uint64_t want[EMU_REGS_N];
	for (int i = 0; i < EMU_REGS_N; i++)
		want[i] = emu_regs_pattern(0, i);
	uint64_t *holder = calloc(1, EMU_REGS_HOLDER), *win = malloc(EMU_REGS_WINDOW);
	bool found = false;
	size_t nh = holder && win ? vm_read(getpid(), (uint64_t)(uintptr_t)uc, holder, EMU_REGS_HOLDER) / 8 : 0;
	for (size_t h = 0; h < nh && !found; h++) {
		uint64_t p = holder[h];
		if (p < 0x10000 || p >= 0x800000000000ull || (p & 7))
			continue;
		size_t nw = vm_read(getpid(), p, win, EMU_REGS_WINDOW) / 8;
		long g = emu_regs_find(win, nw, 0, want, 16);
		if (g < 0)
			continue;
		long fs = emu_regs_find(win, nw, (size_t)g + 16, &want[EMU_REGS_FS], 1);
		long gs = emu_regs_find(win, nw, (size_t)g + 16, &want[EMU_REGS_GS], 1);
		if (fs < 0 || gs < 0)
			continue;
		const uint64_t *base = (const uint64_t *)p;
		*at = (struct emu_regs_at){ base + g, base + fs, base + gs };
		found = true;
	}
	free(holder);
	free(win);
	return found;
}

static uint64_t emu_regs_at_read(const struct emu_regs_at *at, int i)
{
	return i < 16 ? at->gpr[i] : i == EMU_REGS_FS ? *at->fs_base : *at->gs_base;
}

/* Does every register show at `at` as uc_reg_read reads it? */
static bool emu_regs_agree(uc_engine *uc, const struct emu_regs_at *at)
{
	for (int i = 0; i < EMU_REGS_N; i++) {
		uint64_t v = 0;
		if (uc_reg_read(uc, emu_regs_uc_id(i), &v) != UC_ERR_OK || v != emu_regs_at_read(at, i))
			return false;
	}
	return true;
}

/* Sets 1-3 written show at `at`. */
static bool emu_regs_sets_show(uc_engine *uc, const struct emu_regs_at *at)
{
	for (int k = 1; k <= 3; k++) {
		if (!emu_regs_write_set(uc, k))
			return false;
		for (int i = 0; i < EMU_REGS_N; i++)
			if (emu_regs_at_read(at, i) != emu_regs_pattern(k, i))
				return false;
	}
	return true;
}

/* ---- the probe run ---- */

struct emu_regs_run {
	const struct emu_regs_at *at;
	int insns, disagreed;
};

static void emu_regs_run_hook(uc_engine *uc, uint64_t pc, uint32_t size, void *data)
{
	(void)pc;
	(void)size;
	struct emu_regs_run *r = data;
	r->insns++;
	if (!emu_regs_agree(uc, r->at))
		r->disagreed++;
}

/* movabs of set 4 into every register, then instructions that change
 * them by computing; *n its length, v what they hold after it. */
static void emu_regs_run_code(uint8_t *code, size_t *n, uint64_t v[16])
{
	size_t o = 0;
	for (int i = 0; i < 16; i++) {
		v[i] = emu_regs_pattern(4, i);
		code[o++] = (uint8_t)(0x48 | (i >= 8));   /* REX.W, REX.B */
		code[o++] = (uint8_t)(0xb8 + (i & 7));
		memcpy(&code[o], &v[i], 8);
		o += 8;
	}
	static const uint8_t ops[] = {
		0x48, 0x01, 0xc8,         /* add rax, rcx */
		0x48, 0x31, 0xda,         /* xor rdx, rbx */
		0x4d, 0x0f, 0xaf, 0xc1,   /* imul r8, r9 */
		0x48, 0x8d, 0x34, 0x7e,   /* lea rsi, [rsi + rdi*2] */
		0x49, 0xff, 0xc7,         /* inc r15 */
		0x48, 0xf7, 0xdd,         /* neg rbp */
		0x48, 0x83, 0xc4, 0x08,   /* add rsp, 8 */
		0x49, 0x0f, 0xcc,         /* bswap r12 */
	};
	memcpy(&code[o], ops, sizeof ops);
	*n = o + sizeof ops;
	v[0] += v[1];
	v[2] ^= v[3];
	v[8] *= v[9];
	v[6] += 2 * v[7];
	v[15]++;
	v[5] = -v[5];
	v[4] += 8;
	v[12] = __builtin_bswap64(v[12]);
}

/* The run on a scratch page, looked at each instruction and after. */
static bool emu_regs_run_shows(uc_engine *uc, const struct emu_regs_at *at)
{
	uint8_t code[16 * 10 + 64];
	uint64_t want[16];
	size_t n;
	emu_regs_run_code(code, &n, want);
	if (uc_mem_map(uc, EMU_REGS_SCRATCH, 4096, UC_PROT_ALL) != UC_ERR_OK)
		return false;
	struct emu_regs_run r = { at, 0, 0 };
	uc_hook h;
	bool ok = uc_mem_write(uc, EMU_REGS_SCRATCH, code, n) == UC_ERR_OK &&
		  uc_hook_add(uc, &h, UC_HOOK_CODE, (void *)emu_regs_run_hook, &r, EMU_REGS_SCRATCH,
			      EMU_REGS_SCRATCH + n - 1) == UC_ERR_OK;
	if (ok) {
		ok = uc_emu_start(uc, EMU_REGS_SCRATCH, EMU_REGS_SCRATCH + n, 0, 0) == UC_ERR_OK;
		uc_hook_del(uc, h);
	}
	ok = ok && r.insns == 24 && r.disagreed == 0 && emu_regs_agree(uc, at);
	for (int i = 0; ok && i < 16; i++)
		ok = at->gpr[i] == want[i];
	uc_ctl_remove_cache(uc, EMU_REGS_SCRATCH, EMU_REGS_SCRATCH + 4096);
	uc_mem_unmap(uc, EMU_REGS_SCRATCH, 4096);
	return ok;
}

bool emu_regs_probe(uc_engine *uc, struct emu_regs_at *at, char *why, size_t whylen)
{
	const char *fail = NULL;
	if (!emu_regs_write_set(uc, 0))
		fail = "uc_reg_write failed";
	else if (!emu_regs_locate(uc, at))
		fail = "the registers written were not found in Unicorn's memory";
	else if (!emu_regs_sets_show(uc, at))
		fail = "other values written did not show where the first did";
	else if (!emu_regs_run_shows(uc, at))
		fail = "an emulated run's registers did not show there";
	uint64_t zero = 0;
	for (int i = 0; i < EMU_REGS_N; i++)
		uc_reg_write(uc, emu_regs_uc_id(i), &zero);
	if (fail)
		snprintf(why, whylen, "%s: read through uc_reg_read", fail);
	return !fail;
}
