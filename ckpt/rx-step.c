/* rx-step: reverse-step, reverse-next and reverse-finish with no recorded
 * region, by re-execution (rx-back.c finds the last stop before the
 * present). Each is the last hit before the present of a set of sites:
 *   - reverse-step: the start of every is_stmt row of the program's line
 *     table but a function's entry (gdb goes on back from there to the
 *     call); going back from a row's start that gives the row before, or
 *     the last row of a function it called, as gdb (which merges some
 *     rows of one line that this stops at one by one);
 *   - reverse-next: the line starts of this function and its caller, in
 *     this frame or an outer one (calls made from here are stepped over;
 *     from a function's first line it goes back to its caller's line);
 *   - reverse-finish: the call instruction that made this frame, with the
 *     stack pointer it had then (gdb stops there, at the call).
 * A user's breakpoint hit on the way back stops it first, as in gdb.
 * reverse-stepi needs an instruction count re-execution does not have:
 * it stays with the recorder (record on). */
#define _GNU_SOURCE
#include "rx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt-int.h"
#include "dinfo/dinfo.h"
#include "dinfo/disasm.h"
#include "dinfo/lines.h"
#include "target/frame.h"
#include "target/objects.h"
#include "target/run.h"

static int rx_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void rx_goal_add(struct rx_goal *g, size_t *cap, uint64_t a)
{
	XGROW(g->addr, *cap, g->n + 1);
	g->addr[g->n++] = a;
}

/* Row i is one instruction followed at once by a row of the same line:
 * gdb, stepping back out of that row, lands on row i's start without
 * having entered row i's range and goes on (infrun's rule that
 * slice/rev.c follows too), so no step back stops there. */
static bool rx_row_passed(struct qz *q, const struct qz_module *m, const struct lines_row *r,
			  size_t i, size_t n)
{
	uint8_t code[16];
	struct dis_insn in;
	uint64_t a = r[i].addr + m->bias;
	if (i + 1 >= n || r[i + 1].addr != r[i].end || r[i + 1].line != r[i].line ||
	    r[i + 1].file != r[i].file || r[i].end - r[i].addr > sizeof code)
		return false;
	size_t len = (size_t)(r[i].end - r[i].addr);
	if (proc_read(q->proc, a, code, len) < 0)
		return false;
	bp_mask(&q->bps, a, code, len);
	return dis_decode(code, len, a, &in) && in.len == len;
}

/* The row starts of module m in [lo, hi) (load addresses) where a step
 * back stops: is_stmt rows of a line, not at a function's entry. */
static void rx_line_starts(struct qz *q, const struct qz_module *m, uint64_t lo, uint64_t hi,
			   struct rx_goal *g, size_t *cap)
{
	size_t n;
	const struct lines_row *r = lines_rows(m->lines, &n);
	for (size_t i = lo > m->bias ? lines_lower_bound(m->lines, lo - m->bias) : 0; i < n; i++) {
		uint64_t a = r[i].addr + m->bias;
		if (a >= hi)
			break;
		const struct di_func *f = m->di ? di_func_at(m->di, r[i].addr) : NULL;
		if (r[i].is_stmt && r[i].line && (i == 0 || r[i - 1].addr != r[i].addr) &&
		    !(f && f->lo == r[i].addr) && !rx_row_passed(q, m, r, i, n))
			rx_goal_add(g, cap, a);
	}
}

/* The function around pc, as its module's debug information has it. */
static bool rx_func_range(struct qz *q, uint64_t pc, const struct qz_module **mp,
			  uint64_t *lo, uint64_t *hi)
{
	const struct qz_module *m = qz_module_at(q, pc);
	const struct di_func *f = m && m->di ? di_func_at(m->di, pc - m->bias) : NULL;
	if (!f || !m->lines)
		return false;
	*mp = m;
	*lo = f->lo + m->bias;
	*hi = f->hi + m->bias;
	return true;
}

