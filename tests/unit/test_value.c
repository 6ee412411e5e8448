/* test_value: val_print and val_type_name against gdb 13's output for the
 * same C values (the expected strings were taken from gdb's print and
 * whatis on a test program), over hand-built DWARF-like types and a fake
 * memory. */
#include <dwarf.h>
#include <stdio.h>
#include <string.h>

#include "value/value.h"

/* Types. */

#define BT(var, n, sz, enc) \
	static struct di_type var = { .kind = DI_BASE, .name = n, .size = sz, .encoding = enc }

BT(t_int, "int", 4, DW_ATE_signed);
BT(t_uint, "unsigned int", 4, DW_ATE_unsigned);
BT(t_char, "char", 1, DW_ATE_signed_char);
BT(t_uchar, "unsigned char", 1, DW_ATE_unsigned_char);
BT(t_schar, "signed char", 1, DW_ATE_signed_char);
BT(t_short, "short int", 2, DW_ATE_signed);
BT(t_ushort, "short unsigned int", 2, DW_ATE_unsigned);
BT(t_long, "long int", 8, DW_ATE_signed);
BT(t_ulong, "long unsigned int", 8, DW_ATE_unsigned);
BT(t_llong, "long long int", 8, DW_ATE_signed);
BT(t_bool, "_Bool", 1, DW_ATE_boolean);
BT(t_float, "float", 4, DW_ATE_float);
BT(t_double, "double", 8, DW_ATE_float);
BT(t_ldouble, "long double", 16, DW_ATE_float);

static struct di_type t_cchar = { .kind = DI_CONST, .target = &t_char };
static struct di_type t_cint = { .kind = DI_CONST, .target = &t_int };
static struct di_type t_vint = { .kind = DI_VOLATILE, .target = &t_int };
static struct di_type t_ccharp = { .kind = DI_PTR, .size = 8, .target = &t_cchar };
static struct di_type t_charp = { .kind = DI_PTR, .size = 8, .target = &t_char };
static struct di_type t_charpc = { .kind = DI_CONST, .target = &t_charp };
static struct di_type t_ucharp = { .kind = DI_PTR, .size = 8, .target = &t_uchar };
static struct di_type t_str = { .kind = DI_TYPEDEF, .name = "str", .target = &t_charp };
static struct di_type t_intp = { .kind = DI_PTR, .size = 8, .target = &t_int };
static struct di_type t_intpp = { .kind = DI_PTR, .size = 8, .target = &t_intp };
static struct di_type t_voidp = { .kind = DI_PTR, .size = 8, .target = NULL };
static struct di_type t_u8 = { .kind = DI_TYPEDEF, .name = "uint8_t", .target = &t_uchar };
static struct di_type t_ulong_t = { .kind = DI_TYPEDEF, .name = "ulong_t", .target = &t_ulong };

static struct di_enumerator color_enums[] = { { "RED", 0 }, { "GREEN", 1 }, { "BLUE", 2 } };
static struct di_type t_color = { .kind = DI_ENUM, .name = "color", .size = 4,
	.target = &t_uint, .enums = color_enums, .nenums = 3 };
static struct di_enumerator flag_enums[] = { { "FA", 1 }, { "FB", 2 }, { "FC", 4 } };
static struct di_type t_flags = { .kind = DI_ENUM, .name = "flags", .size = 4,
	.enums = flag_enums, .nenums = 3 };
static struct di_enumerator neg_enums[] = { { "NA", -1 }, { "NB", 5 } };
static struct di_type t_neg = { .kind = DI_ENUM, .name = "neg", .size = 4,
	.enums = neg_enums, .nenums = 2 };
static struct di_enumerator mb_enums[] = { { "MA", 1 }, { "MB", 6 } };
static struct di_type t_mb = { .kind = DI_ENUM, .name = "mb", .size = 4,
	.enums = mb_enums, .nenums = 2 };
static struct di_enumerator dup_enums[] = { { "DA", 1 }, { "DB", 1 }, { "DC", 2 } };
static struct di_type t_dup = { .kind = DI_ENUM, .name = "dup", .size = 4,
	.enums = dup_enums, .nenums = 3 };

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
static struct di_type t_empty = { .kind = DI_STRUCT, .name = "empty" };

static uint64_t d16[] = { 16 }, d3[] = { 3 }, d4[] = { 4 }, d2x3[] = { 2, 3 },
	d2[] = { 2 }, d10[] = { 10 }, d11[] = { 11 }, d14[] = { 14 }, d300[] = { 300 },
	d8[] = { 8 }, d20[] = { 20 };
#define ARR(var, elem, d, sz) \
	static struct di_type var = { .kind = DI_ARRAY, .target = elem, .dims = d, \
		.ndims = sizeof(d) / sizeof(d[0]), .size = sz }
ARR(t_char16, &t_char, d16, 16);
ARR(t_char4, &t_char, d4, 4);
ARR(t_char3, &t_char, d3, 3);
ARR(t_char8, &t_char, d8, 8);
ARR(t_char20, &t_char, d20, 20);
ARR(t_int3, &t_int, d3, 12);
ARR(t_int10, &t_int, d10, 40);
ARR(t_int11, &t_int, d11, 44);
ARR(t_int14, &t_int, d14, 56);
ARR(t_int300, &t_int, d300, 1200);
ARR(t_int2x3, &t_int, d2x3, 24);
ARR(t_node2, &t_node, d2, 32);
ARR(t_charp2, &t_charp, d2, 16);
static struct di_type t_int3p = { .kind = DI_PTR, .size = 8, .target = &t_int3 };
static struct di_type t_charp2p = { .kind = DI_PTR, .size = 8, .target = &t_charp2 };
static struct di_type t_flex = { .kind = DI_ARRAY, .target = &t_char };

