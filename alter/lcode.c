/* lcode: a source line's machine code for switch, suppress and instance
 * counting. The line's rows in the line table (all of them, in the function
 * of its first address) give its ranges; a linear decode of the ranges gives
 * the branches and the exits. */
#include "lcode.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "dinfo/dinfo.h"
#include "dinfo/disasm.h"
#include "dinfo/lines.h"
#include "target/session.h"

bool lcode_fetch(struct qz_module *m, uint64_t a, uint64_t hi, struct dis_insn *d)
{
	uint8_t code[16];
	size_t n = sizeof code;
	if (!img_read(m->img, a, code, n)) {   /* near the end of its section */
		n = hi - a < n ? (size_t)(hi - a) : n;
		if (!img_read(m->img, a, code, n))
			return false;
	}
	return dis_decode(code, n, a, d);
}

static uint64_t lcode_func_of(void *arg, uint64_t addr)
{
	const struct di_func *f = arg ? di_func_at(arg, addr) : NULL;
	return f ? f->lo : 0;
}

static bool lcode_in_func(const struct di_func *f, uint64_t addr)
{
	for (size_t i = 0; i < f->nranges; i++)
		if (addr >= f->ranges[i].lo && addr < f->ranges[i].hi)
			return true;
	return addr >= f->lo && addr < f->hi;
}

bool lcode_inside(const struct lcode *lc, uint64_t addr)
{
	for (size_t i = 0; i < lc->nranges; i++)
		if (addr >= lc->ranges[i][0] && addr < lc->ranges[i][1])
			return true;
	return false;
}

static void lcode_add_range(struct lcode *lc, uint64_t lo, uint64_t hi)
{
	size_t n = lc->nranges;
	if (n && lc->ranges[n - 1][1] >= lo) {   /* rows come by address */
		if (hi > lc->ranges[n - 1][1])
			lc->ranges[n - 1][1] = hi;
		return;
	}
	lc->ranges = xrealloc(lc->ranges, (n + 1) * sizeof *lc->ranges);
	lc->ranges[n][0] = lo;
	lc->ranges[n][1] = hi;
	lc->nranges++;
}

/* Every row of the line inside function f, merged into ranges. strict:
 * leave out rows that a later row at the same address overrides (a stray
 * row of an optimised line); not strict: keep them (a call site whose
 * inlined body's first row shares its address). */
/* Which copy of the line code at addr belongs to: the inlined call it is
 * in (innermost), or NULL for f's own code. */
static const void *lcode_copy_key(const struct di_func *f, uint64_t addr)
{
	const struct di_inline *chain[8];
	return di_inline_chain(f, addr, chain, 8) ? chain[0] : NULL;
}

static void lcode_ranges(struct qz_module *m, const struct di_func *f, struct lcode *lc,
			 bool strict, const void *key)
{
	size_t n;
	const struct lines_row *rows = lines_rows(m->lines, &n);
	for (size_t i = 0; i < n; i++) {
		const struct lines_row *r = &rows[i];
		if (r->file != lc->file || r->line != lc->line || r->end <= r->addr)
			continue;
		if (strict && i + 1 < n && rows[i + 1].addr == r->addr)
			continue;
		if (lcode_in_func(f, r->addr) && lcode_copy_key(f, r->addr) == key)
			lcode_add_range(lc, r->addr, r->end);
	}
}

/* The line that follows the statement: the line of the row at hi, or
 * INT_MAX when that is another file or outside f. */
static int lcode_next_line(struct qz_module *m, const struct di_func *f,
			   const struct lcode *lc, uint64_t hi)
{
	const struct lines_row *r = lines_at(m->lines, hi);
	if (!r || r->file != lc->file || !lcode_in_func(f, hi) || r->line <= lc->line)
		return INT_MAX;
	return r->line;
}

/* Does a backward branch of [lo, hi) land in [glo, ghi)? Then that code
 * is a loop's body, not a continuation of the statement. */
