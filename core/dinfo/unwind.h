/* unwind: call frame information (.eh_frame, and .debug_frame when present)
 * of one ELF file, and one unwinding step from a frame to its caller. */
#ifndef QZ_UNWIND_H
#define QZ_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dinfo.h"   /* struct di_regs, di_read_fn */

struct unw;

/* Open the CFI of an ELF file (from the file itself: .eh_frame; plus
 * .debug_frame if present); the FDE lists are read on the first lookup. A
 * file without CFI gives an empty object. */
struct unw *unw_open(const char *path, char *err, size_t errlen);
void unw_close(struct unw *u);

/* Canonical frame address of the frame whose registers are regs (pc in
 * regs->r[DI_REG_RIP], runtime). bias is the module's load bias. Returns 0,
 * or -1 when the pc has no CFI or a needed register is unknown. */
int unw_cfa(const struct unw *u, uint64_t bias, const struct di_regs *regs,
	    di_read_fn read_mem, void *arg, uint64_t *cfa);

/* Compute the caller's registers: caller->r[DI_REG_RIP] is the return
 * address, rsp is the CFA, callee-saved registers restored from their saved
 * slots (same-value by default, unknown for caller-saved ones), DWARF
 * expression rules supported (libc's signal trampoline uses them).
 * Returns 0, or -1 if the pc has no CFI (the caller may fall back to a frame
 * pointer walk). */
int unw_step(const struct unw *u, uint64_t bias, const struct di_regs *regs,
	     di_read_fn read_mem, void *arg, struct di_regs *caller,
	     uint64_t *cfa);

/* The same for any frame of a backtrace. innermost is true for the frame
 * the thread stopped in and for a frame interrupted by a signal: their pc is
 * exact. Other frames hold a return address, which after a call to a
 * noreturn function is already past the end of the function, so their CFI
 * is looked up at pc - 1. *signal (if not NULL) tells that this frame is a
 * signal trampoline (CIE augmentation "S"): its caller was interrupted, pass
 * innermost = true for it. When the CFI marks the return address undefined
 * (the outermost frame, _start) the step succeeds with
 * caller->valid[DI_REG_RIP] false. */
int unw_cfa_ex(const struct unw *u, uint64_t bias, const struct di_regs *regs,
	       bool innermost, di_read_fn read_mem, void *arg, uint64_t *cfa);
int unw_step_ex(const struct unw *u, uint64_t bias, const struct di_regs *regs,
		bool innermost, di_read_fn read_mem, void *arg,
		struct di_regs *caller, uint64_t *cfa, bool *signal);

/* The stack slots where the frame of regs saved its caller's registers
 * (slots->valid[reg] for those the CFI saves in memory). 0, or -1 without
 * CFI. */
int unw_saved_ex(const struct unw *u, uint64_t bias, const struct di_regs *regs,
		 bool innermost, di_read_fn read_mem, void *arg, struct di_regs *slots);

#endif
