/* rec: the recorder. While recording is on, the program runs one
 * instruction at a time through an engine (struct rec_engine; the first
 * one single-steps under ptrace) and every instruction goes into the
 * trace with its statement instance and its control-dependence parent,
 * found online from immediate post-dominators (cfg.h). */
#ifndef QZ_SLICE_REC_H
#define QZ_SLICE_REC_H

#include <stdbool.h>
#include <stdint.h>

#include "rev.h"
#include "trace.h"
#include "util/hmap.h"
#include "view.h"

struct qz;
struct run_target;
struct rec;

/* How the program is run while recorded: a faster engine (rec-emu.c
 * emulates) replaces step_one and must produce the same trace. */
struct rec_engine {
	const char *name;
	/* Execute one instruction or more, appending their records; an enum
	 * run_ev: RUN_STEPPED, or RUN_STOPPED when the program stopped for
	 * the user (a signal, an exit, an sbreak). An engine that runs more
	 * than one stops before any pc where rec_region must look (a planted
	 * site, one of r->target's stops): the process is then in exactly
	 * the state native execution would have left. */
	int (*step_one)(struct qz *q, struct rec *r);
	/* The region ends: forget what may go stale while the user looks. */
	void (*end)(struct qz *q, struct rec *r);
};

/* A long recording's or slice's progress, filled while it runs: a line
 * once a second, to the front end's status line (util/progress.h) or on
 * stderr in plain mode. */
struct rec_progress {
	bool active;              /* a region has run for over half a second */
	uint64_t insns;           /* instructions executed in the region */
	double secs, rate;        /* seconds so far, instructions per second */
	uint64_t bytes;           /* trace bytes */
	double start, last_print; /* internal: monotonic seconds */
	uint64_t base;            /* internal: insns_seen at the start */
	uint32_t tick;            /* internal: calls since the clock was read */
};

struct rec_call { uint64_t sp; int32_t inst; };
struct rec_cd { uint64_t sp, ipdom, branch; int64_t rec; };
struct rec_sysnr { long nr; unsigned long count; };

struct rec {
	const struct rec_engine *engine;
	bool on;                   /* recording now */
	bool counting;             /* stepping only to count instances (sbreak) */
	bool exact;                /* counting began before any user statement */
	struct trace tr;
	uint64_t *hkeys;           /* decode cache: pc -> id + 1 */
	uint32_t *hvals;
	size_t hcap, hn;
	/* Pages the decode cache read code from (page -> rec_code_on, or
	 * rec_code_off once written), within [code_lo, code_hi): a write
	 * there drops the page's decoded instructions. */
	struct hmap code_pages;
	uint64_t code_lo, code_hi;
	uint32_t code_gen;         /* bumped each time decoded instructions go */
	uint64_t code_noted;       /* rec_code_note's calls (decodes) so far */
	/* the last page rec_code_written looked at alone (+1, 0: none), and
	 * code_noted then: it is no code page until something is decoded
	 * (its stores come one after another: stack, a buffer) */
	uint64_t cw_page, cw_noted;
	uint32_t *count;           /* per statement: instances so far */
	int32_t *latest;           /* per statement: its latest instance id */
	size_t count_cap;
	int32_t cur;               /* statement instance in effect, -1 */
	struct rec_call *calls;    /* shadow call stack */
	size_t ncalls, calls_cap;
	struct rec_cd *cds;        /* open branches (control dependence) */
	size_t ncds, cds_cap;
	struct cfg_cache *cfg;
	struct rec_sysnr *unknown; /* system calls with unknown effects */
	size_t nunknown, unknown_cap;
	uint64_t insns_seen;       /* stepped, recorded or not */
	int64_t last_id;           /* the instruction stepped last, -1 */
	uint64_t last_sp;          /* and rsp before it */
	const struct run_target *target;   /* the region's internal stops */
	bool want_step;            /* set record engine step */
	char engine_note[160];     /* why the engine is not the one asked for */
	struct rec_emu *emu;       /* the emulate engine (rec-emu.c), made lazily */
	/* Where rec_insn_id reads code while an engine holds memory the
	 * process has not seen yet (code the emulator wrote); NULL: qz_read. */
	int (*read_code)(void *ctx, uint64_t pc, void *buf, size_t len);
	void *read_code_ctx;
	struct rev_log undo;       /* reverse execution (rev.h) */
	struct rec_progress prog;
	int progress_mode;         /* 0 auto (stderr if a tty), 1 always, -1 never */
	/* A memory-access watcher (view.h, watch.c): on when check is set;
	 * pass: the pc whose access fire let run (asked no more once). */
	struct slice_view_watch watch;
	uint64_t watch_pass;
	/* While watch.at is set: the program's own calls still open (return
	 * address, rsp after the call), innermost last, for the program call
	 * site of a heap call a library makes; pcalls_ok: complete, every
	 * call since the program's entry ran in the emulator. */
	struct rec_pcall { uint64_t ret, sp; } *pcalls;
	size_t npcalls, pcalls_cap;
	bool pcalls_ok;
};

