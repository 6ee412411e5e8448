/* The save agent's interface with qzdb (ckpt/agent.c), shared by both
 * sides: the control area qzdb fills before the agent starts, the
 * commands qzdb sends down a pipe and the records the agent sends back.
 * Everything the agent sends is checked by qzdb as hostile data (the
 * program can scribble over the agent's memory). */
#ifndef CKPT_AGENT_ABI_H
#define CKPT_AGENT_ABI_H

#include <stdint.h>

#define AGENT_MAGIC 0x716a64626167656eull   /* "qzdbagen" */

/* At the start of the control area (read-write, the agent's stack above). */
struct agent_ctl {
	uint64_t magic;
	int32_t ufd;                  /* the userfaultfd (the agent's copy) */
	int32_t cmdfd;                /* commands from qzdb (its end closed: qzdb gone) */
	int32_t recfd;                /* records to qzdb (the same socket) */
	int32_t pmfd;                 /* /proc/PID/pagemap: which pages are still protected */
	uint64_t store, trash;        /* two areas of len bytes: pre-images, and where a
					 rollback moves the written pages (then swapped) */
	uint64_t len;
	uint64_t recs, maxrecs;       /* the agent's list of saved runs (struct agent_run) */
	uint64_t move;                /* UFFDIO_MOVE may be used */
	uint64_t fill;                /* runs of pages repeating one word held as the word */
	uint64_t nruns;               /* runs saved so far (the agent's count, read by
					 qzdb at a sync or when the agent has ended) */
};

struct agent_run {
	uint64_t addr, n, off;        /* n pages at addr, saved at store + off */
	uint64_t fill, word;          /* fill: every page repeats word, nothing in the store */
};

/* A run is written to the list, then nruns counts it, then it is
 * released: a run qzdb has not read yet is still listed there. */
enum agent_op {
	AGENT_SYNC = 1,               /* reply AGENT_SYNCED (n: nruns) with the same seq */
	AGENT_ROLL = 2,               /* put every run back; reply AGENT_ROLLED */
	AGENT_RESET = 3,              /* forget the runs (qzdb copied them); reply AGENT_SYNCED */
	AGENT_QUIT = 4,
};

struct agent_cmd {
	uint64_t op, seq;
};

enum agent_kind {
	AGENT_MSG = 2,                /* a message of the userfaultfd for qzdb (msg) */
	AGENT_SYNCED = 3,
	AGENT_ROLLED = 4,             /* n: runs put back (moved or copied), off: 0 ok, 1 failed */
};

struct agent_rec {
	uint64_t kind, seq, addr, n, off, pad;
	uint8_t msg[32];              /* struct uffd_msg */
};

#endif