static bool lcode_loops_into(struct qz_module *m, uint64_t lo, uint64_t hi,
			     uint64_t glo, uint64_t ghi)
{
	for (uint64_t a = lo; a < hi;) {
		struct dis_insn d;
		if (!lcode_fetch(m, a, hi, &d) || !d.len)
			return true;
		if ((d.is_jump || d.is_call) && d.has_target && d.target < a &&
		    d.target >= glo && d.target < ghi)
			return true;
		a += d.len;
	}
	return false;
}

/* Are rows [i, j) all continuation lines of the statement: the same file,
 * lines after its own and before the line that follows it? */
static bool lcode_rows_continue(const struct lines_row *rows, size_t i, size_t j,
				const struct lcode *lc, int next)
{
	for (size_t k = i; k < j; k++)
		if (rows[k].file != lc->file || rows[k].line <= lc->line || rows[k].line >= next)
			return false;
	return i < j;
}

/* A statement written over several lines (`sprintf(buf,\n fmt,\n x)`,
 * `if (a &&\n b)`): gcc gives the arguments or operands on the later lines
 * rows of their own, between the statement's rows or just before them.
 * Those rows belong to the statement: merge them into its ranges. A gap
 * that a backward branch enters is a loop body (a for header's two parts)
 * and stays out. Rows at -O2 of earlier lines (scheduled code) stay out. */
static void lcode_continue(struct qz_module *m, const struct di_func *f, struct lcode *lc)
{
	size_t n;
	const struct lines_row *rows = lines_rows(m->lines, &n);
	uint64_t lo = lc->ranges[0][0], hi = lc->ranges[lc->nranges - 1][1];
	int next = lcode_next_line(m, f, lc, hi);
	for (size_t g = lc->nranges - 1; g-- > 0;) {
		uint64_t glo = lc->ranges[g][1], ghi = lc->ranges[g + 1][0];
		size_t i = lines_lower_bound(m->lines, glo), j = lines_lower_bound(m->lines, ghi);
		if (!lcode_rows_continue(rows, i, j, lc, next) || lcode_loops_into(m, lo, hi, glo, ghi))
			continue;
		lc->ranges[g][1] = lc->ranges[g + 1][1];
		memmove(&lc->ranges[g + 1], &lc->ranges[g + 2],
			(lc->nranges - g - 2) * sizeof *lc->ranges);
		lc->nranges--;
	}
	size_t first = lines_lower_bound(m->lines, lo), i = first;
	while (i > 0 && rows[i - 1].end == rows[i].addr &&
	       lcode_in_func(f, rows[i - 1].addr) && rows[i - 1].addr != f->lo &&
	       lcode_rows_continue(rows, i - 1, i, lc, next))
		i--;
	if (i < first && !lcode_loops_into(m, lo, hi, rows[i].addr, lo))
		lc->ranges[0][0] = rows[i].addr;
}

struct lc_site *lcode_site(struct lcode *lc, uint64_t addr)
{
	for (size_t i = 0; i < lc->nsites; i++)
		if (lc->sites[i].addr == addr)
			return &lc->sites[i];
	return NULL;
}

static struct lc_site *lcode_site_get(struct lcode *lc, uint64_t addr)
{
	struct lc_site *s = lcode_site(lc, addr);
	if (s)
		return s;
	lc->sites = xrealloc(lc->sites, (lc->nsites + 1) * sizeof *lc->sites);
	s = &lc->sites[lc->nsites++];
	memset(s, 0, sizeof *s);
	s->addr = addr;
	s->cc = -2;
	return s;
}

static void lcode_exit(struct lcode *lc, uint64_t addr)
{
	for (size_t i = 0; i < lc->nexits; i++)
		if (lc->exits[i] == addr)
			return;
	if (lc->nexits < LC_MAX_EXITS)
		lc->exits[lc->nexits++] = addr;
}

/* The condition code of a jcc's encoding, -1 for jmp, -3 for jrcxz/loop
 * (not handled). Branch-hint and bnd prefixes are skipped. */
