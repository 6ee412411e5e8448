/* expr-parse: the recursive-descent parser of C expressions (gdb's
 * grammar and precedence, with its {type} addr and @) over the tokens of
 * expr-lex.c, building the tree that expr-eval.c walks. Errors use gdb's
 * wording. */
#include "expr-int.h"

#include <stdlib.h>
#include <string.h>

static const struct expr_token *peek(const struct expr_ps *ps, size_t ahead)
{
	size_t i = ps->i + ahead;
	return &ps->toks[i < ps->ntoks ? i : ps->ntoks - 1];
}

static bool at(const struct expr_ps *ps, int kind)
{
	return peek(ps, 0)->kind == kind;
}

static bool is_word(const struct expr_token *t, const char *w)
{
	return t->kind == ET_IDENT && strcmp(t->s, w) == 0;
}

static void *syntax_error(struct expr_ps *ps)
{
	expr_ps_error(ps, "A syntax error in expression, near `%s'.",
		      ps->text + peek(ps, 0)->pos);
	return NULL;
}

static bool expect(struct expr_ps *ps, int kind)
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

static bool is_type_word(const struct expr_token *t)
{
	if (t->kind != ET_IDENT)
		return false;
	for (size_t i = 0; i < ARRAY_LEN(base_words); i++)
		if (strcmp(t->s, base_words[i]) == 0)
			return true;
	return false;
}

static bool is_qualifier(const struct expr_token *t)
{
	return is_word(t, "const") || is_word(t, "volatile");
}

/* Skip const/volatile words; returns them as EXPR_CV_* bits. */
static unsigned skip_qualifiers(struct expr_ps *ps)
{
	unsigned cv = 0;
	for (const struct expr_token *t; is_qualifier(t = peek(ps, 0)); ps->i++)
		cv |= is_word(t, "const") ? EXPR_CV_CONST : EXPR_CV_VOLATILE;
	return cv;
}

