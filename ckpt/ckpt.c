/* ckpt: the checkpoint list, taking and deleting checkpoints, and the
 * module's hooks: saving the other modules' state, holding the process at
 * its exit (an int3 on libc's _exit) or at a fatal signal while
 * checkpoints exist, so that a rollback still has a process to act on. */
#define _GNU_SOURCE
#include <elf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <time.h>

#include "ckpt.h"
#include "cmd-ckpt.h"
#include "ckpt-int.h"
#include "rx.h"
#include "target/frame.h"
#include "target/pagewatch.h"
#include "target/regs.h"
#include "target/run.h"
#include "util/sorted.h"

uint64_t ckpt_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Private writable memory is what a checkpoint copies; shared mappings
 * are not undone (said at checkpoint time), qzdb's own page is not the
 * program's. */
bool ckpt_map_tracked(const struct ckpt_state *s, const struct ckpt_map *m)
{
	return (m->prot & 2) && !m->shared && m->lo != s->argpage &&
	       !(m->path && !strcmp(m->path, "[vsyscall]"));
}

struct ckpt *ckpt_find(struct ckpt_state *s, int id)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->cps[i]->id == id && !s->cps[i]->dead)
			return s->cps[i];
	return NULL;
}

static const struct ckpt_page *ckpt_page_in(const struct ckpt *c, uint64_t addr)
{
	size_t lo = SORTED_BELOW(c->pages, c->npages, addr, addr);
	return lo < c->npages && c->pages[lo].addr == addr ? &c->pages[lo] : NULL;
}

/* The page at addr as checkpoint c saw it; NULL: it held zeros. */
const struct ckpt_blob *ckpt_lookup(const struct ckpt *c, uint64_t addr)
{
	for (; c; c = c->parent) {
		const struct ckpt_page *p = ckpt_page_in(c, addr);
		if (p)
			return p->blob;
	}
	return NULL;
}

/* The memory a checkpoint's saved pages take: a page each, a blob for a
 * page that repeats one word (ckpt_blob_fill: its page is shared). */
static uint64_t ckpt_data_bytes(const struct ckpt *c)
{
	uint64_t n = 0;
	for (size_t i = 0; i < c->npages; i++)
		if (c->pages[i].blob)
			n += c->pages[i].blob->fill ? sizeof *c->pages[i].blob : CKPT_PAGE;
	return n;
}

/* What a checkpoint holds of its own: its pages and their index. */
uint64_t ckpt_bytes(const struct ckpt *c)
{
	return ckpt_data_bytes(c) + c->npages * sizeof(struct ckpt_page);
}

static void ckpt_free_one(struct qz *q, struct ckpt *c)
{
	for (size_t i = 0; i < c->npages; i++)
		ckpt_blob_unref(c->pages[i].blob);
	mod_free_saved(q, c->saved);
	ckpt_os_free(&c->os);
	free(c->pages);
	free(c->xstate);
	free(c->tids);
	free(c->where);
	free(c);
}

/* Copy the dirty pages into c, int3 bytes replaced by the originals;
 * zero entries for the pages in z (dropped since the parent). */
static int ckpt_copy(struct qz *q, struct ckpt *c, const struct ckpt_addrs *d,
		     const struct ckpt_addrs *z)
{
	uint8_t **bufs = xmalloc((d->n + 1) * sizeof *bufs);
	struct ckpt_blob **blobs = xmalloc((d->n + 1) * sizeof *blobs);
	c->pages = xmalloc((d->n + z->n + 1) * sizeof *c->pages);
	ckpt_blobs_alloc(d->n, blobs);
	size_t i = 0, j = 0;
	while (i < d->n || j < z->n) {
		if (j >= z->n || (i < d->n && d->a[i] < z->a[j])) {
			bufs[i] = blobs[i]->data;
			c->pages[c->npages++] = (struct ckpt_page){d->a[i], blobs[i]};
			i++;
		} else {
			c->pages[c->npages++] = (struct ckpt_page){z->a[j++], NULL};
		}
	}
	c->ndata = d->n;
	int r = ckpt_mem_read(q, d->a, d->n, bufs);
	free(bufs);
	for (i = 0; r == 0 && q->bps.nsites && i < d->n; i++)
		bp_mask(&q->bps, d->a[i], blobs[i]->data, CKPT_PAGE);
	free(blobs);
	return r;
}

