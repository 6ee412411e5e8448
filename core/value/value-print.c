/* value-print: val_print, gdb 13's print output for every kind of value:
 * integers, characters and strings with gdb's escapes and repeat runs,
 * floats with the digits gdb shows, enums and flag enums, pointers with
 * their symbols and the strings behind char pointers, aggregates with the
 * element limit, and the /x /d /u /o /t /z /c /a /s /f formats. */
#include "value.h"

#include <dwarf.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* gdb prints a run of more than this many equal elements once, with
 * "<repeats N times>". */
#define REPEAT_THRESHOLD 10

struct pr {
	struct sbuf *out;
	const struct val_print *p;
	char fmt;
	unsigned max;          /* element limit; UINT_MAX for none */
};

static void pr_any(struct pr *c, const struct val *v);

static uint64_t raw_u64(const struct val *v)
{
	uint64_t x = 0;
	for (size_t i = 0; i < v->size && i < 8; i++)
		x |= (uint64_t)v->bytes[i] << (8 * i);
	return x;
}

static bool is_base(const struct di_type *t, int enc)
{
	return t->kind == DI_BASE && t->encoding == enc;
}

/* Characters. */

static void pr_char(struct sbuf *out, int64_t x, bool is_signed)
{
	if (is_signed)
		sbuf_printf(out, "%lld '", (long long)(int8_t)x);
	else
		sbuf_printf(out, "%u '", (unsigned)(uint8_t)x);
	str_esc_char(out, (unsigned char)x, '\'');
	sbuf_addc(out, '\'');
}

/* Strings, as gdb's generic_printstr: runs longer than the threshold
 * become '<c>' <repeats N times>, the rest are quoted segments; a final
 * NUL is not shown; after max characters (whole runs count) "..." follows. */
static void pr_str(struct pr *c, const uint8_t *s, size_t len, bool force)
{
	enum { START, SINGLE, REPEAT } state = START;
	if (!force && len > 0 && s[len - 1] == 0)
		len--;
	if (len == 0) {
		sbuf_add(c->out, "\"\"");
		return;
	}
	size_t i = 0, shown = 0;
	while (i < len && shown < c->max) {
		size_t run = 1;
		while (i + run < len && s[i + run] == s[i])
			run++;
		if (run > REPEAT_THRESHOLD) {
			if (state == SINGLE)
				sbuf_addc(c->out, '"');
			if (state != START)
				sbuf_add(c->out, ", ");
			sbuf_addc(c->out, '\'');
			str_esc_char(c->out, s[i], '"');
			sbuf_printf(c->out, "' <repeats %zu times>", run);
			state = REPEAT;
		} else {
			if (state != SINGLE) {
				if (state != START)
					sbuf_add(c->out, ", ");
				sbuf_addc(c->out, '"');
			}
			for (size_t k = 0; k < run; k++)
				str_esc_char(c->out, s[i], '"');
			state = SINGLE;
		}
		i += run;
		shown += run;
	}
	if (state == SINGLE)
		sbuf_addc(c->out, '"');
	if (force || i < len)
		sbuf_add(c->out, "...");
}

static int read_byte(struct pr *c, uint64_t addr, uint8_t *b)
{
	return c->p->read_mem(c->p->arg, addr, b, 1);
}

/* Read a chunk of a string; on a failure, byte by byte up to the NUL or
 * to where memory stops. Returns the bytes read, *bad set if memory
 * stopped first. */
static size_t read_chunk(struct pr *c, uint64_t addr, uint8_t *buf, size_t want,
			 bool *bad)
{
	if (c->p->read_mem(c->p->arg, addr, buf, want) == 0)
		return want;
	for (size_t i = 0; i < want; i++) {
		if (read_byte(c, addr + i, buf + i) != 0) {
			*bad = true;
			return i;
		}
		if (!buf[i])
			return i + 1;
	}
	return want;
}

/* The string behind a char pointer, as gdb's val_print_string: up to max
 * characters; "..." if it goes on; the memory error where reading stopped. */
