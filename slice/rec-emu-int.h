/* rec-emu-int.h: the emulate engine's state (rec-emu.c), shared with
 * rec-emu-loops.c (hot loops of the program's own code that touch no
 * memory run without the per-instruction hook). */
#ifndef SLICE_REC_EMU_INT_H
#define SLICE_REC_EMU_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/user.h>

#include "emu.h"
#include "rec.h"
#include "util/hmap.h"

enum re_end { RE_NONE, RE_STOP, RE_NATIVE, RE_SBREAK, RE_WATCH };

struct rec_emu {
	struct emu *m;
	bool tried;                 /* emu_new was called */
	char why[160];              /* why there is no machine */
	struct qz *q;
	struct rec *r;
	uint64_t *sites;            /* planted sites' addresses, sorted */
	size_t nsites, sites_cap;
	uint64_t site_bits[16];     /* a site's pc hashed: its bit set (each
	                               block and look asks re_is_site) */
	bool first;                 /* the next hook is the run's first instruction */
	int64_t prev_id;            /* the instruction the last hook let run, -1 */
	int64_t prev_rec;           /* and its record, -1 */
	enum re_end end;
	struct trace_mark mark;     /* the trace before prev's record */
	struct user_fpregs_struct fp;
	bool fp_valid;              /* fp is the process's */
	bool signal_waits;          /* the next step must be native */
	bool sbreaks;               /* sbreaks or snext are set (fixed for a run) */
	bool lean;                  /* counting for the watcher alone (fixed for a
	                               run): no instances, no control parents */
	/* Lean runs without uninit: hot loops of the program's own code that
	 * touch no memory run without the hook (emu_hook_skip): nothing there
	 * is the watcher's or needs a stop. */
	uint64_t clean[EMU_MAX_SKIP][2];
	int nclean;
	bool retune;                /* clean changed: apply before the next run */
	bool skips_planned;         /* the plan applied has clean ranges */
	struct { uint64_t pc; uint32_t n; } loops[64];   /* backward branches taken */
	uint64_t clean_found;
	bool halt_next;             /* stop before the next hooked instruction */
	/* Lean runs without uninit: code outside the program's own text runs
	 * without the code hook (nothing there is checked), under a block
	 * hook that looks at each block before it runs: sites, run targets
	 * and awaited returns at its start, quits. A block it cannot run as a
	 * whole (an instruction the CPU must run, a site inside it) runs on
	 * the CPU up to that instruction: Unicorn 2.0.1 cannot drop one
	 * block's translation to hook it while it runs (uc_ctl_remove_cache
	 * leaves it). Stores there mark their pages from a
	 * write hook. */
	bool libfree;               /* the hooks are as described */
	bool libs_hooked;           /* runs made no progress so, or every
	                               turned on often: hook it all */
	int every_drops;            /* every turned on while library code ran
	                               unhooked */
	int stuck;                  /* runs in a row the block hook stopped
	                               where they began */
	bool block_stop;            /* the block hook stopped this run */
	uint64_t nat_lo, nat_hi;    /* step on the CPU while lo <= pc <= hi */
	uint64_t lib_blocks, nat_blocks;   /* looked at, run on the CPU */
	/* re_block_native's, by block (a library's hot blocks are thousands:
	 * sed's regex code missed a tenth of 1024 slots, each miss a decode
	 * lookup an instruction); valid while gen is verdict_gen */
	struct { uint64_t pc; uint32_t size, gen; uint64_t native; } verdicts[8192];
	uint32_t verdict_gen;
	uint32_t ticks;
	uint64_t emulated, native;
	int64_t watch_id;           /* RE_WATCH: the instruction to look at */
	/* Registers this hook read (rc_have: a bit per general register):
	 * a Unicorn register read costs more than the rest of a plain
	 * instruction's hook, and an address, rsp and the undo log read the
	 * same ones. Forgotten at each hook's start. */
	uint64_t rc[16];
	uint32_t rc_have;
	const uint64_t *gpr;        /* the machine's registers themselves
	                               (emu_gpr_view), NULL: read as above */
	/* Quick verdicts (re_quick_get): in lean runs, what the hook found
	 * out about an instruction the machine runs that is no site or run
	 * target: its decode id, and whether it needs nothing but its count
	 * while every is off (plain: no memory operand, call, return or
	 * indirect jump). The hook then skips the decode lookup and the
	 * looks, and for a plain one everything else. Kept by pc while the
	 * sites and run targets stay those they were made with (look_sites,
	 * look_tgt; gen counts the changes) and for one decode cache (rec's
	 * code_gen: code written drops it). */
	struct re_quick {
		uint64_t pc;
		int32_t id;
		uint32_t gen, code_gen;
		uint8_t len;
		bool plain;         /* its count is all the hook does */
		bool back;          /* a direct jump of the program's own */
	} quick[4096];
	uint32_t gen;
	uint64_t *look_sites;
	size_t nlook_sites, look_sites_cap;
	uint64_t look_tgt[8];
	int nlook_tgt;
	bool quick_run;             /* quick verdicts are used in this run */
	bool prev_plain;            /* prev_id is no rep (its post in a lean
	                               run is the loop check alone) */
	bool prev_back;             /* it is a direct jump of the program's own */
	uint64_t prev_pc;
	uint8_t prev_len;
	/* lean translations (emu_lean): made with these sites and run
	 * targets (gen) and decoded code (rec's code_gen) */
	uint32_t lean_gen, lean_code_gen;
	uint64_t run_pc;            /* where this run began */
	/* targets of the backward direct jumps seen (a lean block starting
	 * at one keeps its first instruction's hook: the hot loops' finder
	 * sees where the jump lands); a lean block to drop before the next
	 * run (a jump found to land on its unhooked start), 0 */
	struct hmap back_targets;
	uint64_t lean_drop;
	/* the pages of the last stores re_store_seen passed on (this run,
	 * since rec's code_noted was st_noted) */
#define RE_ST_PAGES 4
	uint64_t st_pages[RE_ST_PAGES];
	int nst, st_next;
	uint64_t st_noted;
};

