/* tailcall: which tail calls led from a caller's call site to the running
 * function, from the call sites in the debug information (gdb's
 * call_site_find_chain); frame.c shows them as frames. */
#ifndef QZ_TAILCALL_H
#define QZ_TAILCALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dinfo/dinfo.h"

struct qz;
struct qz_module;

enum { TAILCALL_MAX = 16 };   /* tail calls in one chain */

/* The function a call site in module m calls, runtime: 0, or -1 if not
 * known (an indirect call, a name no loaded object defines). */
int tailcall_target(struct qz *q, const struct qz_module *m, const struct di_callsite *cs,
		    uint64_t *addr);
/* Whether the function entered at func (runtime) may reach itself
 * through tail calls, or that is not known (an indirect tail call on the
 * way): gdb then trusts no entry value of its parameters
 * (func_verify_no_selftailcall). */
bool tailcall_may_reenter(struct qz *q, uint64_t func);
/* The tail calls between the call whose return address is caller_pc and
 * the function entered at callee (runtime), as the frames gdb shows for
 * them from the callee up: each one's pc (the address after its jump).
 * Returns how many (0: none, or none known for sure). */
size_t tailcall_chain(struct qz *q, uint64_t caller_pc, uint64_t callee,
		      uint64_t pcs[TAILCALL_MAX]);

#endif