static const struct di_type *int_param[] = { &t_int };
static const struct di_type *va_param[] = { &t_ccharp };
static struct di_type t_fvoid_int = { .kind = DI_FUNC, .params = int_param, .nparams = 1 };
static struct di_type t_fint_int = { .kind = DI_FUNC, .target = &t_int,
	.params = int_param, .nparams = 1 };
static struct di_type t_fint_void = { .kind = DI_FUNC, .target = &t_int };
static struct di_type t_fint_va = { .kind = DI_FUNC, .target = &t_int,
	.params = va_param, .nparams = 1, .varargs = true };
static struct di_type t_fvoid_intp = { .kind = DI_PTR, .size = 8, .target = &t_fvoid_int };
static struct di_type t_fint_intp = { .kind = DI_PTR, .size = 8, .target = &t_fint_int };

static struct di_member outer_in_members[] = {
	{ .name = "a", .type = &t_int, .offset = 0 },
	{ .name = "b", .type = &t_char4, .offset = 4 },
};
static struct di_type t_inner = { .kind = DI_STRUCT, .name = "inner", .size = 8,
	.members = outer_in_members, .nmembers = 2 };
static struct di_member outer_members[] = {
	{ .name = "in", .type = &t_inner, .offset = 0 },
	{ .name = "arr", .type = &t_int3, .offset = 8 },
	{ .name = "d", .type = &t_double, .offset = 24 },
	{ .name = "cb", .type = &t_fvoid_intp, .offset = 32 },
	{ .name = "name", .type = &t_ccharp, .offset = 40 },
	{ .name = "c", .type = &t_color, .offset = 48 },
};
static struct di_type t_outer = { .kind = DI_STRUCT, .name = "outer", .size = 56,
	.members = outer_members, .nmembers = 6 };

static struct di_member u_members[] = {
	{ .name = "i", .type = &t_int },
	{ .name = "f", .type = &t_float },
	{ .name = "c", .type = &t_char4 },
};
static struct di_type t_union = { .kind = DI_UNION, .name = "u", .size = 4,
	.members = u_members, .nmembers = 3 };

static struct di_member bits_members[] = {
	{ .name = "a", .type = &t_uint, .offset = 0, .bit_size = 3, .bit_offset = 0 },
	{ .name = "b", .type = &t_int, .offset = 0, .bit_size = 5, .bit_offset = 3 },
	{ .name = "c", .type = &t_uint, .offset = 1, .bit_size = 1, .bit_offset = 0 },
};
static struct di_type t_bits = { .kind = DI_STRUCT, .name = "bits", .size = 4,
	.members = bits_members, .nmembers = 3 };

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
static struct di_type t_anon_sp = { .kind = DI_PTR, .size = 8, .target = &t_anon_s };

/* Memory and symbols of the fake process, at gdb's addresses. */

struct region {
	uint64_t addr;
	const char *data;
	size_t len;
};

static char heap_x[300], heap_y[201], heap_200[201], heap_199[200], heap_201[202],
	heap_z[251], heap_m[216], edge[200];
static struct region regions[] = {
	{ 0x555555556004, "", 1 },
	{ 0x555555556010, "usr\0abc\0xyz\0nm\0one\0two\0a\0b\0", 37 },
	{ 0x5555555592a0, heap_x, sizeof(heap_x) },
	{ 0x5555555593e0, heap_y, sizeof(heap_y) },
	{ 0x555555559520, heap_200, sizeof(heap_200) },
	{ 0x555555559620, heap_199, sizeof(heap_199) },
	{ 0x555555559720, heap_201, sizeof(heap_201) },
	{ 0x555555559900, heap_z, sizeof(heap_z) },
	{ 0x555555559a00, heap_m, sizeof(heap_m) },
	{ 0x7ffff7fbeffe, "kk", 2 },
	{ 0x7ffff7fbef38, edge, sizeof(edge) },
};

static void fill_heap(void)
{
	memset(heap_x, 'x', 299);
	memset(heap_y, 'y', 200);
	for (int i = 0; i < 201; i++) {
		char ch = (char)('a' + i % 26);
		heap_200[i] = i < 200 ? ch : 0;
		heap_201[i] = ch;
		if (i < 199)
			heap_199[i] = ch;
		if (i < 195)
			heap_m[i] = ch;
	}
	memset(heap_m + 195, 'z', 20);
	memset(heap_z, 'z', 250);
	memset(edge, 'k', sizeof(edge));
}

static int fake_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	(void)arg;
	for (size_t i = 0; i < sizeof(regions) / sizeof(regions[0]); i++) {
		const struct region *r = &regions[i];
		if (addr >= r->addr && addr + len <= r->addr + r->len) {
			memcpy(buf, r->data + (addr - r->addr), len);
			return 0;
		}
	}
	return -1;
}

static const struct { uint64_t addr, size; const char *name; } syms[] = {
	{ 0x555555555149, 10, "handler" },
	{ 0x555555555153, 15, "square" },
	{ 0x555555555162, 11, "noargs" },
	{ 0x555555555178, 20, "va" },
	{ 0x55555555519f, 10, "h" },
	{ 0x5555555551d5, 2000, "main" },
	{ 0x555555558020, 4, "g" },
	{ 0x555555558030, 20, "garr" },
};

