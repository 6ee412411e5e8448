/* run: resume/stop primitives and stop reports. Breakpoints stay planted
 * while the process is stopped (reads hide them); resuming from a planted
 * site lifts it for one single-step. */
#include "run.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/user.h>

#include "eval.h"
#include "expr.h"
#include "frame.h"
#include "resume.h"
#include "session.h"
#include "unwind.h"

static void run_stopped(struct qz *q)
{
	frame_invalidate(q);
	q->sel_frame = 0;
	q->inline_unskip = 0;
	q->libs_stale = true;
}

void run_report_exit(struct qz *q, int code)
{
	if (code == 0)
		qz_printf(q, "[Inferior 1 (process %d) exited normally]\n", proc_pid(q->proc));
	else
		qz_printf(q, "[Inferior 1 (process %d) exited with code %02o]\n",
			  proc_pid(q->proc), code);
	q->last_exit_code = code;
}

/* The process is gone: report it and forget it. */
static void run_gone(struct qz *q, const struct proc_stop *st)
{
	if (st->ev == PROC_EXITED) {
		run_report_exit(q, st->code);
		q->stop = QZ_STOP_EXITED;
	} else {
		qz_printf(q, "\nProgram terminated with signal %s, %s.\n"
			  "The program no longer exists.\n",
			  sig_name(st->sig), sig_desc(st->sig));
		q->stop = QZ_STOP_KILLED;
		q->term_sig = st->sig;
	}
	qz_process_gone(q);
}

static void run_report_signal(struct qz *q, int sig)
{
	qz_printf(q, "\nProgram received signal %s, %s.\n", sig_name(sig), sig_desc(sig));
	const struct frame *f = frame_get(q, 0);
	if (f)
		frame_print_stop(q, f, true);
	q->stop = QZ_STOP_SIGNAL;
}

/* A signal stop the handle table says to let through: print it if asked and
 * remember it to pass on. Returns true if the user must see a stop. */
static bool run_signal_stops(struct qz *q, int sig)
{
	const struct sig_action *a = &q->sigs.act[sig < SIG_MAX ? sig : 0];
	q->stop_sig = a->pass ? sig : 0;
	if (a->stop)
		return true;
	if (a->print)
		qz_printf(q, "\nProgram received signal %s, %s.\n", sig_name(sig), sig_desc(sig));
	return false;
}

static int run_take_signal(struct qz *q)
{
	int sig = q->stop_sig;
	q->stop_sig = 0;
	return sig;
}

/* Resume once. Steps off a planted site at pc first. On return the process
 * is stopped (st describes why) or gone. */
static void run_resume(struct qz *q, bool step, struct proc_stop *st)
{
	struct proc *p = q->proc;
	int sig = run_take_signal(q);
	struct bp_site *s = bp_site_at(&q->bps, proc_pc(p));
	if (s && s->inserted && !step && resume_fast(q, s, sig)) {
		proc_wait(p, st);
		return;
	}
	if (s && s->inserted) {
		uint64_t addr = s->addr;
		bp_site_drop(&q->bps, p, s);
		proc_step(p, sig);
		proc_wait(p, st);
		s = bp_site_at(&q->bps, addr);
		if (s)
			bp_site_lift(&q->bps, p, s);
		if (step || st->ev != PROC_TRAP)
			return;
		sig = 0;
		/* The step may have landed on another planted site: report it as a
		 * hit without executing it. */
		s = bp_site_at(&q->bps, proc_pc(p));
		if (s && s->inserted) {
			st->ev = PROC_TRAP;
			proc_set_pc(p, proc_pc(p) + 1);
			return;
		}
	}
	if (step)
		proc_step(p, sig);
	else
		proc_cont(p, sig);
	proc_wait(p, st);
}

static void run_cond_error(struct qz *q, struct bp *b)
{
	qz_printf(q, "Error in testing condition for breakpoint %d:\n%s\n",
		  b->num, q->err.s ? q->err.s : "");
	sbuf_reset(&q->err);
}

