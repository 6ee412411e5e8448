/* rx-log: the system-call log of re-execution and the hook that keeps and
 * feeds it (see rx.h). The hook runs at each system call's entry and exit
 * stop (proc_set_syscall_hook: PTRACE_SYSCALL, two stops per call, only
 * while checkpoint-interval is on). Logging reads what the call wrote at
 * its exit; feeding skips the call at its entry (orig_rax -1) and at its
 * exit writes the logged bytes and result. The calls that change the
 * process itself rather than memory (mappings, signal state, exit) run
 * again and must give the logged result. */
#define _GNU_SOURCE
#include "rx.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "ckpt-int.h"
#include "proc/sys.h"
#include "target/frame.h"
#include "target/run.h"

/* Calls re-run during re-execution: their effect is the process's own
 * state (mappings, signal handlers and masks, thread setup, signals to
 * itself, exit), which neither memory nor a result can carry. */
static bool rx_reruns(int64_t nr)
{
	static const int16_t nrs[] = {
		SYS_brk, SYS_mmap, SYS_munmap, SYS_mprotect, SYS_mremap, SYS_madvise,
		SYS_rt_sigaction, SYS_rt_sigprocmask, SYS_rt_sigreturn, SYS_sigaltstack,
		SYS_arch_prctl, SYS_set_tid_address, SYS_set_robust_list, SYS_rseq,
		SYS_exit, SYS_exit_group, SYS_kill, SYS_tkill, SYS_tgkill,
	};
	for (size_t i = 0; i < sizeof nrs / sizeof *nrs; i++)
		if (nr == nrs[i])
			return true;
	return false;
}

static void rx_args(const struct user_regs_struct *r, uint64_t *a)
{
	a[0] = r->rdi;
	a[1] = r->rsi;
	a[2] = r->rdx;
	a[3] = r->r10;
	a[4] = r->r8;
	a[5] = r->r9;
}

