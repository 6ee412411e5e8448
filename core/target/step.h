/* step: source- and instruction-level stepping with gdb's rules (step,
 * next, until, stepi, nexti, finish, advance, until LOCATION). */
#ifndef QZ_STEP_H
#define QZ_STEP_H

#include <stdbool.h>

struct qz;

enum step_kind { STEP_INTO, STEP_OVER, STEP_UNTIL };

int step_line(struct qz *q, enum step_kind kind, int count);
int step_insn(struct qz *q, bool over, int count);
int step_finish(struct qz *q);
/* The value a function returning t has just returned (SysV ABI): 0, or
 * -1 when there is none or it cannot be read. */
struct val;
struct di_type;
int step_return_value(struct qz *q, const struct di_type *t, struct val *out);
/* Run to a location or until the selected frame returns; until_mode stops
 * at the location only in the current frame or an outer one. */
int step_to(struct qz *q, const char *spec, bool until_mode);

#endif
