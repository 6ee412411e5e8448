/* emu: an x86-64 user-space machine (Unicorn) over a lazily copied image
 * of a stopped process: registers loaded from it, memory read from it a
 * chunk at a time on first touch, the pages the emulation wrote kept so
 * they can be written back before the process runs natively again. Knows
 * nothing of recording: rec-emu.c drives it. */
#ifndef QZ_SLICE_EMU_H
#define QZ_SLICE_EMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

struct emu;

/* Called before each instruction the machine executes. */
typedef void (*emu_hook_fn)(void *ctx, uint64_t pc);
/* Called before each block outside the plan's scope (emu_hook_plan)
 * runs, and for each store made there. */
typedef void (*emu_block_fn)(void *ctx, uint64_t pc, uint32_t size);
typedef void (*emu_write_fn)(void *ctx, uint64_t addr, uint64_t len);
/* Put back (insert false) or take out (insert true) what the debugger
 * planted in [addr, addr+len) of buf: the machine sees the program's own
 * bytes, the process keeps its int3s. */
typedef void (*emu_mask_fn)(void *ctx, uint64_t addr, uint8_t *buf, size_t len, bool insert);

/* A machine, or NULL with the reason in why (no Unicorn, no x86-64). */
struct emu *emu_new(char *why, size_t whylen);
void emu_free(struct emu *m);
void emu_set_hook(struct emu *m, emu_hook_fn hook, emu_mask_fn mask, void *ctx);
void emu_set_scope_hooks(struct emu *m, emu_block_fn block, emu_write_fn wrote);
/* The code hook's owner marks its instructions' stores itself (emu_dirty)
 * and needs no write hook call for them (on), or wants them all (off). */
void emu_set_hooked_stores_marked(struct emu *m, bool on);

/* The process whose memory the machine mirrors; forgets a different one's. */
void emu_attach(struct emu *m, pid_t pid);
/* Registers in: general, fs/gs base, flags, xmm0-15 and mxcsr (x87 and
 * the upper vector halves stay in the process: the recorder runs the
 * instructions that use them natively). */
void emu_load_regs(struct emu *m, const struct user_regs_struct *r,
		   const struct user_fpregs_struct *fp);
/* Registers out into r and fp; true if fp changed since emu_load_regs. */
bool emu_save_regs(struct emu *m, struct user_regs_struct *r, struct user_fpregs_struct *fp);
/* A general register by the recorder's number (insn.h), fs/gs base. */
uint64_t emu_reg(struct emu *m, int reg);
/* emu_reg reads general registers and fs/gs base straight from where
 * Unicorn keeps them when a probe found that place (emu-regs.c); on, it
 * reads through uc_reg_read always (maint emulator-regs api). */
void emu_force_reg_api(bool on);
/* The 16 general registers themselves in emu_reg's order, valid while
 * the machine lives (read only); NULL when emu_reg reads through
 * uc_reg_read. */
const uint64_t *emu_gpr_view(const struct emu *m);
/* What the last machine's probe found, in words. */
const char *emu_regs_status(void);
/* xmm register n (0-15) into out (16 bytes). */
void emu_xmm(struct emu *m, int n, void *out);

enum emu_end { EMU_STOPPED, EMU_FAULT };
/* Run from pc until the hook calls emu_stop (the instruction it was
 * called for not executed) or an instruction faults or is unknown to the
 * machine (EMU_FAULT: the pc is that instruction's). */
enum emu_end emu_run(struct emu *m, uint64_t pc);
/* The same, stopping by itself after about usec microseconds (0: never). */
enum emu_end emu_run_for(struct emu *m, uint64_t pc, uint64_t usec);
void emu_stop(struct emu *m);
/* Where the hook runs. lo == hi: everywhere but the skip ranges [lo, hi)
 * (sorted, disjoint, n <= EMU_MAX_SKIP). Otherwise only in the scope
 * [lo, hi) but skip; blocks elsewhere get the block hook before they run
 * (emu_stop there: none of the block runs) and their stores the write
 * hook (after their page is marked to go back). Between runs only. */
