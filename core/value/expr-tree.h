/* expr-tree: the parsed form of an expression, shared by the parser
 * (expr-parse.c) and the evaluator (expr-eval.c); private to expr. */
#ifndef QZ_EXPR_TREE_H
#define QZ_EXPR_TREE_H

#include "expr.h"

/* Tokens: single characters stand for themselves. */
enum expr_tok {
	ET_EOF = 0,
	ET_INT = 256, ET_FLOAT, ET_CHAR, ET_STRING, ET_IDENT, ET_DOLLAR,
	ET_ARROW, ET_INC, ET_DEC, ET_SHL, ET_SHR, ET_LE, ET_GE, ET_EQ, ET_NE,
	ET_ANDAND, ET_OROR, ET_ASSIGN_OP,
	ET_SCOPE                 /* "file.c::" or "func::" before a name */
};

/* A type name in a cast or sizeof, resolved when evaluated since typedef
 * and struct names depend on the program. */
#define EXPR_CV_CONST 1u
#define EXPR_CV_VOLATILE 2u

struct expr_tname {
	char *name;              /* "unsigned long", "struct node", "node_t" */
	const char *tag;         /* "struct", "union", "enum" or NULL */
	bool builtin;
	int nptr;
	unsigned cv;             /* EXPR_CV_* of the base type ("const u32 *") */
	unsigned char ptr_cv[8]; /* of each of the first pointer levels ("* const") */
	uint64_t dims[8];
	size_t ndims;
};

enum expr_kind {
	EN_INT, EN_FLOAT, EN_STRING, EN_IDENT, EN_REG, EN_HISTORY, EN_UNARY, EN_BINARY,
	EN_COND, EN_INDEX, EN_CALL, EN_MEMBER, EN_ARROW, EN_CAST, EN_SIZEOF,
	EN_SIZEOF_TYPE, EN_ASSIGN
};

struct expr_node {
	enum expr_kind kind;
	int op;                  /* operator token; EN_ASSIGN: 0 or the op of op= */
	struct expr_node *a, *b, *c;
	char *s;                 /* name, member, register or string bytes */
	char *scope;             /* EN_IDENT: FILE or FUNCTION of FILE::name */
	size_t len;
	uint64_t ival;
	long double fval;
	const char *tname;
	struct expr_tname *type;
	int hist;                /* EN_HISTORY: index as the history callback wants */
	bool rel;
	int depth;               /* nodes on the longest path down, for the
	                            parser's nesting limit */
};

struct expr {
	struct expr_node *root;
	char *text;
	/* A parenthesized name followed by - + * & is a cast only if the name
	 * is a type; then evaluation parses again knowing the types. */
	bool ambiguous;
};

/* Parse with the environment at hand, so that (name)-x is a cast exactly
 * when name is a type. */
struct expr *expr_parse_typed(const char *text, const struct expr_env *env,
			      char *err, size_t errlen);

#endif
