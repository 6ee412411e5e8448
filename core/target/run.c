/* run: resume/stop primitives and stop reports. Breakpoints are planted
 * while the process runs and stay in at internal stops (a false condition,
 * a step: reads hide them); at a stop for the user they are out (the
 * session takes them out when a command ends) and go back in at the next
 * resume. Resuming from a planted site lifts it for one single-step. */
#include "run.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/user.h>
#include <unistd.h>

#include "eval.h"
#include "value/expr.h"
#include "frame.h"
#include "loc.h"
#include "pagewatch.h"
#include "resume.h"
#include "session.h"
#include "dinfo/unwind.h"
#include "watch.h"

/* All-stop before the user sees a stop (proc_wait leaves the other threads
 * running, so that stops nobody sees cost one thread only). */
static void run_stop_all(struct qz *q)
{
	if (q->proc && proc_alive(q->proc))
		proc_stop_all(q->proc);
}

static void run_stopped(struct qz *q)
{
	q->nstops++;
	frame_invalidate(q);
	q->sel_frame = 0;
	q->inline_unskip = 0;
	q->libs_stale = true;
}

void run_report_exit(struct qz *q, int code)
{
	if (code == 0)
		qz_printf(q, "[Inferior %d (process %d) exited normally]\n",
			  thread_inferior(q), proc_pid(q->proc));
	else
		qz_printf(q, "[Inferior %d (process %d) exited with code %02o]\n",
			  thread_inferior(q), proc_pid(q->proc), code);
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
	struct sbuf who = {0};
	run_stop_all(q);
	thread_who(q, &who);
	qz_printf(q, "\n%sreceived signal %s, %s.\n", who.s ? who.s : "Program ",
		  sig_name(sig), sig_desc(sig));
	sbuf_free(&who);
	thread_report_switch(q);   /* gdb says it after the signal */
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
	if (a->print) {
		struct sbuf who = {0};
		thread_who(q, &who);
		qz_printf(q, "\n%sreceived signal %s, %s.\n", who.s ? who.s : "Program ",
			  sig_name(sig), sig_desc(sig));
		sbuf_free(&who);
	}
	return false;
}

static int run_take_signal(struct qz *q)
{
	int sig = q->stop_sig;
	q->stop_sig = 0;
	return sig;
}

/* The user selected another thread since the last stop: the thread that
 * stopped may still sit on the breakpoint it reported. Step it off alone
 * (the others stay stopped, so lifting the int3 is safe). */
static void run_step_off_event_thread(struct qz *q)
{
	struct proc *p = q->proc;
	pid_t ev = proc_event_tid(p);
	struct proc_thread_info cur;
	if (proc_nthreads(p) < 2 || proc_thread_cur(p, &cur) < 0 || ev == cur.tid)
		return;
	proc_stop_all(p);
	if (proc_select(p, ev) < 0)
		return;
	struct bp_site *s = bp_site_at(&q->bps, proc_pc(p));
	if (s && s->inserted) {
		struct proc_stop st;
		uint64_t addr = s->addr;
		bp_site_drop(&q->bps, p, s);
		proc_step(p, 0);
		proc_wait(p, &st);
		s = bp_site_at(&q->bps, addr);
		if (s && proc_alive(p) && st.ev != PROC_EXEC)   /* as in run_resume */
			bp_site_lift(&q->bps, p, s);
	}
	if (proc_alive(p))
		proc_select(p, cur.tid);
}

/* Resume once. Steps off a planted site at pc first. On return the process
 * is stopped (st describes why) or gone. */
