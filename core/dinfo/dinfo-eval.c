/* dinfo-eval: evaluating the location descriptions dinfo-loc.c encoded:
 * a stack machine over the DWARF bytes that prefers "optimized out" to a
 * guess (entry values, parameter references and unreadable registers all
 * end in DI_LOC_OPTIMIZED), the pieces of a value, and reading a variable
 * through its location at a pc. */
#include "dinfo-int.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/util.h"

#define STACK_MAX 64
#define MAX_STEPS 10000      /* DW_OP_skip/bra can loop */

struct op {
	uint8_t code;
	uint64_t a, b;
	const uint8_t *blk;       /* DI_SH_BLOCK contents, a bytes */
	size_t next;              /* offset of the following operation */
};

/* Where one expression, or one piece of it, says the value is. */
struct part {
	enum { P_NONE, P_REG, P_VALUE, P_IMPLICIT } kind;
	uint64_t v;               /* register number or value */
	const uint8_t *blk;
	size_t blen;
};

struct eval {
	const struct di_ctx *ctx;
	uint64_t st[STACK_MAX];
	int sp;
	int depth;                /* 1 while evaluating a frame base */
	char *err;
	size_t errlen;
};

enum { EV_OK = 0, EV_OPT = 1, EV_ERR = -1 };

/* ---- decoding ---- */

static int get_uleb(const uint8_t *p, size_t len, size_t *pos, uint64_t *out)
{
	uint64_t v = 0;
	for (unsigned shift = 0; *pos < len; shift += 7) {
		uint8_t c = p[(*pos)++];
		if (shift < 64)
			v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*out = v;
			return 0;
		}
	}
	return -1;
}

static int get_sleb(const uint8_t *p, size_t len, size_t *pos, uint64_t *out)
{
	uint64_t v = 0;
	for (unsigned shift = 0; *pos < len;) {
		uint8_t c = p[(*pos)++];
		if (shift < 64)
			v |= (uint64_t)(c & 0x7f) << shift;
		shift += 7;
		if (!(c & 0x80)) {
			if (shift < 64 && (c & 0x40))
				v |= ~0ull << shift;
			*out = v;
			return 0;
		}
	}
	return -1;
}

static int get_fixed(const uint8_t *p, size_t len, size_t *pos, int n, bool sign,
		     uint64_t *out)
{
	uint64_t v = 0;
	if (len - *pos < (size_t)n)
		return -1;
	for (int i = 0; i < n; i++)
		v |= (uint64_t)p[*pos + i] << (8 * i);
	*pos += n;
	if (sign && n < 8 && (v >> (8 * n - 1)) & 1)
		v |= ~0ull << (8 * n);
	*out = v;
	return 0;
}

static int decode(const uint8_t *p, size_t len, size_t pos, struct op *op)
{
	memset(op, 0, sizeof(*op));
	if (pos >= len)
		return -1;
	op->code = p[pos++];
	enum di_shape sh = di_op_shape(op->code);
	int w = di_fixed_width(sh);
	int r = 0;
	if (w)
		r = get_fixed(p, len, &pos, w, sh == DI_SH_S1 || sh == DI_SH_S2 ||
			      sh == DI_SH_S4 || sh == DI_SH_S8, &op->a);
	else if (sh == DI_SH_ULEB || sh == DI_SH_ULEB_SLEB || sh == DI_SH_ULEB_ULEB || sh == DI_SH_BLOCK)
		r = get_uleb(p, len, &pos, &op->a);
	else if (sh == DI_SH_SLEB)
		r = get_sleb(p, len, &pos, &op->a);
	else if (sh == DI_SH_U4_SLEB)
		r = get_fixed(p, len, &pos, 4, false, &op->a);
	else if (sh == DI_SH_UNKNOWN)
		r = -1;
	if (!r && (sh == DI_SH_ULEB_SLEB || sh == DI_SH_U4_SLEB))
		r = get_sleb(p, len, &pos, &op->b);
	if (!r && sh == DI_SH_ULEB_ULEB)
		r = get_uleb(p, len, &pos, &op->b);
	if (!r && sh == DI_SH_BLOCK) {
		if (op->a > len - pos)
			return -1;
		op->blk = p + pos;
		pos += op->a;
	}
	op->next = pos;
	return r;
}