static int lcode_cc(const uint8_t *b, size_t len)
{
	size_t i = 0;
	while (i < len && (b[i] == 0x2e || b[i] == 0x3e || b[i] == 0xf2))
		i++;
	if (i < len && b[i] >= 0x70 && b[i] <= 0x7f)
		return b[i] & 0xf;
	if (i + 1 < len && b[i] == 0x0f && b[i + 1] >= 0x80 && b[i + 1] <= 0x8f)
		return b[i + 1] & 0xf;
	if (i < len && (b[i] == 0xeb || b[i] == 0xe9))
		return -1;
	return -3;
}

/* One instruction: record the branch and the successors outside the line. */
static int lcode_insn(struct qz *q, struct lcode *lc, const struct dis_insn *d,
		      const uint8_t *code)
{
	uint64_t next = d->addr + d->len;
	if (d->is_ret) {
		lc->exit_ret = true;
		return 0;
	}
	if (!d->is_jump) {
		if (!lcode_inside(lc, next) && !lc->fallout &&
		    strncmp(d->mnemonic, "ud2", 3) && strncmp(d->mnemonic, "hlt", 3))
			lc->fallout = d->addr;
		if (!lcode_inside(lc, next))
			lcode_exit(lc, next);
		return 0;
	}
	if (!d->has_target) {
		lc->exit_indirect = true;
		return 0;
	}
	int cc = lcode_cc(code, d->len);
	if (cc == -3)
		return qz_error(q, "Line %d uses a %s branch, which alter does not handle.",
				lc->line, d->mnemonic);
	struct lc_site *s = lcode_site_get(lc, d->addr);
	s->cc = cc;
	s->target = d->target;
	s->next = next;
	if (!lcode_inside(lc, d->target))
		lcode_exit(lc, d->target);
	if (cc >= 0 && !lcode_inside(lc, next))
		lcode_exit(lc, next);
	return 0;
}

/* A gcc jump table in the line (`cmp $K,...; ja default; lea T(%rip);
 * ... jmp *reg`, entries int32 offsets from T): its targets become exits,
 * so the refusal can name them. */
static void lcode_jump_table(struct qz_module *m, struct lcode *lc)
{
	uint64_t table = 0;
	int64_t k = -1;
	for (size_t i = 0; i < lc->nranges; i++) {
		for (uint64_t a = lc->ranges[i][0]; a < lc->ranges[i][1];) {
			struct dis_insn d;
			if (!lcode_fetch(m, a, lc->ranges[i][1], &d))
				return;
			if (str_starts(d.mnemonic, "lea") && d.rip_relative)
				table = d.rip_target;
			if (str_starts(d.mnemonic, "cmp") && d.operands[0] == '$')
				k = strtoll(d.operands + 1, NULL, 0);
			a += d.len;
		}
	}
	for (int64_t e = 0; table && e <= k && e < 256; e++) {
		int32_t off;
		if (!img_read(m->img, table + 4 * (uint64_t)e, &off, sizeof off))
			return;
		lcode_exit(lc, table + (uint64_t)(int64_t)off);
	}
}

/* The condition code of a setcc (0F 90+cc) or cmovcc (0F 40+cc) after
 * its prefixes, or -1. */
static int lcode_flip_cc(const uint8_t *b, size_t len)
{
	size_t i = 0;
	while (i < len && (b[i] == 0x66 || (b[i] & 0xf0) == 0x40))
		i++;
	if (i + 1 < len && b[i] == 0x0f && ((b[i + 1] & 0xf0) == 0x90 || (b[i + 1] & 0xf0) == 0x40))
		return b[i + 1] & 0xf;
	return -1;
}

/* A branchless decision: switched by flipping the flags it reads. */
static void lcode_flip_site(struct lcode *lc, const struct dis_insn *d, const uint8_t *code)
{
	int cc = lcode_flip_cc(code, d->len);
	if (cc < 0 || !(str_starts(d->mnemonic, "set") || str_starts(d->mnemonic, "cmov")))
		return;
	struct lc_site *s = lcode_site_get(lc, d->addr);
	s->roles |= LC_FLIP;
	s->flip_cc = cc;
	lc->nflips++;
}

