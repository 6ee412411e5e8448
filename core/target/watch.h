/* watch: watchpoints (watch, rwatch, awatch, watch -l) on the x86 debug
 * registers DR0-DR3/DR7, with a software fallback that single-steps and
 * compares the value when no register is free. Watchpoints are entries of
 * the breakpoint table (struct bp, kind != BP_KIND_BREAK) so delete,
 * disable, enable, condition and ignore work on them. */
#ifndef QZ_WATCH_H
#define QZ_WATCH_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct qz;
struct bp;
struct sbuf;
struct watch;

/* Register the module's hooks (re-arm at start, scope exits); once per
 * session, from the front end. */
void watch_init(struct qz *q);

/* A new watchpoint of kind BP_KIND_WATCH, _RWATCH or _AWATCH from the
 * arguments of watch, rwatch or awatch: "[-l|-location] EXPR [if COND]"
 * (-location for watch only). It becomes a software watchpoint when no
 * debug register can hold it. 0, or -1 with the error in q. The commands
 * are in cmd/cmd-watch.c. */
int watch_create(struct qz *q, const char *args, int kind);
/* set can-use-hw-watchpoints: false keeps new watchpoints off the debug
 * registers (software, and no read or access watchpoints). */
void watch_set_hw_allowed(struct qz *q, bool allowed);
bool watch_hw_allowed(struct qz *q);

/* Put every enabled hardware watchpoint into the debug registers of
 * thread tid (each thread has its own registers). 0, or -1 if ptrace
 * refused. */
int watch_arm(struct qz *q, pid_t tid);
/* Clear the debug registers of the process (before detaching). */
void watch_disarm(struct qz *q);
/* After watchpoints were added, deleted, enabled or disabled: assign the
 * debug registers again, arm them, and keep the frame-exit stops. */
void watch_sync(struct qz *q);

/* A SIGTRAP stop (after a continue, or a single-step when step): if a
 * watchpoint caused it (DR6) or, single-stepping, a software watchpoint's
 * value changed, act as gdb does. Returns -1 when it is none of ours, else
 * the run_ev for run.c: RUN_STOPPED (reported), RUN_AGAIN (resume
 * silently), RUN_TARGET (silently at an int3 site: handle it as a trap
 * there), RUN_STEPPED (single-step done, nothing to report). */
int watch_classify(struct qz *q, bool step);
/* Replaying a recording (slice/rev.c) no debug register fires: compare
 * every enabled write watchpoint's value now, as a software one's after a
 * step; RUN_STOPPED (reported, gdb's Old/New) or RUN_STEPPED. */
int watch_check_values(struct qz *q);
/* "Old value = 3" as a watchpoint's stop prints it (v NULL: unreadable). */
struct val;
void watch_print_value(struct qz *q, struct sbuf *out, const char *label, const struct val *v);
/* A software watchpoint is enabled: continuing must single-step. */
bool watch_soft_active(struct qz *q);
/* A hardware watchpoint fired during a single-step made to step off an
 * int3 site (so the stop must be classified, not resumed). */
bool watch_hit_pending(struct qz *q);

/* `info breakpoints`: the Type column name and the What column of a
 * watchpoint row. */
const char *watch_type_name(const struct bp *b);
void watch_what(const struct bp *b, struct sbuf *out);
/* Whether b has a runtime address (a watchpoint once its process ran). */
bool watch_located(const struct bp *b);
/* Free a watchpoint's data (from bp_free). */
void watch_free(struct watch *w);

/* Do hardware watchpoints hold debug registers now? */
bool watch_hw_active(const struct qz *q);

#endif