/* Pages that hold nothing now but held data at base: with a method that
 * sees only writes, the checkpoint must record them as zeros. */
static int ckpt_dropped(struct qz *q, struct ckpt_state *s, const struct ckpt_os *os,
			const struct ckpt_addrs *d, struct ckpt_addrs *z)
{
	struct ckpt_addrs h = {0};
	if (!s->base || !ckpt_dirty_misses_holes(s->dirty))
		return 0;
	if (ckpt_holes(q, s, os, &h) < 0)
		return -1;
	for (size_t i = 0; i < h.n; i++)
		if (!ckpt_addrs_has(d, h.a[i]) && ckpt_lookup(s->base, h.a[i]))
			ckpt_addrs_add(z, h.a[i]);
	ckpt_addrs_free(&h);
	return 0;
}

static void ckpt_regs_save(struct qz *q, struct ckpt *c)
{
	c->regs = *proc_regs(q->proc);
	c->xstate = regs_xstate_read(proc_cur_tid(q->proc), &c->xlen);
	c->has_mask = ptrace(PTRACE_GETSIGMASK, proc_cur_tid(q->proc), sizeof c->sigmask,
			     &c->sigmask) == 0;
	c->stop = q->stop;
	c->stop_sig = q->stop_sig;
	ckpt_threads_save(q, c);
	mod_save(q, c->saved);
}

static char *ckpt_where(struct qz *q)
{
	frame_invalidate(q);
	const struct frame *f = frame_get(q, 0);
	if (f && f->file)
		return xasprintf("%s:%d", str_basename(f->file), f->line);
	char sym[256];
	uint64_t pc = proc_pc(q->proc);
	if (qz_symbolize(q, pc, sym, sizeof sym))
		return xasprintf("0x%016llx in %s", (unsigned long long)pc, sym);
	return xasprintf("0x%016llx", (unsigned long long)pc);
}

/* An int3 on libc's _exit: a program that exits stops there, reported as
 * exited, and stays available to roll back. */
static void ckpt_plant_exit(struct qz *q, struct ckpt_state *s)
{
	if (s->exit_site)
		return;
	qz_refresh_modules(q);
	for (size_t i = 0; i < q->nlibs; i++) {
		const struct img_sym *sym = q->libs[i].img ?
			img_sym_named_global(q->libs[i].img, "_exit") : NULL;
		if (sym && q->libs[i].lo) {
			s->exit_site = sym->addr + q->libs[i].bias;
			bp_site_add(&q->bps, q->proc, s->exit_site);
			return;
		}
	}
}

static void ckpt_append(struct ckpt_state *s, struct ckpt *c)
{
	XGROW(s->cps, s->cap, s->n + 1);
	s->cps[s->n++] = c;
	c->parent = s->base;
	s->base = c;
}

static int ckpt_start_tracking(struct qz *q, struct ckpt_state *s)
{
	if (s->dirty || s->undo)
		return 0;
	/* (never where the userfaultfd would stay in the program: a fault
	 * with qzdb gone would wait for ever) */
	if ((s->want == CKPT_AUTO || s->want == CKPT_UNDO) && !s->undo_off && !s->uffd_in_program)
		s->undo = ckpt_undo_new(q, !s->undo_fg, s->undo_noprot, s->undo_nofill, !s->undo_noagent);
	if (s->undo)
		return 0;
	if (s->want == CKPT_UNDO)
		return qz_error(q, "The undo method is not available here (a synchronous userfaultfd "
			       "that qzdb alone holds: privilege, vm.unprivileged_userfaultfd, Linux 6.4).");
	s->dirty = ckpt_dirty_new(q, s, s->want);
	if (!s->dirty)
		return qz_error(q, "The pagemap method is not available here "
			       "(userfaultfd write-protect with PAGEMAP_SCAN, Linux 6.7).");
	return 0;
}

