/* alter-int: the state shared by alter's files (not for other modules). */
#ifndef ALTER_INT_H
#define ALTER_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "target/bp.h"
#include "lcode.h"
#include "lstmt.h"

struct qz;

/* A statement some alteration or instance watch covers. Lines are never
 * freed before the session ends, so saved state can point at them. */
struct alter_line {
	struct lcode code;
	uint64_t count;            /* instances so far in this run */
	bool exact;                /* counted from the start of the run */
	int entry_users;           /* suppressions and watches: count at entries */
	int switch_users;          /* switches: trap at the decisions */
	bool watched;              /* `instance FILE:LINE watch` */
	uint64_t pending;          /* an internal jump to this entry is in flight */
	struct lstmt *stmts;       /* how to suppress each copy of its code */
	size_t nstmts;             /* (planned when asked) */
	bool stmt_planned;
	uint64_t *planted;         /* runtime addresses of our sites */
	size_t nplanted;
};

/* A switch or suppression: bp->ext. */
struct alter_alt {
	struct qz *q;
	int num;                   /* its breakpoint number */
	enum bp_kind kind;
	struct alter_line *ln;
	int sel;                   /* ALTER_ALL, ALTER_ONCE or an instance N >= 1 */
	bool spent;                /* once: it fired */
	bool cond_warned;          /* its condition failed to evaluate once */
	int fires;
};

#define ALTER_ALL 0
#define ALTER_ONCE (-1)

struct alter_call;

struct alter_state {
	struct alter_line **lines;
	size_t nlines, lines_cap;
	bool verbose;
	uint64_t last_bias;         /* the program's load bias in the last run:
	                               rows keep runtime addresses after it, as gdb */
	struct alter_call **calls;  /* call breakpoints (also in the bp table) */
	size_t ncalls, calls_cap;
};

struct alter_state *alter_state(struct qz *q);
/* The line record for FILE:LINE in the program, analysed; NULL with the
 * error set. */
struct alter_line *alter_line_get(struct qz *q, const char *file, int line);
/* Plant or lift the line's sites to match its users. */
void alter_line_sync(struct qz *q, struct alter_line *ln);
struct alter_alt *alter_alt_of(struct qz *q, int num);
/* Add a switch or suppression of ln to the breakpoint table. */
int alter_arm(struct qz *q, enum bp_kind kind, struct alter_line *ln, int sel,
	      const char *cond);
/* Count ln's instances from now on. */
int alter_watch(struct qz *q, struct alter_line *ln);
/* Free an entry's module data without touching the process (session end). */
void alter_ext_free(struct qz *q, struct bp *b);

#endif