int di_op_decode(const uint8_t *p, size_t len, size_t pos, struct di_op *out)
{
	struct op op;
	int r = decode(p, len, pos, &op);
	*out = (struct di_op){ .code = op.code, .a = op.a, .b = op.b, .blk = op.blk,
			       .next = op.next };
	return r;
}

/* ---- evaluation ---- */

static int fail(struct eval *ev, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct eval *ev, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (ev->err && ev->errlen)
		vsnprintf(ev->err, ev->errlen, fmt, ap);
	va_end(ap);
	return EV_ERR;
}

static int push(struct eval *ev, uint64_t v)
{
	if (ev->sp >= STACK_MAX)
		return fail(ev, "DWARF expression stack overflow");
	ev->st[ev->sp++] = v;
	return EV_OK;
}

static int need(struct eval *ev, int n)
{
	return ev->sp >= n ? EV_OK : fail(ev, "malformed DWARF expression");
}

static int reg_value(struct eval *ev, uint64_t reg, uint64_t *v)
{
	const struct di_regs *r = ev->ctx->regs;
	if (reg >= DI_NREGS || !r || !r->valid[reg])
		return EV_OPT;
	*v = r->r[reg];
	return EV_OK;
}

static int read_mem(struct eval *ev, uint64_t addr, void *buf, size_t n)
{
	if (!ev->ctx->read_mem)
		return fail(ev, "Cannot access memory at address 0x%" PRIx64, addr);
	if (ev->ctx->read_mem(ev->ctx->arg, addr, buf, n))
		return fail(ev, "Cannot access memory at address 0x%" PRIx64, addr);
	return EV_OK;
}

static int run(struct eval *ev, const uint8_t *ops, size_t len, struct di_loc *out);

/* DW_OP_fbreg's base: the function's DW_AT_frame_base evaluated as a
 * value (DW_OP_call_frame_cfa, DW_OP_bregN, or a register). */
static int frame_base(struct eval *ev, uint64_t *fb)
{
	const struct di_func *f = ev->ctx->func;
	struct di_loc loc;
	if (!f || !f->frame_base.len)
		return fail(ev, "no frame base for DW_OP_fbreg");
	if (ev->depth)
		return fail(ev, "recursive frame base");
	struct eval sub = { .ctx = ev->ctx, .depth = 1, .err = ev->err, .errlen = ev->errlen };
	int r = run(&sub, f->frame_base.ops, f->frame_base.len, &loc);
	if (r)
		return r;
	switch (loc.kind) {
	case DI_LOC_MEM: *fb = loc.addr; return EV_OK;
	case DI_LOC_REG: return reg_value(ev, (uint64_t)loc.reg, fb);
	case DI_LOC_VALUE: memcpy(fb, loc.value, sizeof(*fb)); return EV_OK;
	case DI_LOC_OPTIMIZED: return EV_OPT;
	default: return fail(ev, "unsupported frame base");
	}
}

