/* explain-rec: the recording's account of a crash, for explain. */
#ifndef QZ_SLICE_EXPLAIN_REC_H
#define QZ_SLICE_EXPLAIN_REC_H

struct qz;
struct sbuf;

/* If the crash was recorded: where its bad address or return address
 * came from, who wrote it, and the overflow that did, appended to b. */
void exr_crash(struct qz *q, struct sbuf *b);

#endif
