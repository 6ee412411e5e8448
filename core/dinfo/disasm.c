/* disasm: one capstone handle in AT&T syntax with details on, decoding one
 * instruction at a time into a preallocated cs_insn: run control calls
 * dis_decode on every step, so it allocates nothing per call. */
#include "disasm.h"

#include <capstone/capstone.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static csh handle;
static cs_insn *insn;   /* NULL until the handle is open */
static bool broken;     /* cs_open failed once: do not retry on every step */

static bool dis_init(void)
{
	if (insn)
		return true;
	if (broken)
		return false;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &handle) != CS_ERR_OK) {
		broken = true;
		return false;
	}
	cs_option(handle, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	cs_option(handle, CS_OPT_DETAIL, CS_OPT_ON);
	insn = cs_malloc(handle);
	broken = !insn;
	return insn != NULL;
}

static bool is_uncond_jump(unsigned id)
{
	return id == X86_INS_JMP || id == X86_INS_LJMP;
}

/* capstone 4 leaves the loop family out of X86_GRP_JUMP. */
static bool is_loop(unsigned id)
{
	return id == X86_INS_LOOP || id == X86_INS_LOOPE || id == X86_INS_LOOPNE;
}

static void copy_str(char *dst, size_t cap, const char *src)
{
	size_t n = strnlen(src, cap - 1);
	memcpy(dst, src, n);
	dst[n] = 0;
}

/* The operand of a direct call/jmp/jcc/loop is its absolute target. */
static void set_target(const cs_insn *in, struct dis_insn *out)
{
	const cs_x86 *x = &in->detail->x86;
	if (x->op_count == 1 && x->operands[0].type == X86_OP_IMM) {
		out->has_target = true;
		out->target = (uint64_t)x->operands[0].imm;
	}
}

/* Facts for executing the instruction out of line: where its rip-relative
 * displacement is, and whether it depends on rip in another way. */
static void set_rip_use(const cs_insn *in, struct dis_insn *out)
{
	const cs_x86 *x = &in->detail->x86;
	for (int i = 0; i < x->op_count; i++) {
		const cs_x86_op *op = &x->operands[i];
		if (op->type == X86_OP_MEM && op->mem.base == X86_REG_RIP) {
			out->rip_relative = true;
			out->disp_offset = x->encoding.disp_offset;
			out->rip_target = in->address + in->size + (uint64_t)op->mem.disp;
		}
		/* A displacement of zero that is encoded (ModRM mod 01/10):
		 * gdb prints it as 0x0. */
		int mod = x->modrm >> 6;
		if (op->type == X86_OP_MEM && !op->mem.disp &&
		    (mod == 1 || mod == 2 || op->mem.base == X86_REG_INVALID))
			out->zero_disp = true;
	}
	out->uses_rip = out->is_call || (out->is_jump && out->has_target);
}

static void classify(const cs_insn *in, struct dis_insn *out)
{
	out->is_call = cs_insn_group(handle, in, X86_GRP_CALL);
	out->is_ret = cs_insn_group(handle, in, X86_GRP_RET);
	out->is_jump = cs_insn_group(handle, in, X86_GRP_JUMP) || is_loop(in->id);
	out->is_cond_jump = out->is_jump && !is_uncond_jump(in->id);
	out->is_syscall = in->id == X86_INS_SYSCALL || in->id == X86_INS_SYSENTER;
	if (out->is_call || out->is_jump)
		set_target(in, out);
	set_rip_use(in, out);
}

/* capstone 4 prints the 64-bit GPR<->xmm move (66 REX.W 0f 6e/7e) as movd
 * though it knows it is a movq, as gdb and the manuals call it. */
static void fix_mnemonic(const cs_insn *in, struct dis_insn *out)
{
	if (in->id == X86_INS_MOVQ && strcmp(in->mnemonic, "movd") == 0)
		copy_str(out->mnemonic, sizeof(out->mnemonic), "movq");
}

/* Does an operand list have a register operand of its own (not just a
 * register inside a memory reference)? Then the size suffix is implied. */
