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

#define UN_SPAN (1ull << UN_PAGE_SHIFT)   /* bytes a page covers, a bit each */

static uint64_t *un_page(struct det_undef *u, uint64_t addr, bool make)
{
	return (uint64_t *)(void *)det_page(&u->pages, addr, make);
}

static uint64_t un_low(uint64_t cnt)
{
	return cnt >= 64 ? ~0ull : (1ull << cnt) - 1;
}

/* The cnt bits (cnt <= 64) for the bytes i, i+1, ... of a range whose
 * bytes are bits (byte i: bit i, bytes past 31 as bit 31). */
static uint64_t un_spread(uint32_t bits, uint64_t i, uint64_t cnt)
{
	if (!bits || bits == ~0u)
		return bits ? un_low(cnt) : 0;
	uint64_t v = i < 31 ? (uint64_t)bits >> i : 0;
	if (bits >> 31) {
		uint64_t from = i < 31 ? 31 - i : 0;
		v |= ~un_low(from);
	}
	return v & un_low(cnt);
}

/* Bits c of bytes i, i+1, ... folded into a range's 32 (past 31: bit 31). */
static uint32_t un_fold(uint64_t c, uint64_t i)
{
	if (!c)
		return 0;
	if (i >= 31)
		return 1u << 31;
	uint32_t v = (uint32_t)(c << i);
	if (c >> (31 - i))
		v |= 1u << 31;
	return v;
}

/* un_set's bytes [addr, addr+len) across words or pages, or with bits. */
static __attribute__((noinline)) void un_set_span(struct det_undef *u, uint64_t addr, uint64_t len,
						   uint32_t bits)
{
	for (uint64_t i = 0; i < len;) {
		uint64_t a = addr + i, off = a & (UN_SPAN - 1);
		uint64_t n = len - i < UN_SPAN - off ? len - i : UN_SPAN - off;
		uint64_t *p = un_page(u, a, bits != 0);
		for (uint64_t k = 0; p && k < n;) {   /* no page: defined, nothing to do */
			uint64_t bit = off + k, b0 = bit & 63, cnt = 64 - b0 < n - k ? 64 - b0 : n - k;
			if (!b0 && cnt == 64 && (!bits || bits == ~0u)) {   /* whole words alike */
				uint64_t words = (n - k) / 64;
				memset(&p[bit >> 6], bits ? 0xff : 0, words * 8);
				k += words * 64;
				continue;
			}
			uint64_t m = un_low(cnt) << b0;
			p[bit >> 6] = (p[bit >> 6] & ~m) | (un_spread(bits, i + k, cnt) << b0);
			k += cnt;
		}
		i += n;
	}
}

/* Bytes [addr, addr+len) undefined (bits: bit i for byte i, from 0;
 * bytes past bit 31 as bit 31) or defined: a word of the bitmap at a time.
 * A store (defined, one word) inline: one for each of the program's. */
static inline void un_set(struct det_undef *u, uint64_t addr, uint64_t len, uint32_t bits)
{
	if (!len || addr + len < addr ||
	    (!bits && (addr + len <= u->pages.lo || addr >= u->pages.hi)))
		return;
	uint64_t bit = addr & (UN_SPAN - 1);
	if (!bits && (bit & 63) + len <= 64) {
		uint64_t *p = un_page(u, addr, false);
		if (p)
			p[bit >> 6] &= ~(un_low(len) << (bit & 63));
		return;
	}
	un_set_span(u, addr, len, bits);
}

/* un_get's bytes across words or pages, or more than 31. */
static __attribute__((noinline)) uint32_t un_get_span(struct det_undef *u, uint64_t addr,
						       uint64_t len)
{
	uint32_t out = 0;
	for (uint64_t i = 0; i < len;) {
		uint64_t a = addr + i, off = a & (UN_SPAN - 1);
		uint64_t n = len - i < UN_SPAN - off ? len - i : UN_SPAN - off;
		const uint64_t *p = un_page(u, a, false);
		for (uint64_t k = 0; p && k < n;) {
			uint64_t bit = off + k, b0 = bit & 63, cnt = 64 - b0 < n - k ? 64 - b0 : n - k;
			out |= un_fold((p[bit >> 6] >> b0) & un_low(cnt), i + k);
			k += cnt;
		}
		i += n;
	}
	return out;
}

