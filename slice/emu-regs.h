/* emu-regs: where Unicorn keeps the emulated CPU's general registers, so
 * the hooks read them with a load instead of uc_reg_read (about 10 ns a
 * call through Unicorn 2.0.1's batch and switch; a detect run reads tens
 * of millions). Found by a probe per machine, validated hard, else not
 * used: emu.c then reads through uc_reg_read. Only emu.c uses this. */
#ifndef QZ_SLICE_EMU_REGS_H
#define QZ_SLICE_EMU_REGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <unicorn/unicorn.h>

/* Unicorn's ids of the general registers in the recorder's order (insn.h:
 * rax rcx rdx rbx rsp rbp rsi rdi r8-r15), which is also QEMU's. */
extern const int emu_regs_gpr_id[16];

/* Where the registers live: gpr[16] in the recorder's order (rax rcx rdx
 * rbx rsp rbp rsi rdi r8-r15), fs and gs base. */
struct emu_regs_at {
	const uint64_t *gpr;
	const uint64_t *fs_base, *gs_base;
};

/* Probe a machine that has run nothing and has nothing mapped (it leaves
 * it so, registers zero): true and at filled, or false and the reason
 * in why. */
bool emu_regs_probe(uc_engine *uc, struct emu_regs_at *at, char *why, size_t whylen);

#endif
