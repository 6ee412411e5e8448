/* insn: Zydis decoding into def/use sets. The rules a dependence recorder
 * needs beyond Zydis' operand lists: rsp is not tracked, push/call's stack
 * operand is at [rsp-size], zero idioms read nothing, partial register
 * writes also read, lea only computes an address, and flags are one unit. */
#include "insn.h"

#include <stdio.h>
#include <string.h>
#include <sys/user.h>

#include <Zydis/Zydis.h>

static const char *insn_gpr_names[16] = {
	"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
};

/* Dense number of a Zydis register; INSN_R_NONE for untracked ones. */
static int insn_reg_num(ZydisRegister r)
{
	if (r == ZYDIS_REGISTER_NONE)
		return INSN_R_NONE;
	if (r == ZYDIS_REGISTER_RIP || r == ZYDIS_REGISTER_EIP)
		return INSN_R_RIP;
	if (ZydisRegisterGetClass(r) == ZYDIS_REGCLASS_MASK)   /* no enclosing register */
		return INSN_R_K0 + (r - ZYDIS_REGISTER_K0);
	if (ZydisRegisterGetClass(r) == ZYDIS_REGCLASS_FLAGS)
		return INSN_R_FLAGS;
	ZydisRegister big = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
	switch (ZydisRegisterGetClass(big)) {
	case ZYDIS_REGCLASS_GPR64:
		return big - ZYDIS_REGISTER_RAX;
	case ZYDIS_REGCLASS_ZMM:
		return INSN_R_VEC0 + (big - ZYDIS_REGISTER_ZMM0);
	case ZYDIS_REGCLASS_MASK:
		return INSN_R_K0 + (big - ZYDIS_REGISTER_K0);
	case ZYDIS_REGCLASS_FLAGS:
		return INSN_R_FLAGS;
	case ZYDIS_REGCLASS_X87:
	case ZYDIS_REGCLASS_MMX:
		return INSN_R_X87;
	default:
		break;
	}
	if (r == ZYDIS_REGISTER_MXCSR)
		return INSN_R_MXCSR;
	if (r == ZYDIS_REGISTER_X87STATUS || r == ZYDIS_REGISTER_X87CONTROL ||
	    r == ZYDIS_REGISTER_X87TAG)
		return INSN_R_X87;
	return INSN_R_NONE;
}

static uint64_t insn_bit(int n)
{
	return n < 64 && n != INSN_R_RSP ? 1ull << n : 0;
}

/* A write to an 8/16-bit part keeps the rest: it reads the register too. */
static bool insn_partial_write(ZydisRegister r)
{
	ZydisRegisterClass c = ZydisRegisterGetClass(r);
	return c == ZYDIS_REGCLASS_GPR8 || c == ZYDIS_REGCLASS_GPR16;
}

/* Register n's nibble of a gpr_rd/gpr_wr set: at least w bytes (ah and
 * friends count as the low two). */
static void insn_gpr_width(uint64_t *set, int n, unsigned bits)
{
	uint64_t w = bits >= 64 ? 8 : bits >= 32 ? 4 : bits >= 16 ? 2 : 1;
	if (n < 0 || n >= 16)
		return;
	if (((*set >> (4 * n)) & 15) < w)
		*set = (*set & ~(15ull << (4 * n))) | (w << (4 * n));
}