static uint64_t rx_fnv(uint64_t h, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

/* What write(2) and pwrite64(2) write out: a divergence in output (the
 * past altered) is a divergence too. 0 for other calls. */
static uint64_t rx_out_hash(struct proc *p, const struct user_regs_struct *r)
{
	if (r->orig_rax != SYS_write && r->orig_rax != SYS_pwrite64)
		return 0;
	uint8_t buf[4096];
	uint64_t h = 0xcbf29ce484222325ull, len = r->rdx < (1u << 20) ? r->rdx : (1u << 20);
	for (uint64_t o = 0; o < len; o += sizeof buf) {
		size_t k = len - o < sizeof buf ? (size_t)(len - o) : sizeof buf;
		if (proc_read(p, r->rsi + o, buf, k) < 0)
			return h ^ o;
		h = rx_fnv(h, buf, k);
	}
	return h;
}

static bool rx_peek(void *ctx, uint64_t addr, void *buf, size_t len)
{
	return proc_read(ctx, addr, buf, len) == 0;
}

void rx_free(struct rx *x)
{
	if (!x)
		return;
	free(x->calls);
	free(x->w);
	free(x->data);
	free(x->broken);
	free(x);
}

/* The log ends at call n: what came after is another future. */
static void rx_truncate(struct rx *x, uint64_t n)
{
	if (n >= x->n)
		return;
	x->nw = x->calls[n].w0;
	x->dlen = x->nw ? x->w[x->nw - 1].off + x->w[x->nw - 1].len : 0;
	x->n = n;
	if (x->at > n)
		x->at = n;
}

/* Append the call that just returned ret (pre: its entry registers),
 * with the bytes it wrote as the process holds them now. */
static void rx_append(struct proc *p, struct rx *x, const struct user_regs_struct *pre, int64_t ret)
{
	struct sys_writes sw;
	XGROW(x->calls, x->cap, x->n + 1);
	struct rx_call *c = &x->calls[x->n];
	*c = (struct rx_call){ .nr = (int64_t)pre->orig_rax, .ret = ret, .w0 = (uint32_t)x->nw };
	rx_args(pre, c->args);
	struct user_regs_struct call = *pre;
	call.rax = pre->orig_rax;   /* sys_writes reads the number from rax */
	/* (a call that runs again makes its own effects: a file mapping's
	 * pages are not copied into the log) */
	c->unknown = !rx_reruns(c->nr) && !sys_writes(&call, (long)ret, rx_peek, p, &sw);
	if (rx_reruns(c->nr))
		sw.n = 0;
	for (int i = 0; !c->unknown && i < sw.n; i++) {
		uint64_t len = sw.v[i].len;
		if (len > (64u << 20)) {   /* no call writes that much at once */
			c->unknown = true;
			break;
		}
		XGROW(x->w, x->wcap, x->nw + 1);
		XGROW(x->data, x->dcap, x->dlen + len);
		if (proc_read(p, sw.v[i].addr, x->data + x->dlen, len) < 0) {
			c->unknown = true;   /* the kernel wrote what we cannot read */
			break;
		}
		x->w[x->nw++] = (struct rx_write){ sw.v[i].addr, x->dlen, (uint32_t)len };
		x->dlen += len;
		c->nw++;
	}
	x->n++;
	x->at = x->n;
}

static const char *rx_name(int64_t nr, char *buf, size_t n)
{
	return sys_name((long)nr, buf, n);
}

/* The program made a call the log does not have here: say so, drop the
 * rest of the log (another future), and stop; from here it runs live. */
static bool rx_diverge(struct qz *q, struct rx *x, const struct user_regs_struct *r,
		       const char *how)
{
	char a[32], b[32];
	const struct rx_call *c = &x->calls[x->at];
	qz_warn(q, "re-execution diverged at system call %llu: the program %s %s(0x%llx, 0x%llx, "
		"0x%llx) where the run made %s(0x%llx, 0x%llx, 0x%llx) = %lld; the logged rest "
		"of the run is dropped and the program runs live from here.",
		(unsigned long long)x->at + 1, how, rx_name((int64_t)r->orig_rax, a, sizeof a),
		(unsigned long long)r->rdi, (unsigned long long)r->rsi, (unsigned long long)r->rdx,
		rx_name(c->nr, b, sizeof b), (unsigned long long)c->args[0],
		(unsigned long long)c->args[1], (unsigned long long)c->args[2], (long long)c->ret);
	rx_truncate(x, x->at);
	x->diverged = true;
	return false;
}

static bool rx_entry(struct qz *q, struct rx *x, struct proc *p)
{
	struct user_regs_struct *r = proc_regs(p);
	x->pre = *r;
	x->pending = RX_LOGGING;
	if (x->at >= x->n)
		return true;
	const struct rx_call *c = &x->calls[x->at];
	uint64_t args[6];
	rx_args(r, args);
	if (c->nr != (int64_t)r->orig_rax || memcmp(args, c->args, sizeof args))
		return rx_diverge(q, x, r, "made");
	if (c->out_hash && c->out_hash != rx_out_hash(p, r))
		return rx_diverge(q, x, r, "wrote other bytes with");
	if (c->unknown) {
		char nm[32];
		qz_warn(q, "re-execution stops at system call %llu, %s: what it wrote is not "
			"known (not logged); the program runs live from here.",
			(unsigned long long)x->at + 1, rx_name(c->nr, nm, sizeof nm));
		rx_truncate(x, x->at);
		x->diverged = true;
		return false;
	}
	if (rx_reruns(c->nr)) {
		x->pending = RX_RUN;
		return true;
	}
	r->orig_rax = (uint64_t)-1;   /* the kernel skips it */
	proc_regs_dirty(p);
	x->pending = RX_FED;
	return true;
}

static void rx_feed(struct rx *x, struct proc *p)
{
	const struct rx_call *c = &x->calls[x->at];
	for (uint32_t i = 0; i < c->nw; i++) {
		const struct rx_write *w = &x->w[c->w0 + i];
		proc_write(p, w->addr, x->data + w->off, w->len);
	}
	struct user_regs_struct *r = proc_regs(p);
	r->rax = (uint64_t)c->ret;
	r->orig_rax = (uint64_t)c->nr;
	proc_regs_dirty(p);
	x->at++;
	x->fed++;
}

/* A search's window opens after this call: stop (rx_on_sigtrap opens it). */
static bool rx_window_due(struct rx *x)
{
	if (x->armed || x->arm_at == UINT64_MAX || x->at < x->arm_at)
		return true;
	x->open_window = true;
	return false;
}

static bool rx_exit(struct qz *q, struct rx *x, struct proc *p)
{
	struct user_regs_struct *r = proc_regs(p);
	int64_t ret = (int64_t)r->rax;
	int pending = x->pending;
	x->pending = RX_IDLE;
	switch (pending) {
	case RX_FED:
		rx_feed(x, p);
		return rx_window_due(x);
	case RX_RUN:
		if (x->calls[x->at].ret != ret && x->calls[x->at].nr != SYS_rt_sigreturn) {
			struct user_regs_struct pre = x->pre;
			rx_diverge(q, x, &pre, "got another result from");
			rx_append(p, x, &pre, ret);
			return false;
		}
		x->at++;
		return rx_window_due(x);
	case RX_LOGGING:
		/* interrupted, to be restarted: its entry comes again */
		if (ret <= -512 && ret >= -516)
			return true;
		rx_append(p, x, &x->pre, ret);
		x->calls[x->n - 1].out_hash = rx_out_hash(p, &x->pre);
		return true;
	default:
		return true;
	}
}

static bool rx_sys_stop(void *ctx, struct proc *p, bool entry)
{
	struct qz *q = ctx;
	struct rx *x = ckpt_state(q)->rx;
	if (!x)
		return true;
	x->stops++;
	if (proc_nthreads(p) > 1 && !x->broken) {
		x->broken = xstrdup("the program started a thread (re-execution needs a "
				    "single-threaded program)");
		x->pending = RX_IDLE;
	}
	if (x->broken)
		return true;
	return entry ? rx_entry(q, x, p) : rx_exit(q, x, p);
}

static struct rx *rx_get(struct qz *q)
{
	struct ckpt_state *s = ckpt_state(q);
	if (!s->rx) {
		s->rx = xcalloc(1, sizeof *s->rx);
		s->rx->arm_at = UINT64_MAX;
	}
	return s->rx;
}

void rx_arm(struct qz *q)
{
	struct ckpt_state *s = ckpt_state(q);
	bool want = s->interval_ms && q->proc && proc_alive(q->proc);
	struct rx *x = s->rx;
	if (!want && (!x || !x->on))
		return;
	x = rx_get(q);
	if (want == x->on)
		return;
	x->on = want;
	if (want) {
		proc_set_syscall_hook(q->proc, rx_sys_stop, q);
		rx_vdso_patch(q, x);
		return;
	}
	if (q->proc && proc_alive(q->proc)) {
		proc_set_syscall_hook(q->proc, NULL, NULL);
		rx_vdso_unpatch(q, x);
	}
	rx_truncate(x, 0);   /* calls unseen from now on: the log stops making sense */
	for (size_t i = 0; i < s->n; i++)
		s->cps[i]->rx_ok = false;
}

void rx_forget(struct qz *q)
{
	struct ckpt_state *s = ckpt_state(q);
	if (s->rx && q->proc && proc_alive(q->proc)) {   /* detached: no patch left */
		proc_set_syscall_hook(q->proc, NULL, NULL);
		rx_vdso_unpatch(q, s->rx);
	}
	rx_free(s->rx);
	s->rx = NULL;
}

void rx_note_ckpt(struct qz *q, struct ckpt *c)
{
	struct rx *x = ckpt_state(q)->rx;
	c->rx_ok = x && x->on && !x->broken && x->pending == RX_IDLE;
	c->rx_at = x ? x->at : 0;
}

void rx_rolled_back(struct qz *q, const struct ckpt *c)
{
	struct ckpt_state *s = ckpt_state(q);
	struct rx *x = s->rx;
	if (!x)
		return;
	x->pending = RX_IDLE;
	x->diverged = false;
	if (x->internal && c->rx_ok) {
		x->at = c->rx_at;
		return;
	}
	rx_truncate(x, c->rx_at);
	x->at = x->n;
	for (size_t i = 0; i < s->n; i++)
		if (s->cps[i] != c && s->cps[i]->rx_at >= c->rx_at)
			s->cps[i]->rx_ok = false;
}

int rx_on_sigtrap(struct qz *q)
{
	struct rx *x = ckpt_state(q)->rx;
	if (x && x->open_window) {
		x->open_window = false;
		rx_window_open(q, x);
		return RUN_AGAIN;
	}
	if (!x || !x->diverged)
		return RUN_TARGET;
	x->diverged = false;
	proc_stop_all(q->proc);
	const struct frame *f = frame_get(q, 0);
	if (f)
		frame_print_stop(q, f, true);
	q->stop = QZ_STOP_SIGNAL;
	return RUN_STOPPED;
}

/* maint print-reexec-log: one line per logged call (tests read it). */
int rx_info_log(struct qz *q)
{
	struct rx *x = ckpt_state(q)->rx;
	for (size_t i = 0; x && i < x->n; i++) {
		const struct rx_call *c = &x->calls[i];
		char nm[32];
		uint64_t bytes = 0;
		for (uint32_t k = 0; k < c->nw; k++)
			bytes += x->w[c->w0 + k].len;
		qz_printf(q, "%c%zu %s(0x%llx, 0x%llx, 0x%llx) = %lld, %llu bytes%s\n",
			  i == x->at ? '>' : ' ', i + 1, rx_name(c->nr, nm, sizeof nm),
			  (unsigned long long)c->args[0], (unsigned long long)c->args[1],
			  (unsigned long long)c->args[2], (long long)c->ret,
			  (unsigned long long)bytes, c->unknown ? " (effects unknown)" : "");
	}
	return 0;
}

int rx_info(struct qz *q)
{
	struct ckpt_state *s = ckpt_state(q);
	struct rx *x = s->rx;
	if (!x || (!x->on && !x->n)) {
		qz_puts(q, "No system calls logged (re-execution logs them while "
			"checkpoint-interval is on).\n");
		return 0;
	}
	qz_printf(q, "System calls logged: %zu (%zu writes, %zu bytes); the program has made %llu "
		  "of them%s.\n", x->n, x->nw, x->dlen, (unsigned long long)x->at,
		  x->at < x->n ? " (the rest are fed back as it re-executes)" : "");
	qz_printf(q, "System-call stops: %llu; calls fed back: %llu.\n",
		  (unsigned long long)x->stops, (unsigned long long)x->fed);
	if (x->vdso_note[0])
		qz_printf(q, "vDSO: %s.\n", x->vdso_note);
	size_t usable = 0;
	for (size_t i = 0; i < s->n; i++)
		usable += !s->cps[i]->dead && !s->cps[i]->hidden && s->cps[i]->rx_ok;
	qz_printf(q, "Checkpoints to re-execute from: %zu.\n", usable);
	if (x->last_passes)
		qz_printf(q, "Last reverse move: %d re-execution%s from checkpoints, %.1f ms.\n",
			  x->last_passes, x->last_passes == 1 ? "" : "s", (double)x->last_ns / 1e6);
	if (x->broken)
		qz_printf(q, "Re-execution is off: %s.\n", x->broken);
	return 0;
}
