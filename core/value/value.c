/* value: typed values, the types qzdb makes itself (built-in C types, and
 * pointers to and arrays of any type, interned so that equal types are the
 * same pointer), conversions between values and host numbers, and type
 * names spelled as gdb's whatis spells them. Printing is in value-print.c. */
#include "value.h"
#include "util/hmap.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#define BASE(n, sz, enc) { .kind = DI_BASE, .name = n, .size = sz, .encoding = enc }

static struct di_type builtins[] = {
	BASE("int", 4, DW_ATE_signed),
	BASE("unsigned int", 4, DW_ATE_unsigned),
	BASE("long", 8, DW_ATE_signed),
	BASE("unsigned long", 8, DW_ATE_unsigned),
	BASE("long long", 8, DW_ATE_signed),
	BASE("unsigned long long", 8, DW_ATE_unsigned),
	BASE("char", 1, DW_ATE_signed_char),
	BASE("signed char", 1, DW_ATE_signed_char),
	BASE("unsigned char", 1, DW_ATE_unsigned_char),
	BASE("short", 2, DW_ATE_signed),
	BASE("unsigned short", 2, DW_ATE_unsigned),
	BASE("_Bool", 1, DW_ATE_boolean),
	BASE("float", 4, DW_ATE_float),
	BASE("double", 8, DW_ATE_float),
	BASE("long double", 16, DW_ATE_float),
	BASE("__int128", 16, DW_ATE_signed),
	BASE("unsigned __int128", 16, DW_ATE_unsigned),
	{ .kind = DI_VOID, .name = "void" },
	/* gdb's types of a function known only from a symbol table */
	{ .kind = DI_FUNC, .name = "<text variable, no debug info>" },
	{ .kind = DI_FUNC, .name = "<text gnu-indirect-function variable, no debug info>" },
};

/* What $pc points to: gdb calls it void (), unprototyped, which the type
 * namer tells from (void) by varargs without parameters. */
static struct di_type code_func = { .kind = DI_FUNC, .varargs = true };

/* DWARF spells base types the way GCC declares them; gdb shows the short
 * forms. */
static const char *const base_aliases[][2] = {
	{ "long int", "long" },
	{ "long unsigned int", "unsigned long" },
	{ "unsigned long int", "unsigned long" },
	{ "short int", "short" },
	{ "short unsigned int", "unsigned short" },
	{ "unsigned short int", "unsigned short" },
	{ "long long int", "long long" },
	{ "long long unsigned int", "unsigned long long" },
	{ "unsigned long long int", "unsigned long long" },
	{ "unsigned", "unsigned int" },
	{ "signed", "int" },
	{ "signed int", "int" },
	{ "__int128 unsigned", "unsigned __int128" },
	{ "bool", "_Bool" },
};

static const char *base_name(const char *name)
{
	for (size_t i = 0; i < ARRAY_LEN(base_aliases); i++)
		if (strcmp(name, base_aliases[i][0]) == 0)
			return base_aliases[i][1];
	return name;
}

const struct di_type *val_builtin(const char *name)
{
	if (strcmp(name, "void *") == 0)
		return val_pointer_to(val_builtin("void"));
	if (strcmp(name, "char *") == 0)
		return val_pointer_to(val_builtin("char"));
	if (strcmp(name, "code *") == 0)
		return val_pointer_to(&code_func);
	name = base_name(name);
	for (size_t i = 0; i < ARRAY_LEN(builtins); i++)
		if (strcmp(builtins[i].name, name) == 0)
			return &builtins[i];
	return NULL;
}

/* Made types live as long as the program: values only borrow types. */
struct made_type {
	struct di_type type;
	uint64_t *dims;
	struct made_type *next;
};

/* by made_hash; types whose hashes are equal chain through next */
static struct hmap made;

static uint64_t made_hash(enum di_kind kind, const struct di_type *target,
			const uint64_t *dims, size_t ndims)
{
	uint64_t h = hmap_hash_u64((uintptr_t)target + kind);
	for (size_t i = 0; i < ndims; i++)
		h = hmap_hash_u64(h + dims[i]);
	return h;
}

static bool made_equal(const struct made_type *m, enum di_kind kind,
		       const struct di_type *target, const uint64_t *dims,
		       size_t ndims)
{
	return m->type.kind == kind && m->type.target == target &&
	       m->type.ndims == ndims &&
	       (ndims == 0 || memcmp(m->dims, dims, ndims * sizeof(*dims)) == 0);
}