static void pr_string_at(struct pr *c, uint64_t addr)
{
	size_t limit = c->max == UINT_MAX ? (size_t)1 << 20 : c->max;
	uint8_t *buf = xmalloc(limit + 1);
	size_t n = 0;
	bool bad = false, nul = false;
	while (n < limit && !bad && !nul) {
		size_t want = 64 - (size_t)((addr + n) % 64);
		if (want > limit - n)
			want = limit - n;
		size_t got = read_chunk(c, addr + n, buf + n, want, &bad);
		uint8_t *z = memchr(buf + n, 0, got);
		nul = z != NULL;
		n = z ? (size_t)(z - buf) + 1 : n + got;
	}
	bool force = false;
	uint8_t peek;
	if (!nul && !bad && read_byte(c, addr + n, &peek) == 0 && peek != 0)
		force = true;
	if (!bad || n > 0)
		pr_str(c, buf, n, force);
	if (bad)
		sbuf_printf(c->out, "<error: Cannot access memory at address 0x%llx>",
			    (unsigned long long)(addr + n));
	free(buf);
}

/* Numbers. */

static void pr_symbol(struct pr *c, uint64_t addr)
{
	char buf[256];
	if (!c->p->symbolize)
		return;
	const char *s = c->p->symbolize(c->p->arg, addr, buf, sizeof(buf));
	if (s)
		sbuf_printf(c->out, " <%s>", s);
}

static void pr_address(struct pr *c, uint64_t addr)
{
	sbuf_printf(c->out, "0x%llx", (unsigned long long)addr);
	pr_symbol(c, addr);
}

typedef unsigned __int128 u128;

static u128 raw_u128(const struct val *v, size_t n)
{
	u128 x = 0;
	for (size_t i = 0; i < n && i < 16; i++)
		x |= (u128)v->bytes[i] << (8 * i);
	return x;
}

static void pr_u128(struct sbuf *out, u128 x, unsigned base)
{
	char buf[130];
	size_t i = sizeof(buf);
	buf[--i] = 0;
	do {
		buf[--i] = "0123456789abcdef"[x % base];
		x /= base;
	} while (x);
	sbuf_add(out, buf + i);
}

/* The value's bytes as an integer of their size, signed or not, as gdb's
 * print_decimal_chars. */
static void pr_decimal(struct sbuf *out, const struct val *v, size_t n,
		       bool is_signed)
{
	u128 x = raw_u128(v, n);
	if (is_signed && n && n < 16 && (x >> (8 * n - 1)) & 1)
		x |= ~(u128)0 << (8 * n);
	if (is_signed && (x >> 127) & 1) {
		sbuf_addc(out, '-');
		x = -x;
	}
	pr_u128(out, x, 10);
}

static void pr_hex(struct sbuf *out, const struct val *v, size_t n, bool zeros)
{
	sbuf_add(out, "0x");
	if (!zeros) {
		pr_u128(out, raw_u128(v, n), 16);
		return;
	}
	for (size_t i = n; i-- > 0;)
		sbuf_printf(out, "%02x", i < v->size ? v->bytes[i] : 0);
}

static void pr_float_bits(struct sbuf *out, const uint8_t *b, size_t n)
{
	long double x;
	int digits, mant_bits;
	if (n == 4) {
		float f;
		memcpy(&f, b, 4);
		x = f, digits = 9, mant_bits = 23;
	} else if (n == 8) {
		double d;
		memcpy(&d, b, 8);
		x = d, digits = 17, mant_bits = 52;
	} else {
		x = 0;
		memcpy(&x, b, n < sizeof(x) ? n : sizeof(x));
		digits = 21, mant_bits = 64;
	}
	if (isnan(x)) {
		uint64_t bits = 0;
		memcpy(&bits, b, n < 8 ? n : 8);
		if (mant_bits < 64)
			bits &= (1ull << mant_bits) - 1;
		sbuf_printf(out, "%snan(0x%llx)", signbit(x) ? "-" : "",
			    (unsigned long long)bits);
	} else if (isinf(x)) {
		sbuf_add(out, signbit(x) ? "-inf" : "inf");
	} else {
		sbuf_printf(out, "%.*Lg", digits, x);
	}
}

