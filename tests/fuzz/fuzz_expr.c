/* fuzz_expr: libFuzzer harness for the expression engine. The input is one
 * expression, optionally led by a print format ("/x arr"); it is parsed,
 * and when it parses, evaluated in a fake process (typed variables in a
 * byte array of memory, registers, value history, writes allowed) and the
 * result printed and named as print and whatis would. The fake process is
 * the one of tests/unit/test_expr.c. */
#include <dwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "value/expr.h"

/* Types. */

#define BT(var, n, sz, enc) \
	static struct di_type var = { .kind = DI_BASE, .name = n, .size = sz, .encoding = enc }

BT(t_int, "int", 4, DW_ATE_signed);
BT(t_uint, "unsigned int", 4, DW_ATE_unsigned);
BT(t_char, "char", 1, DW_ATE_signed_char);
BT(t_uchar, "unsigned char", 1, DW_ATE_unsigned_char);
BT(t_short, "short int", 2, DW_ATE_signed);
BT(t_long, "long int", 8, DW_ATE_signed);
BT(t_ulong, "long unsigned int", 8, DW_ATE_unsigned);
BT(t_bool, "_Bool", 1, DW_ATE_boolean);
BT(t_float, "float", 4, DW_ATE_float);
BT(t_double, "double", 8, DW_ATE_float);
BT(t_ldouble, "long double", 16, DW_ATE_float);

static struct di_type t_charp = { .kind = DI_PTR, .size = 8, .target = &t_char };
static struct di_type t_voidp = { .kind = DI_PTR, .size = 8 };
static struct di_type t_ulong_t = { .kind = DI_TYPEDEF, .name = "ulong_t", .target = &t_ulong };
static struct di_type t_cint = { .kind = DI_CONST, .target = &t_int };

static struct di_enumerator color_enums[] = { { "RED", 0 }, { "GREEN", 1 }, { "BLUE", 2 } };
static struct di_type t_color = { .kind = DI_ENUM, .name = "color", .size = 4,
	.target = &t_uint, .enums = color_enums, .nenums = 3 };
static struct di_enumerator flag_enums[] = { { "F_A", 1 }, { "F_B", 2 }, { "F_C", 8 } };
static struct di_type t_flags = { .kind = DI_ENUM, .name = "flags", .size = 4,
	.target = &t_int, .enums = flag_enums, .nenums = 3 };

static struct di_type t_node;
static struct di_type t_nodep = { .kind = DI_PTR, .size = 8, .target = &t_node };
static struct di_member node_members[] = {
	{ .name = "key", .type = &t_int, .offset = 0 },
	{ .name = "next", .type = &t_nodep, .offset = 8 },
};
static struct di_type t_node = { .kind = DI_STRUCT, .name = "node", .size = 16,
	.members = node_members, .nmembers = 2 };
static struct di_type t_node_t = { .kind = DI_TYPEDEF, .name = "node_t", .target = &t_node };
static struct di_type t_opaque = { .kind = DI_STRUCT, .name = "opaque", .declaration = true };
static struct di_type t_opaquep = { .kind = DI_PTR, .size = 8, .target = &t_opaque };

static uint64_t d3[] = { 3 }, d8[] = { 8 }, d2x3[] = { 2, 3 }, d0[] = { 0 }, d2[] = { 2 };
static struct di_type t_int3 = { .kind = DI_ARRAY, .target = &t_int, .dims = d3, .ndims = 1, .size = 12 };
static struct di_type t_char8 = { .kind = DI_ARRAY, .target = &t_char, .dims = d8, .ndims = 1, .size = 8 };
static struct di_type t_int2x3 = { .kind = DI_ARRAY, .target = &t_int, .dims = d2x3, .ndims = 2, .size = 24 };
static struct di_type t_flex = { .kind = DI_ARRAY, .target = &t_int, .dims = d0, .ndims = 1, .size = 0 };
static struct di_type t_node2 = { .kind = DI_ARRAY, .target = &t_node, .dims = d2, .ndims = 1, .size = 32 };

static struct di_member anon_u_members[] = {
	{ .name = "y", .type = &t_int }, { .name = "z", .type = &t_float },
};
static struct di_type t_anon_u = { .kind = DI_UNION, .size = 4,
	.members = anon_u_members, .nmembers = 2 };
static struct di_member anon_s_members[] = {
	{ .name = "p", .type = &t_int }, { .name = "q", .type = &t_int, .offset = 4 },
};
static struct di_type t_anon_s = { .kind = DI_STRUCT, .size = 8,
	.members = anon_s_members, .nmembers = 2 };