/* The undefined bytes of [addr, addr+len) as bits (byte i: bit i, past
 * 31 folded into bit 31). One word of one page inline: a load's. */
static inline uint32_t un_get(struct det_undef *u, uint64_t addr, uint64_t len)
{
	if (addr + len <= u->pages.lo || addr >= u->pages.hi || addr + len < addr)
		return 0;
	uint64_t bit = addr & (UN_SPAN - 1);
	if (len && len <= 31 && (bit & 63) + len <= 64) {
		const uint64_t *p = un_page(u, addr, false);
		return p ? (uint32_t)((p[bit >> 6] >> (bit & 63)) & un_low(len)) : 0;
	}
	return un_get_span(u, addr, len);
}

void det_undef_reset(struct det_undef *u)
{
	hmap_free(&u->said);
	det_pages_free(&u->pages);
	det_pages_free(&u->orig);
	memset(u, 0, sizeof *u);
}

/* ---- where a stored undefined value came from ---- */

#define UN_ORIG_SHIFT 12   /* a page of 512 origins covers 4 KiB */

static uint64_t *un_orig_page(struct det_undef *u, uint64_t addr, bool make)
{
	u->orig.shift = UN_ORIG_SHIFT;
	return (uint64_t *)(void *)det_page(&u->orig, addr, make);
}

/* The granules of [addr, addr+len) hold a value first read at o (0:
 * their own bytes, nothing wrote them). */
static void un_orig_put(struct det_undef *u, uint64_t addr, uint64_t len, uint64_t o)
{
	if (!len || addr + len < addr || (!o && !u->orig.map.n))
		return;
	const uint64_t span = 1ull << UN_ORIG_SHIFT;
	for (uint64_t g = addr & ~7ull, end = addr + len; g < end;) {   /* a page at a time */
		uint64_t stop = (g | (span - 1)) + 1 < end ? (g | (span - 1)) + 1 : end;
		uint64_t *p = un_orig_page(u, g, o != 0);
		for (uint64_t i = (g & (span - 1)) >> 3; p && g < stop; g += 8)
			p[i++] = o;
		g = stop > g ? (stop + 7) & ~7ull : g;
	}
}

/* Where the undefined byte at addr was first read: its own address when
 * no register stored it there. */
static uint64_t un_orig_get(struct det_undef *u, uint64_t addr)
{
	const uint64_t *p = u->orig.map.n ? un_orig_page(u, addr, false) : NULL;
	uint64_t o = p ? p[(addr >> 3) & ((1u << (UN_ORIG_SHIFT - 3)) - 1)] : 0;
	return o ? o : addr;
}

/* ---- events from the heap and the kernel ---- */

