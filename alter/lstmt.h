/* lstmt: how to skip one execution of a statement (suppress) whatever its
 * layout: several lines, several blocks, stack arguments, -O2 code of
 * other lines scheduled inside it. */
#ifndef ALTER_LSTMT_H
#define ALTER_LSTMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lcode.h"

struct qz;
struct qz_module;

struct lstmt {
	uint64_t lo, hi;           /* the hull, link-time: entered at lo, left at hi */
	int64_t sp;                /* what the skipped instructions do to rsp */
	struct lstmt_step {        /* instructions that still run (other lines' */
		uint64_t addr;     /* scheduled code, register-only work), with */
		int64_t sp;        /* the skipped instructions' rsp change before them */
		bool dest;         /* not a step: a skipped strcpy-like call returns rdi */
	} *steps;
	size_t nsteps;
};

/* Plan the suppression of the copy of lc whose hull is [lo, hi); 0, or -1
 * with the session's error saying why it cannot be done and what would
 * work. */
int lstmt_plan(struct qz *q, struct qz_module *m, const struct lcode *lc, uint64_t lo,
	       uint64_t hi, struct lstmt *st);
void lstmt_free(struct lstmt *st);
/* The process is at the hull's start (runtime = link-time + bias): skip the
 * statement. An enum run_ev: RUN_AGAIN when done, else the stop a step
 * met (the program exited or got a signal). */
int lstmt_skip(struct qz *q, const struct lstmt *st, uint64_t bias);

#endif