/* Snapshot everything but the report. */
static struct ckpt *ckpt_snapshot(struct qz *q, struct ckpt_state *s)
{
	struct ckpt *c = xcalloc(1, sizeof *c);
	struct ckpt_addrs d = {0}, z = {0};
	int r = ckpt_os_read(q, &c->os, CKPT_OS_ALL);
	if (r == 0 && s->undo) {   /* copies nothing: undo-roll.c protects */
		ckpt_regs_save(q, c);
		c->method = "undo";
		return c;
	}
	if (r == 0)
		r = ckpt_dirty_scan(s->dirty, q, s, &c->os, &d, true);
	if (r == 0)
		r = ckpt_dropped(q, s, &c->os, &d, &z);
	if (r == 0)
		r = ckpt_copy(q, c, &d, &z);
	ckpt_addrs_free(&d);
	ckpt_addrs_free(&z);
	if (r < 0) {
		ckpt_free_one(q, c);
		qz_error(q, "Cannot read the program's state for a checkpoint.");
		return NULL;
	}
	ckpt_regs_save(q, c);
	c->method = ckpt_dirty_name(s->dirty);
	return c;
}

/* The words in /proc/PID/task/PID/children: the children it has, but
 * for qzdb's save agent (agent.c; its clone, never the program's). */
static long ckpt_children(pid_t pid, pid_t agent)
{
	char path[96], buf[4096];
	long n = 0;
	snprintf(path, sizeof path, "/proc/%d/task/%d/children", pid, pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(buf, sizeof buf, f))
		for (char *t = strtok(buf, " \n"); t; t = strtok(NULL, " \n"))
			n += !agent || atol(t) != agent;
	fclose(f);
	return n;
}

static void ckpt_limits_fds(const struct ckpt_os *os, struct sbuf *b)
{
	struct sbuf out = {0};
	int sockets = 0;
	for (size_t i = 0; i < os->nfds; i++) {
		const char *p = os->fds[i].path;
		if (str_starts(p, "socket:"))
			sockets++;
		else if (str_starts(p, "pipe:") || str_starts(p, "/dev/pts/") || str_starts(p, "/dev/tty"))
			sbuf_printf(&out, "%s%d", out.len ? ", " : "", os->fds[i].fd);
	}
	if (out.len)
		sbuf_printf(b, "; output already written to a terminal or pipe (fd %s) stays written", out.s);
	if (sockets)
		sbuf_printf(b, "; %d socket%s", sockets, sockets > 1 ? "s" : "");
	sbuf_free(&out);
}

/* Say once what a rollback cannot undo (again when that changes). */
static void ckpt_warn_limits(struct qz *q, struct ckpt_state *s, const struct ckpt *c)
{
	struct sbuf b = {0};
	pid_t pid = proc_pid(q->proc);
	size_t shared = 0;
	ckpt_limits_fds(&c->os, &b);
	for (size_t i = 0; i < c->os.nmaps; i++)
		shared += c->os.maps[i].shared && (c->os.maps[i].prot & 2);
	if (shared)
		sbuf_printf(&b, "; %zu writable shared mapping%s", shared, shared > 1 ? "s" : "");
	long kids = ckpt_children(pid, s->agent_pid), threads = proc_status_field(pid, "Threads:") - 1;
	if (kids)
		sbuf_printf(&b, "; %ld child process%s", kids, kids > 1 ? "es" : "");
	if (threads > 0)
		sbuf_printf(&b, "; %ld other thread%s (only this one is saved)", threads,
			    threads > 1 ? "s" : "");
	if (b.len && (!s->limits || strcmp(s->limits, b.s))) {
		qz_warn(q, "a rollback does not undo: %s.", b.s + 2);
		free(s->limits);
		s->limits = sbuf_take(&b);
	}
	sbuf_free(&b);
}

bool ckpt_siginfo_get(struct qz *q, siginfo_t *si)
{
	return ptrace(PTRACE_GETSIGINFO, proc_cur_tid(q->proc), 0, si) == 0;
}

void ckpt_siginfo_put(struct qz *q, const siginfo_t *si)
{
	ptrace(PTRACE_SETSIGINFO, proc_cur_tid(q->proc), 0, si);
}