static bool flag_enum(const struct di_type *t)
{
	if (!t->nenums)
		return false;
	for (size_t i = 0; i < t->nenums; i++) {
		int64_t e = t->enums[i].value;
		if (e < 0 || (e & (e - 1)) != 0)
			return false;
	}
	return true;
}

/* A flag enum's value as (A | B | unknown: 0x8), as gdb does. */
static void pr_flags(struct sbuf *out, const struct di_type *t, uint64_t x)
{
	bool first = true;
	for (size_t i = 0; i < t->nenums; i++) {
		uint64_t e = (uint64_t)t->enums[i].value;
		if (!(x & e))
			continue;
		sbuf_add(out, first ? "(" : " | ");
		sbuf_add(out, t->enums[i].name);
		x &= ~e;
		first = false;
	}
	if (x)
		sbuf_printf(out, "%sunknown: 0x%llx)", first ? "(" : " | ",
			    (unsigned long long)x);
	else
		sbuf_add(out, first ? "0" : ")");
}

static void pr_enum(struct pr *c, const struct val *v, const struct di_type *t)
{
	int64_t x = val_as_int(v);
	for (size_t i = 0; i < t->nenums; i++) {
		if (t->enums[i].value == x) {
			sbuf_add(c->out, t->enums[i].name);
			return;
		}
	}
	if (flag_enum(t))
		pr_flags(c->out, t, (uint64_t)x);
	else
		pr_decimal(c->out, v, v->size, val_type_is_signed(t));
}

static void pr_base(struct pr *c, const struct val *v, const struct di_type *t)
{
	if (is_base(t, DW_ATE_float)) {
		pr_float_bits(c->out, v->bytes, v->size);
	} else if (is_base(t, DW_ATE_boolean)) {
		int64_t x = val_as_int(v);
		if (x == 0 || x == 1)
			sbuf_add(c->out, x ? "true" : "false");
		else
			pr_decimal(c->out, v, v->size, false);
	} else if (val_type_is_char(t)) {
		pr_char(c->out, val_as_int(v), val_type_is_signed(t));
	} else if (is_base(t, DW_ATE_complex_float) && v->size >= 2) {
		pr_float_bits(c->out, v->bytes, v->size / 2);
		sbuf_add(c->out, " + ");
		pr_float_bits(c->out, v->bytes + v->size / 2, v->size / 2);
		sbuf_addc(c->out, 'i');
	} else {
		pr_decimal(c->out, v, v->size, val_type_is_signed(t));
	}
}

static void pr_pointer(struct pr *c, const struct val *v, const struct di_type *t)
{
	uint64_t addr = raw_u64(v);
	pr_address(c, addr);
	if (val_type_is_char(t->target) && addr && c->p->read_mem) {
		sbuf_addc(c->out, ' ');
		pr_string_at(c, addr);
	}
}

/* /f: integers of a float's size are read as that float. */
static void pr_as_float(struct pr *c, const struct val *v, const struct di_type *t)
{
	if (is_base(t, DW_ATE_float) ||
	    (t->kind != DI_PTR && (v->size == 4 || v->size == 8 || v->size == 16)))
		pr_float_bits(c->out, v->bytes, v->size);
	else
		pr_decimal(c->out, v, v->size, val_type_is_signed(t));
}

/* A scalar in an explicit format: gdb formats the raw bytes (floats too),
 * except /c and /a which convert the value. */
