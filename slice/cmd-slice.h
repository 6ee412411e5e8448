/* cmd-slice: the recording, slicing and explaining commands. */
#ifndef QZ_SLICE_CMD_SLICE_H
#define QZ_SLICE_CMD_SLICE_H

#include <stdint.h>

#include "cmd/cmd.h"

/* The module's commands, for its struct qz_mod (core/target/mod.h);
 * ended by an entry with a NULL name. */
extern const struct cmd_def slice_cmds[];

/* A variable or lvalue (in the selected frame), $REG, or ADDR [SIZE] to a
 * location: kind (enum slice_crit_kind), register or address and size.
 * 0, or -1 with the session's error set. */
int cs_location(struct qz *q, const char *what, uint8_t *kind, int *reg,
		uint64_t *addr, uint64_t *size);
/* FILE:LINE to a statement of the recording; its instance #n (0: the
 * latest). 0, or -1 with the error set. */
int cs_stmt(struct qz *q, const char *spec, int32_t *stmt);
int cs_inst(struct qz *q, int32_t stmt, long n, int32_t *inst);

#endif
