/* stack: the stack buffer overflow events. `canary`: the program called
 * __stack_chk_fail, gcc's stack protector having found the guard of a
 * returning function's frame overwritten. `smash`: a return through an
 * overwritten return address, seen as the SIGSEGV it ends in: a
 * non-canonical address faults at the ret itself (a general-protection
 * fault, no fault address), a canonical unmapped one faults fetching the
 * instruction it returned to (fault address = pc, and the 8 bytes just
 * below rsp hold it).
 * Both name the array of the returning function's frame that the overflow
 * ran past: the one ending closest below the overwritten slot (gcc puts
 * arrays next to the guard, so a write running past a lower one passes
 * through the higher one first). Locals are located from the frame's CFA,
 * which needs no saved rbp: it is valid when the stack is smashed. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect-int.h"
#include "dinfo/disasm.h"
#include "slice/view.h"
#include "target/frame.h"
#include "target/run.h"
#include "target/session.h"
#include "value/value.h"

/* The array (else any object) of f's frame ending closest below slot. */
struct stk_obj {
	const struct di_var *v;
	uint64_t addr, end;
	bool array;
};

static void stk_consider(const struct di_var *v, const struct di_ctx *ctx, uint64_t slot,
			 struct stk_obj *best)
{
	struct di_loc loc;
	char err[128];
	const struct di_type *t = v->type ? di_type_strip(v->type) : NULL;
	if (v->is_static || !t || !t->size || di_locate(v, ctx, &loc, err, sizeof err) < 0 ||
	    loc.kind != DI_LOC_MEM || loc.addr >= slot)
		return;
	uint64_t end = loc.addr + t->size;
	bool array = t->kind == DI_ARRAY;
	if (end > slot + 8)
		return;   /* not below the slot: another frame's, or the slot's own */
	if (!best->v || (array && !best->array) ||
	    (array == best->array && end > best->end))
		*best = (struct stk_obj){ v, loc.addr, end, array };
}

static void stk_scope(const struct di_scope *s, const struct di_ctx *ctx, uint64_t slot,
		      struct stk_obj *best)
{
	for (size_t i = 0; i < s->nvars; i++)
		stk_consider(&s->vars[i], ctx, slot, best);
	for (size_t i = 0; i < s->nchildren; i++)
		stk_scope(&s->children[i], ctx, slot, best);
}

/* Where a returning function's frame was: its function (in the program),
 * a pc inside it, its CFA (the slot of its return address + 8). */
struct stk_frame {
	const struct di_func *func;
	uint64_t pc, cfa;
};

/* "`buf` (char [16], smash.c:7)" into out; false if none is known. */
static bool stk_name_obj(struct qz *q, const struct stk_frame *sf, uint64_t slot,
			 struct sbuf *out, uint64_t *over)
{
	const struct frame *f0 = frame_get(q, 0);
	if (!sf->func || !f0)
		return false;
	struct di_ctx ctx;
	frame_di_ctx(q, f0, &ctx);   /* memory and registers; the frame is sf */
	ctx.func = sf->func;
	ctx.pc = sf->pc;
	ctx.cfa = sf->cfa;
	ctx.has_cfa = true;
	ctx.bias = q->exe.bias;
	struct stk_obj best = {0};
	for (size_t i = 0; i < sf->func->nparams; i++)
		stk_consider(&sf->func->params[i], &ctx, slot, &best);
	stk_scope(&sf->func->body, &ctx, slot, &best);
	if (!best.v)
		return false;
	sbuf_printf(out, "`%s` (", best.v->name ? best.v->name : "?");
	val_type_name(out, best.v->type);
	sbuf_printf(out, ", %s:%d)", best.v->decl_file ? str_basename(best.v->decl_file) : "?",
		    best.v->decl_line);
	*over = slot + 8 - best.end;
	return true;
}

/* "DISP(%REG)" of an AT&T memory operand at the start of ops: the
 * register's DWARF number (rbp or rsp only) and the displacement. */
static bool stk_mem_operand(const char *ops, int *reg, int64_t *disp)
{
	char name[8];
	long long d = 0;
	int n = 0;
	if (sscanf(ops, "%lli(%%%7[a-z0-9])%n", &d, name, &n) != 2 &&
	    (d = 0, sscanf(ops, "(%%%7[a-z0-9])%n", name, &n) != 1))
		return false;
	if (!strcmp(name, "rbp"))
		*reg = DI_REG_RBP;
	else if (!strcmp(name, "rsp"))
		*reg = DI_REG_RSP;
	else
		return false;
	*disp = d;
	return true;
}

/* The guard's slot in frame f: the epilogue loads it (mov DISP(%rbp|%rsp),R)
 * just before comparing it with %fs:0x28. Decoded from f's function start
 * to its call of __stack_chk_fail; 0 if not found. */
