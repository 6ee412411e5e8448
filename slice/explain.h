/* explain: plain-words accounts, for students, of the last stop, of a
 * slice, and of a slice statement's dependence edges. */
#ifndef QZ_SLICE_EXPLAIN_H
#define QZ_SLICE_EXPLAIN_H

struct qz;

/* explain | explain slice ID | explain ID FILE:LINE[#N] */
int cmd_explain(struct qz *q, const char *a);

#endif