#define EMU_MAX_SKIP 3
struct emu_plan {
	uint64_t lo, hi;
	const uint64_t (*skip)[2];
	int nskip;
};
void emu_hook_plan(struct emu *m, const struct emu_plan *p);
/* Lean translations (emu-lean.c): in runs with a scope (emu_hook_plan's
 * lo < hi) and lean on, a block of the scope seen often is translated
 * again with only the instructions pick marks hooked (each instruction of
 * [pc, pc+size): its offset; -1 or 0 leaves the block as it is). start is
 * called before a lean block whose first instruction is unhooked runs
 * (emu_stop there: none of it runs). Off drops every lean block's code;
 * drop the lean blocks meeting [lo, hi). Between runs only. */
struct emu_lean_insn {
	uint16_t off;
	bool hook;
	uint8_t mem;             /* unhooked with emu_set_access: what it
	                            loads (EMU_ACCESS_LOAD) and stores */
};
typedef int (*emu_pick_fn)(void *ctx, uint64_t pc, uint32_t size, struct emu_lean_insn *out,
			   int max);
void emu_set_lean_pick(struct emu *m, emu_pick_fn pick, emu_hook_fn start);
void emu_lean(struct emu *m, bool on);
void emu_lean_drop(struct emu *m, uint64_t lo, uint64_t hi);
/* The tests': each run starts with the lean blocks' code dropped behind
 * their bookkeeping's back, as when Unicorn translates again by itself. */
void emu_lean_unsync(bool on);
/* Is pc where a lean block starts with an unhooked instruction? */
bool emu_lean_bare_at(const struct emu *m, uint64_t pc);
/* Instructions run unhooked in lean blocks since the last call. */
uint64_t emu_lean_skipped(struct emu *m);
/* Lean blocks now, made in all; why lean translations are off for good
 * (or NULL). */
size_t emu_lean_blocks(const struct emu *m, uint64_t *made, const char **broken);
/* Are there lean blocks now (code that runs without asking the hook)? */
bool emu_lean_any(const struct emu *m);
uint64_t emu_pc(struct emu *m);
/* Checks compiled into lean translations (emu-inline.h): when fn is set
 * and the translator lets it, pick may leave instructions with memory
 * operands unhooked in a lean block (out[i].mem says which accesses each
 * makes), and fn is asked before each of their loads and stores, with its
 * address and size (flags: EMU_ACCESS_STORE; EMU_ACCESS_FIRST on an
 * instruction's first access). true stops the run before that instruction
 * (emu_access_stopped then says so; its pc is emu_pc); a store let go is
 * marked to go back. An access outside the machine's mapped chunks, or
 * one they do not allow, stops there too (the hook then sees it). */
enum { EMU_ACCESS_LOAD = 1, EMU_ACCESS_STORE = 2, EMU_ACCESS_FIRST = 4 };
typedef bool (*emu_access_fn)(void *ctx, uint64_t addr, uint32_t size, unsigned flags);
void emu_set_access(struct emu *m, emu_access_fn fn);
/* Will lean blocks check their accesses inline (fn set, the translator
 * taken over: emu_inline_ok)? */
bool emu_access_inline(struct emu *m);
bool emu_access_stopped(const struct emu *m);

/* len bytes of the machine's memory (mapped already); 0 or -1. */
int emu_read(struct emu *m, uint64_t addr, void *buf, size_t len);
/* 8 bytes of the machine's memory at addr (0 if unreadable). */
uint64_t emu_read_u64(struct emu *m, uint64_t addr);
/* The emulation wrote [addr, addr+len). */
void emu_dirty(struct emu *m, uint64_t addr, uint64_t len);
/* Write the written pages back into the process; -1 if one failed. */
int emu_write_back(struct emu *m);
/* The process changed [addr, addr+len) itself: read it again. */
void emu_refresh(struct emu *m, uint64_t addr, uint64_t len);
/* Forget every page (the process's mappings changed). */
void emu_forget(struct emu *m);
/* Bytes copied from the process and written back to it so far. */
void emu_stats(const struct emu *m, uint64_t *bytes_in, uint64_t *bytes_out);

#endif
