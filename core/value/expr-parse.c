/* expr-parse: the lexer and the recursive-descent parser of C expressions
 * (gdb's grammar and precedence, with its {type} addr and @), building the
 * tree that expr-eval.c walks. Errors use gdb's wording. */
#include "expr-tree.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tok {
	int kind;
	size_t pos;              /* where it starts, for "near `...'" */
	uint64_t ival;
	long double fval;
	const char *tname;       /* literal's type, a val_builtin name */
	char *s;                 /* identifier, $name or string bytes */
	size_t len;
	int op;                  /* ET_ASSIGN_OP: the arithmetic operator */
};

struct ps {
	const char *text;
	struct tok *toks;
	size_t ntoks, cap;
	size_t i;
	const struct expr_env *env;
	bool ambiguous;
	bool failed;
	int nest;                /* parse_unary/cond/assign calls open */
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
	t->kind = ET_INT;
	t->ival = v;
	t->tname = int_literal_type(v, decimal, u, longs);
	return 0;
}

static size_t lex_number(struct ps *ps, size_t i)
{
	size_t end = number_end(ps->text, i);
	char *text = xstrndup(ps->text + i, end - i);
	struct tok *t = push_tok(ps, ET_INT, i);
	int rc = is_float_text(text, end - i) ? (lex_float(t, text) ? 0 : -1)
					       : lex_int(t, text);
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
	unsigned v = 0;   /* long \x escapes wrap instead of overflowing */
	int n = 0;
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
		push_tok(ps, ET_CHAR, start);
		if (ps->text[i + 1])
			ps_error(ps, "Empty character constant.");
		else
			ps_error(ps, "Unmatched single quote.");
		return strlen(ps->text);
	}
	i = lex_char_in(ps, i + 1, &ch);
	struct tok *t = push_tok(ps, ET_CHAR, start);
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
	struct tok *t = push_tok(ps, ET_STRING, start);
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
	if (kind == ET_DOLLAR)
		i++;
	while (is_ident_char(ps->text[i]) || (kind == ET_DOLLAR && ps->text[i] == '$'))
		i++;
	struct tok *t = push_tok(ps, kind, start);
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

/* gdb's scope operator: `file.c::name`, `'file.c'::name`, `func::name`.
 * Returns the index after "::" if a scope starts at i, else 0. */
static size_t lex_scope(struct ps *ps, size_t i)
{
	const char *s = ps->text;
	size_t j = i, end;
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
	struct tok *t = push_tok(ps, ET_SCOPE, i);
	t->s = xstrndup(s + j, end - j);
	return end + (s[end] == '\'' ? 3 : 2);
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
	return t->kind == ET_IDENT && strcmp(t->s, w) == 0;
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

static struct expr_node *new_node(enum expr_kind kind, int op, struct expr_node *a,
			     struct expr_node *b)
{
	struct expr_node *n = xcalloc(1, sizeof(*n));
	n->kind = kind;
	n->op = op;
	n->a = a;
	n->b = b;
	n->depth = 1 + (a && b ? (a->depth > b->depth ? a->depth : b->depth) :
			a ? a->depth : b ? b->depth : 0);
	return n;
}

static void free_tname(struct expr_tname *tn)
{
	if (tn)
		free(tn->name);
	free(tn);
}

static void free_node(struct expr_node *n)
{
	if (!n)
		return;
	free_node(n->a);
	free_node(n->b);
	free_node(n->c);
	free(n->s);
	free(n->scope);
	free_tname(n->type);
	free(n);
}

static const char *const base_words[] = {
	"void", "char", "short", "int", "long", "float", "double", "signed",
	"unsigned", "_Bool", "struct", "union", "enum", "const", "volatile",
};

static bool is_type_word(const struct tok *t)
{
	if (t->kind != ET_IDENT)
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

static void parse_declarator(struct ps *ps, struct expr_tname *tn)
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
		if (t->kind != ET_INT || tn->ndims == ARRAY_LEN(tn->dims)) {
			syntax_error(ps);
			return;
		}
		tn->dims[tn->ndims++] = t->ival;
		ps->i++;
		expect(ps, ']');
	}
}

