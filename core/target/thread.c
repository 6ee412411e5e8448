/* thread: thread numbers, names and messages, the thread commands, and the
 * session's side of a fork (which process keeps the breakpoints). */
#include "thread.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bp.h"
#include "cmd/cmd.h"
#include "cmd/cmds.h"
#include "frame.h"
#include "proc/proc.h"
#include "session.h"
#include "watch.h"
#include "util/util.h"

/* The name the kernel keeps for a thread (its comm). */
static void thread_name(struct qz *q, int tid, char *buf, size_t len)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/task/%d/comm", proc_pid(q->proc), tid);
	buf[0] = 0;
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

/* gdb names a thread by its pthread_t (the thread pointer); before libc
 * set one up, by its process. */
static void thread_target_id(const struct proc_thread_info *t, struct sbuf *b)
{
	if (t->fs_base)
		sbuf_printf(b, "Thread 0x%llx (LWP %d)", (unsigned long long)t->fs_base, t->tid);
	else
		sbuf_printf(b, "process %d", t->tid);
}

static void thread_on_thread(void *ctx, const struct proc_thread_info *t, bool created)
{
	struct qz *q = ctx;
	struct sbuf b = {0};
	sbuf_add(&b, created ? "[New " : "[");
	thread_target_id(t, &b);
	sbuf_add(&b, created ? "]\n" : " exited]\n");
	qz_puts(q, b.s);
	sbuf_free(&b);
	if (created)   /* a new thread starts without debug registers */
		watch_arm(q, t->tid);
}

/* Put the original bytes back in a copy of the memory (a fork child that
 * shares nothing with us from now on). */
static void thread_unplant(struct qz *q, struct proc *p, int pid)
{
	for (size_t i = 0; i < q->bps.nsites; i++) {
		const struct bp_site *s = &q->bps.sites[i];
		if (!s->inserted)
			continue;
		if (pid)
			proc_write_pid(pid, s->addr, &s->orig, 1);
		else
			proc_write(p, s->addr, &s->orig, 1);
	}
}

static bool thread_on_fork(void *ctx, struct proc *p, pid_t child, bool may_follow)
{
	struct qz *q = ctx;
	if (!q->thr.follow_child || !may_follow) {
		thread_unplant(q, p, child);
		qz_printf(q, "[Detaching after fork from child process %d]\n", child);
		return false;
	}
	struct proc_thread_info t;
	proc_thread_cur(p, &t);
	qz_printf(q, "[Attaching after Thread 0x%llx (LWP %d) fork to child process %d]\n",
		  (unsigned long long)t.fs_base, t.tid, child);
	qz_printf(q, "[New inferior %d (process %d)]\n", thread_inferior(q) + 1, child);
	thread_unplant(q, p, 0);
	qz_printf(q, "[Detaching after fork from parent process %d]\n", proc_pid(p));
	qz_printf(q, "[Inferior %d (process %d) detached]\n", thread_inferior(q), proc_pid(p));
	q->thr.inferior = thread_inferior(q) + 1;
	q->thr.shown_tid = 0;
	return true;
}

/* The vfork child borrows the memory until it execs or exits: no int3 may
 * be left there for it to hit (it is not traced). */
static void thread_on_vfork(void *ctx, struct proc *p, pid_t child, bool done)
{
	struct qz *q = ctx;
	struct thread_state *ts = &q->thr;
	if (done) {
		for (size_t i = 0; i < ts->nvfork_sites; i++) {
			struct bp_site *s = bp_site_at(&q->bps, ts->vfork_sites[i]);
			if (s)
				bp_site_lift(&q->bps, p, s);
		}
		ts->nvfork_sites = 0;
		return;
	}
	for (size_t i = 0; i < q->bps.nsites; i++) {
		struct bp_site *s = &q->bps.sites[i];
		if (!s->inserted)
			continue;
		XGROW(ts->vfork_sites, ts->vfork_cap, ts->nvfork_sites + 1);
		ts->vfork_sites[ts->nvfork_sites++] = s->addr;
		bp_site_drop(&q->bps, p, s);
	}
	qz_printf(q, "[Detaching after vfork from child process %d]\n", child);
}