static struct di_member anon_members[] = {
	{ .name = "x", .type = &t_int },
	{ .name = NULL, .type = &t_anon_u, .offset = 4 },
	{ .name = NULL, .type = &t_anon_s, .offset = 8 },
};
static struct di_type t_anon = { .kind = DI_STRUCT, .name = "anon", .size = 16,
	.members = anon_members, .nmembers = 3 };

static struct di_member bits_members[] = {
	{ .name = "a", .type = &t_uint, .offset = 0, .bit_size = 3, .bit_offset = 0 },
	{ .name = "b", .type = &t_int, .offset = 0, .bit_size = 5, .bit_offset = 3 },
	{ .name = "c", .type = &t_uint, .offset = 1, .bit_size = 1, .bit_offset = 0 },
	{ .name = "w", .type = &t_ulong, .offset = 2, .bit_size = 17, .bit_offset = 5 },
};
static struct di_type t_bits = { .kind = DI_STRUCT, .name = "bits", .size = 8,
	.members = bits_members, .nmembers = 4 };

/* struct rec { int n; const int k; char name[8]; int tail[]; } */
static struct di_member rec_members[] = {
	{ .name = "n", .type = &t_int, .offset = 0 },
	{ .name = "k", .type = &t_cint, .offset = 4 },
	{ .name = "name", .type = &t_char8, .offset = 8 },
	{ .name = "tail", .type = &t_flex, .offset = 16 },
};
static struct di_type t_rec = { .kind = DI_STRUCT, .name = "rec", .size = 16,
	.members = rec_members, .nmembers = 4 };
static struct di_type t_recp = { .kind = DI_PTR, .size = 8, .target = &t_rec };

static const struct di_type *int_param[] = { &t_int };
static struct di_type t_fint_int = { .kind = DI_FUNC, .target = &t_int,
	.params = int_param, .nparams = 1 };
static struct di_type t_fvoid_int = { .kind = DI_FUNC, .params = int_param, .nparams = 1 };
static struct di_type t_fvoid_intp = { .kind = DI_PTR, .size = 8, .target = &t_fvoid_int };
static struct di_type t_fvar = { .kind = DI_FUNC, .target = &t_int, .varargs = true };

/* The fake process: memory at BASE, registers, history. */

#define BASE 0x601000
static uint8_t mem[0x200];
static uint8_t mem0[0x200];
static uint64_t regs[17];

static const struct {
	const char *name;
	const struct di_type *type;
	uint64_t addr;
} vars[] = {
	{ "i", &t_int, 0x601000 },
	{ "c", &t_char, 0x601004 },
	{ "u", &t_uint, 0x601008 },
	{ "l", &t_long, 0x601010 },
	{ "ul", &t_ulong, 0x601018 },
	{ "d", &t_double, 0x601020 },
	{ "fl", &t_float, 0x601028 },
	{ "arr", &t_int3, 0x601030 },
	{ "n1", &t_node, 0x601040 },
	{ "n2", &t_node, 0x601050 },
	{ "np", &t_nodep, 0x601060 },
	{ "s", &t_char8, 0x601070 },
	{ "cs", &t_charp, 0x601080 },
	{ "col", &t_color, 0x601088 },
	{ "an", &t_anon, 0x601090 },
	{ "bt", &t_bits, 0x6010a0 },
	{ "vp", &t_voidp, 0x6010a8 },
	{ "m2", &t_int2x3, 0x6010b0 },
	{ "nt", &t_node_t, 0x6010d0 },
	{ "uc", &t_uchar, 0x6010e0 },
	{ "sh", &t_short, 0x6010e2 },
	{ "b", &t_bool, 0x6010e4 },
	{ "fp", &t_fvoid_intp, 0x6010e8 },
	{ "rec", &t_rec, 0x6010f0 },
	{ "ld", &t_ldouble, 0x601120 },
	{ "fg", &t_flags, 0x601130 },
	{ "op", &t_opaquep, 0x601138 },
	{ "rp", &t_recp, 0x601140 },
	{ "ns", &t_node2, 0x601148 },
	{ "ut", &t_ulong_t, 0x601168 },
	{ "ci", &t_cint, 0x601170 },
};

static void put(uint64_t addr, const void *p, size_t n)
{
	memcpy(mem0 + (addr - BASE), p, n);
}

#define PUT(addr, type, value) do { type x_ = (value); put(addr, &x_, sizeof(x_)); } while (0)

