/* test_alter: how a jcc site follows RFLAGS (checked against the CPU's own
 * setcc for every condition code and flag combination), how debug registers
 * cover a range, and that alter's checkpoint hooks bring instance counts
 * and fire counts back (as a rollback by ckpt/ would). */
#include <stdint.h>
#include <string.h>

#include "cmd/cmd.h"
#include "modules.h"
#include "target/session.h"
#include "unit.h"
#include "../../alter/alter.h"
#include "../../alter/dreg.h"
#include "../../alter/lcode.h"

/* The CPU's verdict: setCC under the given flags (below the red zone). */
#define SETCC(cc) \
	static int setcc_##cc(uint64_t fl) \
	{ \
		uint8_t r; \
		__asm__ volatile("sub $128, %%rsp\n\tpush %1\n\tpopfq\n\tset" #cc " %0\n\t" \
				 "add $128, %%rsp" : "=q"(r) : "r"(fl) : "cc", "memory"); \
		return r; \
	}
SETCC(o) SETCC(no) SETCC(b) SETCC(ae) SETCC(e) SETCC(ne) SETCC(be) SETCC(a)
SETCC(s) SETCC(ns) SETCC(p) SETCC(np) SETCC(l) SETCC(ge) SETCC(le) SETCC(g)

static int (*const setcc[16])(uint64_t) = {
	setcc_o, setcc_no, setcc_b, setcc_ae, setcc_e, setcc_ne, setcc_be, setcc_a,
	setcc_s, setcc_ns, setcc_p, setcc_np, setcc_l, setcc_ge, setcc_le, setcc_g,
};

static void test_conditions(void)
{
	static const uint64_t bits[] = { 0x1, 0x4, 0x40, 0x80, 0x800 };   /* CF PF ZF SF OF */
	int bad = 0, first_cc = -1;
	uint64_t first_fl = 0;
	for (int cc = 0; cc < 16; cc++) {
		for (int m = 0; m < 32; m++) {
			uint64_t fl = 0x202;   /* IF and the reserved bit */
			for (int k = 0; k < 5; k++)
				if (m & (1 << k))
					fl |= bits[k];
			struct lc_site s = { .cc = cc, .target = 1, .next = 2 };
			bool taken = lcode_successor(&s, fl) == 1;
			if (taken != (setcc[cc](fl) != 0) && !bad++) {
				first_cc = cc;
				first_fl = fl;
			}
		}
	}
	unit_check(bad == 0, "alter jcc conditions match the CPU",
		   "%d mismatches, first cc %d flags %#llx", bad, first_cc,
		   (unsigned long long)first_fl);
	struct lc_site j = { .cc = -1, .target = 7, .next = 9 };
	unit_check(lcode_successor(&j, 0) == 7, "alter jmp always taken", "not taken");
}

static void test_dreg_plan(void)
{
	uint64_t at[DREG_MAX];
	int len[DREG_MAX];
	int n = dreg_plan(0x1000, 8, at, len);
	unit_check(n == 1 && at[0] == 0x1000 && len[0] == 8, "dreg aligned 8", "n=%d", n);
	n = dreg_plan(0x1001, 8, at, len);
	unit_check(n == 4 && len[0] == 1 && len[1] == 2 && len[2] == 4 && len[3] == 1 &&
		   at[3] == 0x1008, "dreg unaligned 8 in 4 pieces", "n=%d", n);
	n = dreg_plan(0x1000, 32, at, len);
	unit_check(n == 4 && at[3] == 0x1018, "dreg 32 bytes", "n=%d", n);
	unit_check(dreg_plan(0x1003, 16, at, len) < 0, "dreg too many pieces", "accepted");
	unit_check(dreg_plan(0x1000, 40, at, len) < 0, "dreg too large", "accepted");
}

static void unit_sink(void *arg, enum qz_out_kind kind, const char *text)
{
	(void)arg;
	(void)kind;
	(void)text;
}

static uint64_t unit_count(struct qz *q, const char *file, int line, int *exact)
{
	uint64_t n = 0;
	*exact = alter_instance_of(q, file, line, &n);
	return n;
}

/* Run bug_nullp to its printf with a switch on line 29's 3rd instance:
 * save, run again (counts start over), restore: the 4 instances and the
 * one firing are back. */
static void test_save_restore(void)
{
	struct qz *q = qz_new((struct qz_sink){ unit_sink, NULL });
	modules_init(q);
	bool ok = qz_load(q, "tests/build/bug_nullp-O0", NULL, 0) == 0 &&
		  cmd_run(q, "switch bug_nullp.c:29 3") == 0 &&
		  cmd_run(q, "break bug_nullp.c:32") == 0 && cmd_run(q, "run") == 0;
	int exact;
	uint64_t n = unit_count(q, "bug_nullp.c", 29, &exact);
	unit_check(ok && n == 4 && exact == 0, "alter counts a run", "ok=%d n=%llu exact=%d",
		   ok, (unsigned long long)n, exact);
	const struct qz_mod *h = mod_find(q, "alter");
	void *saved = h ? h->save(q) : NULL;
	ok = cmd_run(q, "run") == 0;
	n = unit_count(q, "bug_nullp.c", 29, &exact);
	unit_check(ok && n == 4, "alter rerun counts again", "n=%llu", (unsigned long long)n);
	ok = cmd_run(q, "instance bug_nullp.c:30 watch") == 0 && cmd_run(q, "kill") == 0 &&
	     cmd_run(q, "start") == 0;
	n = unit_count(q, "bug_nullp.c", 29, &exact);
	unit_check(ok && n == 0, "alter start resets counts", "n=%llu", (unsigned long long)n);
	if (h)
		h->restore(q, saved);
	n = unit_count(q, "bug_nullp.c", 29, &exact);
	unit_check(h && n == 4 && exact == 0, "alter restore brings the count back",
		   "n=%llu exact=%d", (unsigned long long)n, exact);
	unit_count(q, "bug_nullp.c", 30, &exact);
	unit_check(exact == 1, "alter restore: a line covered after the save is not exact",
		   "exact=%d", exact);
	if (h)
		h->free_saved(saved);
	qz_free(q);
}

int main(void)
{
	test_conditions();
	test_dreg_plan();
	test_save_restore();
	return 0;
}
