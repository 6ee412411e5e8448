/* watch-int: what the watch*.c files share: struct watch and the
 * module's state, and the functions one file calls in another. Not for use
 * outside the watchpoint module. */
#ifndef QZ_WATCH_INT_H
#define QZ_WATCH_INT_H

#include "watch.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "session.h"

struct pw_access;

enum { WATCH_NREGS = 4, WATCH_MAX_FRAMES = 256 };

struct watch_range {
	uint64_t addr;
	uint64_t len;
};

struct watch {
	char *text;               /* the expression as typed */
	struct expr *expr;
	bool location;            /* -location: the address, not the expression */
	bool direct;              /* the value is the memory of ranges[0] */
	bool in_reg;              /* part of it lives in a register: software */
	const struct di_type *type;
	uint64_t cfa;             /* frame its locals live in; 0: globals only */
	uint64_t scope_pc;        /* where that frame returns to (0: unknown) */
	struct watch_range *ranges;
	size_t nranges, ranges_cap;
	struct val old;
	bool have_old;
	bool was_enabled;         /* enabled at the last sync: else re-read */
	bool located;             /* has memory in the live process: gdb then
	                             widens info breakpoints' Address column */
	uint8_t slots;            /* debug registers in use, bit i = DRi */
	bool paged;               /* watched by page protection (pagewatch.c) */
};

/* What an evaluation touched: variables it looked up and memory it read. */
struct watch_touch {
	struct watch_range r;
	bool leaf;                /* a variable (else a memory read) */
	bool aggregate;           /* struct, union or array */
};

struct watch_state {
	bool no_hw;               /* set can-use-hw-watchpoints 0 */
	/* While evaluating with recording on: the environment's own lookups
	 * and what they touched. */
	int (*lookup)(void *, const char *, struct val *, char *, size_t);
	int (*read_mem)(void *, uint64_t, void *, size_t);
	bool recording;
	struct watch_touch *touch;
	size_t ntouch, touch_cap;
	bool touch_reg, touch_local;
	uint64_t dr[WATCH_NREGS];
	uint64_t dr7;             /* what watch_arm writes */
	uint64_t *scopes;         /* frame-exit stops planted (bp_site_add) */
	size_t nscopes, scopes_cap;
};

/* watch.c */
/* The session's watchpoint state, made on first use. */
struct watch_state *watch_state(struct qz *q);
/* A kind that lives on debug registers (watch, rwatch, awatch). */
bool watch_is_hw(int kind);
/* Give the enabled hardware watchpoints their registers again; those that
 * no longer fit are demoted (watch) or disabled (rwatch, awatch). */
void watch_assign(struct qz *q);
/* Does b compare after every single-step (the last resort)? */
bool watch_steps(const struct bp *b);
/* A stop at a frame-exit site: delete the watchpoints whose frame
 * returned (the on_trap hook). A run_ev. */
int watch_on_trap(struct qz *q, uint64_t pc);

/* watch-value.c */
/* Evaluate w's expression in the selected frame; with record, note what it
 * touched in the state. 0, or -1 with the error set. */
int watch_eval(struct qz *q, struct watch *w, struct val *out, bool record);
void watch_add_range(struct watch *w, uint64_t addr, uint64_t len);
/* The ranges w depends on, from the value and what its evaluation
 * touched: an lvalue's own bytes plus the scalars (pointers, indexes) it
 * was reached through; for an rvalue everything it read. */
void watch_set_ranges(struct qz *q, struct watch *w, const struct val *v);
/* The current value of w. 0, or -1 (no value now: out of scope, memory
 * unreadable). An evaluated expression records its ranges again; *moved
 * says they changed (a pointer it goes through was written). */
int watch_value(struct qz *q, struct watch *w, struct val *out, bool *moved);
bool watch_same(const struct val *a, const struct val *b);
/* v becomes w's last seen value (w takes it over). */
void watch_set_old(struct watch *w, struct val *v);

/* watch-dr.c */
int watch_poke_dr(pid_t tid, int i, uint64_t v);
uint64_t watch_peek_dr(pid_t tid, int i);
/* Split [addr, addr+len) into aligned pieces of 1, 2, 4 or 8 bytes. */
int watch_pieces(uint64_t addr, uint64_t len, uint64_t *pa, uint8_t *pl, int max);
/* Give w the free registers its ranges need; false if they do not fit. */
bool watch_take_slots(struct watch_state *ws, struct bp *b, int *used);
/* Debug registers are per thread: arm every thread of the process. */
int watch_arm_all(struct qz *q);

/* watch-hit.c */
/* "Hardware watchpoint", "Hardware read watchpoint", ... for kind. */
const char *watch_title(int kind);
/* An access to a page protected for watchpoints ran (pagewatch.c): as a
 * debug register's hit, for the watchpoints whose bytes it touched. */
int watch_pw_hit(struct qz *q, const struct pw_access *a);

#endif