void thread_attach(struct qz *q)
{
	struct proc_notify n = { .ctx = q, .thread = thread_on_thread, .fork = thread_on_fork,
				 .vfork = thread_on_vfork };
	q->thr.nvfork_sites = 0;
	proc_set_notify(q->proc, &n);
	q->thr.shown_tid = proc_pid(q->proc);
	q->thr.inferior = 1;
}

int thread_inferior(const struct qz *q)
{
	return q->thr.inferior ? q->thr.inferior : 1;
}

/* gdb's thread id: "2", or "2.1" once there are several inferiors. */
static void thread_id(struct qz *q, int num, struct sbuf *b)
{
	if (thread_inferior(q) > 1)
		sbuf_printf(b, "%d.%d", thread_inferior(q), num);
	else
		sbuf_printf(b, "%d", num);
}

void thread_report_switch(struct qz *q)
{
	struct proc_thread_info t;
	if (!qz_running(q) || proc_thread_cur(q->proc, &t) < 0)
		return;
	bool show = (proc_multi(q->proc) || thread_inferior(q) > 1) &&
		    t.tid != q->thr.shown_tid;
	q->thr.shown_tid = t.tid;
	if (!show)
		return;
	struct sbuf b = {0};
	sbuf_add(&b, "[Switching to ");
	thread_target_id(&t, &b);
	sbuf_add(&b, "]\n");
	qz_puts(q, b.s);
	sbuf_free(&b);
}

void thread_who(struct qz *q, struct sbuf *b)
{
	struct proc_thread_info t;
	if (!qz_running(q) || (!proc_multi(q->proc) && thread_inferior(q) < 2) ||
	    proc_thread_cur(q->proc, &t) < 0)
		return;
	char name[64];
	thread_name(q, t.tid, name, sizeof name);
	sbuf_add(b, "Thread ");
	thread_id(q, t.num, b);
	sbuf_printf(b, " \"%s\" ", name);
}

/* ---- commands ---- */

/* Select thread tid; frames are computed afresh for it. */
static void thread_select(struct qz *q, pid_t tid)
{
	if (!qz_running(q) || proc_select(q->proc, tid) < 0)
		return;
	frame_invalidate(q);
	q->sel_frame = 0;
}

/* The frame column of info threads: frame 0 of the selected thread. */
static void thread_frame_text(struct qz *q, struct sbuf *b)
{
	const struct frame *f = frame_get(q, 0);
	if (f)
		frame_describe(q, f, !f->file || !f->line_start, b);
}

static char *thread_row_id(struct qz *q, const struct proc_thread_info *t)
{
	struct sbuf b = {0};
	char name[64];
	thread_name(q, t->tid, name, sizeof name);
	thread_target_id(t, &b);
	sbuf_printf(&b, " \"%s\"", name);
	return sbuf_take(&b);
}

static void thread_info_row(struct qz *q, const struct proc_thread_info *t,
			    const char *target, int width, pid_t cur, struct sbuf *b)
{
	struct sbuf id = {0};
	thread_id(q, t->num, &id);
	sbuf_printf(b, "%s%-4s %-*s ", t->tid == cur ? "* " : "  ", id.s, width, target);
	sbuf_free(&id);
	thread_select(q, t->tid);
	if (!t->gone)
		thread_frame_text(q, b);
	sbuf_addc(b, '\n');
}

/* Is num in the list "2 4-5" (an empty list has everything)? */
static bool thread_listed(const char *list, int num)
{
	const char *p = str_skip_space(list);
	if (!*p)
		return true;
	while (*p) {
		int64_t lo, hi;
		if (str_num(&p, 0, INT32_MAX, &lo))
			return false;
		hi = lo;
		if (*p == '-') {
			p++;
			if (str_num(&p, 0, INT32_MAX, &hi))
				return false;
		}
		if (num >= lo && num <= hi)
			return true;
		p = str_skip_space(p);
	}
	return false;
}

