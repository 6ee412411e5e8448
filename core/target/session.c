/* session: the debugger state for one program: its life from load to
 * free, the process's memory with breakpoints hidden, leaving the process
 * clean (detach, user stops, qzdb's own death) and the value history. */
#define _GNU_SOURCE
#include "session.h"
#include "dinfo/source.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "resume.h"
#include "watch.h"

/* The session a fatal error inside qzdb cleans up after (qz_signals). */
static struct qz *qz_live;

struct qz *qz_new(struct qz_sink sink)
{
	struct qz *q = xcalloc(1, sizeof *q);
	q->sink = sink;
	q->pin_cpu = true;
	q->print_elements = 200;
	q->listsize = 10;
	q->from_tty = true;
	q->next_display = 1;
	q->bp_pending = -1;
	q->debug_dir = xstrdup("/usr/lib/debug");
	sig_table_init(&q->sigs);
	return q;
}

int qz_detach(struct qz *q)
{
	int pid = proc_pid(q->proc);
	mod_detach(q);
	bp_remove_all(&q->bps, q->proc);
	watch_disarm(q);   /* a debug register left set would trap it */
	int sig = q->stop_sig;
	q->stop_sig = 0;
	if (sig)   /* hand a pending signal back so the program sees it */
		kill(pid, sig);
	proc_detach(q->proc);
	q->proc = NULL;
	qz_process_gone(q);
	qz_printf(q, "[Inferior 1 (process %d) detached]\n", pid);
	return 0;
}

void qz_user_stop(struct qz *q)
{
	if (!q->proc || !proc_alive(q->proc))
		return;
	proc_stop_all(q->proc);
	bp_take_out(&q->bps, q->proc);
	proc_settle(q->proc);
}

/* SIGTERM, SIGHUP (the terminal or SSH connection is gone), SIGPIPE: a
 * wait for the program ends at a stop (proc_quit_signal), the command
 * ends, cmd_run answers CMD_QUIT and the front end leaves as at `quit`. */
static void qz_on_quit(int sig)
{
	proc_quit_signal(sig);
}

/* A crash inside qzdb: the int3s out and the registers written back with
 * nothing but system calls, then die as we would have; the kernel detaches
 * the program (and kills it if qzdb started it: PTRACE_O_EXITKILL). */
static bool qz_int3_was_at(void *ctx, uint64_t addr)
{
	const struct bp_site *s = bp_site_at(ctx, addr);
	return s && s->inserted;
}

static void qz_on_fatal(int sig)
{
	struct qz *q = qz_live;
	if (q && q->proc && proc_alive(q->proc)) {
		bp_restore_raw(&q->bps, q->proc);
		if (q->attached)   /* it outlives qzdb: leave each thread whole */
			proc_fatal_detach(q->proc, qz_int3_was_at, &q->bps);
		else
			proc_flush(q->proc);
	}
	raise(sig);   /* SA_RESETHAND: the default action now */
}