static int binary(struct eval *ev, uint8_t code)
{
	int r = need(ev, 2);
	if (r)
		return r;
	uint64_t b = ev->st[--ev->sp], a = ev->st[ev->sp - 1], v;
	int64_t sa = (int64_t)a, sb = (int64_t)b;
	switch (code) {
	case DW_OP_plus: v = a + b; break;
	case DW_OP_minus: v = a - b; break;
	case DW_OP_mul: v = a * b; break;
	case DW_OP_and: v = a & b; break;
	case DW_OP_or: v = a | b; break;
	case DW_OP_xor: v = a ^ b; break;
	case DW_OP_shl: v = b >= 64 ? 0 : a << b; break;
	case DW_OP_shr: v = b >= 64 ? 0 : a >> b; break;
	case DW_OP_shra: v = (uint64_t)(sa >> (b >= 63 ? 63 : b)); break;
	case DW_OP_div:
	case DW_OP_mod:
		if (!b)
			return fail(ev, "division by zero in DWARF expression");
		if (code == DW_OP_mod)
			v = a % b;
		else
			v = sb == -1 ? (uint64_t)0 - a : (uint64_t)(sa / sb);
		break;
	case DW_OP_eq: v = sa == sb; break;
	case DW_OP_ne: v = sa != sb; break;
	case DW_OP_lt: v = sa < sb; break;
	case DW_OP_le: v = sa <= sb; break;
	case DW_OP_gt: v = sa > sb; break;
	default: v = sa >= sb; break;
	}
	ev->st[ev->sp - 1] = v;
	return EV_OK;
}

static bool is_binary(uint8_t code)
{
	switch (code) {
	case DW_OP_plus: case DW_OP_minus: case DW_OP_mul: case DW_OP_and:
	case DW_OP_or: case DW_OP_xor: case DW_OP_shl: case DW_OP_shr:
	case DW_OP_shra: case DW_OP_div: case DW_OP_mod: case DW_OP_eq:
	case DW_OP_ne: case DW_OP_lt: case DW_OP_le: case DW_OP_gt: case DW_OP_ge:
		return true;
	default:
		return false;
	}
}

static int unary(struct eval *ev, const struct op *op)
{
	int r = need(ev, 1);
	uint8_t buf[8] = {0};
	if (r)
		return r;
	uint64_t *top = &ev->st[ev->sp - 1];
	switch (op->code) {
	case DW_OP_neg: *top = (uint64_t)0 - *top; return EV_OK;
	case DW_OP_not: *top = ~*top; return EV_OK;
	case DW_OP_abs: *top = (int64_t)*top < 0 ? (uint64_t)0 - *top : *top; return EV_OK;
	case DW_OP_plus_uconst: *top += op->a; return EV_OK;
	case DW_OP_deref:
	case DW_OP_deref_size:
		if (op->code == DW_OP_deref_size && (op->a == 0 || op->a > 8))
			return fail(ev, "bad DW_OP_deref_size %" PRIu64, op->a);
		r = read_mem(ev, *top, buf, op->code == DW_OP_deref ? 8 : op->a);
		memcpy(top, buf, 8);
		return r;
	default:
		return fail(ev, "unsupported DWARF operation 0x%x", op->code);
	}
}

static int stack_op(struct eval *ev, const struct op *op)
{
	uint64_t t;
	int r = need(ev, op->code == DW_OP_rot ? 3 : op->code == DW_OP_swap ||
		     op->code == DW_OP_over ? 2 : 1);
	if (r)
		return r;
	uint64_t *s = ev->st + ev->sp;
	switch (op->code) {
	case DW_OP_dup: return push(ev, s[-1]);
	case DW_OP_drop: ev->sp--; return EV_OK;
	case DW_OP_over: return push(ev, s[-2]);
	case DW_OP_pick:
		if (op->a >= (uint64_t)ev->sp)
			return fail(ev, "bad DW_OP_pick %" PRIu64, op->a);
		return push(ev, s[-1 - (int)op->a]);
	case DW_OP_swap: t = s[-1]; s[-1] = s[-2]; s[-2] = t; return EV_OK;
	default: /* rot */
		t = s[-1]; s[-1] = s[-2]; s[-2] = s[-3]; s[-3] = t; return EV_OK;
	}
}

static int push_reg(struct eval *ev, uint64_t reg, int64_t off)
{
	uint64_t v;
	int r = reg_value(ev, reg, &v);
	return r ? r : push(ev, v + (uint64_t)off);
}

/* Everything but pieces and control flow. */
/* DW_OP_entry_value's block when it is one register: DW_OP_regN or
 * DW_OP_regx N, as gcc emits it. -1 otherwise. */
