/* expr-arith: numbers in expressions: reading a value of a type,
 * conversions between integers and floats, C's promotions, and the binary
 * operators on integers, floats and pointers, with gdb's errors and
 * warnings. */
#include "expr-int.h"

#include <dwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool expr_is_number(const struct val *v)
{
	return val_is_integer(v) || val_is_float(v);
}

void expr_replace(struct val *v, struct val n)
{
	val_free(v);
	*v = n;
}

struct val expr_void_value(void)
{
	return val_from_bytes(expr_builtin("void"), "", 0);
}

long double expr_as_ld(const struct val *v)
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

struct val expr_from_ld(const struct di_type *t, long double x)
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

int64_t expr_number_as_int(const struct val *v)
{
	return val_is_float(v) ? ld_to_int(expr_as_ld(v)) : val_as_int(v);
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

int expr_read_at(struct expr_ev *ev, uint64_t addr, const struct di_type *t,
		 struct val *out)
{
	const struct di_type *s = val_type_strip(t);
	size_t size = s && s->kind != DI_FUNC && s->kind != DI_VOID ?
		      (size_t)val_type_size(t) : 0;
	if (size > EXPR_MAX_VALUE_SIZE)
		return expr_fail(ev, "value requires %zu bytes, which is more than "
				 "max-value-size", size);
	struct val v = { .type = t, .where = VAL_MEM, .addr = addr, .size = size };
	v.bytes = xcalloc(1, size);
	if (size && !ev->noside &&
	    (!ev->env->read_mem ||
	     ev->env->read_mem(ev->env->arg, addr, v.bytes, size) != 0)) {
		free(v.bytes);
		return expr_fail(ev, "Cannot access memory at address 0x%llx",
				 (unsigned long long)addr);
	}
	*out = v;
	return 0;
}

int expr_unavailable(struct expr_ev *ev, const struct val *v)
{
	return val_unavailable(v) ? expr_fail(ev, "value has been optimized out") : 0;
}

int expr_not_in_memory(struct expr_ev *ev)
{
	return expr_fail(ev, "Attempt to take address of value not located in memory.");
}

int expr_decay(struct expr_ev *ev, struct val *v)
{
	const struct di_type *t = expr_stripped(v);
	if (!t || (t->kind != DI_ARRAY && t->kind != DI_FUNC))
		return 0;
	if (v->where != VAL_MEM)
		return expr_not_in_memory(ev);
	const struct di_type *to = t->kind == DI_ARRAY ? val_array_elem(t) : v->type;
	expr_replace(v, val_from_int(val_pointer_to(to), (int64_t)v->addr));
	return 0;
}

const struct di_type *expr_promote1(const struct di_type *t)
{
	const struct di_type *s = val_type_strip(t);
	if (s->kind == DI_ENUM || (s->kind == DI_BASE && s->encoding == DW_ATE_boolean)
	    || val_type_size(t) < 4) {
		if (val_type_size(t) <= 4)
			return expr_builtin(val_type_size(t) == 4 && !val_type_is_signed(t)
					    ? "unsigned int" : "int");
		return expr_builtin(val_type_is_signed(t) ? "long" : "unsigned long");
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
		return expr_builtin(u ? "unsigned int" : "int");
	if (len <= 8)
		return expr_builtin(u ? "unsigned long" : "long");
	return expr_builtin(u ? "unsigned __int128" : "__int128");
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

static int divide(struct expr_ev *ev, int op, int64_t x, int64_t y, bool sgn,
		  uint64_t *r)
{
	if (y == 0 && ev->noside) {   /* gdb: a zero of the result type */
		*r = 0;
		return 0;
	}
	if (y == 0)
		return expr_fail(ev, "Division by zero");
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

static void warn(struct expr_ev *ev, const char *msg)
{
	if (ev->env->warn && !ev->noside)
		ev->env->warn(ev->env->arg, msg);
}

/* gdb's check_valid_shift_count: it warns and goes on. */
static void check_shift(struct expr_ev *ev, int op, const struct di_type *rt,
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

static int int_binop(struct expr_ev *ev, int op, const struct val *a,
		     const struct val *b, struct val *out)
{
	bool is_shift = op == ET_SHL || op == ET_SHR;
	const struct di_type *rt = is_shift ? expr_promote1(a->type) : promote2(a->type, b->type);
	bool sgn = val_type_is_signed(rt);
	int64_t x = trunc_to(val_as_int(a), rt), y = val_as_int(b);
	uint64_t r = 0;
	if (!is_shift)
		y = trunc_to(y, rt);
	if (is_comparison(op)) {
		int c = sgn ? cmp_i64(x, y) : cmp_u64((uint64_t)x, (uint64_t)y);
		*out = val_from_int(expr_builtin("int"), compare(op, c));
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

static int float_binop(struct expr_ev *ev, int op, const struct val *a,
		       const struct val *b, struct val *out)
{
	const struct di_type *rt = !val_is_float(a) ? b->type : !val_is_float(b) ? a->type
		: val_type_size(b->type) > val_type_size(a->type) ? b->type : a->type;
	long double x = expr_as_ld(a), y = expr_as_ld(b), r;
	if (is_comparison(op)) {
		int c = x < y ? -1 : x > y ? 1 : x == y ? 0 : 2;
		*out = val_from_int(expr_builtin("int"), c == 2 ? op == ET_NE : compare(op, c));
		return 0;
	}
	switch (op) {
	case '*': r = x * y; break;
	case '/': r = x / y; break;
	case '+': r = x + y; break;
	case '-': r = x - y; break;
	default:
		return expr_fail(ev, "Integer-only operation on floating point number.");
	}
	*out = expr_from_ld(val_type_strip(rt), r);
	return 0;
}

uint64_t expr_target_size(const struct val *p)
{
	return val_type_size(expr_stripped(p)->target);
}

static int ptr_minus_ptr(struct expr_ev *ev, const struct val *a, const struct val *b,
			 struct val *out)
{
	uint64_t sa = expr_target_size(a), sb = expr_target_size(b);
	if (sa != sb)
		return expr_fail(ev, "First argument of `-' is a pointer and second "
				 "argument is neither\nan integer nor a pointer of the "
				 "same type.");
	int64_t d = (int64_t)((uint64_t)val_as_int(a) - (uint64_t)val_as_int(b));
	*out = val_from_int(expr_builtin("long"), d / (int64_t)(sa ? sa : 1));
	return 0;
}

int expr_not_a_number(struct expr_ev *ev)
{
	return expr_fail(ev, "Argument to arithmetic operation not a number or boolean.");
}

static int ptr_binop(struct expr_ev *ev, int op, const struct val *a,
		     const struct val *b, struct val *out)
{
	bool pa = val_is_pointer(a), pb = val_is_pointer(b);
	if ((!pa && !val_is_integer(a)) || (!pb && !val_is_integer(b)))
		return expr_not_a_number(ev);
	if (is_comparison(op)) {
		int c = cmp_u64((uint64_t)val_as_int(a), (uint64_t)val_as_int(b));
		*out = val_from_int(expr_builtin("int"), compare(op, c));
		return 0;
	}
	if (pa && pb && op == '-')
		return ptr_minus_ptr(ev, a, b, out);
	if (pa && pb)
		return expr_not_a_number(ev);
	if (op == '-' && pb)
		return expr_fail(ev, "Argument to arithmetic operation not a number or boolean.");
	if (op != '+' && op != '-')
		return expr_not_a_number(ev);
	const struct val *p = pa ? a : b, *i = pa ? b : a;
	uint64_t step = (uint64_t)val_as_int(i) * expr_target_size(p);
	uint64_t addr = (uint64_t)val_as_int(p);
	addr = op == '+' ? addr + step : addr - step;
	*out = val_from_int(p->type, (int64_t)addr);
	return 0;
}

const char *expr_op_text(int op)
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

/* Operands that are neither numbers nor pointers (nor arrays, which
 * decay): gdb rejects them by type before it reads them. */
static int binop_types(struct expr_ev *ev, int op, const struct val *a, const struct val *b)
{
	if (val_is_pointer(a) || val_is_pointer(b) || expr_is_kind(a, DI_ARRAY) ||
	    expr_is_kind(b, DI_ARRAY) || expr_is_kind(a, DI_FUNC) || expr_is_kind(b, DI_FUNC))
		return 0;
	if (expr_is_kind(a, DI_STRUCT))
		return expr_no_operator(ev, expr_op_text(op));
	if (expr_is_kind(b, DI_STRUCT))
		return expr_fail(ev, "Can't do that binary op on that type");
	if (!expr_is_number(a) || !expr_is_number(b))
		return expr_not_a_number(ev);
	return 0;
}

int expr_binop(struct expr_ev *ev, int op, struct val *a, struct val *b,
	       struct val *out)
{
	if (binop_types(ev, op, a, b) || expr_unavailable(ev, a) || expr_unavailable(ev, b) ||
	    expr_decay(ev, a) || expr_decay(ev, b) || binop_types(ev, op, a, b))
		return -1;
	if (val_is_pointer(a) || val_is_pointer(b))
		return ptr_binop(ev, op, a, b, out);
	if (val_is_float(a) || val_is_float(b))
		return float_binop(ev, op, a, b, out);
	return int_binop(ev, op, a, b, out);
}
