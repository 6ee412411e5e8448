/* test_util: the checked number parser (str_num) every numeric argument
 * goes through, the terminal sanitiser (str_sanitize, str_esc_char), and
 * the environment lists qzdb edits for the programs it starts
 * (env_list_item: GLIBC_TUNABLES, LD_PRELOAD). */
#include <stdlib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "unit.h"

static void num(const char *text, int64_t lo, int64_t hi, int want_r, int64_t want,
		const char *want_rest)
{
	const char *s = text;
	int64_t v = -7;
	int r = str_num(&s, lo, hi, &v);
	bool ok = r == want_r && (r != STR_NUM_OK || (v == want && !strcmp(s, want_rest)));
	bool kept = r == STR_NUM_OK || (s == text && v == -7);
	char name[128];
	snprintf(name, sizeof name, "str_num \"%s\" in [%lld, %lld]", text, (long long)lo, (long long)hi);
	unit_check(ok && kept, name, "got r=%d v=%lld rest=\"%s\"", r, (long long)v, s);
}

static void test_numbers(void)
{
	num("42", 0, 100, STR_NUM_OK, 42, "");
	num("7-9", 0, 100, STR_NUM_OK, 7, "-9");
	num("-5 x", -10, 10, STR_NUM_OK, -5, " x");
	num("0x1f", 0, 100, STR_NUM_OK, 31, "");
	num("99999999999", 1, INT32_MAX, STR_NUM_RANGE, 0, "");
	num("99999999999999999999999", INT64_MIN, INT64_MAX, STR_NUM_RANGE, 0, "");
	num("9223372036854775807", INT64_MIN, INT64_MAX, STR_NUM_OK, INT64_MAX, "");
	num("9223372036854775808", INT64_MIN, INT64_MAX, STR_NUM_RANGE, 0, "");
	num("-9223372036854775808", INT64_MIN, INT64_MAX, STR_NUM_OK, INT64_MIN, "");
	num("-9223372036854775809", INT64_MIN, INT64_MAX, STR_NUM_RANGE, 0, "");
	num("0", 1, 10, STR_NUM_RANGE, 0, "");
	num("abc", 0, 10, STR_NUM_NONE, 0, "");
	num("12abc", 0, 100, STR_NUM_OK, 12, "abc");   /* x/12xw: the caller reads on */
	num("", 0, 10, STR_NUM_NONE, 0, "");
	num("-", 0, 10, STR_NUM_NONE, 0, "");
	int64_t v = 0;
	unit_check(str_num_all(" 12 ", 0, 20, &v) == STR_NUM_OK && v == 12, "str_num_all with spaces", "v=%lld", (long long)v);
	unit_check(str_num_all("12 13", 0, 20, &v) == STR_NUM_NONE, "str_num_all refuses trailing words", "");
	unit_check(str_num_all("12abc", 0, 20, &v) == STR_NUM_NONE, "str_num_all refuses 12abc", "");
	char buf[128];
	str_num_error(STR_NUM_RANGE, "A breakpoint number", "99999999999", 1, INT32_MAX, buf, sizeof buf);
	unit_check(!strcmp(buf, "A breakpoint number must be between 1 and 2147483647, not \"99999999999\"."),
	      "str_num_error says the range", "%s", buf);
}

static void san(const char *name, const char *in, size_t n, const char *want)
{
	struct sbuf b = {0};
	sbuf_add(&b, "");
	str_sanitize(&b, in, n);
	unit_check(!strcmp(b.s, want), name, "got \"%s\"", b.s);
	sbuf_free(&b);
}

static void test_sanitize(void)
{
	san("sanitize keeps text", "a b\tc\n", 6, "a b\tc\n");
	san("sanitize ESC as ^[", "\033]0;owned\007x", 11, "^[]0;owned^Gx");
	san("sanitize DEL and CR", "a\177\rb", 4, "a^?^Mb");
	san("sanitize NUL", "a\0b", 3, "a^@b");
	san("sanitize keeps UTF-8", "caf\xc3\xa9 \xe2\x82\xac", 9, "caf\xc3\xa9 \xe2\x82\xac");
	san("sanitize C1 CSI (UTF-8)", "\xc2\x9b" "2J", 4, "\\xc2\\x9b2J");
	san("sanitize raw 8-bit CSI", "\x9b" "2J", 3, "\\x9b2J");
	san("sanitize invalid UTF-8", "\xff\xc3(", 3, "\\xff\\xc3(");
	san("sanitize overlong", "\xc0\xaf", 2, "\\xc0\\xaf");
	san("sanitize truncated sequence", "\xe2\x82", 2, "\\xe2\\x82");
	san("sanitize bidi override", "a\xe2\x80\xae" "b", 5, "a\\xe2\\x80\\xaeb");
	struct sbuf b = {0};
	sbuf_add(&b, "");
	str_esc_char(&b, 033, '"');
	str_esc_char(&b, '\n', '"');
	str_esc_char(&b, '"', '"');
	str_esc_char(&b, 0xe9, '"');
	unit_check(!strcmp(b.s, "\\033\\n\\\"\\351"), "str_esc_char as gdb", "got %s", b.s);
	sbuf_free(&b);
}

/* item in or out of var, which held before ("" unset): var after. */
static void env(const char *before, const char *item, bool on, const char *want)
{
	if (*before)
		setenv("QZ_T", before, 1);
	else
		unsetenv("QZ_T");
	env_list_item("QZ_T", item, on);
	const char *got = getenv("QZ_T");
	unit_check(strcmp(got ? got : "", want) == 0, "env_list_item", "%s %s %s: got '%s', want '%s'",
	      before, on ? "+" : "-", item, got ? got : "(unset)", want);
}

static void test_env(void)
{
	env("", "/a.so", true, "/a.so");
	env("/u.so", "/a.so", true, "/u.so:/a.so");
	env("/u.so:/a.so", "/a.so", true, "/u.so:/a.so");
	env("/u.so:/a.so", "/a.so", false, "/u.so");
	env("/a.so:/u.so", "/a.so", false, "/u.so");
	env("/x:/a.so:/u.so", "/a.so", false, "/x:/u.so");
	env("/a.so", "/a.so", false, "");
	env("", "/a.so", false, "");
}

int main(void)
{
	test_numbers();
	test_sanitize();
	test_env();
	return 0;
}
