/* expr-lex: the lexer of C expressions: numbers with C's literal types,
 * character and string literals, identifiers, $names, gdb's FILE::NAME
 * scopes and the punctuators, into the token array the parser reads. */
#include "expr-int.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void expr_ps_error(struct expr_ps *ps, const char *fmt, ...)
{
	if (ps->failed)
		return;
	ps->failed = true;
	if (!ps->errlen)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ps->err, ps->errlen, fmt, ap);
	va_end(ap);
}

static struct expr_token *push_tok(struct expr_ps *ps, int kind, size_t pos)
{
	XGROW(ps->toks, ps->cap, ps->ntoks + 1);
	struct expr_token *t = &ps->toks[ps->ntoks++];
	memset(t, 0, sizeof(*t));
	t->kind = kind;
	t->pos = pos;
	return t;
}

/* The extent of a number as gdb's lexer takes it: digits, letters, one
 * dot, and a sign right after a decimal exponent. */
static size_t number_end(const char *s, size_t i)
{
	bool hex = s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X');
	bool got_dot = false, got_e = false;
	for (size_t j = i;; j++) {
		char ch = s[j];
		if (!hex && !got_e && (ch == 'e' || ch == 'E'))
			got_dot = got_e = true;
		else if (!got_dot && ch == '.')
			got_dot = true;
		else if (got_e && j > i && (s[j - 1] == 'e' || s[j - 1] == 'E') &&
			 (ch == '-' || ch == '+'))
			continue;
		else if (!isalnum((unsigned char)ch))
			return j;
	}
}

static bool is_float_text(const char *s, size_t n)
{
	bool hex = n > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	return memchr(s, '.', n) || (!hex && (memchr(s, 'e', n) || memchr(s, 'E', n)));
}

static bool lex_float(struct expr_token *t, const char *text)
{
	char *end;
	errno = 0;
	t->fval = strtold(text, &end);
	t->tname = "double";
	if (*end == 'f' || *end == 'F')
		t->tname = "float", end++;
	else if (*end == 'l' || *end == 'L')
		t->tname = "long double", end++;
	t->kind = ET_FLOAT;
	return *end == 0;
}

static int digit_value(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return 99;
}

/* C's rules for the type of an integer literal, as gdb applies them. */
static const char *int_literal_type(uint64_t v, bool decimal, bool u, int longs)
{
	if (longs >= 2)
		return u || v > INT64_MAX ? "unsigned long long" : "long long";
	if (!u && !longs && v <= INT32_MAX)
		return "int";
	if (!longs && v <= UINT32_MAX && (u || !decimal))
		return "unsigned int";
	if (!u && v <= INT64_MAX)
		return "long";
	return "unsigned long";
}

/* 0 ok, -1 invalid, -2 too large. */
static int lex_int(struct expr_token *t, const char *s)
{
	unsigned base = 10;
	bool decimal = true;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		base = 16, s += 2, decimal = false;
	else if (s[0] == '0' && s[1])
		base = 8, decimal = false;
	uint64_t v = 0;
	size_t ndigits = 0;
	for (; digit_value(*s) < (int)base; s++, ndigits++) {
		unsigned d = (unsigned)digit_value(*s);
		if (v > (UINT64_MAX - d) / base)
			return -2;
		v = v * base + d;
	}
	bool u = false;
	int longs = 0;
	for (; *s; s++) {
		if ((*s == 'u' || *s == 'U') && !u)
			u = true;
		else if ((*s == 'l' || *s == 'L') && longs < 2)
			longs++;
		else
			return -1;
	}
	if (!ndigits)
		return -1;
	t->kind = ET_INT;
	t->ival = v;
	t->tname = int_literal_type(v, decimal, u, longs);
	return 0;
}