void det_un_alloc(struct detect_state *st, const struct det_block *b, bool zeroed)
{
	if (st->un_on && b->size) {
		un_set(&st->un, b->addr, b->size, zeroed ? 0 : ~0u);
		un_orig_put(&st->un, b->addr, b->size, 0);
	}
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

/* Register r's undefined bytes are bits, read from orig. */
static void un_reg(struct detect_state *st, int r, uint32_t bits, uint64_t orig)
{
	st->un_vb[r] = bits;
	st->un_vo[r] = orig;
	if (bits)
		st->un_regs |= 1ull << r;
	else
		st->un_regs &= ~(1ull << r);
}

void det_un_regs_clear(struct detect_state *st)
{
	memset(st->un_vb, 0, sizeof st->un_vb);
	st->un_regs = 0;
	st->un_every = st->un_switch = false;
}

/* What propagation needs to know of a mnemonic. */
enum {
	UK_MOVE = 1,       /* copies byte by byte */
	UK_MASK = 2,       /* with a constant: a bit-field operation (bit_mask_op) */
	UK_BITWISE = 4,    /* and, or, xor (un_bitwise) */
	UK_STRCOPY = 8,    /* movs*: memory to memory (with two operands) */
	UK_REP = 16,       /* rep*: its count register is its own */
	UK_STRSTEP = 32,   /* stos, lods, scas, cmps: rcx is their own */
};

/* The mnemonic's UK_ set, from the table. */
static unsigned un_kind_scan(const char *t)
{
	static const struct { const char *name; unsigned kind; bool prefix; } kinds[] = {
		{ "mov", UK_MOVE, 0 }, { "movq", UK_MOVE, 0 }, { "movd", UK_MOVE, 0 },
		{ "movabs", UK_MOVE, 0 }, { "push", UK_MOVE, 0 }, { "pop", UK_MOVE, 0 },
		{ "movzx", UK_MOVE, 0 }, { "movdqu", UK_MOVE, 0 }, { "movdqa", UK_MOVE, 0 },
		{ "movups", UK_MOVE, 0 }, { "movaps", UK_MOVE, 0 }, { "movupd", UK_MOVE, 0 },
		{ "movapd", UK_MOVE, 0 }, { "movss", UK_MOVE, 0 }, { "movsd", UK_MOVE, 0 },
		{ "lddqu", UK_MOVE, 0 }, { "movlps", UK_MOVE, 0 }, { "movhps", UK_MOVE, 0 },
		{ "movlpd", UK_MOVE, 0 }, { "movhpd", UK_MOVE, 0 }, { "vmovdqu", UK_MOVE, 0 },
		{ "vmovdqa", UK_MOVE, 0 }, { "vmovups", UK_MOVE, 0 }, { "vmovaps", UK_MOVE, 0 },
		{ "vmovq", UK_MOVE, 0 }, { "vmovd", UK_MOVE, 0 },
		{ "and", UK_MASK | UK_BITWISE, 0 }, { "or", UK_MASK | UK_BITWISE, 0 },
		{ "xor", UK_BITWISE, 0 }, { "test", UK_MASK, 0 }, { "bt", UK_MASK, 0 },
		{ "bts", UK_MASK, 0 }, { "btr", UK_MASK, 0 }, { "btc", UK_MASK, 0 },
		{ "movs", UK_STRCOPY, 1 }, { "rep", UK_REP, 1 }, { "stos", UK_STRSTEP, 1 },
		{ "lods", UK_STRSTEP, 1 }, { "scas", UK_STRSTEP, 1 }, { "cmps", UK_STRSTEP, 1 },
	};
	unsigned k = 0;
	if (!t[0])
		return 0;
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		const char *n = kinds[i].name;
		if (n[0] == t[0] && n[1] == t[1] &&
		    (kinds[i].prefix ? !strncmp(t, n, strlen(n)) : !strcmp(t, n)))
			k |= kinds[i].kind;
	}
	return k;
}

/* The same, asked for each instruction propagated one by one: mnemonics
 * of up to 8 letters are remembered by their letters. */
static unsigned un_kind(const char *t)
{
	static struct { uint64_t key; unsigned kind; } seen[256];
	size_t n = strnlen(t, 9);
	if (n > 8 || !n)
		return un_kind_scan(t);
	uint64_t key = 0;
	memcpy(&key, t, n);
	size_t h = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 56);
	if (seen[h].key != key) {
		seen[h].key = key;
		seen[h].kind = un_kind_scan(t);
	}
	return seen[h].kind;
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
static bool bit_mask_op(const struct slice_view_access *a, unsigned kind)
{
	return a->imm && (kind & UK_MASK);
}

/* The bytes of register r the instruction reads, as a mask (xmm, flags:
 * all). A general register it writes only the low 1 or 2 bytes of is in
 * its use set for the bytes the write keeps (un_write's): not read here. */
static uint32_t un_read_bytes(const struct slice_view_access *a, int r)
{
	if (r >= 16)
		return full(r);
	unsigned rd = (a->gpr_rd >> (4 * r)) & 15, wr = (a->gpr_wr >> (4 * r)) & 15;
	if (!rd && (wr == 1 || wr == 2))
		return 0;
	return rd ? (1u << rd) - 1 : 0xff;
}

/* Register r written, its written bytes undefined as bits say: a 4-byte
 * write zeroes the upper half (defined), a 1- or 2-byte one keeps it
 * (memcheck's rule; a value moved with mov %esi,%r12d does not carry
 * the undefined upper half of rsi). */
