/* regs: the floating-point and vector registers of the stopped process
 * (x87, SSE, AVX, AVX-512 mask and zmm state from XSAVE) printed as gdb's
 * info registers / info all-registers print them. */
#ifndef QZ_REGS_H
#define QZ_REGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/util.h"

struct qz;

/* One row for a non-general register ("st0", "mxcsr", "xmm3", "ymm0",
 * "zmm17", "k1", "pkru", "fctrl", ...); false if there is no such
 * register on this machine. */
/* The thread's whole XSAVE area (NT_X86_XSTATE) in a buffer as large as
 * this CPU's layout needs (CPUID leaf 0xD); NULL if ptrace refused. */
uint8_t *regs_xstate_read(pid_t tid, size_t *len);
/* Write such an area back (what regs_xstate_read gave, changed): 0 or -1.
 * Unlike PTRACE_SETFPREGS it leaves XSTATE_BV as the area says. */
int regs_xstate_write(pid_t tid, uint8_t *buf, size_t len);
bool regs_row(struct qz *q, const char *name, struct sbuf *out);
/* Every floating-point and vector register, in gdb's order. */
void regs_all(struct qz *q, struct sbuf *out);

#endif
