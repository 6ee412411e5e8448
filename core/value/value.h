/* value: typed values (from variables, registers, memory or computation)
 * and their printing in gdb's shapes. */
#ifndef QZ_VALUE_H
#define QZ_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dinfo/dinfo.h"
#include "util/util.h"

enum val_where { VAL_RVALUE, VAL_MEM, VAL_REG };

struct val {
	const struct di_type *type;   /* never NULL; see val_builtin() */
	uint8_t *bytes;               /* owned copy of the contents, type size */
	size_t size;
	enum val_where where;
	uint64_t addr;                /* VAL_MEM: where it lives */
	int reg;                      /* VAL_REG: DWARF register number */
	bool optimized_out;
	/* optimized out as a pointer that exists only in the debug info
	 * (DW_OP_implicit_pointer): printed "<synthetic pointer>" as gdb */
	bool synthetic;
	/* One bit per bit of bytes, set where the value is optimized out (a
	 * variable in pieces, some without a location); NULL: none is. */
	uint8_t *unavail;
};

/* Built-in C types by name: "int", "unsigned int", "long", "unsigned long",
 * "long long", "char", "signed char", "unsigned char", "short",
 * "unsigned short", "_Bool", "float", "double", "long double", "void",
 * plus "void *", "char *", "code *" (pointer to function, for $pc). */
const struct di_type *val_builtin(const char *name);
/* A pointer type to t (interned: same t gives the same pointer type). */
const struct di_type *val_pointer_to(const struct di_type *t);
/* t const and/or volatile (interned the same way). */
const struct di_type *val_qualified(const struct di_type *t, bool is_const,
				    bool is_volatile);

void val_free(struct val *v);
/* The value of variable v where ctx says (a frame, or none for statics):
 * its bytes, its place (memory or register, for & and assignment) and the
 * bits that are optimized out. 0, or -1 with err. */
int val_from_var(const struct di_var *v, const struct di_ctx *ctx,
		 struct val *out, char *err, size_t errlen);
/* Whether some bit of v is optimized out; entirely: every bit is. */
bool val_unavailable(const struct val *v);
bool val_entirely_unavailable(const struct val *v);
struct val val_copy(const struct val *v);
struct val val_from_int(const struct di_type *t, int64_t x);
struct val val_from_double(const struct di_type *t, double x);
struct val val_from_bytes(const struct di_type *t, const void *bytes, size_t size);

bool val_is_integer(const struct val *v);   /* ints, chars, bool, enums */
bool val_is_float(const struct val *v);
bool val_is_pointer(const struct val *v);
/* As a (sign- or zero-extended per type) integer; pointers give the address. */
int64_t val_as_int(const struct val *v);
double val_as_double(const struct val *v);

struct val_print {
	char format;          /* 0 natural, or one of x d u o t c a s z */
	bool top;             /* print context: pointers get "(type *) " */
	bool frame_arg;       /* in a frame line: aggregates print as "..." */
	int max_elements;     /* for strings and arrays; gdb's default 200 */
	/* For symbolic addresses "<main+4>" and strings behind char *. */
	int (*read_mem)(void *arg, uint64_t addr, void *buf, size_t len);
	const char *(*symbolize)(void *arg, uint64_t addr, char *buf, size_t len);
	void *arg;
};

/* Type helpers shared with expr. */
/* t without typedefs and const/volatile (NULL stays NULL). */
const struct di_type *val_type_strip(const struct di_type *t);
/* sizeof: void and functions count 1, as in gdb. */
uint64_t val_type_size(const struct di_type *t);
/* An array type of n elements of elem (interned like val_pointer_to). */
const struct di_type *val_array_of(const struct di_type *elem, uint64_t n);
/* The element type of an array's outermost dimension ("int [3]" for
 * int [2][3]) and that dimension's length (0 if unknown). */
const struct di_type *val_array_elem(const struct di_type *arr);
uint64_t val_array_len(const struct di_type *arr);
/* Integers (and enums) that sign-extend. */
bool val_type_is_signed(const struct di_type *t);
/* One-byte character types, printed as 97 'a' and as strings. */
bool val_type_is_char(const struct di_type *t);
/* Member m of the struct or union v; a bitfield becomes an rvalue of the
 * member's type, other members keep v's location. */
struct val val_member(const struct val *v, const struct di_member *m);

/* Print v as gdb's print does: 3, 97 'a', 0x555555556004 "usr",
 * (struct node *) 0x4052a0, {a = 1, b = {2, 3}}, RED, true, 1.5, ... */
void val_print(struct sbuf *out, const struct val *v, const struct val_print *p);
/* The type's name as gdb's whatis shows it: "int", "struct node *",
 * "char [16]", "int (*)(int)". */
void val_type_name(struct sbuf *out, const struct di_type *t);

#endif