static uint64_t array_size(const struct di_type *target, const uint64_t *dims,
			   size_t ndims)
{
	uint64_t n = val_type_size(target);
	for (size_t i = 0; i < ndims; i++)
		n *= dims[i];
	return n;
}

static const struct di_type *make_type(enum di_kind kind,
				       const struct di_type *target,
				       const uint64_t *dims, size_t ndims)
{
	uint64_t h = made_hash(kind, target, dims, ndims);
	for (struct made_type *m = hmap_get(&made, h); m; m = m->next)
		if (made_equal(m, kind, target, dims, ndims))
			return &m->type;
	struct made_type *m = xcalloc(1, sizeof(*m));
	m->type.kind = kind;
	m->type.target = target;
	if (ndims) {
		m->dims = xmalloc(ndims * sizeof(*dims));
		memcpy(m->dims, dims, ndims * sizeof(*dims));
	}
	m->type.dims = m->dims;
	m->type.ndims = ndims;
	m->type.size = kind == DI_PTR ? 8 : array_size(target, dims, ndims);
	m->next = hmap_get(&made, h);
	hmap_put(&made, h, m);
	return &m->type;
}

const struct di_type *val_pointer_to(const struct di_type *t)
{
	return make_type(DI_PTR, t, NULL, 0);
}

const struct di_type *val_qualified(const struct di_type *t, bool is_const,
				    bool is_volatile)
{
	if (is_volatile)
		t = make_type(DI_VOLATILE, t, NULL, 0);
	if (is_const)
		t = make_type(DI_CONST, t, NULL, 0);
	return t;
}

const struct di_type *val_array_of(const struct di_type *elem, uint64_t n)
{
	return make_type(DI_ARRAY, elem, &n, 1);
}

const struct di_type *val_type_strip(const struct di_type *t)
{
	while (t && (t->kind == DI_TYPEDEF || t->kind == DI_CONST ||
		     t->kind == DI_VOLATILE))
		t = t->target;
	return t;
}

const struct di_type *val_array_elem(const struct di_type *arr)
{
	arr = val_type_strip(arr);
	if (arr->ndims <= 1)
		return arr->target;
	return make_type(DI_ARRAY, arr->target, arr->dims + 1, arr->ndims - 1);
}

uint64_t val_array_len(const struct di_type *arr)
{
	arr = val_type_strip(arr);
	if (arr->ndims)
		return arr->dims[0];
	uint64_t esz = val_type_size(arr->target);
	return esz ? arr->size / esz : 0;
}

uint64_t val_type_size(const struct di_type *t)
{
	t = val_type_strip(t);
	if (!t || t->kind == DI_VOID || t->kind == DI_FUNC)
		return 1;
	if (t->kind == DI_PTR)
		return t->size ? t->size : 8;
	if (t->kind == DI_ARRAY && !t->size && t->ndims)
		return array_size(t->target, t->dims, t->ndims);
	return t->size;
}

static bool enum_is_signed(const struct di_type *t)
{
	if (t->target && val_type_strip(t->target)->kind == DI_BASE)
		return val_type_is_signed(t->target);
	for (size_t i = 0; i < t->nenums; i++)
		if (t->enums[i].value < 0)
			return true;
	return false;
}

bool val_type_is_signed(const struct di_type *t)
{
	t = val_type_strip(t);
	if (!t)
		return false;
	if (t->kind == DI_ENUM)
		return enum_is_signed(t);
	if (t->kind != DI_BASE)
		return false;
	return t->encoding == DW_ATE_signed || t->encoding == DW_ATE_signed_char ||
	       t->encoding == DW_ATE_float;
}

bool val_type_is_char(const struct di_type *t)
{
	t = val_type_strip(t);
	return t && t->kind == DI_BASE && t->size == 1 &&
	       (t->encoding == DW_ATE_signed_char ||
		t->encoding == DW_ATE_unsigned_char);
}

/* Values. */

void val_free(struct val *v)
{
	free(v->bytes);
	free(v->unavail);
	v->bytes = NULL;
	v->unavail = NULL;
	v->size = 0;
}

struct val val_copy(const struct val *v)
{
	struct val r = *v;
	r.bytes = xmalloc(v->size);
	if (v->size)
		memcpy(r.bytes, v->bytes, v->size);
	if (v->unavail) {
		r.unavail = xmalloc(v->size);
		memcpy(r.unavail, v->unavail, v->size);
	}
	return r;
}