/* Does breakpoint b stop here? Counts the hit and honours ignore counts. */
static bool run_bp_stops(struct qz *q, struct bp *b)
{
	if (b->cond_expr) {
		bool t;
		if (eval_truth(q, b->cond_expr, &t) < 0) {
			run_cond_error(q, b);
			b->hits++;
			return true;
		}
		if (!t)
			return false;
	}
	b->hits++;
	if (b->ignore > 0) {
		b->ignore--;
		return false;
	}
	return true;
}

/* The location number (1-based) of b at pc, 0 if none. */
static int run_bp_at(const struct bp *b, uint64_t pc)
{
	for (size_t i = 0; i < b->nlocs; i++)
		if (b->locs[i].addr == pc)
			return (int)i + 1;
	return 0;
}

static void run_report_bp(struct qz *q, int num, int loc, bool temp)
{
	const char *kind = temp ? "Temporary breakpoint" : "Breakpoint";
	if (loc)   /* one location of several: gdb names it N.M */
		qz_printf(q, "\n%s %d.%d, ", kind, num, loc);
	else
		qz_printf(q, "\n%s %d, ", kind, num);
	const struct frame *f = frame_get(q, 0);
	if (f)
		frame_print_stop(q, f, true);
	q->stop = QZ_STOP_BREAKPOINT;
}

/* The user breakpoints at pc: report the first that stops. */
static bool run_user_bp(struct qz *q, uint64_t pc)
{
	int hit = 0, loc = 0;
	bool temp = false;
	const struct bp_loc *where = NULL;
	for (size_t i = 0; i < q->bps.n; i++) {
		struct bp *b = &q->bps.bps[i];
		int at = run_bp_at(b, pc);
		if (!b->enabled || !at)
			continue;
		/* The condition sees the frames as the stop would show them. */
		if (b->cond_expr)
			frame_unskip_for(q, pc, b->locs[at - 1].absolute ? NULL : b->locs[at - 1].func);
		if (!run_bp_stops(q, b))
			continue;
		if (!hit) {
			hit = b->num;
			loc = b->nlocs > 1 ? at : 0;
			temp = b->temp;
			where = &b->locs[at - 1];
		}
	}
	if (!hit)
		return false;
	frame_unskip_for(q, pc, where->absolute ? NULL : where->func);
	run_report_bp(q, hit, loc, temp);
	if (temp)
		bp_delete(&q->bps, q->proc, hit);
	return true;
}

bool run_check_bp_here(struct qz *q)
{
	return qz_running(q) && run_user_bp(q, proc_pc(q->proc));
}

static bool run_target_hit(struct qz *q, const struct run_target *t, uint64_t pc)
{
	uint64_t sp = proc_regs(q->proc)->rsp;
	for (int i = 0; t && i < t->n; i++)
		if (t->addr[i] == pc && sp >= t->min_sp[i])
			return true;
	return false;
}

/* Classify a stop after a resume; returns RUN_STOPPED when reported. */
static enum run_ev run_classify(struct qz *q, const struct proc_stop *st, bool step)
{
	run_stopped(q);
	if (st->ev == PROC_EXITED || st->ev == PROC_KILLED || st->ev == PROC_ERROR) {
		run_gone(q, st);
		return RUN_STOPPED;
	}
	if (st->ev == PROC_SIGNAL) {
		if (!run_signal_stops(q, st->sig))
			return RUN_AGAIN;
		run_report_signal(q, st->sig);
		return RUN_STOPPED;
	}
	if (step)
		return RUN_STEPPED;
	uint64_t pc = proc_pc(q->proc) - 1;
	struct bp_site *s = bp_site_at(&q->bps, pc);
	if (!s || !s->inserted) {   /* the program's own SIGTRAP */
		if (!run_signal_stops(q, SIGTRAP))
			return RUN_AGAIN;
		run_report_signal(q, SIGTRAP);
		return RUN_STOPPED;
	}
	proc_set_pc(q->proc, pc);
	return RUN_TARGET;
}

