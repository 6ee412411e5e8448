/* ckpt-int: the checkpoint module's own types, shared by its files only
 * (ckpt.c, osstate.c, dirty.c, restore.c, threads.c, cmd-ckpt.c). Nothing outside
 * ckpt/ includes this. */
#ifndef QZ_CKPT_INT_H
#define QZ_CKPT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <sys/user.h>

#include "target/session.h"

#define CKPT_PAGE 4096ull

/* One saved page, shared between checkpoints by reference count (a
 * deleted checkpoint hands its pages to its children). */
struct ckpt_blob {
	uint32_t refs;
	bool fill;                    /* data is the shared page of one repeated
	                                 word (ckpt_blob_fill): never written */
	struct ckpt_slab *slab;       /* allocated with others, or NULL */
	uint8_t *data;                /* CKPT_PAGE bytes */
};

/* Blobs copied together are allocated together: their data contiguous
 * and page-aligned in one populated mapping (a run of adjacent pages is
 * then one copy, and a fault per blob is avoided), freed with the last. */
struct ckpt_slab {
	size_t live;
	void *mem;
	size_t len;
	struct ckpt_blob *blobs;
	bool populated;               /* the undo log's: reused once free */
	struct ckpt_slab *next;       /* in the pool of free ones */
};

struct ckpt_page {
	uint64_t addr;
	struct ckpt_blob *blob;       /* NULL: the page held zeros */
};

/* A line of /proc/PID/maps. */
struct ckpt_map {
	uint64_t lo, hi, off;
	int prot;                     /* PROT_* */
	bool shared;
	char *path;                   /* file, "[heap]", "[stack]", or NULL */
};

/* An open descriptor: regular files keep what reopening needs. */
struct ckpt_fd {
	int fd;
	bool regular;
	char *path;
	int flags;                    /* open flags from fdinfo */
	int64_t pos;
	bool qzdb_too;                /* the same open file as one of qzdb's
	                                 (inherited): not the program's to
	                                 seek or close */
};

/* The kernel-side state a checkpoint records besides memory. */
struct ckpt_os {
	struct ckpt_map *maps;
	size_t nmaps;
	struct ckpt_fd *fds;
	size_t nfds;
	uint64_t brk;
};

/* A sorted set of page addresses. */
struct ckpt_addrs {
	uint64_t *a;
	size_t n, cap;
};

enum ckpt_method { CKPT_AUTO, CKPT_PAGEMAP, CKPT_HASH, CKPT_BOTH, CKPT_UNDO };

/* The undo engine's copy of the pages it cannot write-protect (private
 * file mappings: .data), as of the epoch's start; compared at its end. */
struct ckpt_shadow {
	struct ckpt_page *p;          /* sorted */
	bool *logged;                 /* its pre-image is in the log already */
	size_t n;
};

/* libc's calls that drop memory, stopped at (an int3) while the undo
 * engine runs, so that what they drop is saved first. */
enum { CKPT_CUT_MUNMAP, CKPT_CUT_MREMAP, CKPT_CUT_MADVISE, CKPT_CUT_MMAP, CKPT_CUT_BRK,
       CKPT_NCUT, CKPT_CUT_SITES = 32 };

struct ckpt_cut {
	uint64_t addr;
	int kind;                     /* CKPT_CUT_* */
};

/* One checkpoint. Its pages are the delta against its parent (the state
 * the process was in when the dirty tracking was last reset: the previous
 * checkpoint or the target of the last rollback); a page found in no
 * delta up the chain was zero (never written) at the checkpoint.
 * With the undo engine the tree is rooted at the base instead: parent is
 * the next newer state, pages are pre-images (this checkpoint's content
 * where the parent's differs), the base's are those logged since it, and
 * a page in no delta up the chain is as in the live memory. */
struct ckpt {
	int id;
	bool dead;                    /* deleted, kept while others need it */
	bool automatic;               /* taken by checkpoint-interval */
	struct ckpt *parent;
	struct user_regs_struct regs;
	uint8_t *xstate;              /* NT_X86_XSTATE as read */
	size_t xlen;
	struct ckpt_os os;
	struct ckpt_page *pages;      /* sorted by addr */
	size_t npages;
	size_t ndata;                 /* pages with a blob */
	void *saved[QZ_MAX_MODS];     /* the modules' state (mod_save) */
	enum qz_stop_kind stop;
	int stop_sig;
	siginfo_t si;                 /* the stop's siginfo (a crash's address
	                                 and code), put back by a rollback */
	bool has_si;
	uint64_t sigmask;             /* blocked signals (a handler blocks its
	                                 own): kernel state, not memory */
	bool has_mask;
	pid_t tid;                    /* the thread whose registers these are */
	pid_t *tids;                  /* every thread at the checkpoint */
	size_t ntids;
	char *where;                  /* "file.c:40" or "0x... in f" */
	uint64_t at_ns;               /* time since the run started */
	const char *method;           /* how its dirty pages were found */
	bool hidden;                  /* a replay's step mark (ckpt_hidden_take) */
	int user_next;                /* hidden: the user's next_id when taken */
	uint64_t rx_at;               /* system calls made before it (rx.h) */
	bool rx_ok;                   /* re-execution can start from it */
};

