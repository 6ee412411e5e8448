/* cmd-slice: the recording and slicing commands (handlers for
 * core/cmd/cmd-table.c). */
#ifndef QZ_SLICE_CMD_SLICE_H
#define QZ_SLICE_CMD_SLICE_H

struct qz;

int cmd_record(struct qz *q, const char *a);
int cmd_info_record(struct qz *q, const char *a);
int cmd_slice(struct qz *q, const char *a);
int cmd_prune(struct qz *q, const char *a);
int cmd_deps(struct qz *q, const char *a);
int cmd_sbreak(struct qz *q, const char *a);
int cmd_sdelete(struct qz *q, const char *a);
int cmd_info_slices(struct qz *q, const char *a);
int cmd_info_slice(struct qz *q, const char *a);
int cmd_set_record(struct qz *q, const char *a);
int cmd_snext(struct qz *q, const char *a);

#endif
