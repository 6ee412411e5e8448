/* expr-int: what the files of the expression module share beyond the
 * tree (expr-tree.h): the tokens and parser state of expr-lex.c and
 * expr-parse.c, the evaluation state and helpers of expr-eval.c and
 * expr-arith.c. Not for use outside core/value. */
#ifndef QZ_EXPR_INT_H
#define QZ_EXPR_INT_H

#include "expr-tree.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One token of the expression text. */
struct expr_token {
	int kind;
	size_t pos;              /* where it starts, for "near `...'" */
	uint64_t ival;
	long double fval;
	const char *tname;       /* literal's type, a val_builtin name */
	char *s;                 /* identifier, $name or string bytes */
	size_t len;
	int op;                  /* ET_ASSIGN_OP: the arithmetic operator */
};

/* The parser's state (the lexer fills toks). */
struct expr_ps {
	const char *text;
	struct expr_token *toks;
	size_t ntoks, cap;
	size_t i;
	const struct expr_env *env;
	bool ambiguous;
	bool failed;
	int nest;                /* parse_unary/cond/assign calls open */
	char *err;
	size_t errlen;
};

/* expr-lex.c */
/* The first error of a parse (gdb's wording) into ps->err; later ones are
 * dropped. */
void expr_ps_error(struct expr_ps *ps, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Split ps->text into ps->toks, ending with ET_EOF; ps->failed on error. */
void expr_lex(struct expr_ps *ps);

/* gdb's default max-value-size: a mistyped @ count must not read
 * gigabytes of the process. */
#define EXPR_MAX_VALUE_SIZE 65536

/* One evaluation: where names and memory come from, where errors go. */
struct expr_ev {
	const struct expr_env *env;
	char *err;
	size_t errlen;
	bool noside;         /* under sizeof: types only, memory is not read */
};

/* expr-eval.c */
/* Set the error (gdb's wording) and return -1. */
int expr_fail(struct expr_ev *ev, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
const struct di_type *expr_builtin(const char *name);
const struct di_type *expr_stripped(const struct val *v);
bool expr_is_kind(const struct val *v, enum di_kind kind);
/* gdb looks for C++ operators on structs (not unions) and words its
 * errors that way, in C too. */
int expr_no_operator(struct expr_ev *ev, const char *op);
/* Evaluate a node of the tree; a value converted to type to as a cast. */
int expr_eval_node(struct expr_ev *ev, const struct expr_node *n, struct val *out);
int expr_cast(struct expr_ev *ev, const struct di_type *to, struct val *v, struct val *out);

/* expr-call.c */
/* f(args): arguments converted as gdb does, then the environment's call. */
int expr_eval_call(struct expr_ev *ev, const struct expr_node *n, struct val *out);

/* expr-arith.c */
bool expr_is_number(const struct val *v);
/* *v becomes n (the old value is freed). */
void expr_replace(struct val *v, struct val n);
struct val expr_void_value(void);
long double expr_as_ld(const struct val *v);
struct val expr_from_ld(const struct di_type *t, long double x);
int64_t expr_number_as_int(const struct val *v);
/* A value of type t read at addr (at most EXPR_MAX_VALUE_SIZE bytes). */
int expr_read_at(struct expr_ev *ev, uint64_t addr, const struct di_type *t,
		 struct val *out);
/* gdb computes nothing from a value it does not have. */
int expr_unavailable(struct expr_ev *ev, const struct val *v);
int expr_not_in_memory(struct expr_ev *ev);
/* Arrays and functions become pointers where C says so. */
int expr_decay(struct expr_ev *ev, struct val *v);
/* The integer promotion of t. */
const struct di_type *expr_promote1(const struct di_type *t);
/* The size of the type pointer p points to. */
uint64_t expr_target_size(const struct val *p);
int expr_not_a_number(struct expr_ev *ev);
/* How op is written, for errors. */
const char *expr_op_text(int op);
/* a op b for the arithmetic, bitwise and comparison operators; a and b
 * may be changed (arrays decay). */
int expr_binop(struct expr_ev *ev, int op, struct val *a, struct val *b,
	       struct val *out);

#endif
