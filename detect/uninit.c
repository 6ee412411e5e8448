/* uninit: the uninit event, memcheck's definedness coarsened. Memory
 * nothing wrote is undefined: a malloc'd block (not calloc's) and, at
 * each entry of a function of the program, the dead stack below rsp
 * (UN_FRAME bytes: its frame-to-be). A bit per byte says so (pages made
 * on first use, like shadow.c's; no page: defined). Registers carry a bit
 * per byte (xmm: 16), the flags one. The program's own instructions
 * propagate them: a plain move byte by byte (mov, push/pop, movzx,
 * vector moves), any other instruction makes all it defines undefined
 * when any byte it used was; zero idioms define. Reported, before the
 * instruction runs, only where the value decides something: a
 * conditional branch on undefined flags, an address formed from an
 * undefined register, a system call whose number or argument is
 * undefined (not every copy: copying a struct's padding is fine).
 *
 * Library code is trusted, as memcheck's suppressions and its
 * partial-loads rule would have it: what a library instruction writes,
 * register or memory, is defined (glibc's SSE strlen reads whole 16-byte
 * words past a string's end, inside the block, and its result does not
 * depend on the bytes it ignored). A value undefined in a register the
 * library does not touch stays so: the arguments a system call wrapper
 * passes on. System calls' writes (slice/sys.c's table: a read fills its
 * buffer) define memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect-int.h"
#include "target/run.h"
#include "target/session.h"
#include "util/util.h"

#define UN_PAGE_SHIFT DET_PAGE_SHIFT
#define UN_FRAME 1024u
#define R_RSP 4
#define R_VEC0 16
#define R_FLAGS 56
#define GPRS 0xffffull
#define XMMS (0xffffull << R_VEC0)

/* ---- the bitmap of undefined bytes ---- */

static uint8_t *un_page(struct det_undef *u, uint64_t addr, bool make)
{
	return det_page(&u->pages, addr, make);
}

/* Bytes [addr, addr+len) undefined (bits: bit i for byte i, from 0;
 * bytes past bit 31 as bit 31) or defined. */
static void un_set(struct det_undef *u, uint64_t addr, uint64_t len, uint32_t bits)
{
	if (!bits && (addr + len <= u->pages.lo || addr >= u->pages.hi))
		return;
	for (uint64_t i = 0; i < len; i++) {
		uint64_t a = addr + i;
		bool undef = (bits >> (i < 31 ? i : 31)) & 1;
		uint8_t *p = un_page(u, a, undef);
		if (!p) {   /* defined where nothing is known */
			i += ((a | ((1ull << UN_PAGE_SHIFT) - 1)) - a);
			continue;
		}
		uint64_t off = a & ((1ull << UN_PAGE_SHIFT) - 1);
		if (undef)
			p[off >> 3] |= (uint8_t)(1u << (off & 7));
		else
			p[off >> 3] &= (uint8_t)~(1u << (off & 7));
	}
}

/* The undefined bytes of [addr, addr+len) as bits (byte i: bit i, past
 * 31 folded into bit 31). */
static uint32_t un_get(struct det_undef *u, uint64_t addr, uint64_t len)
{
	if (addr + len <= u->pages.lo || addr >= u->pages.hi)
		return 0;
	uint32_t bits = 0;
	for (uint64_t i = 0; i < len; i++) {
		uint64_t a = addr + i;
		const uint8_t *p = un_page(u, a, false);
		uint64_t off = a & ((1ull << UN_PAGE_SHIFT) - 1);
		if (p && (p[off >> 3] >> (off & 7)) & 1)
			bits |= 1u << (i < 31 ? i : 31);
	}
	return bits;
}

void det_undef_reset(struct det_undef *u)
{
	hmap_free(&u->said);
	det_pages_free(&u->pages);
	memset(u, 0, sizeof *u);
}

/* ---- events from the heap and the kernel ---- */

void det_un_alloc(struct detect_state *st, const struct det_block *b, bool zeroed)
{
	if (st->un_on && b->size)
		un_set(&st->un, b->addr, b->size, zeroed ? 0 : ~0u);
}

void det_un_sys(void *ctx, uint64_t addr, uint64_t len)
{
	struct detect_state *st = ctx;
	if (st->un_on && len)
		un_set(&st->un, addr, len, 0);
}

/* ---- registers ---- */