static void lcode_note(struct lcode *lc, const struct dis_insn *d, const uint8_t *code)
{
	lc->insns = xrealloc(lc->insns, (lc->ninsns + 1) * sizeof *lc->insns);
	struct lc_insn *in = &lc->insns[lc->ninsns++];
	in->addr = d->addr;
	in->next = d->addr + d->len;
	in->cc = d->is_jump && d->has_target ? lcode_cc(code, d->len) : -4;
	in->target = d->target;
}

static int lcode_decode(struct qz *q, struct qz_module *m, struct lcode *lc)
{
	for (size_t i = 0; i < lc->nranges; i++) {
		for (uint64_t a = lc->ranges[i][0]; a < lc->ranges[i][1];) {
			uint8_t code[16] = {0};
			struct dis_insn d;
			if (!lcode_fetch(m, a, lc->ranges[i][1], &d) ||
			    !img_read(m->img, a, code, d.len))
				return qz_error(q, "Cannot decode the code of line %d at 0x%llx.",
						lc->line, (unsigned long long)a);
			if (lcode_insn(q, lc, &d, code) < 0)
				return -1;
			lcode_note(lc, &d, code);
			lcode_flip_site(lc, &d, code);
			a += d.len;
		}
	}
	if (lc->exit_indirect)
		lcode_jump_table(m, lc);
	return 0;
}

bool lcode_is_dexit(const struct lcode *lc, uint64_t addr)
{
	if (lc->ncopies > 1) {
		bool inside;
		return lc->ndexits == 2 && lcode_other_exit(lc, addr, &inside) != 0;
	}
	return lc->ndexits == 2 && (lc->dexits[0] == addr || lc->dexits[1] == addr);
}

static const struct lc_insn *lcode_insn_at(const struct lcode *lc, uint64_t addr)
{
	for (size_t i = 0; i < lc->ninsns; i++)
		if (lc->insns[i].addr == addr)
			return &lc->insns[i];
	return NULL;
}

/* Is addr a block leader: a range start, a branch target or the
 * instruction after a branch? */
static bool lcode_leader(const struct lcode *lc, uint64_t addr)
{
	for (size_t i = 0; i < lc->nranges; i++)
		if (lc->ranges[i][0] == addr)
			return true;
	for (size_t i = 0; i < lc->ninsns; i++) {
		const struct lc_insn *in = &lc->insns[i];
		if (in->cc > -4 && (in->target == addr || in->next == addr))
			return true;
	}
	return false;
}

/* The jcc ending the block that starts at addr, or NULL if the block ends
 * otherwise (or addr is outside the line). */
static const struct lc_insn *lcode_block_jcc(const struct lcode *lc, uint64_t addr)
{
	const struct lc_insn *in = lcode_insn_at(lc, addr);
	while (in) {
		if (in->cc > -4)
			return in->cc >= 0 ? in : NULL;
		if (lcode_leader(lc, in->next))
			return NULL;
		in = lcode_insn_at(lc, in->next);
	}
	return NULL;
}

static void lcode_add_dexit(struct lcode *lc, uint64_t addr)
{
	if (lcode_is_dexit(lc, addr) || (lc->ndexits && lc->dexits[0] == addr))
		return;
	if (lc->ndexits < 2)
		lc->dexits[lc->ndexits] = addr;
	lc->ndexits++;
}

/* A one-exit line: its condition is the jcc blocks reachable from its
 * entry through jcc blocks; their other successors are its outcomes. */
static void lcode_region(struct lcode *lc)
{
	uint64_t work[64], seen[64];
	size_t nw = 0, ns = 0;
	if (lc->nranges != 1 || !lcode_block_jcc(lc, lc->ranges[0][0]))
		return;
	work[nw++] = seen[ns++] = lc->ranges[0][0];
	while (nw) {
		const struct lc_insn *j = lcode_block_jcc(lc, work[--nw]);
		uint64_t succ[2] = { j->target, j->next };
		lcode_site_get(lc, j->addr)->roles |= LC_DECIDE;
		for (int k = 0; k < 2; k++) {
			bool known = false;
			for (size_t i = 0; i < ns; i++)
				known |= seen[i] == succ[k];
			if (known)
				continue;
			if (lcode_block_jcc(lc, succ[k]) && ns < 64 && nw < 64)
				work[nw++] = seen[ns++] = succ[k];
			else
				lcode_add_dexit(lc, succ[k]);
		}
	}
	lc->dexits_inside = true;
	if (lc->ndexits != 2)
		lc->ndexits = 0;
}

