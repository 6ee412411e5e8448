/* cmd-detect: the detect module's commands. */
#ifndef DETECT_CMD_H
#define DETECT_CMD_H

#include "cmd/cmd.h"

extern const struct cmd_def detect_cmds[];

#endif
