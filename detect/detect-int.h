/* detect-int: the detect module's state, shared by its files (not by other
 * modules). */
#ifndef DETECT_INT_H
#define DETECT_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "spec.h"
#include "slice/view.h"
#include "util/hmap.h"

struct qz;
struct sbuf;

/* One heap block as the detectors model it, keyed by its start. A block
 * freed and allocated again at the same address is the same record. */
struct det_block {
	uint64_t addr, size;
	bool live;
	uint64_t alloc_site;         /* return address in the program, or 0 */
	uint64_t free_site;
	char alloc_fn[32];           /* "malloc", "strdup" */
	char free_fn[32];
	bool reachable;              /* at exit: the roots reach it (exit.c) */
	/* At exit, of an unreachable block: lost only through another lost
	 * block (Valgrind's "indirectly lost"); a block lost directly counts
	 * the bytes and blocks lost through it. */
	bool indirect;
	uint64_t ind_bytes;
	uint32_t ind_blocks;
};

/* A heap call entered whose return is awaited (its result). */
struct det_pending {
	enum spec_event ev;
	uint64_t ret, sp;            /* return address and rsp after return */
	uint64_t addr, size;
	uint64_t site;               /* the program's call site (return addr) */
	char fn[32];
	uint64_t seq;                /* order of entry (pend_seq) */
	bool machine;                /* awaited in the emulator, no site planted */
	uint64_t out;                /* posix_memalign: where the result goes */
};

/* A detector class: a spec, whether it is on, how often it fired. */
struct det_class {
	struct spec *spec;
	bool on;
	unsigned long hits;
};

/* shadow.c: per 8-byte granule of the heap, SH_OK (every byte the
 * block's or unknown), 1-7 (the first n bytes a block's, the rest past
 * its end), SH_RED (a chunk header or slack past a block) or SH_FREED. */
enum { SH_OK = 0, SH_RED = 8, SH_FREED = 9 };
/* Pages of 4 KiB of shadow data, one per 32 KiB of the address space,
 * made on first use; [lo, hi) bounds them all (most addresses, the stack
 * and globals, fall outside at once). */
#define DET_PAGE_SHIFT 15
#define DET_PAGE_BYTES 4096u
#define DET_PAGE_WAYS 4
struct det_pages {
	struct hmap map;             /* addr >> shift -> its bytes */
	unsigned shift;              /* 0: DET_PAGE_SHIFT */
	uint64_t lo, hi;
	/* the pages looked up last, there or not (NULL): a program's loads
	 * and stores go back and forth between a few (its stack, the heap,
	 * its globals), and [lo, hi) spans what lies between */
	uint64_t keys[DET_PAGE_WAYS];
	uint8_t *bufs[DET_PAGE_WAYS];
	uint8_t nkeys, next;
};
/* The page of addr (made if make), or NULL: one of the last looked up
 * inline (each of the program's loads and stores looks), else
 * det_page_find. */
uint8_t *det_page_find(struct det_pages *p, uint64_t key, bool make);
static inline uint8_t *det_page(struct det_pages *p, uint64_t addr, bool make)
{
	uint64_t key = addr >> (p->shift ? p->shift : DET_PAGE_SHIFT);
	for (int i = 0; i < p->nkeys; i++)
		if (p->keys[i] == key && (p->bufs[i] || !make))
			return p->bufs[i];
	return det_page_find(p, key, make);
}
void det_pages_free(struct det_pages *p);
struct det_shadow {
	struct det_pages pages;      /* a granule state a byte */
};
void det_shadow_set(struct det_shadow *sh, uint64_t addr, uint64_t len, uint8_t state);
uint8_t det_shadow_byte(struct det_shadow *sh, uint64_t a);
/* Is a byte of [addr, addr+size) not addressable? *first: the first. */
bool det_shadow_bad(struct det_shadow *sh, uint64_t addr, unsigned size, uint64_t *first);
void det_shadow_reset(struct det_shadow *sh);
size_t det_shadow_bytes(const struct det_shadow *sh);