/* The decision: the line's two exits, or its condition's two outcomes. */
static void lcode_decision(struct lcode *lc)
{
	bool plain = lc->nexits == 2 && !lc->exit_ret && !lc->exit_indirect && !lc->fallout;
	if (plain) {
		lc->dexits[0] = lc->exits[0];
		lc->dexits[1] = lc->exits[1];
		lc->ndexits = 2;
		return;
	}
	for (size_t i = 0; i < lc->nsites; i++)
		lc->sites[i].roles &= ~LC_DECIDE;
	if (lc->nexits + lc->exit_ret + lc->exit_indirect == 1)
		lcode_region(lc);
	if (lc->ndexits != 2)
		for (size_t i = 0; i < lc->nsites; i++)
			lc->sites[i].roles &= ~LC_DECIDE;
}

/* A line with a branch decision is switched by it; its setcc and cmov
 * (a flag materialised for later) are left alone. */
static void lcode_flips_only_branchless(struct lcode *lc)
{
	if (lc->ndexits != 2)
		return;
	for (size_t i = 0; i < lc->nsites; i++)
		lc->sites[i].roles &= ~LC_FLIP;
	lc->nflips = 0;
}

/* Roles: range starts are entries; a branch to an entry is a mark; a
 * branch with a successor outside is a decision (lcode_decision refines). */
static bool lcode_straight(const struct lcode *lc);

static void lcode_roles(struct lcode *lc)
{
	for (size_t i = 0; i < lc->nsites; i++) {
		struct lc_site *s = &lc->sites[i];
		if (s->cc == -2)   /* a setcc or cmov, not a branch */
			continue;
		bool out = !lcode_inside(lc, s->target) ||
			   (s->cc >= 0 && !lcode_inside(lc, s->next));
		if (out)
			s->roles |= LC_DECIDE;
		for (size_t r = 0; r < (lc->straight ? 1 : lc->nranges); r++)
			if (s->target == lc->ranges[r][0])
				s->roles |= LC_MARK;
	}
	for (size_t r = 0; r < (lc->straight ? 1 : lc->nranges); r++)
		lcode_site_get(lc, lc->ranges[r][0])->roles |= LC_ENTRY;
}

/* No branch of the line goes back into its hull: it is not a loop header,
 * and control passes its blocks once per execution, entering at the first.
 * (-O2 spreads a statement over blocks with other lines' code between.) */
static bool lcode_straight(const struct lcode *lc)
{
	for (size_t i = 0; i < lc->ninsns; i++) {
		const struct lc_insn *in = &lc->insns[i];
		if (in->cc > -4 && in->target < in->addr && in->target >= lc->ranges[0][0])
			return false;
	}
	return true;
}

/* One copy of the line: its rows in f that belong to inlined call key. */
static int lcode_one(struct qz *q, struct qz_module *m, const struct di_func *f,
		     const void *key, bool strict, struct lcode *lc)
{
	lcode_ranges(m, f, lc, strict, key);
	if (!lc->nranges)
		return 0;   /* no row of its own here: not a copy */
	lcode_continue(m, f, lc);
	if (lcode_decode(q, m, lc) < 0) {
		lcode_free(lc);
		return -1;
	}
	lc->straight = lcode_straight(lc);
	lcode_roles(lc);
	lcode_decision(lc);
	lcode_flips_only_branchless(lc);
	return 0;
}

#define LC_APPEND(dst, ndst, src, nsrc) do { \
	(dst) = xrealloc((dst), ((ndst) + (nsrc) + 1) * sizeof *(dst)); \
	memcpy((dst) + (ndst), (src), (nsrc) * sizeof *(dst)); \
	(ndst) += (nsrc); \
} while (0)

