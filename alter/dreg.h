/* dreg: the x86-64 debug registers of a traced process (DR0-3, DR6, DR7),
 * for call breakpoints that watch memory during a call. Kept apart so the
 * general watchpoints (core/target/watch.c) can share one implementation later. */
#ifndef ALTER_DREG_H
#define ALTER_DREG_H

#include <stdint.h>
#include <sys/types.h>

#define DREG_MAX 4

enum dreg_kind { DREG_WRITE = 1, DREG_ACCESS = 3 };   /* DR7 R/W field */

/* Cover [addr, addr+size) with aligned pieces of 1, 2, 4 or 8 bytes:
 * the count (at most DREG_MAX), or -1 if it needs more registers. */
int dreg_plan(uint64_t addr, uint64_t size, uint64_t *at, int *len);
/* Arm registers 0..n-1 with these pieces and disarm the rest; 0 or -1. */
int dreg_arm(pid_t pid, const uint64_t *at, const int *len, const enum dreg_kind *kind,
	     int n);
void dreg_disarm(pid_t pid);
/* DR6's hit bits (0-3), cleared for the next hit; 0 if none. */
unsigned dreg_take_hits(pid_t pid);

#endif
