/* undo-int.h: the undo engine's state, shared by undo.c (the fault
 * thread, the log, the protection) and undo-agent.c (the save agent's
 * side of it). */
#ifndef CKPT_UNDO_INT_H
#define CKPT_UNDO_INT_H

#include <linux/userfaultfd.h>
#include <pthread.h>
#include <stdatomic.h>

#include "ckpt-int.h"
#include "ckpt/agent/agent-abi.h"

#define UNDO_RUN_MAX 4096             /* pages: 16 MiB */
#define UNDO_RUN_GROW 4
#define UNDO_PROT_CHUNK (4ull << 20)  /* protected at a time in the background */
#define UNDO_PROBE 64                 /* pages read through the scratch buffer at a time */

struct undo_span {
	uint64_t lo, hi;
};

struct ckpt_undo {
	int ufd;                      /* qzdb's (the only) userfaultfd */
	pid_t pid;
	int evfd;                     /* wakes the thread to end it */
	int workfd;                   /* wakes the protector to protect pend */
	pthread_t prot_thr;           /* the protector */
	atomic_int want;              /* threads waiting for mu: the protector lets them */
	atomic_bool ending;           /* ckpt_undo_free: the protector stops between chunks */
	bool prot_on;
	pthread_t thr;
	bool thr_on;
	pthread_mutex_t mu;           /* everything below */
	bool capture;                 /* off while a rollback writes */
	uint64_t **sbits;             /* per registered span, a bit a page: saved
	                                 (and writable) this epoch; NULL: none */
	struct ckpt_page *log;        /* their pre-images, in fault order */
	size_t nlog, logcap;
	struct undo_span *unprot;     /* runs let write this epoch */
	size_t nunprot, unprotcap;
	struct undo_span *changed;    /* unmapped/removed by the program (events) */
	size_t nchanged, changedcap;
	struct undo_span *retry;      /* releases to try again (EAGAIN) */
	size_t nretry, retrycap;
	struct undo_span *regd;       /* registered maps, sorted */
	size_t nregd;
	size_t nsbits;                /* sbits' length (nregd when it was made) */
	struct undo_span *pend;       /* to protect before the program runs, sorted */
	size_t npend, pendcap;
	uint64_t prot_bg_ns, prot_wait_ns;   /* protection in the background, and waited for */
	uint64_t run_lo, run_hi;      /* the last run saved on a fault */
	size_t run_len;
	uint64_t lost;                /* pages dropped without being saved first */
	struct undo_span *lostv;      /* where they were */
	size_t nlostv, lostvcap;
	struct undo_span *refused;    /* protection refused: copied instead */
	size_t nrefused, refusedcap;
	uint64_t refused_pages;
	size_t refused_said;          /* refused spans warned about */
	bool refuse_test;             /* every protection refused (tests) */
	bool copying;                 /* undo_pend_copy: saves need no release */
	struct qz *q;                 /* for the warning (qzdb's thread) */
	uint64_t faults, pages;       /* totals, for maint checkpoint-stats */
	uint64_t save_ns;             /* time spent saving (copies, protection) */
	uint8_t *scratch;             /* UNDO_PROBE pages: saves are read here first */
	uint64_t fills;               /* pages saved as a repeated word (ckpt_blob_fill) */
	bool no_fill;                 /* set checkpoint-undo-fill off (tests) */
	/* the save agent (agent.c): saves made in the program; set and
	   cleared by the fault thread only (and at the end) */
	struct ckpt_agent *agent;
	struct agent_run *alog;       /* runs it saved this epoch, not copied out
					 yet: pre-images at agent_store + off */
	size_t nalog, alogcap;
	uint64_t agent_store;         /* its store now (a rollback that moved swaps them) */
	uint64_t agent_seq, agent_acked;   /* commands sent, last answered */
	uint64_t agent_seen;          /* runs of its list read so far */
	uint64_t agent_rolled;        /* its store after the last AGENT_ROLL */
	bool agent_ran;               /* the program ran since the last sync */
	pthread_cond_t agent_cv;      /* an answer, or its end */
	uint64_t agent_pages, agent_rolls, agent_moved;
	bool agent_ended;             /* it was there and ended */
};

/* undo.c */
void undo_lock(struct ckpt_undo *u);
void undo_span_add(struct undo_span **v, size_t *n, size_t *cap, uint64_t lo, uint64_t hi);
const struct undo_span *undo_regd_at(const struct ckpt_undo *u, uint64_t a);
bool undo_saved(struct ckpt_undo *u, uint64_t a);
void undo_saved_set(struct ckpt_undo *u, uint64_t a);
void undo_msg_locked(struct ckpt_undo *u, const struct uffd_msg *m);
/* Log n pages at lo, their pre-images read from src. */
void undo_read_locked(struct ckpt_undo *u, uint64_t lo, uint64_t src, size_t n,
		      const struct bp_table *mask);
/* Log n pages at lo that all repeat word (the agent's fill runs). */
void undo_fill_locked(struct ckpt_undo *u, uint64_t lo, size_t n, uint64_t word);
int undo_register(struct ckpt_undo *u, uint64_t lo, uint64_t hi);

/* undo-agent.c: the save agent (qzdb's side: agent.c). */
/* Read what it sent (fault thread): false when it has ended. */
bool undo_agent_read(struct ckpt_undo *u);
/* Send op, wait for the answer (lock held, released while waiting). */
bool undo_agent_ask_locked(struct ckpt_undo *u, uint64_t op);
/* Everything it did while the program ran is known here. */
void undo_agent_sync_locked(struct ckpt_undo *u);
/* Its runs copied out into the log; its store starts again. */
void undo_agent_pull_locked(struct ckpt_undo *u);

#endif