/* Copy c of the line joins lc: its code, sites and decision. */
static void lcode_merge(struct lcode *lc, struct lcode *c)
{
	LC_APPEND(lc->ranges, lc->nranges, c->ranges, c->nranges);
	LC_APPEND(lc->sites, lc->nsites, c->sites, c->nsites);
	LC_APPEND(lc->insns, lc->ninsns, c->insns, c->ninsns);
	for (size_t i = 0; i < c->nexits; i++)
		lcode_exit(lc, c->exits[i]);
	lc->exit_ret |= c->exit_ret;
	lc->exit_indirect |= c->exit_indirect;
	if (!lc->fallout)
		lc->fallout = c->fallout;
	lc->nflips += c->nflips;
	lc->straight = lc->ncopies ? lc->straight && c->straight : c->straight;
	lc->copies = xrealloc(lc->copies, (lc->ncopies + 1) * sizeof *lc->copies);
	struct lc_copy *k = &lc->copies[lc->ncopies++];
	k->lo = c->ranges[0][0];
	k->hi = c->ranges[c->nranges - 1][1];
	k->decided = c->ndexits == 2;
	k->dexits[0] = c->dexits[0];
	k->dexits[1] = c->dexits[1];
	k->inside = c->dexits_inside;
	lcode_free(c);
}

/* The decision of the whole line: every copy's, or none. */
static void lcode_decisions(struct lcode *lc)
{
	bool all = lc->ncopies > 0;
	for (size_t i = 0; i < lc->ncopies; i++)
		all &= lc->copies[i].decided;
	lc->ndexits = all ? 2 : 0;
	if (all) {
		lc->dexits[0] = lc->copies[0].dexits[0];
		lc->dexits[1] = lc->copies[0].dexits[1];
		lc->dexits_inside = lc->copies[0].inside;
	}
}

/* The line's copies in function f: its own code and each inlined call. */
static int lcode_func_copies(struct qz *q, struct qz_module *m, const struct di_func *f,
			     struct lcode *lc)
{
	const void *keys[LC_MAX_COPIES];
	size_t nkeys = 0, n;
	const struct lines_row *rows = lines_rows(m->lines, &n);
	for (size_t i = 0; i < n; i++) {
		const struct lines_row *r = &rows[i];
		if (r->file != lc->file || r->line != lc->line || r->end <= r->addr ||
		    !lcode_in_func(f, r->addr))
			continue;
		const void *key = lcode_copy_key(f, r->addr);
		size_t k = 0;
		while (k < nkeys && keys[k] != key)
			k++;
		if (k == nkeys && nkeys < LC_MAX_COPIES)
			keys[nkeys++] = key;
	}
	/* Rows another row at the same address overrides count only when the
	 * line has no other code (a call site sharing its address with the
	 * first row of the inlined body). */
	for (int strict = 1; strict >= 0 && !lc->nranges; strict--)
		for (size_t k = 0; k < nkeys; k++) {
			struct lcode c = { .file = lc->file, .line = lc->line };
			if (lcode_one(q, m, f, keys[k], strict, &c) < 0)
				return -1;
			if (c.nranges)
				lcode_merge(lc, &c);
		}
	return 0;
}

int lcode_build(struct qz *q, struct qz_module *m, const char *file, int line,
		struct lcode *lc)
{
	memset(lc, 0, sizeof *lc);
	lc->file = file;
	lc->line = line;
	uint64_t *addrs = NULL;
	int actual = line;
	size_t k = lines_addrs_for(m->lines, file, line, lcode_func_of, m->di, &addrs, &actual);
	if (!k || actual != line) {
		free(addrs);
		return qz_error(q, "Line %d of \"%s\" has no code (not a statement).",
				line, str_basename(file));
	}
	int rc = 0;
	for (size_t i = 0; i < k && rc == 0; i++) {   /* each function holding the line */
		const struct di_func *f = m->di ? di_func_at(m->di, addrs[i]) : NULL;
		rc = f ? lcode_func_copies(q, m, f, lc) :
		     qz_error(q, "Line %d is not inside a function with debug info.", line);
	}
	free(addrs);
	if (rc < 0 || !lc->nranges) {
		if (rc == 0)
			qz_error(q, "Line %d of \"%s\" has no code.", line, str_basename(file));
		lcode_free(lc);
		return -1;
	}
	lcode_decisions(lc);
	return 0;
}

