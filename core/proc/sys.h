/* sys: what a system call writes into the program's memory, from one
 * table (sys.c): its number, arguments and result, and for calls whose
 * buffers are described in memory (readv's iovecs, recvmsg's msghdr) what
 * the process holds there after the call. Read by slice/ (the recording
 * and its undo log) and ckpt/ (the re-execution log). */
#ifndef QZ_PROC_SYS_H
#define QZ_PROC_SYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/user.h>

#define SYS_MAX_WRITES 64

struct sys_writes {
	int n;
	struct { uint64_t addr, len; } v[SYS_MAX_WRITES];
};

/* Reads len bytes of the stopped process at addr; false if it cannot. */
typedef bool (*sys_peek_fn)(void *ctx, uint64_t addr, void *buf, size_t len);

/* The writes of the call pre->rax (registers before it) that returned
 * ret. false: its effects are not modelled (out is then empty). */
bool sys_writes(const struct user_regs_struct *pre, long ret, sys_peek_fn peek, void *ctx,
		struct sys_writes *out);
/* The call's name ("getcwd"), or its number as text. */
const char *sys_name(long nr, char *buf, size_t size);

#endif