static uint64_t stk_guard_slot(struct qz *q, const struct frame *f, uint64_t call)
{
	if (!f->func || !f->mod)
		return 0;
	uint64_t a = f->func->lo + f->mod->bias, slot = 0;
	struct dis_insn prev = {0}, d;
	while (a < call && a - (f->func->lo + f->mod->bias) < 65536) {
		uint8_t code[16];
		if (qz_read(q, a, code, sizeof code) < 0 || !dis_decode(code, sizeof code, a, &d))
			break;
		int reg;
		int64_t disp;
		if (strstr(d.operands, "%fs:0x28") && !strncmp(prev.mnemonic, "mov", 3) &&
		    (!strncmp(d.mnemonic, "sub", 3) || !strncmp(d.mnemonic, "xor", 3) ||
		     !strncmp(d.mnemonic, "cmp", 3)) &&
		    stk_mem_operand(prev.operands, &reg, &disp) && f->regs.valid[reg])
			slot = f->regs.r[reg] + (uint64_t)disp;
		prev = d;
		a += d.len;
	}
	return slot;
}

int det_stack_canary(struct qz *q, struct detect_state *st, uint64_t ret)
{
	struct user_regs_struct *r = proc_regs(q->proc);
	if (st->skip_sp && r->rsp + 8 == st->skip_sp && ret == st->skip_ret) {
		st->skip_sp = 0;   /* the call a report stopped at, running now */
		return RUN_AGAIN;
	}
	st->events[EV_CANARY]++;
	frame_invalidate(q);
	const struct frame *f = frame_get(q, 1);
	if (f && (!qz_in_program(q, f->pc) || !f->has_cfa))
		f = NULL;   /* a library's guard: not the program's arrays */
	uint64_t slot = f ? stk_guard_slot(q, f, ret) : 0;
	struct det_event e = { .ev = EV_CANARY, .f = { [F_ADDR] = slot }, .site = ret,
			       .fn = f && f->func ? f->func->name : "a function",
			       .loc_mem = slot != 0 };
	struct sbuf obj = {0}, out = {0};
	if (f) {
		struct stk_frame sf = { f->func, f->pc - 1, f->cfa };
		if (stk_name_obj(q, &sf, slot ? slot : f->cfa - 8, &obj, &e.f[F_OVER]))
			e.obj = obj.s;
	}
	bool fired = det_fire(q, &e, &out);
	sbuf_free(&obj);
	if (!fired) {
		sbuf_free(&out);
		return RUN_AGAIN;
	}
	uint64_t sp = r->rsp + 8;
	if (det_rewind_to_call(q, ret, "__stack_chk_fail")) {
		st->skip_sp = sp;
		st->skip_ret = ret;
	}
	return det_stop(q, &out);
}

static bool stk_is_ret(struct qz *q, uint64_t pc)
{
	uint8_t code[16];
	struct dis_insn d;
	return qz_read(q, pc, code, sizeof code) == 0 && dis_decode(code, sizeof code, pc, &d) &&
	       d.is_ret;
}

/* The function whose ret the recording's last record is (the partial
 * smash's returning function, whose frame is gone): its pc, or 0. */
static uint64_t stk_recorded_ret(struct qz *q)
{
	uint64_t n = slice_view_count(q), pc = 0;
	struct slice_view *v = n ? slice_view_open(q) : NULL;
	struct slice_view_rec r;
	for (uint64_t i = n; v && i-- > 0 && n - i <= 2;)
		if (slice_view_get(v, i, &r) && !strcmp(r.text, "ret")) {
			pc = r.pc;
			break;
		}
	if (v)
		slice_view_close(v);
	return pc;
}

bool det_stack_smash(struct qz *q, struct detect_state *st, int code, uint64_t fault_addr,
		     struct sbuf *out)
{
	uint64_t pc = proc_pc(q->proc), sp = proc_regs(q->proc)->rsp, slot, value;
	bool at_ret = code == SI_KERNEL && qz_in_program(q, pc) && stk_is_ret(q, pc);
	if (at_ret)
		slot = sp;   /* the ret could not jump: rsp still points at it */
	else if (fault_addr == pc && (code == SEGV_MAPERR || code == SEGV_ACCERR))
		slot = sp - 8;
	else
		return false;
	if (qz_read(q, slot, &value, 8) < 0 || (!at_ret && value != pc))
		return false;
	st->events[EV_SMASH]++;
	frame_invalidate(q);
	/* after the jump the returning function is known only from a recording */
	uint64_t ret_pc = at_ret ? pc : stk_recorded_ret(q);
	struct stk_frame sf = { NULL, ret_pc, slot + 8 };
	if (ret_pc && qz_in_program(q, ret_pc) && q->exe.di)
		sf.func = di_func_at(q->exe.di, ret_pc - q->exe.bias);
	struct det_event e = { .ev = EV_SMASH, .f = { [F_ADDR] = slot, [F_RESULT] = value },
			       .site = sf.func ? ret_pc + 1 : 0, .loc_mem = true,
			       .fn = sf.func ? sf.func->name : "a function" };
	struct sbuf obj = {0};
	if (stk_name_obj(q, &sf, slot, &obj, &e.f[F_OVER]))
		e.obj = obj.s;
	bool fired = det_fire(q, &e, out);
	sbuf_free(&obj);
	return fired;
}