static void un_write(struct detect_state *st, const struct slice_view_access *a, int r,
		     uint32_t bits, uint64_t orig)
{
	unsigned w = r < 16 ? (a->gpr_wr >> (4 * r)) & 15 : 0;
	uint32_t m = w ? (1u << w) - 1 : full(r), v = bits & m;
	if (w == 1 || w == 2)
		v |= st->un_vb[r] & ~m;
	un_reg(st, r, v & full(r), bits & m ? orig : st->un_vo[r]);
}

static void un_def_all(struct detect_state *st, const struct slice_view_access *a, uint64_t def,
		       bool undef, uint64_t orig, int from)
{
	for (uint64_t d = def; d; d &= d - 1) {
		int r = __builtin_ctzll(d);
		if (!tracked(r))
			continue;
		un_write(st, a, r, undef ? ~0u : 0, orig);
		if (r == R_FLAGS)
			st->un_flag_reg = from;
	}
}

/* One operand of un_bitwise: its undefined bytes, its value if known. */
struct un_opnd {
	uint32_t undef;
	bool known;
	uint64_t val;
};

static struct un_opnd un_reg_opnd(struct detect_state *st, const struct slice_view_access *a,
				  int r, uint32_t bytes)
{
	struct un_opnd o = { st->un_vb[r] & bytes, a->reg != NULL, 0 };
	if (o.known)
		o.val = a->reg(a->rctx, r);
	return o;
}

/* and, or, xor of general registers or memory, byte by byte: a result
 * byte is undefined if either operand's is, except (memcheck's rule, at
 * byte grain) where the other holds a defined 0x00 under and, 0xff under
 * or. Compilers merge a union's defined half into an undefined word so
 * (perl's parser: and with 0xffffffff00000000, then or). false: not such
 * an instruction (with an immediate: bit_mask_op's). */
static bool un_bitwise(struct detect_state *st, const struct slice_view_access *a, unsigned kind,
		       uint64_t data, uint32_t ld, unsigned ld_size, uint64_t ld_orig)
{
	if (!(kind & UK_BITWISE) || a->imm || (data & ~GPRS))
		return false;
	int op = a->text[0] == 'a' ? 1 : a->text[0] == 'o' ? 2 : 3;
	int regs[2], n = 0;
	for (uint64_t d = data; d && n < 2; d &= d - 1)
		regs[n++] = __builtin_ctzll(d);
	if (!n || n + (ld_size > 0) > 2)
		return false;
	unsigned wide = ld_size ? ld_size : (a->gpr_rd >> (4 * regs[0])) & 15;
	if (!wide || wide > 8)
		wide = 8;
	uint32_t bytes = (1u << wide) - 1;
	struct un_opnd o[2];
	o[0] = un_reg_opnd(st, a, regs[0], bytes);
	if (ld_size)
		o[1] = (struct un_opnd){ ld & bytes, false, 0 };
	else
		o[1] = n == 2 ? un_reg_opnd(st, a, regs[1], bytes) : o[0];
	uint32_t res = 0;
	for (unsigned i = 0; i < wide; i++) {
		bool u0 = (o[0].undef >> i) & 1, u1 = (o[1].undef >> i) & 1;
		uint8_t force = op == 1 ? 0x00 : 0xff;
		bool forced = op != 3 && ((!u0 && o[0].known && (uint8_t)(o[0].val >> (8 * i)) == force) ||
					  (!u1 && o[1].known && (uint8_t)(o[1].val >> (8 * i)) == force));
		if ((u0 || u1) && !forced)
			res |= 1u << i;
	}
	uint64_t orig = ld && (ld & bytes) ? ld_orig : 0;
	for (int k = 0; k < n && !orig; k++)
		if (st->un_vb[regs[k]] & bytes)
			orig = st->un_vo[regs[k]];
	un_reg(st, R_FLAGS, res ? 1 : 0, orig);
	st->un_flag_reg = n ? regs[0] : -1;
	for (uint64_t d = a->def & GPRS & ~(1ull << R_RSP); d; d &= d - 1)
		un_write(st, a, __builtin_ctzll(d), res, orig);
	for (int m = 0; m < a->nmem; m++)
		if (a->mem[m].rw & 2) {
			un_set(&st->un, a->mem[m].addr, a->mem[m].size, res);
			un_orig_put(&st->un, a->mem[m].addr, a->mem[m].size, res ? orig : 0);
		}
	return true;
}