static void insn_add_reg_op(struct insn *in, const ZydisDecodedOperand *op,
			    const ZydisDecodedInstruction *d)
{
	int n = insn_reg_num(op->reg.value);
	uint64_t b = insn_bit(n);
	bool high = op->reg.value >= ZYDIS_REGISTER_AH && op->reg.value <= ZYDIS_REGISTER_BH;
	if (op->actions & ZYDIS_OPERAND_ACTION_MASK_READ)
		insn_gpr_width(&in->gpr_rd, n, high ? 16 : op->size);
	if (op->actions & (ZYDIS_OPERAND_ACTION_WRITE | ZYDIS_OPERAND_ACTION_CONDWRITE))
		insn_gpr_width(&in->gpr_wr, n, high ? 16 : op->size);
	if (n == INSN_R_FLAGS) {   /* which: from cpu_flags, which know partial writes */
		if (op->actions & ZYDIS_OPERAND_ACTION_CONDWRITE) {   /* shl r,cl; rep cmps */
			in->use |= b;
			in->cond_def |= b;
		}
		return;
	}
	if (op->encoding == ZYDIS_OPERAND_ENCODING_MASK && op->reg.value == ZYDIS_REGISTER_K0)
		return;   /* EVEX's k0 in the mask field means no mask, not k0 */
	if (op->actions & ZYDIS_OPERAND_ACTION_MASK_READ)
		in->use |= b;
	if (op->actions & ZYDIS_OPERAND_ACTION_WRITE) {
		in->def |= b;
		/* VEX/EVEX writes zero the upper part. Legacy SSE keeps it, but
		 * one that writes all 128 bits (movsd xmm,m64; movaps) is a full
		 * definition: the upper lanes are not a unit of their own, and
		 * compilers clear them (vzeroupper) before legacy SSE code. */
		if (insn_partial_write(op->reg.value) ||
		    (n >= INSN_R_VEC0 && n < INSN_R_K0 &&
		     d->encoding == ZYDIS_INSTRUCTION_ENCODING_LEGACY && op->size < 128))
			in->use |= b;
	}
	if (op->actions & ZYDIS_OPERAND_ACTION_CONDWRITE) {
		in->def |= b;
		in->cond_def |= b;
		in->use |= b;
	}
}

static int insn_seg(ZydisRegister s)
{
	if (s == ZYDIS_REGISTER_FS)
		return INSN_R_FSBASE;
	if (s == ZYDIS_REGISTER_GS)
		return INSN_R_GSBASE;
	return 0;
}

static void insn_add_mem_op(struct insn *in, const ZydisDecodedOperand *op, uint64_t pc,
			    const ZydisDecodedInstruction *d)
{
	int base = insn_reg_num(op->mem.base), index = insn_reg_num(op->mem.index);
	in->use |= (base < 64 ? insn_bit(base) : 0) | (index < 64 ? insn_bit(index) : 0);
	if (op->mem.type == ZYDIS_MEMOP_TYPE_AGEN && base == INSN_R_RIP)
		in->rip_ref = pc + d->length + (uint64_t)op->mem.disp.value;
	if (op->mem.type != ZYDIS_MEMOP_TYPE_MEM && op->mem.type != ZYDIS_MEMOP_TYPE_VSIB)
		return;   /* lea (AGEN), bnd (MIB): no memory access */
	if (in->nmem == INSN_MAX_MEM)
		return;
	struct insn_mem *m = &in->mem[in->nmem++];
	m->base = (uint8_t)base;
	m->index = (uint8_t)index;
	m->scale = op->mem.scale ? op->mem.scale : 1;
	m->seg = (uint8_t)insn_seg(op->mem.segment);
	m->disp = op->mem.disp.has_displacement ? op->mem.disp.value : 0;
	m->size = (uint16_t)(op->size / 8);
	if (op->mem.type == ZYDIS_MEMOP_TYPE_VSIB)   /* a gather: whole range unknown */
		m->size = (uint16_t)(op->element_size / 8);
	if (op->actions & ZYDIS_OPERAND_ACTION_MASK_READ)
		m->rw |= INSN_MEM_R;
	if (op->actions & ZYDIS_OPERAND_ACTION_WRITE)
		m->rw |= INSN_MEM_W;
	if (op->actions & ZYDIS_OPERAND_ACTION_CONDWRITE)
		m->rw |= INSN_MEM_W | INSN_MEM_CW;
	/* Zydis puts push/call's store at [rsp]: it goes below rsp. */
	if (base == INSN_R_RSP && (m->rw & INSN_MEM_W) &&
	    op->visibility == ZYDIS_OPERAND_VISIBILITY_HIDDEN &&
	    (d->mnemonic == ZYDIS_MNEMONIC_PUSH || d->mnemonic == ZYDIS_MNEMONIC_CALL ||
	     d->mnemonic == ZYDIS_MNEMONIC_PUSHFQ || d->mnemonic == ZYDIS_MNEMONIC_ENTER))
		m->disp -= m->size;
}