enum run_ev run_step_insn(struct qz *q)
{
	for (;;) {
		struct proc_stop st;
		run_resume(q, true, &st);
		enum run_ev ev = run_classify(q, &st, true);
		if (ev != RUN_AGAIN)
			return ev;
	}
}

/* Let the modules outside core act on a trap at a site they planted. */
static enum run_ev run_hooks_trap(struct qz *q, uint64_t pc)
{
	for (int i = 0; i < q->nhooks; i++) {
		if (!q->hooks[i]->on_trap)
			continue;
		enum run_ev ev = q->hooks[i]->on_trap(q, pc);
		if (ev != RUN_TARGET)
			return ev;
	}
	return RUN_TARGET;
}

enum run_ev run_until_target(struct qz *q, const struct run_target *t)
{
	for (;;) {
		struct proc_stop st;
		run_resume(q, false, &st);
		enum run_ev ev = run_classify(q, &st, false);
		if (ev == RUN_AGAIN)
			continue;
		if (ev != RUN_TARGET)
			return ev;
		uint64_t pc = proc_pc(q->proc);
		ev = run_hooks_trap(q, pc);
		if (ev == RUN_AGAIN)
			continue;
		if (ev != RUN_TARGET)
			return ev;
		if (run_user_bp(q, pc))
			return RUN_STOPPED;
		if (run_target_hit(q, t, pc))
			return RUN_TARGET;
	}
}

static char **run_argv(struct qz *q)
{
	char **argv = xcalloc(q->nargs + 2, sizeof *argv);
	argv[0] = q->prog;
	for (size_t i = 0; i < q->nargs; i++)
		argv[i + 1] = q->args[i];
	return argv;
}

/* After exec the program's own mapping is known: move breakpoints in it to
 * their runtime addresses. */
static void run_relocate(struct qz *q)
{
	qz_refresh_modules(q);
	for (size_t i = 0; i < q->bps.n; i++) {
		struct bp *b = &q->bps.bps[i];
		for (size_t j = 0; j < b->nlocs; j++)
			if (!b->locs[j].absolute)
				b->locs[j].addr = b->locs[j].link_addr + q->exe.bias;
	}
	bp_sync(&q->bps, q->proc);
}

void run_kill(struct qz *q)
{
	if (!q->proc)
		return;
	bp_remove_all(&q->bps, NULL);
	qz_process_gone(q);
}

int run_start(struct qz *q)
{
	char err[512];
	if (q->proc)
		run_kill(q);
	char **argv = run_argv(q);
	struct proc_launch l = {
		.path = q->prog, .argv = argv, .stdin_path = q->stdin_path,
		.stdout_path = q->stdout_path, .pin_cpu = q->pin_cpu,
		.tty_path = q->tty_path,
	};
	q->proc = proc_launch(&l, err, sizeof err);
	free(argv);
	if (!q->proc)
		return qz_error(q, "%s", err);
	q->stop = QZ_STOP_NONE;
	q->list_file = NULL;
	run_stopped(q);
	run_relocate(q);
	qz_hooks_start(q);
	run_until_target(q, NULL);
	return 0;
}

void run_frame_id(struct qz *q, uint64_t *cfa, uint64_t *func)
{
	const struct frame *f = frame_get(q, 0);
	*cfa = 0;
	*func = 0;
	if (!f)
		return;
	frame_get(q, f->set_real + 1);   /* computes frame 0's CFA */
	*cfa = f->has_cfa ? f->cfa : 0;
	if (f->inl)   /* an inlined call is a frame of its own */
		*func = (uint64_t)(uintptr_t)f->inl;
	else if (f->func)
		*func = f->func->lo + f->mod->bias;
	else if (f->sym && f->mod) {
		uint64_t off;
		const struct img_sym *s = img_sym_at(f->mod->img, f->pc - f->mod->bias, &off);
		*func = s ? s->addr + f->mod->bias : 0;
	}
}