static int ckpt_take_at(struct qz *q, bool automatic, const siginfo_t *si)
{
	struct ckpt_state *s = ckpt_state(q);
	uint64_t t0 = ckpt_now_ns();
	if (ckpt_start_tracking(q, s) < 0 || ckpt_argpage(q, s) < 0)
		return q->err.len ? -1 : qz_error(q, "Cannot map a page in the program.");
	if (ckpt_dirty_check(s->dirty, q, s) < 0)
		return -1;
	/* the program's own protection, not the watches' (a page that lost
	 * PROT_WRITE to a watch would be neither saved nor tracked) */
	pw_protect(q, false);
	struct ckpt *c = ckpt_snapshot(q, s);
	if (c && s->undo)
		ckpt_undo_take(q, s, c);
	pw_protect(q, true);
	if (!c)
		return -1;
	c->has_si = si != NULL;
	if (si)
		c->si = *si;
	c->id = ++s->next_id;
	c->automatic = automatic;
	rx_note_ckpt(q, c);
	c->where = ckpt_where(q);
	c->at_ns = ckpt_now_ns() - s->start_ns;
	if (!s->undo)
		ckpt_append(s, c);
	ckpt_plant_exit(q, s);
	s->took_ckpt_ns = ckpt_now_ns() - t0;
	if (s->undo)
		ckpt_undo_kick(s->undo);
	if (automatic) {
		ckpt_check_budget(q);
		return 0;
	}
	qz_printf(q, "Checkpoint %d at %s (%zu pages, %llu KiB)\n", c->id, c->where, c->ndata,
		  (unsigned long long)(ckpt_data_bytes(c) / 1024));
	ckpt_warn_limits(q, s, c);
	if (ckpt_dirty_verdict(s->dirty))
		qz_printf(q, "%s\n", ckpt_dirty_verdict(s->dirty));
	ckpt_check_budget(q);
	return 0;
}

/* The stop's siginfo (a crash's: signal, code, address) survives the
 * injected system calls, so that continuing delivers the same signal and
 * explain names it. */
int ckpt_take(struct qz *q, bool automatic)
{
	siginfo_t si;
	bool has = ckpt_siginfo_get(q, &si);
	int r = ckpt_take_at(q, automatic, has ? &si : NULL);
	if (has)
		ckpt_siginfo_put(q, &si);
	return r;
}

/* Give parent's pages that child lacks to child (child keeps its own). */
static void ckpt_merge_into(const struct ckpt *c, struct ckpt *child)
{
	struct ckpt_page *m = xmalloc((c->npages + child->npages + 1) * sizeof *m);
	size_t i = 0, j = 0, n = 0;
	while (i < c->npages || j < child->npages) {
		if (j < child->npages && (i >= c->npages || child->pages[j].addr <= c->pages[i].addr)) {
			if (i < c->npages && c->pages[i].addr == child->pages[j].addr)
				i++;
			m[n++] = child->pages[j++];
		} else {
			if (c->pages[i].blob)
				c->pages[i].blob->refs++;
			m[n++] = c->pages[i++];
		}
	}
	free(child->pages);
	child->pages = m;
	child->npages = n;
	child->ndata = 0;
	for (i = 0; i < n; i++)
		child->ndata += m[i].blob != NULL;
}

static void ckpt_remove(struct qz *q, struct ckpt_state *s, size_t at)
{
	struct ckpt *c = s->cps[at];
	for (size_t i = 0; i < s->n; i++) {
		if (s->cps[i]->parent != c)
			continue;
		ckpt_merge_into(c, s->cps[i]);
		s->cps[i]->parent = c->parent;
	}
	memmove(&s->cps[at], &s->cps[at + 1], (s->n - at - 1) * sizeof *s->cps);
	s->n--;
	ckpt_free_one(q, c);
}

/* Forget every checkpoint; the process, if alive, is untouched except for
 * qzdb's own userfaultfd and _exit breakpoint. */
