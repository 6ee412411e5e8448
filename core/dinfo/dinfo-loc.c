/* dinfo-loc: DWARF location descriptions. libdwarf hands out decoded
 * operations; they are re-encoded here as plain DWARF bytes (with addrx and
 * constx resolved) so that a di_locexpr stands alone after di_open.
 * dinfo-eval.c evaluates them. */
#include "dinfo-int.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

enum di_shape di_op_shape(uint8_t op)
{
	if ((op >= DW_OP_lit0 && op <= DW_OP_lit31) || (op >= DW_OP_reg0 && op <= DW_OP_reg31))
		return DI_SH_NONE;
	if (op >= DW_OP_breg0 && op <= DW_OP_breg31)
		return DI_SH_SLEB;
	switch (op) {
	case DW_OP_addr: case DW_OP_const8u: return DI_SH_U8;
	case DW_OP_const8s: return DI_SH_S8;
	case DW_OP_const1u: case DW_OP_pick: case DW_OP_deref_size:
	case DW_OP_xderef_size: return DI_SH_U1;
	case DW_OP_const1s: return DI_SH_S1;
	case DW_OP_const2u: case DW_OP_call2: return DI_SH_U2;
	case DW_OP_const2s: case DW_OP_skip: case DW_OP_bra: return DI_SH_S2;
	case DW_OP_const4u: case DW_OP_call4: case DW_OP_call_ref:
	case DW_OP_GNU_parameter_ref: case DW_OP_GNU_variable_value: return DI_SH_U4;
	case DW_OP_const4s: return DI_SH_S4;
	case DW_OP_constu: case DW_OP_plus_uconst: case DW_OP_regx: case DW_OP_piece:
	case DW_OP_convert: case DW_OP_reinterpret: case DW_OP_GNU_convert:
	case DW_OP_GNU_reinterpret: return DI_SH_ULEB;
	case DW_OP_consts: case DW_OP_fbreg: return DI_SH_SLEB;
	case DW_OP_bregx: return DI_SH_ULEB_SLEB;
	case DW_OP_bit_piece: case DW_OP_regval_type: case DW_OP_GNU_regval_type:
		return DI_SH_ULEB_ULEB;
	case DW_OP_implicit_value: case DW_OP_entry_value: case DW_OP_GNU_entry_value:
		return DI_SH_BLOCK;
	case DW_OP_implicit_pointer: case DW_OP_GNU_implicit_pointer: return DI_SH_U4_SLEB;
	case DW_OP_deref: case DW_OP_dup: case DW_OP_drop: case DW_OP_over:
	case DW_OP_swap: case DW_OP_rot: case DW_OP_xderef: case DW_OP_abs:
	case DW_OP_and: case DW_OP_div: case DW_OP_minus: case DW_OP_mod:
	case DW_OP_mul: case DW_OP_neg: case DW_OP_not: case DW_OP_or:
	case DW_OP_plus: case DW_OP_shl: case DW_OP_shr: case DW_OP_shra:
	case DW_OP_xor: case DW_OP_eq: case DW_OP_ge: case DW_OP_gt:
	case DW_OP_le: case DW_OP_lt: case DW_OP_ne: case DW_OP_nop:
	case DW_OP_push_object_address: case DW_OP_form_tls_address:
	case DW_OP_call_frame_cfa: case DW_OP_stack_value:
	case DW_OP_GNU_push_tls_address: case DW_OP_GNU_uninit:
		return DI_SH_NONE;
	default:
		return DI_SH_UNKNOWN;
	}
}

/* ---- encoding what libdwarf decoded ---- */

struct obuf {
	uint8_t *b;
	size_t n, cap;
};

static void put_byte(struct obuf *o, uint8_t c)
{
	XGROW(o->b, o->cap, o->n + 1);
	o->b[o->n++] = c;
}

static void put_fixed(struct obuf *o, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		put_byte(o, (uint8_t)(v >> (8 * i)));
}

static void put_uleb(struct obuf *o, uint64_t v)
{
	do {
		uint8_t c = v & 0x7f;
		v >>= 7;
		put_byte(o, c | (v ? 0x80 : 0));
	} while (v);
}

static void put_sleb(struct obuf *o, int64_t v)
{
	for (;;) {
		uint8_t c = v & 0x7f;
		v >>= 7;   /* arithmetic shift: gcc and clang on x86-64 */
		bool done = (v == 0 && !(c & 0x40)) || (v == -1 && (c & 0x40));
		put_byte(o, c | (done ? 0 : 0x80));
		if (done)
			return;
	}
}

int di_fixed_width(enum di_shape sh)
{
	static const int w[] = { [DI_SH_U1] = 1, [DI_SH_S1] = 1, [DI_SH_U2] = 2, [DI_SH_S2] = 2,
				 [DI_SH_U4] = 4, [DI_SH_S4] = 4, [DI_SH_U8] = 8, [DI_SH_S8] = 8 };
	return sh < ARRAY_LEN(w) ? w[sh] : 0;
}

/* Append one operation; false if it cannot be encoded, in which case only
 * its opcode is written so that evaluation stops there with an error. */
