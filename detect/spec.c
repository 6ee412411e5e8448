/* spec: the detector rule language's lexer and parser (spec.h has the
 * grammar). Spec files are hostile input: every byte is checked (NULs,
 * control characters, overlong files), recursion is bounded, and every
 * error names the line and column where it was found. */
#include "spec.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

#define SPEC_MAX_DEPTH 32

static const char *const event_names[EV_COUNT] = {
	"malloc", "calloc", "realloc", "free", "start", "exit", "segv", "libwrite", "canary",
	"smash", "read", "write", "deref", "uninit",
};
static const char *const field_names[F_COUNT] = { "addr", "size", "result", "over", "under" };
static const char *const pred_names[P_COUNT] = {
	"allocated", "freed", "inblock", "reachable", "infreed", "indirect",
};

const char *const spec_placeholders[] = {
	"addr", "size", "result", "bsize", "offset", "alloc", "allocfn", "freed", "freefn",
	"here", "class", "over", "under", "fn", "buffer", "indirect", "access", "origin", NULL,
};

enum tok_kind { T_EOF, T_NL, T_IDENT, T_NUM, T_STR, T_LP, T_RP, T_CMP };

struct lex {
	const char *s, *end;
	int line, col;
	const char *where;
	char *err;
	size_t errlen;
	bool failed;
	/* the current token */
	enum tok_kind kind;
	const char *ts;              /* its text (T_IDENT, T_NUM, T_CMP) */
	size_t tn;
	int tline, tcol;
	struct sbuf str;             /* T_STR's unescaped contents */
	uint64_t num;
	enum spec_op cmp;
};

