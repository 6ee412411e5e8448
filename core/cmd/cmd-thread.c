/* cmd-thread: the thread commands (info threads, thread N, thread apply)
 * and set/show follow-fork-mode. Thread numbering, names and selection
 * are thread.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cmds.h"
#include "target/frame.h"
#include "target/session.h"
#include "target/thread.h"
#include "proc/proc.h"
#include "util/util.h"

/* The frame column of info threads: frame 0 of the selected thread. */
static void cmd_thread_frame_text(struct qz *q, struct sbuf *b)
{
	const struct frame *f = frame_get(q, 0);
	if (f)
		frame_describe(q, f, !f->file || !f->line_start, b);
}

static char *cmd_thread_row_id(struct qz *q, const struct proc_thread_info *t)
{
	struct sbuf b = {0};
	char name[64];
	thread_name(q, t->tid, name, sizeof name);
	thread_target_id(t, &b);
	sbuf_printf(&b, " \"%s\"", name);
	return sbuf_take(&b);
}

static void cmd_thread_info_row(struct qz *q, const struct proc_thread_info *t,
				const char *target, int width, pid_t cur, struct sbuf *b)
{
	struct sbuf id = {0};
	thread_id(q, t->num, &id);
	sbuf_printf(b, "%s%-4s %-*s ", t->tid == cur ? "* " : "  ", id.s, width, target);
	sbuf_free(&id);
	thread_select(q, t->tid);
	if (!t->gone)
		cmd_thread_frame_text(q, b);
	sbuf_addc(b, '\n');
}

/* Is num in the list "2 4-5" (an empty list has everything)? */
static bool cmd_thread_listed(const char *list, int num)
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
		ids[i] = cmd_thread_row_id(q, &ts[i]);
		if ((int)strlen(ids[i]) > width)
			width = (int)strlen(ids[i]);
	}
	struct sbuf b = {0};
	sbuf_printf(&b, "  Id   %-*s Frame \n", width, "Target Id");
	size_t shown = 0;
	for (size_t i = 0; i < n; i++) {
		if (cmd_thread_listed(a, ts[i].num)) {
			cmd_thread_info_row(q, &ts[i], ids[i], width, cur.tid, &b);
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
static int cmd_thread_parse(struct qz *q, const char *s, struct proc_thread_info *out)
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

static bool cmd_thread_id_ok(const char *s)
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
	if (!cmd_thread_id_ok(a))
		return qz_error(q, "Invalid thread ID: %s", a);
	if (cmd_thread_parse(q, a, &t) < 0)
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
static void cmd_thread_apply_one(struct qz *q, const struct proc_thread_info *t, const char *cmd)
{
	struct sbuf b = {0};
	if (!qz_running(q))   /* the command before ran the program to its end */
		return;
	char *target = cmd_thread_row_id(q, t);
	sbuf_add(&b, "\nThread ");
	thread_id(q, t->num, &b);
	qz_printf(q, "%s (%s):\n", b.s, target);
	free(target);
	sbuf_free(&b);
	thread_select(q, t->tid);
	cmd_run(q, cmd);
}

static void cmd_thread_apply_all(struct qz *q, const char *cmd)
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
		cmd_thread_apply_one(q, &t, cmd);
	}
	free(ts);
}

/* "1 2 4-5 CMD": apply CMD to the listed threads, in that order. */
static int cmd_thread_apply_list(struct qz *q, const char *a)
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
			if (cmd_thread_parse(q, num, &t) < 0)
				qz_printf(q, "warning: Unknown thread %s\n", num);
			else
				cmd_thread_apply_one(q, &t, p);
		}
	}
	free(list);
	return r;
}

int cmd_thread_apply(struct qz *q, const char *a)
{
	if (!*a)
		return qz_error(q, "Please specify a thread ID list");
	/* with no threads gdb applies the command to none, silently for
	 * "all" and with a warning per ID of a list, and is not an error */
	struct proc_thread_info cur = { 0 };
	if (qz_running(q))
		proc_thread_cur(q->proc, &cur);
	int sel = q->sel_frame, r = 0;
	if (str_starts(a, "all") && (a[3] == 0 || a[3] == ' ')) {
		const char *cmd = str_skip_space(a + 3);
		if (!*cmd)
			return qz_error(q, "Please specify a command at the end of 'thread apply all'");
		if (qz_running(q))
			cmd_thread_apply_all(q, cmd);
	} else {
		r = cmd_thread_apply_list(q, a);
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