static uint32_t full(int r)
{
	return r >= R_VEC0 && r < R_VEC0 + 16 ? 0xffff : r < 16 ? 0xff : 1;
}

static bool tracked(int r)
{
	return (r < 16 && r != R_RSP) || (r >= R_VEC0 && r < R_VEC0 + 16) || r == R_FLAGS;
}

static bool is_move(const char *t)
{
	static const char *const moves[] = {
		"mov", "movq", "movd", "movabs", "push", "pop", "movzx", "movdqu", "movdqa",
		"movups", "movaps", "movupd", "movapd", "movss", "movsd", "lddqu", "movlps",
		"movhps", "movlpd", "movhpd", "vmovdqu", "vmovdqa", "vmovups", "vmovaps", "vmovq",
		"vmovd",
	};
	for (size_t i = 0; i < sizeof moves / sizeof moves[0]; i++)
		if (!strcmp(t, moves[i]))
			return true;
	return false;
}

/* System calls' argument counts (the ones checked beyond the number);
 * -1: not known, none checked. */
static int sys_nargs(uint64_t nr)
{
	switch (nr) {
	case 0: case 1: case 8: case 16: case 19: case 20: case 217: return 3;
	case 3: case 12: case 60: case 231: return 1;
	case 9: return 6;
	case 10: return 3;
	case 11: return 2;
	case 17: case 18: return 4;
	case 257: return 3;
	default: return -1;
	}
}

static const int sys_arg_reg[6] = { 7, 6, 2, 10, 8, 9 };   /* rdi rsi rdx r10 r8 r9 */

/* ---- the check: reports, then propagation ---- */

static bool un_report(struct detect_state *st, const char *use, int reg)
{
	st->un_use = use;
	st->un_reg = reg;
	st->un_orig = reg >= 0 ? st->un_vo[reg] : 0;
	return true;
}

/* Would the instruction use an undefined value where it decides? */
static bool un_decides(struct detect_state *st, const struct slice_view_access *a)
{
	if (a->kind == SLICE_VIEW_SYSCALL) {   /* fire decides, from the number */
		uint32_t any = st->un_vb[0];
		for (int i = 0; i < 6; i++)
			any |= st->un_vb[sys_arg_reg[i]];
		return any && un_report(st, NULL, -1);
	}
	if (!a->user)
		return false;
	if (a->kind == SLICE_VIEW_JCC && st->un_vb[R_FLAGS]) {
		un_report(st, "a conditional branch", st->un_flag_reg);
		st->un_orig = st->un_vo[R_FLAGS];
		return true;
	}
	for (int m = 0; m < a->nmem; m++) {
		int regs[2] = { a->mem[m].base, a->mem[m].index };
		for (int k = 0; k < 2; k++)
			if (regs[k] < 16 && regs[k] != R_RSP && st->un_vb[regs[k]])
				return un_report(st, "an address", regs[k]);
	}
	if (a->kind == SLICE_VIEW_JMP_IND || a->kind == SLICE_VIEW_CALL_IND)
		for (int r = 0; r < 16; r++)
			if (((a->use >> r) & 1) && r != R_RSP && st->un_vb[r])
				return un_report(st, "the target of a jump", r);
	return false;
}

/* A bit-field operation: and, or, test or bt with a constant mask. The
 * bits it keeps or tests are known only to memcheck's bit-exact rules; a
 * byte's other bits are often never written (a struct's bit-fields set
 * one by one: `orb $0x2,0x50(%rbx)`), so its result counts as defined
 * (an undefined bit the mask keeps goes unseen). */
static bool bit_mask_op(const struct slice_view_access *a)
{
	static const char *const ops[] = { "and", "or", "test", "bt", "bts", "btr", "btc" };
	if (!a->imm)
		return false;
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
		if (!strcmp(a->text, ops[i]))
			return true;
	return false;
}

static void un_def_all(struct detect_state *st, uint64_t def, uint32_t undef, uint64_t orig,
		       int from)
{
	for (uint64_t d = def; d; d &= d - 1) {
		int r = __builtin_ctzll(d);
		if (!tracked(r))
			continue;
		st->un_vb[r] = undef ? full(r) : 0;
		st->un_vo[r] = orig;
		if (r == R_FLAGS)
			st->un_flag_reg = from;
	}
}

