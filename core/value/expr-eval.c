/* expr-eval: evaluation of parsed expressions over typed values, with C's
 * promotions and conversions as gdb applies them; names, registers,
 * memory and history come from the caller's environment. Errors use gdb's
 * wording so that qzdb's output can be compared with gdb's. */
#include "expr-tree.h"

#include <dwarf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* gdb's default max-value-size: a mistyped @ count must not read
 * gigabytes of the process. */
#define MAX_VALUE_SIZE 65536

struct ev {
	const struct expr_env *env;
	char *err;
	size_t errlen;
	bool noside;         /* under sizeof: types only, memory is not read */
};

static int fail(struct ev *ev, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct ev *ev, const char *fmt, ...)
{
	if (ev->errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(ev->err, ev->errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static int eval(struct ev *ev, const struct expr_node *n, struct val *out);

static const struct di_type *builtin(const char *name)
{
	return val_builtin(name);
}

static const struct di_type *stripped(const struct val *v)
{
	return val_type_strip(v->type);
}

static bool is_kind(const struct val *v, enum di_kind kind)
{
	const struct di_type *t = stripped(v);
	return t ? t->kind == kind : kind == DI_VOID;
}

/* gdb looks for C++ operators on structs (not unions) and words its
 * errors that way, in C too. */
static int no_operator(struct ev *ev, const char *op)
{
	return fail(ev, "Structure has no component named operator%s.", op);
}

static bool is_number(const struct val *v)
{
	return val_is_integer(v) || val_is_float(v);
}

static void replace(struct val *v, struct val n)
{
	val_free(v);
	*v = n;
}

static struct val void_value(void)
{
	return val_from_bytes(builtin("void"), "", 0);
}

static long double as_ld(const struct val *v)
{
	if (val_is_float(v) && v->size > 8) {
		long double x = 0;
		memcpy(&x, v->bytes, v->size < sizeof(x) ? v->size : sizeof(x));
		return x;
	}
	if (val_is_float(v))
		return val_as_double(v);
	int64_t x = val_as_int(v);
	return val_type_is_signed(v->type) ? (long double)x : (long double)(uint64_t)x;
}

static struct val from_ld(const struct di_type *t, long double x)
{
	uint64_t size = val_type_size(t);
	if (size <= 8)
		return val_from_double(t, (double)x);
	uint8_t buf[32] = {0};
	memcpy(buf, &x, sizeof(x));
	return val_from_bytes(t, buf, size < sizeof(buf) ? (size_t)size : sizeof(buf));
}

/* As C converts, but defined for values no integer holds (as x86 does). */
static int64_t ld_to_int(long double x)
{
	if (x != x || x <= -9223372036854775808.0L || x >= 18446744073709551616.0L)
		return INT64_MIN;
	if (x >= 9223372036854775808.0L)
		return (int64_t)(uint64_t)x;
	return (int64_t)x;
}

static int64_t number_as_int(const struct val *v)
{
	return val_is_float(v) ? ld_to_int(as_ld(v)) : val_as_int(v);
}

/* x as a value of integer type t would hold it. */
static int64_t trunc_to(int64_t x, const struct di_type *t)
{
	uint64_t size = val_type_size(t);
	if (size >= 8 || size == 0)
		return x;
	uint64_t u = (uint64_t)x & ((1ull << (8 * size)) - 1);
	if (val_type_is_signed(t) && (u >> (8 * size - 1)) & 1)
		u |= ~0ull << (8 * size);
	return (int64_t)u;
}

static int read_at(struct ev *ev, uint64_t addr, const struct di_type *t,
		   struct val *out)
{
	const struct di_type *s = val_type_strip(t);
	size_t size = s && s->kind != DI_FUNC && s->kind != DI_VOID ?
		      (size_t)val_type_size(t) : 0;
	if (size > MAX_VALUE_SIZE)
		return fail(ev, "value requires %zu bytes, which is more than "
			    "max-value-size", size);
	struct val v = { .type = t, .where = VAL_MEM, .addr = addr, .size = size };
	v.bytes = xcalloc(1, size);
	if (size && !ev->noside &&
	    (!ev->env->read_mem ||
	     ev->env->read_mem(ev->env->arg, addr, v.bytes, size) != 0)) {
		free(v.bytes);
		return fail(ev, "Cannot access memory at address 0x%llx",
			    (unsigned long long)addr);
	}
	*out = v;
	return 0;
}

/* gdb computes nothing from a value it does not have. */
static int unavailable(struct ev *ev, const struct val *v)
{
	return val_unavailable(v) ? fail(ev, "value has been optimized out") : 0;
}

static int not_in_memory(struct ev *ev)
{
	return fail(ev, "Attempt to take address of value not located in memory.");
}

/* Arrays and functions become pointers where C says so. */
static int decay(struct ev *ev, struct val *v)
{
	const struct di_type *t = stripped(v);
	if (!t || (t->kind != DI_ARRAY && t->kind != DI_FUNC))
		return 0;
	if (v->where != VAL_MEM)
		return not_in_memory(ev);
	const struct di_type *to = t->kind == DI_ARRAY ? val_array_elem(t) : v->type;
	replace(v, val_from_int(val_pointer_to(to), (int64_t)v->addr));
	return 0;
}

static const struct di_type *promote1(const struct di_type *t)
{
	const struct di_type *s = val_type_strip(t);
	if (s->kind == DI_ENUM || (s->kind == DI_BASE && s->encoding == DW_ATE_boolean)
	    || val_type_size(t) < 4) {
		if (val_type_size(t) <= 4)
			return builtin(val_type_size(t) == 4 && !val_type_is_signed(t)
				       ? "unsigned int" : "int");
		return builtin(val_type_is_signed(t) ? "long" : "unsigned long");
	}
	return t;
}

/* gdb's binop_promote for two integers: the longer operand's signedness,
 * unsigned on a tie if either is, at least int. */
static const struct di_type *promote2(const struct di_type *a, const struct di_type *b)
{
	uint64_t la = val_type_size(a), lb = val_type_size(b);
	bool ua = !val_type_is_signed(a), ub = !val_type_is_signed(b);
	if (la < 4)
		la = 4, ua = false;
	if (lb < 4)
		lb = 4, ub = false;
	bool u = la > lb ? ua : lb > la ? ub : (ua || ub);
	uint64_t len = la > lb ? la : lb;
	if (len <= 4)
		return builtin(u ? "unsigned int" : "int");
	if (len <= 8)
		return builtin(u ? "unsigned long" : "long");
	return builtin(u ? "unsigned __int128" : "__int128");
}

static bool is_comparison(int op)
{
	return op == '<' || op == '>' || op == ET_LE || op == ET_GE || op == ET_EQ ||
	       op == ET_NE;
}

static int compare(int op, int c)
{
	switch (op) {
	case '<': return c < 0;
	case '>': return c > 0;
	case ET_LE: return c <= 0;
	case ET_GE: return c >= 0;
	case ET_EQ: return c == 0;
	default: return c != 0;
	}
}

static int cmp_u64(uint64_t x, uint64_t y)
{
	return x < y ? -1 : x > y;
}

static int cmp_i64(int64_t x, int64_t y)
{
	return x < y ? -1 : x > y;
}

static int divide(struct ev *ev, int op, int64_t x, int64_t y, bool sgn,
		  uint64_t *r)
{
	if (y == 0)
		return fail(ev, "Division by zero");
	if (!sgn)
		*r = op == '/' ? (uint64_t)x / (uint64_t)y : (uint64_t)x % (uint64_t)y;
	else if (x == INT64_MIN && y == -1)
		*r = op == '/' ? (uint64_t)x : 0;
	else
		*r = (uint64_t)(op == '/' ? x / y : x % y);
	return 0;
}

static uint64_t shift(int op, int64_t x, int64_t count, bool sgn)
{
	if (count < 0 || count >= 64)
		return op == ET_SHR && sgn && x < 0 ? ~0ull : 0;
	if (op == ET_SHL)
		return (uint64_t)x << count;
	return sgn ? (uint64_t)(x >> count) : (uint64_t)x >> count;
}

static void warn(struct ev *ev, const char *msg)
{
	if (ev->env->warn && !ev->noside)
		ev->env->warn(ev->env->arg, msg);
}

/* gdb's check_valid_shift_count: it warns and goes on. */
static void check_shift(struct ev *ev, int op, const struct di_type *rt,
			const struct val *count)
{
	const char *dir = op == ET_SHL ? "left" : "right";
	char msg[64];
	int64_t c = val_as_int(count);
	if (val_type_is_signed(count->type) && c < 0)
		snprintf(msg, sizeof msg, "%s shift count is negative", dir);
	else if ((uint64_t)c >= 8 * val_type_size(rt))
		snprintf(msg, sizeof msg, "%s shift count >= width of type", dir);
	else
		return;
	warn(ev, msg);
}

static int int_binop(struct ev *ev, int op, const struct val *a,
		     const struct val *b, struct val *out)
{
	bool is_shift = op == ET_SHL || op == ET_SHR;
	const struct di_type *rt = is_shift ? promote1(a->type) : promote2(a->type, b->type);
	bool sgn = val_type_is_signed(rt);
	int64_t x = trunc_to(val_as_int(a), rt), y = val_as_int(b);
	uint64_t r = 0;
	if (!is_shift)
		y = trunc_to(y, rt);
	if (is_comparison(op)) {
		int c = sgn ? cmp_i64(x, y) : cmp_u64((uint64_t)x, (uint64_t)y);
		*out = val_from_int(builtin("int"), compare(op, c));
		return 0;
	}
	switch (op) {
	case '*': r = (uint64_t)x * (uint64_t)y; break;
	case '+': r = (uint64_t)x + (uint64_t)y; break;
	case '-': r = (uint64_t)x - (uint64_t)y; break;
	case '&': r = (uint64_t)(x & y); break;
	case '|': r = (uint64_t)(x | y); break;
	case '^': r = (uint64_t)(x ^ y); break;
	case ET_SHL: case ET_SHR:
		check_shift(ev, op, rt, b);
		r = shift(op, x, y, sgn);
		break;
	default:
		if (divide(ev, op, x, y, sgn, &r))
			return -1;
	}
	*out = val_from_int(rt, (int64_t)r);
	return 0;
}

static int float_binop(struct ev *ev, int op, const struct val *a,
		       const struct val *b, struct val *out)
{
	const struct di_type *rt = !val_is_float(a) ? b->type : !val_is_float(b) ? a->type
		: val_type_size(b->type) > val_type_size(a->type) ? b->type : a->type;
	long double x = as_ld(a), y = as_ld(b), r;
	if (is_comparison(op)) {
		int c = x < y ? -1 : x > y ? 1 : x == y ? 0 : 2;
		*out = val_from_int(builtin("int"), c == 2 ? op == ET_NE : compare(op, c));
		return 0;
	}
	switch (op) {
	case '*': r = x * y; break;
	case '/': r = x / y; break;
	case '+': r = x + y; break;
	case '-': r = x - y; break;
	default:
		return fail(ev, "Integer-only operation on floating point number.");
	}
	*out = from_ld(val_type_strip(rt), r);
	return 0;
}

static uint64_t target_size(const struct val *p)
{
	return val_type_size(stripped(p)->target);
}

static int ptr_minus_ptr(struct ev *ev, const struct val *a, const struct val *b,
			 struct val *out)
{
	uint64_t sa = target_size(a), sb = target_size(b);
	if (sa != sb)
		return fail(ev, "First argument of `-' is a pointer and second "
			    "argument is neither\nan integer nor a pointer of the "
			    "same type.");
	int64_t d = (int64_t)((uint64_t)val_as_int(a) - (uint64_t)val_as_int(b));
	*out = val_from_int(builtin("long"), d / (int64_t)(sa ? sa : 1));
	return 0;
}

static int not_a_number(struct ev *ev)
{
	return fail(ev, "Argument to arithmetic operation not a number or boolean.");
}

static int ptr_binop(struct ev *ev, int op, const struct val *a,
		     const struct val *b, struct val *out)
{
	bool pa = val_is_pointer(a), pb = val_is_pointer(b);
	if ((!pa && !val_is_integer(a)) || (!pb && !val_is_integer(b)))
		return not_a_number(ev);
	if (is_comparison(op)) {
		int c = cmp_u64((uint64_t)val_as_int(a), (uint64_t)val_as_int(b));
		*out = val_from_int(builtin("int"), compare(op, c));
		return 0;
	}
	if (pa && pb && op == '-')
		return ptr_minus_ptr(ev, a, b, out);
	if (pa && pb)
		return not_a_number(ev);
	if (op == '-' && pb)
		return fail(ev, "Argument to arithmetic operation not a number or boolean.");
	if (op != '+' && op != '-')
		return not_a_number(ev);
	const struct val *p = pa ? a : b, *i = pa ? b : a;
	uint64_t step = (uint64_t)val_as_int(i) * target_size(p);
	uint64_t addr = (uint64_t)val_as_int(p);
	addr = op == '+' ? addr + step : addr - step;
	*out = val_from_int(p->type, (int64_t)addr);
	return 0;
}

static const char *op_text(int op)
{
	static const struct { int op; const char *text; } names[] = {
		{ ET_SHL, "<<" }, { ET_SHR, ">>" }, { ET_LE, "<=" }, { ET_GE, ">=" },
		{ ET_EQ, "==" }, { ET_NE, "!=" },
	};
	static char one[2];
	for (size_t i = 0; i < ARRAY_LEN(names); i++)
		if (names[i].op == op)
			return names[i].text;
	one[0] = (char)op;
	return one;
}

/* a op b for the arithmetic, bitwise and comparison operators; a and b
 * may be changed (arrays decay). */
static int binop(struct ev *ev, int op, struct val *a, struct val *b,
		 struct val *out)
{
	if (unavailable(ev, a) || unavailable(ev, b) || decay(ev, a) || decay(ev, b))
		return -1;
	if (val_is_pointer(a) || val_is_pointer(b))
		return ptr_binop(ev, op, a, b, out);
	if (is_kind(a, DI_STRUCT))
		return no_operator(ev, op_text(op));
	if (is_kind(b, DI_STRUCT))
		return fail(ev, "Can't do that binary op on that type");
	if (!is_number(a) || !is_number(b))
		return not_a_number(ev);
	if (val_is_float(a) || val_is_float(b))
		return float_binop(ev, op, a, b, out);
	return int_binop(ev, op, a, b, out);
}

static int truth(struct ev *ev, struct val *v, bool *out)
{
	if (unavailable(ev, v) || decay(ev, v))
		return -1;
	if (val_is_float(v))
		*out = as_ld(v) != 0;
	else if (val_is_integer(v) || val_is_pointer(v))
		*out = val_as_int(v) != 0;
	else
		return not_a_number(ev);
	return 0;
}

static int eval_truth(struct ev *ev, const struct expr_node *n, bool *out)
{
	struct val v;
	if (eval(ev, n, &v))
		return -1;
	int rc = truth(ev, &v, out);
	val_free(&v);
	return rc;
}

static int eval_logical(struct ev *ev, const struct expr_node *n, struct val *out)
{
	bool x, y = false;
	if (eval_truth(ev, n->a, &x))
		return -1;
	if ((n->op == ET_ANDAND) == x && eval_truth(ev, n->b, &y))
		return -1;
	*out = val_from_int(builtin("int"), n->op == ET_ANDAND ? x && y : x || y);
	return 0;
}

static int eval_two(struct ev *ev, const struct expr_node *n, struct val *a,
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

static int repeat(struct ev *ev, const struct val *a, const struct val *b,
		  struct val *out)
{
	if (!val_is_integer(b))
		return not_a_number(ev);
	if (a->where != VAL_MEM)
		return fail(ev, "Only values in memory can be extended with '@'.");
	int64_t count = val_as_int(b);
	if (count <= 0 || count > INT32_MAX)
		return fail(ev, "Invalid number %lld of repetitions.", (long long)count);
	return read_at(ev, a->addr, val_array_of(a->type, (uint64_t)count), out);
}

static int eval_binary(struct ev *ev, const struct expr_node *n, struct val *out)
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
		rc = binop(ev, n->op, &a, &b, out);
	val_free(&a);
	val_free(&b);
	return rc;
}

static int eval_cond(struct ev *ev, const struct expr_node *n, struct val *out)
{
	bool c;
	if (eval_truth(ev, n->c, &c))
		return -1;
	return eval(ev, c ? n->a : n->b, out);
}

/* Unary operators. */

static int deref(struct ev *ev, struct val *v, struct val *out)
{
	if (unavailable(ev, v) || decay(ev, v))
		return -1;
	const struct di_type *t = stripped(v);
	if (val_is_integer(v))   /* gdb reads an int there */
		return read_at(ev, (uint64_t)val_as_int(v), builtin("int"), out);
	if (!t || t->kind != DI_PTR)
		return fail(ev, "Attempt to take contents of a non-pointer value.");
	const struct di_type *to = val_type_strip(t->target);
	if (!to || to->kind == DI_VOID)
		return fail(ev, "Attempt to dereference a generic pointer.");
	return read_at(ev, (uint64_t)val_as_int(v), t->target, out);
}

static int address_of(struct ev *ev, struct val *v, struct val *out)
{
	if (v->where != VAL_MEM)
		return not_in_memory(ev);
	*out = val_from_int(val_pointer_to(v->type), (int64_t)v->addr);
	return 0;
}

static int negate(struct ev *ev, int op, struct val *v, struct val *out)
{
	if (val_is_float(v)) {
		long double x = as_ld(v);
		*out = from_ld(val_type_strip(v->type), op == '-' ? -x : x);
		return 0;
	}
	if (!val_is_integer(v))
		return fail(ev, "Argument to %s operation not a number.",
			    op == '-' ? "negate" : "positive");
	const struct di_type *rt = promote1(v->type);
	int64_t x = val_as_int(v);
	*out = val_from_int(rt, op == '-' ? (int64_t)(0 - (uint64_t)x) : x);
	return 0;
}

static int complement(struct ev *ev, struct val *v, struct val *out)
{
	if (!val_is_integer(v))
		return fail(ev, "Argument to complement operation not an integer, boolean.");
	*out = val_from_int(promote1(v->type), ~val_as_int(v));
	return 0;
}

static int unop(struct ev *ev, int op, struct val *v, struct val *out)
{
	bool b;
	if (op != '&' && is_kind(v, DI_STRUCT))
		return no_operator(ev, op_text(op));
	switch (op) {
	case '*':
		return deref(ev, v, out);
	case '&':
		return address_of(ev, v, out);
	case '!':
		if (truth(ev, v, &b))
			return -1;
		*out = val_from_int(builtin("int"), !b);
		return 0;
	case '~':
		if (unavailable(ev, v))
			return -1;
		return complement(ev, v, out);
	default:
		if (unavailable(ev, v) || decay(ev, v))
			return -1;
		return negate(ev, op, v, out);
	}
}

/* &name of a variable not in memory: gdb names it and says why. */
static int no_address(struct ev *ev, const char *name, const struct val *v)
{
	static const char *const regs[] = {
		"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp", "r8", "r9",
		"r10", "r11", "r12", "r13", "r14", "r15", "rip",
	};
	if (v->where == VAL_REG && v->reg >= 0 && (size_t)v->reg < ARRAY_LEN(regs))
		return fail(ev, "Address requested for identifier \"%s\" which is in "
			    "register $%s", name, regs[v->reg]);
	return fail(ev, "Can't take address of \"%s\" which isn't an lvalue.", name);
}

static int eval_unary(struct ev *ev, const struct expr_node *n, struct val *out)
{
	struct val v;
	if (eval(ev, n->a, &v))
		return -1;
	if (n->op == '&' && n->a->kind == EN_IDENT && v.where != VAL_MEM &&
	    !is_kind(&v, DI_FUNC)) {
		no_address(ev, n->a->s, &v);
		val_free(&v);
		return -1;
	}
	int rc = unop(ev, n->op, &v, out);
	val_free(&v);
	return rc;
}

/* Subscripts and members. */

static int index_array(struct ev *ev, const struct val *a, int64_t i,
		       struct val *out)
{
	const struct di_type *t = stripped(a);
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
		return fail(ev, "no such vector element");
	return read_at(ev, a->addr + (uint64_t)i * esz, et, out);
}

static int subscript(struct ev *ev, struct val *a, struct val *b, struct val *out)
{
	if (val_is_integer(a) && (is_kind(b, DI_ARRAY) || val_is_pointer(b))) {
		struct val tmp = *a;      /* 2[arr] is arr[2] */
		*a = *b;
		*b = tmp;
	}
	if (!val_is_integer(b))
		return not_a_number(ev);
	if (unavailable(ev, b))
		return -1;
	int64_t i = val_as_int(b);
	if (is_kind(a, DI_ARRAY))
		return index_array(ev, a, i, out);
	if (unavailable(ev, a))
		return -1;
	if (!val_is_pointer(a)) {
		struct sbuf name = {0};
		val_type_name(&name, a->type);
		fail(ev, "cannot subscript something of type `%s'", name.s);
		sbuf_free(&name);
		return -1;
	}
	const struct di_type *to = val_type_strip(stripped(a)->target);
	if (!to || to->kind == DI_VOID)
		return fail(ev, "Attempt to dereference a generic pointer.");
	uint64_t addr = (uint64_t)val_as_int(a) + (uint64_t)i * target_size(a);
	return read_at(ev, addr, stripped(a)->target, out);
}

static int eval_index(struct ev *ev, const struct expr_node *n, struct val *out)
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

static int member(struct ev *ev, struct val *v, const char *name, bool arrow,
		  struct val *out);

/* p->name reads the member only, as gdb's lazy values do: p == NULL fails
 * at the member's address, not at 0. */
static int member_of_pointee(struct ev *ev, struct val *p, const char *name,
			     bool arrow, struct val *out)
{
	const struct di_type *st = val_type_strip(stripped(p)->target);
	uint64_t off, len, size = val_type_size(st);
	struct val s;
	if (unavailable(ev, p))
		return -1;
	if (st->declaration || size > MAX_VALUE_SIZE ||
	    !member_span(st, name, 0, &off, &len) || off + len > size) {
		if (deref(ev, p, &s))
			return -1;
	} else {
		uint64_t addr = (uint64_t)val_as_int(p);
		s = (struct val){ .type = stripped(p)->target, .where = VAL_MEM,
				  .addr = addr, .size = (size_t)size };
		s.bytes = xcalloc(1, (size_t)size);
		if (len && !ev->noside &&
		    (!ev->env->read_mem ||
		     ev->env->read_mem(ev->env->arg, addr + off, s.bytes + off, len) != 0)) {
			free(s.bytes);
			return fail(ev, "Cannot access memory at address 0x%llx",
				    (unsigned long long)(addr + off));
		}
	}
	int rc = member(ev, &s, name, arrow, out);
	val_free(&s);
	return rc;
}

/* gdb lets . and -> both work on structs and on pointers to them. */
static int member(struct ev *ev, struct val *v, const char *name, bool arrow,
		  struct val *out)
{
	const struct di_type *t = stripped(v);
	if (t && t->kind == DI_PTR && is_struct_type(val_type_strip(t->target)))
		return member_of_pointee(ev, v, name, arrow, out);
	if (!is_struct_type(t))
		return fail(ev, "Attempt to extract a component of a value that is "
			    "not a structure%s.", arrow ? " pointer" : "");
	if (!find_member(v, t, name, out))
		return fail(ev, "There is no member named %s.", name);
	return 0;
}

static int eval_member(struct ev *ev, const struct expr_node *n, struct val *out)
{
	struct val v;
	if (eval(ev, n->a, &v))
		return -1;
	int rc = member(ev, &v, n->s, n->kind == EN_ARROW, out);
	val_free(&v);
	return rc;
}

/* Types, casts and sizeof. */

static int resolve_type(struct ev *ev, const struct expr_tname *tn,
			const struct di_type **out)
{
	const struct di_type *t = NULL;
	if (tn->builtin)
		t = builtin(tn->name);
	else if (ev->env->lookup_type)
		t = ev->env->lookup_type(ev->env->arg, tn->name);
	if (!t && tn->tag)
		return fail(ev, "No %s type named %s.", tn->tag,
			    tn->name + strlen(tn->tag) + 1);
	if (!t)
		return fail(ev, "No symbol \"%s\" in current context.", tn->name);
	for (int i = 0; i < tn->nptr; i++)
		t = val_pointer_to(t);
	for (size_t i = tn->ndims; i-- > 0;)
		t = val_array_of(t, tn->dims[i]);
	*out = t;
	return 0;
}

static int cast_same(struct ev *ev, const struct di_type *to, struct val *v,
		     struct val *out)
{
	if (val_type_strip(to) != stripped(v))
		return fail(ev, "Invalid cast.");
	*out = val_copy(v);
	out->type = to;
	return 0;
}

static int cast(struct ev *ev, const struct di_type *to, struct val *v,
		struct val *out)
{
	const struct di_type *ts = val_type_strip(to);
	if (!ts || ts->kind == DI_VOID) {
		*out = void_value();
		out->type = to;
		return 0;
	}
	if (is_struct_type(ts) || ts->kind == DI_ARRAY || ts->kind == DI_FUNC)
		return cast_same(ev, to, v, out);
	if (unavailable(ev, v) || decay(ev, v))
		return -1;
	if (!is_number(v) && !val_is_pointer(v))
		return fail(ev, "Invalid cast.");
	if (ts->kind == DI_BASE && ts->encoding == DW_ATE_float)
		*out = from_ld(to, as_ld(v));
	else if (ts->kind == DI_BASE && ts->encoding == DW_ATE_boolean)
		*out = val_from_int(to, val_is_float(v) ? as_ld(v) != 0 : val_as_int(v) != 0);
	else
		*out = val_from_int(to, number_as_int(v));
	return 0;
}

static int eval_cast(struct ev *ev, const struct expr_node *n, struct val *out)
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
	return val_from_int(builtin("unsigned long"), (int64_t)val_type_size(t));
}

/* sizeof x where x may name a type as well (sizeof(node_t)). */
static int sizeof_name(struct ev *ev, const char *name, struct val *out)
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
		return fail(ev, "No symbol \"%s\" in current context.", name);
	*out = size_value(t);
	return 0;
}

static int eval_sizeof(struct ev *ev, const struct expr_node *n, struct val *out)
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

static int eval_ident(struct ev *ev, const char *name, struct val *out)
{
	const struct expr_env *env = ev->env;
	int rc = env->lookup_var ? env->lookup_var(env->arg, name, out, ev->err, ev->errlen) : 1;
	if (rc <= 0)
		return rc;
	if (env->lookup_type && env->lookup_type(env->arg, name))
		return fail(ev, "Attempt to use a type name as an expression");
	return fail(ev, "No symbol \"%s\" in current context.", name);
}

static int eval_scoped(struct ev *ev, const char *scope, const char *name, struct val *out)
{
	const struct expr_env *env = ev->env;
	int rc = env->lookup_scoped ?
		env->lookup_scoped(env->arg, scope, name, out, ev->err, ev->errlen) : 1;
	if (rc <= 0)
		return rc;
	return fail(ev, "No symbol \"%s\" in %s.", name, scope);
}

static int eval_history(struct ev *ev, const struct expr_node *n, struct val *out)
{
	const struct expr_env *env = ev->env;
	if (env->history && env->history(env->arg, n->hist, n->rel, out) == 0)
		return 0;
	if (!n->rel)
		return fail(ev, "History has not yet reached $%d.", n->hist);
	if (n->hist == 0)
		return fail(ev, "The history is empty.");
	return fail(ev, "History does not go back to $$%d.", -n->hist);
}

static int eval_reg(struct ev *ev, const char *name, struct val *out)
{
	const struct expr_env *env = ev->env;
	int rc = env->read_reg ? env->read_reg(env->arg, name, out) : 1;
	if (rc == 0)
		return 0;
	if (rc < 0)
		return fail(ev, "No registers.");
	*out = void_value();   /* an unset convenience variable */
	return 0;
}

/* Assignment. */

static int store(struct ev *ev, const struct val *to, const struct val *v)
{
	const struct expr_env *env = ev->env;
	if (ev->noside)
		return 0;
	if (to->where == VAL_MEM && env->write_mem) {
		if (env->write_mem(env->arg, to->addr, v->bytes, v->size) != 0)
			return fail(ev, "Cannot access memory at address 0x%llx",
				    (unsigned long long)to->addr);
		return 0;
	}
	if (to->where == VAL_REG && env->write_reg) {
		if (env->write_reg(env->arg, to->reg, v->bytes, v->size) != 0)
			return fail(ev, "Could not write register");
		return 0;
	}
	return fail(ev, "Assignment is not supported here");
}

static int assign(struct ev *ev, int op, struct val *l, struct val *r,
		  struct val *out)
{
	struct val nv;
	if (l->where == VAL_RVALUE)
		return fail(ev, "Left operand of assignment is not an lvalue.");
	if (op) {
		struct val lc = val_copy(l);
		int rc = binop(ev, op, &lc, r, &nv);
		val_free(&lc);
		if (rc)
			return -1;
		replace(r, nv);
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

static int eval_assign(struct ev *ev, const struct expr_node *n, struct val *out)
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
		*out = val_from_int(builtin(n->tname), (int64_t)n->ival);
	else if (n->kind == EN_FLOAT)
		*out = from_ld(builtin(n->tname), n->fval);
	else
		*out = val_from_bytes(val_array_of(builtin("char"), n->len + 1),
				      n->s, n->len + 1);
	return 0;
}

static int eval(struct ev *ev, const struct expr_node *n, struct val *out)
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
		return fail(ev, "Function calls are not supported");
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
	return fail(ev, "Unknown expression");
}

int expr_eval(const struct expr *e, const struct expr_env *env,
	      struct val *out, char *err, size_t errlen)
{
	struct ev ev = { .env = env, .err = err, .errlen = errlen };
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
