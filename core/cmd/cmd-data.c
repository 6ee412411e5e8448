/* cmd-data: print and the registers/locals/args listings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/user.h>

#include "cmd.h"
#include "cmds.h"
#include "target/eval.h"
#include "target/frame.h"
#include "target/regs.h"
#include "target/session.h"

static void cmd_val_print(struct qz *q, const struct val *v, char fmt, bool top,
			  struct sbuf *b)
{
	struct val_print vp = {
		.format = fmt, .top = top, .max_elements = q->print_elements,
		.read_mem = qz_read_cb, .symbolize = qz_symbolize_cb, .arg = q,
	};
	val_print(b, v, &vp);
}

/* "/x expr" -> format 'x' and the expression. */
static const char *cmd_format(const char *a, char *fmt)
{
	*fmt = 0;
	if (*a != '/')
		return a;
	a++;
	while (*a && *a != ' ' && *a != '\t')
		*fmt = *a++;
	return str_skip_space(a);
}

/* print and call: call prints nothing for a void value (a call of a
 * function returning nothing) and needs an expression. */
static int cmd_print_value(struct qz *q, const char *a, bool call)
{
	char fmt;
	a = cmd_format(a, &fmt);
	struct val v;
	if (!*a && call) {
		return qz_error(q, "The history is empty.");
	} else if (!*a) {
		if (q->nhistory == 0)
			return qz_error(q, "The history is empty.");
		v = val_copy(&q->history[q->nhistory - 1]);
	} else if (eval_text(q, a, &v) < 0) {
		return -1;
	}
	const struct di_type *t = val_type_strip(v.type);
	if (call && (!t || t->kind == DI_VOID)) {
		val_free(&v);
		return 0;
	}
	struct sbuf b = {0};
	cmd_val_print(q, &v, fmt, true, &b);
	int n = qz_history_add(q, &v);
	qz_printf(q, "$%d = %s\n", n, b.s ? b.s : "");
	sbuf_free(&b);
	return 0;
}

int cmd_print(struct qz *q, const char *a)
{
	return cmd_print_value(q, a, false);
}

int cmd_call(struct qz *q, const char *a)
{
	return cmd_print_value(q, a, true);
}

/* output EXPR: print's value without history, "$N = " or newline. */
int cmd_output(struct qz *q, const char *a)
{
	char fmt;
	a = cmd_format(a, &fmt);
	struct val v;
	if (!*a)
		return qz_error(q, "Argument required (expression to compute).");
	if (eval_text(q, a, &v) < 0)
		return -1;
	struct sbuf b = {0};
	cmd_val_print(q, &v, fmt, true, &b);
	qz_puts(q, b.s ? b.s : "");
	sbuf_free(&b);
	val_free(&v);
	return 0;
}

static const char *const cmd_gpr_names[] = {
	"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp", "r8", "r9", "r10",
	"r11", "r12", "r13", "r14", "r15", "rip", "eflags", "cs", "ss", "ds", "es",
	"fs", "gs", "fs_base", "gs_base",
};

static void cmd_eflags(uint64_t v, struct sbuf *b)
{
	static const struct { int bit; const char *name; } fl[] = {
		{0, "CF"}, {2, "PF"}, {4, "AF"}, {6, "ZF"}, {7, "SF"}, {8, "TF"},
		{9, "IF"}, {10, "DF"}, {11, "OF"},
	};
	sbuf_add(b, "[ ");
	for (size_t i = 0; i < ARRAY_LEN(fl); i++)
		if (v & (1ull << fl[i].bit))
			sbuf_printf(b, "%s ", fl[i].name);
	sbuf_add(b, "]");
}

static void cmd_reg_row(struct qz *q, const char *name, struct sbuf *b)
{
	struct val v;
	if (eval_reg(q, name, &v) != 0)
		return;
	uint64_t x = (uint64_t)val_as_int(&v);
	if (!strcmp(name, "eflags"))
		x &= 0xffffffff;
	char hex[24];
	snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)x);
	sbuf_printf(b, "%-15s%-19s ", name, hex);
	if (v.optimized_out) {
		sbuf_add(b, "<not saved>");
	} else if (!strcmp(name, "eflags")) {
		cmd_eflags(x, b);
	} else if (!strcmp(name, "rip")) {
		char sym[256];
		sbuf_printf(b, "0x%llx", (unsigned long long)x);
		if (qz_symbolize(q, x, sym, sizeof sym))
			sbuf_printf(b, " <%s>", sym);
	} else if (!strcmp(name, "rbp") || !strcmp(name, "rsp")) {
		sbuf_printf(b, "0x%llx", (unsigned long long)x);
	} else {
		sbuf_printf(b, "%lld", (long long)x);
	}
	sbuf_addc(b, '\n');
	val_free(&v);
}

int cmd_info_all_registers(struct qz *q, const char *a)
{
	(void)a;
	struct sbuf b = {0};
	for (size_t i = 0; i < ARRAY_LEN(cmd_gpr_names); i++)
		cmd_reg_row(q, cmd_gpr_names[i], &b);
	regs_all(q, &b);
	if (b.s)
		qz_puts(q, b.s);
	sbuf_free(&b);
	return 0;
}

