/* expr: C expressions, parsed and evaluated over DWARF-typed values, for
 * print and breakpoint conditions. Names, registers and memory come from
 * the caller through an environment, so the evaluator knows nothing of
 * processes. */
#ifndef QZ_EXPR_H
#define QZ_EXPR_H

#include <stddef.h>

#include "value.h"

struct expr_env {
	void *arg;
	/* A variable visible in the selected frame, or a global. Returns 0, 1 if
	 * no such symbol, -1 with err on another error. */
	int (*lookup_var)(void *arg, const char *name, struct val *out,
			  char *err, size_t errlen);
	/* $pc $sp $fp $rax $eax $rip $eflags ... (name without '$'). 0, 1 if
	 * unknown register, -1 if a register but no process ("No registers."). */
	int (*read_reg)(void *arg, const char *name, struct val *out);
	/* 0 on success. */
	int (*read_mem)(void *arg, uint64_t addr, void *buf, size_t len);
	/* Value history: $N (idx >= 1) absolute, or relative for $ (0), $$ (-1),
	 * $$N (-N). 0 or 1 if empty/out of range. May be NULL. */
	int (*history)(void *arg, int idx, bool relative, struct val *out);
	/* A named type for casts and sizeof ("struct node", "node_t"); NULL if
	 * none. May be NULL. */
	const struct di_type *(*lookup_type)(void *arg, const char *name);
	/* Writes for assignments (x = 3, p->key += 1, $rax = 0): 0 on
	 * success. reg is the DWARF number of a VAL_REG value; len may be less
	 * than the register ($eax). May be NULL: assignments are then an
	 * error. */
	/* FILE::name (a file static or global of that file) or FUNC::name (a
	 * static local of that function). 0, 1 if none, -1 with err. May be
	 * NULL. */
	int (*lookup_scoped)(void *arg, const char *scope, const char *name,
			     struct val *out, char *err, size_t errlen);
	int (*write_mem)(void *arg, uint64_t addr, const void *buf, size_t len);
	int (*write_reg)(void *arg, int reg, const void *buf, size_t len);
	/* Why no assignment may be made now (NULL: it may): the message of a
	 * refused write. May be NULL. */
	const char *(*write_refused)(void *arg);
	/* A warning printed before the value, as gdb's "warning: left shift
	 * count >= width of type" (msg without "warning: "). May be NULL. */
	void (*warn)(void *arg, const char *msg);
	/* Call the function at addr, of type ftype (DI_FUNC), with args
	 * converted to its parameters' types; the result (void if none) in
	 * out. 0, or -1 with err. May be NULL: calls are then an error. */
	int (*call)(void *arg, uint64_t addr, const struct di_type *ftype,
		    const struct val *args, size_t nargs, struct val *out,
		    char *err, size_t errlen);
};

struct expr;

/* Parse; NULL plus err ("A syntax error in expression, near `...'.") on
 * failure. */
struct expr *expr_parse(const char *text, char *err, size_t errlen);
void expr_free(struct expr *e);
/* Evaluate; 0 or -1 with err (gdb's wording where it has one:
 * "No symbol \"foo\" in current context.", "Cannot access memory at
 * address 0x0", "Division by zero"). */
int expr_eval(const struct expr *e, const struct expr_env *env,
	      struct val *out, char *err, size_t errlen);
/* The names the expression reads as variables (name, not FILE::name nor
 * members), in order; returns how many (at most max). */
size_t expr_names(const struct expr *e, const char **out, size_t max);
/* The same without side effects, for the type only (whatis, ptype: gdb's
 * EVAL_AVOID_SIDE_EFFECTS): memory behind pointers is not read, nothing is
 * assigned, a division by zero gives 0; the value's contents are
 * meaningless. */
int expr_eval_types(const struct expr *e, const struct expr_env *env,
		    struct val *out, char *err, size_t errlen);

#endif