struct ckpt_dirty;

struct ckpt_state {
	struct ckpt **cps;            /* by id, oldest first */
	size_t n, cap;
	int next_id;
	struct ckpt *base;            /* memory = base + pages dirtied since */
	enum ckpt_method want;
	struct ckpt_dirty *dirty;
	struct ckpt_undo *undo;       /* the undo engine, instead of dirty */
	struct ckpt_shadow shadow;
	bool undo_off;                /* maint set checkpoint-undo off */
	bool undo_fg;                 /* set checkpoint-undo-background off */
	bool undo_noprot;             /* set checkpoint-undo-protect off (tests) */
	bool undo_nofill;             /* set checkpoint-undo-fill off (tests) */
	bool undo_noagent;            /* set checkpoint-undo-agent off (tests) */
	uint64_t agent_lo, agent_hi;  /* the save agent's memory (agent.c): never tracked */
	pid_t agent_pid;              /* and its task (a child of the program's, even ended) */
	struct ckpt_cut cut[CKPT_CUT_SITES];   /* int3s on libc's munmap... */
	int ncut;
	bool cut_planted;
	uint64_t start_ns;            /* when the process started */
	uint64_t argpage;             /* rw page in the debuggee for injected
	                                 system call arguments, never saved */
	uint64_t exit_site;           /* int3 on libc's _exit, 0 if none */
	bool lost;                    /* checkpoints died with the process */
	int exec_below;               /* checkpoints under this id were discarded
	                                 at an exec (0: none) */
	bool in_exec;                 /* between on_gone and on_start of an exec */
	int interval_ms;
	uint64_t budget;              /* bytes, 0 for none */
	uint64_t last_auto_ns;
	uint64_t took_ckpt_ns, took_rollback_ns;   /* the last ones, for maint */
	char *limits;                 /* what rollback cannot undo, as last said */
	int hidden_ids;               /* hidden checkpoints so far: ids -1, -2.. */
	struct rx *rx;                /* the system-call log (rx.h), or NULL */
	bool uffd_in_program;         /* leave the userfaultfd in the debuggee,
	                                 as where qzdb may not take it (tests) */
};

uint64_t ckpt_now_ns(void);
/* The session's checkpoints (the module's state, mod_state). */
struct ckpt_state *ckpt_state(struct qz *q);
bool ckpt_map_tracked(const struct ckpt_state *s, const struct ckpt_map *m);

/* osstate.c */
enum { CKPT_OS_MAPS = 1, CKPT_OS_FDS = 2, CKPT_OS_BRK = 4, CKPT_OS_ALL = 7 };
/* Read the parts of the kernel-side state asked for (CKPT_OS_*). */
int ckpt_os_read(struct qz *q, struct ckpt_os *os, unsigned what);
void ckpt_os_free(struct ckpt_os *os);
int ckpt_inject(struct qz *q, long nr, uint64_t a0, uint64_t a1, uint64_t a2,
		uint64_t a3, uint64_t a4, uint64_t a5, int64_t *ret);
int ckpt_argpage(struct qz *q, struct ckpt_state *s);
int ckpt_mem_read(struct qz *q, const uint64_t *addrs, size_t n, uint8_t **bufs);
int ckpt_mem_write(struct qz *q, const uint64_t *addrs, size_t n, uint8_t *const *bufs);
int ckpt_holes(struct qz *q, const struct ckpt_state *s, const struct ckpt_os *os,
	       struct ckpt_addrs *out);
void ckpt_addrs_add(struct ckpt_addrs *s, uint64_t a);
void ckpt_addrs_sort(struct ckpt_addrs *s);
bool ckpt_addrs_has(const struct ckpt_addrs *s, uint64_t a);
void ckpt_addrs_free(struct ckpt_addrs *s);

/* dirty.c: which pages changed since the last reset (both methods). */
struct ckpt_dirty *ckpt_dirty_new(struct qz *q, struct ckpt_state *s, enum ckpt_method want);
const char *ckpt_dirty_name(const struct ckpt_dirty *d);
/* Does the method miss pages that lost their contents (holes)? */
bool ckpt_dirty_misses_holes(const struct ckpt_dirty *d);
/* The holes of [lo, hi) (pagemap method only); -1 on failure. */
int ckpt_dirty_holes(struct ckpt_dirty *d, uint64_t lo, uint64_t hi, struct ckpt_addrs *out);
/* The debuggee's descriptor qzdb uses (a rollback must not close it), or
 * -1 when qzdb holds the only one. */
