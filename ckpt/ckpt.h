/* ckpt: fork-free incremental checkpoints and rollback. qzdb keeps the
 * state itself: registers, memory map, the pages changed since the
 * previous checkpoint, brk, file offsets and the other modules' state. */
#ifndef QZ_CKPT_H
#define QZ_CKPT_H

struct qz;
struct qz_mod;

/* The module (core/target/mod.h): commands, hooks, per-session state. */
extern const struct qz_mod ckpt_mod;
/* Live checkpoints (for a status line). */
int ckpt_count(struct qz *q);

#endif