/* uninit.c: undefined bytes, a bit each (no page: defined). */
struct det_undef {
	struct det_pages pages;      /* a bit a byte */
	/* Per 8-byte granule (pages of 512, shift UN_ORIG_SHIFT): where the
	 * undefined value a register stored there was first read, 0: its
	 * own bytes (nothing wrote them). */
	struct det_pages orig;
	struct hmap said;            /* pcs reported at: once each */
};
void det_undef_reset(struct det_undef *u);

enum det_fn { DF_MALLOC, DF_CALLOC, DF_REALLOC, DF_FREE, DF_EXIT, DF_STACKCHK, DF_MEMALIGN,
	      DF_ALIGNED_ALLOC, DF_POSIX_MEMALIGN, DF_COUNT };
#define DET_LW_COUNT 8               /* libwrite.c's functions */
#define DET_MRETS 16                 /* returns awaited in the emulator at once */

enum { DET_CALLSITES = 256 };   /* a power of two */

struct detect_state {
	struct det_class *classes;
	size_t nclasses, classes_cap;
	bool shipped_loaded;

	/* this run */
	struct hmap blocks;          /* addr -> struct det_block */
	struct det_block **all;      /* every record, for walks and freeing */
	size_t nall, all_cap;
	struct det_pending *pend;
	size_t npend, pend_cap;
	uint64_t pend_seq;
	uint64_t entry_site;         /* the program's entry, until reached */
	uint64_t fn_at[DF_COUNT];    /* planted libc entries, 0 if none */
	uint64_t lw_at[DET_LW_COUNT];/* planted PLT slots of libwrite calls */
	bool late;                   /* turned on mid-run: early blocks unknown */
	bool exit_seen;
	bool record;                 /* set detect-record: record the whole run */
	uint64_t skip_sp, skip_ret;  /* the free a stop rewound to, rerunning */
	/* heap-machine.c: heap calls handled inside the emulator */
	uint64_t mrets[DET_MRETS];   /* the machine-awaited returns (pend's) */
	size_t nmrets;
	const struct slice_view_machine *mach;   /* set while one is handled */
	unsigned long mtraps;        /* heap calls handled there */
	unsigned long mlwtraps;      /* and libwrite calls (libwrite.c) */
	bool libc_set;               /* det_acc_libc set GLIBC_TUNABLES */
	/* preload.c: qzheap.so's allocator, no stop per heap call */
	bool pre_set;                /* det_pre_env put it in LD_PRELOAD */
	bool pre;                    /* this run's malloc is qzheap's: only its
	                                bad-free site is planted */
	uint64_t pre_at;             /* its qzheap_state */
	const char *heap_note;       /* how heap calls are seen this run when
	                                that differs (a static program), or NULL */
	/* heap.c: the call before a return address in the program, decoded
	 * once a run (sed's regex made 187,000 reads of the process for the
	 * same few sites) */
	struct det_callsite {
		uint64_t ret;            /* 0: empty */
		bool direct;             /* a direct call ends at ret */
		uint64_t target;
	} callsites[DET_CALLSITES];

	/* counters for info detect */
	unsigned long events[EV_COUNT];
	unsigned long traps;
	double seconds;              /* spent in the detector's traps */

	/* the last report, for info vpc, and its chain's links one by one
	 * (info vpc links, vpc N) */
	char *last_report;
	struct det_link { char *text; const char *file; int line; } *links;
	size_t nlinks;
	uint64_t report_stop;        /* q->nstops when it was made */
	bool report_made_stop;       /* it stopped the program (not a signal) */
	char *last_chain;
	bool vpc_offsets;            /* vpc.c follows pointer arithmetic */

	/* access.c: the read and write events */
	struct det_shadow sh;
	bool acc_on;                 /* the watcher is on for this run */
	bool acc_rw;                 /* for read and write events */
	const char *acc_engine;      /* the engine that ran it (this run), or NULL */
	const char *acc_lost;        /* why it went off mid-run, or NULL */
	struct qz *acc_q;
	unsigned long acc_checked;   /* the program's instructions looked at */
	struct slice_view_access acc_hit;   /* the one check stopped at */
	int acc_mem;                 /* its operand */
	uint64_t watch_pc;           /* the instruction check stopped at */
	bool watch_un;               /* and why: uninit (else read/write) */

