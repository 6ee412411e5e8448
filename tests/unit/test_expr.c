/* test_expr: parse and evaluate C expressions in a fake process (a few
 * variables with hand-built types in a byte array of memory, registers,
 * value history) and compare what print would show, the result's type and
 * the error messages with gdb 13's for the same expressions. */
#include <dwarf.h>
#include <stdio.h>
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

static struct di_type t_charp = { .kind = DI_PTR, .size = 8, .target = &t_char };
static struct di_type t_voidp = { .kind = DI_PTR, .size = 8 };
static struct di_type t_ulong_t = { .kind = DI_TYPEDEF, .name = "ulong_t", .target = &t_ulong };

static struct di_enumerator color_enums[] = { { "RED", 0 }, { "GREEN", 1 }, { "BLUE", 2 } };
static struct di_type t_color = { .kind = DI_ENUM, .name = "color", .size = 4,
	.target = &t_uint, .enums = color_enums, .nenums = 3 };

static struct di_type t_node;
static struct di_type t_nodep = { .kind = DI_PTR, .size = 8, .target = &t_node };
static struct di_member node_members[] = {
	{ .name = "key", .type = &t_int, .offset = 0 },
	{ .name = "next", .type = &t_nodep, .offset = 8 },
};
static struct di_type t_node = { .kind = DI_STRUCT, .name = "node", .size = 16,
	.members = node_members, .nmembers = 2 };
static struct di_type t_node_t = { .kind = DI_TYPEDEF, .name = "node_t", .target = &t_node };

static uint64_t d3[] = { 3 }, d8[] = { 8 }, d2x3[] = { 2, 3 };
static struct di_type t_int3 = { .kind = DI_ARRAY, .target = &t_int, .dims = d3, .ndims = 1, .size = 12 };
static struct di_type t_char8 = { .kind = DI_ARRAY, .target = &t_char, .dims = d8, .ndims = 1, .size = 8 };
static struct di_type t_int2x3 = { .kind = DI_ARRAY, .target = &t_int, .dims = d2x3, .ndims = 2, .size = 24 };

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
};
static struct di_type t_bits = { .kind = DI_STRUCT, .name = "bits", .size = 4,
	.members = bits_members, .nmembers = 3 };

static const struct di_type *int_param[] = { &t_int };
static struct di_type t_fint_int = { .kind = DI_FUNC, .target = &t_int,
	.params = int_param, .nparams = 1 };
static struct di_type t_fvoid_int = { .kind = DI_FUNC, .params = int_param, .nparams = 1 };
static struct di_type t_fvoid_intp = { .kind = DI_PTR, .size = 8, .target = &t_fvoid_int };

/* The fake process. */

#define BASE 0x601000
static uint8_t mem[0x200];
static uint64_t regs[17];
static int mem_writes, reg_writes;

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
};

static void put(uint64_t addr, const void *p, size_t n)
{
	memcpy(mem + (addr - BASE), p, n);
}

#define PUT(addr, type, value) do { type x_ = (value); put(addr, &x_, sizeof(x_)); } while (0)

static void fill_memory(void)
{
	memset(mem, 0, sizeof(mem));
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
	put(0x601100, "usr", 4);
}

static int fake_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	(void)arg;
	if (addr < BASE || addr + len > BASE + sizeof(mem) || addr + len < addr)
		return -1;
	memcpy(buf, mem + (addr - BASE), len);
	return 0;
}

static int fake_write(void *arg, uint64_t addr, const void *buf, size_t len)
{
	(void)arg;
	if (addr < BASE || addr + len > BASE + sizeof(mem))
		return -1;
	memcpy(mem + (addr - BASE), buf, len);
	mem_writes++;
	return 0;
}

static int fake_write_reg(void *arg, int reg, const void *buf, size_t len)
{
	(void)arg;
	memcpy(&regs[reg], buf, len);
	reg_writes++;
	return 0;
}