static bool has_reg_operand(const char *ops)
{
	int depth = 0;
	bool start = true;
	for (const char *p = ops; *p; p++) {
		if (*p == '(') {
			depth++;
			start = false;
		} else if (*p == ')')
			depth--;
		else if (*p == ',' && !depth)
			start = true;
		else if (*p != ' ') {
			if (start && *p == '%')
				return true;
			start = false;
		}
	}
	return false;
}

/* gdb (like objdump) leaves out the b/w/l/q suffix where a register
 * operand gives the size, and always for call, ret, push and pop. */
static void gdb_mnemonic(struct dis_insn *out)
{
	static const char *const bases[] = {
		"mov", "add", "sub", "and", "or", "xor", "cmp", "test", "lea", "inc",
		"dec", "neg", "not", "shl", "shr", "sar", "sal", "rol", "ror", "imul",
		"adc", "sbb", "xchg", "bt", "bts", "btr", "btc", "movabs", NULL,
	};
	static const char *const always[] = {"call", "ret", "push", "pop", "jmp", "leave", NULL};
	char *m = out->mnemonic;
	size_t n = strlen(m);
	if (n < 2 || !strchr("bwlq", m[n - 1]))
		return;
	for (int i = 0; always[i]; i++)
		if (strlen(always[i]) == n - 1 && !strncmp(m, always[i], n - 1)) {
			m[n - 1] = 0;
			return;
		}
	if (!has_reg_operand(out->operands) || strstr(out->operands, "mm"))
		return;   /* movq to/from an xmm register keeps its q */
	for (int i = 0; bases[i]; i++)
		if (strlen(bases[i]) == n - 1 && !strncmp(m, bases[i], n - 1)) {
			m[n - 1] = 0;
			return;
		}
}

/* Inside "(base,index" with no scale yet: buf ends the parenthesis. */
static bool gdb_scale_missing(const char *buf, size_t o)
{
	size_t i = o;
	int commas = 0;
	while (i > 0 && buf[i - 1] != '(') {
		commas += buf[i - 1] == ',';
		i--;
	}
	return i > 0 && commas == 1;
}

/* Operands as gdb prints them: no space after commas, numbers in hex
 * except the scale of an index. */
static void gdb_operands(struct dis_insn *out)
{
	char buf[sizeof out->operands];
	const char *s = out->operands;
	size_t o = 0;
	int depth = 0;
	char prev = 0;
	while (*s && o + 24 < sizeof buf) {
		if (*s == ' ' && prev == ',') {
			s++;
			continue;
		}
		bool num_start = isdigit((unsigned char)*s) && !isalnum((unsigned char)prev) && prev != '%';
		bool is_scale = depth && prev == ',';
		if (num_start && !is_scale && !(s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))) {
			char *end;
			unsigned long long v = strtoull(s, &end, 10);
			o += (size_t)snprintf(buf + o, sizeof buf - o, "0x%llx", v);
			s = end;
			prev = '0';
			continue;
		}
		if (*s == '(' && out->zero_disp && (prev == 0 || prev == ',' || prev == '*' ||
						    prev == ':')) {
			memcpy(buf + o, "0x0", 3);   /* the encoded zero displacement */
			o += 3;
		}
		if (*s == ')' && depth == 1 && gdb_scale_missing(buf, o)) {
			memcpy(buf + o, ",1", 2);    /* gdb shows a scale of 1 */
			o += 2;
		}
		if (*s == '(')
			depth++;
		else if (*s == ')')
			depth--;
		prev = *s;
		buf[o++] = *s++;
	}
	buf[o] = 0;
	memcpy(out->operands, buf, o + 1);
}

bool dis_decode(const uint8_t *code, size_t size, uint64_t addr,
		struct dis_insn *out)
{
	memset(out, 0, sizeof(*out));
	out->addr = addr;
	if (!dis_init() || !cs_disasm_iter(handle, &code, &size, &addr, insn))
		return false;
	out->len = insn->size;
	copy_str(out->mnemonic, sizeof(out->mnemonic), insn->mnemonic);
	copy_str(out->operands, sizeof(out->operands), insn->op_str);
	fix_mnemonic(insn, out);
	classify(insn, out);
	gdb_operands(out);
	gdb_mnemonic(out);
	return true;
}
