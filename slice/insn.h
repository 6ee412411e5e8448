/* insn: exact def/use sets of x86-64 instructions for the recorder, from
 * Zydis (hidden operands, flags, AGEN, conditional writes, zero idioms).
 * Registers are numbered densely so a set fits in 64 bits. */
#ifndef QZ_SLICE_INSN_H
#define QZ_SLICE_INSN_H

#include <stdbool.h>
#include <stdint.h>

/* Register numbers in a def/use mask. rsp (4) is never tracked: every
 * stack access would otherwise depend on every push. */
enum {
	INSN_R_RSP = 4, INSN_R_RBP = 5,
	INSN_R_VEC0 = 16,        /* zmm0..zmm31 (xmm/ymm are their parts) */
	INSN_R_K0 = 48,          /* k0..k7 */
	INSN_R_FLAGS = 56,       /* the status flags of rflags */
	INSN_R_X87 = 57,         /* x87/mmx stack, one unit */
	INSN_R_MXCSR = 58,
	INSN_R_FSBASE = 59, INSN_R_GSBASE = 60,
	INSN_R_NONE = 0xff, INSN_R_RIP = 0xfe,
};

enum insn_kind {
	INSN_OTHER, INSN_JCC, INSN_JMP, INSN_JMP_IND, INSN_CALL, INSN_CALL_IND,
	INSN_RET, INSN_SYSCALL, INSN_HALT
};

enum { INSN_MEM_R = 1, INSN_MEM_W = 2, INSN_MEM_CW = 4 };
enum { INSN_XSAVE = 1, INSN_XRSTOR = 2 };

struct insn_mem {
	uint8_t base, index, scale;
	uint8_t seg;             /* 0, or INSN_R_FSBASE / INSN_R_GSBASE */
	uint8_t rw;              /* INSN_MEM_* */
	uint16_t size;           /* bytes */
	int64_t disp;            /* includes push/call's -size */
};

#define INSN_MAX_MEM 3

struct insn {
	uint8_t len;
	uint8_t kind;            /* enum insn_kind */
	uint8_t nmem;
	bool rep;                /* rep-prefixed string instruction */
	bool save_restore;       /* push/pop of a callee-saved register or
	                            mov rbp,rsp: bypassed by slicing */
	bool zero_idiom;
	uint8_t xstate;          /* INSN_XSAVE / INSN_XRSTOR, else 0 */
	bool native;             /* an emulator must not run it: see insn_native */
	bool imm;                /* has an explicit immediate operand */
	uint64_t use, def;       /* register masks (1 << INSN_R_...) */
	uint64_t cond_def;       /* defs that may not happen (cmov): no kill */
	/* Per general register n, 4 bits at 4n: how many of its low bytes the
	 * instruction reads (rd) and writes (wr): 1, 2, 4 or 8; 0: not known
	 * (all). A 4-byte write zeroes the upper half; 1 and 2 keep it. */
	uint64_t gpr_rd, gpr_wr;
	uint64_t target;         /* direct branch/call target, runtime */
	uint64_t rip_ref;        /* lea reg,[rip+X]: X (jump tables), or 0 */
	struct insn_mem mem[INSN_MAX_MEM];
	char text[48];           /* mnemonic, for messages and tests */
};

/* Decode the instruction at runtime address pc from bytes (up to 15, n of
 * them valid). false if the bytes are not an instruction. */
bool insn_decode(const uint8_t *bytes, int n, uint64_t pc, struct insn *out);
/* Where fxsave/xsave keep a register in their area (the legacy region,
 * the same in every form): mxcsr, st0-7 as one unit, xmm0-15. A save and
 * its restore carry each register through its own slot (slice.c). */
struct insn_slot { uint8_t reg; uint16_t off, size; };
#define INSN_NSLOTS 18
extern const struct insn_slot insn_xstate_slots[INSN_NSLOTS];
/* Name of register number r ("rax", "zmm3", "eflags"). */
const char *insn_reg_name(int r);
/* The register number of a name without '$' ("rax", "eax", "xmm1"), -1. */
int insn_reg_by_name(const char *name);
/* Effective address of operand m given the live registers. */
struct user_regs_struct;
uint64_t insn_mem_addr(const struct insn *in, const struct insn_mem *m,
		       const struct user_regs_struct *r, uint64_t pc);
/* The value of register number r (general registers only), 0 otherwise. */
uint64_t insn_reg_value(const struct user_regs_struct *r, int reg);

#endif
