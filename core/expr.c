/* expr: C expressions for print and breakpoint conditions. A lexer and a
 * recursive-descent parser build a tree once; the evaluator walks it over
 * typed values with C's conversions as gdb applies them, getting names,
 * registers and memory from the caller's environment. Errors use gdb's
 * wording so that qzdb's output can be compared with gdb's. */
#include "expr.h"

#include <ctype.h>
#include <dwarf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Tokens: single characters stand for themselves. */
enum {
	T_EOF = 0,
	T_INT = 256, T_FLOAT, T_CHAR, T_STRING, T_IDENT, T_DOLLAR,
	T_ARROW, T_INC, T_DEC, T_SHL, T_SHR, T_LE, T_GE, T_EQ, T_NE,
	T_ANDAND, T_OROR, T_ASSIGN_OP
};

struct tok {
	int kind;
	size_t pos;              /* where it starts, for "near `...'" */
	uint64_t ival;
	long double fval;
	const char *tname;       /* literal's type, a val_builtin name */
	char *s;                 /* identifier, $name or string bytes */
	size_t len;
	int op;                  /* T_ASSIGN_OP: the arithmetic operator */
};

/* A type name in a cast or sizeof, resolved when evaluated since typedef
 * and struct names depend on the program. */
struct tname {
	char *name;              /* "unsigned long", "struct node", "node_t" */
	const char *tag;         /* "struct", "union", "enum" or NULL */
	bool builtin;
	int nptr;
	uint64_t dims[8];
	size_t ndims;
};

enum node_kind {
	N_INT, N_FLOAT, N_STRING, N_IDENT, N_REG, N_HISTORY, N_UNARY, N_BINARY,
	N_COND, N_INDEX, N_CALL, N_MEMBER, N_ARROW, N_CAST, N_SIZEOF,
	N_SIZEOF_TYPE, N_ASSIGN
};

struct node {
	enum node_kind kind;
	int op;                  /* operator token; N_ASSIGN: 0 or the op of op= */
	struct node *a, *b, *c;
	char *s;                 /* name, member, register or string bytes */
	size_t len;
	uint64_t ival;
	long double fval;
	const char *tname;
	struct tname *type;
	int hist;                /* N_HISTORY: index as the history callback wants */
	bool rel;
};

struct expr {
	struct node *root;
	char *text;
	/* A parenthesized name followed by - + * & is a cast only if the name
	 * is a type; then evaluation parses again knowing the types. */
	bool ambiguous;
};

struct ps {
	const char *text;
	struct tok *toks;
	size_t ntoks, cap;
	size_t i;
	const struct expr_env *env;
	bool ambiguous;
	bool failed;
	char *err;
	size_t errlen;
};