static size_t lex_number(struct expr_ps *ps, size_t i)
{
	size_t end = number_end(ps->text, i);
	char *text = xstrndup(ps->text + i, end - i);
	struct expr_token *t = push_tok(ps, ET_INT, i);
	int rc = is_float_text(text, end - i) ? (lex_float(t, text) ? 0 : -1)
					       : lex_int(t, text);
	if (rc == -2)
		expr_ps_error(ps, "Numeric constant too large.");
	else if (rc < 0)
		expr_ps_error(ps, "Invalid number \"%s\".", text);
	free(text);
	return end;
}

/* One character of a char or string literal, escapes decoded. */
static size_t lex_char_in(struct expr_ps *ps, size_t i, int *out)
{
	const char *s = ps->text;
	if (s[i] != '\\') {
		*out = (unsigned char)s[i];
		return i + 1;
	}
	i++;
	static const char esc[] = "n\nt\tr\ra\ab\bf\fv\ve\033";
	const char *e = s[i] ? strchr(esc, s[i]) : NULL;
	if (e && (e - esc) % 2 == 0) {
		*out = (unsigned char)e[1];
		return i + 1;
	}
	unsigned v = 0;   /* long \x escapes wrap instead of overflowing */
	int n = 0;
	if (s[i] >= '0' && s[i] <= '7') {
		for (; n < 3 && s[i] >= '0' && s[i] <= '7'; n++, i++)
			v = v * 8 + (s[i] - '0');
	} else if (s[i] == 'x') {
		for (i++; isxdigit((unsigned char)s[i]); n++, i++)
			v = v * 16 + digit_value(s[i]);
		if (!n)
			expr_ps_error(ps, "\\x escape without a following hex digit");
	} else {
		v = (unsigned char)s[i];
		if (s[i])
			i++;
	}
	*out = v & 0xff;
	return i;
}

static size_t lex_char(struct expr_ps *ps, size_t i)
{
	size_t start = i;
	int ch = 0;
	if (ps->text[i + 1] == '\'' || !ps->text[i + 1]) {
		push_tok(ps, ET_CHAR, start);
		if (ps->text[i + 1])
			expr_ps_error(ps, "Empty character constant.");
		else
			expr_ps_error(ps, "Unmatched single quote.");
		return strlen(ps->text);
	}
	i = lex_char_in(ps, i + 1, &ch);
	struct expr_token *t = push_tok(ps, ET_CHAR, start);
	t->ival = (uint64_t)(int64_t)(signed char)ch;
	t->tname = "char";
	if (ps->text[i] == '\'')
		return i + 1;
	if (strchr(ps->text + i, '\''))
		expr_ps_error(ps, "Invalid character constant.");
	else
		expr_ps_error(ps, "Unmatched single quote.");
	return strlen(ps->text);
}

static size_t lex_string(struct expr_ps *ps, size_t i)
{
	struct sbuf b = {0};
	size_t start = i++;
	while (ps->text[i] && ps->text[i] != '"') {
		int ch;
		i = lex_char_in(ps, i, &ch);
		sbuf_addc(&b, (char)ch);
	}
	struct expr_token *t = push_tok(ps, ET_STRING, start);
	t->len = b.len;
	t->s = sbuf_take(&b);
	if (!ps->text[i]) {
		expr_ps_error(ps, "Unterminated string in expression.");
		return i;
	}
	return i + 1;
}

static bool is_ident_char(char ch)
{
	return isalnum((unsigned char)ch) || ch == '_';
}

static size_t lex_word(struct expr_ps *ps, size_t i, int kind)
{
	size_t start = i;
	if (kind == ET_DOLLAR)
		i++;
	while (is_ident_char(ps->text[i]) || (kind == ET_DOLLAR && ps->text[i] == '$'))
		i++;
	struct expr_token *t = push_tok(ps, kind, start);
	size_t skip = kind == ET_DOLLAR ? 1 : 0;
	t->s = xstrndup(ps->text + start + skip, i - start - skip);
	return i;
}