static int entry_reg_of(const struct op *op)
{
	if (op->a == 1 && op->blk[0] >= DW_OP_reg0 && op->blk[0] <= DW_OP_reg31)
		return op->blk[0] - DW_OP_reg0;
	if (op->a >= 2 && op->blk[0] == DW_OP_regx && op->blk[1] < 0x80)
		return op->blk[1];
	return -1;
}

static int step(struct eval *ev, const struct op *op, struct part *cur)
{
	uint8_t c = op->code;
	uint64_t fb = 0;   /* gcc -O2 cannot see frame_base set it on EV_OK */
	int r;

	if (c >= DW_OP_lit0 && c <= DW_OP_lit31)
		return push(ev, c - DW_OP_lit0);
	if (c >= DW_OP_reg0 && c <= DW_OP_reg31) {
		*cur = (struct part){ .kind = P_REG, .v = c - DW_OP_reg0 };
		return EV_OK;
	}
	if (c >= DW_OP_breg0 && c <= DW_OP_breg31)
		return push_reg(ev, c - DW_OP_breg0, (int64_t)op->a);
	if (is_binary(c))
		return binary(ev, c);
	switch (c) {
	case DW_OP_addr:
		return push(ev, op->a + ev->ctx->bias);
	case DW_OP_const1u: case DW_OP_const1s: case DW_OP_const2u: case DW_OP_const2s:
	case DW_OP_const4u: case DW_OP_const4s: case DW_OP_const8u: case DW_OP_const8s:
	case DW_OP_constu: case DW_OP_consts:
		return push(ev, op->a);
	case DW_OP_regx:
		*cur = (struct part){ .kind = P_REG, .v = op->a };
		return EV_OK;
	case DW_OP_bregx:
		return push_reg(ev, op->a, (int64_t)op->b);
	case DW_OP_fbreg:
		r = frame_base(ev, &fb);
		return r ? r : push(ev, fb + op->a);
	case DW_OP_call_frame_cfa:
		if (!ev->ctx->has_cfa)
			return fail(ev, "no CFA for this frame");
		return push(ev, ev->ctx->cfa);
	case DW_OP_implicit_pointer:
	case DW_OP_GNU_implicit_pointer:
		/* A pointer to an object that exists only in the debug info
		 * (gdb's <synthetic pointer>): this part is not available. */
		*cur = (struct part){ .kind = P_NONE };
		ev->sp = 0;
		return EV_OK;
	case DW_OP_entry_value:
	case DW_OP_GNU_entry_value: {
		uint64_t v;
		int reg = entry_reg_of(op);
		if (reg < 0 || !ev->ctx->entry_reg || ev->ctx->entry_reg(ev->ctx->entry_arg, reg, &v))
			return EV_OPT;
		return push(ev, v);
	}
	case DW_OP_dup: case DW_OP_drop: case DW_OP_over: case DW_OP_pick:
	case DW_OP_swap: case DW_OP_rot:
		return stack_op(ev, op);
	case DW_OP_nop:
		return EV_OK;
	case DW_OP_stack_value:
		if ((r = need(ev, 1)))
			return r;
		*cur = (struct part){ .kind = P_VALUE, .v = ev->st[ev->sp - 1] };
		return EV_OK;
	case DW_OP_implicit_value:
		*cur = (struct part){ .kind = P_IMPLICIT, .blk = op->blk, .blen = op->a };
		return EV_OK;
	default:
		return unary(ev, op);
	}
}

#define XMM_FIRST 17         /* DWARF numbers of xmm0-xmm15 */
#define XMM_LAST 32

/* An xmm register's 16 bytes, where the frame has them. */
static int xmm_value(struct eval *ev, uint64_t reg, uint8_t *buf)
{
	if (!ev->ctx->read_xmm || ev->ctx->read_xmm(ev->ctx->arg, (int)(reg - XMM_FIRST), buf))
		return EV_OPT;
	return EV_OK;
}

/* The first n bytes of what cur (or the stack top: memory) describes;
 * EV_OPT if it has no location. */