static size_t value_size(const struct di_type *t);

static bool bit_unavail(const struct val *v, uint64_t i)
{
	return v->unavail && i / 8 < v->size && (v->unavail[i / 8] >> (i % 8)) & 1;
}

/* How many of bits [from, from + n) of v are optimized out. */
static uint64_t count_unavail(const struct val *v, uint64_t from, uint64_t n)
{
	uint64_t k = 0;
	for (uint64_t i = 0; v->unavail && i < n; i++)
		k += bit_unavail(v, from + i);
	return k;
}

bool val_unavailable(const struct val *v)
{
	return v->optimized_out || count_unavail(v, 0, 8 * (uint64_t)v->size) > 0;
}

bool val_entirely_unavailable(const struct val *v)
{
	return v->optimized_out ||
	       (v->size && count_unavail(v, 0, 8 * (uint64_t)v->size) == 8 * (uint64_t)v->size);
}

/* r takes the mask of v's bytes from byte offset on (r->size bytes). */
static void slice_unavail(struct val *r, const struct val *v, uint64_t offset)
{
	if (!v->unavail || !count_unavail(v, 8 * offset, 8 * (uint64_t)r->size))
		return;
	r->unavail = xcalloc(1, r->size);
	for (size_t i = 0; i < r->size; i++)
		r->unavail[i] = offset + i < v->size ? v->unavail[offset + i] : 0xff;
}

int val_from_var(const struct di_var *v, const struct di_ctx *ctx,
		 struct val *out, char *err, size_t errlen)
{
	size_t size = value_size(v->type);
	struct di_loc loc;
	if (di_locate(v, ctx, &loc, err, errlen) < 0)
		return -1;
	struct val r = { .type = v->type, .where = VAL_RVALUE, .size = size };
	r.bytes = xcalloc(1, size ? size : 1);
	r.unavail = xcalloc(1, size ? size : 1);
	int rc = di_read_var_bits(v, ctx, r.bytes, r.unavail, size, err, errlen);
	if (rc < 0) {
		val_free(&r);
		return -1;
	}
	r.optimized_out = rc == 1;
	r.synthetic = rc == 1 && di_var_synthetic(v, ctx->pc - ctx->bias);
	if (rc == 1 || !count_unavail(&r, 0, 8 * (uint64_t)size)) {
		free(r.unavail);
		r.unavail = NULL;
	}
	if (loc.kind == DI_LOC_MEM) {
		r.where = VAL_MEM;
		r.addr = loc.addr;
	} else if (loc.kind == DI_LOC_REG) {
		r.where = VAL_REG;
		r.reg = loc.reg;
	}
	*out = r;
	return 0;
}

/* The size a value of t carries: what sizeof says, except that void and
 * functions carry nothing. */
static size_t value_size(const struct di_type *t)
{
	const struct di_type *s = val_type_strip(t);
	if (!s || s->kind == DI_VOID || s->kind == DI_FUNC)
		return 0;
	return (size_t)val_type_size(t);
}

static struct val val_new(const struct di_type *t)
{
	struct val r = { .type = t, .where = VAL_RVALUE };
	r.size = value_size(t);
	r.bytes = xcalloc(1, r.size);
	return r;
}

static void store_le(uint8_t *b, size_t n, uint64_t x, bool sign)
{
	for (size_t i = 0; i < n; i++) {
		b[i] = i < 8 ? (uint8_t)(x >> (8 * i)) : (sign ? 0xff : 0);
	}
}

static bool is_float_type(const struct di_type *t)
{
	t = val_type_strip(t);
	return t && t->kind == DI_BASE && t->encoding == DW_ATE_float;
}

static void store_float(uint8_t *b, size_t n, long double x)
{
	if (n == 4) {
		float f = (float)x;
		memcpy(b, &f, 4);
	} else if (n == 8) {
		double d = (double)x;
		memcpy(b, &d, 8);
	} else {
		memcpy(b, &x, n < sizeof(x) ? n : sizeof(x));
	}
}

/* As C converts, but defined for values no integer holds (as x86 does). */
static int64_t float_to_int(long double x)
{
	if (x != x || x <= -9223372036854775808.0L || x >= 18446744073709551616.0L)
		return INT64_MIN;
	if (x >= 9223372036854775808.0L)
		return (int64_t)(uint64_t)x;
	return (int64_t)x;
}