static const struct { const char *text; int kind; int op; } puncts[] = {
	{ "<<=", ET_ASSIGN_OP, ET_SHL }, { ">>=", ET_ASSIGN_OP, ET_SHR },
	{ "->", ET_ARROW, 0 }, { "++", ET_INC, 0 }, { "--", ET_DEC, 0 },
	{ "<<", ET_SHL, 0 }, { ">>", ET_SHR, 0 }, { "<=", ET_LE, 0 },
	{ ">=", ET_GE, 0 }, { "==", ET_EQ, 0 }, { "!=", ET_NE, 0 },
	{ "&&", ET_ANDAND, 0 }, { "||", ET_OROR, 0 },
	{ "+=", ET_ASSIGN_OP, '+' }, { "-=", ET_ASSIGN_OP, '-' },
	{ "*=", ET_ASSIGN_OP, '*' }, { "/=", ET_ASSIGN_OP, '/' },
	{ "%=", ET_ASSIGN_OP, '%' }, { "&=", ET_ASSIGN_OP, '&' },
	{ "^=", ET_ASSIGN_OP, '^' }, { "|=", ET_ASSIGN_OP, '|' },
};

static size_t lex_punct(struct expr_ps *ps, size_t i)
{
	const char *s = ps->text + i;
	for (size_t k = 0; k < ARRAY_LEN(puncts); k++) {
		size_t n = strlen(puncts[k].text);
		if (strncmp(s, puncts[k].text, n) == 0) {
			push_tok(ps, puncts[k].kind, i)->op = puncts[k].op;
			return i + n;
		}
	}
	if (*s && strchr("+-*/%<>=!~&|^?:,.()[]{}@", *s)) {
		push_tok(ps, (unsigned char)*s, i);
		return i + 1;
	}
	expr_ps_error(ps, "Invalid character '%c' in expression.", *s);
	return i + 1;
}

/* gdb's scope operator: `file.c::name`, `'file.c'::name`, `func::name`,
 * `::name` (scope "").
 * Returns the index after "::" if a scope starts at i, else 0. */
static size_t lex_scope(struct expr_ps *ps, size_t i)
{
	const char *s = ps->text;
	size_t j = i, end;
	if (s[j] == ':' && s[j + 1] == ':') {   /* ::name: the global scope */
		push_tok(ps, ET_SCOPE, i)->s = xstrdup("");
		return i + 2;
	}
	if (s[j] == '\'') {
		const char *q = strchr(s + j + 1, '\'');
		if (!q || q[1] != ':' || q[2] != ':')
			return 0;
		end = (size_t)(q - s);
		j = i + 1;
	} else {
		if (!isalpha((unsigned char)s[j]) && s[j] != '_')
			return 0;
		while (is_ident_char(s[j]) || s[j] == '.' || s[j] == '/' || s[j] == '-')
			j++;
		if (s[j] != ':' || s[j + 1] != ':')
			return 0;
		end = j;
		j = i;
	}
	struct expr_token *t = push_tok(ps, ET_SCOPE, i);
	t->s = xstrndup(s + j, end - j);
	return end + (s[end] == '\'' ? 3 : 2);
}

void expr_lex(struct expr_ps *ps)
{
	size_t i = 0;
	const char *s = ps->text;
	while (!ps->failed) {
		while (isspace((unsigned char)s[i]))
			i++;
		if (!s[i])
			break;
		size_t after = lex_scope(ps, i);
		if (after) {
			i = after;
			continue;
		}
		if (isdigit((unsigned char)s[i]) ||
		    (s[i] == '.' && isdigit((unsigned char)s[i + 1])))
			i = lex_number(ps, i);
		else if (s[i] == '\'')
			i = lex_char(ps, i);
		else if (s[i] == '"')
			i = lex_string(ps, i);
		else if (isalpha((unsigned char)s[i]) || s[i] == '_')
			i = lex_word(ps, i, ET_IDENT);
		else if (s[i] == '$')
			i = lex_word(ps, i, ET_DOLLAR);
		else
			i = lex_punct(ps, i);
	}
	push_tok(ps, ET_EOF, strlen(s));
}

/* Parser. */