void rec_init(struct rec *r);
void rec_fini(struct rec *r);
/* Start recording from the current pc (the process must be stopped);
 * forget any earlier trace. */
void rec_start(struct qz *q, struct rec *r);
void rec_stop(struct qz *q, struct rec *r);
/* qz_mod.drive (core/target/mod.h): run the program, recording. */
int rec_region(struct qz *q, const struct run_target *t, bool one);
/* The id of the instruction at pc in the decode cache, -1 if it cannot
 * be read or decoded. */
int64_t rec_insn_id(struct qz *q, struct rec *r, uint64_t pc);
/* "file.c:12" of statement s (basename). */
const char *rec_stmt_name(const struct rec *r, int32_t s, char *buf, size_t len);

/* The identity of a file a read read (struct trace_sys's file). */
uint64_t rec_file_id(uint64_t dev, uint64_t ino);

/* `maint print-record`: count records from from, one a line. */
void rec_dump(struct qz *q, const struct rec *r, uint64_t from, uint64_t count);

/* Every few instructions an engine runs: keep r->prog and print it. */
void rec_tick(struct rec *r, uint32_t n);
/* A region or a slice begins: progress counts from now. */
void rec_progress_start(struct rec *r);
/* A slice walked done of total records (backwards): progress as above. */
void rec_slice_tick(struct rec *r, uint64_t done, uint64_t total);

extern const struct rec_engine rec_step_engine;
extern const struct rec_engine rec_emu_engine;
/* Choose the engine for a region: emulate unless the user asked for
 * single-stepping, Unicorn is unusable, or something only single-stepping
 * sees is armed (watchpoints); the reason goes into r->engine_note. */
void rec_emu_pick(struct qz *q, struct rec *r);
/* `maint emulator off`: behave as if Unicorn could not be used. */
void rec_emu_force_off(bool off);
/* maint emulator hook-libs|skip-libs (rec-emu.c's block hook). */
void rec_emu_hook_libs(bool on);
/* maint emulator full-hook|quick-hook: the full hook for every hooked
 * instruction (the old way), or quick verdicts (the default). */
void rec_emu_full_hook(bool on);
/* maint emulator-time-limit USEC (hidden, for the tests): how long the
 * machine runs while a loop runs unhooked before it looks for a quit or a
 * signal (100,000 µs). */
void rec_emu_time_limit(uint64_t usec);
/* maint emulator-lean on|off: hot blocks translated with only the
 * instructions that need the hook hooked (lean runs; on by default);
 * unsync (the tests'): on, each run starting with their code dropped
 * behind their bookkeeping's back (emu.h's emu_lean_unsync). */
void rec_emu_lean(bool on, bool unsync);
/* Lean blocks now, made in all; why lean translations are off for good
 * (or NULL). */
size_t rec_emu_lean_blocks(const struct rec_emu *x, uint64_t *made, const char **broken);
void rec_emu_free(struct rec_emu *x);
/* `set record-libc baseline|vector`: whether programs launched from now on
 * get glibc's SSE2 string functions (emulated) instead of its AVX2/EVEX ones
 * (run natively, instruction by instruction). */
void rec_emu_libc_baseline(bool on);
bool rec_emu_libc_is_baseline(void);
/* Instructions the emulator ran, and those it left to the CPU. */
void rec_emu_counts(const struct rec_emu *x, uint64_t *emulated, uint64_t *native);
/* Hot loops touching no memory it ran without its hook (counting for the
 * watcher alone), since the session began. */
uint64_t rec_emu_clean_loops(const struct rec_emu *x);
/* Library blocks the block hook looked at, and those of them run on the
 * CPU up to an instruction the machine leaves to it. */
void rec_emu_lib_blocks(const struct rec_emu *x, uint64_t *looked, uint64_t *cpu);

#endif