/* rec-emu-sites.c: the planted sites, sorted (before a run); a planted
 * site at pc? One of the returns the watcher awaits? The first site, run
 * target or awaited return in [lo, hi), 0. */
void re_collect_sites(struct rec_emu *x);
bool re_is_site(const struct rec_emu *x, uint64_t pc);
bool re_is_ret(const struct rec_emu *x, uint64_t pc);
uint64_t re_first_inside(const struct rec_emu *x, uint64_t lo, uint64_t hi);

/* rec-emu-loops.c: do [lo, hi) and [a, a+len) meet? Clean ranges meeting
 * [a, a+len) are hooked again (all if both are 0); is a in one? The
 * backward branch at pc taken once more: true the 1024th time. The loop
 * [lo, hi), found hot: true if it joins the clean ranges. */
bool re_overlaps(uint64_t lo, uint64_t hi, uint64_t a, uint64_t len);
void re_clean_drop(struct rec_emu *x, uint64_t a, uint64_t len);
bool re_in_clean(const struct rec_emu *x, uint64_t a);
bool re_loop_hot(struct rec_emu *x, uint64_t pc);
bool re_clean_add(struct rec_emu *x, uint64_t lo, uint64_t hi);

/* rec-emu.c: is pc a run target's address (whatever the stack)? */
bool re_target_at(const struct rec_emu *x, uint64_t pc);
/* rec-emu-lean.c: is the count all the hook does for in while every is
 * off? emu.c's pick for lean translations; a backward jump e first seen
 * by the full hook (false: the machine must stop before it); before a
 * run, lean blocks as the run wants them. */
bool re_plain(const struct insn *in);
int re_lean_pick(void *ctx, uint64_t pc, uint32_t size, struct emu_lean_insn *out, int max);
bool re_lean_note_back(struct rec_emu *x, const struct trace_insn *e);
void re_lean_tune(struct rec_emu *x);

#endif
