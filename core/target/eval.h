/* eval: expressions evaluated in the selected frame of the process: the
 * environment (variables in scope, registers, memory, value history) that
 * the expression evaluator asks for. */
#ifndef QZ_EVAL_H
#define QZ_EVAL_H

#include <stdbool.h>

#include "value/expr.h"
#include "value/value.h"

struct qz;
struct expr;

void eval_env(struct qz *q, struct expr_env *env);
/* Parse and evaluate text; 0, or -1 with the session's error set. */
int eval_text(struct qz *q, const char *text, struct val *out);
/* The same for its type only, reading no memory behind pointers and
 * changing nothing (whatis, ptype). */
int eval_type_of(struct qz *q, const char *text, struct val *out);
/* An address given as an expression, as gdb's *ADDR and info symbol take
 * it: a number, a pointer, a function or array (its address). 0, or -1
 * with the session's error set. */
int eval_address(struct qz *q, const char *text, uint64_t *a);
/* Evaluate a parsed expression as a truth value. */
int eval_truth(struct qz *q, const struct expr *e, bool *truth);
/* The value of variable v of frame f (NULL: a static, no frame needed).
 * 0, or -1 with the session's error set. */
struct frame;
int eval_var(struct qz *q, const struct frame *f, const struct di_var *v, struct val *out);
/* Read a register of the selected frame by name ("pc", "rax", "eflags"). */
int eval_reg(struct qz *q, const char *name, struct val *out);

#endif