static struct expr_tname *parse_typename(struct ps *ps)
{
	struct expr_tname *tn = xcalloc(1, sizeof(*tn));
	skip_qualifiers(ps);
	const struct tok *t = peek(ps, 0);
	if (is_word(t, "struct") || is_word(t, "union") || is_word(t, "enum")) {
		tn->tag = t->s[0] == 's' ? "struct" : t->s[0] == 'u' ? "union" : "enum";
		ps->i++;
		if (!at(ps, ET_IDENT)) {
			free_tname(tn);
			return syntax_error(ps);
		}
		tn->name = xasprintf("%s %s", tn->tag, peek(ps, 0)->s);
		ps->i++;
	} else if (is_type_word(t)) {
		tn->name = parse_base_words(ps);
		tn->builtin = true;
	} else if (t->kind == ET_IDENT) {
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
	case ET_INT: case ET_FLOAT: case ET_CHAR: case ET_STRING: case ET_IDENT:
	case ET_DOLLAR: case '(': case '!': case '~': case '{':
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
	if (t->kind != ET_IDENT || is_word(t, "sizeof"))
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
	    next->kind != '&' && next->kind != ET_INC && next->kind != ET_DEC)
		return false;
	ps->ambiguous = true;
	return ps->env && ps->env->lookup_type &&
	       ps->env->lookup_type(ps->env->arg, t->s) != NULL;
}

static struct expr_node *parse_expr(struct ps *ps);
static struct expr_node *parse_assign(struct ps *ps);
static struct expr_node *parse_cond(struct ps *ps);
static struct expr_node *parse_unary(struct ps *ps);

/* Deeper nesting would overflow the stack, here or in the evaluator. */
#define EXPR_MAX_DEPTH 500

static struct expr_node *depth_ok(struct ps *ps, struct expr_node *n)
{
	if (n && n->depth > EXPR_MAX_DEPTH) {
		ps_error(ps, "Expression too deeply nested.");
		free_node(n);
		return NULL;
	}
	return n;
}

static bool nest_in(struct ps *ps)
{
	if (ps->nest >= 4 * EXPR_MAX_DEPTH) {   /* parens nest without nodes */
		ps_error(ps, "Expression too deeply nested.");
		return false;
	}
	ps->nest++;
	return true;
}

static struct expr_node *nest_out(struct ps *ps, struct expr_node *n)
{
	ps->nest--;
	return depth_ok(ps, n);
}

static struct expr_node *parse_string(struct ps *ps)
{
	struct sbuf b = {0};
	sbuf_add(&b, "");
	while (at(ps, ET_STRING)) {       /* "ab" "cd" is "abcd" */
		const struct tok *t = peek(ps, 0);
		sbuf_addn(&b, t->s, t->len);
		ps->i++;
	}
	struct expr_node *n = new_node(EN_STRING, 0, NULL, NULL);
	n->len = b.len;
	n->s = sbuf_take(&b);
	return n;
}

/* $, $$, $$N, $N: history; other names: registers or void convenience
 * variables. */
static struct expr_node *dollar_node(const char *name)
{
	struct expr_node *n = new_node(EN_HISTORY, 0, NULL, NULL);
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
		n->kind = EN_REG;
		n->s = xstrdup(name);
	}
	return n;
}

