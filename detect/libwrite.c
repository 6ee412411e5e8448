/* libwrite: the program's calls of the C library's bulk writers (memcpy,
 * memset, strcpy, ...) as events, decided at their entry, before anything
 * is written: the destination and the byte count come from the arguments
 * (a string's length read from the program). Internal stops sit on the
 * program's PLT slots: the calls the program itself makes (the library's
 * own calls are its business, and glibc's memcpy is an IFUNC whose
 * implementation is only known through the slot). A call the compiler
 * inlined (a small constant size) is not seen. */
#include <stdio.h>
#include <string.h>

#include "detect-int.h"
#include "slice/view.h"
#include "target/run.h"
#include "target/session.h"

#define STR_MAX (1u << 20)   /* a string longer than this is not measured */

enum lw_kind { LW_N, LW_STR, LW_STRN, LW_CAT, LW_CATN };

static const struct { const char *name; enum lw_kind kind; } lw_fns[DET_LW_COUNT] = {
	{"memcpy", LW_N}, {"memmove", LW_N}, {"memset", LW_N}, {"strcpy", LW_STR},
	{"stpcpy", LW_STR}, {"strncpy", LW_N}, {"strcat", LW_CAT}, {"strncat", LW_CATN},
};

/* The link-time address of function i's site in the program: its PLT
 * slot; in a static program, the slot of the IFUNC's IRELATIVE
 * relocation (named by its resolver: "*ABS*+0x4185c0@plt"), or the
 * function itself when it is no IFUNC (libc's own calls reach both: the
 * traps look only at the program's). 0 if none. */
static uint64_t lw_site(const struct qz *q, int i)
{
	char plt[48];
	snprintf(plt, sizeof plt, "%s@plt", lw_fns[i].name);
	const struct img_sym *s = img_sym_named(q->exe.img, plt);
	if (s || !qz_exe_static(q))
		return s ? s->addr : 0;
	const struct img_sym *f = img_sym_named_global(q->exe.img, lw_fns[i].name);
	if (!f || !f->is_ifunc)
		return f && f->is_func ? f->addr : 0;
	snprintf(plt, sizeof plt, "*ABS*+0x%llx@plt", (unsigned long long)f->addr);
	s = img_sym_named(q->exe.img, plt);
	return s ? s->addr : 0;
}

void det_lw_plant(struct qz *q, struct detect_state *st)
{
	/* a site costs a stop a call (in a static program libc's own calls
	 * too): none while no class that is on has a libwrite rule */
	if (st->pre || !det_rule_on(st, EV_LIBWRITE))
		return;
	for (int i = 0; i < DET_LW_COUNT && q->exe.img; i++) {
		uint64_t a = lw_site(q, i);
		a = a ? a + q->exe.bias : 0;
		if (a && !st->lw_at[i] && bp_site_add(&q->bps, q->proc, a) == 0)
			st->lw_at[i] = a;
	}
}

void det_lw_unplant(struct qz *q, struct detect_state *st)
{
	for (int i = 0; i < DET_LW_COUNT; i++)
		if (st->lw_at[i] && qz_running(q))
			bp_site_del(&q->bps, q->proc, st->lw_at[i]);
	memset(st->lw_at, 0, sizeof st->lw_at);
}

/* strlen of the program's string at a, at most max; false if unreadable
 * (the machine's memory while one is handled: det_read). */
static bool str_len(struct qz *q, struct detect_state *st, uint64_t a, uint64_t max, uint64_t *len)
{
	char buf[256];
	for (uint64_t n = 0; n < max; n += sizeof buf) {
		size_t want = max - n < sizeof buf ? (size_t)(max - n) : sizeof buf;
		/* a string near the end of a mapping: read what can be read */
		while (want && det_read(q, st, a + n, buf, want) < 0)
			want /= 2;
		if (!want)
			return false;
		const char *z = memchr(buf, 0, want);
		if (z) {
			*len = n + (uint64_t)(z - buf);
			return true;
		}
	}
	*len = max;
	return true;
}

/* The bytes call i writes: [*addr, *addr + *size); false if unknown.
 * Its arguments: rdi, rsi, rdx. */
static bool lw_range(struct qz *q, struct detect_state *st, int i, uint64_t rdi, uint64_t rsi,
		     uint64_t rdx, uint64_t *addr, uint64_t *size)
{
	uint64_t dlen = 0, slen = 0;
	*addr = rdi;
	switch (lw_fns[i].kind) {
	case LW_N:
		*size = rdx;
		return true;
	case LW_STR:
		if (!str_len(q, st, rsi, STR_MAX, &slen))
			return false;
		*size = slen + 1;
		return true;
	case LW_CAT:
	case LW_CATN:
		if (!str_len(q, st, rdi, STR_MAX, &dlen) ||
		    !str_len(q, st, rsi, lw_fns[i].kind == LW_CATN ? rdx : STR_MAX, &slen))
			return false;
		*addr = rdi + dlen;
		*size = slen + 1;
		return true;
	default:
		return false;
	}
}