static void pr_formatted(struct pr *c, const struct val *v, const struct di_type *t)
{
	size_t n = v->size;
	switch (c->fmt) {
	case 'x':
	case 'z':
		pr_hex(c->out, v, n, c->fmt == 'z');
		break;
	case 'o': {
		u128 x = raw_u128(v, n);
		if (x)
			sbuf_addc(c->out, '0');
		pr_u128(c->out, x, 8);
		break;
	}
	case 't':
		pr_u128(c->out, raw_u128(v, n), 2);
		break;
	case 'd':
	case 'u':
		pr_decimal(c->out, v, n, c->fmt == 'd');
		break;
	case 'c':
		pr_char(c->out, val_as_int(v), val_type_is_signed(t));
		break;
	case 'a':
		pr_address(c, (uint64_t)val_as_int(v));
		break;
	case 'f':
		pr_as_float(c, v, t);
		break;
	default:
		pr_base(c, v, t);
	}
}

static void pr_scalar(struct pr *c, const struct val *v, const struct di_type *t)
{
	if (c->fmt && c->fmt != 's') {
		pr_formatted(c, v, t);
		return;
	}
	if (t->kind == DI_PTR)
		pr_pointer(c, v, t);
	else if (t->kind == DI_ENUM)
		pr_enum(c, v, t);
	else
		pr_base(c, v, t);
}

/* Aggregates. */

static struct val element(const struct val *v, const struct di_type *et,
			  uint64_t esz, uint64_t i)
{
	struct val e = *v;
	e.type = et;
	e.bytes = v->bytes + i * esz;
	e.unavail = v->unavail ? v->unavail + i * esz : NULL;
	e.size = (size_t)esz;
	e.addr = v->addr + i * esz;
	return e;
}

/* Elements i and j hold the same bytes, optimized out in the same bits. */
static bool same_element(const struct val *v, uint64_t esz, uint64_t i, uint64_t j)
{
	return !memcmp(v->bytes + i * esz, v->bytes + j * esz, esz) &&
	       (!v->unavail || !memcmp(v->unavail + i * esz, v->unavail + j * esz, esz));
}

static void pr_elements(struct pr *c, const struct val *v,
			const struct di_type *et, uint64_t esz, uint64_t n)
{
	unsigned things = 0;
	uint64_t i;
	sbuf_addc(c->out, '{');
	for (i = 0; i < n && things < c->max; i++) {
		if (i)
			sbuf_add(c->out, ", ");
		uint64_t reps = 1;
		while (i + reps < n && same_element(v, esz, i, i + reps))
			reps++;
		struct val e = element(v, et, esz, i);
		pr_any(c, &e);
		if (reps > REPEAT_THRESHOLD) {
			sbuf_printf(c->out, " <repeats %llu times>",
				    (unsigned long long)reps);
			i += reps - 1;
			things += REPEAT_THRESHOLD;
		} else {
			things++;
		}
	}
	if (i < n)
		sbuf_add(c->out, "...");
	sbuf_addc(c->out, '}');
}

static void pr_array(struct pr *c, const struct val *v, const struct di_type *t)
{
	const struct di_type *et = val_array_elem(t);
	uint64_t esz = val_type_size(et);
	uint64_t n = val_array_len(t);
	if (esz && n > v->size / esz)
		n = v->size / esz;
	bool text = (c->fmt == 0 || c->fmt == 's') && val_type_is_char(et) &&
		    !val_unavailable(v);   /* else element by element, as gdb */
	if (!n || !esz) {
		/* Unknown length (a flexible array member): gdb shows it as a
		 * pointer to its first element. */
		pr_address(c, v->addr);
		if (text && v->addr && c->p->read_mem) {
			sbuf_addc(c->out, ' ');
			pr_string_at(c, v->addr);
		}
		return;
	}
	if (text)
		pr_str(c, v->bytes, (size_t)n, false);
	else
		pr_elements(c, v, et, esz, n);
}

static void pr_struct(struct pr *c, const struct val *v, const struct di_type *t)
{
	if (t->declaration) {
		sbuf_add(c->out, "<incomplete type>");
		return;
	}
	if (!t->nmembers) {
		sbuf_add(c->out, "{<No data fields>}");
		return;
	}
	sbuf_addc(c->out, '{');
	for (size_t i = 0; i < t->nmembers; i++) {
		const struct di_member *m = &t->members[i];
		if (i)
			sbuf_add(c->out, ", ");
		if (m->name)
			sbuf_printf(c->out, "%s = ", m->name);
		struct val mv = val_member(v, m);
		pr_any(c, &mv);
		val_free(&mv);
	}
	sbuf_addc(c->out, '}');
}