struct val val_from_int(const struct di_type *t, int64_t x)
{
	struct val r = val_new(t);
	if (is_float_type(t)) {
		long double d = val_type_is_signed(t) ? (long double)x
						      : (long double)(uint64_t)x;
		store_float(r.bytes, r.size, d);
	} else {
		store_le(r.bytes, r.size, (uint64_t)x, x < 0);
	}
	return r;
}

struct val val_from_double(const struct di_type *t, double x)
{
	if (!is_float_type(t))
		return val_from_int(t, float_to_int(x));
	struct val r = val_new(t);
	store_float(r.bytes, r.size, x);
	return r;
}

struct val val_from_bytes(const struct di_type *t, const void *bytes, size_t size)
{
	struct val r = { .type = t, .where = VAL_RVALUE, .size = size };
	r.bytes = xmalloc(size);
	if (size)
		memcpy(r.bytes, bytes, size);
	return r;
}

bool val_is_integer(const struct val *v)
{
	const struct di_type *t = val_type_strip(v->type);
	return t && (t->kind == DI_ENUM ||
		     (t->kind == DI_BASE && t->encoding != DW_ATE_float &&
		      t->encoding != DW_ATE_complex_float));
}

bool val_is_float(const struct val *v)
{
	return is_float_type(v->type);
}

bool val_is_pointer(const struct val *v)
{
	const struct di_type *t = val_type_strip(v->type);
	return t && t->kind == DI_PTR;
}

static uint64_t load_le(const uint8_t *b, size_t n)
{
	uint64_t x = 0;
	for (size_t i = 0; i < n && i < 8; i++)
		x |= (uint64_t)b[i] << (8 * i);
	return x;
}

static long double load_float(const uint8_t *b, size_t n)
{
	if (n == 4) {
		float f;
		memcpy(&f, b, 4);
		return f;
	}
	if (n == 8) {
		double d;
		memcpy(&d, b, 8);
		return d;
	}
	long double x = 0;
	memcpy(&x, b, n < sizeof(x) ? n : sizeof(x));
	return x;
}

int64_t val_as_int(const struct val *v)
{
	const struct di_type *t = val_type_strip(v->type);
	if (!t || t->kind == DI_ARRAY || t->kind == DI_FUNC)
		return (int64_t)v->addr;
	if (is_float_type(t))
		return float_to_int(load_float(v->bytes, v->size));
	size_t n = v->size < 8 ? v->size : 8;
	uint64_t x = load_le(v->bytes, n);
	if (n && n < 8 && val_type_is_signed(t) && (x >> (8 * n - 1)) & 1)
		x |= ~0ull << (8 * n);
	return (int64_t)x;
}

double val_as_double(const struct val *v)
{
	if (val_is_float(v))
		return (double)load_float(v->bytes, v->size);
	int64_t x = val_as_int(v);
	if (val_type_is_signed(v->type))
		return (double)x;
	return (double)(uint64_t)x;
}

static uint64_t extract_bits(const struct val *v, uint64_t start, int nbits)
{
	uint64_t x = 0;
	for (int i = 0; i < nbits && i < 64; i++) {
		uint64_t bit = start + (uint64_t)i;
		if (bit / 8 < v->size && (v->bytes[bit / 8] >> (bit % 8)) & 1)
			x |= 1ull << i;
	}
	return x;
}

static struct val member_bits(const struct val *v, const struct di_member *m)
{
	struct val r = val_new(m->type);
	uint64_t x = extract_bits(v, m->offset * 8 + (uint64_t)m->bit_offset,
				  m->bit_size);
	bool neg = false;
	if (m->bit_size < 64 && val_type_is_signed(m->type) &&
	    (x >> (m->bit_size - 1)) & 1) {
		x |= ~0ull << m->bit_size;
		neg = true;
	}
	store_le(r.bytes, r.size, x, neg);
	r.optimized_out = v->optimized_out ||
		count_unavail(v, m->offset * 8 + (uint64_t)m->bit_offset, (uint64_t)m->bit_size);
	return r;
}

struct val val_member(const struct val *v, const struct di_member *m)
{
	if (m->bit_size > 0)
		return member_bits(v, m);
	struct val r = val_new(m->type);
	if (m->offset < v->size) {
		size_t n = v->size - (size_t)m->offset;
		memcpy(r.bytes, v->bytes + m->offset, n < r.size ? n : r.size);
	}
	if (v->where == VAL_MEM) {
		r.where = VAL_MEM;
		r.addr = v->addr + m->offset;
	}
	r.optimized_out = v->optimized_out;
	slice_unavail(&r, v, m->offset);
	return r;
}

