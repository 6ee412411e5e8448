/* callbp: breakpoints on a function that stop at the call site when the
 * call matches: `break FUNC if argN==V`, `if ret==V`, `if write|read|access
 * ADDR [SIZE]`. */
#ifndef ALTER_CALLBP_H
#define ALTER_CALLBP_H

#include <stdbool.h>
#include <stdint.h>

struct qz;
struct bp;

/* qz_mod.on_break: 0 if cond is not a call condition. */
int alter_call_break(struct qz *q, const char *spec, const char *cond, bool temp);
/* A trap at pc: RUN_TARGET if not one of ours. */
int alter_call_trap(struct qz *q, uint64_t pc);
/* qz_mod.on_sigtrap: a debug register hit during a watched call. */
int alter_call_sigtrap(struct qz *q);
void alter_call_start(struct qz *q);
void alter_call_gone(struct qz *q);
void alter_call_fini(struct qz *q);
/* Free a call breakpoint's data without touching the process. */
void alter_call_ext_free(struct bp *b);

#endif