static void ps_error(struct ps *ps, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void ps_error(struct ps *ps, const char *fmt, ...)
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

/* Lexer. */

static struct tok *push_tok(struct ps *ps, int kind, size_t pos)
{
	XGROW(ps->toks, ps->cap, ps->ntoks + 1);
	struct tok *t = &ps->toks[ps->ntoks++];
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

static bool lex_float(struct tok *t, const char *text)
{
	char *end;
	errno = 0;
	t->fval = strtold(text, &end);
	t->tname = "double";
	if (*end == 'f' || *end == 'F')
		t->tname = "float", end++;
	else if (*end == 'l' || *end == 'L')
		t->tname = "long double", end++;
	t->kind = T_FLOAT;
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
static int lex_int(struct tok *t, const char *s)
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
	t->kind = T_INT;
	t->ival = v;
	t->tname = int_literal_type(v, decimal, u, longs);
	return 0;
}

static size_t lex_number(struct ps *ps, size_t i)
{
	size_t end = number_end(ps->text, i);
	char *text = xstrndup(ps->text + i, end - i);
	struct tok *t = push_tok(ps, T_INT, i);
	int rc = 0;
	if (is_float_text(text, end - i))
		rc = lex_float(t, text) ? 0 : -1;
	else
		rc = lex_int(t, text);
	if (rc == -2)
		ps_error(ps, "Numeric constant too large.");
	else if (rc < 0)
		ps_error(ps, "Invalid number \"%s\".", text);
	free(text);
	return end;
}

/* One character of a char or string literal, escapes decoded. */
static size_t lex_char_in(struct ps *ps, size_t i, int *out)
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
	int v = 0, n = 0;
	if (s[i] >= '0' && s[i] <= '7') {
		for (; n < 3 && s[i] >= '0' && s[i] <= '7'; n++, i++)
			v = v * 8 + (s[i] - '0');
	} else if (s[i] == 'x') {
		for (i++; isxdigit((unsigned char)s[i]); n++, i++)
			v = v * 16 + digit_value(s[i]);
		if (!n)
			ps_error(ps, "\\x escape without a following hex digit");
	} else {
		v = (unsigned char)s[i];
		if (s[i])
			i++;
	}
	*out = v & 0xff;
	return i;
}

static size_t lex_char(struct ps *ps, size_t i)
{
	size_t start = i;
	int ch = 0;
	if (ps->text[i + 1] == '\'' || !ps->text[i + 1]) {
		push_tok(ps, T_CHAR, start);
		if (ps->text[i + 1])
			ps_error(ps, "Empty character constant.");
		else
			ps_error(ps, "Unmatched single quote.");
		return strlen(ps->text);
	}
	i = lex_char_in(ps, i + 1, &ch);
	struct tok *t = push_tok(ps, T_CHAR, start);
	t->ival = (uint64_t)(int64_t)(signed char)ch;
	t->tname = "char";
	if (ps->text[i] == '\'')
		return i + 1;
	if (strchr(ps->text + i, '\''))
		ps_error(ps, "Invalid character constant.");
	else
		ps_error(ps, "Unmatched single quote.");
	return strlen(ps->text);
}

static size_t lex_string(struct ps *ps, size_t i)
{
	struct sbuf b = {0};
	size_t start = i++;
	while (ps->text[i] && ps->text[i] != '"') {
		int ch;
		i = lex_char_in(ps, i, &ch);
		sbuf_addc(&b, (char)ch);
	}
	struct tok *t = push_tok(ps, T_STRING, start);
	t->len = b.len;
	t->s = sbuf_take(&b);
	if (!ps->text[i]) {
		ps_error(ps, "Unterminated string in expression.");
		return i;
	}
	return i + 1;
}

static bool is_ident_char(char ch)
{
	return isalnum((unsigned char)ch) || ch == '_';
}

static size_t lex_word(struct ps *ps, size_t i, int kind)
{
	size_t start = i;
	if (kind == T_DOLLAR)
		i++;
	while (is_ident_char(ps->text[i]) || (kind == T_DOLLAR && ps->text[i] == '$'))
		i++;
	struct tok *t = push_tok(ps, kind, start);
	size_t skip = kind == T_DOLLAR ? 1 : 0;
	t->s = xstrndup(ps->text + start + skip, i - start - skip);
	return i;
}

static const struct { const char *text; int kind; int op; } puncts[] = {
	{ "<<=", T_ASSIGN_OP, T_SHL }, { ">>=", T_ASSIGN_OP, T_SHR },
	{ "->", T_ARROW, 0 }, { "++", T_INC, 0 }, { "--", T_DEC, 0 },
	{ "<<", T_SHL, 0 }, { ">>", T_SHR, 0 }, { "<=", T_LE, 0 },
	{ ">=", T_GE, 0 }, { "==", T_EQ, 0 }, { "!=", T_NE, 0 },
	{ "&&", T_ANDAND, 0 }, { "||", T_OROR, 0 },
	{ "+=", T_ASSIGN_OP, '+' }, { "-=", T_ASSIGN_OP, '-' },
	{ "*=", T_ASSIGN_OP, '*' }, { "/=", T_ASSIGN_OP, '/' },
	{ "%=", T_ASSIGN_OP, '%' }, { "&=", T_ASSIGN_OP, '&' },
	{ "^=", T_ASSIGN_OP, '^' }, { "|=", T_ASSIGN_OP, '|' },
};

static size_t lex_punct(struct ps *ps, size_t i)
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
	ps_error(ps, "Invalid character '%c' in expression.", *s);
	return i + 1;
}

static void lex(struct ps *ps)
{
	size_t i = 0;
	const char *s = ps->text;
	while (!ps->failed) {
		while (isspace((unsigned char)s[i]))
			i++;
		if (!s[i])
			break;
		if (isdigit((unsigned char)s[i]) ||
		    (s[i] == '.' && isdigit((unsigned char)s[i + 1])))
			i = lex_number(ps, i);
		else if (s[i] == '\'')
			i = lex_char(ps, i);
		else if (s[i] == '"')
			i = lex_string(ps, i);
		else if (isalpha((unsigned char)s[i]) || s[i] == '_')
			i = lex_word(ps, i, T_IDENT);
		else if (s[i] == '$')
			i = lex_word(ps, i, T_DOLLAR);
		else
			i = lex_punct(ps, i);
	}
	push_tok(ps, T_EOF, strlen(s));
}

/* Parser. */

