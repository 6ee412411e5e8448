/* rev: reverse execution inside the recorded region. While a region is
 * recorded, every record gets an undo entry (rev-log.c): the old values of
 * the registers the instruction writes (and rip, rsp, flags) and of the
 * memory bytes it writes, and for a system call the old bytes of what it
 * may write. Applying an entry swaps the saved values with the process's
 * current ones, so the same entry takes the process back one instruction
 * and, applied again, forward one: the past is the real process, and every
 * read command shows it. rev.c moves the position (reverse-stepi, -next,
 * -step, -finish, -continue, record goto, and forward replay while in the
 * past); core's q->in_past refuses writes while it is not the end. */
#ifndef QZ_SLICE_REV_H
#define QZ_SLICE_REV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct qz;
struct rec;
struct run_target;
struct trace_insn;
struct user_regs_struct;

/* Default bound of the undo log: beyond it the oldest entries go. 64 MiB
 * is about 1.5 million instructions back (gdb's record full keeps 200,000)
 * and keeps a recording of any length under 256 MiB resident with the
 * trace's own buffers (tests/batch/recslow.sh). */
#define REV_LIMIT_DEFAULT ((size_t)64 << 20)

/* Bytes of the log kept in memory: at most two of these, then they go to
 * an unlinked temporary file (spill.h), a ring the size of what is kept
 * (rev-log.c's rl_flush). */
#define REV_WINDOW ((size_t)1 << 20)

struct rev_log {
	uint8_t *buf;            /* entries, back to back: bytes [mem_base, len) */
	size_t len, cap;         /* len: logical, counting the file's bytes */
	uint64_t mem_base;       /* bytes before it are in the file, at their offset */
	int fd;                  /* the file, once has_fd */
	bool has_fd;
	bool no_file;            /* none could be made, or it failed: all in memory */
	uint64_t ring;           /* the file's size: log offset off is at off % ring */
	/* The file's bytes [cache_lo, cache_hi) as last read: stepping back
	 * through the file's part reads and swaps entry after entry there;
	 * dirty: written back when it goes. */
	uint8_t *cache;
	uint64_t cache_lo, cache_hi;
	bool cache_dirty;
	uint64_t *off;           /* off[i]: offset of record first+i's entry */
	size_t noff, off_cap;
	uint64_t first;          /* the oldest record with an entry */
	uint64_t pos;            /* the process is before record pos (end: live) */
	size_t limit;            /* 0: REV_LIMIT_DEFAULT */
	bool warned;             /* the limit dropped entries (said once) */
	bool disabled;           /* set record undo off */
	uint64_t dropped;        /* entries dropped by the limit */
	uint64_t live_orig_rax;  /* orig_rax at the end, while in the past */
	double apply_secs;       /* time spent applying entries */
	uint64_t applied;
};

/* Where an engine reads the state about to change: a register by insn.h's
 * number (INSN_R_FLAGS, INSN_R_RIP too), an xmm register, memory. */
struct rev_src {
	uint64_t (*reg)(void *ctx, int reg);
	int (*mem)(void *ctx, uint64_t addr, void *buf, size_t len);
	void (*xmm)(void *ctx, int n, void *out16);   /* xmm register n */
	void *ctx;
};

void rev_log_free(struct rev_log *l);
/* Forget every entry (the position too: nothing to go back to). */
void rev_log_clear(struct rev_log *l);
/* Bytes of the log in the temporary file (dropped ones not counted). */
uint64_t rev_file_bytes(const struct rev_log *l);
/* Record recno (just appended) is about to run: save what it writes. */
void rev_note_insn(struct qz *q, struct rev_log *l, uint64_t recno, const struct trace_insn *e,
		   const uint64_t *addr, bool skipped, const struct rev_src *src);
/* The system call of record recno is about to run natively with regs:
 * save the old bytes of what it may write (read from the process). */
void rev_note_sys(struct qz *q, struct rev_log *l, uint64_t recno,
		  const struct user_regs_struct *regs);
/* Forget entries past the trace's n records (a rollback truncated it, an
 * emulated record was dropped). */
void rev_sync(struct rev_log *l, uint64_t n);
/* Apply (swap) record i's entry: back is the direction (item order). */
void rev_apply(struct qz *q, struct rev_log *l, uint64_t i, bool back);
/* Entries held, bytes held. */
uint64_t rev_count(const struct rev_log *l);
size_t rev_bytes(const struct rev_log *l);
/* rev_note_insn with the registers regs and the process's memory
 * (single-stepping). */
void rev_note_insn_proc(struct qz *q, struct rev_log *l, uint64_t recno,
			const struct trace_insn *e, const uint64_t *addr, bool skipped,
			const struct user_regs_struct *regs);

/* ---- rev.c: positions ---- */
/* Reverse execution is possible now (recording on, a process): the
 * slice module's can_reverse (set exec-direction). */
bool rev_can(struct qz *q);
/* Positioned before the end of the recording (the process shows the past). */
bool rev_in_past(struct qz *q);
/* Forward while in the past, for rec_region: replay the log (one
 * instruction, or until a breakpoint, one of t's stops or the end). */
int rev_forward(struct qz *q, const struct run_target *t, bool one);
/* Back to the end (live): true if it moved. */
bool rev_goto_end(struct qz *q);
/* The process's state is not the recording's any more (a new recording,
 * the process gone): forget the position. */
void rev_reset(struct qz *q);

/* The moves; 0, or -1 with the error set. n times; over: over calls. */
int rev_stepi(struct qz *q, int n, bool over);
int rev_step(struct qz *q, int n);
int rev_next(struct qz *q, int n);
int rev_finish(struct qz *q);
int rev_continue(struct qz *q);
/* To the state before record pos (the end: live again), with gdb's
 * record goto messages and the frame line. */
int rev_goto(struct qz *q, uint64_t pos);
/* The same silently (a new stop, nothing printed). 0, or -1 with the
 * error set. */
int rev_move(struct qz *q, uint64_t pos);
/* The oldest position the undo log reaches, the current one and the end
 * (the live state); 0, or -1 with the error set (no log to move in). */
int rev_span(struct qz *q, uint64_t *first, uint64_t *pos, uint64_t *end);

/* ---- rev-last.c: where a value came from ---- */
/* last LVALUE: back to the latest recorded write of its bytes before the
 * position, shown as a reverse watchpoint stop. */
int rev_last(struct qz *q, const char *what);
/* goto-instance FILE:LINE#N [start]: to the end (or the start) of a
 * statement instance of the recording. */
int rev_goto_instance(struct qz *q, const char *spec);

/* ---- cmd-rev.c ---- */
int cmd_reverse_stepi(struct qz *q, const char *a);
int cmd_reverse_nexti(struct qz *q, const char *a);
int cmd_reverse_step(struct qz *q, const char *a);
int cmd_reverse_next(struct qz *q, const char *a);
int cmd_reverse_finish(struct qz *q, const char *a);
int cmd_reverse_continue(struct qz *q, const char *a);
int cmd_record_goto(struct qz *q, const char *a);
int cmd_last(struct qz *q, const char *a);
int cmd_goto_instance(struct qz *q, const char *a);
/* `set record undo-limit BYTES|unlimited` and `set record undo on|off`. */
int rev_set(struct qz *q, const char *a);
/* info record's lines about the undo log and the position. */
void rev_info(struct qz *q);

#endif