	/* uninit.c: definedness */
	bool un_on;
	struct det_undef un;         /* undefined memory */
	uint32_t un_vb[64];          /* per register: its undefined bytes */
	uint64_t un_vo[64];          /* and where they were read from */
	int un_flag_reg;             /* the register that made the flags so */
	uint64_t un_regs;            /* registers with an undefined byte (1 << n) */
	bool un_every;               /* the watcher's every: while un_regs */
	bool un_switch;              /* check stopped to turn un_every on */
	unsigned long un_slow;       /* instructions propagated register by register */
	unsigned long un_switches;   /* times an undefined load turned that on */
	const char *un_use;          /* the report: what it decides, NULL: a
	                                system call to look at */
	int un_reg;                  /* the register carrying it, -1 */
	uint64_t un_orig;
	char un_what[64], un_from[512];
};

struct detect_state *det_state(struct qz *q);
bool det_any_on(const struct detect_state *st);
/* The directory of the shipped specs: detect/specs next to the program. */
const char *det_spec_dir(void);
/* Load the shipped specs once (errors are warnings). */
void det_load_shipped(struct qz *q);
/* Add a parsed spec (a class of the same name is replaced). */
struct det_class *det_add_class(struct detect_state *st, struct spec *s);
struct det_class *det_find_class(struct detect_state *st, const char *name);

/* heap.c: events while the program runs. */
void det_heap_start(struct qz *q);       /* a process started */
void det_heap_gone(struct qz *q);
void det_heap_arm(struct qz *q);         /* a class was turned on mid-run */
void det_heap_disarm(struct qz *q);      /* no class is on any more */
void det_heap_repick(struct qz *q);      /* classes changed mid-run: off
                                            qzheap's way if it no longer fits */
int det_heap_trap(struct qz *q, uint64_t pc);
void det_heap_reset(struct detect_state *st);
/* exit.c: the program reached _exit: reachability, then the exit rules,
 * each block's too. */
int det_heap_exit(struct qz *q, struct detect_state *st, uint64_t ret);
/* heap.c's model, shared with heap-machine.c: a user's breakpoint at pc;
 * the record of the block at addr (made if new); a free applied; a heap
 * call's awaited return (which: an enum det_fn; sp: at its entry) made
 * and added; an allocation's return applied (res: its result) and its
 * event into e. */
bool det_user_bp_at(struct qz *q, uint64_t pc);
bool det_callee_name(struct qz *q, uint64_t ret, char *buf, size_t len);
/* The target of the direct call before ret; false if there is none. */
bool det_call_target(struct qz *q, uint64_t ret, uint64_t *target);
struct det_block *det_block_add(struct detect_state *st, uint64_t addr);
void det_apply_free(struct qz *q, struct detect_state *st, uint64_t addr, uint64_t site,
		    const char *fn);
struct det_event;
struct det_pending det_pend_make(int which, uint64_t rdi, uint64_t rsi, uint64_t rdx,
				 uint64_t ret, uint64_t sp);
/* The block an allocation returned (rax: its return value), 0 if none. */
uint64_t det_alloc_result(struct qz *q, struct detect_state *st, const struct det_pending *p,
			  uint64_t rax);
void det_pend_add(struct detect_state *st, struct det_pending *p);
void det_alloc_apply(struct qz *q, struct detect_state *st, const struct det_pending *p,
		     uint64_t res, struct det_event *e);
/* heap-machine.c: heap calls inside the emulator (slice_view_watch's at);
 * the awaited returns again into mrets; every machine-awaited return
 * planted as a site (the emulator is left). */
