/* unwind: one step from a frame to its caller with the call frame
 * information of one ELF file, read with libdwarf's frame API. The FDE lists
 * of .eh_frame and .debug_frame are read once and indexed by our own sorted
 * table (libdwarf's dwarf_get_fde_at_pc treats the end of a range as part
 * of it); a step evaluates one row of the table with
 * dwarf_get_fde_info_for_all_regs3 and applies its rules, including DWARF
 * expression rules (PLT stubs, libc's signal trampoline). */
#include "unwind.h"
#include "dwcu.h"
#include "util/util.h"
#include "util/sorted.h"

#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <libdwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Rule table columns: more than the DWARF numbers x86-64 CFI uses (xmm
 * 17-32, k0-k7 118-125), below libdwarf's sentinel "registers" (1034+). */
#define UNW_COLS 128

struct fde_ent {
	uint64_t lo, hi;      /* link-time [lo, hi) */
	Dwarf_Fde fde;
	bool signal;          /* CIE augmentation "S": a signal trampoline */
};

/* One FDE list as libdwarf returned it, plus our index of it. */
struct fde_list {
	Dwarf_Cie *cies;
	Dwarf_Signed ncies;
	Dwarf_Fde *fdes;
	Dwarf_Signed nfdes;
	struct fde_ent *idx;  /* sorted by lo */
	size_t n;
};

struct unw {
	int fd;
	Dwarf_Debug dbg;      /* NULL for a file without any CFI */
	bool loaded;          /* the lists are read on the first lookup */
	struct fde_list eh, dbgframe;
};

/* libdwarf calls this when an error has nowhere else to go; with it set it
 * returns DW_DLV_ERROR instead of aborting. */
static void unw_dwarf_handler(Dwarf_Error e, Dwarf_Ptr arg)
{
	(void)e;
	(void)arg;
}

static void drop_error(Dwarf_Debug dbg, Dwarf_Error *err)
{
	if (*err)
		dwarf_dealloc_error(dbg, *err);
	*err = NULL;
}

/* ---- reading the FDE lists ---- */

static bool cie_is_signal(Dwarf_Debug dbg, Dwarf_Fde fde)
{
	Dwarf_Cie cie;
	Dwarf_Error err = NULL;
	Dwarf_Unsigned bytes, ilen, caf;
	Dwarf_Small ver;
	char *aug = NULL;
	Dwarf_Signed daf;
	Dwarf_Half ra, offsize;
	Dwarf_Ptr init;
	if (dwarf_get_cie_of_fde(fde, &cie, &err) != DW_DLV_OK ||
	    dwarf_get_cie_info_b(cie, &bytes, &ver, &aug, &caf, &daf, &ra, &init,
				 &ilen, &offsize, &err) != DW_DLV_OK) {
		drop_error(dbg, &err);
		return false;
	}
	return aug && strchr(aug, 'S');
}

