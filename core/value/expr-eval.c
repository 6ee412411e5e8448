/* expr-eval: evaluation of parsed expressions over typed values, with C's
 * promotions and conversions as gdb applies them; names, registers,
 * memory and history come from the caller's environment. Errors use gdb's
 * wording so that qzdb's output can be compared with gdb's. Numbers,
 * conversions and the binary operators are in expr-arith.c. */
#include "expr-int.h"

#include <dwarf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int expr_fail(struct expr_ev *ev, const char *fmt, ...)
{
	if (ev->errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(ev->err, ev->errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static int eval(struct expr_ev *ev, const struct expr_node *n, struct val *out);

const struct di_type *expr_builtin(const char *name)
{
	return val_builtin(name);
}

const struct di_type *expr_stripped(const struct val *v)
{
	return val_type_strip(v->type);
}

bool expr_is_kind(const struct val *v, enum di_kind kind)
{
	const struct di_type *t = expr_stripped(v);
	return t ? t->kind == kind : kind == DI_VOID;
}

int expr_no_operator(struct expr_ev *ev, const char *op)
{
	return expr_fail(ev, "Structure has no component named operator%s.", op);
}

static int truth(struct expr_ev *ev, struct val *v, bool *out)
{
	if (expr_unavailable(ev, v) || expr_decay(ev, v))
		return -1;
	if (val_is_float(v))
		*out = expr_as_ld(v) != 0;
	else if (val_is_integer(v) || val_is_pointer(v))
		*out = val_as_int(v) != 0;
	else
		return expr_not_a_number(ev);
	return 0;
}

static int eval_truth(struct expr_ev *ev, const struct expr_node *n, bool *out)
{
	struct val v;
	if (eval(ev, n, &v))
		return -1;
	int rc = truth(ev, &v, out);
	val_free(&v);
	return rc;
}

static int eval_logical(struct expr_ev *ev, const struct expr_node *n, struct val *out)
{
	bool x, y = false;
	if (eval_truth(ev, n->a, &x))
		return -1;
	if ((n->op == ET_ANDAND) == x && eval_truth(ev, n->b, &y))
		return -1;
	*out = val_from_int(expr_builtin("int"), n->op == ET_ANDAND ? x && y : x || y);
	return 0;
}

static int eval_two(struct expr_ev *ev, const struct expr_node *n, struct val *a,
		    struct val *b)
{
	if (eval(ev, n->a, a))
		return -1;
	if (eval(ev, n->b, b)) {
		val_free(a);
		return -1;
	}
	return 0;
}

static int repeat(struct expr_ev *ev, const struct val *a, const struct val *b,
		  struct val *out)
{
	if (!val_is_integer(b))
		return expr_not_a_number(ev);
	if (a->where != VAL_MEM)
		return expr_fail(ev, "Only values in memory can be extended with '@'.");
	int64_t count = val_as_int(b);
	if (count <= 0 || count > INT32_MAX)
		return expr_fail(ev, "Invalid number %lld of repetitions.", (long long)count);
	return expr_read_at(ev, a->addr, val_array_of(a->type, (uint64_t)count), out);
}

static int eval_binary(struct expr_ev *ev, const struct expr_node *n, struct val *out)
{
	struct val a, b;
	if (n->op == ET_ANDAND || n->op == ET_OROR)
		return eval_logical(ev, n, out);
	if (eval_two(ev, n, &a, &b))
		return -1;
	int rc;
	if (n->op == ',') {
		*out = b;
		val_free(&a);
		return 0;
	}
	if (n->op == '@')
		rc = repeat(ev, &a, &b, out);
	else
		rc = expr_binop(ev, n->op, &a, &b, out);
	val_free(&a);
	val_free(&b);
	return rc;
}

static int eval_cond(struct expr_ev *ev, const struct expr_node *n, struct val *out)
{
	bool c;
	if (eval_truth(ev, n->c, &c))
		return -1;
	return eval(ev, c ? n->a : n->b, out);
}

/* Unary operators. */

static int deref(struct expr_ev *ev, struct val *v, struct val *out)
{
	if (ev->noside && expr_is_kind(v, DI_FUNC))   /* gdb's UNOP_IND without side effects */
		return expr_fail(ev, "Attempt to take contents of a non-pointer value.");
	if (expr_unavailable(ev, v) || expr_decay(ev, v))
		return -1;
	const struct di_type *t = expr_stripped(v);
	if (val_is_integer(v))   /* gdb reads an int there */
		return expr_read_at(ev, (uint64_t)val_as_int(v), expr_builtin("int"), out);
	if (!t || t->kind != DI_PTR)
		return expr_fail(ev, "Attempt to take contents of a non-pointer value.");
	const struct di_type *to = val_type_strip(t->target);
	if (!to || to->kind == DI_VOID)
		return expr_fail(ev, "Attempt to dereference a generic pointer.");
	return expr_read_at(ev, (uint64_t)val_as_int(v), t->target, out);
}

static int address_of(struct expr_ev *ev, struct val *v, struct val *out)
{
	if (v->where != VAL_MEM)
		return expr_not_in_memory(ev);
	*out = val_from_int(val_pointer_to(v->type), (int64_t)v->addr);
	return 0;
}

/* gdb's unary operators work on check_typedef of their operand's type:
 * -x and ~x of a u32 are unsigned int. */
static const struct di_type *untypedef(const struct di_type *t)
{
	while (t && t->kind == DI_TYPEDEF)
		t = t->target;
	return t;
}

static int negate(struct expr_ev *ev, int op, struct val *v, struct val *out)
{
	if (val_is_float(v)) {
		long double x = expr_as_ld(v);
		*out = expr_from_ld(val_type_strip(v->type), op == '-' ? -x : x);
		return 0;
	}
	if (!val_is_integer(v))
		return expr_fail(ev, "Argument to %s operation not a number.",
				 op == '-' ? "negate" : "positive");
	const struct di_type *rt = untypedef(expr_promote1(v->type));
	int64_t x = val_as_int(v);
	*out = val_from_int(rt, op == '-' ? (int64_t)(0 - (uint64_t)x) : x);
	return 0;
}

static int complement(struct expr_ev *ev, struct val *v, struct val *out)
{
	if (!val_is_integer(v))
		return expr_fail(ev, "Argument to complement operation not an integer, boolean.");
	*out = val_from_int(untypedef(expr_promote1(v->type)), ~val_as_int(v));
	return 0;
}

static int unop(struct expr_ev *ev, int op, struct val *v, struct val *out)
{
	bool b;
	if (op != '&' && expr_is_kind(v, DI_STRUCT))
		return expr_no_operator(ev, expr_op_text(op));
	switch (op) {
	case '*':
		return deref(ev, v, out);
	case '&':
		return address_of(ev, v, out);
	case '!':
		if (truth(ev, v, &b))
			return -1;
		*out = val_from_int(expr_builtin("int"), !b);
		return 0;
	case '~':
		if (expr_unavailable(ev, v))
			return -1;
		return complement(ev, v, out);
	default:
		if (expr_unavailable(ev, v) || expr_decay(ev, v))
			return -1;
		return negate(ev, op, v, out);
	}
}

/* &name of a variable not in memory: gdb names it and says why. */
static int no_address(struct expr_ev *ev, const char *name, const struct val *v)
{
	static const char *const regs[] = {
		"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp", "r8", "r9",
		"r10", "r11", "r12", "r13", "r14", "r15", "rip",
	};
	if (v->where == VAL_REG && v->reg >= 0 && (size_t)v->reg < ARRAY_LEN(regs))
		return expr_fail(ev, "Address requested for identifier \"%s\" which is in "
				 "register $%s", name, regs[v->reg]);
	return expr_fail(ev, "Can't take address of \"%s\" which isn't an lvalue.", name);
}

static int eval_unary(struct expr_ev *ev, const struct expr_node *n, struct val *out)
{
	struct val v;
	if (eval(ev, n->a, &v))
		return -1;
	/* Without side effects gdb types &var from the symbol alone
	 * (var_value_operation::evaluate_for_address), wherever it lives. */
	if (n->op == '&' && ev->noside && n->a->kind == EN_IDENT && v.where != VAL_MEM &&
	    !expr_is_kind(&v, DI_FUNC)) {
		*out = val_from_int(val_pointer_to(v.type), 0);
		val_free(&v);
		return 0;
	}
	if (n->op == '&' && n->a->kind == EN_IDENT && v.where != VAL_MEM &&
	    !expr_is_kind(&v, DI_FUNC)) {
		no_address(ev, n->a->s, &v);
		val_free(&v);
		return -1;
	}
	int rc = unop(ev, n->op, &v, out);
	val_free(&v);
	return rc;
}

/* Subscripts and members. */

static int index_array(struct expr_ev *ev, const struct val *a, int64_t i,
		       struct val *out)
{
	const struct di_type *t = expr_stripped(a);
	const struct di_type *et = val_array_elem(t);
	uint64_t esz = val_type_size(et);
	if (i >= 0 && (uint64_t)i < val_array_len(t) && ((uint64_t)i + 1) * esz <= a->size) {
		*out = val_from_bytes(et, a->bytes + (uint64_t)i * esz, (size_t)esz);
		if (a->unavail) {
			out->unavail = xmalloc((size_t)esz);
			memcpy(out->unavail, a->unavail + (uint64_t)i * esz, (size_t)esz);
		}
		if (a->where == VAL_MEM) {
			out->where = VAL_MEM;
			out->addr = a->addr + (uint64_t)i * esz;
		}
		out->optimized_out = a->optimized_out;
		return 0;
	}
	if (a->where != VAL_MEM)
		return expr_fail(ev, "no such vector element");
	return expr_read_at(ev, a->addr + (uint64_t)i * esz, et, out);
}

static int subscript(struct expr_ev *ev, struct val *a, struct val *b, struct val *out)
{
	if (val_is_integer(a) && (expr_is_kind(b, DI_ARRAY) || val_is_pointer(b))) {
		struct val tmp = *a;      /* 2[arr] is arr[2] */
		*a = *b;
		*b = tmp;
	}
	if (!val_is_integer(b))
		return expr_not_a_number(ev);
	if (expr_unavailable(ev, b))
		return -1;
	int64_t i = val_as_int(b);
	if (expr_is_kind(a, DI_ARRAY))
		return index_array(ev, a, i, out);
	if (expr_unavailable(ev, a))
		return -1;
	if (!val_is_pointer(a)) {
		struct sbuf name = {0};
		val_type_name(&name, a->type);
		expr_fail(ev, "cannot subscript something of type `%s'", name.s);
		sbuf_free(&name);
		return -1;
	}
	const struct di_type *to = val_type_strip(expr_stripped(a)->target);
	if (!to || to->kind == DI_VOID)
		return expr_fail(ev, "Attempt to dereference a generic pointer.");
	uint64_t addr = (uint64_t)val_as_int(a) + (uint64_t)i * expr_target_size(a);
	return expr_read_at(ev, addr, expr_stripped(a)->target, out);
}

static int eval_index(struct expr_ev *ev, const struct expr_node *n, struct val *out)
{
	struct val a, b;
	if (eval_two(ev, n, &a, &b))
		return -1;
	int rc = subscript(ev, &a, &b, out);
	val_free(&a);
	val_free(&b);
	return rc;
}

/* Finds name in t, looking into anonymous struct and union members. */
static bool find_member(const struct val *v, const struct di_type *t,
			const char *name, struct val *out)
{
	for (size_t i = 0; i < t->nmembers; i++) {
		const struct di_member *m = &t->members[i];
		if (m->name && strcmp(m->name, name) == 0) {
			*out = val_member(v, m);
			return true;
		}
	}
	for (size_t i = 0; i < t->nmembers; i++) {
		const struct di_member *m = &t->members[i];
		const struct di_type *mt = val_type_strip(m->type);
		if (m->name || !mt || (mt->kind != DI_STRUCT && mt->kind != DI_UNION))
			continue;
		struct val sub = val_member(v, m);
		bool found = find_member(&sub, mt, name, out);
		val_free(&sub);
		if (found)
			return true;
	}
	return false;
}

static bool is_struct_type(const struct di_type *t)
{
	return t && (t->kind == DI_STRUCT || t->kind == DI_UNION);
}

/* Where member name lies in struct type t, in find_member's order: the
 * bytes [*off, *off + *len) from base. */
static bool member_span(const struct di_type *t, const char *name, uint64_t base,
			uint64_t *off, uint64_t *len)
{
	for (size_t i = 0; i < t->nmembers; i++) {
		const struct di_member *m = &t->members[i];
		if (!m->name || strcmp(m->name, name))
			continue;
		*off = base + m->offset;
		*len = m->bit_size ? ((uint64_t)m->bit_offset + (uint64_t)m->bit_size + 7) / 8
			: val_type_size(m->type);
		return true;
	}
	for (size_t i = 0; i < t->nmembers; i++) {
		const struct di_member *m = &t->members[i];
		const struct di_type *mt = val_type_strip(m->type);
		if (!m->name && is_struct_type(mt) &&
		    member_span(mt, name, base + m->offset, off, len))
			return true;
	}
	return false;
}

static int member(struct expr_ev *ev, struct val *v, const char *name, bool arrow,
		  struct val *out);

/* p->name reads the member only, as gdb's lazy values do: p == NULL fails
 * at the member's address, not at 0. */
static int member_of_pointee(struct expr_ev *ev, struct val *p, const char *name,
			     bool arrow, struct val *out)
{
	const struct di_type *st = val_type_strip(expr_stripped(p)->target);
	uint64_t off, len, size = val_type_size(st);
	struct val s;
	if (expr_unavailable(ev, p))
		return -1;
	if (st->declaration || size > EXPR_MAX_VALUE_SIZE ||
	    !member_span(st, name, 0, &off, &len) || off + len > size) {
		if (deref(ev, p, &s))
			return -1;
	} else {
		uint64_t addr = (uint64_t)val_as_int(p);
		s = (struct val){ .type = expr_stripped(p)->target, .where = VAL_MEM,
				  .addr = addr, .size = (size_t)size };
		s.bytes = xcalloc(1, (size_t)size);
		if (len && !ev->noside &&
		    (!ev->env->read_mem ||
		     ev->env->read_mem(ev->env->arg, addr + off, s.bytes + off, len) != 0)) {
			free(s.bytes);
			return expr_fail(ev, "Cannot access memory at address 0x%llx",
					 (unsigned long long)(addr + off));
		}
	}
	int rc = member(ev, &s, name, arrow, out);
	val_free(&s);
	return rc;
}

/* gdb lets . and -> both work on structs and on pointers to them. */
static int member(struct expr_ev *ev, struct val *v, const char *name, bool arrow,
		  struct val *out)
{
	const struct di_type *t = expr_stripped(v);
	if (t && t->kind == DI_PTR && is_struct_type(val_type_strip(t->target)))
		return member_of_pointee(ev, v, name, arrow, out);
	if (!is_struct_type(t))
		return expr_fail(ev, "Attempt to extract a component of a value that is "
				 "not a structure%s.", arrow ? " pointer" : "");
	if (!find_member(v, t, name, out))
		return expr_fail(ev, "There is no member named %s.", name);
	return 0;
}

static int eval_member(struct expr_ev *ev, const struct expr_node *n, struct val *out)
{
	struct val v;
	if (eval(ev, n->a, &v))
		return -1;
	int rc = member(ev, &v, n->s, n->kind == EN_ARROW, out);
	val_free(&v);
	return rc;
}

/* Types, casts and sizeof. */

static int resolve_type(struct expr_ev *ev, const struct expr_tname *tn,
			const struct di_type **out)
{
	const struct di_type *t = NULL;
	if (tn->builtin)
		t = expr_builtin(tn->name);
	else if (ev->env->lookup_type)
		t = ev->env->lookup_type(ev->env->arg, tn->name);
	if (!t && tn->tag)
		return expr_fail(ev, "No %s type named %s.", tn->tag,
				 tn->name + strlen(tn->tag) + 1);
	if (!t)
		return expr_fail(ev, "No symbol \"%s\" in current context.", tn->name);
	t = val_qualified(t, tn->cv & EXPR_CV_CONST, tn->cv & EXPR_CV_VOLATILE);
	for (int i = 0; i < tn->nptr; i++) {
		unsigned cv = (size_t)i < ARRAY_LEN(tn->ptr_cv) ? tn->ptr_cv[i] : 0;
		t = val_qualified(val_pointer_to(t), cv & EXPR_CV_CONST, cv & EXPR_CV_VOLATILE);
	}
	for (size_t i = tn->ndims; i-- > 0;)
		t = val_array_of(t, tn->dims[i]);
	*out = t;
	return 0;
}

static int cast_same(struct expr_ev *ev, const struct di_type *to, struct val *v,
		     struct val *out)
{
	if (val_type_strip(to) != expr_stripped(v))
		return expr_fail(ev, "Invalid cast.");
	*out = val_copy(v);
	out->type = to;
	return 0;
}

static int cast(struct expr_ev *ev, const struct di_type *to, struct val *v,
		struct val *out)
{
	const struct di_type *ts = val_type_strip(to);
	if (!ts || ts->kind == DI_VOID) {
		*out = expr_void_value();
		out->type = to;
		return 0;
	}
	if (is_struct_type(ts) || ts->kind == DI_ARRAY || ts->kind == DI_FUNC)
		return cast_same(ev, to, v, out);
	if (expr_unavailable(ev, v) || expr_decay(ev, v))
		return -1;
	if (!expr_is_number(v) && !val_is_pointer(v))
		return expr_fail(ev, "Invalid cast.");
	if (ts->kind == DI_BASE && ts->encoding == DW_ATE_float)
		*out = expr_from_ld(to, expr_as_ld(v));
	else if (ts->kind == DI_BASE && ts->encoding == DW_ATE_boolean)
		*out = val_from_int(to, val_is_float(v) ? expr_as_ld(v) != 0 : val_as_int(v) != 0);
	else
		*out = val_from_int(to, expr_number_as_int(v));
	return 0;
}

int expr_cast(struct expr_ev *ev, const struct di_type *to, struct val *v, struct val *out)
{
	return cast(ev, to, v, out);
}

int expr_eval_node(struct expr_ev *ev, const struct expr_node *n, struct val *out)
{
	return eval(ev, n, out);
}

static int eval_cast(struct expr_ev *ev, const struct expr_node *n, struct val *out)
{
	const struct di_type *to;
	struct val v;
	if (resolve_type(ev, n->type, &to) || eval(ev, n->a, &v))
		return -1;
	int rc = cast(ev, to, &v, out);
	val_free(&v);
	return rc;
}

static struct val size_value(const struct di_type *t)
{
	return val_from_int(expr_builtin("unsigned long"), (int64_t)val_type_size(t));
}

/* sizeof x where x may name a type as well (sizeof(node_t)). */
static int sizeof_name(struct expr_ev *ev, const char *name, struct val *out)
{
	const struct expr_env *env = ev->env;
	struct val v;
	int rc = env->lookup_var ? env->lookup_var(env->arg, name, &v, ev->err, ev->errlen) : 1;
	if (rc < 0)
		return -1;
	if (rc == 0) {
		*out = size_value(v.type);
		val_free(&v);
		return 0;
	}
	const struct di_type *t = env->lookup_type ? env->lookup_type(env->arg, name) : NULL;
	if (!t)
		return expr_fail(ev, "No symbol \"%s\" in current context.", name);
	*out = size_value(t);
	return 0;
}

static int eval_sizeof(struct expr_ev *ev, const struct expr_node *n, struct val *out)
{
	if (n->kind == EN_SIZEOF_TYPE) {
		const struct di_type *t;
		if (resolve_type(ev, n->type, &t))
			return -1;
		*out = size_value(t);
		return 0;
	}
	if (n->a->kind == EN_IDENT)
		return sizeof_name(ev, n->a->s, out);
	bool noside = ev->noside;
	struct val v;
	ev->noside = true;
	int rc = eval(ev, n->a, &v);
	ev->noside = noside;
	if (rc)
		return -1;
	*out = size_value(v.type);
	val_free(&v);
	return 0;
}

/* Names. */

static int eval_ident(struct expr_ev *ev, const char *name, struct val *out)
{
	const struct expr_env *env = ev->env;
	int rc = env->lookup_var ? env->lookup_var(env->arg, name, out, ev->err, ev->errlen) : 1;
	if (rc <= 0)
		return rc;
	if (env->lookup_type && env->lookup_type(env->arg, name))
		return expr_fail(ev, "Attempt to use a type name as an expression");
	return expr_fail(ev, "No symbol \"%s\" in current context.", name);
}

static int eval_scoped(struct expr_ev *ev, const char *scope, const char *name, struct val *out)
{
	const struct expr_env *env = ev->env;
	int rc = env->lookup_scoped ?
		env->lookup_scoped(env->arg, scope, name, out, ev->err, ev->errlen) : 1;
	if (rc <= 0)
		return rc;
	/* gdb's words name neither the file nor the function */
	return expr_fail(ev, "No symbol \"%s\" in specified context.", name);
}

static int eval_history(struct expr_ev *ev, const struct expr_node *n, struct val *out)
{
	const struct expr_env *env = ev->env;
	if (env->history && env->history(env->arg, n->hist, n->rel, out) == 0)
		return 0;
	if (!n->rel)
		return expr_fail(ev, "History has not yet reached $%d.", n->hist);
	if (n->hist == 0)
		return expr_fail(ev, "The history is empty.");
	return expr_fail(ev, "History does not go back to $$%d.", -n->hist);
}

static int eval_reg(struct expr_ev *ev, const char *name, struct val *out)
{
	const struct expr_env *env = ev->env;
	int rc = env->read_reg ? env->read_reg(env->arg, name, out) : 1;
	if (rc == 0)
		return 0;
	if (rc < 0)
		return expr_fail(ev, "No registers.");
	*out = expr_void_value();   /* an unset convenience variable */
	return 0;
}

/* Assignment. */

static int store(struct expr_ev *ev, const struct val *to, const struct val *v)
{
	const struct expr_env *env = ev->env;
	if (ev->noside)
		return 0;
	const char *why = env->write_refused ? env->write_refused(env->arg) : NULL;
	if (why)
		return expr_fail(ev, "%s", why);
	if (to->where == VAL_MEM && env->write_mem) {
		if (env->write_mem(env->arg, to->addr, v->bytes, v->size) != 0)
			return expr_fail(ev, "Cannot access memory at address 0x%llx",
					 (unsigned long long)to->addr);
		return 0;
	}
	if (to->where == VAL_REG && env->write_reg) {
		if (env->write_reg(env->arg, to->reg, v->bytes, v->size) != 0)
			return expr_fail(ev, "Could not write register");
		return 0;
	}
	return expr_fail(ev, "Assignment is not supported here");
}

static int assign(struct expr_ev *ev, int op, struct val *l, struct val *r,
		  struct val *out)
{
	struct val nv;
	if (l->where == VAL_RVALUE)
		return expr_fail(ev, "Left operand of assignment is not an lvalue.");
	if (op) {
		struct val lc = val_copy(l);
		int rc = expr_binop(ev, op, &lc, r, &nv);
		val_free(&lc);
		if (rc)
			return -1;
		expr_replace(r, nv);
	}
	if (cast(ev, l->type, r, &nv))
		return -1;
	if (store(ev, l, &nv)) {
		val_free(&nv);
		return -1;
	}
	nv.where = l->where;
	nv.addr = l->addr;
	nv.reg = l->reg;
	*out = nv;
	return 0;
}

static int eval_assign(struct expr_ev *ev, const struct expr_node *n, struct val *out)
{
	struct val l, r;
	if (eval_two(ev, n, &l, &r))
		return -1;
	int rc = assign(ev, n->op, &l, &r, out);
	val_free(&l);
	val_free(&r);
	return rc;
}

static int eval_literal(const struct expr_node *n, struct val *out)
{
	if (n->kind == EN_INT)
		*out = val_from_int(expr_builtin(n->tname), (int64_t)n->ival);
	else if (n->kind == EN_FLOAT)
		*out = expr_from_ld(expr_builtin(n->tname), n->fval);
	else
		*out = val_from_bytes(val_array_of(expr_builtin("char"), n->len + 1),
				      n->s, n->len + 1);
	return 0;
}

static int eval(struct expr_ev *ev, const struct expr_node *n, struct val *out)
{
	switch (n->kind) {
	case EN_INT:
	case EN_FLOAT:
	case EN_STRING:
		return eval_literal(n, out);
	case EN_IDENT:
		if (n->scope)
			return eval_scoped(ev, n->scope, n->s, out);
		return eval_ident(ev, n->s, out);
	case EN_REG:
		return eval_reg(ev, n->s, out);
	case EN_HISTORY:
		return eval_history(ev, n, out);
	case EN_UNARY:
		return eval_unary(ev, n, out);
	case EN_BINARY:
		return eval_binary(ev, n, out);
	case EN_COND:
		return eval_cond(ev, n, out);
	case EN_INDEX:
		return eval_index(ev, n, out);
	case EN_CALL:
		return expr_eval_call(ev, n, out);
	case EN_MEMBER:
	case EN_ARROW:
		return eval_member(ev, n, out);
	case EN_CAST:
		return eval_cast(ev, n, out);
	case EN_SIZEOF:
	case EN_SIZEOF_TYPE:
		return eval_sizeof(ev, n, out);
	case EN_ASSIGN:
		return eval_assign(ev, n, out);
	}
	return expr_fail(ev, "Unknown expression");
}

static int expr_eval_mode(const struct expr *e, const struct expr_env *env,
			  struct val *out, char *err, size_t errlen, bool noside)
{
	struct expr_ev ev = { .env = env, .err = err, .errlen = errlen, .noside = noside };
	struct expr *typed = NULL;
	const struct expr_node *root = e->root;
	if (errlen)
		err[0] = 0;
	memset(out, 0, sizeof(*out));
	if (e->ambiguous && env->lookup_type) {
		typed = expr_parse_typed(e->text, env, err, errlen);
		if (!typed)
			return -1;
		root = typed->root;
	}
	int rc = eval(&ev, root, out);
	if (rc)
		memset(out, 0, sizeof(*out));
	expr_free(typed);
	return rc;
}

int expr_eval(const struct expr *e, const struct expr_env *env,
	      struct val *out, char *err, size_t errlen)
{
	return expr_eval_mode(e, env, out, err, errlen, false);
}

int expr_eval_types(const struct expr *e, const struct expr_env *env,
		    struct val *out, char *err, size_t errlen)
{
	return expr_eval_mode(e, env, out, err, errlen, true);
}

static void expr_names_in(const struct expr_node *n, const char **out, size_t max,
			  size_t *k)
{
	if (!n)
		return;
	if (n->kind == EN_IDENT && !n->scope && *k < max)
		out[(*k)++] = n->s;
	expr_names_in(n->a, out, max, k);
	expr_names_in(n->b, out, max, k);
	expr_names_in(n->c, out, max, k);
}

size_t expr_names(const struct expr *e, const char **out, size_t max)
{
	size_t k = 0;
	expr_names_in(e->root, out, max, &k);
	return k;
}
