/* disasm: x86-64 instruction decoding with capstone, for listings and for
 * the few facts run control needs (length, call, return, branch target). */
#ifndef QZ_DISASM_H
#define QZ_DISASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dis_insn {
	uint64_t addr;
	size_t len;              /* 0 if the bytes do not decode */
	char mnemonic[32];
	char operands[160];      /* AT&T syntax, as gdb prints by default */
	bool is_call;
	bool is_ret;
	bool is_jump;            /* any jmp or jcc */
	bool is_cond_jump;
	bool has_target;         /* direct branch/call with a known target */
	uint64_t target;
	bool is_syscall;
	bool rip_relative;       /* has a [rip + disp32] memory operand */
	uint8_t disp_offset;     /* byte offset of that disp32 in the encoding */
	bool uses_rip;           /* reads rip other than through a rip-relative
	                            operand (calls, relative branches) */
	uint64_t rip_target;     /* the address a rip-relative operand names */
	bool zero_disp;          /* a memory operand encodes a zero displacement */
};

/* Decode one instruction at addr from code (at most size bytes). Returns
 * false if the bytes are not a valid instruction (len 0). */
bool dis_decode(const uint8_t *code, size_t size, uint64_t addr,
		struct dis_insn *out);

#endif