#define INSN_STATUS_FLAGS (ZYDIS_CPUFLAG_CF | ZYDIS_CPUFLAG_PF | ZYDIS_CPUFLAG_AF | \
			   ZYDIS_CPUFLAG_ZF | ZYDIS_CPUFLAG_SF | ZYDIS_CPUFLAG_OF)

/* Flags are one unit: a write of only some of them also reads the rest. */
static void insn_add_flags(struct insn *in, const ZydisDecodedInstruction *d)
{
	const ZydisAccessedFlags *f = d->cpu_flags;
	if (!f)
		return;
	uint32_t w = f->modified | f->set_0 | f->set_1 | f->undefined;
	if (f->tested & (INSN_STATUS_FLAGS | ZYDIS_CPUFLAG_DF))
		in->use |= insn_bit(INSN_R_FLAGS);
	if (w & INSN_STATUS_FLAGS) {
		in->def |= insn_bit(INSN_R_FLAGS);
		if ((w & INSN_STATUS_FLAGS) != INSN_STATUS_FLAGS)
			in->use |= insn_bit(INSN_R_FLAGS);
	}
}

static bool insn_is_zero_mnemonic(ZydisMnemonic m)
{
	switch (m) {
	case ZYDIS_MNEMONIC_XOR: case ZYDIS_MNEMONIC_SUB: case ZYDIS_MNEMONIC_PXOR:
	case ZYDIS_MNEMONIC_VPXOR: case ZYDIS_MNEMONIC_VPXORD: case ZYDIS_MNEMONIC_VPXORQ:
	case ZYDIS_MNEMONIC_XORPS: case ZYDIS_MNEMONIC_XORPD: case ZYDIS_MNEMONIC_VXORPS:
	case ZYDIS_MNEMONIC_VXORPD: case ZYDIS_MNEMONIC_PSUBB: case ZYDIS_MNEMONIC_VPSUBB:
	case ZYDIS_MNEMONIC_PSUBW: case ZYDIS_MNEMONIC_VPSUBW: case ZYDIS_MNEMONIC_PSUBD:
	case ZYDIS_MNEMONIC_VPSUBD: case ZYDIS_MNEMONIC_PSUBQ: case ZYDIS_MNEMONIC_VPSUBQ:
	case ZYDIS_MNEMONIC_PCMPEQB: case ZYDIS_MNEMONIC_VPCMPEQB: case ZYDIS_MNEMONIC_PCMPEQW:
	case ZYDIS_MNEMONIC_VPCMPEQW: case ZYDIS_MNEMONIC_PCMPEQD: case ZYDIS_MNEMONIC_VPCMPEQD:
	case ZYDIS_MNEMONIC_PCMPEQQ: case ZYDIS_MNEMONIC_VPCMPEQQ: case ZYDIS_MNEMONIC_PCMPGTB:
	case ZYDIS_MNEMONIC_VPCMPGTB: case ZYDIS_MNEMONIC_PCMPGTD: case ZYDIS_MNEMONIC_VPCMPGTD:
	case ZYDIS_MNEMONIC_PANDN: case ZYDIS_MNEMONIC_VPANDN: case ZYDIS_MNEMONIC_ANDNPS:
	case ZYDIS_MNEMONIC_ANDNPD: case ZYDIS_MNEMONIC_VANDNPS: case ZYDIS_MNEMONIC_VANDNPD:
	case ZYDIS_MNEMONIC_CMP:   /* cmp r,r: the flags are constants */
	case ZYDIS_MNEMONIC_SBB:   /* sbb r,r: 0 or -1 from CF alone */
		return true;
	default:
		return false;
	}
}

/* xor eax,eax and friends (also all-ones: pcmpeqd x,x): every visible
 * source is the destination, so the result is a constant. */