static const struct tok *peek(const struct ps *ps, size_t ahead)
{
	size_t i = ps->i + ahead;
	return &ps->toks[i < ps->ntoks ? i : ps->ntoks - 1];
}

static bool at(const struct ps *ps, int kind)
{
	return peek(ps, 0)->kind == kind;
}

static bool is_word(const struct tok *t, const char *w)
{
	return t->kind == T_IDENT && strcmp(t->s, w) == 0;
}

static void *syntax_error(struct ps *ps)
{
	ps_error(ps, "A syntax error in expression, near `%s'.",
		 ps->text + peek(ps, 0)->pos);
	return NULL;
}

static bool expect(struct ps *ps, int kind)
{
	if (ps->failed)
		return false;
	if (!at(ps, kind)) {
		syntax_error(ps);
		return false;
	}
	ps->i++;
	return true;
}

static struct node *new_node(enum node_kind kind, int op, struct node *a,
			     struct node *b)
{
	struct node *n = xcalloc(1, sizeof(*n));
	n->kind = kind;
	n->op = op;
	n->a = a;
	n->b = b;
	return n;
}

static void free_tname(struct tname *tn)
{
	if (tn)
		free(tn->name);
	free(tn);
}

static void free_node(struct node *n)
{
	if (!n)
		return;
	free_node(n->a);
	free_node(n->b);
	free_node(n->c);
	free(n->s);
	free_tname(n->type);
	free(n);
}

static const char *const base_words[] = {
	"void", "char", "short", "int", "long", "float", "double", "signed",
	"unsigned", "_Bool", "struct", "union", "enum", "const", "volatile",
};

static bool is_type_word(const struct tok *t)
{
	if (t->kind != T_IDENT)
		return false;
	for (size_t i = 0; i < ARRAY_LEN(base_words); i++)
		if (strcmp(t->s, base_words[i]) == 0)
			return true;
	return false;
}

static bool is_qualifier(const struct tok *t)
{
	return is_word(t, "const") || is_word(t, "volatile");
}

static void skip_qualifiers(struct ps *ps)
{
	while (is_qualifier(peek(ps, 0)))
		ps->i++;
}

/* Base type words in any order, as C allows: "long unsigned int". */
static char *parse_base_words(struct ps *ps)
{
	int nlong = 0, nshort = 0, nsigned = 0, nunsigned = 0;
	const char *kind = NULL;
	for (;; ps->i++) {
		const struct tok *t = peek(ps, 0);
		if (is_word(t, "long"))
			nlong++;
		else if (is_word(t, "short"))
			nshort++;
		else if (is_word(t, "signed"))
			nsigned++;
		else if (is_word(t, "unsigned"))
			nunsigned++;
		else if (is_qualifier(t))
			continue;
		else if (!kind && (is_word(t, "int") || is_word(t, "char") ||
				   is_word(t, "void") || is_word(t, "float") ||
				   is_word(t, "double") || is_word(t, "_Bool")))
			kind = t->s;
		else
			break;
	}
	const char *u = nunsigned ? "unsigned " : "";
	if (kind && strcmp(kind, "char") == 0)
		return xasprintf("%schar", nunsigned ? "unsigned " : nsigned ? "signed " : "");
	if (kind && strcmp(kind, "double") == 0)
		return xstrdup(nlong ? "long double" : "double");
	if (kind && strcmp(kind, "int") != 0)
		return xstrdup(kind);
	if (nshort)
		return xasprintf("%sshort", u);
	if (nlong)
		return xasprintf("%s%s", u, nlong > 1 ? "long long" : "long");
	return xasprintf("%sint", u);
}

static void parse_declarator(struct ps *ps, struct tname *tn)
{
	skip_qualifiers(ps);
	while (at(ps, '*')) {
		ps->i++;
		tn->nptr++;
		skip_qualifiers(ps);
	}
	while (at(ps, '[') && !ps->failed) {
		ps->i++;
		const struct tok *t = peek(ps, 0);
		if (t->kind != T_INT || tn->ndims == ARRAY_LEN(tn->dims)) {
			syntax_error(ps);
			return;
		}
		tn->dims[tn->ndims++] = t->ival;
		ps->i++;
		expect(ps, ']');
	}
}

static struct tname *parse_typename(struct ps *ps)
{
	struct tname *tn = xcalloc(1, sizeof(*tn));
	skip_qualifiers(ps);
	const struct tok *t = peek(ps, 0);
	if (is_word(t, "struct") || is_word(t, "union") || is_word(t, "enum")) {
		tn->tag = t->s[0] == 's' ? "struct" : t->s[0] == 'u' ? "union" : "enum";
		ps->i++;
		if (!at(ps, T_IDENT)) {
			free_tname(tn);
			return syntax_error(ps);
		}
		tn->name = xasprintf("%s %s", tn->tag, peek(ps, 0)->s);
		ps->i++;
	} else if (is_type_word(t)) {
		tn->name = parse_base_words(ps);
		tn->builtin = true;
	} else if (t->kind == T_IDENT) {
		tn->name = xstrdup(t->s);
		ps->i++;
	} else {
		free_tname(tn);
		return syntax_error(ps);
	}
	parse_declarator(ps, tn);
	return tn;
}

