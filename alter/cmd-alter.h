/* cmd-alter: the commands of alter/ (switch, suppress, instance, set
 * alter-verbose). */
#ifndef ALTER_CMD_ALTER_H
#define ALTER_CMD_ALTER_H

#include "cmd/cmd.h"

/* The module's commands, for its struct qz_mod (core/target/mod.h);
 * ended by an entry with a NULL name. */
extern const struct cmd_def alter_cmds[];

#endif
