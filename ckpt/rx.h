/* rx: re-execution from a checkpoint (issue 19, beyond the recorded
 * region). While automatic checkpoints are on (set checkpoint-interval),
 * every system call of a single-threaded program is logged at its exit:
 * number, arguments, result and the bytes it wrote (core/proc/sys.h's
 * table says which). The vDSO's clock and cpu functions are patched to
 * make the real system call, so that time() and clock_gettime() are
 * logged too. A rollback made by re-execution keeps the log: running
 * forward from there feeds each logged call back instead of running it
 * (the entry is skipped, the exit gets the logged result and bytes), and
 * a call that differs from the log (number or arguments) stops the
 * program with a clear message. reverse-continue with no recorded region
 * finds the last breakpoint hit before the present by re-executing from
 * the newest usable checkpoint (rx-back.c). Files: rx-log.c (the log and
 * the system-call hook), rx-vdso.c, rx-back.c. Private to ckpt/. */
#ifndef QZ_CKPT_RX_H
#define QZ_CKPT_RX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/user.h>

struct qz;
struct ckpt;
struct sbuf;

/* One logged system call; its writes are w[w0 .. w0 + nw). */
struct rx_call {
	int64_t nr;
	uint64_t args[6];
	int64_t ret;
	uint64_t out_hash;            /* write/pwrite64: the bytes it wrote */
	uint32_t w0, nw;
	bool unknown;                 /* effects not modelled: cannot be fed */
};

struct rx_write {
	uint64_t addr;
	uint64_t off;                 /* into data */
	uint32_t len;
};

enum { RX_IDLE, RX_LOGGING, RX_FED, RX_RUN };

#define RX_VDSO_MAX 12

struct rx {
	struct rx_call *calls;
	size_t n, cap;
	struct rx_write *w;
	size_t nw, wcap;
	uint8_t *data;
	size_t dlen, dcap;
	uint64_t at;                  /* calls the process has made so far:
	                                 below n, the rest are fed */
	bool on;                      /* the hook is set */
	int pending;                  /* RX_*: the call between entry and exit */
	struct user_regs_struct pre;  /* its registers at the entry */
	char *broken;                 /* why re-execution cannot work (threads,
	                                 exec), or NULL */
	bool diverged;                /* a stop to report (rx_on_sigtrap) */
	bool internal;                /* a rollback made by re-execution */
	uint64_t stops;               /* system-call stops seen */
	uint64_t fed;                 /* calls fed back */
	const struct rx_goal *goal;   /* while a reverse move searches */
	bool sites_in;                /* the goal's sites are planted */
	uint64_t arm_at;              /* its window opens at this call count
	                                 (UINT64_MAX: no search) */
	bool armed;                   /* the window is open: stops count */
	bool open_window;             /* the hook stopped to open it */
	bool goal_hit;                /* its stop was one of the goal's */
	bool goal_final;              /* ... the one the move ended at */
	int last_passes;              /* the last reverse move's re-executions */
	uint64_t last_ns;             /* and its time */
	/* the vDSO functions patched to make the system call */
	uint64_t vaddr[RX_VDSO_MAX];
	uint8_t vorig[RX_VDSO_MAX][8];
	int nv;
	char vdso_note[96];           /* what the patch did, for info reexec */
};

/* rx-log.c */
/* Logging on while checkpoint-interval is, the process single-threaded
 * and alive; off otherwise (the vDSO put back). */
void rx_arm(struct qz *q);
/* The process is gone, exec'd or about to be detached: forget the log
 * (and take the hook and the vDSO patch out of a process still there). */
void rx_forget(struct qz *q);
void rx_free(struct rx *x);
/* A checkpoint is being taken: where in the log it is. */
void rx_note_ckpt(struct qz *q, struct ckpt *c);
/* Rolled back to c: by re-execution the log is kept and fed from c's
 * place; by the user the log ends there (the run is live again) and the
 * checkpoints after it leave re-execution. */
void rx_rolled_back(struct qz *q, const struct ckpt *c);
/* The stop a divergence asked for: reported (RUN_STOPPED) or RUN_TARGET. */
int rx_on_sigtrap(struct qz *q);
/* info reexec */
int rx_info(struct qz *q);
int rx_info_log(struct qz *q);

/* rx-vdso.c: make the vDSO's functions system calls (and undo it). */
void rx_vdso_patch(struct qz *q, struct rx *x);
void rx_vdso_unpatch(struct qz *q, struct rx *x);

/* rx-back.c: the last stop before the present, by re-execution: the
 * user's breakpoints, and with a goal (rx-step.c) its sites too. */
struct rx_goal {
	uint64_t *addr;               /* sorted */
	size_t n;
	uint64_t cfa;                 /* a hit counts in this frame or an outer
	                                 one (CFA at least this; 0: any) */
	uint64_t sp;                  /* ... with this rsp (0: any) */
};
int rx_back(struct qz *q, const struct rx_goal *g);
void rx_window_open(struct qz *q, struct rx *x);
/* ckpt's on_trap: a goal's site reached (RUN_STOPPED) or RUN_TARGET. */
int rx_on_trap(struct qz *q, uint64_t pc);

/* rx-step.c: qz_mod.reverse (enum mod_reverse). */
int rx_reverse(struct qz *q, int how);
/* The module's can_reverse: the system calls are being logged, so the
 * program can be taken back by re-execution (set exec-direction). */
bool rx_can_reverse(struct qz *q);

#endif