static void un_propagate(struct detect_state *st, const struct slice_view_access *a)
{
	uint64_t defs = a->def & ~a->cond_def;
	if (a->kind == SLICE_VIEW_SYSCALL) {
		st->un_vb[0] = st->un_vb[1] = st->un_vb[11] = 0;   /* rax rcx r11 */
		return;
	}
	if (!a->user || a->zero_idiom || bit_mask_op(a)) {   /* trusted, or defined by itself */
		un_def_all(st, a->def, 0, 0, -1);
		for (int m = 0; m < a->nmem; m++)
			if (a->mem[m].rw & 2)
				un_set(&st->un, a->mem[m].addr, a->mem[m].size, 0);
		return;
	}
	uint64_t addr_regs = 1ull << R_RSP;
	uint32_t ld = 0;
	uint64_t ld_orig = 0;
	unsigned ld_size = 0;
	for (int m = 0; m < a->nmem; m++) {
		if (a->mem[m].base < 64)
			addr_regs |= 1ull << a->mem[m].base;
		if (a->mem[m].index < 64)
			addr_regs |= 1ull << a->mem[m].index;
		if (a->mem[m].rw & 1) {
			uint32_t b = un_get(&st->un, a->mem[m].addr, a->mem[m].size);
			if (b && !ld)
				ld_orig = a->mem[m].addr + (uint64_t)__builtin_ctz(b);
			ld |= b;
			ld_size = a->mem[m].size;
		}
	}
	uint64_t data = a->use & ~addr_regs;
	int src = -1;
	uint32_t src_bits = 0;
	uint64_t src_orig = ld_orig;
	for (uint64_t d = data; d; d &= d - 1) {
		int r = __builtin_ctzll(d);
		if (tracked(r) && st->un_vb[r]) {
			if (src < 0)
				src = r, src_orig = ld ? ld_orig : st->un_vo[r];
			src_bits |= st->un_vb[r];
		}
	}
	int dst = -1;
	for (uint64_t d = defs & (GPRS | XMMS) & ~(1ull << R_RSP); d && dst < 0; d &= d - 1)
		dst = __builtin_ctzll(d);
	if (a->kind == SLICE_VIEW_CALL) {   /* the return address it pushes */
		for (int m = 0; m < a->nmem; m++)
			un_set(&st->un, a->mem[m].addr, a->mem[m].size, 0);
		return;
	}
	if (!strncmp(a->text, "movs", 4) && a->nmem == 2) {   /* a string copy */
		int r = (a->mem[0].rw & 1) ? 0 : 1;
		un_set(&st->un, a->mem[!r].addr, a->mem[!r].size,
		       un_get(&st->un, a->mem[r].addr, a->mem[r].size));
		return;
	}
	if (is_move(a->text)) {
		int one = -1;   /* the register a store or register move copies */
		for (uint64_t d = data & (GPRS | XMMS); d; d &= d - 1)
			one = one < 0 ? __builtin_ctzll(d) : 64;
		uint32_t v = one >= 0 && one < 64 ? st->un_vb[one] : one == 64 ? ~0u : 0;
		for (int m = 0; m < a->nmem; m++)
			if (a->mem[m].rw & 2)
				un_set(&st->un, a->mem[m].addr, a->mem[m].size, v);
		if (dst >= 0) {
			uint32_t nv = ld_size ? ld : v;
			if (ld_size && dst < 16 && ld_size < 4 && strcmp(a->text, "movzx"))
				nv |= st->un_vb[dst] & ~((1u << ld_size) - 1);   /* keeps its upper bytes */
			st->un_vb[dst] = nv & full(dst);
			st->un_vo[dst] = ld_size ? ld_orig : one >= 0 && one < 64 ? st->un_vo[one] : 0;
		}
		return;
	}
	bool undef = ld || src_bits;
	uint64_t orig = ld ? ld_orig : src_orig;
	/* the pointers a string instruction steps (rsi, rdi) and its count
	 * depend on themselves, not on the data */
	uint64_t keep = addr_regs | (a->nmem && !strncmp(a->text, "rep", 3) ? 2 : 0);
	if (a->nmem && (!strncmp(a->text, "stos", 4) || !strncmp(a->text, "lods", 4) ||
			!strncmp(a->text, "scas", 4) || !strncmp(a->text, "cmps", 4)))
		keep |= 2;   /* rcx */
	un_def_all(st, defs & ~keep, undef, orig, ld ? -1 : src);
	for (uint64_t d = a->cond_def; undef && d; d &= d - 1) {   /* cmov: may define */
		int r = __builtin_ctzll(d);
		if (tracked(r))
			st->un_vb[r] = full(r), st->un_vo[r] = orig;
	}
	for (int m = 0; m < a->nmem; m++)
		if (a->mem[m].rw & 2)
			un_set(&st->un, a->mem[m].addr, a->mem[m].size, undef ? ~0u : 0);
}