static int cmp_fde(const void *a, const void *b)
{
	const struct fde_ent *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static void index_list(Dwarf_Debug dbg, struct fde_list *l)
{
	l->idx = xcalloc((size_t)l->nfdes, sizeof(*l->idx));
	for (Dwarf_Signed i = 0; i < l->nfdes; i++) {
		Dwarf_Addr lo;
		Dwarf_Unsigned len, blen;
		Dwarf_Ptr bytes;
		Dwarf_Off cieoff, fdeoff;
		Dwarf_Signed cieidx;
		Dwarf_Error err = NULL;
		if (dwarf_get_fde_range(l->fdes[i], &lo, &len, &bytes, &blen, &cieoff,
					&cieidx, &fdeoff, &err) != DW_DLV_OK) {
			drop_error(dbg, &err);
			continue;
		}
		if (!len)
			continue;
		struct fde_ent *e = &l->idx[l->n++];
		*e = (struct fde_ent){lo, lo + len, l->fdes[i], false};
		e->signal = cie_is_signal(dbg, l->fdes[i]);
	}
	qsort(l->idx, l->n, sizeof(*l->idx), cmp_fde);
}

static void load_lists(struct unw *u)
{
	Dwarf_Error err = NULL;
	struct fde_list *eh = &u->eh, *df = &u->dbgframe;
	u->loaded = true;
	if (dwarf_get_fde_list_eh(u->dbg, &eh->cies, &eh->ncies, &eh->fdes,
				  &eh->nfdes, &err) == DW_DLV_OK)
		index_list(u->dbg, eh);
	drop_error(u->dbg, &err);
	if (dwarf_get_fde_list(u->dbg, &df->cies, &df->ncies, &df->fdes,
			       &df->nfdes, &err) == DW_DLV_OK)
		index_list(u->dbg, df);
	drop_error(u->dbg, &err);
}

/* The defaults compiled into libdwarf vary: make "no rule" read as
 * same-value, so that unset columns are told apart from an explicit
 * DW_CFA_undefined (the outermost frame's return address). */
static void set_frame_conventions(Dwarf_Debug dbg)
{
	dwarf_set_frame_rule_table_size(dbg, UNW_COLS);
	dwarf_set_frame_rule_initial_value(dbg, DW_FRAME_SAME_VAL);
	dwarf_set_frame_same_value(dbg, DW_FRAME_SAME_VAL);
	dwarf_set_frame_undefined_value(dbg, DW_FRAME_UNDEFINED_VAL);
	dwarf_set_frame_cfa_value(dbg, DW_FRAME_CFA_COL3);
}

/* libdwarf takes a file it cannot read for one without DWARF: tell a
 * non-ELF file apart ourselves. */
static bool is_elf(int fd)
{
	char magic[4];
	return pread(fd, magic, 4, 0) == 4 && memcmp(magic, "\177ELF", 4) == 0;
}

static void set_err(char *err, size_t errlen, const char *msg)
{
	if (err && errlen)
		snprintf(err, errlen, "%s", msg);
}

struct unw *unw_open(const char *path, char *err, size_t errlen)
{
	struct unw *u = xcalloc(1, sizeof(*u));
	Dwarf_Error derr = NULL;
	u->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (u->fd < 0 || !is_elf(u->fd)) {
		set_err(err, errlen, u->fd < 0 ? strerror(errno) :
			"not in executable format: file format not recognized");
		if (u->fd >= 0)
			close(u->fd);
		free(u);
		return NULL;
	}
	if (dwcu_check_file(path, NULL, err, errlen) < 0) {
		close(u->fd);
		free(u);
		return NULL;
	}
	int rc = dwarf_init_b(u->fd, DW_DLC_READ, DW_GROUPNUMBER_ANY,
			      unw_dwarf_handler, NULL, &u->dbg, &derr);
	if (rc == DW_DLV_ERROR) {
		if (err && errlen)
			snprintf(err, errlen, "cannot read call frame information: %s",
				 derr ? dwarf_errmsg(derr) : "unknown error");
		drop_error(NULL, &derr);
		close(u->fd);
		free(u);
		return NULL;
	}
	if (rc == DW_DLV_NO_ENTRY) {
		u->dbg = NULL;
		return u;
	}
	set_frame_conventions(u->dbg);
	return u;
}

static void free_list(Dwarf_Debug dbg, struct fde_list *l)
{
	if (l->fdes)
		dwarf_fde_cie_list_dealloc(dbg, l->cies, l->ncies, l->fdes, l->nfdes);
	free(l->idx);
}

void unw_close(struct unw *u)
{
	if (!u)
		return;
	if (u->dbg) {
		Dwarf_Error err = NULL;
		free_list(u->dbg, &u->eh);
		free_list(u->dbg, &u->dbgframe);
		dwarf_finish(u->dbg, &err);
	}
	if (u->fd >= 0)
		close(u->fd);
	free(u);
}

/* ---- finding the FDE ---- */

static const struct fde_ent *list_find(const struct fde_list *l, uint64_t pc)
{
	size_t lo = SORTED_UPTO(l->idx, l->n, lo, pc);
	if (lo && pc < l->idx[lo - 1].hi)
		return &l->idx[lo - 1];
	return NULL;
}

/* The FDE lists are read when first needed, not at unw_open, to keep
 * start-up fast on large programs: u is never const in fact. */
static const struct fde_ent *fde_find(const struct unw *u, uint64_t pc)
{
	if (!u->dbg)
		return NULL;
	if (!u->loaded)
		load_lists((struct unw *)(uintptr_t)u);
	const struct fde_ent *e = list_find(&u->eh, pc);
	return e ? e : list_find(&u->dbgframe, pc);
}

/* ---- DWARF expressions ---- */

#define EXPR_STACK 64

struct expr {
	const uint8_t *p, *end;
	const struct di_regs *regs;
	di_read_fn read_mem;
	void *arg;
	uint64_t stack[EXPR_STACK];
	int sp;               /* number of entries */
	bool bad;
};

static uint64_t uleb(struct expr *e)
{
	uint64_t v = 0;
	for (int shift = 0; e->p < e->end; shift += 7) {
		uint8_t b = *e->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	e->bad = true;
	return v;
}

static int64_t sleb(struct expr *e)
{
	uint64_t v = 0;
	int shift = 0;
	uint8_t b = 0x80;
	while (e->p < e->end && (b & 0x80)) {
		b = *e->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	}
	if (b & 0x80)
		e->bad = true;
	else if (shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return (int64_t)v;
}

/* A fixed-size operand of n bytes, sign-extended if asked. */
static uint64_t fixed(struct expr *e, int n, bool sign)
{
	uint64_t v = 0;
	if (e->end - e->p < n) {
		e->bad = true;
		return 0;
	}
	memcpy(&v, e->p, (size_t)n);
	e->p += n;
	if (sign && n < 8 && (v >> (n * 8 - 1)) & 1)
		v |= ~(uint64_t)0 << (n * 8);
	return v;
}

static void push(struct expr *e, uint64_t v)
{
	if (e->sp >= EXPR_STACK) {
		e->bad = true;
		return;
	}
	e->stack[e->sp++] = v;
}

static uint64_t pop(struct expr *e)
{
	if (e->sp <= 0) {
		e->bad = true;
		return 0;
	}
	return e->stack[--e->sp];
}

static uint64_t reg_value(struct expr *e, uint64_t reg)
{
	if (reg >= DI_NREGS || !e->regs->valid[reg]) {
		e->bad = true;
		return 0;
	}
	return e->regs->r[reg];
}

static uint64_t deref(struct expr *e, uint64_t addr, int size)
{
	uint64_t v = 0;
	if (size < 1 || size > 8 || e->read_mem(e->arg, addr, &v, (size_t)size))
		e->bad = true;
	return v;
}

static void binary_op(struct expr *e, uint8_t op)
{
	uint64_t b = pop(e), a = pop(e);
	int64_t sa = (int64_t)a, sb = (int64_t)b;
	uint64_t r = 0;
	switch (op) {
	case DW_OP_and: r = a & b; break;
	case DW_OP_or: r = a | b; break;
	case DW_OP_xor: r = a ^ b; break;
	case DW_OP_plus: r = a + b; break;
	case DW_OP_minus: r = a - b; break;
	case DW_OP_mul: r = a * b; break;
	case DW_OP_div:
		if (!b)
			e->bad = true;
		else
			r = sb == -1 ? 0 - a : (uint64_t)(sa / sb);
		break;
	case DW_OP_mod: r = b ? a % b : (e->bad = true, 0); break;
	case DW_OP_shl: r = b < 64 ? a << b : 0; break;
	case DW_OP_shr: r = b < 64 ? a >> b : 0; break;
	case DW_OP_shra: r = (uint64_t)(sa >> (b < 63 ? b : 63)); break;
	case DW_OP_eq: r = sa == sb; break;
	case DW_OP_ne: r = sa != sb; break;
	case DW_OP_lt: r = sa < sb; break;
	case DW_OP_le: r = sa <= sb; break;
	case DW_OP_gt: r = sa > sb; break;
	case DW_OP_ge: r = sa >= sb; break;
	}
	push(e, r);
}

static bool is_binary(uint8_t op)
{
	switch (op) {
	case DW_OP_and: case DW_OP_or: case DW_OP_xor: case DW_OP_plus:
	case DW_OP_minus: case DW_OP_mul: case DW_OP_div: case DW_OP_mod:
	case DW_OP_shl: case DW_OP_shr: case DW_OP_shra: case DW_OP_eq:
	case DW_OP_ne: case DW_OP_lt: case DW_OP_le: case DW_OP_gt:
	case DW_OP_ge:
		return true;
	}
	return false;
}

static void branch(struct expr *e, const uint8_t *start, int64_t off)
{
	int64_t to = (e->p - start) + off;
	if (to < 0 || to > e->end - start)
		e->bad = true;
	else
		e->p = start + to;
}

static bool const_op(struct expr *e, uint8_t op)
{
	switch (op) {
	case DW_OP_addr: push(e, fixed(e, 8, false)); return true;
	case DW_OP_const1u: push(e, fixed(e, 1, false)); return true;
	case DW_OP_const1s: push(e, fixed(e, 1, true)); return true;
	case DW_OP_const2u: push(e, fixed(e, 2, false)); return true;
	case DW_OP_const2s: push(e, fixed(e, 2, true)); return true;
	case DW_OP_const4u: push(e, fixed(e, 4, false)); return true;
	case DW_OP_const4s: push(e, fixed(e, 4, true)); return true;
	case DW_OP_const8u: case DW_OP_const8s: push(e, fixed(e, 8, false)); return true;
	case DW_OP_constu: push(e, uleb(e)); return true;
	case DW_OP_consts: push(e, (uint64_t)sleb(e)); return true;
	}
	if (op >= DW_OP_lit0 && op <= DW_OP_lit31) {
		push(e, op - DW_OP_lit0);
		return true;
	}
	return false;
}

static bool reg_op(struct expr *e, uint8_t op)
{
	if (op >= DW_OP_breg0 && op <= DW_OP_breg31) {
		int64_t off = sleb(e);
		push(e, reg_value(e, op - DW_OP_breg0) + (uint64_t)off);
	} else if (op == DW_OP_bregx) {
		uint64_t reg = uleb(e);
		int64_t off = sleb(e);
		push(e, reg_value(e, reg) + (uint64_t)off);
	} else if (op >= DW_OP_reg0 && op <= DW_OP_reg31) {
		/* Register location descriptions name no address: the CFI
		 * rules we evaluate never use them, so fail rather than guess. */
		e->bad = true;
	} else {
		return false;
	}
	return true;
}

static bool stack_op(struct expr *e, uint8_t op)
{
	uint64_t a, b, c;
	switch (op) {
	case DW_OP_dup: a = pop(e); push(e, a); push(e, a); return true;
	case DW_OP_drop: pop(e); return true;
	case DW_OP_over:
		b = pop(e); a = pop(e); push(e, a); push(e, b); push(e, a);
		return true;
	case DW_OP_pick: {
		uint64_t i = fixed(e, 1, false);
		if (i >= (uint64_t)e->sp)
			e->bad = true;
		else
			push(e, e->stack[e->sp - 1 - (int)i]);
		return true;
	}
	case DW_OP_swap: b = pop(e); a = pop(e); push(e, b); push(e, a); return true;
	case DW_OP_rot:
		c = pop(e); b = pop(e); a = pop(e);
		push(e, c); push(e, a); push(e, b);
		return true;
	}
	return false;
}

/* Memory, unary arithmetic and control flow. */
static bool other_op(struct expr *e, uint8_t op, const uint8_t *start)
{
	int64_t v;
	switch (op) {
	case DW_OP_deref: push(e, deref(e, pop(e), 8)); return true;
	case DW_OP_deref_size: {
		int n = (int)fixed(e, 1, false);
		push(e, deref(e, pop(e), n));
		return true;
	}
	case DW_OP_abs: v = (int64_t)pop(e); push(e, (uint64_t)(v < 0 ? -v : v)); return true;
	case DW_OP_neg: push(e, -pop(e)); return true;
	case DW_OP_not: push(e, ~pop(e)); return true;
	case DW_OP_plus_uconst: push(e, pop(e) + uleb(e)); return true;
	case DW_OP_skip: v = (int64_t)fixed(e, 2, true); branch(e, start, v); return true;
	case DW_OP_bra:
		v = (int64_t)fixed(e, 2, true);
		if (pop(e))
			branch(e, start, v);
		return true;
	case DW_OP_nop: return true;
	}
	return false;
}

/* Evaluate a CFI expression; for register rules the CFA is pushed first
 * (DWARF 5, 6.4.2.3). */
static int unw_expr_eval(const uint8_t *code, size_t len, const struct di_regs *regs,
		     di_read_fn read_mem, void *arg, const uint64_t *initial,
		     uint64_t *out)
{
	struct expr e = {.p = code, .end = code + len, .regs = regs,
			 .read_mem = read_mem, .arg = arg};
	if (initial)
		push(&e, *initial);
	/* A backward branch can loop forever on bad input: bound the work. */
	for (int steps = 0; e.p < e.end && !e.bad; steps++) {
		uint8_t op = *e.p++;
		if (steps > 10000)
			e.bad = true;
		else if (is_binary(op))
			binary_op(&e, op);
		else if (!const_op(&e, op) && !reg_op(&e, op) && !stack_op(&e, op) &&
			 !other_op(&e, op, code))
			e.bad = true;
	}
	if (e.bad || e.sp < 1)
		return -1;
	*out = e.stack[e.sp - 1];
	return 0;
}

/* ---- rules ---- */

struct step {
	const struct unw *u;
	const struct di_regs *regs;
	di_read_fn read_mem;
	void *arg;
	Dwarf_Regtable_Entry3 rules[UNW_COLS];
	Dwarf_Regtable3 table;
	uint64_t cfa;
};

static int read_u64(const struct step *s, uint64_t addr, uint64_t *v)
{
	return s->read_mem(s->arg, addr, v, sizeof(*v)) ? -1 : 0;
}

static int rule_expr(const struct step *s, const Dwarf_Regtable_Entry3 *r,
		     const uint64_t *initial, uint64_t *v)
{
	return unw_expr_eval(r->dw_block_ptr, r->dw_offset_or_block_len, s->regs,
			 s->read_mem, s->arg, initial, v);
}

static int eval_cfa(struct step *s)
{
	const Dwarf_Regtable_Entry3 *r = &s->table.rt3_cfa_rule;
	if (r->dw_value_type == DW_EXPR_EXPRESSION ||
	    r->dw_value_type == DW_EXPR_VAL_EXPRESSION)
		return rule_expr(s, r, NULL, &s->cfa);
	if (r->dw_value_type != DW_EXPR_OFFSET || r->dw_regnum >= DI_NREGS ||
	    !s->regs->valid[r->dw_regnum])
		return -1;
	s->cfa = s->regs->r[r->dw_regnum] + r->dw_offset_or_block_len;
	return 0;
}

/* Look up the row for pc (link-time) and compute the CFA. */
static int eval_row(struct step *s, uint64_t pc, bool *signal)
{
	const struct fde_ent *fe = fde_find(s->u, pc);
	Dwarf_Addr row_pc;
	Dwarf_Error err = NULL;
	if (!fe)
		return -1;
	if (signal)
		*signal = fe->signal;
	s->table.rt3_reg_table_size = UNW_COLS;
	s->table.rt3_rules = s->rules;
	if (dwarf_get_fde_info_for_all_regs3(fe->fde, pc, &s->table, &row_pc,
					     &err) != DW_DLV_OK) {
		drop_error(s->u->dbg, &err);
		return -1;
	}
	return eval_cfa(s);
}

/* Saved by the callee when it uses them (SysV ABI): the unwound value is
 * the frame's own unless CFI says where it was saved. */
static bool callee_saved(int reg)
{
	return reg == 3 || reg == 6 || (reg >= 12 && reg <= 15);
}

/* Value of register reg in the caller; false if it is unknown. */
static bool apply_rule(const struct step *s, int reg, uint64_t *v)
{
	const Dwarf_Regtable_Entry3 *r = &s->rules[reg];
	int64_t off = (int64_t)r->dw_offset_or_block_len;
	switch (r->dw_value_type) {
	case DW_EXPR_OFFSET:
		if (r->dw_regnum == DW_FRAME_UNDEFINED_VAL)
			return false;
		if (r->dw_regnum == DW_FRAME_SAME_VAL) {
			if (reg == DI_REG_RSP) {
				*v = s->cfa;
				return true;
			}
			*v = s->regs->r[reg];
			return callee_saved(reg) && s->regs->valid[reg];
		}
		if (r->dw_offset_relevant)
			return read_u64(s, s->cfa + (uint64_t)off, v) == 0;
		*v = r->dw_regnum < DI_NREGS ? s->regs->r[r->dw_regnum] : 0;
		return r->dw_regnum < DI_NREGS && s->regs->valid[r->dw_regnum];
	case DW_EXPR_VAL_OFFSET:
		*v = s->cfa + (uint64_t)off;
		return true;
	case DW_EXPR_EXPRESSION: {
		uint64_t addr;
		return rule_expr(s, r, &s->cfa, &addr) == 0 && read_u64(s, addr, v) == 0;
	}
	case DW_EXPR_VAL_EXPRESSION:
		return rule_expr(s, r, &s->cfa, v) == 0;
	}
	return false;
}

static void unwind_regs(const struct step *s, struct di_regs *caller)
{
	struct di_regs out;
	memset(&out, 0, sizeof(out));
	for (int reg = 0; reg < DI_NREGS; reg++)
		out.valid[reg] = apply_rule(s, reg, &out.r[reg]);
	*caller = out;
}

/* pc is link-time and exact for the innermost frame; other frames hold a
 * return address, which after a call to a noreturn function is already
 * past the end of the caller's FDE. */
static uint64_t lookup_pc(uint64_t bias, const struct di_regs *regs, bool innermost)
{
	uint64_t pc = regs->r[DI_REG_RIP] - bias;
	return innermost ? pc : pc - 1;
}

static void step_init(struct step *s, const struct unw *u,
		      const struct di_regs *regs, di_read_fn read_mem, void *arg)
{
	s->u = u;
	s->regs = regs;
	s->read_mem = read_mem;
	s->arg = arg;
}

int unw_cfa_ex(const struct unw *u, uint64_t bias, const struct di_regs *regs,
	       bool innermost, di_read_fn read_mem, void *arg, uint64_t *cfa)
{
	struct step s;
	if (!regs->valid[DI_REG_RIP])
		return -1;
	step_init(&s, u, regs, read_mem, arg);
	if (eval_row(&s, lookup_pc(bias, regs, innermost), NULL))
		return -1;
	*cfa = s.cfa;
	return 0;
}

int unw_cfa(const struct unw *u, uint64_t bias, const struct di_regs *regs,
	    di_read_fn read_mem, void *arg, uint64_t *cfa)
{
	return unw_cfa_ex(u, bias, regs, true, read_mem, arg, cfa);
}

int unw_step_ex(const struct unw *u, uint64_t bias, const struct di_regs *regs,
		bool innermost, di_read_fn read_mem, void *arg,
		struct di_regs *caller, uint64_t *cfa, bool *signal)
{
	struct step s;
	bool sig = false;
	if (!regs->valid[DI_REG_RIP])
		return -1;
	step_init(&s, u, regs, read_mem, arg);
	if (eval_row(&s, lookup_pc(bias, regs, innermost), &sig))
		return -1;
	unwind_regs(&s, caller);
	if (cfa)
		*cfa = s.cfa;
	if (signal)
		*signal = sig;
	return 0;
}

int unw_step(const struct unw *u, uint64_t bias, const struct di_regs *regs,
	     di_read_fn read_mem, void *arg, struct di_regs *caller,
	     uint64_t *cfa)
{
	return unw_step_ex(u, bias, regs, true, read_mem, arg, caller, cfa, NULL);
}

/* Where a rule says the register is saved in memory, as gdb's `info frame`
 * lists it ("rbp at 0x..."): an offset from the CFA or an address
 * computed by an expression. */
static bool saved_slot(const struct step *s, int reg, uint64_t *addr)
{
	const Dwarf_Regtable_Entry3 *r = &s->rules[reg];
	if (r->dw_value_type == DW_EXPR_EXPRESSION)
		return rule_expr(s, r, &s->cfa, addr) == 0;
	if (r->dw_value_type != DW_EXPR_OFFSET || !r->dw_offset_relevant ||
	    r->dw_regnum == DW_FRAME_UNDEFINED_VAL || r->dw_regnum == DW_FRAME_SAME_VAL)
		return false;
	*addr = s->cfa + r->dw_offset_or_block_len;
	return true;
}

int unw_saved_ex(const struct unw *u, uint64_t bias, const struct di_regs *regs,
		 bool innermost, di_read_fn read_mem, void *arg, struct di_regs *slots)
{
	struct step s;
	if (!regs->valid[DI_REG_RIP])
		return -1;
	step_init(&s, u, regs, read_mem, arg);
	if (eval_row(&s, lookup_pc(bias, regs, innermost), NULL))
		return -1;
	memset(slots, 0, sizeof *slots);
	for (int reg = 0; reg < DI_NREGS; reg++)
		slots->valid[reg] = saved_slot(&s, reg, &slots->r[reg]);
	return 0;
}