struct slice_view_machine;
struct det_event;
bool det_heap_at(void *ctx, const struct slice_view_machine *m);
void det_mrets_sync(struct detect_state *st);
void det_heap_unmachine(struct qz *q, struct detect_state *st);
/* preload.c: qzheap.so (LD_PRELOAD) for the heap-call classes. Whether
 * the classes on can do without a stop per call; LD_PRELOAD set or taken
 * out for programs started from now on; at the entry (or mid-run), its
 * bad-free site planted if the program's malloc is qzheap's (false: keep
 * the allocator's stops); the model read back from the program; set
 * detect-preload; where qzheap.so is. */
bool det_pre_rules_ok(const struct detect_state *st);
void det_pre_env(struct detect_state *st);
bool det_pre_arm(struct qz *q, struct detect_state *st);
void det_pre_sync(struct qz *q, struct detect_state *st);
void det_pre_allow(bool on);
bool det_pre_allowed(void);
const char *det_pre_path(void);
/* heap.c: where name is bound (the program, then the libraries in load
 * order; *at its runtime address); every block record dropped. */
struct qz_module;
const struct qz_module *det_bound_in(struct qz *q, const char *name, uint64_t *at);
void det_blocks_clear(struct detect_state *st);
/* Memory as the program has it now: the machine's while one is handled. */
int det_read(struct qz *q, struct detect_state *st, uint64_t addr, void *buf, size_t len);
/* report.c: would a rule of a class that is on report e (no report made)?
 * Is a rule on event ev in a class that is on? */
bool det_would_fire(struct detect_state *st, const struct det_event *e);
bool det_rule_on(const struct detect_state *st, enum spec_event ev);
/* A report (and the chain, if any) is shown and kept for info vpc and
 * explain; made_stop: the detector stops the program for it (else it
 * comes before a signal's stop). out is consumed. */
void det_show_report(struct qz *q, struct sbuf *out, bool made_stop);
/* explain of the stop a report came with (struct qz_mod's explain_stop). */
bool det_explain_stop(struct qz *q, struct sbuf *out);
/* The stop after a report (out is consumed): shown like a breakpoint's. */
int det_stop(struct qz *q, struct sbuf *out);

/* report.c: conditions and reports. */
struct det_event {
	enum spec_event ev;
	uint64_t f[F_COUNT];         /* the fields it binds */
	uint64_t site;               /* the program's return address, or 0 */
	const struct det_block *blk; /* each block: the block */
	/* 1 + the register holding a field now (the locator's chain starts
	 * there), 0 when none does */
	int reg[F_COUNT];
	const char *fn;              /* libwrite: the library function;
	                                canary, smash: the returning function */
	uint64_t faulted;            /* segv: the faulting pc */
	bool loc_mem;                /* the locator's field is the address of
	                                the bad value (8 bytes) in memory */
	const char *obj;             /* canary, smash: the overflowed array */
	const struct det_block *near;/* read, write: the block it ran past */
	const char *access;          /* read, write: "read", "write"; uninit:
	                                what the value decides */
	const char *origin;          /* uninit: where it was read from */
};
/* Evaluate every rule of every class that is on for event e; append the
 * reports of those that hold to out; true if any did. */
bool det_fire(struct qz *q, struct det_event *e, struct sbuf *out);
/* saved.c: the heap model in a checkpoint (struct qz_mod's save,
 * restore, free_saved). */
void *det_save(struct qz *q);
void det_restore(struct qz *q, const void *saved);
void det_free_saved(void *saved);
/* libwrite.c: the libwrite event at the program's PLT slots. */
void det_lw_plant(struct qz *q, struct detect_state *st);
void det_lw_unplant(struct qz *q, struct detect_state *st);
int det_lw_trap(struct qz *q, struct detect_state *st, uint64_t pc, uint64_t ret);
/* The same call met inside the recorder's emulator (view.h's at, the
 * machine's registers and memory): true if done there (no rule holds:
 * counted); false: the machine stops and det_lw_trap does it. */