static void fill_memory(void)
{
	PUT(0x601000, int, -1);
	PUT(0x601004, char, 'a');
	PUT(0x601008, unsigned, 4000000000u);
	PUT(0x601010, long, -5);
	PUT(0x601018, unsigned long, 7);
	PUT(0x601020, double, 2.5);
	PUT(0x601028, float, 1.5f);
	int arr[3] = { 1, 2, 3 };
	put(0x601030, arr, sizeof(arr));
	PUT(0x601040, int, 3);
	PUT(0x601048, uint64_t, 0x601050);
	PUT(0x601050, int, 7);
	PUT(0x601058, uint64_t, 0x601040);     /* a cycle: n2.next = &n1 */
	PUT(0x601060, uint64_t, 0x601040);
	put(0x601070, "hello", 6);
	PUT(0x601080, uint64_t, 0x601100);
	PUT(0x601088, int, 2);
	int an[4] = { 1, 2, 3, 4 };
	put(0x601090, an, sizeof(an));
	PUT(0x6010a0, uint8_t, 0xed);
	PUT(0x6010a1, uint8_t, 0x01);
	PUT(0x6010a8, uint64_t, 0x601000);
	int m2[6] = { 1, 2, 3, 4, 5, 6 };
	put(0x6010b0, m2, sizeof(m2));
	PUT(0x6010d0, int, 1);
	PUT(0x6010e0, unsigned char, 200);
	PUT(0x6010e2, short, -3);
	PUT(0x6010e4, uint8_t, 1);
	PUT(0x6010e8, uint64_t, 0x401136);
	PUT(0x6010f0, int, 2);
	put(0x6010f8, "name\x01\xff\"", 8);   /* no NUL: runs into tail */
	put(0x601100, "usr", 4);
	PUT(0x601120, long double, 1.25L);
	PUT(0x601130, int, 11);
	PUT(0x601138, uint64_t, 0x601180);
	PUT(0x601140, uint64_t, 0x6010f0);
	PUT(0x601148, int, 4);
	PUT(0x601150, uint64_t, 0x601158);
	PUT(0x601168, unsigned long, 0xffffffffffffffff);
	PUT(0x601170, int, 42);
	memset(mem0 + 0x1e0, 'x', 0x20);           /* a string without an end */
}

static int fake_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	(void)arg;
	if (addr < BASE || len > sizeof(mem) || addr - BASE > sizeof(mem) - len)
		return -1;
	memcpy(buf, mem + (addr - BASE), len);
	return 0;
}

static int fake_write(void *arg, uint64_t addr, const void *buf, size_t len)
{
	(void)arg;
	if (addr < BASE || len > sizeof(mem) || addr - BASE > sizeof(mem) - len)
		return -1;
	memcpy(mem + (addr - BASE), buf, len);
	return 0;
}

static int fake_write_reg(void *arg, int reg, const void *buf, size_t len)
{
	(void)arg;
	if (reg < 0 || reg >= (int)ARRAY_LEN(regs) || len > sizeof(regs[0]))
		return -1;
	memcpy(&regs[reg], buf, len);
	return 0;
}

static int lookup_var(void *arg, const char *name, struct val *out,
		      char *err, size_t errlen)
{
	(void)arg;
	for (size_t i = 0; i < ARRAY_LEN(vars); i++) {
		if (strcmp(vars[i].name, name) != 0)
			continue;
		size_t size = (size_t)val_type_size(vars[i].type);
		*out = val_from_bytes(vars[i].type, mem + (vars[i].addr - BASE), size);
		out->where = VAL_MEM;
		out->addr = vars[i].addr;
		return 0;
	}
	static const struct di_type *const enums[] = { &t_color, &t_flags };
	for (size_t k = 0; k < ARRAY_LEN(enums); k++) {
		for (size_t i = 0; i < enums[k]->nenums; i++) {
			if (strcmp(enums[k]->enums[i].name, name) == 0) {
				*out = val_from_int(enums[k], enums[k]->enums[i].value);
				return 0;
			}
		}
	}
	if (strcmp(name, "square") == 0 || strcmp(name, "vf") == 0) {
		*out = val_from_bytes(name[0] == 's' ? &t_fint_int : &t_fvar, "", 0);
		out->where = VAL_MEM;
		out->addr = 0x401136;
		return 0;
	}
	if (strcmp(name, "r") == 0) {     /* lives in rbx */
		*out = val_from_int(&t_int, (int64_t)regs[3]);
		out->where = VAL_REG;
		out->reg = 3;
		return 0;
	}
	if (strcmp(name, "gone") == 0) {
		*out = val_from_int(&t_int, 0);
		out->optimized_out = true;
		return 0;
	}
	if (strcmp(name, "broken") == 0) {
		snprintf(err, errlen, "Unhandled dwarf expression opcode 0xf3");
		return -1;
	}
	return 1;
}