static bool starts_operand(const struct tok *t)
{
	switch (t->kind) {
	case T_INT: case T_FLOAT: case T_CHAR: case T_STRING: case T_IDENT:
	case T_DOLLAR: case '(': case '!': case '~': case '{':
		return true;
	default:
		return false;
	}
}

/* After "(": a type name follows? Keywords say so; a lone name followed
 * by stars or by an operand is one; before - + * & it depends on whether
 * the name is a type, which only the environment knows. */
static bool is_cast(struct ps *ps)
{
	const struct tok *t = peek(ps, 1);
	if (is_type_word(t))
		return true;
	if (t->kind != T_IDENT || is_word(t, "sizeof"))
		return false;
	size_t k = 2;
	while (peek(ps, k)->kind == '*')
		k++;
	if (peek(ps, k)->kind != ')')
		return false;
	if (k > 2)
		return true;
	const struct tok *next = peek(ps, 3);
	if (starts_operand(next))
		return true;
	if (next->kind != '-' && next->kind != '+' && next->kind != '*' &&
	    next->kind != '&' && next->kind != T_INC && next->kind != T_DEC)
		return false;
	ps->ambiguous = true;
	return ps->env && ps->env->lookup_type &&
	       ps->env->lookup_type(ps->env->arg, t->s) != NULL;
}

static struct node *parse_expr(struct ps *ps);
static struct node *parse_assign(struct ps *ps);
static struct node *parse_unary(struct ps *ps);

static struct node *parse_string(struct ps *ps)
{
	struct sbuf b = {0};
	sbuf_add(&b, "");
	while (at(ps, T_STRING)) {       /* "ab" "cd" is "abcd" */
		const struct tok *t = peek(ps, 0);
		sbuf_addn(&b, t->s, t->len);
		ps->i++;
	}
	struct node *n = new_node(N_STRING, 0, NULL, NULL);
	n->len = b.len;
	n->s = sbuf_take(&b);
	return n;
}

/* $, $$, $$N, $N: history; other names: registers or void convenience
 * variables. */
static struct node *dollar_node(const char *name)
{
	struct node *n = new_node(N_HISTORY, 0, NULL, NULL);
	const char *digits = name[0] == '$' ? name + 1 : name;
	bool all_digits = strspn(digits, "0123456789") == strlen(digits);
	if (!name[0]) {
		n->hist = 0, n->rel = true;
	} else if (name[0] == '$' && all_digits) {
		n->hist = digits[0] ? -atoi(digits) : -1;
		n->rel = true;
	} else if (all_digits) {
		n->hist = atoi(digits);
		n->rel = n->hist == 0;
	} else {
		n->kind = N_REG;
		n->s = xstrdup(name);
	}
	return n;
}

static struct node *parse_primary(struct ps *ps)
{
	const struct tok *t = peek(ps, 0);
	struct node *n;
	switch (t->kind) {
	case T_INT:
	case T_CHAR:
	case T_FLOAT:
		n = new_node(t->kind == T_FLOAT ? N_FLOAT : N_INT, 0, NULL, NULL);
		n->ival = t->ival;
		n->fval = t->fval;
		n->tname = t->tname;
		ps->i++;
		return n;
	case T_STRING:
		return parse_string(ps);
	case T_DOLLAR:
		ps->i++;
		return dollar_node(t->s);
	case T_IDENT:
		if (is_type_word(t) || is_word(t, "sizeof"))
			return syntax_error(ps);
		n = new_node(N_IDENT, 0, NULL, NULL);
		n->s = xstrdup(t->s);
		ps->i++;
		return n;
	case '(':
		ps->i++;
		n = parse_expr(ps);
		if (n && !expect(ps, ')')) {
			free_node(n);
			return NULL;
		}
		return n;
	default:
		return syntax_error(ps);
	}
}

static struct node *parse_member(struct ps *ps, struct node *base, int kind)
{
	ps->i++;
	if (!at(ps, T_IDENT)) {
		free_node(base);
		return syntax_error(ps);
	}
	struct node *n = new_node(kind, 0, base, NULL);
	n->s = xstrdup(peek(ps, 0)->s);
	ps->i++;
	return n;
}

