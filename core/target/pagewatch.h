/* pagewatch: watched memory by page protection, for machines whose debug
 * registers do not fire (and `set can-use-hw-watchpoints 0`). The pages
 * holding watched bytes lose PROT_WRITE (PROT_NONE when reads count too),
 * by mprotect calls injected into the debuggee; an access faults, the
 * fault is ours when the program's own protection allows the access, and
 * then the program never sees it: its protection comes back for that page
 * alone, the faulting instruction is single-stepped with the other
 * threads stopped, ours goes back, and the clients (watch.c, alter's call
 * breakpoints) compare the watched bytes. While pages are protected the
 * program's system calls are traced so that its own mprotect, munmap,
 * mmap, mremap and brk keep their meaning (see pagewatch.c). */
#ifndef QZ_PAGEWATCH_H
#define QZ_PAGEWATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct qz;
struct proc_stop;

enum pw_owner { PW_WATCH, PW_CALLS, PW_NOWNERS };

struct pw_range {
	uint64_t addr, len;
	bool reads;               /* reads trap too (rwatch, awatch) */
};

/* An access that faulted on a protected page, after it ran: the bytes the
 * instruction's memory operand covers (as far as it could be decoded). */
struct pw_access {
	uint64_t addr, len;
};

/* Called after an access of the owner's pages ran; returns a run_ev:
 * RUN_STOPPED when it reported a stop, else RUN_AGAIN. */
typedef int (*pw_hit_fn)(struct qz *q, const struct pw_access *a);

/* Register the module (checkpoint and process hooks); once per session. */
void pw_init(struct qz *q);
/* Replace owner's watched ranges and protect their pages now (when the
 * process runs); n 0 releases them. */
void pw_set(struct qz *q, enum pw_owner owner, const struct pw_range *r, size_t n,
	    pw_hit_fn hit);
/* Give every page the program's own protection back and stop tracing
 * system calls (before detaching); the ranges are forgotten. */
void pw_release(struct qz *q);
/* Take our protection off every page (on false), keeping the ranges, or
 * put it back: a checkpoint must see and restore the program's own memory
 * map, whose protection decides which pages it saves and tracks. */
void pw_protect(struct qz *q, bool on);
/* Is addr in a thread's stack, where protection is unsafe (the kernel
 * writes signal frames there and system calls would fail with EFAULT)? */
bool pw_on_stack(struct qz *q, uint64_t addr);

/* A stop after a resume (run.c): a fault on a page we protected, or a
 * system-call stop while we trace them. Returns a run_ev when handled
 * here, else -1 with *st possibly replaced by the stop to classify
 * instead (the program's own fault, after ours were put back). */
int pw_classify(struct qz *q, struct proc_stop *st, bool step);

#endif