bool det_un_check(struct detect_state *st, const struct slice_view_access *a)
{
	if (a->user && st->un_after_call)   /* a function of the program entered */
		un_set(&st->un, a->sp - UN_FRAME, UN_FRAME, ~0u);
	st->un_after_call = a->kind == SLICE_VIEW_CALL || a->kind == SLICE_VIEW_CALL_IND;
	if (!a->again && !hmap_get(&st->un.said, a->pc) && un_decides(st, a)) {
		st->un_after_call = false;
		return true;
	}
	un_propagate(st, a);
	return false;
}

/* The text of where the undefined value came from. */
static void un_origin(struct qz *q, struct detect_state *st, uint64_t o, char *buf, size_t len)
{
	const struct det_block *b = NULL;
	for (size_t i = 0; o && i < st->nall && !b; i++)
		if (st->all[i]->live && o >= st->all[i]->addr && o < st->all[i]->addr + st->all[i]->size)
			b = st->all[i];
	if (b) {
		char site[256];
		det_site_text(q, b->alloc_site, site, sizeof site);
		snprintf(buf, len, "%llu bytes into a %llu-byte block allocated at %s by %s",
			 (unsigned long long)(o - b->addr), (unsigned long long)b->size, site,
			 b->alloc_fn[0] ? b->alloc_fn : "?");
	} else if (o && o >= proc_regs(q->proc)->rsp - UN_FRAME * 64 && o < 0x800000000000ull &&
		   o > 0x7f0000000000ull) {
		snprintf(buf, len, "the stack at 0x%llx", (unsigned long long)o);
	} else if (o) {
		snprintf(buf, len, "0x%llx", (unsigned long long)o);
	} else {
		snprintf(buf, len, "memory");
	}
}

/* A system call with an undefined register: its number, or one of the
 * arguments it takes? false: neither (a register it ignores). */
static bool un_sys_decides(struct qz *q, struct detect_state *st)
{
	if (st->un_vb[0]) {
		st->un_use = "the number of a system call";
		st->un_reg = 0;
	} else {
		char name[32];
		int n = sys_nargs(proc_regs(q->proc)->rax);
		slice_view_sys_name((long)proc_regs(q->proc)->rax, name, sizeof name);
		st->un_reg = -1;
		for (int i = 0; i < n && st->un_reg < 0; i++)
			if (st->un_vb[sys_arg_reg[i]])
				st->un_reg = sys_arg_reg[i];
		if (st->un_reg < 0)
			return false;
		for (int i = 0; i < 6; i++)
			if (sys_arg_reg[i] == st->un_reg)
				snprintf(st->un_what, sizeof st->un_what, "argument %d of %s", i + 1, name);
		st->un_use = st->un_what;
	}
	st->un_orig = st->un_vo[st->un_reg];
	return true;
}

int det_un_fire(struct qz *q, struct detect_state *st, uint64_t pc)
{
	bool in_program;
	if (!st->un_use && !un_sys_decides(q, st))
		return RUN_STEPPED;
	struct det_event e = { .ev = EV_UNINIT, .f = { [F_ADDR] = st->un_orig } };
	e.site = det_fault_site(q, pc, &in_program);
	e.access = st->un_use;
	if (st->un_reg >= 0 && st->un_reg < 16 && in_program) {
		e.reg[F_ADDR] = 1 + st->un_reg;
		e.faulted = pc;
	} else if (st->un_orig && in_program) {
		e.loc_mem = true;   /* the chain of the bytes it was read from */
	}
	/* once a site (memcheck too): the value is defined from here on */
	hmap_put(&st->un.said, pc, (void *)1);
	if (st->un_reg >= 0)
		st->un_vb[st->un_reg] = 0;
	st->un_vb[R_FLAGS] = 0;
	un_origin(q, st, st->un_orig, st->un_from, sizeof st->un_from);
	e.origin = st->un_from;
	st->events[EV_UNINIT]++;
	struct sbuf out = {0};
	if (!det_fire(q, &e, &out)) {
		sbuf_free(&out);
		return RUN_STEPPED;
	}
	return det_stop(q, &out);
}