static int part_bytes(struct eval *ev, const struct part *cur, uint8_t *buf, size_t n)
{
	uint64_t v = cur->v;
	uint8_t x[16] = {0};
	int r;
	memset(buf, 0, n);
	switch (cur->kind) {
	case P_REG:
		if (cur->v >= XMM_FIRST && cur->v <= XMM_LAST)
			r = xmm_value(ev, cur->v, x);
		else if (!(r = reg_value(ev, cur->v, &v)))
			memcpy(x, &v, 8);
		memcpy(buf, x, n < sizeof x ? n : sizeof x);
		return r;
	case P_VALUE:
		memcpy(buf, &v, n < 8 ? n : 8);
		return EV_OK;
	case P_IMPLICIT:
		memcpy(buf, cur->blk, n < cur->blen ? n : cur->blen);
		return EV_OK;
	default:
		if (!ev->sp)
			return EV_OPT;
		return read_mem(ev, ev->st[ev->sp - 1], buf, n);
	}
}

static void set_bit(uint8_t *bits, uint64_t i, bool on)
{
	if (on)
		bits[i / 8] |= (uint8_t)(1u << (i % 8));
	else
		bits[i / 8] &= (uint8_t)~(1u << (i % 8));
}

/* Add a piece of nbits bits, from bit boff of what cur describes (a
 * DW_OP_bit_piece; whole bytes for DW_OP_piece), to out->value after the
 * bits already there (*bits). A piece without a location is marked in
 * out->unavail. */
static int add_piece(struct eval *ev, const struct part *cur, uint64_t nbits,
		     uint64_t boff, struct di_loc *out, uint64_t *bits)
{
	uint8_t src[DI_LOC_MAX];
	if (nbits > 8 * sizeof(out->value) - *bits || boff > 8 * sizeof(src) - nbits)
		return fail(ev, "composite value larger than %zu bytes", sizeof(out->value));
	int r = part_bytes(ev, cur, src, (size_t)((boff + nbits + 7) / 8));
	if (r == EV_ERR)
		return r;
	size_t len = (size_t)((*bits + nbits + 7) / 8);
	if (len > out->value_len)   /* new bytes: unknown until filled */
		memset(out->unavail + out->value_len, 0xff, len - out->value_len);
	for (uint64_t i = 0; i < nbits; i++) {
		uint64_t from = boff + i, to = *bits + i;
		set_bit(out->value, to, r == EV_OK && (src[from / 8] >> (from % 8)) & 1);
		set_bit(out->unavail, to, r == EV_OPT);
	}
	*bits += nbits;
	out->value_len = len;
	return EV_OK;
}

/* Whether some bit of the first nbits of mask is clear. */
static bool any_known(const uint8_t *unavail, uint64_t nbits)
{
	for (uint64_t i = 0; i < nbits; i++)
		if (!((unavail[i / 8] >> (i % 8)) & 1))
			return true;
	return false;
}

static int finish(struct eval *ev, const struct part *cur, struct di_loc *out)
{
	uint64_t v;
	switch (cur->kind) {
	case P_REG:
		if (cur->v >= XMM_FIRST && cur->v <= XMM_LAST) {
			if (xmm_value(ev, cur->v, out->value))
				return EV_OPT;
			out->kind = DI_LOC_VALUE;
			out->value_len = 16;
			return EV_OK;
		}
		if (reg_value(ev, cur->v, &v))
			return EV_OPT;
		out->kind = DI_LOC_REG;
		out->reg = (int)cur->v;
		return EV_OK;
	case P_VALUE:
		out->kind = DI_LOC_VALUE;
		memcpy(out->value, &cur->v, 8);
		out->value_len = 8;
		return EV_OK;
	case P_IMPLICIT:
		if (cur->blen > sizeof(out->value))
			return fail(ev, "implicit value of %zu bytes is too large",
				    cur->blen);
		out->kind = DI_LOC_VALUE;
		memcpy(out->value, cur->blk, cur->blen);
		out->value_len = cur->blen;
		return EV_OK;
	default:
		if (!ev->sp)
			return EV_OPT;      /* an empty expression */
		out->kind = DI_LOC_MEM;
		out->addr = ev->st[ev->sp - 1];
		return EV_OK;
	}
}