static void un_propagate(struct detect_state *st, const struct slice_view_access *a)
{
	uint64_t defs = a->def & ~a->cond_def;
	unsigned kind = a->user ? un_kind(a->text) : 0;
	if (a->kind == SLICE_VIEW_SYSCALL) {
		un_reg(st, 0, 0, 0);   /* rax rcx r11 */
		un_reg(st, 1, 0, 0);
		un_reg(st, 11, 0, 0);
		return;
	}
	if (!a->user || a->zero_idiom || bit_mask_op(a, kind)) {   /* trusted, or defined by itself */
		un_def_all(st, a, a->def, false, 0, -1);
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
				ld_orig = un_orig_get(&st->un, a->mem[m].addr + (uint64_t)__builtin_ctz(b));
			ld |= b;
			ld_size = a->mem[m].size;
		}
	}
	uint64_t data = a->use & ~addr_regs;
	for (uint64_t d = data & GPRS; d; d &= d - 1)
		if (!un_read_bytes(a, __builtin_ctzll(d)))
			data &= ~(1ull << __builtin_ctzll(d));
	int src = -1;
	uint32_t src_bits = 0;
	uint64_t src_orig = ld_orig;
	for (uint64_t d = data; d; d &= d - 1) {
		int r = __builtin_ctzll(d);
		uint32_t b = tracked(r) ? st->un_vb[r] & un_read_bytes(a, r) : 0;
		if (b) {
			if (src < 0)
				src = r, src_orig = ld ? ld_orig : st->un_vo[r];
			src_bits |= b;
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
	if ((kind & UK_STRCOPY) && a->nmem == 2) {   /* a string copy */
		int r = (a->mem[0].rw & 1) ? 0 : 1;
		uint32_t bits = un_get(&st->un, a->mem[r].addr, a->mem[r].size);
		un_set(&st->un, a->mem[!r].addr, a->mem[!r].size, bits);
		un_orig_put(&st->un, a->mem[!r].addr, a->mem[!r].size,
			    bits ? un_orig_get(&st->un, a->mem[r].addr + (uint64_t)__builtin_ctz(bits)) : 0);
		return;
	}
	if (un_bitwise(st, a, kind, data, ld, ld_size, ld_orig))
		return;
	if (kind & UK_MOVE) {
		int one = -1;   /* the register a store or register move copies */
		for (uint64_t d = data & (GPRS | XMMS); d; d &= d - 1)
			one = one < 0 ? __builtin_ctzll(d) : 64;
		uint32_t v = one >= 0 && one < 64 ? st->un_vb[one] & un_read_bytes(a, one) :
			     one == 64 ? ~0u : 0;
		for (int m = 0; m < a->nmem; m++)
			if (a->mem[m].rw & 2) {
				un_set(&st->un, a->mem[m].addr, a->mem[m].size, v);
				un_orig_put(&st->un, a->mem[m].addr, a->mem[m].size,
					    v && one < 64 ? st->un_vo[one] : 0);
			}
		if (dst >= 0)   /* mov %al,(m) keeps the upper bytes; movzx zeroes them */
			un_write(st, a, dst, ld_size ? ld : v,
				 ld_size ? ld_orig : one >= 0 && one < 64 ? st->un_vo[one] : 0);
		return;
	}
	bool undef = ld || src_bits;
	uint64_t orig = ld ? ld_orig : src_orig;
	/* the pointers a string instruction steps (rsi, rdi) and its count
	 * depend on themselves, not on the data */
	uint64_t keep = addr_regs | (a->nmem && (kind & (UK_REP | UK_STRSTEP)) ? 2 : 0);   /* rcx */
	un_def_all(st, a, defs & ~keep, undef, orig, ld ? -1 : src);
	for (uint64_t d = a->cond_def; undef && d; d &= d - 1) {   /* cmov: may define */
		int r = __builtin_ctzll(d);
		if (tracked(r))
			un_write(st, a, r, ~0u, orig);
	}
	for (int m = 0; m < a->nmem; m++)
		if (a->mem[m].rw & 2) {
			un_set(&st->un, a->mem[m].addr, a->mem[m].size, undef ? ~0u : 0);
			un_orig_put(&st->un, a->mem[m].addr, a->mem[m].size, undef ? orig : 0);
		}
}

/* A call: the callee's frame-to-be, the dead stack below its return
 * address, is undefined (marked at the call, not at the callee's first
 * instruction, which the fast path may not see: the same bytes). A
 * library's callee too: what it writes there is defined, and the
 * program's next call marks the bytes again. */
static void un_call(struct detect_state *st, const struct slice_view_access *a)
{
	uint64_t sp = a->sp - 8;
	un_set(&st->un, sp - UN_FRAME, UN_FRAME, ~0u);
	un_orig_put(&st->un, sp - UN_FRAME, UN_FRAME, 0);
}

/* Does the program's instruction read an undefined byte of memory? (A
 * library's reads are trusted.) */
static bool un_loads_undef(struct detect_state *st, const struct slice_view_access *a)
{
	for (int m = 0; a->user && m < a->nmem; m++)
		if ((a->mem[m].rw & 1) && un_get(&st->un, a->mem[m].addr, a->mem[m].size))
			return true;
	return false;
}

/* Could propagating an undefined load into it leave a register
 * undefined? (A string copy or a bit-field operation cannot.) */
static bool un_may_taint(const struct slice_view_access *a)
{
	uint64_t regs = (GPRS | XMMS | (1ull << R_FLAGS)) & ~(1ull << R_RSP);
	unsigned kind = un_kind(a->text);
	return !a->zero_idiom && !bit_mask_op(a, kind) && (a->def & regs) &&
	       !((kind & UK_STRCOPY) && a->nmem == 2);
}

/* The check, before the instruction runs. While every register is
 * defined only memory matters: the watcher is asked for instructions
 * with memory operands alone (un_every off), stores define what they
 * write, and nothing can decide on an undefined value. A load of an
 * undefined byte into a register turns un_every on (every instruction
 * propagates, register by register) until no register holds an undefined
 * byte. When the engine runs some code without asking (hot loops),
 * turning it on waits for fire: check stops the machine before the load,
 * fire turns it on, and the load is asked again. */
bool det_un_check(struct detect_state *st, const struct slice_view_access *a)
{
	if (a->kind == SLICE_VIEW_CALL || a->kind == SLICE_VIEW_CALL_IND)
		un_call(st, a);
	if (!st->un_regs) {
		if (!un_loads_undef(st, a)) {   /* the fast path: stores define */
			for (int m = 0; m < a->nmem; m++)
				if (a->mem[m].rw & 2)
					un_set(&st->un, a->mem[m].addr, a->mem[m].size, 0);
			return false;
		}
		if (a->unhooked && !a->again && !st->un_every && un_may_taint(a)) {
			st->un_switch = true;
			return true;
		}
	} else if (!a->again && !hmap_get(&st->un.said, a->pc) && un_decides(st, a)) {
		return true;
	}
	bool was = st->un_regs != 0;
	st->un_slow++;
	un_propagate(st, a);
	st->un_switches += !was && st->un_regs;
	st->un_every = st->un_regs != 0;
	return false;
}

/* det_un_check's fast path for one load or store of an instruction the
 * emulator runs without asking (slice/view.h's quick): a store defines
 * what it writes; true for a load of an undefined byte, or while a
 * register holds one (every instruction must then be looked at). */
bool det_un_quick(struct detect_state *st, uint64_t addr, uint32_t size, bool store)
{
	if (st->un_regs)
		return true;
	if (store) {
		un_set(&st->un, addr, size, 0);
		return false;
	}
	return un_get(&st->un, addr, size) != 0;
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
	if (st->un_switch) {   /* check's stop: the load, asked again, propagates */
		st->un_switch = false;
		st->un_every = true;
		return RUN_STEPPED;
	}
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
		un_reg(st, st->un_reg, 0, 0);
	un_reg(st, R_FLAGS, 0, 0);
	st->un_every = st->un_regs != 0;
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