static bool insn_zero_idiom(const ZydisDecodedInstruction *d, const ZydisDecodedOperand *ops)
{
	if (!insn_is_zero_mnemonic(d->mnemonic) || d->operand_count_visible < 2)
		return false;
	ZydisRegister r0 = ops[0].type == ZYDIS_OPERAND_TYPE_REGISTER ? ops[0].reg.value : 0;
	if (!r0)
		return false;
	for (int i = 1; i < d->operand_count_visible; i++) {
		if (ops[i].type == ZYDIS_OPERAND_TYPE_REGISTER && ops[i].reg.value == ZYDIS_REGISTER_K0)
			continue;   /* EVEX without a mask; a real mask merges */
		if (ops[i].type != ZYDIS_OPERAND_TYPE_REGISTER || ops[i].reg.value != r0)
			return false;
	}
	return true;
}

static enum insn_kind insn_kind_of(const ZydisDecodedInstruction *d,
				   const ZydisDecodedOperand *ops)
{
	bool imm = d->operand_count_visible > 0 && ops[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE;
	switch (d->meta.category) {
	case ZYDIS_CATEGORY_COND_BR:
		return INSN_JCC;
	case ZYDIS_CATEGORY_UNCOND_BR:
		return imm ? INSN_JMP : INSN_JMP_IND;
	case ZYDIS_CATEGORY_CALL:
		return imm ? INSN_CALL : INSN_CALL_IND;
	case ZYDIS_CATEGORY_RET:
		return INSN_RET;
	default:
		break;
	}
	if (d->mnemonic == ZYDIS_MNEMONIC_SYSCALL)
		return INSN_SYSCALL;
	if (d->mnemonic == ZYDIS_MNEMONIC_HLT || d->mnemonic == ZYDIS_MNEMONIC_UD2)
		return INSN_HALT;
	return INSN_OTHER;
}

/* cmps and scas advance rsi/rdi, which Zydis does not list; under rep
 * the count may stop them first. */
static void insn_string_ptrs(struct insn *in, const ZydisDecodedInstruction *d)
{
	uint64_t p;
	switch (d->mnemonic) {
	case ZYDIS_MNEMONIC_CMPSB: case ZYDIS_MNEMONIC_CMPSW: case ZYDIS_MNEMONIC_CMPSD:
	case ZYDIS_MNEMONIC_CMPSQ:
		p = insn_bit(6) | insn_bit(7);
		break;
	case ZYDIS_MNEMONIC_SCASB: case ZYDIS_MNEMONIC_SCASW: case ZYDIS_MNEMONIC_SCASD:
	case ZYDIS_MNEMONIC_SCASQ:
		p = insn_bit(7);
		break;
	default:
		return;
	}
	if (d->meta.category != ZYDIS_CATEGORY_STRINGOP)
		return;   /* the SSE cmpsd */
	in->use |= p;
	in->def |= p;
	if (in->rep)
		in->cond_def |= p;
}

/* push/pop of rbx, rbp, r12-r15, leave and mov rbp,rsp: the frame's save and
 * restore, which only carry the caller's values through. */
static bool insn_save_restore(const ZydisDecodedInstruction *d, const ZydisDecodedOperand *ops)
{
	if (d->mnemonic == ZYDIS_MNEMONIC_LEAVE)   /* mov rsp,rbp; pop rbp */
		return true;
	if (d->operand_count_visible < 1 || ops[0].type != ZYDIS_OPERAND_TYPE_REGISTER)
		return false;
	ZydisRegister r = ops[0].reg.value;
	if (d->mnemonic == ZYDIS_MNEMONIC_MOV && r == ZYDIS_REGISTER_RBP &&
	    ops[1].type == ZYDIS_OPERAND_TYPE_REGISTER && ops[1].reg.value == ZYDIS_REGISTER_RSP)
		return true;
	if (d->mnemonic != ZYDIS_MNEMONIC_PUSH && d->mnemonic != ZYDIS_MNEMONIC_POP)
		return false;
	return r == ZYDIS_REGISTER_RBX || r == ZYDIS_REGISTER_RBP ||
	       (r >= ZYDIS_REGISTER_R12 && r <= ZYDIS_REGISTER_R15);
}

/* fxsave/xsave and their restores move every vector, mask and x87
 * register through memory; Zydis lists none of them. */
static void insn_xsave(struct insn *in, const ZydisDecodedInstruction *d)
{
	const uint64_t all = (((1ull << 32) - 1) << INSN_R_VEC0) | (0xffull << INSN_R_K0) |
			     insn_bit(INSN_R_X87) | insn_bit(INSN_R_MXCSR);
	bool save;
	switch (d->mnemonic) {
	case ZYDIS_MNEMONIC_FXSAVE: case ZYDIS_MNEMONIC_FXSAVE64: case ZYDIS_MNEMONIC_XSAVE:
	case ZYDIS_MNEMONIC_XSAVE64: case ZYDIS_MNEMONIC_XSAVEC: case ZYDIS_MNEMONIC_XSAVEC64:
	case ZYDIS_MNEMONIC_XSAVEOPT: case ZYDIS_MNEMONIC_XSAVEOPT64: case ZYDIS_MNEMONIC_XSAVES:
	case ZYDIS_MNEMONIC_XSAVES64:
		save = true;
		break;
	case ZYDIS_MNEMONIC_FXRSTOR: case ZYDIS_MNEMONIC_FXRSTOR64: case ZYDIS_MNEMONIC_XRSTOR:
	case ZYDIS_MNEMONIC_XRSTOR64: case ZYDIS_MNEMONIC_XRSTORS: case ZYDIS_MNEMONIC_XRSTORS64:
		save = false;
		break;
	default:
		return;
	}
	in->xstate = save ? INSN_XSAVE : INSN_XRSTOR;
	if (save)
		in->use |= all;
	else
		in->def |= all;
	bool fx = d->mnemonic == ZYDIS_MNEMONIC_FXSAVE || d->mnemonic == ZYDIS_MNEMONIC_FXSAVE64 ||
		  d->mnemonic == ZYDIS_MNEMONIC_FXRSTOR || d->mnemonic == ZYDIS_MNEMONIC_FXRSTOR64;
	/* What xsave writes depends on the component mask in edx:eax at run
	 * time; the legacy area and header (576 bytes) always are. Claiming
	 * more would define bytes it did not write (ld.so's lazy binding saves
	 * into a tight area below live frames); the rest is private to the
	 * save/restore pair. */
	for (int i = 0; i < in->nmem; i++)
		in->mem[i].size = fx ? 512 : 576;
}

const struct insn_slot insn_xstate_slots[INSN_NSLOTS] = {
	{ INSN_R_MXCSR, 24, 4 }, { INSN_R_X87, 32, 128 },
	{ INSN_R_VEC0 + 0, 160, 16 }, { INSN_R_VEC0 + 1, 176, 16 },
	{ INSN_R_VEC0 + 2, 192, 16 }, { INSN_R_VEC0 + 3, 208, 16 },
	{ INSN_R_VEC0 + 4, 224, 16 }, { INSN_R_VEC0 + 5, 240, 16 },
	{ INSN_R_VEC0 + 6, 256, 16 }, { INSN_R_VEC0 + 7, 272, 16 },
	{ INSN_R_VEC0 + 8, 288, 16 }, { INSN_R_VEC0 + 9, 304, 16 },
	{ INSN_R_VEC0 + 10, 320, 16 }, { INSN_R_VEC0 + 11, 336, 16 },
	{ INSN_R_VEC0 + 12, 352, 16 }, { INSN_R_VEC0 + 13, 368, 16 },
	{ INSN_R_VEC0 + 14, 384, 16 }, { INSN_R_VEC0 + 15, 400, 16 },
};

/* What an in-process emulator (Unicorn: no AVX, its own cpuid and clock)
 * must leave to the CPU: vector encodings, instructions that ask the
 * machine or the kernel, x87/MMX state (kept in the process only), and
 * the state saves and transactions that depend on what the CPU enables. */
static bool insn_native(const ZydisDecodedInstruction *d)
{
	if (d->encoding != ZYDIS_INSTRUCTION_ENCODING_LEGACY)
		return true;   /* VEX, EVEX, XOP, 3DNow!, MVEX */
	switch (d->meta.category) {
	case ZYDIS_CATEGORY_X87_ALU: case ZYDIS_CATEGORY_FCMOV: case ZYDIS_CATEGORY_MMX:
	case ZYDIS_CATEGORY_SYSCALL: case ZYDIS_CATEGORY_SYSTEM: case ZYDIS_CATEGORY_INTERRUPT:
	case ZYDIS_CATEGORY_XSAVE: case ZYDIS_CATEGORY_XSAVEOPT: case ZYDIS_CATEGORY_RDRAND:
	case ZYDIS_CATEGORY_RDSEED: case ZYDIS_CATEGORY_RDPID: case ZYDIS_CATEGORY_RDWRFSGS:
		return true;
	default:
		break;
	}
	switch (d->mnemonic) {
	case ZYDIS_MNEMONIC_CPUID: case ZYDIS_MNEMONIC_RDTSC: case ZYDIS_MNEMONIC_RDTSCP:
	case ZYDIS_MNEMONIC_XGETBV: case ZYDIS_MNEMONIC_RDPMC: case ZYDIS_MNEMONIC_RDPKRU:
	case ZYDIS_MNEMONIC_WRPKRU: case ZYDIS_MNEMONIC_FXSAVE: case ZYDIS_MNEMONIC_FXSAVE64:
	case ZYDIS_MNEMONIC_FXRSTOR: case ZYDIS_MNEMONIC_FXRSTOR64: case ZYDIS_MNEMONIC_XBEGIN:
	case ZYDIS_MNEMONIC_XEND: case ZYDIS_MNEMONIC_XABORT: case ZYDIS_MNEMONIC_XTEST:
	case ZYDIS_MNEMONIC_HLT: case ZYDIS_MNEMONIC_UD0: case ZYDIS_MNEMONIC_UD1:
	case ZYDIS_MNEMONIC_UD2: case ZYDIS_MNEMONIC_SYSCALL: case ZYDIS_MNEMONIC_SYSENTER:
	case ZYDIS_MNEMONIC_INT: case ZYDIS_MNEMONIC_INT1: case ZYDIS_MNEMONIC_INT3:
	case ZYDIS_MNEMONIC_INTO: case ZYDIS_MNEMONIC_EMMS: case ZYDIS_MNEMONIC_FEMMS:
		return true;
	default:
		return false;
	}
}

static void insn_fill(struct insn *in, const ZydisDecodedInstruction *d,
		      const ZydisDecodedOperand *ops, uint64_t pc)
{
	in->len = d->length;
	in->kind = (uint8_t)insn_kind_of(d, ops);
	in->rep = (d->attributes & (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE |
				    ZYDIS_ATTRIB_HAS_REPNE)) != 0;
	in->zero_idiom = insn_zero_idiom(d, ops);
	in->save_restore = insn_save_restore(d, ops);
	in->native = insn_native(d);
	for (int i = 0; i < d->operand_count; i++) {
		if (ops[i].type == ZYDIS_OPERAND_TYPE_REGISTER)
			insn_add_reg_op(in, &ops[i], d);
		else if (ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY)
			insn_add_mem_op(in, &ops[i], pc, d);
		else if (ops[i].type == ZYDIS_OPERAND_TYPE_IMMEDIATE && ops[i].imm.is_relative)
			ZydisCalcAbsoluteAddress(d, &ops[i], pc, &in->target);
		else if (ops[i].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
			 ops[i].visibility == ZYDIS_OPERAND_VISIBILITY_EXPLICIT)
			in->imm = true;
	}
	insn_add_flags(in, d);
	insn_string_ptrs(in, d);
	insn_xsave(in, d);
	if (d->mnemonic == ZYDIS_MNEMONIC_VZEROUPPER || d->mnemonic == ZYDIS_MNEMONIC_VZEROALL) {
		uint64_t v = 0xffffull << INSN_R_VEC0;   /* ymm0-15; Zydis lists none */
		in->def |= v;
		if (d->mnemonic == ZYDIS_MNEMONIC_VZEROUPPER)   /* the low halves stay */
			in->use |= v;
	}
	if (in->kind == INSN_SYSCALL) {   /* the kernel's calling convention */
		in->use |= insn_bit(0) | insn_bit(7) | insn_bit(6) | insn_bit(2) |
			   insn_bit(10) | insn_bit(8) | insn_bit(9);
		in->def |= insn_bit(0) | insn_bit(1) | insn_bit(11);
	}
	if (in->zero_idiom)   /* sbb r,r still reads the carry */
		in->use = d->mnemonic == ZYDIS_MNEMONIC_SBB ? insn_bit(INSN_R_FLAGS) : 0;
	if (in->rep)   /* the count register decides whether anything happens */
		in->use |= insn_bit(1);
	snprintf(in->text, sizeof in->text, "%s", ZydisMnemonicGetString(d->mnemonic));
}

bool insn_decode(const uint8_t *bytes, int n, uint64_t pc, struct insn *out)
{
	static ZydisDecoder dec;
	static bool init;
	if (!init) {
		ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
		init = true;
	}
	ZydisDecodedInstruction d;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	memset(out, 0, sizeof *out);
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, bytes, (ZyanUSize)n, &d, ops)))
		return false;
	insn_fill(out, &d, ops, pc);
	return true;
}