int cmd_info_registers(struct qz *q, const char *a)
{
	struct sbuf b = {0};
	if (!*a) {
		for (size_t i = 0; i < ARRAY_LEN(cmd_gpr_names); i++)
			cmd_reg_row(q, cmd_gpr_names[i], &b);
	}
	while (*(a = str_skip_space(a))) {
		size_t n = strcspn(a, " \t");
		char *w = xstrndup(*a == '$' ? a + 1 : a, *a == '$' ? n - 1 : n);
		size_t before = b.len;
		cmd_reg_row(q, strcmp(w, "pc") ? w : "rip", &b);
		if (b.len == before)
			regs_row(q, w, &b);
		if (b.len == before) {
			qz_error(q, "Invalid register `%s'", w);
			free(w);
			sbuf_free(&b);
			return -1;
		}
		free(w);
		a += n;
	}
	if (b.s)
		qz_puts(q, b.s);
	sbuf_free(&b);
	return 0;
}

/* A block's own variables and those of its blocks without code, which
 * gdb reads as if they were not wrapped in a block. */
static void cmd_block_vars(const struct di_scope *s, const struct di_var **out,
			   size_t *n, size_t max)
{
	for (size_t i = 0; i < s->nvars && *n < max; i++)
		out[(*n)++] = &s->vars[i];
	for (size_t i = 0; i < s->nchildren; i++)
		if (!s->children[i].nranges)
			cmd_block_vars(&s->children[i], out, n, max);
}

/* Locals as gdb lists them: innermost block first; a function's (or an
 * inlined call's) own block in declaration order, a lexical block in its
 * hash table's order. */
static void cmd_scope_locals(const struct di_scope *s, bool lexical, uint64_t pc,
			     const struct di_var **out, size_t *n, size_t max)
{
	for (size_t i = 0; i < s->nchildren; i++) {
		if (di_scope_covers(&s->children[i], pc)) {
			cmd_scope_locals(&s->children[i], true, pc, out, n, max);
			break;
		}
	}
	size_t first = *n;
	cmd_block_vars(s, out, n, max);
	if (lexical)
		di_scope_gdb_order(s, out + first, *n - first);
}

static int cmd_vars_into(struct qz *q, const struct frame *f, bool params, int indent,
			 struct sbuf *out);

/* "name = value" (or the error in its place) for one variable of f. */
static void cmd_var_line(struct qz *q, const struct frame *f, const struct di_var *v,
			 int indent, struct sbuf *b)
{
	struct val val;
	sbuf_printf(b, "%*s%s = ", indent, "", v->name ? v->name : "?");
	if (eval_var(q, f, v, &val) == 0) {
		cmd_val_print(q, &val, 0, false, b);
		val_free(&val);
	} else {
		sbuf_printf(b, "<error: %s>", q->err.s ? q->err.s : "");
		sbuf_reset(&q->err);
	}
	sbuf_addc(b, '\n');
}

/* Print the locals (or args) of frame f, one per line after indent
 * spaces; returns how many. */
int cmd_frame_vars(struct qz *q, const struct frame *f, bool params, int indent,
		   struct sbuf *out)
{
	return cmd_vars_into(q, f, params, indent, out);
}

static int cmd_vars(struct qz *q, bool params)
{
	const struct frame *f = frame_get(q, q->sel_frame);
	if (!f || !f->func)
		return qz_error(q, "No symbol table info available.");
	struct sbuf b = {0};
	int shown = cmd_vars_into(q, f, params, 0, &b);
	if (!shown)
		qz_puts(q, params ? "No arguments.\n" : "No locals.\n");
	else
		qz_puts(q, b.s);
	sbuf_free(&b);
	return 0;
}

static int cmd_vars_into(struct qz *q, const struct frame *f, bool params, int indent,
			 struct sbuf *out)
{
	const struct di_var *vars[512];
	size_t n = 0;
	struct sbuf b = {0};
	uint64_t pc = (f->exact_pc ? f->pc : f->pc - 1) - f->mod->bias;
	cmd_scope_locals(f->inl ? &f->inl->body : &f->func->body, false, pc, vars, &n, 512);
	int shown = 0;
	for (size_t i = 0; i < n; i++) {
		const struct di_var *v = params ? NULL : vars[i];
		if (params || v->is_param)
			continue;
		cmd_var_line(q, f, v, indent, &b);
		shown++;
	}
	const struct di_var *pv = f->inl ? f->inl->params : f->func->params;
	size_t np = f->inl ? f->inl->nparams : f->func->nparams;
	for (size_t i = 0; params && i < np; i++) {
		cmd_var_line(q, f, frame_param_shown(pv, np, i), indent, &b);
		shown++;
	}
	sbuf_reset(&q->err);
	if (b.s)
		sbuf_add(out, b.s);
	sbuf_free(&b);
	return shown;
}

int cmd_info_locals(struct qz *q, const char *a)
{
	(void)a;
	return cmd_vars(q, false);
}

int cmd_info_args(struct qz *q, const char *a)
{
	(void)a;
	return cmd_vars(q, true);
}