static const char *fake_symbolize(void *arg, uint64_t addr, char *buf, size_t len)
{
	(void)arg;
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		if (addr < syms[i].addr || addr >= syms[i].addr + syms[i].size)
			continue;
		if (addr == syms[i].addr)
			return syms[i].name;
		snprintf(buf, len, "%s+%llu", syms[i].name,
			 (unsigned long long)(addr - syms[i].addr));
		return buf;
	}
	return NULL;
}

/* Checks. */

static int nfail;

static void check(const char *name, const char *got, const char *want)
{
	if (strcmp(got, want) == 0) {
		printf("PASS %s\n", name);
		return;
	}
	printf("FAIL %s: got <%s>, want <%s>\n", name, got, want);
	nfail++;
}

static struct val_print opts(char fmt)
{
	struct val_print p = { .format = fmt, .top = true, .max_elements = 200,
			       .read_mem = fake_read, .symbolize = fake_symbolize };
	return p;
}

static void check_val(const char *name, const struct val *v,
		      const struct val_print *p, const char *want)
{
	struct sbuf b = {0};
	val_print(&b, v, p);
	check(name, b.s ? b.s : "", want);
	sbuf_free(&b);
}

static void pv(const char *name, const struct di_type *t, const void *bytes,
	       size_t n, char fmt, const char *want)
{
	struct val v = val_from_bytes(t, bytes, n);
	struct val_print p = opts(fmt);
	check_val(name, &v, &p, want);
	val_free(&v);
}

/* P for scalar values, PA for arrays and structs (lvalues). */
#define P(name, t, cval, fmt, want) \
	do { __typeof__(cval) x_ = (cval); pv(name, t, &x_, sizeof(x_), fmt, want); } while (0)
#define PA(name, t, obj, fmt, want) pv(name, t, &(obj), sizeof(obj), fmt, want)

static void pv_mem(const char *name, const struct di_type *t, const void *bytes,
		   size_t n, uint64_t addr, const char *want)
{
	struct val v = val_from_bytes(t, bytes, n);
	v.where = VAL_MEM;
	v.addr = addr;
	struct val_print p = opts(0);
	check_val(name, &v, &p, want);
	val_free(&v);
}

static void test_scalars(void)
{
	P("char", &t_char, (char)'a', 0, "97 'a'");
	P("char_nl", &t_char, (char)'\n', 0, "10 '\\n'");
	P("char_nul", &t_char, (char)'\0', 0, "0 '\\000'");
	P("char_minus1", &t_char, (char)-1, 0, "-1 '\\377'");
	P("char_quote", &t_char, (char)'\'', 0, "39 '\\''");
	P("char_backslash", &t_char, (char)'\\', 0, "92 '\\\\'");
	P("char_dquote", &t_char, (char)'"', 0, "34 '\"'");
	P("char_tab", &t_char, (char)'\t', 0, "9 '\\t'");
	P("char_esc", &t_char, (char)27, 0, "27 '\\033'");
	P("char_del", &t_char, (char)127, 0, "127 '\\177'");
	P("uchar_255", &t_uchar, (unsigned char)255, 0, "255 '\\377'");
	P("schar_minus5", &t_schar, (signed char)-5, 0, "-5 '\\373'");
	P("uint8_t", &t_u8, (unsigned char)65, 0, "65 'A'");
	P("short", &t_short, (short)-3, 0, "-3");
	P("ushort", &t_ushort, (unsigned short)65535, 0, "65535");
	P("int", &t_int, -1, 0, "-1");
	P("uint", &t_uint, 4000000000u, 0, "4000000000");
	P("long", &t_long, -1234567890123L, 0, "-1234567890123");
	P("ulong", &t_ulong, 18446744073709551615UL, 0, "18446744073709551615");
	P("typedef_ulong", &t_ulong_t, 5UL, 0, "5");
	P("const_int", &t_cint, 5, 0, "5");
	P("bool_true", &t_bool, (unsigned char)1, 0, "true");
	P("bool_false", &t_bool, (unsigned char)0, 0, "false");
	P("float_1.5", &t_float, 1.5f, 0, "1.5");
	P("float_pi", &t_float, 3.14159265f, 0, "3.14159274");
	P("float_0", &t_float, 0.0f, 0, "0");
	P("float_big", &t_float, 1e20f, 0, "1.00000002e+20");
	P("float_small", &t_float, 1e-10f, 0, "1.00000001e-10");
	P("double_0.1", &t_double, 0.1, 0, "0.10000000000000001");
	P("double_1", &t_double, 1.0, 0, "1");
	P("double_1e100", &t_double, 1e100, 0, "1e+100");
	P("double_123456789", &t_double, 123456789.0, 0, "123456789");
	P("double_neg0", &t_double, -0.0, 0, "-0");
	P("double_inf", &t_double, 1.0 / 0.0, 0, "inf");
	P("double_nan", &t_double, -__builtin_nan(""), 0, "-nan(0x8000000000000)");
	P("float_nan", &t_float, -__builtin_nanf(""), 0, "-nan(0x400000)");
	P("long_double", &t_ldouble, 1.1L, 0, "1.10000000000000000002");
}

