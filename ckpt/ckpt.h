/* ckpt: fork-free incremental checkpoints and rollback. qzdb keeps the
 * state itself: registers, memory map, the pages changed since the
 * previous checkpoint, brk, file offsets and the other modules' state. */
#ifndef QZ_CKPT_H
#define QZ_CKPT_H

struct qz;

/* Register the module with the session (once, after qz_new). */
void ckpt_init(struct qz *q);
/* Live checkpoints (for a status line). */
int ckpt_count(struct qz *q);

#endif
