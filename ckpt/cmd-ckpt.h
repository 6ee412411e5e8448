/* cmd-ckpt: the checkpoint commands (entries in core/cmd/cmd-table.c). */
#ifndef QZ_CMD_CKPT_H
#define QZ_CMD_CKPT_H

struct qz;

int cmd_checkpoint(struct qz *q, const char *a);
int cmd_rollback(struct qz *q, const char *a);
int cmd_cdelete(struct qz *q, const char *a);
int cmd_info_checkpoints(struct qz *q, const char *a);
int cmd_set_checkpoint_interval(struct qz *q, const char *a);
int cmd_set_checkpoint_budget(struct qz *q, const char *a);
int cmd_set_checkpoint_method(struct qz *q, const char *a);
int cmd_maint(struct qz *q, const char *a);
int cmd_maint_checkpoint_stats(struct qz *q, const char *a);
int cmd_maint_dump_state(struct qz *q, const char *a);
int cmd_maint_dump_checkpoint(struct qz *q, const char *a);

#endif