int ckpt_dirty_fd(const struct ckpt_dirty *d);
/* Before a checkpoint or rollback: the userfaultfd left in the debuggee
 * (when qzdb could not take it) is still there, or is made again (said
 * in one line; every page then counts as changed once). -1 with the
 * error set, nothing changed, when it cannot be. */
int ckpt_dirty_check(struct ckpt_dirty *d, struct qz *q, struct ckpt_state *s);
/* Pages of the tracked maps written since the last reset (or all pages
 * holding data, the first time); with reset, tracking restarts from now
 * (pagemap: the pages are write-protected again). Without, the pages stay
 * writable, so that qzdb's own writes that follow cost no faults. */
int ckpt_dirty_scan(struct ckpt_dirty *d, struct qz *q, struct ckpt_state *s,
		    const struct ckpt_os *os, struct ckpt_addrs *out, bool reset);
void ckpt_dirty_free(struct ckpt_dirty *d, struct qz *q);
/* With CKPT_BOTH: how the two methods compared at the last scan. */
const char *ckpt_dirty_verdict(const struct ckpt_dirty *d);

/* agent.c: the save agent, a task in the program's address space that
 * saves pre-images there (ckpt/agent/agent.c). */
struct ckpt_agent {
	pid_t pid;
	int pidfd;                    /* readable when it has ended */
	int sock;                     /* qzdb's end of its socket pair: commands, records */
	uint64_t lo, hi;              /* its memory in the program */
	uint64_t store, trash, len;   /* its two stores (swapped by a rollback that moved) */
	uint64_t ctl, recs, maxrecs;  /* its struct agent_ctl, and its list of runs */
};
/* Started in the stopped program, whose descriptor ufd is the
 * userfaultfd; move: UFFDIO_MOVE may be used; fill: runs repeating one
 * word held as the word. NULL if refused. */
struct ckpt_agent *ckpt_agent_start(struct qz *q, int64_t ufd, bool move, bool fill);
/* Kill it and close qzdb's ends. */
void ckpt_agent_free(struct ckpt_agent *a);
/* Unmap its memory from the program (alive; the agent gone). */
void ckpt_agent_unmap(struct qz *q, struct ckpt_state *s);

/* undo.c: the undo engine's userfaultfd, fault thread and log. */
struct ckpt_undo;
struct bp_table;
/* NULL where the kernel or the program's context refuses it. */
/* background: protect in a thread of its own while the program is
 * stopped (else all of it before the program runs). */
/* refuse_test: every write-protection refused, as the kernel may for a
 * second on end (the ranges are then copied at once instead). */
/* no_fill: every pre-image copied, none held as a repeated word (tests). */
/* agent: saves made by the save agent where it starts (agent.c). */
struct ckpt_undo *ckpt_undo_new(struct qz *q, bool background, bool refuse_test, bool no_fill,
				bool agent);
void ckpt_undo_free(struct ckpt_undo *u, struct qz *q);
/* Save the pages of [lo, hi) not saved this epoch and let them be written. */
int ckpt_undo_save(struct ckpt_undo *u, uint64_t lo, uint64_t hi, const struct bp_table *mask);
void ckpt_undo_log(struct ckpt_undo *u, uint64_t addr, struct ckpt_blob *b);
/* Move the pre-images logged into c's pages. */
void ckpt_undo_seal(struct ckpt_undo *u, struct ckpt *c);
/* A new epoch: maps registered, write-protected (all of them when full,
 * else what was let write: by the fault thread while the program stays
 * stopped, finished before it runs); pages of the maps that cannot be
 * go to shadow. */
void ckpt_undo_epoch(struct ckpt_undo *u, struct ckpt_state *s, const struct ckpt_os *os, bool full,
		     struct ckpt_addrs *shadow);
/* Lift the protection of pages (sorted) and stop saving (a rollback
 * writes them); the next epoch protects them again. */
void ckpt_undo_release(struct ckpt_undo *u, const struct ckpt_addrs *pages);
/* Pages dropped without being saved first (with clear: reset); where
 * (if not NULL) gets their ranges, "0x..-0x.., ...". */
uint64_t ckpt_undo_lost(struct ckpt_undo *u, bool clear, struct sbuf *where);
struct ckpt_undo_stats {
	uint64_t faults, pages, save_ns;
	uint64_t fills;               /* pages saved as a repeated word */
	uint64_t prot_bg_ns;          /* protecting while the program was stopped */
	uint64_t prot_wait_ns;        /* what was left of it when it had to run */
	size_t nrefused;              /* ranges the kernel refused to protect */
	uint64_t refused_pages;       /* their pages, copied instead */
	struct sbuf refused;          /* the first ranges, "0x..-0x.., ..." */
};
void ckpt_undo_counts(struct ckpt_undo *u, struct ckpt_undo_stats *st);
/* Rollback to the base's own state by the save agent: it puts back the
 * runs it saved (false: none, or it cannot: the caller's path does it
 * with the rest, the runs copied out first). */
