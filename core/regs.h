/* regs: the floating-point and vector registers of the stopped process
 * (x87, SSE, AVX, AVX-512 mask and zmm state from XSAVE) printed as gdb's
 * info registers / info all-registers print them. */
#ifndef QZ_REGS_H
#define QZ_REGS_H

#include <stdbool.h>

#include "util.h"

struct qz;

/* One row for a non-general register ("st0", "mxcsr", "xmm3", "ymm0",
 * "zmm17", "k1", "pkru", "fctrl", ...); false if there is no such
 * register on this machine. */
bool regs_row(struct qz *q, const char *name, struct sbuf *out);
/* Every floating-point and vector register, in gdb's order. */
void regs_all(struct qz *q, struct sbuf *out);

#endif