static void test_enums(void)
{
	P("enum", &t_color, 2, 0, "BLUE");
	P("enum_flag_unknown", &t_color, 7, 0, "(GREEN | BLUE | unknown: 0x4)");
	P("enum_flags", &t_flags, 5, 0, "(FA | FC)");
	P("enum_flags_0", &t_flags, 0, 0, "0");
	P("enum_flags_extra", &t_flags, 9, 0, "(FA | unknown: 0x8)");
	P("enum_flags_none", &t_flags, 16, 0, "(unknown: 0x10)");
	P("enum_negative", &t_neg, -1, 0, "NA");
	P("enum_not_flag", &t_neg, 6, 0, "6");
	P("enum_multibit", &t_mb, 7, 0, "7");
	P("enum_dup", &t_dup, 3, 0, "(DA | DC)");
	P("enum_dup_exact", &t_dup, 1, 0, "DA");
}

static void test_pointers(void)
{
	P("ptr_struct", &t_nodep, 0x7fffffffe510UL, 0, "(struct node *) 0x7fffffffe510");
	P("ptr_null", &t_nodep, 0UL, 0, "(struct node *) 0x0");
	P("ptr_to_global", &t_intp, 0x555555558020UL, 0, "(int *) 0x555555558020 <g>");
	P("ptr_ptr", &t_intpp, 0x7fffffffe4f8UL, 0, "(int **) 0x7fffffffe4f8");
	P("ptr_void", &t_voidp, 0x555555558020UL, 0, "(void *) 0x555555558020 <g>");
	P("ptr_into_array", &t_intp, 0x555555558034UL, 0, "(int *) 0x555555558034 <garr+4>");
	P("ptr_const_char", &t_ccharp, 0x555555556010UL, 0, "0x555555556010 \"usr\"");
	P("ptr_char_const", &t_charpc, 0x555555556014UL, 0, "0x555555556014 \"abc\"");
	P("ptr_typedef_str", &t_str, 0x555555556014UL, 0, "(str) 0x555555556014 \"abc\"");
	P("ptr_uchar", &t_ucharp, 0x555555556018UL, 0, "(unsigned char *) 0x555555556018 \"xyz\"");
	P("ptr_bad", &t_charp, 0x10UL, 0, "0x10 <error: Cannot access memory at address 0x10>");
	P("ptr_char_null", &t_charp, 0UL, 0, "0x0");
	P("ptr_empty_string", &t_charp, 0x555555556004UL, 0, "0x555555556004 \"\"");
	P("ptr_func", &t_fvoid_intp, 0x555555555149UL, 0,
	  "(void (*)(int)) 0x555555555149 <handler>");
	P("ptr_func_int", &t_fint_intp, 0x555555555153UL, 0,
	  "(int (*)(int)) 0x555555555153 <square>");
	P("ptr_func_null", &t_fint_intp, 0UL, 0, "(int (*)(int)) 0x0");
	P("ptr_array", &t_int3p, 0x7fffffffe4acUL, 0, "(int (*)[3]) 0x7fffffffe4ac");
	P("pc", val_builtin("code *"), 0x5555555557e9UL, 0,
	  "(void (*)()) 0x5555555557e9 <main+1556>");
	P("sp", val_builtin("void *"), 0x7fffffffde90UL, 0, "(void *) 0x7fffffffde90");
}

static void test_strings_behind_pointers(void)
{
	struct sbuf abc = {0};
	for (int i = 0; i < 200; i++)
		sbuf_addc(&abc, (char)('a' + i % 26));
	char want[512];
	P("str_repeats_limit", &t_charp, 0x5555555592a0UL, 0,
	  "0x5555555592a0 'x' <repeats 200 times>...");
	P("str_repeats_exact", &t_charp, 0x5555555593e0UL, 0,
	  "0x5555555593e0 'y' <repeats 200 times>");
	snprintf(want, sizeof(want), "0x555555559520 \"%s\"", abc.s);
	P("str_200", &t_charp, 0x555555559520UL, 0, want);
	snprintf(want, sizeof(want), "0x555555559620 \"%.199s\"", abc.s);
	P("str_199", &t_charp, 0x555555559620UL, 0, want);
	snprintf(want, sizeof(want), "0x555555559720 \"%s\"...", abc.s);
	P("str_201", &t_charp, 0x555555559720UL, 0, want);
	P("str_run_limit", &t_charp, 0x555555559900UL, 0,
	  "0x555555559900 'z' <repeats 200 times>...");
	snprintf(want, sizeof(want), "0x555555559a00 \"%.195szzzzz\"...", abc.s);
	P("str_run_cut", &t_charp, 0x555555559a00UL, 0, want);
	P("str_then_fault", &t_charp, 0x7ffff7fbeffeUL, 0,
	  "0x7ffff7fbeffe \"kk\"<error: Cannot access memory at address 0x7ffff7fbf000>");
	P("str_200_then_fault", &t_charp, 0x7ffff7fbef38UL, 0,
	  "0x7ffff7fbef38 'k' <repeats 200 times>");
	sbuf_free(&abc);
}

