/* alter: changing what the program does without editing it: switch a
 * branch, suppress a statement, stop in a function by its arguments, return
 * value or the memory it touches; and the execution instance counts these
 * are selected by (DESIGN.md "Execution instances"). */
#ifndef ALTER_ALTER_H
#define ALTER_ALTER_H

#include <stdbool.h>
#include <stdint.h>

struct qz;
struct qz_mod;

/* The module (core/target/mod.h): commands, hooks, per-session state. */
extern const struct qz_mod alter_mod;

/* The instance count of FILE:LINE: how many times the statement has started
 * executing in this run. Returns 0 with *count set when the count is exact
 * (alter counted it from the start of the run), 1 when it is not known
 * (not counted, or counting began mid-run), -1 with the session's error set
 * for a line that does not exist. */
int alter_instance_of(struct qz *q, const char *file, int line, uint64_t *count);

/* Start counting FILE:LINE (as `instance FILE:LINE watch`), for modules
 * that select statement instances (sbreak, recording). 0, or -1 with the
 * session's error set. The count is exact if no process runs yet. */
int alter_instance_watch(struct qz *q, const char *file, int line);

struct bp;
/* The statement a switch or suppression (bp->kind) covers, for the UI's
 * gutter marks; false for other breakpoints. */
bool alter_bp_line(const struct bp *b, const char **file, int *line);

#endif