static int run(struct eval *ev, const uint8_t *ops, size_t len, struct di_loc *out)
{
	struct part cur = { .kind = P_NONE };
	bool pieces = false;
	uint64_t bits = 0;
	size_t pos = 0;
	struct op op;
	int r;

	memset(out, 0, sizeof(*out));
	for (int steps = 0; pos < len; steps++) {
		if (steps > MAX_STEPS || decode(ops, len, pos, &op))
			return fail(ev, "malformed or unsupported DWARF expression (op 0x%x)",
				    pos < len ? ops[pos] : 0);
		pos = op.next;
		if (op.code == DW_OP_piece || op.code == DW_OP_bit_piece) {
			bool bytes = op.code == DW_OP_piece;
			if (bytes && op.a > sizeof(out->value))
				return fail(ev, "composite value larger than %zu bytes",
					    sizeof(out->value));
			r = add_piece(ev, &cur, bytes ? 8 * op.a : op.a, bytes ? 0 : op.b,
				      out, &bits);
			if (r)
				return r;
			pieces = true;
			cur.kind = P_NONE;
			ev->sp = 0;
			continue;
		}
		if (op.code == DW_OP_skip || op.code == DW_OP_bra) {
			if (op.code == DW_OP_bra && (r = need(ev, 1)))
				return r;
			bool jump = op.code == DW_OP_skip || ev->st[--ev->sp] != 0;
			int64_t to = (int64_t)op.next + (int64_t)op.a;
			if (jump && (to < 0 || (uint64_t)to > len))
				return fail(ev, "DWARF branch out of range");
			pos = jump ? (size_t)to : pos;
			continue;
		}
		if ((r = step(ev, &op, &cur)))
			return r;
	}
	if (!pieces)
		return finish(ev, &cur, out);
	out->kind = any_known(out->unavail, bits) ? DI_LOC_PIECES : DI_LOC_OPTIMIZED;
	for (size_t i = 0; i < out->value_len && !out->partial; i++)
		out->partial = out->unavail[i] != 0;
	return EV_OK;
}

/* Operations whose value we cannot know in a stopped process: the value
 * at function entry, a caller's argument, a pointer to an optimized-out
 * object. */
static int prescan(struct eval *ev, const uint8_t *ops, size_t len)
{
	struct op op;
	for (size_t pos = 0; pos < len; pos = op.next) {
		if (decode(ops, len, pos, &op))
			return fail(ev, "unsupported DWARF operation 0x%x", ops[pos]);
		switch (op.code) {
		case DW_OP_entry_value: case DW_OP_GNU_entry_value:
			if (ev->ctx->entry_reg && entry_reg_of(&op) >= 0)
				break;   /* a register's value at entry: askable */
			return EV_OPT;
		case DW_OP_GNU_parameter_ref:
			return EV_OPT;
		}
	}
	return EV_OK;
}

int di_eval_value(const struct di_locexpr *le, const struct di_ctx *ctx,
		  uint64_t *out, char *err, size_t errlen)
{
	struct eval ev = { .ctx = ctx, .err = err, .errlen = errlen };
	struct di_loc loc;
	int r = prescan(&ev, le->ops, le->len);
	if (!r)
		r = run(&ev, le->ops, le->len, &loc);
	if (r == EV_OPT)
		return 1;
	if (r)
		return -1;
	switch (loc.kind) {
	case DI_LOC_MEM:    /* a DWARF "memory location" is the value itself */
		*out = loc.addr;
		return 0;
	case DI_LOC_REG:
		return reg_value(&ev, (uint64_t)loc.reg, out) ? 1 : 0;
	case DI_LOC_VALUE:
		memcpy(out, loc.value, sizeof(*out));
		return 0;
	default:
		return 1;
	}
}