static int lookup_var(void *arg, const char *name, struct val *out,
		      char *err, size_t errlen)
{
	(void)arg;
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		if (strcmp(vars[i].name, name) != 0)
			continue;
		size_t size = (size_t)val_type_size(vars[i].type);
		*out = val_from_bytes(vars[i].type, mem + (vars[i].addr - BASE), size);
		out->where = VAL_MEM;
		out->addr = vars[i].addr;
		return 0;
	}
	for (size_t i = 0; i < t_color.nenums; i++) {
		if (strcmp(color_enums[i].name, name) == 0) {
			*out = val_from_int(&t_color, color_enums[i].value);
			return 0;
		}
	}
	if (strcmp(name, "square") == 0) {
		*out = val_from_bytes(&t_fint_int, "", 0);
		out->where = VAL_MEM;
		out->addr = 0x401136;
		return 0;
	}
	if (strcmp(name, "r") == 0) {     /* lives in rbx */
		*out = val_from_int(&t_int, 9);
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
	if (strcmp(name, "struct node") == 0)
		return &t_node;
	if (strcmp(name, "node_t") == 0)
		return &t_node_t;
	if (strcmp(name, "ulong_t") == 0)
		return &t_ulong_t;
	if (strcmp(name, "enum color") == 0)
		return &t_color;
	return NULL;
}

static int read_reg(void *arg, const char *name, struct val *out)
{
	(void)arg;
	if (strcmp(name, "pc") == 0) {
		*out = val_from_int(val_builtin("code *"), 0x401140);
		out->where = VAL_REG;
		out->reg = 16;
	} else if (strcmp(name, "sp") == 0) {
		*out = val_from_int(val_builtin("void *"), 0x7ffe0000);
		out->where = VAL_REG;
		out->reg = 7;
	} else if (strcmp(name, "rax") == 0 || strcmp(name, "eax") == 0) {
		*out = val_from_int(val_builtin(name[0] == 'r' ? "long" : "int"), (int64_t)regs[0]);
		out->where = VAL_REG;
		out->reg = 0;
	} else {
		return 1;
	}
	return 0;
}