static const struct di_type *lookup_type(void *arg, const char *name)
{
	(void)arg;
	static const struct { const char *name; const struct di_type *t; } types[] = {
		{ "struct node", &t_node }, { "node_t", &t_node_t },
		{ "ulong_t", &t_ulong_t }, { "enum color", &t_color },
		{ "enum flags", &t_flags }, { "struct rec", &t_rec },
		{ "struct anon", &t_anon }, { "struct bits", &t_bits },
		{ "struct opaque", &t_opaque },
	};
	for (size_t i = 0; i < ARRAY_LEN(types); i++)
		if (strcmp(types[i].name, name) == 0)
			return types[i].t;
	return NULL;
}

static int read_reg(void *arg, const char *name, struct val *out)
{
	(void)arg;
	if (strcmp(name, "pc") == 0 || strcmp(name, "rip") == 0) {
		*out = val_from_int(val_builtin("code *"), 0x401140);
		out->where = VAL_REG;
		out->reg = 16;
	} else if (strcmp(name, "sp") == 0 || strcmp(name, "rsp") == 0) {
		*out = val_from_int(val_builtin("void *"), (int64_t)regs[7]);
		out->where = VAL_REG;
		out->reg = 7;
	} else if (strcmp(name, "rax") == 0 || strcmp(name, "eax") == 0) {
		*out = val_from_int(val_builtin(name[0] == 'r' ? "long" : "int"), (int64_t)regs[0]);
		out->where = VAL_REG;
		out->reg = 0;
	} else if (strcmp(name, "eflags") == 0) {
		*out = val_from_int(val_builtin("int"), 0x246);
	} else {
		return 1;
	}
	return 0;
}

/* $1 = 42, $2 = 'a', $3 = n1 (a struct with an address). */
static int history(void *arg, int idx, bool relative, struct val *out)
{
	(void)arg;
	int64_t n = relative ? 3 + (int64_t)idx : idx;
	if (n == 1) {
		*out = val_from_int(&t_int, 42);
	} else if (n == 2) {
		*out = val_from_int(&t_char, 'a');
	} else if (n == 3) {
		*out = val_from_bytes(&t_node, mem + 0x40, 16);
		out->where = VAL_MEM;
		out->addr = 0x601040;
	} else {
		return 1;
	}
	return 0;
}

static const char *fake_symbolize(void *arg, uint64_t addr, char *buf, size_t len)
{
	(void)arg;
	if (addr == 0x401136)
		return "square";
	if (addr > 0x401136 && addr < 0x401200) {
		snprintf(buf, len, "main+%llu", (unsigned long long)(addr - 0x40113c));
		return buf;
	}
	return NULL;
}

static const struct expr_env env = {
	.lookup_var = lookup_var, .read_reg = read_reg, .read_mem = fake_read,
	.history = history, .lookup_type = lookup_type,
	.write_mem = fake_write, .write_reg = fake_write_reg,
};

/* "/FMT rest": print's format letter, as the print command takes it. */
static const char *take_format(const char *text, char *format)
{
	*format = 0;
	if (text[0] == '/' && text[1] && strchr("xduotcasz", text[1]) && text[2] == ' ') {
		*format = text[1];
		return text + 3;
	}
	return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	if (!ready) {
		fill_memory();
		ready = true;
	}
	if (size > 4096)
		return 0;
	memcpy(mem, mem0, sizeof(mem));
	memset(regs, 0, sizeof(regs));
	regs[7] = 0x601100;
	char *text = malloc(size + 1);
	memcpy(text, data, size);
	text[size] = 0;

	char format, err[256];
	const char *src = take_format(text, &format);
	struct expr *e = expr_parse(src, err, sizeof(err));
	if (e) {
		struct val v;
		if (expr_eval(e, &env, &v, err, sizeof(err)) == 0) {
			struct sbuf out = {0};
			struct val_print p = { .format = format, .top = true,
				.max_elements = 200, .read_mem = fake_read,
				.symbolize = fake_symbolize };
			val_print(&out, &v, &p);
			sbuf_reset(&out);
			p.top = false;
			p.frame_arg = true;
			p.max_elements = 3;
			val_print(&out, &v, &p);
			sbuf_reset(&out);
			val_type_name(&out, v.type);
			sbuf_free(&out);
			val_free(&v);
		}
		expr_free(e);
	}
	free(text);
	return 0;
}