/* Type names. gdb's C type printer writes the base type (with its
 * qualifiers), then a declarator built from the outside in: a prefix of
 * stars and opening parentheses and a suffix of closing parentheses,
 * dimensions and parameter lists. */

enum { Q_CONST = 1, Q_VOLATILE = 2 };

static const struct di_type *skip_cv(const struct di_type *t, unsigned *q)
{
	while (t && (t->kind == DI_CONST || t->kind == DI_VOLATILE)) {
		*q |= t->kind == DI_CONST ? Q_CONST : Q_VOLATILE;
		t = t->target;
	}
	return t;
}

/* (A function type with a name is one of gdb's "<text variable, no debug
 * info>": its name is all there is to say.) */
static bool is_declarator(const struct di_type *t)
{
	return t && (t->kind == DI_PTR || t->kind == DI_ARRAY ||
		     (t->kind == DI_FUNC && !t->name));
}

static void name_tagged(struct sbuf *out, const char *tag, const char *name)
{
	sbuf_printf(out, "%s %s", tag, name ? name : "{...}");
}

static void name_base(struct sbuf *out, const struct di_type *t)
{
	unsigned q = 0;
	t = skip_cv(t, &q);
	while (is_declarator(t)) {
		if (t->kind != DI_ARRAY)   /* qualified arrays have qualified elements */
			q = 0;
		t = skip_cv(t->target, &q);
	}
	if (q & Q_CONST)
		sbuf_add(out, "const ");
	if (q & Q_VOLATILE)
		sbuf_add(out, "volatile ");
	if (!t || t->kind == DI_VOID)
		sbuf_add(out, "void");
	else if (t->kind == DI_STRUCT)
		name_tagged(out, "struct", t->name);
	else if (t->kind == DI_UNION)
		name_tagged(out, "union", t->name);
	else if (t->kind == DI_ENUM)
		name_tagged(out, "enum", t->name);
	else if (t->kind == DI_BASE && t->name)
		sbuf_add(out, base_name(t->name));
	else
		sbuf_add(out, t->name ? t->name : "?");
}

static void decl_prefix(struct sbuf *out, const struct di_type *t,
			bool after_ptr, bool post_space)
{
	unsigned q = 0;
	t = skip_cv(t, &q);
	if (!is_declarator(t))
		return;
	if (t->kind == DI_PTR) {
		decl_prefix(out, t->target, true, true);
		sbuf_addc(out, '*');
		if (q & Q_CONST)
			sbuf_add(out, " const");
		if (q & Q_VOLATILE)
			sbuf_add(out, " volatile");
		if (q && post_space)
			sbuf_addc(out, ' ');
		return;
	}
	decl_prefix(out, t->target, false, t->kind == DI_ARRAY && post_space);
	if (after_ptr)
		sbuf_addc(out, '(');
}

static void decl_params(struct sbuf *out, const struct di_type *f)
{
	sbuf_addc(out, '(');
	for (size_t i = 0; i < f->nparams; i++) {
		if (i)
			sbuf_add(out, ", ");
		val_type_name(out, f->params[i]);
	}
	if (f->varargs && f->nparams)
		sbuf_add(out, ", ...");
	else if (!f->varargs && !f->nparams)
		sbuf_add(out, "void");
	sbuf_addc(out, ')');
}

static void decl_suffix(struct sbuf *out, const struct di_type *t, bool after_ptr)
{
	unsigned q = 0;
	t = skip_cv(t, &q);
	if (!is_declarator(t))
		return;
	if (t->kind == DI_PTR) {
		decl_suffix(out, t->target, true);
		return;
	}
	if (after_ptr)
		sbuf_addc(out, ')');
	if (t->kind == DI_FUNC) {
		decl_params(out, t);
	} else if (!t->ndims) {
		sbuf_add(out, "[]");
	} else {
		for (size_t i = 0; i < t->ndims; i++) {
			if (t->dims[i])
				sbuf_printf(out, "[%llu]", (unsigned long long)t->dims[i]);
			else
				sbuf_add(out, "[]");
		}
	}
	decl_suffix(out, t->target, false);
}

void val_type_name(struct sbuf *out, const struct di_type *t)
{
	unsigned q = 0;
	name_base(out, t);
	if (!is_declarator(skip_cv(t, &q)))
		return;
	sbuf_addc(out, ' ');
	decl_prefix(out, t, false, false);
	decl_suffix(out, t, false);
}