/* $1 = 42, $2 = 'a'. */
static int history(void *arg, int idx, bool relative, struct val *out)
{
	(void)arg;
	int n = relative ? 2 + idx : idx;
	if (n == 1)
		*out = val_from_int(&t_int, 42);
	else if (n == 2)
		*out = val_from_int(&t_char, 'a');
	else
		return 1;
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

static struct expr_env env = {
	.lookup_var = lookup_var, .read_reg = read_reg, .read_mem = fake_read,
	.history = history, .lookup_type = lookup_type,
};

/* Checks. */

static void report(const char *name, const char *got, const char *want)
{
	if (strcmp(got, want) == 0)
		printf("PASS %s\n", name);
	else
		printf("FAIL %s: got <%s>, want <%s>\n", name, got, want);
}

/* Evaluate text; on success print the value (or its type) into out. */
static int run(const struct expr_env *e, const char *text, bool type_only,
	       struct sbuf *out)
{
	char err[256];
	struct expr *x = expr_parse(text, err, sizeof(err));
	struct val v;
	if (!x || expr_eval(x, e, &v, err, sizeof(err)) != 0) {
		sbuf_printf(out, "error: %s", err);
		expr_free(x);
		return -1;
	}
	struct val_print p = { .top = true, .max_elements = 200, .read_mem = fake_read,
			       .symbolize = fake_symbolize };
	if (type_only)
		val_type_name(out, v.type);
	else
		val_print(out, &v, &p);
	val_free(&v);
	expr_free(x);
	return 0;
}

static void check_with(const struct expr_env *e, const char *text, bool type_only,
		       const char *want)
{
	struct sbuf out = {0};
	char name[128];
	snprintf(name, sizeof(name), "%s%s", type_only ? "whatis " : "", text);
	run(e, text, type_only, &out);
	report(name, out.s ? out.s : "", want);
	sbuf_free(&out);
}

static void ev(const char *text, const char *want)
{
	check_with(&env, text, false, want);
}

static void ty(const char *text, const char *want)
{
	check_with(&env, text, true, want);
}

static void er(const char *text, const char *want)
{
	struct sbuf w = {0};
	sbuf_printf(&w, "error: %s", want);
	check_with(&env, text, false, w.s);
	sbuf_free(&w);
}

static void test_literals(void)
{
	ev("0x10", "16");
	ev("010", "8");
	ev("100000000000", "100000000000");
	ev("1e3", "1000");
	ev(".5", "0.5");
	ev("2.5e-3", "0.0025000000000000001");
	ev("3.0f", "3");
	ev("'a'", "97 'a'");
	ev("'\\n'", "10 '\\n'");
	ev("'\\0'", "0 '\\000'");
	ev("'\\x41'", "65 'A'");
	ev("'\\101'", "65 'A'");
	ev("'\\''", "39 '\\''");
	ev("'\\e'", "27 '\\033'");
	ev("\"abc\"", "\"abc\"");
	ev("\"a\\\"b\"", "\"a\\\"b\"");
	ev("\"a\\tb\"", "\"a\\tb\"");
	ev("\"ab\" \"cd\"", "\"abcd\"");
	ev("\"abc\"[1]", "98 'b'");
	ev("sizeof(\"abc\")", "4");
	ty("1", "int");
	ty("2147483647", "int");
	ty("2147483648", "long");
	ty("4294967295", "long");
	ty("0x7fffffff", "int");
	ty("0x80000000", "unsigned int");
	ty("0xffffffff", "unsigned int");
	ty("0x100000000", "long");
	ty("0xffffffffffffffff", "unsigned long");
	ty("18446744073709551615", "unsigned long");
	ty("9223372036854775808", "unsigned long");
	ty("1u", "unsigned int");
	ty("1l", "long");
	ty("1ul", "unsigned long");
	ty("1lu", "unsigned long");
	ty("1ll", "long long");
	ty("1ull", "unsigned long long");
	ty("010", "int");
	ty("'a'", "char");
	ty("1.5", "double");
	ty("1.5f", "float");
	ty("1e3", "double");
	ty("\"abc\"", "char [4]");
	er("0x", "Invalid number \"0x\".");
	er("08", "Invalid number \"08\".");
	er("12abc", "Invalid number \"12abc\".");
	er("9999999999999999999999", "Numeric constant too large.");
	er("'ab'", "Invalid character constant.");
	er("'a", "Unmatched single quote.");
	er("\"abc", "Unterminated string in expression.");
	er("#", "Invalid character '#' in expression.");
}

static void test_arithmetic(void)
{
	ev("-1 < 1u", "0");
	ev("sizeof(long)", "8");
	ty("sizeof(long)", "unsigned long");
	ev("'a' + 1", "98");
	ty("'a' + 1", "int");
	ev("10/3", "3");
	ev("-7/2", "-3");
	ev("-7%3", "-1");
	ev("-5 % 3", "-2");
	ev("7.5/2", "3.75");
	ev("1.0/0", "inf");
	ev("~0", "-1");
	ev("1 << 3", "8");
	ev("-1 >> 1", "-1");
	ev("-1u >> 1", "2147483647");
	ev("5u - 7", "4294967294");
	ev("07 + 0x1F", "38");
	ev("2147483647 + 1", "-2147483648");
	ev("5 & 3 | 8 ^ 1", "9");
	ev("10 % 3 * 2", "2");
	ev("1 - - 1", "2");
	ev("!!5", "1");
	ev("5 > 3 > 1", "0");
	ev("1 == 2 == 0", "1");
	ev("3 == 3.0", "1");
	ev("0.1 + 0.2", "0.30000000000000004");
	ev("1.5 + 1", "2.5");
	ev("(float)1/3", "0.333333343");
	ev("(double)1/3", "0.33333333333333331");
	ev("1.0/3", "0.33333333333333331");
	ev("!1.5", "0");
	ev("-(1.5)", "-1.5");
	ev("1.0 && 0", "0");
	ev("1 ? 2 : 3", "2");
	ev("0 ? 2 : 3", "3");
	ev("1, 2", "2");
	ev("1 && 0", "0");
	ev("2 || 0", "1");
	ev("0 && *(int *)0", "0");
	ev("1 || *(int *)0", "1");
	ev("10 > 9 ? \"yes\" : \"no\"", "\"yes\"");
	ev("fl * 2", "3");
	ev("-c", "-97");
	ev("-uc", "-200");
	ev("-u", "294967296");
	ev("c == 'a'", "1");
	ev("col == BLUE", "1");
	ty("c + c", "int");
	ty("uc + 1", "int");
	ty("u + 1", "unsigned int");
	ty("u + l", "long");
	ty("ul + 1", "unsigned long");
	ty("fl + 1", "float");
	ty("fl + d", "double");
	ty("col + 1", "unsigned int");
	ty("-c", "int");
	ty("+c", "int");
	ty("-'a'", "int");
	ty("!i", "int");
	ty("~uc", "int");
	ty("i < 1", "int");
	ty("1ul << 4", "unsigned long");
	ty("5/2.0", "double");
	ty("i, c", "char");
	ty("sh + sh", "int");
	ty("b + 1", "int");
	er("1/0", "Division by zero");
	er("1%0", "Division by zero");
	er("1.5 % 2", "Integer-only operation on floating point number.");
	er("1.5 << 1", "Integer-only operation on floating point number.");
	er("~fl", "Argument to complement operation not an integer, boolean.");
	er("n1 + 1", "Structure has no component named operator+.");
	er("1 + n1", "Can't do that binary op on that type");
	er("-n1", "Structure has no component named operator-.");
	er("!n1", "Structure has no component named operator!.");
	er("an.y + an", "Can't do that binary op on that type");
	er("$nosuch + 1", "Argument to arithmetic operation not a number or boolean.");
}

static void test_pointers(void)
{
	ev("np", "(struct node *) 0x601040");
	ev("np->next->key", "7");
	ev("np.key", "3");
	ev("n1->key", "3");
	ev("*np->next", "{key = 7, next = 0x0}");
	ev("n1", "{key = 3, next = 0x601050}");
	ev("np + 1", "(struct node *) 0x601050");
	ev("np - 1", "(struct node *) 0x601030");
	ev("1 + np", "(struct node *) 0x601050");
	ev("vp + 1", "(void *) 0x601001");
	ev("np == &n1", "1");
	ev("np != 0", "1");
	ev("!np", "0");
	ev("np > &n2", "0");
	ev("&*np", "(struct node *) 0x601040");
	ev("*&i", "-1");
	ev("&arr", "(int (*)[3]) 0x601030");
	ev("&arr[2] - &arr[0]", "2");
	ty("&arr[2] - &arr[0]", "long");
	ev("&arr[2] - 1", "(int *) 0x601034");
	ev("*(&arr[0] + 2)", "3");
	ev("arr[1]", "2");
	ev("2[arr]", "3");
	ev("*arr", "1");
	ev("arr + 1", "(int *) 0x601034");
	ev("m2[1][2]", "6");
	ev("m2[1]", "{4, 5, 6}");
	ev("cs", "0x601100 \"usr\"");
	ev("cs[1]", "115 's'");
	ev("*cs", "117 'u'");
	ev("cs + 1", "0x601101 \"sr\"");
	ev("s", "\"hello\\000\\000\"");
	ev("s + 1", "0x601071 \"ello\"");
	ev("&s", "(char (*)[8]) 0x601070");
	ev("&s[1]", "0x601071 \"ello\"");
	ev("s == s", "1");
	ev("(int *)8 + 1", "(int *) 0xc");
	ev("(int *)16 - (int *)8", "2");
	ev("(char *)0", "0x0");
	ev("(void *)0", "(void *) 0x0");
	ev("(long *)0 + 2", "(long *) 0x10");
	ev("(int *)8 < (int *)16", "1");
	ev("0 ? 1 : (int *)8", "(int *) 0x8");
	ev("(long)np", "6295616");
	ev("{int} 0x601000", "-1");
	ev("{struct node} 0x601050", "{key = 7, next = 0x0}");
	ev("square", "{int (int)} 0x401136 <square>");
	ev("*square", "{int (int)} 0x401136 <square>");
	ev("&square", "(int (*)(int)) 0x401136 <square>");
	ev("fp", "(void (*)(int)) 0x401136 <square>");
	ev("*fp", "{void (int)} 0x401136 <square>");
	ty("np + 1", "struct node *");
	ty("np - np", "long");
	ty("arr", "int [3]");
	ty("arr + 1", "int *");
	ty("*arr", "int");
	ty("&arr[1]", "int *");
	ty("m2[1]", "int [3]");
	ty("&m2[0]", "int (*)[3]");
	ty("&m2", "int (*)[2][3]");
	ty("s", "char [8]");
	ty("square", "int (int)");
	ty("&square", "int (*)(int)");
	ty("fp", "void (*)(int)");
	er("*0", "Cannot access memory at address 0x0");
	er("*i", "Cannot access memory at address 0xffffffffffffffff");
	er("np->next->next->key", "Cannot access memory at address 0x0");
	er("*vp", "Attempt to dereference a generic pointer.");
	er("*n1", "Structure has no component named operator*.");
	er("*d", "Attempt to take contents of a non-pointer value.");
	er("&1", "Attempt to take address of value not located in memory.");
	er("&$rax", "Attempt to take address of value not located in memory.");
	er("&r", "Address requested for identifier \"r\" which is in register $rbx");   /* gdb */
	er("&bt.a", "Attempt to take address of value not located in memory.");
	er("np * 2", "Argument to arithmetic operation not a number or boolean.");
	er("np + np", "Argument to arithmetic operation not a number or boolean.");
	er("-np", "Argument to negate operation not a number.");
	er("(int *)8 - (char *)0", "First argument of `-' is a pointer and second "
	   "argument is neither\nan integer nor a pointer of the same type.");
	er("i[0]", "cannot subscript something of type `int'");
}

static void test_members_and_repeats(void)
{
	ev("an.x", "1");
	ev("an.y", "2");
	ev("an.p", "3");
	ev("an.q", "4");
	ev("bt.a", "5");
	ev("bt.b", "-3");
	ev("bt.b + 1", "-2");
	ev("bt", "{a = 5, b = -3, c = 1}");
	ty("bt.a", "unsigned int");
	ev("nt", "{key = 1, next = 0x0}");
	ev("nt.key", "1");
	ev("arr[0]@3", "{1, 2, 3}");
	ev("*arr@2", "{1, 2}");
	ev("arr[1]@2", "{2, 3}");
	ev("*s@3", "\"hel\"");
	ev("np->key@2", "{3, 0}");
	ty("arr[0]@2", "int [2]");
	er("i@0", "Invalid number 0 of repetitions.");
	er("1@2", "Only values in memory can be extended with '@'.");
	er("i@16385", "value requires 65540 bytes, which is more than max-value-size");
	er("i.foo", "Attempt to extract a component of a value that is not a structure.");
	er("i->foo", "Attempt to extract a component of a value that is not a structure pointer.");
	er("n1.foo", "There is no member named foo.");
	er("np->foo", "There is no member named foo.");
}

static void test_casts_and_sizeof(void)
{
	ev("(char)321", "65 'A'");
	ev("(unsigned char)-1", "255 '\\377'");
	ev("(signed char)200", "-56 '\\310'");
	ev("(int)3.9", "3");
	ev("(long unsigned int)3", "3");
	ev("(_Bool)5", "true");
	ev("(char)97 == 97", "1");
	ev("(char *)cs", "0x601100 \"usr\"");
	ev("(struct node *)0", "(struct node *) 0x0");
	ev("(node_t *)np", "(node_t *) 0x601040");
	ev("(node_t)nt", "{key = 1, next = 0x0}");
	ev("(ulong_t)-1", "18446744073709551615");
	ev("(i) - 1", "-2");
	ev("(i)*2", "-2");
	ev("(enum color)1", "GREEN");
	ev("(unsigned long)d", "2");
	ev("(float)d", "2.5");
	ev("((int)1)", "1");
	ty("(char)65", "char");
	ty("(unsigned long)1", "unsigned long");
	ty("(unsigned)1", "unsigned int");
	ty("(long long unsigned)1", "unsigned long long");
	ty("(signed)1", "int");
	ty("(short)1", "short");
	ty("(struct node *)0", "struct node *");
	ty("(node_t *)0", "node_t *");
	ty("(long)np", "long");
	ty("(ulong_t)1", "ulong_t");
	ev("sizeof(struct node)", "16");
	ev("sizeof(node_t)", "16");
	ev("sizeof n1", "16");
	ev("sizeof arr", "12");
	ev("sizeof(int *)", "8");
	ev("sizeof(char)", "1");
	ev("sizeof(unsigned long long)", "8");
	ev("sizeof (long double)", "16");
	ev("sizeof(int[3])", "12");
	ev("sizeof(int) * 2", "8");
	ev("sizeof *np", "16");
	ev("sizeof(*(struct node *)0)", "16");
	ev("sizeof i", "4");
	ev("sizeof(i)", "4");
	er("(struct foo *)0", "No struct type named foo.");
	er("(nosuchtype *)0", "No symbol \"nosuchtype\" in current context.");
	er("(struct node)1", "Invalid cast.");
	er("sizeof(nosuch)", "No symbol \"nosuch\" in current context.");
}

static void test_names(void)
{
	ev("i", "-1");
	ev("d", "2.5");
	ev("col", "BLUE");
	ev("b", "true");
	ev("r", "9");
	ev("gone", "<optimized out>");
	ev("$pc", "(void (*)()) 0x401140 <main+4>");
	ev("$sp", "(void *) 0x7ffe0000");
	ev("$rax", "0");
	ev("$foo", "void");
	ev("$1", "42");
	ev("$2", "97 'a'");
	ev("$", "97 'a'");
	ev("$0", "97 'a'");
	ev("$$", "42");
	ev("$$0", "97 'a'");
	ev("$$1", "42");
	ty("$pc", "void (*)()");
	er("$$2", "History does not go back to $$2.");
	er("$5", "History has not yet reached $5.");
	er("nosuch", "No symbol \"nosuch\" in current context.");
	er("nosuch.x", "No symbol \"nosuch\" in current context.");
	er("node_t", "Attempt to use a type name as an expression");
	er("broken", "Unhandled dwarf expression opcode 0xf3");
	/* no call in the environment: gdb's words without a process */
	er("square(3)", "You can't do that without a process to debug.");
	er("square()", "Too few arguments in function call.");
}

static void test_syntax(void)
{
	er("1 +", "A syntax error in expression, near `'.");
	er("1 + )", "A syntax error in expression, near `)'.");
	er("(1", "A syntax error in expression, near `'.");
	er("arr[", "A syntax error in expression, near `'.");
	er("(int)", "A syntax error in expression, near `'.");
	er("1 2", "A syntax error in expression, near `2'.");
	er("5 ? : 3", "A syntax error in expression, near `: 3'.");
	er("1.5.3", "A syntax error in expression, near `.3'.");
	er("", "A syntax error in expression, near `'.");
	er("np->", "A syntax error in expression, near `'.");
	er("1 +* 2", "Cannot access memory at address 0x2");
}

static void test_assignment(void)
{
	er("i = 5", "Assignment is not supported here");
	er("1 = 2", "Left operand of assignment is not an lvalue.");
	er("1 ++", "Left operand of assignment is not an lvalue.");
	struct expr_env w = env;
	w.write_mem = fake_write;
	w.write_reg = fake_write_reg;
	check_with(&w, "i = 5", false, "5");
	check_with(&w, "i", false, "5");
	check_with(&w, "i += 3", false, "8");
	check_with(&w, "i++", false, "9");
	check_with(&w, "c = 66", false, "66 'B'");
	check_with(&w, "np->key = 10", false, "10");
	check_with(&w, "n1.key", false, "10");
	check_with(&w, "d = 1", false, "1");
	check_with(&w, "d / 4", false, "0.25");
	check_with(&w, "$rax = 7", false, "7");
	check_with(&w, "$rax", false, "7");
	check_with(&w, "arr = 1", false, "error: Invalid cast.");
	check_with(&w, "(i = 1), i", false, "1");
	printf("%s assignment_writes\n", mem_writes == 7 && reg_writes == 1 ? "PASS" : "FAIL");
	fill_memory();
}

int main(void)
{
	fill_memory();
	test_literals();
	test_arithmetic();
	test_pointers();
	test_members_and_repeats();
	test_casts_and_sizeof();
	test_names();
	test_syntax();
	test_assignment();
	return 0;
}