/* Bytes of [a, a + n) past the end of the live block holding a. */
static uint64_t lw_over(struct detect_state *st, uint64_t a, uint64_t n)
{
	const struct det_block *s = hmap_get(&st->blocks, a);   /* most often */
	if (s && s->live)
		return a + n > s->addr + s->size ? a + n - (s->addr + s->size) : 0;
	for (size_t i = 0; i < st->nall; i++) {
		const struct det_block *b = st->all[i];
		if (b->live && a >= b->addr && a < b->addr + b->size)
			return a + n > b->addr + b->size ? a + n - (b->addr + b->size) : 0;
	}
	return 0;
}

/* Did the program make this call (returning to ret)? In a static program
 * libc's own calls reach the same sites, and a libc function the program
 * called may tail-call one (strdup's memcpy): its return is then the
 * program's, but the call before it is of that libc function. */
static bool lw_programs(struct qz *q, uint64_t ret)
{
	uint64_t to;
	if (!qz_in_program(q, ret))
		return false;
	return !qz_exe_static(q) || !det_call_target(q, ret, &to) || det_lw_which(det_state(q), to) <
	       DET_LW_COUNT || qz_in_program(q, to);
}

int det_lw_which(const struct detect_state *st, uint64_t pc)
{
	int i = 0;
	while (i < DET_LW_COUNT && st->lw_at[i] != pc)
		i++;
	return i;
}

/* The event of call i writing [addr, addr+size), returning to ret. */
static struct det_event lw_event(struct detect_state *st, int i, uint64_t ret, uint64_t addr,
				 uint64_t size, uint64_t rdi)
{
	return (struct det_event){ .ev = EV_LIBWRITE, .site = ret, .fn = lw_fns[i].name,
				   .f = { [F_ADDR] = addr, [F_SIZE] = size,
					  [F_OVER] = size ? lw_over(st, addr, size) : 0 },
				   .reg = { [F_ADDR] = addr == rdi ? 1 + DET_REG_RDI : 0 } };
}

bool det_lw_machine(struct qz *q, struct detect_state *st, const struct slice_view_machine *m)
{
	int i = det_lw_which(st, m->pc);
	uint64_t ret, addr, size;
	if (i == DET_LW_COUNT || st->skip_sp || m->read(m->rctx, m->sp, &ret, 8) < 0)
		return false;   /* the trap does it (a report rewound to a call: the trap knows) */
	if (!lw_programs(q, ret))
		return true;    /* a static program's libc calling its own memcpy */
	if (!lw_range(q, st, i, m->rdi, m->rsi, m->rdx, &addr, &size))
		return true;    /* as the trap: nothing known, nothing done */
	struct det_event e = lw_event(st, i, ret, addr, size, m->rdi);
	if (det_would_fire(st, &e))
		return false;   /* the trap reports it, on the process */
	st->events[EV_LIBWRITE]++;
	return true;
}

int det_lw_trap(struct qz *q, struct detect_state *st, uint64_t pc, uint64_t ret)
{
	int i = det_lw_which(st, pc);
	uint64_t addr, size;
	if (i == DET_LW_COUNT)
		return RUN_TARGET;
	struct user_regs_struct *r = proc_regs(q->proc);
	if (st->skip_sp && r->rsp + 8 == st->skip_sp && ret == st->skip_ret) {
		st->skip_sp = 0;   /* the call a report stopped at, running now */
		return RUN_AGAIN;
	}
	if (!lw_programs(q, ret))
		return RUN_AGAIN;   /* a static program's libc calling its own memcpy */
	if (!lw_range(q, st, i, r->rdi, r->rsi, r->rdx, &addr, &size))
		return RUN_AGAIN;
	st->events[EV_LIBWRITE]++;
	struct det_event e = lw_event(st, i, ret, addr, size, r->rdi);
	struct sbuf out = {0};
	if (!det_fire(q, &e, &out))
		return RUN_AGAIN;
	uint64_t sp = r->rsp + 8;
	if (det_rewind_to_call(q, ret, lw_fns[i].name)) {   /* the call runs again, unseen */
		st->skip_sp = sp;
		st->skip_ret = ret;
	}
	return det_stop(q, &out);
}