static void test_char_arrays(void)
{
	char buf[16] = "abc", reps[20], mixed[8] = "a\n\"'\\\001", nn[20] = {0};
	memset(reps, 0, sizeof(reps));
	memset(reps, 'a', 15);
	reps[15] = 'b';
	PA("chars_nul_tail", &t_char16, buf, 0, "\"abc\", '\\000' <repeats 12 times>");
	PA("chars_full", &t_char4, "abc", 0, "\"abc\"");
	PA("chars_no_nul", &t_char3, "xyz", 0, "\"xyz\"");
	PA("chars_repeats", &t_char20, reps, 0, "'a' <repeats 15 times>, \"b\\000\\000\\000\"");
	PA("chars_escapes", &t_char8, mixed, 0, "\"a\\n\\\"'\\\\\\001\\000\"");
	PA("chars_all_nul", &t_char20, nn, 0, "'\\000' <repeats 19 times>");
	char x11[20] = "xxxxxxxxxxxy", x10[20] = "xxxxxxxxxxyy";
	memset(x11 + 12, 'q', 8);
	memset(x10 + 12, 'q', 8);
	PA("chars_11_repeat", &t_char20, x11, 0, "'x' <repeats 11 times>, \"yqqqqqqqq\"");
	PA("chars_10_inline", &t_char20, x10, 0, "\"xxxxxxxxxxyyqqqqqqqq\"");
	char hi[8] = { 'h', 'i', (char)200, 1, 0x7f, ' ', '~', 0 };
	PA("chars_octal", &t_char8, hi, 0, "\"hi\\310\\001\\177 ~\"");
	char q[4] = "'\"?";
	PA("chars_quotes", &t_char4, q, 0, "\"'\\\"?\"");
	PA("chars_x", &t_char16, buf, 'x', "{0x61, 0x62, 0x63, 0x0 <repeats 13 times>}");
	PA("chars_c", &t_char16, buf, 'c', "{97 'a', 98 'b', 99 'c', 0 '\\000' <repeats 13 times>}");
	PA("chars_u", &t_char16, buf, 'u', "{97, 98, 99, 0 <repeats 13 times>}");
	PA("chars_s", &t_char16, buf, 's', "\"abc\", '\\000' <repeats 12 times>");
	pv_mem("flexible_array", &t_flex, "", 0, 0x555555556014, "0x555555556014 \"abc\"");
	struct di_type iflex = { .kind = DI_ARRAY, .target = &t_int };
	pv_mem("flexible_int_array", &iflex, "", 0, 0x5555555592c4, "0x5555555592c4");
}

static void test_long_char_arrays(void)
{
	uint64_t d200[] = { 200 }, d202[] = { 202 }, d230[] = { 230 };
	struct di_type a200 = { .kind = DI_ARRAY, .target = &t_char, .dims = d200, .ndims = 1, .size = 200 };
	struct di_type a202 = { .kind = DI_ARRAY, .target = &t_char, .dims = d202, .ndims = 1, .size = 202 };
	struct di_type a230 = { .kind = DI_ARRAY, .target = &t_char, .dims = d230, .ndims = 1, .size = 230 };
	char b[230] = {0}, want[512], abc[230];
	for (int i = 0; i < 230; i++)
		abc[i] = (char)('a' + i % 26);
	memset(b, 'y', 200);
	pv("chararr_200_run", &a200, b, 200, 0, "'y' <repeats 200 times>");
	memcpy(b, abc, 200);
	snprintf(want, sizeof(want), "\"%.200s\"", abc);
	pv("chararr_200", &a200, b, 200, 0, want);
	memcpy(b, abc, 201);
	b[201] = 0;
	snprintf(want, sizeof(want), "\"%.200s\"...", abc);
	pv("chararr_201", &a202, b, 202, 0, want);
	memset(b, 0, sizeof(b));
	memcpy(b, abc, 190);
	memset(b + 190, 'z', 20);
	b[210] = 'q';
	snprintf(want, sizeof(want), "\"%.190s\", 'z' <repeats 20 times>...", abc);
	pv("chararr_run_past_limit", &a230, b, 230, 0, want);
}

static void test_arrays(void)
{
	int arr[3] = { 1, 2, 3 }, z10[10] = {0}, z11[11] = {0};
	int rr[14] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 3 }, big[300];
	int m2[2][3] = { { 1, 2, 3 }, { 4, 5, 6 } };
	struct { int key; int pad; uint64_t next; } narr[2] = { { 1, 0, 0 }, { 2, 0, 0 } };
	PA("array", &t_int3, arr, 0, "{1, 2, 3}");
	PA("array_10_zeros", &t_int10, z10, 0, "{0, 0, 0, 0, 0, 0, 0, 0, 0, 0}");
	PA("array_11_zeros", &t_int11, z11, 0, "{0 <repeats 11 times>}");
	PA("array_run_then_more", &t_int14, rr, 0, "{1 <repeats 12 times>, 2, 3}");
	PA("array_2d", &t_int2x3, m2, 0, "{{1, 2, 3}, {4, 5, 6}}");
	PA("array_2d_x", &t_int2x3, m2, 'x', "{{0x1, 0x2, 0x3}, {0x4, 0x5, 0x6}}");
	PA("array_structs", &t_node2, narr, 0, "{{key = 1, next = 0x0}, {key = 2, next = 0x0}}");
	PA("array_x", &t_int3, arr, 'x', "{0x1, 0x2, 0x3}");
	PA("array_z", &t_int3, arr, 'z', "{0x00000001, 0x00000002, 0x00000003}");
	PA("array_c", &t_int3, arr, 'c', "{1 '\\001', 2 '\\002', 3 '\\003'}");
	PA("array_s", &t_int3, arr, 's', "{1, 2, 3}");
	struct sbuf want = {0};
	sbuf_add(&want, "{");
	for (int i = 0; i < 300; i++) {
		big[i] = i;
		if (i < 200)
			sbuf_printf(&want, "%s%d", i ? ", " : "", i);
	}
	sbuf_add(&want, "...}");
	PA("array_limit", &t_int300, big, 0, want.s);
	sbuf_free(&want);
	uint64_t strs[2] = { 0x55555555601f, 0x555555556023 };
	PA("array_of_strings", &t_charp2, strs, 0, "{0x55555555601f \"one\", 0x555555556023 \"two\"}");
	PA("array_of_strings_x", &t_charp2, strs, 'x', "{0x55555555601f, 0x555555556023}");
	PA("array_of_strings_s", &t_charp2, strs, 's', "{0x55555555601f \"one\", 0x555555556023 \"two\"}");
}