const char *insn_reg_name(int r)
{
	static const char *vec[32] = {
		"xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
		"xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15",
		"xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23",
		"xmm24", "xmm25", "xmm26", "xmm27", "xmm28", "xmm29", "xmm30", "xmm31",
	};
	static const char *k[8] = { "k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7" };
	if (r >= 0 && r < 16)
		return insn_gpr_names[r];
	if (r >= INSN_R_VEC0 && r < INSN_R_K0)
		return vec[r - INSN_R_VEC0];
	if (r >= INSN_R_K0 && r < INSN_R_FLAGS)
		return k[r - INSN_R_K0];
	switch (r) {
	case INSN_R_FLAGS: return "eflags";
	case INSN_R_X87: return "st";
	case INSN_R_MXCSR: return "mxcsr";
	case INSN_R_FSBASE: return "fs_base";
	case INSN_R_GSBASE: return "gs_base";
	default: return "?";
	}
}

int insn_reg_by_name(const char *name)
{
	ZydisRegister r = ZYDIS_REGISTER_NONE;
	for (int i = 1; i <= ZYDIS_REGISTER_MAX_VALUE; i++) {
		const char *s = ZydisRegisterGetString((ZydisRegister)i);
		if (s && strcmp(s, name) == 0) {
			r = (ZydisRegister)i;
			break;
		}
	}
	if (strcmp(name, "eflags") == 0 || strcmp(name, "rflags") == 0)
		return INSN_R_FLAGS;
	int n = insn_reg_num(r);
	return n < 64 ? n : -1;
}