struct slice_view_machine;
/* Which libwrite function's site pc is (an index), DET_LW_COUNT if none. */
int det_lw_which(const struct detect_state *st, uint64_t pc);
bool det_lw_machine(struct qz *q, struct detect_state *st, const struct slice_view_machine *m);
/* heap.c: back to the call instruction before ret if it is a direct call
 * of fn, the function just entered (so it reruns unchanged); true if so. */
bool det_rewind_to_call(struct qz *q, uint64_t ret, const char *fn);
/* fault.c: the program's site of pc (as a return address: pc + 1 in the
 * program, else the first program frame's return address). */
uint64_t det_fault_site(struct qz *q, uint64_t pc, bool *in_program);
/* fault.c: the first frame above the innermost in the program's own code
 * (qz_in_program), or NULL. */
struct frame;
const struct frame *det_program_frame(struct qz *q);
/* fault.c: a signal stop (on_signal): the segv event. Never claims it. */
int det_on_signal(struct qz *q, int sig);
/* vpc.c: the value propagation chain of value, held in register reg now,
 * from the recording (st->last_chain; NULL without a recording). faulted:
 * the pc of an instruction that faulted (its record is not a def), or 0. */
void det_vpc(struct qz *q, const char *what, int reg, uint64_t value, uint64_t faulted);
void det_links_free(struct detect_state *st);
/* det_vpc for a value in memory: the 8 bytes at addr. */
void det_vpc_mem(struct qz *q, const char *what, uint64_t addr, uint64_t value);
/* stack.c: the canary event at the program's call of __stack_chk_fail
 * (ret: its return address), and the smash event at a SIGSEGV (true when
 * a report was made: it is in out). */
int det_stack_canary(struct qz *q, struct detect_state *st, uint64_t ret);
bool det_stack_smash(struct qz *q, struct detect_state *st, int code, uint64_t fault_addr,
		     struct sbuf *out);
/* access.c: the read and write events (the program's loads and stores
 * outside every live heap block), kept in the shadow from the heap
 * events; armed when a class that is on has a read or write rule. */
bool det_acc_wanted(const struct detect_state *st);
void det_acc_arm(struct qz *q);
/* glibc's SSE2 string functions for the next run while read or write or
 * uninit classes are on (set back when they go off). */
void det_acc_libc(struct detect_state *st);
void det_acc_disarm(struct qz *q);
void det_acc_alloc(struct qz *q, struct detect_state *st, const struct det_block *b);
void det_acc_free(struct qz *q, struct detect_state *st, const struct det_block *b);
/* After a rollback (checkpoint restore): the shadow again from the heap
 * model; definedness starts afresh (everything defined). */
void det_acc_rebuild(struct qz *q, struct detect_state *st);
/* uninit.c: the uninit event (definedness through the program's
 * instructions). check: before each instruction (true: fire); fire: the
 * process stopped at pc. */
bool det_un_wanted(const struct detect_state *st);
bool det_un_check(struct detect_state *st, const struct slice_view_access *a);
bool det_un_quick(struct detect_state *st, uint64_t addr, uint32_t size, bool store);
int det_un_fire(struct qz *q, struct detect_state *st, uint64_t pc);
void det_un_alloc(struct detect_state *st, const struct det_block *b, bool zeroed);
void det_un_sys(void *ctx, uint64_t addr, uint64_t len);
/* Every register defined (definedness starts again, or is not known). */
void det_un_regs_clear(struct detect_state *st);
/* A general register's value now (recorder numbering: rax rcx rdx rbx
 * rsp rbp rsi rdi r8-r15). */
uint64_t det_reg_value(struct qz *q, int reg);
/* Registers of the chains' starts: the first argument, the result. */
#define DET_REG_RAX 0
#define DET_REG_RDI 7
#define DET_REG_RSI 6
#define DET_REG_RDX 2
/* The line of a return address in the program (the call's); false if
 * it has none. */
bool det_site_line(struct qz *q, uint64_t ret, const char **file, int *line);
/* "file:line" of a return address in the program (the call's line). */
void det_site_text(struct qz *q, uint64_t ret, char *buf, size_t len);

#endif