static void lex_fail_at(struct lex *x, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void lex_fail_at(struct lex *x, int line, int col, const char *fmt, ...)
{
	if (x->failed)
		return;
	x->failed = true;
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	snprintf(x->err, x->errlen, "%s:%d:%d: %s", x->where, line, col, msg);
}

#define TOK_FAIL(x, ...) lex_fail_at((x), (x)->tline, (x)->tcol, __VA_ARGS__)

static void lex_adv(struct lex *x)
{
	x->s++;
	x->col++;
}

static bool is_ident0(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_ident(int c)
{
	return is_ident0(c) || (c >= '0' && c <= '9') || c == '-';
}

static void lex_string(struct lex *x)
{
	sbuf_reset(&x->str);
	sbuf_add(&x->str, "");
	lex_adv(x);
	while (x->s < x->end && *x->s != '"') {
		unsigned char c = (unsigned char)*x->s;
		if (c == '\n' || c < 0x20 || c == 0x7f) {
			lex_fail_at(x, x->line, x->col, c == '\n' ? "unterminated string" :
				    "control character 0x%02x in a string", c);
			return;
		}
		if (c == '\\') {
			lex_adv(x);
			if (x->s >= x->end || (*x->s != '"' && *x->s != '\\')) {
				lex_fail_at(x, x->line, x->col, "only \\\" and \\\\ escapes are known");
				return;
			}
			c = (unsigned char)*x->s;
		}
		sbuf_addc(&x->str, (char)c);
		lex_adv(x);
	}
	if (x->s >= x->end) {
		lex_fail_at(x, x->line, x->col, "unterminated string");
		return;
	}
	lex_adv(x);
	x->kind = T_STR;
}

static void lex_number(struct lex *x)
{
	const char *p = x->s;
	int64_t v;
	/* str_num reads up to a non-digit; the text is not NUL-terminated,
	 * so copy the digits out first. */
	size_t n = 0;
	while (p + n < x->end && n < 40 && is_ident((unsigned char)p[n]))
		n++;
	char buf[48];
	memcpy(buf, p, n);
	buf[n] = 0;
	const char *q = buf;
	if (str_num(&q, 0, INT64_MAX, &v) != STR_NUM_OK || *q) {
		lex_fail_at(x, x->line, x->col, "bad number \"%s\"", buf);
		return;
	}
	x->num = (uint64_t)v;
	x->kind = T_NUM;
	while (n--)
		lex_adv(x);
}

static bool lex_cmp(struct lex *x)
{
	static const struct { const char *t; enum spec_op op; } ops[] = {
		{"==", OP_EQ}, {"!=", OP_NE}, {"<=", OP_LE}, {">=", OP_GE}, {"<", OP_LT}, {">", OP_GT},
	};
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
		size_t n = strlen(ops[i].t);
		if ((size_t)(x->end - x->s) >= n && memcmp(x->s, ops[i].t, n) == 0) {
			x->kind = T_CMP;
			x->cmp = ops[i].op;
			x->ts = x->s;
			x->tn = n;
			while (n--)
				lex_adv(x);
			return true;
		}
	}
	return false;
}

static void lex_skip_blank(struct lex *x)
{
	while (x->s < x->end && (*x->s == ' ' || *x->s == '\t' || *x->s == '\r'))
		lex_adv(x);
	if (x->s < x->end && *x->s == '#')
		while (x->s < x->end && *x->s != '\n')
			lex_adv(x);
}

/* The next token; T_EOF on failure too (x->failed says which). */
static void lex_next(struct lex *x)
{
	lex_skip_blank(x);
	x->tline = x->line;
	x->tcol = x->col;
	x->kind = T_EOF;
	if (x->failed || x->s >= x->end)
		return;
	unsigned char c = (unsigned char)*x->s;
	if (c == '\n') {
		x->kind = T_NL;
		x->s++;
		x->line++;
		x->col = 1;
	} else if (is_ident0(c)) {
		x->ts = x->s;
		while (x->s < x->end && is_ident((unsigned char)*x->s))
			lex_adv(x);
		x->tn = (size_t)(x->s - x->ts);
		x->kind = T_IDENT;
	} else if (c >= '0' && c <= '9') {
		lex_number(x);
	} else if (c == '"') {
		lex_string(x);
	} else if (c == '(' || c == ')') {
		x->kind = c == '(' ? T_LP : T_RP;
		lex_adv(x);
	} else if (!lex_cmp(x)) {
		if (c < 0x20 || c >= 0x7f)
			lex_fail_at(x, x->line, x->col, "unexpected byte 0x%02x", c);
		else
			lex_fail_at(x, x->line, x->col, "unexpected character '%c'", c);
	}
	if (x->failed)
		x->kind = T_EOF;
}

static bool tok_is(const struct lex *x, const char *word)
{
	return x->kind == T_IDENT && x->tn == strlen(word) && memcmp(x->ts, word, x->tn) == 0;
}

/* The index of the current identifier in names, or -1. */
static int tok_in(const struct lex *x, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (tok_is(x, names[i]))
			return i;
	return -1;
}

static const char *tok_desc(const struct lex *x, char *buf, size_t len)
{
	switch (x->kind) {
	case T_EOF: return "end of file";
	case T_NL: return "end of line";
	case T_STR: return "a string";
	case T_NUM: return "a number";
	case T_LP: return "'('";
	case T_RP: return "')'";
	default:
		snprintf(buf, len, "\"%.*s\"", (int)(x->tn > 40 ? 40 : x->tn), x->ts);
		return buf;
	}
}

static void expect_fail(struct lex *x, const char *what)
{
	char b[64];
	TOK_FAIL(x, "expected %s, found %s", what, tok_desc(x, b, sizeof b));
}

static void cond_free(struct spec_cond *c)
{
	if (!c)
		return;
	cond_free(c->l);
	cond_free(c->r);
	free(c);
}

struct parse {
	struct lex x;
	struct spec *s;
	struct spec_rule *rule;      /* the rule being read, or NULL */
};

/* A field of the current rule's event, or a number. */
static bool parse_operand(struct parse *p, struct spec_val *v)
{
	struct lex *x = &p->x;
	if (x->kind == T_NUM) {
		*v = (struct spec_val){ .num = x->num };
		lex_next(x);
		return true;
	}
	int f = tok_in(x, field_names, F_COUNT);
	if (x->kind != T_IDENT || f < 0) {
		expect_fail(x, "a field (addr, size, result, over) or a number");
		return false;
	}
	if (!spec_event_has(p->rule->ev, p->rule->each_block, (enum spec_field)f)) {
		TOK_FAIL(x, "event %s has no field %s", spec_event_name(p->rule->ev), field_names[f]);
		return false;
	}
	*v = (struct spec_val){ .is_field = true, .field = (enum spec_field)f };
	lex_next(x);
	return true;
}

static struct spec_cond *parse_or(struct parse *p, int depth);

static struct spec_cond *cond_new(enum spec_op op)
{
	struct spec_cond *c = xcalloc(1, sizeof *c);
	c->op = op;
	return c;
}

static struct spec_cond *parse_pred(struct parse *p, int pred)
{
	struct lex *x = &p->x;
	struct spec_cond *c = cond_new(OP_PRED);
	c->pred = (enum spec_pred)pred;
	lex_next(x);
	if (x->kind != T_LP) {
		expect_fail(x, "'(' after the predicate");
	} else {
		lex_next(x);
		if (parse_operand(p, &c->a)) {
			if (x->kind == T_RP)
				lex_next(x);
			else
				expect_fail(x, "')'");
		}
	}
	if (x->failed) {
		cond_free(c);
		return NULL;
	}
	return c;
}

static struct spec_cond *parse_unary(struct parse *p, int depth)
{
	struct lex *x = &p->x;
	if (depth > SPEC_MAX_DEPTH) {
		TOK_FAIL(x, "condition nested too deeply");
		return NULL;
	}
	if (tok_is(x, "not")) {
		lex_next(x);
		struct spec_cond *l = parse_unary(p, depth + 1);
		if (!l)
			return NULL;
		struct spec_cond *c = cond_new(OP_NOT);
		c->l = l;
		return c;
	}
	if (x->kind == T_LP) {
		lex_next(x);
		struct spec_cond *c = parse_or(p, depth + 1);
		if (c && x->kind != T_RP) {
			expect_fail(x, "')'");
			cond_free(c);
			return NULL;
		}
		if (c)
			lex_next(x);
		return c;
	}
	int pred = tok_in(x, pred_names, P_COUNT);
	if (pred >= 0)
		return parse_pred(p, pred);
	struct spec_cond *c = cond_new(OP_EQ);
	if (!parse_operand(p, &c->a))
		goto bad;
	if (x->kind != T_CMP) {
		expect_fail(x, "a comparison (== != < > <= >=)");
		goto bad;
	}
	c->op = x->cmp;
	lex_next(x);
	if (parse_operand(p, &c->b))
		return c;
bad:
	cond_free(c);
	return NULL;
}

static struct spec_cond *parse_binary(struct parse *p, int depth, bool or)
{
	struct lex *x = &p->x;
	struct spec_cond *l = or ? parse_binary(p, depth, false) : parse_unary(p, depth);
	while (l && tok_is(x, or ? "or" : "and")) {
		lex_next(x);
		struct spec_cond *r = or ? parse_binary(p, depth, false) : parse_unary(p, depth);
		if (!r) {
			cond_free(l);
			return NULL;
		}
		struct spec_cond *c = cond_new(or ? OP_OR : OP_AND);
		c->l = l;
		c->r = r;
		l = c;
	}
	return l;
}

static struct spec_cond *parse_or(struct parse *p, int depth)
{
	return parse_binary(p, depth, true);
}

/* Every {name} in a template is a known placeholder; '{' and '}' only
 * around one. */
static void check_template(struct parse *p, const char *t, int line, int col)
{
	for (const char *c = t; *c && !p->x.failed; c++) {
		if (*c == '}') {
			lex_fail_at(&p->x, line, col, "'}' without '{' in the report");
			return;
		}
		if (*c != '{')
			continue;
		const char *e = strchr(c, '}');
		bool ok = false;
		for (int i = 0; e && spec_placeholders[i]; i++)
			ok |= (size_t)(e - c - 1) == strlen(spec_placeholders[i]) &&
			      memcmp(c + 1, spec_placeholders[i], (size_t)(e - c - 1)) == 0;
		if (!ok) {
			lex_fail_at(&p->x, line, col, "unknown placeholder {%.*s} in the report",
				    e ? (int)(e - c - 1 > 32 ? 32 : e - c - 1) : 0, c + 1);
			return;
		}
		c = e;
	}
}


static void need_rule(struct parse *p, const char *kw)
{
	if (!p->rule)
		TOK_FAIL(&p->x, "'%s' before any 'on'", kw);
}

static void stmt_class(struct parse *p)
{
	struct lex *x = &p->x;
	if (p->s->name) {
		TOK_FAIL(x, "a second 'class'");
		return;
	}
	lex_next(x);
	if (x->kind != T_IDENT) {
		expect_fail(x, "the class name");
		return;
	}
	p->s->name = xstrndup(x->ts, x->tn);
	lex_next(x);
	if (x->kind != T_STR) {
		expect_fail(x, "the class title as a string");
		return;
	}
	p->s->title = xstrdup(x->str.s);
	lex_next(x);
}

static void stmt_on(struct parse *p)
{
	struct lex *x = &p->x;
	if (!p->s->name) {
		TOK_FAIL(x, "'on' before 'class'");
		return;
	}
	if (p->s->nrules == SPEC_MAX_RULES) {
		TOK_FAIL(x, "more than %d rules", SPEC_MAX_RULES);
		return;
	}
	int line = x->tline;
	lex_next(x);
	int ev = tok_in(x, event_names, EV_COUNT);
	if (ev < 0) {
		expect_fail(x, "an event (malloc calloc realloc free start exit segv libwrite canary "
			    "smash read write deref)");
		return;
	}
	p->rule = &p->s->rules[p->s->nrules++];
	p->rule->ev = (enum spec_event)ev;
	p->rule->line = line;
	lex_next(x);
	if (!tok_is(x, "each"))
		return;
	if (ev != EV_EXIT) {
		TOK_FAIL(x, "'each block' is only for 'on exit'");
		return;
	}
	lex_next(x);
	if (!tok_is(x, "block")) {
		expect_fail(x, "'block' after 'each'");
		return;
	}
	p->rule->each_block = true;
	lex_next(x);
}

static void stmt_when(struct parse *p)
{
	need_rule(p, "when");
	if (!p->x.failed && p->rule->cond)
		TOK_FAIL(&p->x, "a second 'when' in one rule (use 'and')");
	if (p->x.failed)
		return;
	lex_next(&p->x);
	p->rule->cond = parse_or(p, 0);
}

static void stmt_report(struct parse *p)
{
	struct lex *x = &p->x;
	need_rule(p, "report");
	if (!x->failed && p->rule->report)
		TOK_FAIL(x, "a second 'report' in one rule");
	if (x->failed)
		return;
	lex_next(x);
	if (x->kind != T_STR) {
		expect_fail(x, "the report as a string");
		return;
	}
	check_template(p, x->str.s, x->tline, x->tcol);
	p->rule->report = xstrdup(x->str.s);
	lex_next(x);
}

static void stmt_locate(struct parse *p)
{
	struct lex *x = &p->x;
	need_rule(p, "locate");
	if (x->failed)
		return;
	lex_next(x);
	struct spec_val v;
	if (!parse_operand(p, &v))
		return;
	if (!v.is_field) {
		TOK_FAIL(x, "'locate' names a field, not a number");
		return;
	}
	p->rule->has_locator = true;
	p->rule->locate = v.field;
}

static void parse_stmt(struct parse *p)
{
	static const struct { const char *kw; void (*fn)(struct parse *); } stmts[] = {
		{"class", stmt_class}, {"on", stmt_on}, {"when", stmt_when},
		{"report", stmt_report}, {"locate", stmt_locate},
	};
	struct lex *x = &p->x;
	for (size_t i = 0; i < sizeof stmts / sizeof stmts[0]; i++) {
		if (!tok_is(x, stmts[i].kw))
			continue;
		stmts[i].fn(p);
		if (!x->failed && x->kind != T_NL && x->kind != T_EOF)
			expect_fail(x, "end of line");
		return;
	}
	expect_fail(x, "class, on, when, report or locate");
}

/* What every rule needs, checked at the end (the error points at its on). */
static void check_rules(struct parse *p)
{
	if (!p->s->name) {
		lex_fail_at(&p->x, 1, 1, "no 'class' line");
		return;
	}
	if (!p->s->nrules)
		lex_fail_at(&p->x, p->x.line, p->x.col, "no rule ('on EVENT')");
	for (int i = 0; i < p->s->nrules && !p->x.failed; i++) {
		struct spec_rule *r = &p->s->rules[i];
		if (!r->report)
			lex_fail_at(&p->x, r->line, 1, "rule without 'report'");
	}
}

int spec_parse(const char *text, size_t len, const char *name, struct spec **out,
	       char *err, size_t errlen)
{
	struct parse p = { .x = { .s = text, .end = text + len, .line = 1, .col = 1,
				  .where = name, .err = err, .errlen = errlen } };
	p.s = xcalloc(1, sizeof *p.s);
	if (len > SPEC_MAX_BYTES)
		lex_fail_at(&p.x, 1, 1, "spec larger than %d bytes", SPEC_MAX_BYTES);
	for (lex_next(&p.x); !p.x.failed && p.x.kind != T_EOF;) {
		if (p.x.kind != T_NL)
			parse_stmt(&p);
		while (!p.x.failed && p.x.kind == T_NL)
			lex_next(&p.x);
	}
	if (!p.x.failed)
		check_rules(&p);
	sbuf_free(&p.x.str);
	if (p.x.failed) {
		spec_free(p.s);
		return -1;
	}
	*out = p.s;
	return 0;
}

int spec_load(const char *path, struct spec **out, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	char *buf = xmalloc(SPEC_MAX_BYTES + 1);
	size_t n = fread(buf, 1, SPEC_MAX_BYTES + 1, f);
	bool bad = ferror(f);
	fclose(f);
	int r = -1;
	if (bad)
		snprintf(err, errlen, "%s: read error", path);
	else
		r = spec_parse(buf, n, path, out, err, errlen);
	free(buf);
	if (r == 0)
		(*out)->path = xstrdup(path);
	return r;
}

void spec_free(struct spec *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->nrules; i++) {
		cond_free(s->rules[i].cond);
		free(s->rules[i].report);
	}
	free(s->name);
	free(s->title);
	free(s->path);
	free(s);
}

const char *spec_event_name(enum spec_event e)
{
	return (unsigned)e < EV_COUNT ? event_names[e] : "?";
}

const char *spec_field_name(enum spec_field f)
{
	return (unsigned)f < F_COUNT ? field_names[f] : "?";
}

bool spec_event_has(enum spec_event e, bool each_block, enum spec_field f)
{
	switch (e) {
	case EV_MALLOC: case EV_CALLOC: return f == F_SIZE || f == F_RESULT;
	case EV_REALLOC: return f != F_OVER && f != F_UNDER;
	case EV_LIBWRITE: return f == F_ADDR || f == F_SIZE || f == F_OVER;
	case EV_FREE: case EV_SEGV: return f == F_ADDR;
	case EV_CANARY: return f == F_ADDR || f == F_OVER;
	case EV_SMASH: return f == F_ADDR || f == F_RESULT || f == F_OVER;
	case EV_EXIT: return each_block && (f == F_ADDR || f == F_SIZE);
	case EV_READ: case EV_WRITE: return f != F_RESULT;
	case EV_DEREF: case EV_UNINIT: return f == F_ADDR || f == F_SIZE;
	default: return false;
	}
}
