/* sandbox: confines a program qzdb launches (a replayed session's program,
 * or any program after `set sandbox on`). Two layers, applied in the child
 * between fork and exec:
 *   - Landlock: reads and execution everywhere, writes only under the
 *     scratch directory (plus /dev/null, /dev/tty and the program's own
 *     terminal); with Landlock ABI 4+ also no TCP unless the network is
 *     allowed;
 *   - a seccomp filter whose denials are SECCOMP_RET_TRACE: qzdb, already
 *     the tracer, sees each one as a PTRACE_EVENT_SECCOMP stop, fails the
 *     call with EPERM and reports it (`[sandbox: denied execve("/bin/sh")]`).
 *     Without a tracer (a forked child qzdb detached) RET_TRACE fails the
 *     call with ENOSYS: closed, not open.
 * The first execve (of the program qzdb chose) is let through by proc's
 * launch; every later one is denied. */
#ifndef QZ_SANDBOX_H
#define QZ_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/user.h>

#include "util/util.h"

struct sandbox {
	bool on;                 /* `set sandbox on`: applies at the next run */
	bool forced;             /* replay: commands may not turn it off */
	bool allow_network;      /* --allow-network: socket/connect allowed */
	char *scratch;           /* the one writable directory (--scratch) */
	bool scratch_made;       /* made by qzdb: removed at the end if empty */
	const char *tty_path;    /* the program's terminal, writable; or NULL */
	/* Built by sandbox_prepare for the next launch: the seccomp program
	 * (struct sock_filter[]) with the child's pid still a placeholder. */
	void *bpf;
	size_t nbpf;
	int abi;                 /* Landlock ABI in use */
	/* Where denials are told (the transcript). */
	void (*report)(void *ctx, const char *line);
	void *ctx;
};

/* The kernel's offer: Landlock ABI (0: none) and seccomp filters. */
int sandbox_landlock_abi(void);
bool sandbox_seccomp_ok(void);
/* Can the sandbox be applied here? -1 plus err naming what is missing. */
int sandbox_supported(char *err, size_t errlen);

/* Before a launch (parent side): check the kernel, make the scratch
 * directory if none was chosen (announced on stderr), build the filter.
 * -1 plus err on failure. */
int sandbox_prepare(struct sandbox *sb, char *err, size_t errlen);
/* Make the scratch directory if needed; its path is sb->scratch. */
int sandbox_scratch(struct sandbox *sb, char *err, size_t errlen);
void sandbox_free(struct sandbox *sb);

/* In the child, after PTRACE_TRACEME and before execve: Landlock, then a
 * SIGSTOP so the tracer can ask for seccomp stops, then the filter. No
 * allocation (the parent may have threads). 0 or an errno value. */
int sandbox_enter(const struct sandbox *sb);

/* The tracer at a seccomp stop of the program pid with registers r: true
 * to let the call run; false when denied (r changed to skip the call with
 * EPERM: write them back) and reported. */
bool sandbox_judge(const struct sandbox *sb, pid_t pid, struct user_regs_struct *r);

#endif