static void run_resume(struct qz *q, bool step, struct proc_stop *st)
{
	struct proc *p = q->proc;
	int sig = run_take_signal(q);
	if (q->bps.out)   /* out while the user looked: in while it runs */
		bp_put_back(&q->bps, p);
	run_step_off_event_thread(q);
	if (!proc_alive(p)) {
		proc_wait(p, st);
		return;
	}
	struct bp_site *s = bp_site_at(&q->bps, proc_pc(p));
	if (s && s->inserted && !step && resume_fast(q, s, sig)) {
		proc_wait(p, st);
		return;
	}
	if (s && s->inserted) {
		uint64_t addr = s->addr;
		proc_stop_all(p);   /* nobody may run past the lifted int3 */
		bp_site_drop(&q->bps, p, s);
		proc_step(p, sig);
		proc_wait(p, st);
		/* The step ran an execve: the memory is the new program's, where
		 * the old int3 must not go (run_exec drops the old sites). */
		if (st->ev == PROC_EXEC)
			return;
		s = bp_site_at(&q->bps, addr);
		if (s)
			bp_site_lift(&q->bps, p, s);
		if (step || st->ev != PROC_TRAP || watch_hit_pending(q))
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

bool run_bp_stops(struct qz *q, struct bp *b)
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
		if (b->locs[i].addr == pc && !b->locs[i].disabled)
			return (int)i + 1;
	return 0;
}

static void run_report_bp(struct qz *q, int num, int loc, bool temp)
{
	struct sbuf who = {0};
	run_stop_all(q);
	thread_report_switch(q);
	thread_who(q, &who);   /* "Thread 2 "prog" hit " with several threads */
	const char *kind = temp ? "Temporary breakpoint" : "Breakpoint";
	if (who.s)
		kind = temp ? "hit Temporary breakpoint" : "hit Breakpoint";
	if (loc)   /* one location of several: gdb names it N.M */
		qz_printf(q, "\n%s%s %d.%d, ", who.s ? who.s : "", kind, num, loc);
	else
		qz_printf(q, "\n%s%s %d, ", who.s ? who.s : "", kind, num);
	sbuf_free(&who);
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

static void run_relocate(struct qz *q);

/* Find the locations of every breakpoint again, in a new program. */
static void run_reresolve(struct qz *q)
{
	for (size_t i = 0; i < q->bps.n; i++) {
		struct bp *b = &q->bps.bps[i];
		struct loc_addr *locs = NULL;
		size_t n = 0;
		if (b->kind != BP_KIND_BREAK)   /* watchpoints, module entries */
			continue;
		if (loc_resolve(q, b->spec, &locs, &n) < 0) {
			bp_free_locs(b);
			sbuf_reset(&q->err);   /* pending: no location in this program */
			continue;
		}
		loc_fill_bp(q, b, locs, n);
		free(locs);
	}
}

/* The process executed a new program: its memory is new (no int3s, no
 * scratch page); load its symbols and plant the breakpoints again. */
static void run_exec(struct qz *q)
{
	char link[64], path[4096];
	snprintf(link, sizeof link, "/proc/%d/exe", proc_pid(q->proc));
	ssize_t n = readlink(link, path, sizeof path - 1);
	if (n <= 0)
		return;
	path[n] = 0;
	qz_printf(q, "process %d is executing new program: %s\n", proc_pid(q->proc), path);
	bp_remove_all(&q->bps, NULL);
	resume_reset(q);
	if (qz_exec_reload(q, path) < 0) {
		qz_warn(q, "%s", q->err.s ? q->err.s : "cannot load the new program");
		sbuf_reset(&q->err);
		return;
	}
	run_reresolve(q);
	run_relocate(q);
	mod_gone(q);    /* for the modules the old program is gone and */
	mod_start(q);   /* a new one started */
}

/* A thread hit one of our int3s that was taken out before its trap came
 * in (threads run on while another thread's stop is looked at): an int3
 * trap (SI_KERNEL) with no int3 at its address any more. */
static bool run_stale_int3(struct qz *q, uint64_t addr)
{
	siginfo_t si;
	uint8_t b;
	return proc_nthreads(q->proc) > 1 && proc_siginfo(q->proc, &si) == 0 &&
	       si.si_code == SI_KERNEL && proc_read(q->proc, addr, &b, 1) == 0 && b != 0xcc;
}

/* Let the modules outside core act on a trap at a site they planted. */
static enum run_ev run_hooks_trap(struct qz *q, uint64_t pc)
{
	/* Modules act only at sites they planted (bp_site_add counts them as
	 * internal): a plain breakpoint's hit does not stop every thread. */
	const struct bp_site *site = bp_site_at(&q->bps, pc);
	if (!site || site->internal == 0)
		return RUN_TARGET;
	run_stop_all(q);   /* the modules see a stopped process */
	return (enum run_ev)mod_trap(q, pc);
}

/* The hooks at the pc's site; when one moved the pc onto another planted
 * site (a switch or suppression jumping to a statement with a site of its
 * own), that site is reached without a trap: dispatch it too. */
static enum run_ev run_hooks_at_pc(struct qz *q)
{
	for (int n = 0; n < 64; n++) {
		uint64_t pc = proc_pc(q->proc);
		enum run_ev ev = run_hooks_trap(q, pc);
		if (ev != RUN_AGAIN || proc_pc(q->proc) == pc)
			return ev;
		struct bp_site *s = bp_site_at(&q->bps, proc_pc(q->proc));
		if (!s || !s->inserted)
			return RUN_AGAIN;
	}
	return RUN_AGAIN;
}

/* qzdb must leave (SIGTERM, SIGHUP, SIGPIPE: proc_quit_signal): the
 * command ends here, at a stop, and the front end cleans up from there. */
static enum run_ev run_quit_stop(struct qz *q)
{
	run_stop_all(q);
	q->stop = QZ_STOP_SIGNAL;
	return RUN_STOPPED;
}

/* Classify a stop after a resume; returns RUN_STOPPED when reported. */
static enum run_ev run_classify(struct qz *q, const struct proc_stop *st, bool step)
{
	run_stopped(q);
	if (st->quit)   /* our SIGSTOP: not the program's to receive */
		return run_quit_stop(q);
	/* page-protection watchpoints: their faults and system-call stops */
	struct proc_stop own = *st;
	int pev = pw_classify(q, &own, step);
	if (pev >= 0)
		return (enum run_ev)pev;
	st = &own;
	if (st->ev == PROC_EXITED || st->ev == PROC_KILLED || st->ev == PROC_ERROR) {
		run_gone(q, st);
		return RUN_STOPPED;
	}
	if (st->ev == PROC_EXEC) {
		run_exec(q);
		return RUN_AGAIN;
	}
	if (st->ev == PROC_SIGNAL) {
		if (mod_signal(q, st->sig))   /* a module's own signal */
			return RUN_AGAIN;
		if (!run_signal_stops(q, st->sig))
			return RUN_AGAIN;
		run_report_signal(q, st->sig);
		return RUN_STOPPED;
	}
	int wev = watch_classify(q, step);   /* a watchpoint's trap */
	if (wev >= 0)
		return (enum run_ev)wev;
	if (step)
		return RUN_STEPPED;
	uint64_t pc = proc_pc(q->proc) - 1;
	struct bp_site *s = bp_site_at(&q->bps, pc);
	if ((!s || !s->inserted) && run_stale_int3(q, pc)) {
		proc_set_pc(q->proc, pc);   /* run what is there now */
		return RUN_AGAIN;
	}
	if (s && s->inserted && q->crash_at_int3)
		raise(SIGSEGV);   /* the test's crash, before the trap is answered */
	if (!s || !s->inserted) {   /* a module's debug register, or the program's */
		enum run_ev ev = (enum run_ev)mod_sigtrap(q);
		if (ev != RUN_TARGET)
			return ev;
		if (!run_signal_stops(q, SIGTRAP))
			return RUN_AGAIN;
		run_report_signal(q, SIGTRAP);
		return RUN_STOPPED;
	}
	proc_set_pc(q->proc, pc);
	return RUN_TARGET;
}

/* A single-step that lands on a planted site reaches it as a trap would:
 * the modules act there (a switch on the jump the step arrived at). */
enum run_ev run_step_landed(struct qz *q)
{
	struct bp_site *s = bp_site_at(&q->bps, proc_pc(q->proc));
	if (!s || !s->inserted || !q->nmods)
		return RUN_STEPPED;
	enum run_ev ev = run_hooks_at_pc(q);
	return ev == RUN_STOPPED ? RUN_STOPPED : RUN_STEPPED;
}

/* A signal about to be delivered would end the process: a module (ckpt)
 * may keep it, held, so the death is reported without it happening. */
static bool run_held_dying(struct qz *q)
{
	int sig = q->stop_sig;
	if (!sig || !mod_keep_dying(q, sig))
		return false;
	qz_printf(q, "\nProgram terminated with signal %s, %s.\n"
		  "The process is held for rollback while checkpoints exist.\n",
		  sig_name(sig), sig_desc(sig));
	q->stop = QZ_STOP_KILLED;
	q->held = true;
	return true;
}

enum run_ev run_step_insn(struct qz *q)
{
	if (q->driver)
		return (enum run_ev)mod_drive(q, NULL, true);
	enum run_ev ev = run_step_raw(q);
	return ev == RUN_STEPPED ? run_step_landed(q) : ev;
}

enum run_ev run_step_raw(struct qz *q)
{
	for (;;) {
		struct proc_stop st;
		if (proc_quit_pending())
			return run_quit_stop(q);
		if (run_held_dying(q))
			return RUN_STOPPED;
		run_resume(q, true, &st);
		enum run_ev ev = run_classify(q, &st, true);
		if (ev != RUN_AGAIN)
			return ev;
	}
}

enum run_ev run_region_check(struct qz *q, const struct run_target *t)
{
	uint64_t pc = proc_pc(q->proc);
	struct bp_site *s = bp_site_at(&q->bps, pc);
	if (s && s->inserted) {
		enum run_ev ev = run_hooks_at_pc(q);
		if (ev != RUN_TARGET)
			return ev;
		if (run_user_bp(q, pc))
			return RUN_STOPPED;
	}
	return run_target_hit(q, t, pc) ? RUN_TARGET : RUN_STEPPED;
}

enum run_ev run_until_target(struct qz *q, const struct run_target *t)
{
	struct proc_thread_info self = {0};   /* the thread the target is for */
	if (t)
		proc_thread_cur(q->proc, &self);
	for (;;) {
		if (proc_quit_pending())
			return run_quit_stop(q);
		if (q->driver)
			return (enum run_ev)mod_drive(q, t, false);
		struct proc_stop st;
		if (run_held_dying(q))
			return RUN_STOPPED;
		/* Software watchpoints compare after every instruction. */
		bool sw = watch_soft_active(q);
		run_resume(q, sw, &st);
		enum run_ev ev = run_classify(q, &st, sw);
		if (ev == RUN_AGAIN)
			continue;
		if (ev == RUN_STEPPED) {   /* single-stepped: arrived at a site? */
			struct bp_site *s = bp_site_at(&q->bps, proc_pc(q->proc));
			if (!s || !s->inserted)
				continue;
			ev = RUN_TARGET;
		}
		if (ev != RUN_TARGET)
			return ev;
		ev = run_hooks_at_pc(q);
		if (ev == RUN_AGAIN)
			continue;
		if (ev != RUN_TARGET)
			return ev;
		uint64_t pc = proc_pc(q->proc);
		if (run_user_bp(q, pc))
			return RUN_STOPPED;
		struct proc_thread_info now = self;   /* another thread's stop is not it */
		if (t && proc_nthreads(q->proc) > 1)
			proc_thread_cur(q->proc, &now);
		if (now.tid == self.tid && run_target_hit(q, t, pc)) {
			run_stop_all(q);
			return RUN_TARGET;
		}
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
			if (b->locs[j].in_lib)
				b->locs[j].addr = 0;   /* until its library loads */
			else if (!b->locs[j].absolute)
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
	if (q->sandbox.on && sandbox_session_prepare(q, err, sizeof err) < 0)
		return qz_error(q, "Cannot sandbox the program: %s.", err);
	char **argv = run_argv(q);
	struct proc_launch l = {
		.path = q->prog, .argv = argv, .stdin_path = q->stdin_path,
		.stdout_path = q->stdout_path, .pin_cpu = q->pin_cpu,
		.tty_path = q->tty_path, .sandbox = q->sandbox.on ? &q->sandbox : NULL,
	};
	q->proc = proc_launch(&l, err, sizeof err);
	free(argv);
	if (!q->proc)
		return qz_error(q, "%s", err);
	q->stop = QZ_STOP_NONE;
	q->list_file = NULL;
	thread_attach(q);
	run_stopped(q);
	run_relocate(q);
	mod_start(q);
	run_until_target(q, NULL);
	return 0;
}

/* The int3s in the program, for the guard (proc_guard_on). */
static void run_guard_list(void *ctx, struct proc *p)
{
	const struct bp_table *t = &((struct qz *)ctx)->bps;
	for (size_t i = 0; i < t->nsites; i++)
		if (t->sites[i].inserted)
			proc_guard_put(p, t->sites[i].addr, t->sites[i].orig);
}

int run_attach(struct qz *q, int pid)
{
	char err[512];
	if (q->proc)
		return qz_error(q, "The program is already being debugged (kill or detach it first).");
	struct proc *p = proc_attach(pid, err, sizeof err);
	if (!p)
		return qz_error(q, "%s", err);
	q->proc = p;
	q->attached = true;
	proc_guard_on(p, run_guard_list, q);   /* (none: as before, int3s may stay) */
	q->stop = QZ_STOP_SIGNAL;
	q->stop_sig = 0;   /* the attach's SIGSTOP is not the program's */
	q->list_file = NULL;
	thread_attach(q);
	run_stopped(q);
	run_relocate(q);
	mod_start(q);
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