static struct node *one(void)
{
	struct node *n = new_node(N_INT, 0, NULL, NULL);
	n->ival = 1;
	n->tname = "int";
	return n;
}

static struct node *parse_postfix_op(struct ps *ps, struct node *n)
{
	int kind = peek(ps, 0)->kind;
	struct node *r = NULL;
	if (kind == '.' || kind == T_ARROW)
		return parse_member(ps, n, kind == '.' ? N_MEMBER : N_ARROW);
	ps->i++;
	if (kind == T_INC || kind == T_DEC)
		return new_node(N_ASSIGN, kind == T_INC ? '+' : '-', n, one());
	if (kind == '(' && at(ps, ')')) {
		ps->i++;
		return new_node(N_CALL, 0, n, NULL);
	}
	r = parse_expr(ps);
	if (!r || !expect(ps, kind == '[' ? ']' : ')')) {
		free_node(n);
		free_node(r);
		return NULL;
	}
	return new_node(kind == '[' ? N_INDEX : N_CALL, 0, n, r);
}

static struct node *parse_postfix(struct ps *ps)
{
	struct node *n = parse_primary(ps);
	while (n) {
		int kind = peek(ps, 0)->kind;
		if (kind != '[' && kind != '(' && kind != '.' && kind != T_ARROW &&
		    kind != T_INC && kind != T_DEC)
			break;
		n = parse_postfix_op(ps, n);
	}
	return n;
}

static struct node *type_node(enum node_kind kind, struct tname *tn,
			      struct node *operand)
{
	if (!tn) {
		free_node(operand);
		return NULL;
	}
	struct node *n = new_node(kind, 0, operand, NULL);
	n->type = tn;
	return n;
}

static struct node *parse_cast(struct ps *ps)
{
	ps->i++;
	struct tname *tn = parse_typename(ps);
	if (!tn || !expect(ps, ')')) {
		free_tname(tn);
		return NULL;
	}
	struct node *operand = parse_unary(ps);
	if (!operand) {
		free_tname(tn);
		return NULL;
	}
	return type_node(N_CAST, tn, operand);
}

/* gdb's {type} addr: the object of that type at addr. */
static struct node *parse_brace(struct ps *ps)
{
	ps->i++;
	struct tname *tn = parse_typename(ps);
	if (!tn || !expect(ps, '}')) {
		free_tname(tn);
		return NULL;
	}
	struct node *operand = parse_unary(ps);
	if (!operand) {
		free_tname(tn);
		return NULL;
	}
	tn->nptr++;
	return new_node(N_UNARY, '*', type_node(N_CAST, tn, operand), NULL);
}

static struct node *parse_sizeof(struct ps *ps)
{
	ps->i++;
	if (at(ps, '(') && is_cast(ps)) {
		ps->i++;
		struct tname *tn = parse_typename(ps);
		if (!tn || !expect(ps, ')')) {
			free_tname(tn);
			return NULL;
		}
		return type_node(N_SIZEOF_TYPE, tn, NULL);
	}
	struct node *operand = parse_unary(ps);
	return operand ? new_node(N_SIZEOF, 0, operand, NULL) : NULL;
}

static struct node *parse_unary(struct ps *ps)
{
	const struct tok *t = peek(ps, 0);
	if (ps->failed)
		return NULL;
	if (is_word(t, "sizeof"))
		return parse_sizeof(ps);
	if (t->kind == '(' && is_cast(ps))
		return parse_cast(ps);
	if (t->kind == '{')
		return parse_brace(ps);
	if (t->kind == T_INC || t->kind == T_DEC) {
		ps->i++;
		struct node *a = parse_unary(ps);
		return a ? new_node(N_ASSIGN, t->kind == T_INC ? '+' : '-', a, one()) : NULL;
	}
	if (t->kind < 128 && t->kind && strchr("-+!~*&", t->kind)) {
		int op = t->kind;
		ps->i++;
		struct node *a = parse_unary(ps);
		return a ? new_node(N_UNARY, op, a, NULL) : NULL;
	}
	return parse_postfix(ps);
}

/* Binding strength of binary operators, as in gdb's C grammar. */
static int binary_prec(int kind)
{
	switch (kind) {
	case T_OROR: return 1;
	case T_ANDAND: return 2;
	case '|': return 3;
	case '^': return 4;
	case '&': return 5;
	case T_EQ: case T_NE: return 6;
	case '<': case '>': case T_LE: case T_GE: return 7;
	case T_SHL: case T_SHR: return 8;
	case '@': return 9;
	case '+': case '-': return 10;
	case '*': case '/': case '%': return 11;
	default: return 0;
	}
}

