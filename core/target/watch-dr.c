/* watch-dr: the x86 debug registers DR0-DR3, DR6 and DR7 for hardware
 * watchpoints: pieces of aligned 1, 2, 4 or 8 bytes, one register each,
 * set in every thread. */
#include "watch-int.h"

#include <errno.h>
#include <stddef.h>
#include <sys/ptrace.h>
#include <sys/user.h>

#include "pagewatch.h"
#include "proc/platform.h"

int watch_poke_dr(pid_t tid, int i, uint64_t v)
{
	size_t off = offsetof(struct user, u_debugreg) + (size_t)i * sizeof(long);
	return ptrace(PTRACE_POKEUSER, tid, (void *)off, (void *)v) < 0 ? -1 : 0;
}

uint64_t watch_peek_dr(pid_t tid, int i)
{
	size_t off = offsetof(struct user, u_debugreg) + (size_t)i * sizeof(long);
	errno = 0;
	long v = ptrace(PTRACE_PEEKUSER, tid, (void *)off, NULL);
	return errno ? 0 : (uint64_t)v;
}

int watch_pieces(uint64_t addr, uint64_t len, uint64_t *pa, uint8_t *pl, int max)
{
	int n = 0;
	while (len) {
		uint64_t s = 8;
		while (s > 1 && (addr % s || s > len))
			s /= 2;
		if (n < max) {
			pa[n] = addr;
			pl[n] = (uint8_t)s;
		}
		n++;
		addr += s;
		len -= s;
		if (n > max)
			return n;
	}
	return n;
}

/* DR7 bits for debug register i: local enable, condition, length. */
static uint64_t watch_dr7_bits(int i, int kind, int len)
{
	uint64_t rw = kind == BP_KIND_WATCH ? 1 : 3;
	uint64_t ln = len == 1 ? 0 : len == 2 ? 1 : len == 8 ? 2 : 3;
	return (1ull << (2 * i)) | (rw << (16 + 4 * i)) | (ln << (18 + 4 * i));
}

bool watch_take_slots(struct watch_state *ws, struct bp *b, int *used)
{
	struct watch *w = b->watch;
	uint64_t pa[WATCH_NREGS];
	uint8_t pl[WATCH_NREGS];
	int n = 0;
	for (size_t i = 0; i < w->nranges; i++) {
		int k = watch_pieces(w->ranges[i].addr, w->ranges[i].len,
				     pa + n, pl + n, WATCH_NREGS - *used - n);
		n += k;
		if (*used + n > WATCH_NREGS)
			return false;
	}
	if (n == 0 || w->in_reg)
		return false;
	for (int i = 0; i < n; i++) {
		int slot = *used + i;
		ws->dr[slot] = pa[i];
		ws->dr7 |= watch_dr7_bits(slot, b->kind, pl[i]);
		w->slots |= (uint8_t)(1u << slot);
	}
	*used += n;
	return true;
}

bool watch_hw_active(const struct qz *q)
{
	return q->watch && q->watch->dr7 && platform_dr_usable();
}

int watch_arm(struct qz *q, pid_t tid)
{
	struct watch_state *ws = watch_state(q);
	if (!q->proc || !proc_alive(q->proc))
		return 0;
	if (watch_poke_dr(tid, 7, 0) < 0)
		return -1;
	if (!platform_dr_usable())
		return 0;   /* the slots only count: pages are protected instead */
	for (int i = 0; i < WATCH_NREGS; i++)
		if ((ws->dr7 >> (2 * i)) & 1 && watch_poke_dr(tid, i, ws->dr[i]) < 0)
			return -1;
	return ws->dr7 ? watch_poke_dr(tid, 7, ws->dr7) : 0;
}

int watch_arm_all(struct qz *q)
{
	int r = 0;
	for (size_t i = 0; i < proc_nthreads(q->proc); i++) {
		struct proc_thread_info ti;
		if (proc_thread_at(q->proc, i, &ti) == 0 && !ti.gone && watch_arm(q, ti.tid) < 0)
			r = -1;
	}
	return r;
}

void watch_disarm(struct qz *q)
{
	if (q->proc)
		pw_release(q);   /* the program's own page protection back */
	if (!q->watch || !q->watch->dr7 || !q->proc)
		return;
	q->watch->dr7 = 0;
	watch_arm_all(q);
}