static void ckpt_clear(struct qz *q, struct ckpt_state *s, bool alive)
{
	while (s->n)
		ckpt_remove(q, s, s->n - 1);
	ckpt_dirty_free(s->dirty, alive ? q : NULL);
	s->dirty = NULL;
	if (alive)
		ckpt_cut_remove(q, s);
	s->ncut = 0;
	s->cut_planted = false;
	ckpt_undo_free(s->undo, q);
	s->undo = NULL;
	if (alive)   /* (after an exec its memory went with the old program) */
		ckpt_agent_unmap(q, s);
	s->agent_lo = s->agent_hi = 0;
	s->agent_pid = 0;
	ckpt_shadow_free(&s->shadow);
	ckpt_pool_drain();
	s->base = NULL;
	if (alive && s->exit_site)
		bp_site_del(&q->bps, q->proc, s->exit_site);
	s->exit_site = 0;
	if (!alive)
		s->argpage = 0;
}

static size_t ckpt_live(const struct ckpt_state *s)
{
	size_t n = 0;
	for (size_t i = 0; i < s->n; i++)
		n += !s->cps[i]->dead;
	return n;
}

/* Dead checkpoints go once nothing needs them: the base stays while the
 * dirty tracking counts from it. No live one left: start afresh. */
static void ckpt_gc(struct qz *q, struct ckpt_state *s)
{
	for (size_t i = 0; i < s->n;) {
		if (s->cps[i]->dead && s->cps[i] != s->base)
			ckpt_remove(q, s, i);
		else
			i++;
	}
	if (ckpt_live(s))
		return;
	ckpt_clear(q, s, proc_alive(q->proc));
	if (q->held)   /* nothing to roll back to: let it be gone */
		qz_process_gone(q);
}

int ckpt_delete(struct qz *q, int id)
{
	struct ckpt *c = ckpt_find(ckpt_state(q), id);
	if (!c)
		return qz_error(q, "No checkpoint number %d.", id);
	c->dead = true;
	ckpt_gc(q, ckpt_state(q));
	return 0;
}

static uint64_t ckpt_total(const struct ckpt_state *s)
{
	uint64_t t = 0;
	for (size_t i = 0; i < s->n; i++)
		t += ckpt_bytes(s->cps[i]);
	return t;
}

/* The oldest live checkpoint to thin, automatic ones first; never the
 * newest. */
static struct ckpt *ckpt_victim(struct ckpt_state *s)
{
	struct ckpt *newest = NULL, *v = NULL;
	for (size_t i = 0; i < s->n; i++)
		if (!s->cps[i]->dead)
			newest = s->cps[i];
	for (int pass = 0; pass < 2 && !v; pass++)
		for (size_t i = 0; i < s->n && !v; i++)
			if (!s->cps[i]->dead && s->cps[i] != newest &&
			    (pass || s->cps[i]->automatic))
				v = s->cps[i];
	return v;
}

void ckpt_check_budget(struct qz *q)
{
	struct ckpt_state *s = ckpt_state(q);
	while (s->budget && ckpt_total(s) > s->budget) {
		struct ckpt *v = ckpt_victim(s);
		if (!v)
			return;
		if (!v->automatic)
			qz_printf(q, "Checkpoint %d deleted: checkpoint-budget of %llu MiB exceeded.\n",
				  v->id, (unsigned long long)(s->budget >> 20));
		v->dead = true;
		ckpt_gc(q, s);
	}
}

/* ---- automatic checkpoints ---- */

/* The interval timer stops the running program with SIGSTOP; the stop is
 * claimed by ckpt_on_signal. SIGALRM only fires while qzdb waits for the
 * running program (proc_alarm_window). */
static volatile sig_atomic_t ckpt_alarm_pid, ckpt_alarm_sent;

static void ckpt_alarm(int sig)
{
	(void)sig;
	/* the flag before the signal, and taken back by an exchange (below):
	 * the handler may run on any of qzdb's threads (the protector, the
	 * fault thread) while the main thread takes the last alarm's stop,
	 * and a stop unaccounted for reached the user as "Program received
	 * signal SIGSTOP" (a checkpoint slower than the interval: two
	 * alarms in it) */
	if (ckpt_alarm_pid > 0) {
		__atomic_store_n(&ckpt_alarm_sent, 1, __ATOMIC_SEQ_CST);
		kill(ckpt_alarm_pid, SIGSTOP);
	}
}