int cmd_info_threads(struct qz *q, const char *a)
{
	if (!qz_running(q)) {
		qz_puts(q, "No threads.\n");
		return 0;
	}
	for (const char *c = a; *c; c++)
		if (!strchr("0123456789- ", *c))
			return qz_error(q, "Invalid thread ID: %s", a);
	size_t n = proc_nthreads(q->proc);
	struct proc_thread_info *ts = xcalloc(n, sizeof *ts), cur;
	char **ids = xcalloc(n, sizeof *ids);
	int width = 9, sel = q->sel_frame;
	proc_thread_cur(q->proc, &cur);
	for (size_t i = 0; i < n; i++) {
		proc_thread_at(q->proc, i, &ts[i]);
		ids[i] = thread_row_id(q, &ts[i]);
		if ((int)strlen(ids[i]) > width)
			width = (int)strlen(ids[i]);
	}
	struct sbuf b = {0};
	sbuf_printf(&b, "  Id   %-*s Frame \n", width, "Target Id");
	size_t shown = 0;
	for (size_t i = 0; i < n; i++) {
		if (thread_listed(a, ts[i].num)) {
			thread_info_row(q, &ts[i], ids[i], width, cur.tid, &b);
			shown++;
		}
		free(ids[i]);
	}
	if (!shown) {
		sbuf_free(&b);
		sbuf_printf(&b, "No threads match '%s'.\n", a);
	}
	thread_select(q, cur.tid);
	q->sel_frame = sel;
	qz_puts(q, b.s);
	sbuf_free(&b);
	free(ids);
	free(ts);
	return 0;
}

/* The thread numbered num ("2", or "I.2" for the current inferior I), as
 * an index; -1 if there is none. */
static int thread_parse(struct qz *q, const char *s, struct proc_thread_info *out)
{
	int64_t num;
	const char *dot = strchr(s, '.');
	if (dot) {
		char *inf = xstrndup(s, (size_t)(dot - s));
		int64_t in;
		bool ok = str_to_i64(inf, &in) && in == thread_inferior(q);
		free(inf);
		if (!ok)
			return -1;
		s = dot + 1;
	}
	if (!str_to_i64(s, &num) || !qz_running(q))
		return -1;
	for (size_t i = 0; i < proc_nthreads(q->proc); i++)
		if (proc_thread_at(q->proc, i, out) == 0 && out->num == num)
			return (int)i;
	return -1;
}

static bool thread_id_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if ((*s < '0' || *s > '9') && *s != '.')
			return false;
	return true;
}

int cmd_thread(struct qz *q, const char *a)
{
	struct proc_thread_info t;
	struct sbuf b = {0};
	if (str_starts(a, "apply") && (a[5] == 0 || a[5] == ' '))
		return cmd_thread_apply(q, str_skip_space(a + 5));
	if (!*a) {
		if (!qz_running(q) || proc_thread_cur(q->proc, &t) < 0)
			return qz_error(q, "No thread selected");
		sbuf_add(&b, "[Current thread is ");
		thread_id(q, t.num, &b);
		sbuf_add(&b, " (");
		thread_target_id(&t, &b);
		qz_printf(q, "%s)]\n", b.s);
		sbuf_free(&b);
		return 0;
	}
	if (!thread_id_ok(a))
		return qz_error(q, "Invalid thread ID: %s", a);
	if (thread_parse(q, a, &t) < 0)
		return qz_error(q, "Unknown thread %s.", a);
	thread_select(q, t.tid);
	q->thr.shown_tid = t.tid;
	sbuf_add(&b, "[Switching to thread ");
	thread_id(q, t.num, &b);
	sbuf_add(&b, " (");
	thread_target_id(&t, &b);
	qz_printf(q, "%s)]\n", b.s);
	sbuf_free(&b);
	return cmd_frame(q, "");
}

/* Run cmd in thread t, under gdb's heading. */
static void thread_apply_one(struct qz *q, const struct proc_thread_info *t, const char *cmd)
{
	struct sbuf b = {0};
	if (!qz_running(q))   /* the command before ran the program to its end */
		return;
	char *target = thread_row_id(q, t);
	sbuf_add(&b, "\nThread ");
	thread_id(q, t->num, &b);
	qz_printf(q, "%s (%s):\n", b.s, target);
	free(target);
	sbuf_free(&b);
	thread_select(q, t->tid);
	cmd_run(q, cmd);
}

