/* inject: run a system call inside the stopped debuggee, as if the program
 * had made it, and put everything back: how qzdb maps its scratch page now,
 * and how checkpoints will unmap and remap memory later. */
#ifndef QZ_INJECT_H
#define QZ_INJECT_H

#include <stdint.h>

struct proc;

/* Execute syscall nr with up to six arguments at the current pc; the
 * registers and the two code bytes borrowed are restored. Returns 0 with
 * the kernel's result in *ret (negative errno on failure), or -1 if the
 * process did not come back from the single-step. */
int inj_syscall(struct proc *p, long nr, const uint64_t args[6], int64_t *ret);

#endif