static void test_structs(void)
{
	struct { int key; int pad; uint64_t next; } n1 = { 3, 0, 0x7fffffffe520 }, nt = { 1, 0, 0 };
	PA("struct", &t_node, n1, 0, "{key = 3, next = 0x7fffffffe520}");
	PA("struct_typedef", &t_node_t, nt, 0, "{key = 1, next = 0x0}");
	PA("struct_x", &t_node, n1, 'x', "{key = 0x3, next = 0x7fffffffe520}");
	struct { int a; char b[4]; int arr[3]; int pad; double d; uint64_t cb, name; int c, pad2; } o = {
		1, "hi", { 4, 5, 6 }, 0, 2.5, 0x555555555149, 0x55555555601c, 1, 0 };
	PA("struct_nested", &t_outer, o, 0,
	  "{in = {a = 1, b = \"hi\\000\"}, arr = {4, 5, 6}, d = 2.5, cb = 0x555555555149 <handler>, "
	  "name = 0x55555555601c \"nm\", c = GREEN}");
	P("union", &t_union, 0x3fc00000, 0, "{i = 1069547520, f = 1.5, c = \"\\000\\000\\300?\"}");
	P("union_x", &t_union, 0x3fc00000, 'x', "{i = 0x3fc00000, f = 0x3fc00000, c = {0x0, 0x0, 0xc0, 0x3f}}");
	unsigned char bits[4] = { 0xed, 0x01, 0, 0 };
	PA("bitfields", &t_bits, bits, 0, "{a = 5, b = -3, c = 1}");
	PA("bitfields_x", &t_bits, bits, 'x', "{a = 0x5, b = 0xfffffffd, c = 0x1}");
	int an[4] = { 1, 2, 3, 4 };
	PA("anonymous_members", &t_anon, an, 0, "{x = 1, {y = 2, z = 2.80259693e-45}, {p = 3, q = 4}}");
	P("incomplete", &t_opaque, 0, 0, "<incomplete type>");
	P("empty_struct", &t_empty, 0, 0, "{<No data fields>}");
}

static void test_functions(void)
{
	pv_mem("func", &t_fvoid_int, "", 0, 0x555555555149, "{void (int)} 0x555555555149 <handler>");
	pv_mem("func_int", &t_fint_int, "", 0, 0x555555555153, "{int (int)} 0x555555555153 <square>");
	pv_mem("func_void", &t_fint_void, "", 0, 0x555555555162, "{int (void)} 0x555555555162 <noargs>");
	pv_mem("func_varargs", &t_fint_va, "", 0, 0x555555555178,
	       "{int (const char *, ...)} 0x555555555178 <va>");
}