void qz_signals(struct qz *q)
{
	static const int quit[] = {SIGTERM, SIGHUP, SIGPIPE};
	static const int fatal[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
	struct sigaction sa = {.sa_handler = qz_on_quit};   /* no SA_RESTART: */
	sigemptyset(&sa.sa_mask);                          /* waits end */
	for (size_t i = 0; i < sizeof quit / sizeof quit[0]; i++)
		sigaction(quit[i], &sa, NULL);
	sa.sa_handler = qz_on_fatal;
	sa.sa_flags = SA_RESETHAND | SA_NODEFER;
	for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
		sigaction(fatal[i], &sa, NULL);
	qz_live = q;
}

void qz_free(struct qz *q)
{
	if (!q)
		return;
	if (q->proc && q->attached)   /* not ours to kill: gdb detaches too */
		qz_detach(q);
	else if (q->proc)
		proc_kill(q->proc);
	if (qz_live == q)
		qz_live = NULL;
	mod_fini(q);
	frame_invalidate(q);
	free(q->frames);
	qz_objects_free(q);
	bp_table_free(&q->bps);
	free(q->thr.vfork_sites);
	for (size_t i = 0; i < q->nhistory; i++)
		val_free(&q->history[i]);
	free(q->history);
	for (size_t i = 0; i < q->ndisplays; i++)
		free(q->displays[i].expr);
	free(q->displays);
	FREE_ALL(q->args, q->nargs);
	free(q->prog);
	free(q->stdin_path);
	free(q->stdout_path);
	free(q->debug_dir);
	free(q->tty_path);
	sandbox_free(&q->sandbox);
	sbuf_free(&q->err);
	sbuf_free(&q->after_stop);
	free(q);
}

int qz_load(struct qz *q, const char *prog, char **args, size_t nargs)
{
	char err[512];
	char real[PATH_MAX];
	if (!realpath(prog, real))
		return qz_error(q, "%s: %s.", prog, strerror(errno));
	struct img *im = img_open(real, err, sizeof err);
	if (!im)
		return qz_error(q, "\"%s\": %s.", real, err);
	q->prog = xstrdup(real);
	src_set_program(real);
	qz_exe_open(q, real, im);
	q->exe_loaded = true;
	for (size_t i = 0; i < nargs; i++) {
		XGROW(q->args, q->nargs, i + 1);
		q->args[i] = xstrdup(args[i]);
	}
	q->nargs = nargs;
	if (!q->exe.lines || lines_empty(q->exe.lines))
		qz_printf(q, "(No debugging symbols found in %s)\n", prog);
	return 0;
}

bool qz_running(const struct qz *q)
{
	return q->proc && proc_alive(q->proc) && !q->held;
}

int qz_read(struct qz *q, uint64_t addr, void *buf, size_t len)
{
	if (!qz_running(q)) {   /* no process: the file's contents, as gdb */
		if (!q->exe.img)
			return -1;
		/* After a run the sections stay where the run had them (gdb). */
		uint64_t bias = q->exe.bias;
		if (addr < bias)
			return -1;
		return img_read(q->exe.img, addr - bias, buf, len) ? 0 : -1;
	}
	if (proc_read(q->proc, addr, buf, len) < 0)
		return -1;
	bp_mask(&q->bps, addr, buf, len);
	return 0;
}

int qz_present(struct qz *q)
{
	if (!q->in_past)
		return 0;
	return qz_error(q, "The program is replaying its recorded past (instruction %llu of %llu): "
			"its state cannot be changed there. Use \"record goto end\" first.",
			(unsigned long long)q->replay_insn, (unsigned long long)q->replay_insns);
}

int qz_write(struct qz *q, uint64_t addr, const void *buf, size_t len)
{
	if (!qz_running(q) || qz_present(q) < 0 || proc_write(q->proc, addr, buf, len) < 0)
		return -1;
	const uint8_t *b = buf;
	for (size_t i = 0; i < q->bps.nsites; i++) {
		struct bp_site *s = &q->bps.sites[i];
		uint64_t end = s->addr + (s->len ? s->len : 1);
		if (end > addr && s->addr < addr + len)
			s->resume = BP_RESUME_UNKNOWN;   /* the instruction changed */
		if (!s->inserted || s->addr < addr || s->addr >= addr + len)
			continue;
		s->orig = b[s->addr - addr];
		uint8_t int3 = 0xcc;
		proc_write(q->proc, s->addr, &int3, 1);
	}
	frame_invalidate(q);
	return 0;
}

int qz_read_cb(void *q, uint64_t addr, void *buf, size_t len)
{
	return qz_read(q, addr, buf, len);
}

void qz_process_gone(struct qz *q)
{
	if (q->proc) {
		proc_kill(q->proc);
		q->proc = NULL;
	}
	bp_remove_all(&q->bps, NULL);
	frame_invalidate(q);
	qz_libs_free(q);
	resume_reset(q);
	q->sel_frame = 0;
	q->stop_sig = 0;
	q->attached = false;
	q->held = false;
	mod_gone(q);
}

int qz_history_add(struct qz *q, struct val *v)
{
	XGROW(q->history, q->history_cap, q->nhistory + 1);
	q->history[q->nhistory++] = *v;
	memset(v, 0, sizeof *v);
	return (int)q->nhistory;
}
