/* cfg: control-flow graphs of the program's functions, decoded from their
 * ELF symbol ranges, and immediate post-dominators over them, for the
 * recorder's online control-dependence detector. Indirect jumps get their
 * jump-table targets (gcc's PIE tables of 32-bit offsets) plus the targets
 * seen while recording. */
#ifndef QZ_SLICE_CFG_H
#define QZ_SLICE_CFG_H

#include <stdint.h>

struct qz;
struct cfg_cache;

struct cfg_cache *cfg_new(void);
void cfg_free(struct cfg_cache *c);
/* Immediate post-dominator (runtime address) of the branch at pc in the
 * function [lo, hi); 0 when it is the function's exit. */
uint64_t cfg_ipdom(struct cfg_cache *c, struct qz *q, uint64_t lo, uint64_t hi, uint64_t pc);
/* An indirect jump at pc went to target: refine the function's graph. */
void cfg_add_target(struct cfg_cache *c, uint64_t lo, uint64_t hi, uint64_t target);

#endif
