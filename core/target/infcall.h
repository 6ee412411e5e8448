/* infcall: calling a function of the stopped program from an expression
 * (`print f(1, x)`, `call f(x)`), as gdb does: arguments in registers and
 * on the stack by the SysV ABI, a return address at the program's entry
 * point where an int3 waits, the registers put back after. A call that
 * stops early (a breakpoint, a signal) leaves a "dummy frame": the
 * backtrace shows it, finish and continue end in it and pop it. */
#ifndef QZ_INFCALL_H
#define QZ_INFCALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/user.h>

struct qz;
struct val;
struct di_type;

/* A call that was interrupted: the program's state before it. */
struct infcall_dummy {
	uint64_t ret;                   /* the return address: the entry point */
	uint64_t sp;                    /* rsp after the callee returns */
	struct user_regs_struct regs;   /* the registers before the call */
	struct user_fpregs_struct fp;
	bool active;                    /* the call is still being run by us */
};

/* Register the dummy-frame hooks (core's module init). */
void infcall_init(struct qz *q);

/* Call the function at addr of type ftype (DI_FUNC) with args (already
 * converted to the parameter types, or promoted past them); its result in
 * out. 0, or -1 with err (the call stopped early, the program is gone,
 * an argument cannot be passed). */
int infcall(struct qz *q, uint64_t addr, const struct di_type *ftype,
	    const struct val *args, size_t nargs, struct val *out, char *err, size_t errlen);

/* The dummy a frame returning to pc with stack pointer sp returns into,
 * or NULL: the backtrace shows "<function called from qzdb>" there and
 * goes on with the registers before the call. */
const struct infcall_dummy *infcall_dummy_at(struct qz *q, uint64_t pc, uint64_t sp);

/* The program stopped at an interrupted call's return (finish): put the
 * registers back as before the call; true if it did. */
bool infcall_pop_here(struct qz *q);
/* While finish runs to dummy d's return, the return is finish's to
 * handle (hold), not a silent stop. */
void infcall_hold(struct qz *q, const struct infcall_dummy *d, bool hold);

#endif
