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

/* The same with the syscall instruction the caller placed at at (none
 * borrowed) and r12 set: a clone's child starts after it, in code of the
 * caller's (ckpt/agent.c), with r12 as its argument. */
int inj_syscall_at(struct proc *p, uint64_t at, uint64_t r12, long nr, const uint64_t args[6],
		   int64_t *ret);

#endif
