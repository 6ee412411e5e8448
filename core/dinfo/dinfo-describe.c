/* dinfo-describe: where a variable lives, in gdb's words (info address,
 * info scope: gdb's locexpr_describe_location, loclist_describe_location
 * and disassemble_dwarf_expression in dwarf2/loc.c), so that qzdb's
 * output can be compared with gdb's line by line. */
#include "dinfo-int.h"

#include <dwarf.h>
#include <libdwarf.h>

#include "util/util.h"

/* gdb's names of the DWARF register numbers of x86-64. */
static const char *const desc_regs[] = {
	"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip",
	"xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
	"xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15",
};

static void desc_reg(struct sbuf *out, uint64_t r)
{
	if (r < ARRAY_LEN(desc_regs))
		sbuf_add(out, desc_regs[r]);
	else
		sbuf_printf(out, "%llu", (unsigned long long)r);
}

/* The operands of op as gdb prints them after its name. */
static void desc_operands(struct sbuf *out, const struct di_op *op)
{
	uint8_t c = op->code;
	long long s = (long long)op->a;
	unsigned long long u = op->a;
	if (c == DW_OP_addr)
		sbuf_printf(out, " 0x%llx", u);
	else if (c >= DW_OP_breg0 && c <= DW_OP_breg31) {
		sbuf_printf(out, " %lld [$", s);
		desc_reg(out, c - DW_OP_breg0);
		sbuf_addc(out, ']');
	} else if (c >= DW_OP_reg0 && c <= DW_OP_reg31) {
		sbuf_add(out, " [$");
		desc_reg(out, c - DW_OP_reg0);
		sbuf_addc(out, ']');
	} else if (c == DW_OP_regx) {
		sbuf_printf(out, " %llu [$", u);
		desc_reg(out, u);
		sbuf_addc(out, ']');
	} else if (c == DW_OP_bregx) {
		sbuf_printf(out, " register %llu [$", u);
		desc_reg(out, u);
		sbuf_printf(out, "] offset %lld", (long long)op->b);
	} else if (c == DW_OP_const1s || c == DW_OP_const2s || c == DW_OP_const4s ||
		   c == DW_OP_const8s || c == DW_OP_consts || c == DW_OP_fbreg) {
		sbuf_printf(out, " %lld", s);
	} else if (c == DW_OP_const1u || c == DW_OP_const2u || c == DW_OP_const4u ||
		   c == DW_OP_const8u || c == DW_OP_constu || c == DW_OP_plus_uconst ||
		   c == DW_OP_pick || c == DW_OP_deref_size) {
		sbuf_printf(out, " %llu", u);
	} else if (c == DW_OP_piece) {
		sbuf_printf(out, " %llu (bytes)", u);
	} else if (c == DW_OP_bit_piece) {
		sbuf_printf(out, " size %llu offset %llu (bits)", u, (unsigned long long)op->b);
	}
}

/* gdb's disassemble_dwarf_expression: one operation a line, offsets from
 * the expression's start in hex, nested entry values indented by 2. */
static void desc_disasm(struct sbuf *out, const uint8_t *start, size_t from, size_t to,
			int indent)
{
	size_t pos = from;
	while (pos < to) {
		struct di_op op;
		const char *name = NULL;
		if (dwarf_get_OP_name(start[pos], &name) != DW_DLV_OK)
			name = NULL;
		sbuf_printf(out, "  %*zx: ", indent + 4, pos);
		if (name)
			sbuf_add(out, name);
		else
			sbuf_printf(out, "0x%x", start[pos]);
		if (di_op_decode(start, to, pos, &op) < 0) {
			sbuf_addc(out, '\n');
			return;
		}
		if (op.code == DW_OP_entry_value || op.code == DW_OP_GNU_entry_value) {
			sbuf_addc(out, '\n');
			size_t inner = (size_t)(op.blk - start);
			desc_disasm(out, start, inner, inner + op.a, indent + 2);
			pos = op.next;
			continue;
		}
		desc_operands(out, &op);
		sbuf_addc(out, '\n');
		pos = op.next;
	}
}

/* One location expression: a register alone is "a variable in $reg";
 * anything else gdb disassembles (a frame base of DW_OP_call_frame_cfa, as
 * gcc gives, makes DW_OP_fbreg one of those). */
static void desc_expr(struct sbuf *out, const struct di_locexpr *le)
{
	struct di_op op;
	if (le->len == 2 && le->ops[0] >= DW_OP_lit0 && le->ops[0] <= DW_OP_lit31 &&
	    le->ops[1] == DW_OP_stack_value) {
		sbuf_printf(out, "the constant %d", le->ops[0] - DW_OP_lit0);
		return;
	}
	if (le->len && di_op_decode(le->ops, le->len, 0, &op) == 0 && op.next == le->len &&
	    ((op.code >= DW_OP_reg0 && op.code <= DW_OP_reg31) || op.code == DW_OP_regx)) {
		sbuf_add(out, "a variable in $");
		desc_reg(out, op.code == DW_OP_regx ? op.a : (uint64_t)(op.code - DW_OP_reg0));
		return;
	}
	sbuf_add(out, "a complex DWARF expression:\n");
	desc_disasm(out, le->ops, 0, le->len, 0);
}

/* Whether v is a static at a fixed address (gdb's LOC_STATIC): *addr. */
static bool desc_static_addr(const struct di_var *v, uint64_t *addr)
{
	struct di_op op;
	if (v->nlocs != 1 || !v->locs[0].always ||
	    di_op_decode(v->locs[0].ops, v->locs[0].len, 0, &op) < 0 ||
	    op.code != DW_OP_addr || op.next != v->locs[0].len)
		return false;
	*addr = op.a;
	return true;
}

int di_describe_var(struct sbuf *out, const struct di_var *v, uint64_t bias)
{
	uint64_t addr;
	if (v->has_const) {
		sbuf_printf(out, "a constant with value %lld (0x%llx)",
			    (long long)v->const_value, (unsigned long long)v->const_value);
		return DI_DESC_CONST;
	}
	if (!v->nlocs)
		return DI_DESC_OPTIMIZED;
	if (desc_static_addr(v, &addr)) {
		sbuf_printf(out, "static storage at address 0x%llx",
			    (unsigned long long)(addr + bias));
		return DI_DESC_STATIC;
	}
	if (v->nlocs == 1 && v->locs[0].always) {
		desc_expr(out, &v->locs[0]);
		return DI_DESC_COMPUTED;
	}
	sbuf_add(out, "multi-location:\n");
	for (size_t i = 0; i < v->nlocs; i++) {
		if (v->locs[i].after_base)
			sbuf_printf(out, "  Base address 0x%llx",
				    (unsigned long long)(v->locs[i].base + bias));
		sbuf_printf(out, "  Range 0x%llx-0x%llx: ",
			    (unsigned long long)(v->locs[i].lo + bias),
			    (unsigned long long)(v->locs[i].hi + bias));
		desc_expr(out, &v->locs[i]);
		sbuf_addc(out, '\n');
	}
	return DI_DESC_COMPUTED;
}
