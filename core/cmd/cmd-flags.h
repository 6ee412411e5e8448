/* cmd-flags: the one-letter names command arrays use for their flags, so
 * that an entry fits on a line. Include it only in a file that defines a
 * command array (core/cmd/cmd-table.c, a module's cmd-*.c). */
#ifndef QZ_CMD_FLAGS_H
#define QZ_CMD_FLAGS_H

#include "cmd.h"

#define P CMD_NEEDS_PROCESS
#define S CMD_NEEDS_STACK
#define F CMD_NEEDS_FRAME
#define R CMD_NEEDS_REGS
#define Y CMD_REPLAY_SAFE   /* may run in a replayed session file (cmd.h) */

/* An array's last entry. */
#define CMD_END {NULL, NULL, NULL, 0, NULL, NULL, NULL}

#endif
