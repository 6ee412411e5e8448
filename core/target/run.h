/* run: resuming and stopping the process: breakpoint hits with conditions
 * and ignore counts, stepping off breakpoints invisibly, signals by the
 * handle table, exits; and reporting stops in gdb's words. */
#ifndef QZ_RUN_H
#define QZ_RUN_H

#include <stdbool.h>
#include <stdint.h>

struct qz;

enum run_ev {
	RUN_STEPPED,   /* a single-step completed */
	RUN_TARGET,    /* an internal stop was reached */
	RUN_STOPPED,   /* a stop the user must see was reported (breakpoint,
	                  signal, exit): the command ends */
	RUN_ERROR,     /* could not resume; error set */
	RUN_AGAIN      /* inside run.c: a signal let through, resume again */
};

/* An internal stop: pc == addr with rsp >= min_sp (0: any frame). */
struct run_target {
	uint64_t addr[8];
	uint64_t min_sp[8];
	int n;
};

/* Start (or restart) the program and continue to the first stop (start
 * plants its temporary breakpoint on main before calling this). */
int run_start(struct qz *q);
/* Does breakpoint or watchpoint b stop the program now? Its condition
 * (an error in it stops, reported, as in gdb), then its ignore count; counts
 * the hit. The one place both kinds are judged. */
struct bp;
bool run_bp_stops(struct qz *q, struct bp *b);
/* Single-step one instruction: RUN_STEPPED or RUN_STOPPED (exit/signal). */
enum run_ev run_step_insn(struct qz *q);
/* For a module that drives (qz_mod.drive): one single-step, never handed over; and
 * after it, whether the process stopped where a continue would stop: a
 * module's or the user's breakpoint (RUN_STOPPED or RUN_AGAIN after a
 * module acted) or one of the targets (RUN_TARGET); RUN_STEPPED if not. */
enum run_ev run_step_raw(struct qz *q);
enum run_ev run_region_check(struct qz *q, const struct run_target *t);
/* After a single step (stepi): a step that landed on a planted site lets
 * the modules act there as a trap would; RUN_STEPPED or RUN_STOPPED. */
enum run_ev run_step_landed(struct qz *q);
/* Continue until a user breakpoint, signal, exit or one of the targets. */
enum run_ev run_until_target(struct qz *q, const struct run_target *t);
/* If pc is at an enabled user breakpoint whose condition holds, count the
 * hit and report it: for stepping onto a breakpoint. */
bool run_check_bp_here(struct qz *q);
void run_kill(struct qz *q);
/* Attach to running process pid: modules from its maps and link map,
 * breakpoints planted; the caller reports where it stopped. */
int run_attach(struct qz *q, int pid);
void run_report_exit(struct qz *q, int code);

/* The CFA of frame 0 and its function start, gdb's frame id. */
void run_frame_id(struct qz *q, uint64_t *cfa, uint64_t *func);

#endif
