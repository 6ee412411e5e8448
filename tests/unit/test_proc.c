/* test_proc: core/proc with threads, checked against the kernel's own view
 * of the tasks (/proc/PID/task/TID/stat): every thread traced and reported,
 * every one in a tracing stop after proc_stop_all (again after a resume,
 * with our SIGSTOPs swallowed), proc_step moving one thread only, nothing
 * left after proc_kill. Uses the fixtures thr4-O0 and thrloop-O0. */
#include "proc/proc.h"
#include "unit.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct counts {
	int created, exited;
};

static void on_thread(void *ctx, const struct proc_thread_info *t, bool created)
{
	struct counts *c = ctx;
	(void)t;
	if (created)
		c->created++;
	else
		c->exited++;
}

static struct proc *launch(const char *bin, const char *arg, struct counts *c)
{
	char *argv[] = {(char *)bin, (char *)arg, NULL};
	struct proc_launch l = {.path = bin, .argv = argv};
	char err[256];
	struct proc *p = proc_launch(&l, err, sizeof err);
	if (!p) {
		printf("FAIL launch %s: %s\n", bin, err);
		exit(1);
	}
	struct proc_notify n = {.ctx = c, .thread = on_thread};
	proc_set_notify(p, &n);
	return p;
}

/* The state letter of one task ('t': tracing stop), 0 if gone. */
static char task_state(pid_t pid, const char *tid)
{
	char path[320], buf[512];
	snprintf(path, sizeof path, "/proc/%d/task/%s/stat", pid, tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	const char *e = strrchr(buf, ')');
	return e && e[1] ? e[2] : 0;
}

/* How many tasks the process has, and how many are in a tracing stop. */
static int tasks(pid_t pid, int *stopped)
{
	char path[64];
	int all = 0;
	*stopped = 0;
	snprintf(path, sizeof path, "/proc/%d/task", pid);
	DIR *d = opendir(path);
	for (struct dirent *e; d && (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		all++;
		*stopped += task_state(pid, e->d_name) == 't';
	}
	if (d)
		closedir(d);
	return all;
}

static void test_run_to_end(void)
{
	struct counts c = {0};
	struct proc *p = launch("tests/build/thr4-O0", NULL, &c);
	struct proc_stop st = {0};
	int sig = 0;
	do {
		proc_cont(p, sig);
		proc_wait(p, &st);
		sig = st.ev == PROC_SIGNAL ? st.sig : 0;
	} while (st.ev == PROC_SIGNAL || st.ev == PROC_TRAP);
	unit_check(st.ev == PROC_EXITED && st.code == 0, "thr4 exits normally", "ev %d code %d",
	      st.ev, st.code);
	unit_check(c.created == 4, "four threads reported created", "%d", c.created);
	unit_check(c.exited == 4, "four threads reported exited", "%d", c.exited);
	unit_check(!proc_alive(p), "process gone after exit", "still alive");
	proc_kill(p);
}

/* Interrupt the running thrloop, stop everything, compare with the kernel. */
static void stop_and_check(struct proc *p, const char *round)
{
	struct proc_stop st;
	char name[128];
	usleep(100000);
	proc_interrupt(p);
	proc_wait(p, &st);
	snprintf(name, sizeof name, "%s: interrupt reported as SIGSTOP", round);
	unit_check(st.ev == PROC_SIGNAL && st.sig == SIGSTOP, name, "ev %d sig %d", st.ev, st.sig);
	proc_stop_all(p);
	int stopped, all = tasks(proc_pid(p), &stopped);
	snprintf(name, sizeof name, "%s: every task in a tracing stop", round);
	unit_check(all == stopped && all > 1, name, "%d of %d", stopped, all);
	snprintf(name, sizeof name, "%s: every task known", round);
	unit_check((size_t)all == proc_nthreads(p), name, "kernel %d, proc %zu", all,
	      proc_nthreads(p));
}

static void test_stop_all(void)
{
	struct counts c = {0};
	struct proc *p = launch("tests/build/thrloop-O0", "400000000", &c);
	proc_cont(p, 0);
	stop_and_check(p, "first stop");
	proc_cont(p, 0);
	stop_and_check(p, "second stop");

	struct proc_thread_info t;
	proc_thread_at(p, proc_nthreads(p) - 1, &t);
	unit_check(proc_select(p, t.tid) == 0, "select the newest thread", "refused");
	uint64_t pc = proc_pc(p);
	struct proc_stop st;
	proc_step(p, 0);
	proc_wait(p, &st);
	int stopped, all = tasks(proc_pid(p), &stopped);
	unit_check(st.ev == PROC_TRAP && proc_pc(p) != pc, "step moves the selected thread",
	      "ev %d pc %llx", st.ev, (unsigned long long)proc_pc(p));
	unit_check(all == stopped, "the others stay stopped while it steps", "%d of %d",
	      stopped, all);
	unit_check(proc_select(p, -5) < 0, "unknown thread refused", "accepted");

	pid_t pid = proc_pid(p);
	char path[64];
	proc_kill(p);
	snprintf(path, sizeof path, "/proc/%d", pid);
	unit_check(access(path, F_OK) != 0, "nothing left after proc_kill", "%s exists", path);
}

int main(void)
{
	test_run_to_end();
	test_stop_all();
	return 0;
}