uint64_t insn_reg_value(const struct user_regs_struct *r, int reg)
{
	switch (reg) {
	case 0: return r->rax;  case 1: return r->rcx;  case 2: return r->rdx;
	case 3: return r->rbx;  case 4: return r->rsp;  case 5: return r->rbp;
	case 6: return r->rsi;  case 7: return r->rdi;  case 8: return r->r8;
	case 9: return r->r9;   case 10: return r->r10; case 11: return r->r11;
	case 12: return r->r12; case 13: return r->r13; case 14: return r->r14;
	case 15: return r->r15;
	case INSN_R_FSBASE: return r->fs_base;
	case INSN_R_GSBASE: return r->gs_base;
	default: return 0;
	}
}

uint64_t insn_mem_addr(const struct insn *in, const struct insn_mem *m,
		       const struct user_regs_struct *r, uint64_t pc)
{
	uint64_t a = (uint64_t)m->disp;
	if (m->base == INSN_R_RIP)
		a += pc + in->len;
	else if (m->base != INSN_R_NONE)
		a += insn_reg_value(r, m->base);
	if (m->index != INSN_R_NONE && m->index != INSN_R_RIP)
		a += insn_reg_value(r, m->index) * m->scale;
	if (m->seg)
		a += insn_reg_value(r, m->seg);
	return a;
}