bool lcode_copy_of(const struct lcode *lc, uint64_t addr, const struct lc_copy **c)
{
	for (size_t i = 0; i < lc->ncopies; i++)
		if (addr >= lc->copies[i].lo && addr < lc->copies[i].hi) {
			*c = &lc->copies[i];
			return true;
		}
	return false;
}

uint64_t lcode_other_exit(const struct lcode *lc, uint64_t succ, bool *inside)
{
	for (size_t i = 0; i < lc->ncopies; i++) {
		const struct lc_copy *c = &lc->copies[i];
		if (!c->decided || (c->dexits[0] != succ && c->dexits[1] != succ))
			continue;
		*inside = c->inside;
		return c->dexits[0] == succ ? c->dexits[1] : c->dexits[0];
	}
	*inside = false;
	return 0;
}

void lcode_free(struct lcode *lc)
{
	free(lc->copies);
	lc->copies = NULL;
	lc->ncopies = 0;
	free(lc->ranges);
	free(lc->sites);
	free(lc->insns);
	lc->ranges = NULL;
	lc->sites = NULL;
	lc->insns = NULL;
	lc->ninsns = 0;
	lc->nranges = lc->nsites = 0;
}

static bool lcode_cond(int cc, uint64_t fl)
{
	bool cf = fl & 1, pf = fl & 4, zf = fl & 0x40, sf = fl & 0x80, of = fl & 0x800;
	bool r;
	switch (cc >> 1) {
	case 0: r = of; break;
	case 1: r = cf; break;
	case 2: r = zf; break;
	case 3: r = cf || zf; break;
	case 4: r = sf; break;
	case 5: r = pf; break;
	case 6: r = sf != of; break;
	default: r = zf || sf != of; break;
	}
	return cc & 1 ? !r : r;
}

bool lcode_cc_holds(int cc, uint64_t rflags)
{
	return lcode_cond(cc, rflags);
}

uint64_t lcode_flip_flags(int cc, uint64_t rflags)
{
	static const uint64_t bits[] = { 0x40, 0x1, 0x80, 0x800, 0x4 };   /* ZF CF SF OF PF */
	bool now = lcode_cond(cc, rflags);
	for (int n = 1; n <= 5; n++)
		for (unsigned m = 1; m < 32; m++) {
			if (__builtin_popcount(m) != n)
				continue;
			uint64_t f = rflags;
			for (int k = 0; k < 5; k++)
				if (m & 1u << k)
					f ^= bits[k];
			if (lcode_cond(cc, f) != now)
				return f;
		}
	return rflags;
}

uint64_t lcode_successor(const struct lc_site *s, uint64_t rflags)
{
	if (s->cc == -1)
		return s->target;
	return lcode_cond(s->cc, rflags) ? s->target : s->next;
}

char *lcode_exits_text(struct qz_module *m, const struct lcode *lc)
{
	struct sbuf b = {0};
	for (size_t i = 0; i < lc->nexits; i++) {
		const struct lines_row *r = lines_at(m->lines, lc->exits[i]);
		sbuf_printf(&b, "%s0x%llx", i ? ", " : "", (unsigned long long)lc->exits[i]);
		if (r)
			sbuf_printf(&b, " (line %d)", r->line);
	}
	if (lc->exit_ret)
		sbuf_printf(&b, "%sthe return", b.len ? ", " : "");
	if (lc->exit_indirect)
		sbuf_printf(&b, "%san indirect jump (a jump table)", b.len ? ", " : "");
	return b.s ? sbuf_take(&b) : xstrdup("none");
}
