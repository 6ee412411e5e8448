/* emu-inline.h: checks compiled into lean translations (emu-inline.c),
 * for emu.c and emu-lean.c.
 *
 * Unicorn 2.0.1 offers only hooks: a code hook costs a call into qzdb
 * and back out of the translated code at each instruction it covers
 * (about 40 ns with the watcher's work), and any memory hook sends every
 * load and store of every instruction through its slow path. This makes
 * the translator itself put a call to one small function before each load
 * and store of the instructions a lean translation leaves unhooked: the
 * address and size come straight from the translated code (1-2 ns a call
 * when nothing is wrong), and when the check refuses an access the run
 * stops exactly before that instruction, as QEMU stops for a page fault
 * (its registers and memory as the instructions before left them). */
#ifndef QZ_SLICE_EMU_INLINE_H
#define QZ_SLICE_EMU_INLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <unicorn/unicorn.h>

#include "emu.h"   /* EMU_ACCESS_*: the checks' flags */

/* Can checks be compiled in, in this process? Probed once (the library's
 * internal functions found and taken over, a test machine's checks and
 * stop exact); false with the reason in why. maint emulator-inline off
 * makes it false too. */
bool emu_inline_ok(char *why, size_t whylen);
void emu_inline_allow(bool on);
/* The tests': checks are made but never stop a run (what they catch is
 * then missed: the tests show that it is the checks that catch it). */
void emu_inline_blind(void);
/* maint's words: on and working, off, or why it cannot be had. */
const char *emu_inline_state(void);

/* While a lean translation of the block at pc is made: before each load
 * and store of the instructions at the offsets skip[0..n) (sorted) a
 * check goes in; seen[i] gets EMU_ACCESS_LOAD for a load of instruction i
 * compiled so, EMU_ACCESS_STORE for a store. NULL ends it. */
struct emu_inline_blk {
	uint64_t pc;
	const uint16_t *skip;
	int n;
	uint8_t *seen;
};
void emu_inline_translating(struct emu_inline_blk *b);

/* A check: the access [addr, addr+size) of an instruction about to run
 * (flags: EMU_ACCESS_STORE, EMU_ACCESS_FIRST for its first access,
 * EMU_INLINE_OUT for a store of code outside the scope below); true stops
 * the run before the instruction. */
enum { EMU_INLINE_OUT = 8 };
typedef bool (*emu_inline_fn)(void *ctx, uint64_t addr, uint32_t size, unsigned flags);
/* The machine about to run and its check (uc NULL: none runs). With
 * out, code translated meanwhile outside [lo, hi) gets a check before
 * each of its stores (what a write hook would see, without the hook: any
 * memory hook sends every load and store to Unicorn's slow path). */
void emu_inline_running(uc_engine *uc, emu_inline_fn fn, void *ctx, bool out, uint64_t lo,
			uint64_t hi);
/* Did a check stop the last run (its pc is the machine's rip)? */
bool emu_inline_stopped(void);

#endif