static bool encode_op(struct obuf *o, uint8_t op, uint64_t a, uint64_t b)
{
	enum di_shape sh = di_op_shape(op);
	put_byte(o, op);
	if (di_fixed_width(sh)) {
		put_fixed(o, a, di_fixed_width(sh));
		return true;
	}
	switch (sh) {
	case DI_SH_NONE: return true;
	case DI_SH_ULEB: put_uleb(o, a); return true;
	case DI_SH_SLEB: put_sleb(o, (int64_t)a); return true;
	case DI_SH_ULEB_SLEB: put_uleb(o, a); put_sleb(o, (int64_t)b); return true;
	case DI_SH_ULEB_ULEB: put_uleb(o, a); put_uleb(o, b); return true;
	case DI_SH_U4_SLEB: put_fixed(o, a, 4); put_sleb(o, (int64_t)b); return true;
	case DI_SH_BLOCK:
		/* libdwarf: a = length, b = pointer to the bytes */
		put_uleb(o, a);
		for (uint64_t i = 0; i < a; i++)
			put_byte(o, ((const uint8_t *)(uintptr_t)b)[i]);
		return true;
	default:
		return false;
	}
}

/* addrx/constx index .debug_addr; libdwarf usually gives the address
 * already (operand differs from the raw index), else look it up. */
static uint64_t addr_index(Dwarf_Die die, uint64_t cooked, uint64_t raw)
{
	Dwarf_Unsigned addr = cooked;
	Dwarf_Error e = NULL;
	if (cooked == raw && dwarf_debug_addr_index_to_addr(die, raw, &addr, &e) != DW_DLV_OK)
		addr = cooked;
	return addr;
}

static void encode_desc(Dwarf_Die die, Dwarf_Locdesc_c desc, Dwarf_Unsigned nops,
			struct obuf *o)
{
	for (Dwarf_Unsigned i = 0; i < nops; i++) {
		Dwarf_Small op = 0;
		Dwarf_Unsigned a = 0, b = 0, c = 0, ra = 0, rb = 0, rc = 0, br = 0;
		Dwarf_Error e = NULL;
		if (dwarf_get_location_op_value_d(desc, i, &op, &a, &b, &c, &ra, &rb,
						  &rc, &br, &e) != DW_DLV_OK)
			return;
		if (op == DW_OP_addrx || op == DW_OP_GNU_addr_index) {
			encode_op(o, DW_OP_addr, addr_index(die, a, ra), 0);
			continue;
		}
		if (op == DW_OP_constx || op == DW_OP_GNU_const_index) {
			encode_op(o, DW_OP_const8u, addr_index(die, a, ra), 0);
			continue;
		}
		if (!encode_op(o, op, a, b))
			return;
	}
}

static bool lle_ranged(Dwarf_Small lle)
{
	return lle == DW_LLE_offset_pair || lle == DW_LLE_start_end ||
	       lle == DW_LLE_start_length || lle == DW_LLE_startx_endx ||
	       lle == DW_LLE_startx_length;
}

/* One entry of a location list (or the only expression) as a di_locexpr;
 * false for base-address and end entries (a base address is noted in
 * *base for the entry after it: *has_base). */
static bool read_entry(struct di_info *di, Dwarf_Die die, Dwarf_Loc_Head_c head,
		       unsigned kind, Dwarf_Unsigned i, struct di_locexpr *le,
		       uint64_t *base, bool *has_base)
{
	Dwarf_Small lle = 0, src = 0;
	Dwarf_Unsigned rlo, rhi, nops = 0, eoff, loff;
	Dwarf_Bool unavail = 0;
	Dwarf_Addr lo = 0, hi = 0;
	Dwarf_Locdesc_c desc = NULL;
	Dwarf_Error e = NULL;
	struct obuf o = {0};

	if (dwarf_get_locdesc_entry_d(head, i, &lle, &rlo, &rhi, &unavail, &lo, &hi,
				      &nops, &desc, &src, &eoff, &loff, &e) != DW_DLV_OK)
		return false;
	memset(le, 0, sizeof(*le));
	if (kind != DW_LKIND_expression &&
	    (lle == DW_LLE_base_address || lle == DW_LLE_base_addressx)) {
		*base = lo;
		*has_base = true;
		return false;
	}
	if (kind == DW_LKIND_expression || lle == DW_LLE_default_location)
		le->always = true;
	else if (!lle_ranged(lle) || unavail || lo >= hi)
		return false;
	le->after_base = *has_base;
	le->base = *base;
	*has_base = false;
	le->lo = lo;
	le->hi = hi;
	encode_desc(die, desc, nops, &o);
	le->ops = o.n ? di_memdup(di, o.b, o.n) : NULL;
	le->len = o.n;
	free(o.b);
	return true;
}

int di_parse_locs(struct di_info *di, Dwarf_Die die, Dwarf_Half at,
		  struct di_locexpr **out, size_t *n)
{
	Dwarf_Attribute a = NULL;
	Dwarf_Loc_Head_c head = NULL;
	Dwarf_Unsigned count = 0;
	unsigned kind = DW_LKIND_unknown;
	Dwarf_Error e = NULL;
	struct di_locexpr *v = NULL;
	size_t cnt = 0, cap = 0;

	*out = NULL;
	*n = 0;
	if (dwarf_attr(die, at, &a, &e) != DW_DLV_OK)
		return -1;
	if (!dwcu_list_ok(di->dbg, die, a, true) ||
	    dwarf_get_loclist_c(a, &head, &count, &e) != DW_DLV_OK) {
		dwarf_dealloc_attribute(a);
		return -1;
	}
	dwarf_get_loclist_head_kind(head, &kind, &e);
	uint64_t base = 0;
	bool has_base = false;
	for (Dwarf_Unsigned i = 0; i < count; i++) {
		XGROW(v, cap, cnt + 1);
		cnt += read_entry(di, die, head, kind, i, &v[cnt], &base, &has_base);
	}
	dwarf_loc_head_c_dealloc(head);
	dwarf_dealloc_attribute(a);
	*out = cnt ? di_memdup(di, v, cnt * sizeof(*v)) : NULL;
	*n = cnt;
	free(v);
	return 0;
}