static struct node *parse_binary(struct ps *ps, int min_prec)
{
	struct node *left = parse_unary(ps);
	while (left) {
		int op = peek(ps, 0)->kind;
		int prec = binary_prec(op);
		if (!prec || prec < min_prec)
			break;
		ps->i++;
		struct node *right = parse_binary(ps, prec + 1);
		if (!right) {
			free_node(left);
			return NULL;
		}
		left = new_node(N_BINARY, op, left, right);
	}
	return left;
}

static struct node *parse_cond(struct ps *ps)
{
	struct node *c = parse_binary(ps, 1);
	if (!c || !at(ps, '?'))
		return c;
	ps->i++;
	struct node *a = parse_expr(ps);
	struct node *b = a && expect(ps, ':') ? parse_cond(ps) : NULL;
	if (!b) {
		free_node(c);
		free_node(a);
		return NULL;
	}
	struct node *n = new_node(N_COND, 0, a, b);
	n->c = c;
	return n;
}

static struct node *parse_assign(struct ps *ps)
{
	struct node *left = parse_cond(ps);
	const struct tok *t = peek(ps, 0);
	if (!left || (t->kind != '=' && t->kind != T_ASSIGN_OP))
		return left;
	int op = t->kind == '=' ? 0 : t->op;
	ps->i++;
	struct node *right = parse_assign(ps);
	if (!right) {
		free_node(left);
		return NULL;
	}
	return new_node(N_ASSIGN, op, left, right);
}

static struct node *parse_expr(struct ps *ps)
{
	struct node *left = parse_assign(ps);
	while (left && at(ps, ',')) {
		ps->i++;
		struct node *right = parse_assign(ps);
		if (!right) {
			free_node(left);
			return NULL;
		}
		left = new_node(N_BINARY, ',', left, right);
	}
	return left;
}

static void free_tokens(struct ps *ps)
{
	for (size_t i = 0; i < ps->ntoks; i++)
		free(ps->toks[i].s);
	free(ps->toks);
}

static struct expr *parse_text(const char *text, const struct expr_env *env,
			       char *err, size_t errlen)
{
	struct ps ps = { .text = text, .env = env, .err = err, .errlen = errlen };
	struct node *root = NULL;
	if (errlen)
		err[0] = 0;
	lex(&ps);
	if (!ps.failed)
		root = parse_expr(&ps);
	if (root && !at(&ps, T_EOF))
		syntax_error(&ps);
	free_tokens(&ps);
	if (ps.failed) {
		free_node(root);
		return NULL;
	}
	struct expr *e = xcalloc(1, sizeof(*e));
	e->root = root;
	e->text = xstrdup(text);
	e->ambiguous = ps.ambiguous;
	return e;
}

struct expr *expr_parse(const char *text, char *err, size_t errlen)
{
	return parse_text(text, NULL, err, errlen);
}

void expr_free(struct expr *e)
{
	if (!e)
		return;
	free_node(e->root);
	free(e->text);
	free(e);
}

/* Evaluator. */

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

static int eval(struct ev *ev, const struct node *n, struct val *out);

static const struct di_type *builtin(const char *name)
{
	return val_builtin(name);
}

static const struct di_type *kind_of(const struct val *v)
{
	return val_type_strip(v->type);
}

static bool is_kind(const struct val *v, enum di_kind kind)
{
	const struct di_type *t = kind_of(v);
	return t ? t->kind == kind : kind == DI_VOID;
}