static void test_formats(void)
{
	P("x_int", &t_int, -1, 'x', "0xffffffff");
	P("x_char", &t_char, (char)'a', 'x', "0x61");
	P("x_char_neg", &t_char, (char)-1, 'x', "0xff");
	P("x_bool", &t_bool, (unsigned char)1, 'x', "0x1");
	P("x_float", &t_float, 1.5f, 'x', "0x3fc00000");
	P("x_double", &t_double, 123456789.0, 'x', "0x419d6f3454000000");
	P("x_enum", &t_color, 2, 'x', "0x2");
	P("x_ptr", &t_nodep, 0x7fffffffe510UL, 'x', "0x7fffffffe510");
	P("x_short", &t_short, (short)-3, 'x', "0xfffd");
	P("x_ulong", &t_ulong, ~0UL, 'x', "0xffffffffffffffff");
	P("x_func_ptr", &t_fvoid_intp, 0x555555555149UL, 'x', "0x555555555149");
	long double ld = 1.1L;
	unsigned char ldb[16] = {0};  /* gdb shows the padding too: keep it 0 */
	memcpy(ldb, &ld, 10);
	PA("x_long_double", &t_ldouble, ldb, 'x', "0x3fff8ccccccccccccccd");
	P("d_uint", &t_uint, 4000000000u, 'd', "-294967296");
	P("d_ulong", &t_ulong, ~0UL, 'd', "-1");
	P("d_uchar", &t_uchar, (unsigned char)255, 'd', "-1");
	P("d_ptr", &t_nodep, 0x7fffffffe510UL, 'd', "140737488348432");
	P("d_float", &t_float, 1.5f, 'd', "1069547520");
	P("d_enum", &t_color, 2, 'd', "2");
	P("u_int", &t_int, -1, 'u', "4294967295");
	P("u_char", &t_char, (char)-1, 'u', "255");
	P("u_short", &t_short, (short)-3, 'u', "65533");
	P("o_int", &t_int, -1, 'o', "037777777777");
	P("o_zero", &t_int, 0, 'o', "0");
	P("o_8", &t_int, 8, 'o', "010");
	P("o_char", &t_char, (char)'a', 'o', "0141");
	P("o_ptr", &t_nodep, 0x7fffffffe510UL, 'o', "03777777777762420");
	P("t_5", &t_int, 5, 't', "101");
	P("t_0", &t_int, 0, 't', "0");
	P("t_char", &t_char, (char)-1, 't', "11111111");
	P("t_short", &t_short, (short)-3, 't', "1111111111111101");
	P("t_enum", &t_color, 2, 't', "10");
	P("c_65", &t_int, 65, 'c', "65 'A'");
	P("c_321", &t_int, 321, 'c', "65 'A'");
	P("c_minus1", &t_int, -1, 'c', "-1 '\\377'");
	P("c_float", &t_float, 1.5f, 'c', "1 '\\001'");
	P("c_uchar", &t_uchar, (unsigned char)255, 'c', "255 '\\377'");
	P("c_ptr", &t_nodep, 0x7fffffffe510UL, 'c', "16 '\\020'");
	P("a_text", &t_long, 0x555555555149L, 'a', "0x555555555149 <handler>");
	P("a_zero", &t_int, 0, 'a', "0x0");
	P("a_ptr", &t_nodep, 0x7fffffffe510UL, 'a', "0x7fffffffe510");
	P("a_data", &t_intp, 0x555555558020UL, 'a', "0x555555558020 <g>");
	P("a_main_offset", val_builtin("code *"), 0x5555555557e9UL, 'a', "0x5555555557e9 <main+1556>");
	P("a_int_minus1", &t_int, -1, 'a', "0xffffffffffffffff");
	P("s_int", &t_int, -1, 's', "-1");
	P("s_ptr", &t_nodep, 0x7fffffffe510UL, 's', "(struct node *) 0x7fffffffe510");
	P("s_char_ptr", &t_ccharp, 0x555555556010UL, 's', "0x555555556010 \"usr\"");
	P("s_uchar_ptr", &t_ucharp, 0x555555556018UL, 's', "(unsigned char *) 0x555555556018 \"xyz\"");
	P("z_1", &t_int, 1, 'z', "0x00000001");
	P("z_int", &t_int, -1, 'z', "0xffffffff");
	P("z_char", &t_char, (char)'a', 'z', "0x61");
	P("z_ptr", &t_nodep, 0x7fffffffe510UL, 'z', "0x00007fffffffe510");
	P("z_short", &t_short, (short)-3, 'z', "0xfffd");
	P("f_int", &t_int, 3, 'f', "4.20389539e-45");
	P("f_double", &t_double, 1.5, 'f', "1.5");
}

