/* expr-call: f(args) in an expression. The arguments are converted as gdb
 * converts them for a prototyped C function (value_arg_coerce): to each
 * parameter's type, past them by the default promotions; the call itself
 * is the environment's (the target layer runs the function). */
#include "expr-int.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "value.h"

#define EXPR_CALL_MAX_ARGS 32

/* The arguments of a call are one tree joined by the comma operator. */
static size_t call_args(const struct expr_node *n, const struct expr_node **out, size_t max)
{
	if (!n)
		return 0;
	if (n->kind == EN_BINARY && n->op == ',') {
		size_t k = call_args(n->a, out, max);
		if (k < max)
			out[k++] = n->b;
		return k;
	}
	out[0] = n;
	return 1;
}

/* int for what is narrower, double for float: C's default promotions. */
static const struct di_type *call_promoted(const struct val *v)
{
	const struct di_type *t = val_type_strip(v->type);
	if (t && t->kind == DI_BASE && t->encoding == DW_ATE_float && t->size < 8)
		return expr_builtin("double");
	if (val_is_integer(v) && t && t->size < 4)
		return expr_builtin("int");
	return NULL;
}

/* One argument for a parameter of type param (NULL past the parameters);
 * arrays that live nowhere (string literals) are left to the caller. */
static int call_convert(struct expr_ev *ev, const struct di_type *param, struct val *v)
{
	const struct di_type *ps = val_type_strip(param);
	const struct di_type *t = val_type_strip(v->type);
	if (t && t->kind == DI_ARRAY && v->where != VAL_MEM)
		return 0;
	if (!ps) {
		const struct di_type *to = call_promoted(v);
		struct val c;
		if (!to)
			return t && (t->kind == DI_ARRAY || t->kind == DI_FUNC) ? expr_decay(ev, v) : 0;
		if (expr_cast(ev, to, v, &c))
			return -1;
		expr_replace(v, c);
		return 0;
	}
	if (ps->kind == DI_STRUCT || ps->kind == DI_UNION) {
		if (t != ps)
			return expr_fail(ev, "Invalid cast.");
		return 0;
	}
	struct val c;
	if (expr_cast(ev, param, v, &c))
		return -1;
	expr_replace(v, c);
	return 0;
}

/* The function called: one of function type, or a pointer to one. */
static int call_target(struct expr_ev *ev, const struct val *f, uint64_t *addr,
		       const struct di_type **ft)
{
	const struct di_type *t = val_type_strip(f->type);
	if (t && t->kind == DI_FUNC && f->where == VAL_MEM) {
		*addr = f->addr;
		*ft = t;
		return 0;
	}
	if (t && t->kind == DI_PTR && val_type_strip(t->target) &&
	    val_type_strip(t->target)->kind == DI_FUNC) {
		*addr = (uint64_t)val_as_int(f);
		*ft = val_type_strip(t->target);
		return 0;
	}
	return expr_fail(ev, "Invalid data type for function to be called.");
}

static void call_free(struct val *args, size_t n)
{
	for (size_t i = 0; i < n; i++)
		val_free(&args[i]);
}

int expr_eval_call(struct expr_ev *ev, const struct expr_node *n, struct val *out)
{
	const struct expr_node *an[EXPR_CALL_MAX_ARGS];
	struct val f, args[EXPR_CALL_MAX_ARGS];
	const struct di_type *ft = NULL;
	uint64_t addr = 0;
	size_t na = call_args(n->b, an, EXPR_CALL_MAX_ARGS), i;
	if (expr_eval_node(ev, n->a, &f))
		return -1;
	int rc = call_target(ev, &f, &addr, &ft);
	val_free(&f);
	if (rc)
		return -1;
	if (na < ft->nparams)
		return expr_fail(ev, "Too few arguments in function call.");
	if (ev->noside) {   /* whatis, sizeof: the type of the result only */
		*out = expr_void_value();
		out->type = ft->target ? ft->target : expr_builtin("void");
		return 0;
	}
	for (i = 0; i < na; i++) {
		if (expr_eval_node(ev, an[i], &args[i])) {
			call_free(args, i);
			return -1;
		}
		if (call_convert(ev, i < ft->nparams ? ft->params[i] : NULL, &args[i])) {
			call_free(args, i + 1);
			return -1;
		}
	}
	if (!ev->env->call)
		rc = expr_fail(ev, "You can't do that without a process to debug.");
	else
		rc = ev->env->call(ev->env->arg, addr, ft, args, na, out, ev->err, ev->errlen);
	call_free(args, na);
	return rc;
}