static bool is_aggregate(const struct val *v)
{
	return is_kind(v, DI_STRUCT) || is_kind(v, DI_UNION);
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

static int64_t ld_to_int(long double x)
{
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
	if (size >= 8)
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

static int not_in_memory(struct ev *ev)
{
	return fail(ev, "Attempt to take address of value not located in memory.");
}

/* Arrays and functions become pointers where C says so. */
static int decay(struct ev *ev, struct val *v)
{
	const struct di_type *t = kind_of(v);
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
	return op == '<' || op == '>' || op == T_LE || op == T_GE || op == T_EQ ||
	       op == T_NE;
}

static int compare(int op, int c)
{
	switch (op) {
	case '<': return c < 0;
	case '>': return c > 0;
	case T_LE: return c <= 0;
	case T_GE: return c >= 0;
	case T_EQ: return c == 0;
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
		return op == T_SHR && sgn && x < 0 ? ~0ull : 0;
	if (op == T_SHL)
		return (uint64_t)x << count;
	return sgn ? (uint64_t)(x >> count) : (uint64_t)x >> count;
}

static int int_binop(struct ev *ev, int op, const struct val *a,
		     const struct val *b, struct val *out)
{
	bool is_shift = op == T_SHL || op == T_SHR;
	const struct di_type *rt = is_shift ? promote1(a->type) : promote2(a->type, b->type);
	bool sgn = val_type_is_signed(rt);
	int64_t x = trunc_to(val_as_int(a), rt), y = val_as_int(b);
	uint64_t r;
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
	case T_SHL: case T_SHR: r = shift(op, x, y, sgn); break;
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
		*out = val_from_int(builtin("int"), c == 2 ? op == T_NE : compare(op, c));
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
	return val_type_size(kind_of(p)->target);
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
	int64_t step = val_as_int(i) * (int64_t)target_size(p);
	uint64_t addr = (uint64_t)val_as_int(p);
	addr = op == '+' ? addr + (uint64_t)step : addr - (uint64_t)step;
	*out = val_from_int(p->type, (int64_t)addr);
	return 0;
}

static const char *op_text(int op)
{
	static const struct { int op; const char *text; } names[] = {
		{ T_SHL, "<<" }, { T_SHR, ">>" }, { T_LE, "<=" }, { T_GE, ">=" },
		{ T_EQ, "==" }, { T_NE, "!=" },
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
	if (decay(ev, a) || decay(ev, b))
		return -1;
	if (val_is_pointer(a) || val_is_pointer(b))
		return ptr_binop(ev, op, a, b, out);
	if (is_aggregate(a) || is_aggregate(b))
		return fail(ev, "Structure has no component named operator%s.",
			    op_text(op));
	if (!is_number(a) || !is_number(b))
		return not_a_number(ev);
	if (val_is_float(a) || val_is_float(b))
		return float_binop(ev, op, a, b, out);
	return int_binop(ev, op, a, b, out);
}

static int truth(struct ev *ev, struct val *v, bool *out)
{
	if (decay(ev, v))
		return -1;
	if (val_is_float(v))
		*out = as_ld(v) != 0;
	else if (val_is_integer(v) || val_is_pointer(v))
		*out = val_as_int(v) != 0;
	else
		return not_a_number(ev);
	return 0;
}

static int eval_truth(struct ev *ev, const struct node *n, bool *out)
{
	struct val v;
	if (eval(ev, n, &v))
		return -1;
	int rc = truth(ev, &v, out);
	val_free(&v);
	return rc;
}

static int eval_logical(struct ev *ev, const struct node *n, struct val *out)
{
	bool x, y = false;
	if (eval_truth(ev, n->a, &x))
		return -1;
	if ((n->op == T_ANDAND) == x && eval_truth(ev, n->b, &y))
		return -1;
	*out = val_from_int(builtin("int"), n->op == T_ANDAND ? x && y : x || y);
	return 0;
}

static int eval_two(struct ev *ev, const struct node *n, struct val *a,
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

static int eval_binary(struct ev *ev, const struct node *n, struct val *out)
{
	struct val a, b;
	if (n->op == T_ANDAND || n->op == T_OROR)
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

static int eval_cond(struct ev *ev, const struct node *n, struct val *out)
{
	bool c;
	if (eval_truth(ev, n->c, &c))
		return -1;
	return eval(ev, c ? n->a : n->b, out);
}

/* Unary operators. */

static int deref(struct ev *ev, struct val *v, struct val *out)
{
	if (decay(ev, v))
		return -1;
	const struct di_type *t = kind_of(v);
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
		return complement(ev, v, out);
	default:
		if (decay(ev, v))
			return -1;
		return negate(ev, op, v, out);
	}
}

static int eval_unary(struct ev *ev, const struct node *n, struct val *out)
{
	struct val v;
	if (eval(ev, n->a, &v))
		return -1;
	int rc = unop(ev, n->op, &v, out);
	val_free(&v);
	return rc;
}

/* Subscripts and members. */

static int index_array(struct ev *ev, const struct val *a, int64_t i,
		       struct val *out)
{
	const struct di_type *t = kind_of(a);
	const struct di_type *et = val_array_elem(t);
	uint64_t esz = val_type_size(et);
	if (i >= 0 && (uint64_t)i < val_array_len(t) && ((uint64_t)i + 1) * esz <= a->size) {
		*out = val_from_bytes(et, a->bytes + (uint64_t)i * esz, (size_t)esz);
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
	int64_t i = val_as_int(b);
	if (is_kind(a, DI_ARRAY))
		return index_array(ev, a, i, out);
	if (!val_is_pointer(a)) {
		struct sbuf name = {0};
		val_type_name(&name, a->type);
		fail(ev, "cannot subscript something of type `%s'", name.s);
		sbuf_free(&name);
		return -1;
	}
	const struct di_type *to = val_type_strip(kind_of(a)->target);
	if (!to || to->kind == DI_VOID)
		return fail(ev, "Attempt to dereference a generic pointer.");
	uint64_t addr = (uint64_t)val_as_int(a) + (uint64_t)i * target_size(a);
	return read_at(ev, addr, kind_of(a)->target, out);
}

static int eval_index(struct ev *ev, const struct node *n, struct val *out)
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

/* gdb lets . and -> both work on structs and on pointers to them. */
static int member(struct ev *ev, struct val *v, const char *name, bool arrow,
		  struct val *out)
{
	const struct di_type *t = kind_of(v);
	if (t && t->kind == DI_PTR && is_struct_type(val_type_strip(t->target))) {
		struct val s;
		if (deref(ev, v, &s))
			return -1;
		int rc = member(ev, &s, name, arrow, out);
		val_free(&s);
		return rc;
	}
	if (!is_struct_type(t))
		return fail(ev, "Attempt to extract a component of a value that is "
			    "not a structure%s.", arrow ? " pointer" : "");
	if (!find_member(v, t, name, out))
		return fail(ev, "There is no member named %s.", name);
	return 0;
}

static int eval_member(struct ev *ev, const struct node *n, struct val *out)
{
	struct val v;
	if (eval(ev, n->a, &v))
		return -1;
	int rc = member(ev, &v, n->s, n->kind == N_ARROW, out);
	val_free(&v);
	return rc;
}

/* Types, casts and sizeof. */

static int resolve_type(struct ev *ev, const struct tname *tn,
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
	if (val_type_strip(to) != kind_of(v))
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
	if (decay(ev, v))
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

static int eval_cast(struct ev *ev, const struct node *n, struct val *out)
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

static int eval_sizeof(struct ev *ev, const struct node *n, struct val *out)
{
	if (n->kind == N_SIZEOF_TYPE) {
		const struct di_type *t;
		if (resolve_type(ev, n->type, &t))
			return -1;
		*out = size_value(t);
		return 0;
	}
	if (n->a->kind == N_IDENT)
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

static int eval_history(struct ev *ev, const struct node *n, struct val *out)
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
	if (env->read_reg && env->read_reg(env->arg, name, out) == 0)
		return 0;
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

static int eval_assign(struct ev *ev, const struct node *n, struct val *out)
{
	struct val l, r;
	if (eval_two(ev, n, &l, &r))
		return -1;
	int rc = assign(ev, n->op, &l, &r, out);
	val_free(&l);
	val_free(&r);
	return rc;
}

static int eval_literal(const struct node *n, struct val *out)
{
	if (n->kind == N_INT)
		*out = val_from_int(builtin(n->tname), (int64_t)n->ival);
	else if (n->kind == N_FLOAT)
		*out = from_ld(builtin(n->tname), n->fval);
	else
		*out = val_from_bytes(val_array_of(builtin("char"), n->len + 1),
				      n->s, n->len + 1);
	return 0;
}

static int eval(struct ev *ev, const struct node *n, struct val *out)
{
	switch (n->kind) {
	case N_INT:
	case N_FLOAT:
	case N_STRING:
		return eval_literal(n, out);
	case N_IDENT:
		return eval_ident(ev, n->s, out);
	case N_REG:
		return eval_reg(ev, n->s, out);
	case N_HISTORY:
		return eval_history(ev, n, out);
	case N_UNARY:
		return eval_unary(ev, n, out);
	case N_BINARY:
		return eval_binary(ev, n, out);
	case N_COND:
		return eval_cond(ev, n, out);
	case N_INDEX:
		return eval_index(ev, n, out);
	case N_CALL:
		return fail(ev, "Function calls are not supported");
	case N_MEMBER:
	case N_ARROW:
		return eval_member(ev, n, out);
	case N_CAST:
		return eval_cast(ev, n, out);
	case N_SIZEOF:
	case N_SIZEOF_TYPE:
		return eval_sizeof(ev, n, out);
	case N_ASSIGN:
		return eval_assign(ev, n, out);
	}
	return fail(ev, "Unknown expression");
}

int expr_eval(const struct expr *e, const struct expr_env *env,
	      struct val *out, char *err, size_t errlen)
{
	struct ev ev = { .env = env, .err = err, .errlen = errlen };
	struct expr *typed = NULL;
	const struct node *root = e->root;
	if (errlen)
		err[0] = 0;
	memset(out, 0, sizeof(*out));
	if (e->ambiguous && env->lookup_type) {
		typed = parse_text(e->text, env, err, errlen);
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