static struct expr_node *parse_primary(struct ps *ps)
{
	const struct tok *t = peek(ps, 0);
	struct expr_node *n;
	switch (t->kind) {
	case ET_INT:
	case ET_CHAR:
	case ET_FLOAT:
		n = new_node(t->kind == ET_FLOAT ? EN_FLOAT : EN_INT, 0, NULL, NULL);
		n->ival = t->ival;
		n->fval = t->fval;
		n->tname = t->tname;
		ps->i++;
		return n;
	case ET_STRING:
		return parse_string(ps);
	case ET_DOLLAR:
		ps->i++;
		return dollar_node(t->s);
	case ET_IDENT:
		if (is_type_word(t) || is_word(t, "sizeof"))
			return syntax_error(ps);
		n = new_node(EN_IDENT, 0, NULL, NULL);
		n->s = xstrdup(t->s);
		ps->i++;
		return n;
	case ET_SCOPE:
		if (peek(ps, 1)->kind != ET_IDENT)
			return syntax_error(ps);
		n = new_node(EN_IDENT, 0, NULL, NULL);
		n->scope = xstrdup(t->s);
		n->s = xstrdup(peek(ps, 1)->s);
		ps->i += 2;
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

static struct expr_node *parse_member(struct ps *ps, struct expr_node *base, int kind)
{
	ps->i++;
	if (!at(ps, ET_IDENT)) {
		free_node(base);
		return syntax_error(ps);
	}
	struct expr_node *n = new_node(kind, 0, base, NULL);
	n->s = xstrdup(peek(ps, 0)->s);
	ps->i++;
	return n;
}

static struct expr_node *one(void)
{
	struct expr_node *n = new_node(EN_INT, 0, NULL, NULL);
	n->ival = 1;
	n->tname = "int";
	return n;
}

static struct expr_node *parse_postfix_op(struct ps *ps, struct expr_node *n)
{
	int kind = peek(ps, 0)->kind;
	struct expr_node *r = NULL;
	if (kind == '.' || kind == ET_ARROW)
		return parse_member(ps, n, kind == '.' ? EN_MEMBER : EN_ARROW);
	ps->i++;
	if (kind == ET_INC || kind == ET_DEC)
		return new_node(EN_ASSIGN, kind == ET_INC ? '+' : '-', n, one());
	if (kind == '(' && at(ps, ')')) {
		ps->i++;
		return new_node(EN_CALL, 0, n, NULL);
	}
	r = parse_expr(ps);
	if (!r || !expect(ps, kind == '[' ? ']' : ')')) {
		free_node(n);
		free_node(r);
		return NULL;
	}
	return new_node(kind == '[' ? EN_INDEX : EN_CALL, 0, n, r);
}

static struct expr_node *parse_postfix(struct ps *ps)
{
	struct expr_node *n = parse_primary(ps);
	while (n) {
		int kind = peek(ps, 0)->kind;
		if (kind != '[' && kind != '(' && kind != '.' && kind != ET_ARROW &&
		    kind != ET_INC && kind != ET_DEC)
			break;
		n = depth_ok(ps, parse_postfix_op(ps, n));
	}
	return n;
}

static struct expr_node *type_node(enum expr_kind kind, struct expr_tname *tn,
			      struct expr_node *operand)
{
	if (!tn) {
		free_node(operand);
		return NULL;
	}
	struct expr_node *n = new_node(kind, 0, operand, NULL);
	n->type = tn;
	return n;
}

/* "(type) operand" or "{type} operand", the opening bracket at hand: the
 * type name and the operand, both or neither. */
static struct expr_tname *parse_typed(struct ps *ps, int close,
				      struct expr_node **operand)
{
	ps->i++;
	struct expr_tname *tn = parse_typename(ps);
	*operand = tn && expect(ps, close) ? parse_unary(ps) : NULL;
	if (!*operand) {
		free_tname(tn);
		return NULL;
	}
	return tn;
}

static struct expr_node *parse_cast(struct ps *ps)
{
	struct expr_node *operand;
	struct expr_tname *tn = parse_typed(ps, ')', &operand);
	return tn ? type_node(EN_CAST, tn, operand) : NULL;
}

/* gdb's {type} addr: the object of that type at addr. */
static struct expr_node *parse_brace(struct ps *ps)
{
	struct expr_node *operand;
	struct expr_tname *tn = parse_typed(ps, '}', &operand);
	if (!tn)
		return NULL;
	tn->nptr++;
	return new_node(EN_UNARY, '*', type_node(EN_CAST, tn, operand), NULL);
}

static struct expr_node *parse_sizeof(struct ps *ps)
{
	ps->i++;
	if (at(ps, '(') && is_cast(ps)) {
		ps->i++;
		struct expr_tname *tn = parse_typename(ps);
		if (!tn || !expect(ps, ')')) {
			free_tname(tn);
			return NULL;
		}
		return type_node(EN_SIZEOF_TYPE, tn, NULL);
	}
	struct expr_node *operand = parse_unary(ps);
	return operand ? new_node(EN_SIZEOF, 0, operand, NULL) : NULL;
}

static struct expr_node *unary(struct ps *ps)
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
	if (t->kind == ET_INC || t->kind == ET_DEC) {
		ps->i++;
		struct expr_node *a = parse_unary(ps);
		return a ? new_node(EN_ASSIGN, t->kind == ET_INC ? '+' : '-', a, one()) : NULL;
	}
	if (t->kind < 128 && t->kind && strchr("-+!~*&", t->kind)) {
		int op = t->kind;
		ps->i++;
		struct expr_node *a = parse_unary(ps);
		return a ? new_node(EN_UNARY, op, a, NULL) : NULL;
	}
	return parse_postfix(ps);
}

/* Binding strength of binary operators, as in gdb's C grammar. */
static int binary_prec(int kind)
{
	switch (kind) {
	case ET_OROR: return 1;
	case ET_ANDAND: return 2;
	case '|': return 3;
	case '^': return 4;
	case '&': return 5;
	case ET_EQ: case ET_NE: return 6;
	case '<': case '>': case ET_LE: case ET_GE: return 7;
	case ET_SHL: case ET_SHR: return 8;
	case '@': return 9;
	case '+': case '-': return 10;
	case '*': case '/': case '%': return 11;
	default: return 0;
	}
}

static struct expr_node *parse_binary(struct ps *ps, int min_prec)
{
	struct expr_node *left = parse_unary(ps);
	while (left) {
		int op = peek(ps, 0)->kind;
		int prec = binary_prec(op);
		if (!prec || prec < min_prec)
			break;
		ps->i++;
		struct expr_node *right = parse_binary(ps, prec + 1);
		if (!right) {
			free_node(left);
			return NULL;
		}
		left = depth_ok(ps, new_node(EN_BINARY, op, left, right));
	}
	return left;
}

static struct expr_node *parse_unary(struct ps *ps)
{
	return nest_in(ps) ? nest_out(ps, unary(ps)) : NULL;
}

static struct expr_node *cond(struct ps *ps)
{
	struct expr_node *c = parse_binary(ps, 1);
	if (!c || !at(ps, '?'))
		return c;
	ps->i++;
	struct expr_node *a = parse_expr(ps);
	struct expr_node *b = a && expect(ps, ':') ? parse_cond(ps) : NULL;
	if (!b) {
		free_node(c);
		free_node(a);
		return NULL;
	}
	struct expr_node *n = new_node(EN_COND, 0, a, b);
	n->c = c;
	if (c->depth >= n->depth)
		n->depth = c->depth + 1;
	return n;
}

static struct expr_node *parse_cond(struct ps *ps)
{
	return nest_in(ps) ? nest_out(ps, cond(ps)) : NULL;
}

static struct expr_node *assign(struct ps *ps)
{
	struct expr_node *left = parse_cond(ps);
	const struct tok *t = peek(ps, 0);
	if (!left || (t->kind != '=' && t->kind != ET_ASSIGN_OP))
		return left;
	int op = t->kind == '=' ? 0 : t->op;
	ps->i++;
	struct expr_node *right = parse_assign(ps);
	if (!right) {
		free_node(left);
		return NULL;
	}
	return new_node(EN_ASSIGN, op, left, right);
}

static struct expr_node *parse_assign(struct ps *ps)
{
	return nest_in(ps) ? nest_out(ps, assign(ps)) : NULL;
}

static struct expr_node *parse_expr(struct ps *ps)
{
	struct expr_node *left = parse_assign(ps);
	while (left && at(ps, ',')) {
		ps->i++;
		struct expr_node *right = parse_assign(ps);
		if (!right) {
			free_node(left);
			return NULL;
		}
		left = depth_ok(ps, new_node(EN_BINARY, ',', left, right));
	}
	return left;
}

static void free_tokens(struct ps *ps)
{
	for (size_t i = 0; i < ps->ntoks; i++)
		free(ps->toks[i].s);
	free(ps->toks);
}

struct expr *expr_parse_typed(const char *text, const struct expr_env *env,
			       char *err, size_t errlen)
{
	struct ps ps = { .text = text, .env = env, .err = err, .errlen = errlen };
	struct expr_node *root = NULL;
	if (errlen)
		err[0] = 0;
	lex(&ps);
	if (!ps.failed)
		root = parse_expr(&ps);
	if (root && !at(&ps, ET_EOF))
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
	return expr_parse_typed(text, NULL, err, errlen);
}

void expr_free(struct expr *e)
{
	if (!e)
		return;
	free_node(e->root);
	free(e->text);
	free(e);
}
