/* cmd-slice: the recording, slicing and explaining commands. */
#ifndef QZ_SLICE_CMD_SLICE_H
#define QZ_SLICE_CMD_SLICE_H

#include "cmd/cmd.h"

/* The module's commands, for its struct qz_mod (core/target/mod.h);
 * ended by an entry with a NULL name. */
extern const struct cmd_def slice_cmds[];

#endif