/* Base type words in any order, as C allows: "long unsigned int". */
static char *parse_base_words(struct expr_ps *ps, unsigned *cv)
{
	int nlong = 0, nshort = 0, nsigned = 0, nunsigned = 0;
	const char *kind = NULL;
	for (;; ps->i++) {
		const struct expr_token *t = peek(ps, 0);
		if (is_word(t, "long"))
			nlong++;
		else if (is_word(t, "short"))
			nshort++;
		else if (is_word(t, "signed"))
			nsigned++;
		else if (is_word(t, "unsigned"))
			nunsigned++;
		else if (is_qualifier(t))
			*cv |= is_word(t, "const") ? EXPR_CV_CONST : EXPR_CV_VOLATILE;
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

static void parse_declarator(struct expr_ps *ps, struct expr_tname *tn)
{
	tn->cv |= skip_qualifiers(ps);
	while (at(ps, '*')) {
		ps->i++;
		unsigned cv = skip_qualifiers(ps);
		if ((size_t)tn->nptr < ARRAY_LEN(tn->ptr_cv))
			tn->ptr_cv[tn->nptr] = (unsigned char)cv;
		tn->nptr++;
	}
	while (at(ps, '[') && !ps->failed) {
		ps->i++;
		const struct expr_token *t = peek(ps, 0);
		if (t->kind != ET_INT || tn->ndims == ARRAY_LEN(tn->dims)) {
			syntax_error(ps);
			return;
		}
		tn->dims[tn->ndims++] = t->ival;
		ps->i++;
		expect(ps, ']');
	}
}

static struct expr_tname *parse_typename(struct expr_ps *ps)
{
	struct expr_tname *tn = xcalloc(1, sizeof(*tn));
	tn->cv = skip_qualifiers(ps);
	const struct expr_token *t = peek(ps, 0);
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
		tn->name = parse_base_words(ps, &tn->cv);
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

static bool starts_operand(const struct expr_token *t)
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
static bool is_cast(struct expr_ps *ps)
{
	const struct expr_token *t = peek(ps, 1);
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
	const struct expr_token *next = peek(ps, 3);
	if (starts_operand(next))
		return true;
	if (next->kind != '-' && next->kind != '+' && next->kind != '*' &&
	    next->kind != '&' && next->kind != ET_INC && next->kind != ET_DEC)
		return false;
	ps->ambiguous = true;
	return ps->env && ps->env->lookup_type &&
	       ps->env->lookup_type(ps->env->arg, t->s) != NULL;
}

static struct expr_node *parse_expr(struct expr_ps *ps);
static struct expr_node *parse_assign(struct expr_ps *ps);
static struct expr_node *parse_cond(struct expr_ps *ps);
static struct expr_node *parse_unary(struct expr_ps *ps);

/* Deeper nesting would overflow the stack, here or in the evaluator. */
#define EXPR_MAX_DEPTH 500

static struct expr_node *depth_ok(struct expr_ps *ps, struct expr_node *n)
{
	if (n && n->depth > EXPR_MAX_DEPTH) {
		expr_ps_error(ps, "Expression too deeply nested.");
		free_node(n);
		return NULL;
	}
	return n;
}

static bool nest_in(struct expr_ps *ps)
{
	if (ps->nest >= 4 * EXPR_MAX_DEPTH) {   /* parens nest without nodes */
		expr_ps_error(ps, "Expression too deeply nested.");
		return false;
	}
	ps->nest++;
	return true;
}

static struct expr_node *nest_out(struct expr_ps *ps, struct expr_node *n)
{
	ps->nest--;
	return depth_ok(ps, n);
}

static struct expr_node *parse_string(struct expr_ps *ps)
{
	struct sbuf b = {0};
	sbuf_add(&b, "");
	while (at(ps, ET_STRING)) {       /* "ab" "cd" is "abcd" */
		const struct expr_token *t = peek(ps, 0);
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

static struct expr_node *parse_primary(struct expr_ps *ps)
{
	const struct expr_token *t = peek(ps, 0);
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

static struct expr_node *parse_member(struct expr_ps *ps, struct expr_node *base, int kind)
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

static struct expr_node *parse_postfix_op(struct expr_ps *ps, struct expr_node *n)
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

static struct expr_node *parse_postfix(struct expr_ps *ps)
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
static struct expr_tname *parse_typed(struct expr_ps *ps, int close,
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

static struct expr_node *parse_cast(struct expr_ps *ps)
{
	struct expr_node *operand;
	struct expr_tname *tn = parse_typed(ps, ')', &operand);
	return tn ? type_node(EN_CAST, tn, operand) : NULL;
}

/* gdb's {type} addr: the object of that type at addr. */
static struct expr_node *parse_brace(struct expr_ps *ps)
{
	struct expr_node *operand;
	struct expr_tname *tn = parse_typed(ps, '}', &operand);
	if (!tn)
		return NULL;
	tn->nptr++;
	return new_node(EN_UNARY, '*', type_node(EN_CAST, tn, operand), NULL);
}

static struct expr_node *parse_sizeof(struct expr_ps *ps)
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

static struct expr_node *unary(struct expr_ps *ps)
{
	const struct expr_token *t = peek(ps, 0);
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

static struct expr_node *parse_binary(struct expr_ps *ps, int min_prec)
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

static struct expr_node *parse_unary(struct expr_ps *ps)
{
	return nest_in(ps) ? nest_out(ps, unary(ps)) : NULL;
}

static struct expr_node *cond(struct expr_ps *ps)
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

static struct expr_node *parse_cond(struct expr_ps *ps)
{
	return nest_in(ps) ? nest_out(ps, cond(ps)) : NULL;
}

static struct expr_node *assign(struct expr_ps *ps)
{
	struct expr_node *left = parse_cond(ps);
	const struct expr_token *t = peek(ps, 0);
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

static struct expr_node *parse_assign(struct expr_ps *ps)
{
	return nest_in(ps) ? nest_out(ps, assign(ps)) : NULL;
}

static struct expr_node *parse_expr(struct expr_ps *ps)
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

static void free_tokens(struct expr_ps *ps)
{
	for (size_t i = 0; i < ps->ntoks; i++)
		free(ps->toks[i].s);
	free(ps->toks);
}

struct expr *expr_parse_typed(const char *text, const struct expr_env *env,
			      char *err, size_t errlen)
{
	struct expr_ps ps = { .text = text, .env = env, .err = err, .errlen = errlen };
	struct expr_node *root = NULL;
	if (errlen)
		err[0] = 0;
	expr_lex(&ps);
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