static void test_contexts(void)
{
	struct val_print fa = opts(0);
	fa.frame_arg = true;
	struct val v = val_from_bytes(&t_node, "\3\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16);
	check_val("frame_arg_struct", &v, &fa, "...");
	val_free(&v);
	uint64_t p = 0x555555556024;
	regions[0].addr = 0x555555556024;
	regions[0].data = "nm";
	regions[0].len = 3;
	v = val_from_bytes(&t_charp, &p, 8);
	check_val("frame_arg_string", &v, &fa, "0x555555556024 \"nm\"");
	val_free(&v);
	p = 0x7fffffffe500;
	v = val_from_bytes(&t_intp, &p, 8);
	check_val("frame_arg_pointer", &v, &fa, "0x7fffffffe500");
	val_free(&v);
	p = 0x55555555519f;
	v = val_from_bytes(&t_fvoid_intp, &p, 8);
	check_val("frame_arg_func_ptr", &v, &fa, "0x55555555519f <h>");
	val_free(&v);
	v = val_from_int(&t_char, (char)'q');
	check_val("frame_arg_char", &v, &fa, "113 'q'");
	val_free(&v);
	v = val_from_int(&t_int, 5);
	v.optimized_out = true;
	check_val("optimized_out", &v, &fa, "<optimized out>");
	struct val_print top = opts(0);
	check_val("optimized_out_top", &v, &top, "<optimized out>");
	val_free(&v);
	v = val_from_bytes(val_builtin("void"), "", 0);
	check_val("void", &v, &top, "void");
	val_free(&v);
	struct val_print nested = opts(0);
	nested.top = false;
	p = 0x7fffffffe510;
	v = val_from_bytes(&t_nodep, &p, 8);
	check_val("pointer_not_top", &v, &nested, "0x7fffffffe510");
	val_free(&v);
	struct val_print nosym = opts(0);
	nosym.symbolize = NULL;
	p = 0x555555558020;
	v = val_from_bytes(&t_intp, &p, 8);
	check_val("pointer_no_symbolizer", &v, &nosym, "(int *) 0x555555558020");
	val_free(&v);
}

static void tn(const char *name, const struct di_type *t, const char *want)
{
	struct sbuf b = {0};
	val_type_name(&b, t);
	check(name, b.s ? b.s : "", want);
	sbuf_free(&b);
}

static void test_type_names(void)
{
	struct di_type cp = { .kind = DI_CONST, .target = &t_charp };
	struct di_type cpp = { .kind = DI_PTR, .size = 8, .target = &cp };
	tn("name_int", &t_int, "int");
	tn("name_ulong", &t_ulong, "unsigned long");
	tn("name_ushort", &t_ushort, "unsigned short");
	tn("name_llong", &t_llong, "long long");
	tn("name_bool", &t_bool, "_Bool");
	tn("name_enum", &t_color, "enum color");
	tn("name_struct", &t_node, "struct node");
	tn("name_struct_ptr", &t_nodep, "struct node *");
	tn("name_typedef", &t_node_t, "node_t");
	tn("name_typedef_ptr", val_pointer_to(&t_node_t), "node_t *");
	tn("name_ptr_ptr", &t_intpp, "int **");
	tn("name_ptr_ptr_ptr", val_pointer_to(&t_intpp), "int ***");
	tn("name_void_ptr", &t_voidp, "void *");
	tn("name_const_char_ptr", &t_ccharp, "const char *");
	tn("name_char_ptr_const", &cp, "char * const");
	tn("name_char_ptr_const_ptr", &cpp, "char * const *");
	tn("name_const_int", &t_cint, "const int");
	tn("name_const_int_ptr", val_pointer_to(&t_cint), "const int *");
	tn("name_volatile_int", &t_vint, "volatile int");
	tn("name_char_array", &t_char16, "char [16]");
	tn("name_2d_array", &t_int2x3, "int [2][3]");
	tn("name_ptr_2d_array", val_pointer_to(&t_int2x3), "int (*)[2][3]");
	tn("name_row_of_2d_array", val_pointer_to(val_array_elem(&t_int2x3)), "int (*)[3]");
	tn("name_struct_array", &t_node2, "struct node [2]");
	tn("name_ptr_array", &t_charp2, "char *[2]");
	tn("name_ptr_to_ptr_array", &t_charp2p, "char *(*)[2]");
	tn("name_ptr_to_array", &t_int3p, "int (*)[3]");
	tn("name_func", &t_fvoid_int, "void (int)");
	tn("name_func_void", &t_fint_void, "int (void)");
	tn("name_func_varargs", &t_fint_va, "int (const char *, ...)");
	tn("name_func_ptr", &t_fvoid_intp, "void (*)(int)");
	tn("name_func_ptr_int", &t_fint_intp, "int (*)(int)");
	tn("name_varargs_ptr", val_pointer_to(&t_fint_va), "int (*)(const char *, ...)");
	tn("name_code", val_builtin("code *"), "void (*)()");
	tn("name_union", &t_union, "union u");
	tn("name_anon_struct", &t_anon_s, "struct {...}");
	tn("name_anon_struct_ptr", &t_anon_sp, "struct {...} *");
	tn("name_anon_union", &t_anon_u, "union {...}");
	tn("name_uint8_t", &t_u8, "uint8_t");
	tn("name_array_of", val_array_of(&t_int, 2), "int [2]");
	tn("name_str_typedef", &t_str, "str");
}

static void test_values(void)
{
	struct val v = val_from_int(&t_char, -1);
	check("as_int_char", v.size == 1 && val_as_int(&v) == -1 ? "ok" : "bad", "ok");
	val_free(&v);
	v = val_from_int(&t_uchar, -1);
	check("as_int_uchar", val_as_int(&v) == 255 ? "ok" : "bad", "ok");
	val_free(&v);
	v = val_from_double(&t_float, 2.5);
	check("as_double_float", val_as_double(&v) == 2.5 && val_as_int(&v) == 2 ? "ok" : "bad", "ok");
	check("is_float", val_is_float(&v) && !val_is_integer(&v) ? "ok" : "bad", "ok");
	val_free(&v);
	v = val_from_int(&t_color, 2);
	check("enum_is_integer", val_is_integer(&v) && !val_is_pointer(&v) ? "ok" : "bad", "ok");
	struct val c = val_copy(&v);
	check("copy", c.bytes != v.bytes && val_as_int(&c) == 2 ? "ok" : "bad", "ok");
	val_free(&c);
	val_free(&v);
	check("pointer_interned", val_pointer_to(&t_node) == val_pointer_to(&t_node) ? "ok" : "bad", "ok");
	check("array_interned", val_array_of(&t_int, 4) == val_array_of(&t_int, 4) &&
	      val_array_of(&t_int, 4) != val_array_of(&t_int, 5) ? "ok" : "bad", "ok");
	check("builtin_char_ptr", val_builtin("char *") == val_pointer_to(val_builtin("char")) ? "ok" : "bad", "ok");
	check("builtin_sizes", val_type_size(val_builtin("long double")) == 16 &&
	      val_type_size(val_builtin("unsigned short")) == 2 &&
	      val_type_size(val_builtin("void")) == 1 && !val_builtin("nonsense") ? "ok" : "bad", "ok");
	check("array_sizes", val_type_size(&t_int2x3) == 24 && val_array_len(&t_int2x3) == 2 &&
	      val_type_size(val_array_elem(&t_int2x3)) == 12 ? "ok" : "bad", "ok");
	unsigned char bits[4] = { 0xed, 0x01, 0, 0 };
	v = val_from_bytes(&t_bits, bits, 4);
	struct val b = val_member(&v, &bits_members[1]);
	check("member_bitfield", val_as_int(&b) == -3 && b.where == VAL_RVALUE ? "ok" : "bad", "ok");
	val_free(&b);
	val_free(&v);
	v = val_from_bytes(&t_node, "\7\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16);
	v.where = VAL_MEM;
	v.addr = 0x1000;
	b = val_member(&v, &node_members[1]);
	check("member_location", b.where == VAL_MEM && b.addr == 0x1008 ? "ok" : "bad", "ok");
	val_free(&b);
	val_free(&v);
}

int main(void)
{
	fill_heap();
	test_scalars();
	test_enums();
	test_pointers();
	test_strings_behind_pointers();
	test_char_arrays();
	test_long_char_arrays();
	test_arrays();
	test_structs();
	test_functions();
	test_formats();
	test_contexts();
	test_type_names();
	test_values();
	return 0;
}
