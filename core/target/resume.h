/* resume: continuing from a planted breakpoint without lifting it. The
 * replaced instruction runs from a copy in a scratch page of the debuggee
 * followed by a jump back (direct calls and jumps are emulated), so a hit
 * costs one stop instead of a stop and a single-step. */
#ifndef QZ_RESUME_H
#define QZ_RESUME_H

#include <stdbool.h>

struct qz;
struct bp_site;

/* Resume the process (PTRACE_CONT) from site s, which pc is at. Returns
 * false, having done nothing, when the instruction needs the slow way. */
bool resume_fast(struct qz *q, struct bp_site *s, int sig);
/* Forget the scratch page (the process is gone or exec'd). */
void resume_reset(struct qz *q);

#endif
