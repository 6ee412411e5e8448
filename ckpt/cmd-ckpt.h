/* cmd-ckpt: the checkpoint commands. */
#ifndef QZ_CMD_CKPT_H
#define QZ_CMD_CKPT_H

#include "cmd/cmd.h"

/* The module's commands, for its struct qz_mod (core/target/mod.h);
 * ended by an entry with a NULL name. */
extern const struct cmd_def ckpt_cmds[];

#endif
