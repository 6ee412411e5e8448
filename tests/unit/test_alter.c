/* test_alter: the pieces of alter/ that need no process: how a jcc site
 * follows RFLAGS (checked against the CPU's own setcc for every condition
 * code and flag combination) and how debug registers cover a range. */
#include <stdint.h>
#include <string.h>

#include "unit.h"
#include "../../alter/dreg.h"
#include "../../alter/lcode.h"

static void unit_check(bool ok, const char *name, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	unit_vcheck(ok, name, fmt, ap);
	va_end(ap);
}

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

int main(void)
{
	test_conditions();
	test_dreg_plan();
	return 0;
}
