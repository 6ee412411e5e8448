/* emu-lean.h: lean translations (emu-lean.c), for emu.c alone. A block of
 * the plan's scope seen EMU_LEAN_HOT times is translated again between
 * runs with only the instructions its owner says need the code hook
 * hooked; the rest run as plain machine code. */
#ifndef QZ_SLICE_EMU_LEAN_H
#define QZ_SLICE_EMU_LEAN_H

#include <stdbool.h>
#include <stdint.h>

#include <unicorn/unicorn.h>

#include "emu.h"

struct emu_lean;

/* For the machine's code hook callback cb (data) and the owner's pick
 * (ctx). */
struct emu_lean *emu_lean_new(uc_engine *uc, void *cb, void *data, emu_pick_fn pick, void *ctx);
void emu_lean_free(struct emu_lean *l);
/* Lean blocks made from now on check the loads and stores of their
 * unhooked instructions inline (emu-inline.h), or hook every instruction
 * with memory operands (off; those made before go when it changes). */
void emu_lean_checks(struct emu_lean *l, bool on);
/* A block is about to run (in: of the plan's scope): credit a lean one's
 * unhooked instructions (BARE: its first is one of them), or count it
 * (FULL: the batch to translate is full: stop the run before the block). */
enum emu_lean_at { EMU_LEAN_NOT, EMU_LEAN_BARE, EMU_LEAN_FULL };
enum emu_lean_at emu_lean_block(struct emu_lean *l, uint64_t pc, uint32_t size, bool in);
/* Is pc a lean block's start whose first instruction is unhooked? */
bool emu_lean_bare(const struct emu_lean *l, uint64_t pc);
/* Between runs: translate the queued blocks. The machine's code hooks
 * (n of them, each added with ranges[i]) select the runs meanwhile. */
void emu_lean_translate(struct emu_lean *l, const uc_hook *hooks, const uint64_t (*ranges)[2],
			int n);
/* The run ended before pc: what was credited of the current block from
 * pc on did not run. */
void emu_lean_stopped(struct emu_lean *l, uint64_t pc);
/* The code hook ran at pc. If the running lean block leaves pc unhooked,
 * its code is not the lean translation any more (Unicorn translated it
 * again by itself, most likely on a flush of its code buffer): the block
 * is forgotten (its start is counted again) and its credit for this start
 * taken back (its instructions count themselves). */
void emu_lean_hooked(struct emu_lean *l, uint64_t pc);
/* The code of [lo, hi) is dropped (all if lo is 0 and hi UINT64_MAX):
 * lean blocks meeting it are forgotten and their code dropped. */
void emu_lean_dropped(struct emu_lean *l, uint64_t lo, uint64_t hi);
/* Instructions run unhooked since the last call; lean blocks now. */
uint64_t emu_lean_take(struct emu_lean *l);
size_t emu_lean_nblocks(const struct emu_lean *l);
uint64_t emu_lean_made(const struct emu_lean *l);
/* uc_ctl_request_cache with its control word made unsigned (the macro
 * shifts 3 into int's sign bit: undefined behaviour, UBSan stops there). */
uc_err emu_request_cache(uc_engine *uc, uint64_t pc, uc_tb *tb);
/* Why lean translations stopped for this machine's life, or NULL. */
const char *emu_lean_broken(const struct emu_lean *l);

#endif