void ckpt_timer_arm(struct qz *q)
{
	struct ckpt_state *s = ckpt_state(q);
	int ms = proc_alive(q->proc) ? s->interval_ms : 0;
	struct itimerval it = {{ms / 1000, ms % 1000 * 1000}, {ms / 1000, ms % 1000 * 1000}};
	if (ms) {
		struct sigaction sa = {.sa_handler = ckpt_alarm, .sa_flags = SA_RESTART};
		sigemptyset(&sa.sa_mask);
		sigaction(SIGALRM, &sa, NULL);
		proc_alarm_window(true);
	}
	ckpt_alarm_pid = ms ? proc_pid(q->proc) : 0;
	setitimer(ITIMER_REAL, &it, NULL);
	if (!ms)
		proc_alarm_window(false);
	s->last_auto_ns = ckpt_now_ns();
}

static int ckpt_on_signal(struct qz *q, int sig)
{
	struct ckpt_state *s = ckpt_state(q);
	if (sig != SIGSTOP || !__atomic_exchange_n(&ckpt_alarm_sent, 0, __ATOMIC_SEQ_CST))
		return RUN_TARGET;
	uint64_t now = ckpt_now_ns();
	if (s->interval_ms && now - s->last_auto_ns >= (uint64_t)s->interval_ms * 900000ull) {
		/* (from the checkpoint's start: counted from its end, the alarms
		 * that fell inside a slow one were taken and not used, and one
		 * stop in about ten of a loaded run reached the user as "Program
		 * received signal SIGSTOP", reexec.sh's exec-direction case:
		 * measured, cause not found) */
		s->last_auto_ns = now;
		if (ckpt_take(q, true) < 0)
			qz_warn(q, "automatic checkpoint failed: %s", q->err.s ? q->err.s : "");
	}
	return RUN_AGAIN;
}

/* ---- hidden checkpoints (a replay's `b`) ---- */

/* qz_mod.mark: a checkpoint that takes no number the user sees. */
static int ckpt_hidden_take(struct qz *q)
{
	struct ckpt_state *s = ckpt_state(q);
	if (!s)
		return qz_error(q, "Checkpoints are not available.");
	int next = s->next_id;
	if (ckpt_take(q, true) < 0)
		return -1;
	struct ckpt *c = ckpt_find(s, next + 1);
	s->next_id = next;   /* the user's next checkpoint keeps its number */
	if (!c)
		return qz_error(q, "The checkpoint was thinned at once (checkpoint-budget).");
	c->id = -(++s->hidden_ids);
	c->hidden = true;
	c->user_next = next;
	return -c->id;
}

/* qz_mod.back */
static int ckpt_hidden_rollback(struct qz *q, int handle)
{
	struct ckpt_state *s = ckpt_state(q);
	struct ckpt *c = s && handle > 0 ? ckpt_find(s, -handle) : NULL;
	if (!c)
		return qz_error(q, "That step's checkpoint is gone.");
	if (!q->proc || !ckpt_process_check(q))
		return qz_error(q, "The program is not being run.");
	bool was = q->quiet;
	q->quiet = true;
	int rc = ckpt_rollback(q, c);
	q->quiet = was;
	if (rc < 0)
		return rc;
	/* Going back over a `checkpoint` command undoes it too, so running
	 * that command again gives the number it gave the first time. */
	for (size_t i = 0; i < s->n; i++)
		if (!s->cps[i]->hidden && s->cps[i]->id > c->user_next)
			s->cps[i]->dead = true;
	ckpt_gc(q, s);
	s->next_id = c->user_next;
	return 0;
}

/* ---- the module: state and hooks ---- */

static void *ckpt_new(struct qz *q)
{
	(void)q;
	struct ckpt_state *s = xcalloc(1, sizeof *s);
	s->want = CKPT_AUTO;
	return s;
}

struct ckpt_state *ckpt_state(struct qz *q)
{
	return mod_state(q, &ckpt_mod);
}

static void ckpt_on_start(struct qz *q)
{
	struct ckpt_state *s = ckpt_state(q);
	s->start_ns = ckpt_now_ns();
	s->lost = false;
	if (!s->in_exec)   /* a new run: its ids are its own */
		s->exec_below = 0;
	s->in_exec = false;
	if (s->interval_ms)
		ckpt_timer_arm(q);
	rx_arm(q);
}