static int rx_goal_lines(struct qz *q, bool over, struct rx_goal *g)
{
	size_t cap = 0;
	uint64_t pc = proc_pc(q->proc), lo, hi, fn;
	const struct qz_module *m = qz_module_at(q, pc);
	if (!m || !m->lines)
		return qz_error(q, "Cannot step back here: no line information at 0x%llx.",
				(unsigned long long)pc);
	if (!over) {
		rx_line_starts(q, m, 0, UINT64_MAX, g, &cap);
	} else {
		if (!rx_func_range(q, pc, &m, &lo, &hi))
			return qz_error(q, "Cannot step back here: no function around 0x%llx.",
					(unsigned long long)pc);
		rx_line_starts(q, m, lo, hi, g, &cap);
		const struct frame *up = frame_get(q, 1);
		if (up && rx_func_range(q, up->pc, &m, &lo, &hi))
			rx_line_starts(q, m, lo, hi, g, &cap);
		run_frame_id(q, &g->cfa, &fn);   /* this frame or an outer one */
	}
	if (g->n)
		qsort(g->addr, g->n, sizeof *g->addr, rx_u64_cmp);
	return 0;
}

/* The call instruction that returns to ret: the longest-known encodings
 * first (call rel32 is five bytes). */
static uint64_t rx_call_before(struct qz *q, uint64_t ret)
{
	static const int lens[] = {5, 6, 2, 3, 7, 4};
	for (size_t i = 0; i < sizeof lens / sizeof *lens; i++) {
		uint8_t code[8];
		struct dis_insn in;
		if (proc_read(q->proc, ret - lens[i], code, lens[i]) == 0 &&
		    dis_decode(code, lens[i], ret - lens[i], &in) && in.is_call &&
		    in.len == (size_t)lens[i])
			return ret - lens[i];
	}
	return 0;
}

static int rx_goal_finish(struct qz *q, struct rx_goal *g)
{
	const struct frame *f = frame_get(q, q->sel_frame);
	const struct frame *up = frame_get(q, q->sel_frame + 1);
	if (!f || !up)
		return qz_error(q, "\"finish\" not meaningful in the outermost frame.");
	if (!f->has_cfa)
		return qz_error(q, "Cannot find the frame's call: no frame address.");
	uint64_t call = rx_call_before(q, up->pc), sp = f->cfa;
	if (!call)
		return qz_error(q, "Cannot find the call that made this frame (before 0x%llx).",
				(unsigned long long)up->pc);
	if (q->from_tty) {
		struct sbuf b = {0};
		frame_describe(q, f, frame_shows_addr(f), &b);
		qz_printf(q, "Run back to call of #%d  %s\n", f->level, b.s);
		sbuf_free(&b);
	}
	g->addr = xmalloc(sizeof *g->addr);
	g->addr[0] = call;
	g->n = 1;
	g->sp = sp;
	return 0;
}

bool rx_can_reverse(struct qz *q)
{
	struct rx *x = ckpt_state(q)->rx;
	return x && x->on && q->proc && proc_alive(q->proc);
}

int rx_reverse(struct qz *q, int how)
{
	struct rx *x = ckpt_state(q)->rx;
	if (!rx_can_reverse(q))
		return MOD_UNCLAIMED;
	if (how == MOD_REV_CONTINUE)
		return rx_back(q, NULL);
	struct rx_goal g = {0};
	uint64_t cfa0, fn0;
	run_frame_id(q, &cfa0, &fn0);
	int rc = how == MOD_REV_FINISH ? rx_goal_finish(q, &g) :
		 rx_goal_lines(q, how == MOD_REV_NEXT, &g);
	if (rc == 0)
		rc = rx_back(q, &g);
	free(g.addr);
	if (rc < 0 || !x->goal_final)
		return rc;
	uint64_t cfa, fn;
	frame_invalidate(q);
	run_frame_id(q, &cfa, &fn);
	const struct frame *f = frame_get(q, 0);
	if (f)
		frame_print_stop(q, f, how == MOD_REV_FINISH || cfa != cfa0 || fn != fn0);
	return 0;
}