/* A function in a format: gdb formats its first byte of code, but cannot
 * make an address or a character of it (its error ends the line). */
static void pr_func_formatted(struct pr *c, const struct val *v)
{
	uint8_t b = v->size ? v->bytes[0] : 0;
	if (c->fmt == 'a' || c->fmt == 'c') {
		sbuf_add(c->out, "Value can't be converted to integer.");
		return;
	}
	if (!v->size && c->p->read_mem)
		c->p->read_mem(c->p->arg, v->addr, &b, 1);
	struct val byte = *v;
	byte.type = val_builtin("unsigned char");
	byte.bytes = &b;
	byte.size = 1;
	pr_formatted(c, &byte, byte.type);
}

static void pr_func(struct pr *c, const struct val *v)
{
	if (c->fmt && c->fmt != 's') {
		pr_func_formatted(c, v);
		return;
	}
	sbuf_addc(c->out, '{');
	val_type_name(c->out, v->type);
	sbuf_add(c->out, "} ");
	pr_address(c, v->addr);
}

/* Inside an aggregate gdb checks scalars only: a struct or array that is
 * optimized out in part or in whole shows its members one by one. */
static void pr_any(struct pr *c, const struct val *v)
{
	const struct di_type *t = val_type_strip(v->type);
	bool aggregate = t && (t->kind == DI_STRUCT || t->kind == DI_UNION ||
			       t->kind == DI_ARRAY);
	if (v->optimized_out || (!aggregate && val_unavailable(v))) {
		sbuf_add(c->out, v->synthetic ? "<synthetic pointer>" : "<optimized out>");
		return;
	}
	switch (t ? t->kind : DI_VOID) {
	case DI_STRUCT:
	case DI_UNION:
		pr_struct(c, v, t);
		break;
	case DI_ARRAY:
		pr_array(c, v, t);
		break;
	case DI_FUNC:
		pr_func(c, v);
		break;
	case DI_VOID:
		sbuf_add(c->out, "void");
		break;
	default:
		pr_scalar(c, v, t);
	}
}

/* gdb leaves out "(char *) ": the string says it already. */
static bool shows_pointer_type(const struct di_type *type)
{
	while (type && (type->kind == DI_CONST || type->kind == DI_VOLATILE))
		type = type->target;
	if (!type || type->kind != DI_PTR)
		return true;
	const struct di_type *to = type->target;
	while (to && (to->kind == DI_CONST || to->kind == DI_VOLATILE))
		to = to->target;
	return !(to && to->kind == DI_BASE && to->name && strcmp(to->name, "char") == 0);
}

static bool is_aggregate(const struct di_type *t)
{
	return t && (t->kind == DI_STRUCT || t->kind == DI_UNION ||
		     t->kind == DI_ARRAY);
}

void val_print(struct sbuf *out, const struct val *v, const struct val_print *p)
{
	struct pr c = { .out = out, .p = p, .fmt = p->format };
	c.max = p->max_elements > 0 ? (unsigned)p->max_elements
		: p->max_elements == 0 ? 200 : UINT_MAX;
	const struct di_type *t = val_type_strip(v->type);
	sbuf_add(out, "");
	if (p->frame_arg && is_aggregate(t)) {
		sbuf_add(out, "...");
		return;
	}
	if (val_entirely_unavailable(v)) {
		sbuf_add(out, v->synthetic ? "<synthetic pointer>" : "<optimized out>");
		return;
	}
	if (p->top && !p->frame_arg && (c.fmt == 0 || c.fmt == 's') && t &&
	    t->kind == DI_PTR && shows_pointer_type(v->type)) {
		sbuf_addc(out, '(');
		val_type_name(out, v->type);
		sbuf_add(out, ") ");
	}
	pr_any(&c, v);
}
