/* rec-int: what the recording engines share with rec.c: the per-
 * instruction bookkeeping before and after an instruction runs, the
 * single-step engine's one step (the fallback of faster engines), and the
 * memory effects of a system call. Private to slice/. */
#ifndef QZ_SLICE_REC_INT_H
#define QZ_SLICE_REC_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/user.h>

#include "rec.h"
#include "sys.h"

/* Before e runs with stack pointer sp: statement instance, control
 * parent; true if an sbreak stops the program here. */
bool rec_pre(struct qz *q, struct rec *r, const struct trace_insn *e, uint64_t sp);
/* Could rec_pre stop at e (a new instance while sbreaks are set)? Its
 * report reads the process, which must then be in e's state. */
bool rec_pre_may_stop(struct qz *q, const struct rec *r, const struct trace_insn *e);
/* After e ran (record recno, -1 if none): sp and pc are the new ones. */
void rec_post(struct qz *q, struct rec *r, const struct trace_insn *e, int64_t recno,
	      uint64_t sp, uint64_t pc);
/* The program wrote [addr, addr+len): instructions decoded from there are
 * stale (code written in place, a library mapped where another was). */
void rec_code_written(struct rec *r, uint64_t addr, uint64_t len);
/* The single-step engine's step: one instruction, natively. */
int rec_step_one(struct qz *q, struct rec *r);
/* What system call a->rax writes into memory given its result (sys.h,
 * reading the stopped process); false: unknown. */
bool rec_sys_writes(struct qz *q, const struct user_regs_struct *a, long ret,
		    struct sys_writes *out);

/* The engine asking the watcher: a general register's value before the
 * instruction, and whether it runs some code without asking now. */
struct rec_watch_src {
	uint64_t (*reg)(void *ctx, int r);
	void *ctx;
	bool unhooked;
};
/* watch.c: whether the watcher wants to look at e before it runs (addr:
 * its operands' addresses, skipped: a rep with count 0, sp: rsp), and its
 * look, with the process in the state before e (an enum run_ev). */
bool rec_watch_ask(struct rec *r, const struct trace_insn *e, const uint64_t *addr,
		   bool skipped, uint64_t sp, const struct rec_watch_src *src);
/* Does the watcher want every instruction now (not only memory ones)? */
static inline bool rec_watch_every(const struct rec *r)
{
	return r->watch.every && *r->watch.every;
}
/* After a system call (pre: registers before it): its writes to sys. */
void rec_watch_sys(struct qz *q, struct rec *r, const struct user_regs_struct *pre, long ret);
int rec_watch_fire(struct qz *q, struct rec *r, const struct trace_insn *e);
/* Before each step: the watcher ends when a second thread appears (the
 * engines run the current thread alone, holding the others: a thread
 * waiting for another would wait for ever), its lost callback told. */
void rec_watch_keep(struct qz *q, struct rec *r);
/* The watcher ends: a thread starts (its lost hook says so). */
void rec_watch_drop(struct qz *q, struct rec *r);

#endif