static const struct di_locexpr *pick_loc(const struct di_var *v, uint64_t pc)
{
	const struct di_locexpr *dflt = NULL;
	for (size_t i = 0; i < v->nlocs; i++) {
		const struct di_locexpr *le = &v->locs[i];
		if (le->always && !dflt)
			dflt = le;
		else if (!le->always && le->lo <= pc && pc < le->hi)
			return le;
	}
	return dflt;
}

bool di_var_synthetic(const struct di_var *v, uint64_t pc)
{
	const struct di_locexpr *le = pick_loc(v, pc);
	return le && le->len && (le->ops[0] == DW_OP_implicit_pointer ||
				 le->ops[0] == DW_OP_GNU_implicit_pointer);
}

int di_locate(const struct di_var *v, const struct di_ctx *ctx,
	      struct di_loc *out, char *err, size_t errlen)
{
	struct eval ev = { .ctx = ctx, .err = err, .errlen = errlen };
	memset(out, 0, sizeof(*out));
	out->kind = DI_LOC_OPTIMIZED;
	if (err && errlen)
		err[0] = 0;
	if (v->has_const && !v->nlocs) {
		out->kind = DI_LOC_VALUE;
		memcpy(out->value, &v->const_value, 8);
		out->value_len = 8;
		return 0;
	}
	const struct di_locexpr *le = pick_loc(v, ctx->pc - ctx->bias);
	if (!le || !le->len)
		return 0;
	int r = prescan(&ev, le->ops, le->len);
	if (!r)
		r = run(&ev, le->ops, le->len, out);
	if (r == EV_OPT) {
		memset(out, 0, sizeof(*out));
		out->kind = DI_LOC_OPTIMIZED;
		return 0;
	}
	return r;
}

/* A value of pieces: without unavail, 1 if any bit is missing; with it,
 * 1 only if no bit is known. */
static int pieces_read(const struct di_loc *loc, uint8_t *buf, uint8_t *unavail,
		       size_t size)
{
	size_t n = size < loc->value_len ? size : loc->value_len;
	memcpy(buf, loc->value, n);
	if (!unavail)
		return loc->partial || n < size;
	memcpy(unavail, loc->unavail, n);
	memset(unavail + n, 0xff, size - n);
	return !any_known(unavail, 8 * (uint64_t)size);
}

static int read_var(const struct di_var *v, const struct di_ctx *ctx, uint8_t *buf,
		    uint8_t *unavail, size_t size, char *err, size_t errlen)
{
	struct di_loc loc;
	struct eval ev = { .ctx = ctx, .err = err, .errlen = errlen };
	if (di_locate(v, ctx, &loc, err, errlen) < 0)
		return -1;
	memset(buf, 0, size);
	if (unavail)
		memset(unavail, 0, size);
	switch (loc.kind) {
	case DI_LOC_MEM:
		return read_mem(&ev, loc.addr, buf, size) ? -1 : 0;
	case DI_LOC_REG:
		memcpy(buf, &ctx->regs->r[loc.reg], size < 8 ? size : 8);
		return 0;
	case DI_LOC_VALUE:
		memcpy(buf, loc.value, size < loc.value_len ? size : loc.value_len);
		return 0;
	case DI_LOC_PIECES:
		return pieces_read(&loc, buf, unavail, size);
	default:
		if (unavail)
			memset(unavail, 0xff, size);
		return 1;
	}
}

int di_read_var(const struct di_var *v, const struct di_ctx *ctx,
		uint8_t *buf, size_t size, char *err, size_t errlen)
{
	return read_var(v, ctx, buf, NULL, size, err, errlen);
}

int di_read_var_bits(const struct di_var *v, const struct di_ctx *ctx,
		     uint8_t *buf, uint8_t *unavail, size_t size,
		     char *err, size_t errlen)
{
	return read_var(v, ctx, buf, unavail, size, err, errlen);
}