/* The process executed a new program (it is still there: q->proc): the
 * checkpoints' memory image went with the old program, so they go, as
 * gdb's do, and say so (a rollback must never put back a stale image). */
static void ckpt_exec_discard(struct qz *q, struct ckpt_state *s)
{
	s->in_exec = true;
	size_t n = 0;
	for (size_t i = 0; i < s->n; i++)
		n += !s->cps[i]->dead && !s->cps[i]->hidden;
	if (!n)
		return;
	s->exec_below = s->next_id + 1;
	qz_printf(q, "Checkpoint%s discarded: process %d executed a new program, the memory "
		  "%s went with the old one.\n", n == 1 ? "" : "s", proc_pid(q->proc),
		  n == 1 ? "it holds" : "they hold");
}

static void ckpt_on_gone(struct qz *q)
{
	struct ckpt_state *s = ckpt_state(q);
	if (q->proc)
		ckpt_exec_discard(q, s);
	else if (ckpt_live(s))
		s->lost = true;
	ckpt_clear(q, s, false);
	rx_forget(q);
	q->held = false;
	if (ckpt_alarm_pid)
		ckpt_timer_arm(q);
}

static void ckpt_fini(struct qz *q)
{
	if (ckpt_alarm_pid) {   /* the process is already freed here */
		struct itimerval off = {{0, 0}, {0, 0}};
		ckpt_alarm_pid = 0;
		setitimer(ITIMER_REAL, &off, NULL);
		proc_alarm_window(false);
	}
	struct ckpt_state *s = ckpt_state(q);
	ckpt_clear(q, s, false);
	rx_forget(q);
	free(s->limits);
	free(s->cps);
	free(s);
}

static int ckpt_on_trap(struct qz *q, uint64_t pc)
{
	struct ckpt_state *s = ckpt_state(q);
	int rx = rx_on_trap(q, pc);   /* a reverse move's stop */
	if (rx != RUN_TARGET)
		return rx;
	ckpt_cut_hit(q, s, pc);   /* saved; the program goes on (or stops at
				     the user's breakpoint there) */
	if (!s->exit_site || pc != s->exit_site)
		return RUN_TARGET;
	run_report_exit(q, (int)(proc_regs(q->proc)->rdi & 0xff));
	qz_printf(q, "The process is held at its exit for rollback (%zu checkpoint%s).\n",
		  ckpt_live(s), ckpt_live(s) == 1 ? "" : "s");
	q->stop = QZ_STOP_EXITED;
	q->held = true;
	return RUN_STOPPED;
}

/* A bit of a /proc/PID/status signal mask line. */
static bool ckpt_sig_in(pid_t pid, const char *field, int sig)
{
	uint64_t mask;
	return proc_status_mask(pid, field, &mask) && (mask >> (sig - 1)) & 1;
}

/* Resuming with sig would end the process: keep it if checkpoints exist. */
static bool ckpt_keep_dying(struct qz *q, int sig)
{
	static const int survivable[] = {SIGCHLD, SIGCONT, SIGSTOP, SIGTSTP, SIGTTIN,
					 SIGTTOU, SIGURG, SIGWINCH, 0};
	if (!ckpt_live(ckpt_state(q)) || sig <= 0 || sig > 64)
		return false;
	for (int i = 0; survivable[i]; i++)
		if (sig == survivable[i])
			return false;
	pid_t pid = proc_pid(q->proc);
	return !ckpt_sig_in(pid, "SigCgt:", sig) && !ckpt_sig_in(pid, "SigIgn:", sig);
}

const struct qz_mod ckpt_mod = {
	.name = "ckpt",
	.cmds = ckpt_cmds,
	.init = ckpt_new,
	.on_start = ckpt_on_start,
	.on_gone = ckpt_on_gone,
	.fini = ckpt_fini,
	.on_trap = ckpt_on_trap,
	.keep_dying = ckpt_keep_dying,
	.on_signal = ckpt_on_signal,
	.on_sigtrap = rx_on_sigtrap,
	.on_detach = rx_forget,
	.reverse = rx_reverse,
	.can_reverse = rx_can_reverse,
	.mark = ckpt_hidden_take,
	.back = ckpt_hidden_rollback,
};