static void thread_apply_all(struct qz *q, const char *cmd)
{
	size_t n = proc_nthreads(q->proc);
	struct proc_thread_info *ts = xcalloc(n, sizeof *ts);
	for (size_t i = 0; i < n; i++)
		proc_thread_at(q->proc, i, &ts[i]);
	for (size_t i = n; i-- > 0;) {   /* gdb goes from the newest down */
		size_t best = i;
		for (size_t j = 0; j < i; j++)
			if (ts[j].num > ts[best].num)
				best = j;
		struct proc_thread_info t = ts[best];
		ts[best] = ts[i];
		thread_apply_one(q, &t, cmd);
	}
	free(ts);
}

/* "1 2 4-5 CMD": apply CMD to the listed threads, in that order. */
static int thread_apply_list(struct qz *q, const char *a)
{
	const char *p = a;
	while (*p && ((*p >= '0' && *p <= '9') || *p == '-' || *p == '.' || *p == ' '))
		p++;
	if (p == a)
		return qz_error(q, "Invalid thread ID: %s", a);
	if (!*p)
		return qz_error(q, "Please specify a command following the thread ID list");
	char *list = xstrndup(a, (size_t)(p - a));
	int r = 0;
	for (char *tok = strtok(list, " "); tok && r == 0; tok = strtok(NULL, " ")) {
		int64_t lo, hi;
		char *dash = strchr(tok, '-');
		if (dash)
			*dash = 0;
		if (str_num_all(tok, 1, INT32_MAX, &lo) ||
		    (dash && str_num_all(dash + 1, 1, INT32_MAX, &hi)))
			r = qz_error(q, "Invalid thread ID: %s", a);
		else if (dash && (hi < lo || hi - lo >= 65536))   /* each is a line */
			r = qz_error(q, "Invalid thread ID range: %s-%s", tok, dash + 1);
		for (int64_t n = lo; r == 0 && n <= (dash ? hi : lo); n++) {
			struct proc_thread_info t;
			char num[24];
			snprintf(num, sizeof num, "%lld", (long long)n);
			if (thread_parse(q, num, &t) < 0)
				qz_printf(q, "warning: Unknown thread %s\n", num);
			else
				thread_apply_one(q, &t, p);
		}
	}
	free(list);
	return r;
}

int cmd_thread_apply(struct qz *q, const char *a)
{
	if (!*a)
		return qz_error(q, "Please specify a thread ID list");
	if (!qz_running(q))
		return qz_error(q, "No threads.");
	struct proc_thread_info cur;
	proc_thread_cur(q->proc, &cur);
	int sel = q->sel_frame, r = 0;
	if (str_starts(a, "all") && (a[3] == 0 || a[3] == ' ')) {
		const char *cmd = str_skip_space(a + 3);
		if (!*cmd)
			return qz_error(q, "Please specify a command at the end of 'thread apply all'");
		thread_apply_all(q, cmd);
	} else {
		r = thread_apply_list(q, a);
	}
	if (qz_running(q)) {
		thread_select(q, cur.tid);
		q->sel_frame = sel;
	}
	return r;
}

int cmd_set_follow_fork_mode(struct qz *q, const char *a)
{
	if (strcmp(a, "parent") == 0)
		q->thr.follow_child = false;
	else if (strcmp(a, "child") == 0)
		q->thr.follow_child = true;
	else if (!*a)
		return qz_error(q, "Requires an argument. Valid arguments are child, parent.");
	else
		return qz_error(q, "Undefined item: \"%s\".", a);
	return 0;
}

int cmd_show_follow_fork_mode(struct qz *q, const char *a)
{
	(void)a;
	qz_printf(q, "Debugger response to a program call of fork or vfork is \"%s\".\n",
		  q->thr.follow_child ? "child" : "parent");
	return 0;
}