bool ckpt_undo_agent_roll(struct ckpt_undo *u);
/* "save agent: ..." line of maint checkpoint-stats (nothing without one). */
void ckpt_undo_agent_counts(struct ckpt_undo *u, struct sbuf *b);
/* Finish protecting what the last checkpoint or rollback left pending
 * (done in the background; needed before the program runs again). */
void ckpt_undo_flush(struct ckpt_undo *u);
/* Let the protector start on it (at the end of the command). */
void ckpt_undo_kick(struct ckpt_undo *u);

/* undo-roll.c: checkpoints and rollback with the undo engine. */
/* Link c (a snapshot with no pages) as the new base; a new epoch. */
int ckpt_undo_take(struct qz *q, struct ckpt_state *s, struct ckpt *c);
/* Memory back to c (the maps and descriptors with restore.c's help). */
int ckpt_undo_restore(struct qz *q, struct ckpt_state *s, struct ckpt *c);
/* Everything logged so far into the base's pages. */
void ckpt_undo_sync(struct qz *q, struct ckpt_state *s);
/* Page a of checkpoint c into buf (live memory where no delta has it). */
int ckpt_undo_page(struct qz *q, const struct ckpt *c, uint64_t a, uint8_t *buf);
/* libc's memory-dropping calls: plant, remove, and act at a hit. */
void ckpt_cut_plant(struct qz *q, struct ckpt_state *s);
void ckpt_cut_remove(struct qz *q, struct ckpt_state *s);
bool ckpt_cut_hit(struct qz *q, struct ckpt_state *s, uint64_t pc);
void ckpt_shadow_free(struct ckpt_shadow *sh);

/* blob.c */
void ckpt_blobs_alloc(size_t n, struct ckpt_blob **out);
/* populated: the undo log's, from the pool of free slabs when one fits */
void ckpt_blobs_alloc_as(size_t n, struct ckpt_blob **out, bool populated);
void ckpt_blob_unref(struct ckpt_blob *b);
/* Is the page one 8-byte word repeated (zeros, a memset)? Which word. */
bool ckpt_page_fill(const uint8_t *page, uint64_t *word);
/* A blob of such a page: it shares one read-only page of that word with
 * every other, so it costs no allocation or copy; NULL when the table of
 * words is full (CKPT_FILLS different words seen). */
struct ckpt_blob *ckpt_blob_fill(uint64_t word);
/* Unmap the free slabs kept for reuse (no checkpoint left). */
void ckpt_pool_drain(void);

/* ckpt.c */
struct ckpt *ckpt_find(struct ckpt_state *s, int id);
const struct ckpt_blob *ckpt_lookup(const struct ckpt *c, uint64_t addr);
uint64_t ckpt_bytes(const struct ckpt *c);
int ckpt_take(struct qz *q, bool automatic);
int ckpt_delete(struct qz *q, int id);
void ckpt_check_budget(struct qz *q);
/* Start or stop the checkpoint-interval timer as the settings say. */
void ckpt_timer_arm(struct qz *q);

/* The current thread's stop siginfo: injected system calls step the
 * thread and leave a SIGTRAP's in its place; put the stop's back after. */
bool ckpt_siginfo_get(struct qz *q, siginfo_t *si);
void ckpt_siginfo_put(struct qz *q, const siginfo_t *si);

/* threads.c */
void ckpt_threads_save(struct qz *q, struct ckpt *c);
/* -1 with the error set when a thread of c has exited since. */
int ckpt_threads_check(struct qz *q, const struct ckpt *c);
/* End the threads started after c; select c's thread. */
int ckpt_threads_end_new(struct qz *q, const struct ckpt *c);

/* restore.c */
int ckpt_rollback(struct qz *q, struct ckpt *c);
/* Break, map and descriptors as at c; pages of remapped memory to d. */
int ckpt_restore_os(struct qz *q, struct ckpt_state *s, const struct ckpt *c, struct ckpt_addrs *d);
/* Pages of c's maps that the rollback maps again (not in now as they were). */
void ckpt_remapped(const struct qz *q, const struct ckpt_state *s, const struct ckpt *c,
		   const struct ckpt_os *now, struct ckpt_addrs *out);
bool ckpt_page_tracked(const struct ckpt_state *s, const struct ckpt *c, uint64_t a);
void ckpt_replant(struct qz *q, const struct ckpt_addrs *d, uint8_t *const *bufs);
void ckpt_regs_apply(struct qz *q, const struct ckpt *c);
bool ckpt_process_check(struct qz *q);

#endif
