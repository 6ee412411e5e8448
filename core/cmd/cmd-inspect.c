/* cmd-inspect: looking at types and memory, and expressions shown at every
 * stop: whatis, ptype, x, display, undisplay, info display, set var. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cmds.h"
#include "dinfo/disasm.h"
#include "target/eval.h"
#include "target/frame.h"
#include "value/ptype.h"
#include "target/session.h"

/* "struct node", "int", "node_t *": a type name rather than an
 * expression, for whatis and ptype. */
static const struct di_type *cmd_type_arg(struct qz *q, const char *a)
{
	struct expr_env env;
	eval_env(q, &env);
	const struct di_type *t = env.lookup_type(q, a);
	if (t)
		return t;
	size_t n = strlen(a);
	int stars = 0;
	while (n && (a[n - 1] == '*' || a[n - 1] == ' ')) {
		stars += a[n - 1] == '*';
		n--;
	}
	if (!stars || !n)
		return NULL;
	char *base = xstrndup(a, n);
	t = env.lookup_type(q, base);
	free(base);
	while (t && stars--)
		t = val_pointer_to(t);
	return t;
}

static int cmd_typeof(struct qz *q, const char *a, bool expand)
{
	const struct di_type *t = cmd_type_arg(q, a);
	struct val v = {0};
	bool is_type = t != NULL;
	static const char *const tags[] = {"struct", "union", "enum"};
	for (size_t i = 0; !t && i < 3; i++) {
		size_t n = strlen(tags[i]);
		if (!strncmp(a, tags[i], n) && a[n] == ' ')
			return qz_error(q, "No %s type named %s.", tags[i], str_skip_space(a + n));
	}
	if (!t) {
		if (eval_type_of(q, a, &v) < 0)   /* gdb: whatis *NULL is fine */
			return -1;
		t = v.type;
	}
	struct sbuf b = {0};
	if (expand)
		ptype_print(&b, t);
	else if (is_type && t->kind == DI_TYPEDEF)
		val_type_name(&b, t->target);   /* whatis TYPEDEF: one level */
	else
		val_type_name(&b, t);
	qz_printf(q, "type = %s\n", b.s ? b.s : "void");
	sbuf_free(&b);
	val_free(&v);
	return 0;
}

int cmd_whatis(struct qz *q, const char *a)
{
	if (!*a)
		return qz_error(q, "The history is empty.");
	return cmd_typeof(q, a, false);
}

int cmd_ptype(struct qz *q, const char *a)
{
	if (str_starts(a, "/o "))
		a = str_skip_space(a + 2);
	if (!*a)
		return qz_error(q, "The history is empty.");
	return cmd_typeof(q, a, true);
}

/* x/NFU: count, format letter, unit size. */
struct cmd_xfmt {
	long count;
	char fmt;
	int size;
};

static void cmd_xfmt_parse(const char *s, struct cmd_xfmt *f)
{
	int64_t n;
	if (isdigit((unsigned char)*s) && str_num(&s, 0, INT32_MAX, &n) == STR_NUM_OK)
		f->count = (int)n;
	else if (isdigit((unsigned char)*s))
		f->count = -1;   /* out of range: refused by the caller */
	for (; *s; s++) {
		switch (*s) {
		case 'b': f->size = 1; break;
		case 'h': f->size = 2; break;
		case 'w': f->size = 4; break;
		case 'g': f->size = 8; break;
		default: f->fmt = *s; break;
		}
	}
}

static void cmd_x_label(struct qz *q, uint64_t addr, struct sbuf *b)
{
	char sym[256];
	sbuf_printf(b, "0x%llx", (unsigned long long)addr);
	if (qz_symbolize(q, addr, sym, sizeof sym))
		sbuf_printf(b, " <%s>", sym);
	sbuf_add(b, ":");
}

static const char *cmd_x_int_type(int size, bool is_signed)
{
	static const char *const s[] = {"signed char", "short", "int", "long"};
	static const char *const u[] = {"unsigned char", "unsigned short", "unsigned int",
					"unsigned long"};
	int i = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3;
	return is_signed ? s[i] : u[i];
}

/* One unit printed as gdb's x does: hex zero-padded to the unit size. */
static void cmd_x_unit(struct qz *q, const uint8_t *p, const struct cmd_xfmt *f,
		       struct sbuf *b)
{
	uint64_t u = 0;
	memcpy(&u, p, (size_t)f->size);
	if (f->fmt == 'x') {
		sbuf_printf(b, "\t0x%0*llx", f->size * 2, (unsigned long long)u);
		return;
	}
	const struct di_type *t = val_builtin(cmd_x_int_type(f->size, f->fmt == 'd'));
	if (f->fmt == 'f' && (f->size == 4 || f->size == 8))
		t = val_builtin(f->size == 4 ? "float" : "double");
	struct val v = val_from_bytes(t, p, (size_t)f->size);
	struct val_print vp = {
		.format = f->fmt == 'd' || f->fmt == 'f' ? 0 : f->fmt,
		.max_elements = q->print_elements, .read_mem = qz_read_cb,
		.symbolize = qz_symbolize_cb, .arg = q,
	};
	sbuf_addc(b, '\t');
	val_print(b, &v, &vp);
	val_free(&v);
}

static uint64_t cmd_x_units(struct qz *q, uint64_t addr, const struct cmd_xfmt *f,
			    struct sbuf *b)
{
	int per_line = f->size == 8 ? 2 : f->size == 4 ? 4 : 8;
	if (f->fmt == 'c')
		per_line = 8;
	for (long i = 0; i < f->count; i++) {
		uint8_t buf[8];
		if (i % per_line == 0) {
			if (i)
				sbuf_addc(b, '\n');
			cmd_x_label(q, addr, b);
		}
		if (qz_read(q, addr, buf, (size_t)f->size) < 0) {
			sbuf_addc(b, '\n');
			qz_error(q, "Cannot access memory at address 0x%llx", (unsigned long long)addr);
			return 0;
		}
		cmd_x_unit(q, buf, f, b);
		addr += (uint64_t)f->size;
	}
	sbuf_addc(b, '\n');
	return addr;
}

static uint64_t cmd_x_strings(struct qz *q, uint64_t addr, const struct cmd_xfmt *f,
			      struct sbuf *b)
{
	for (long i = 0; i < f->count; i++) {
		char ptr_text[32];
		snprintf(ptr_text, sizeof ptr_text, "(char *)0x%llx", (unsigned long long)addr);
		struct val v;
		if (eval_text(q, ptr_text, &v) < 0)
			return 0;
		cmd_x_label(q, addr, b);
		struct val_print vp = {
			.max_elements = q->print_elements, .read_mem = qz_read_cb, .arg = q,
		};
		struct sbuf s = {0};
		val_print(&s, &v, &vp);
		val_free(&v);
		const char *str = strchr(s.s ? s.s : "", '"');
		sbuf_printf(b, "\t%s\n", str ? str : "\"\"");
		sbuf_free(&s);
		uint8_t c = 1;
		while (qz_read(q, addr, &c, 1) == 0 && c)
			addr++;
		addr++;
	}
	return addr;
}

static uint64_t cmd_x_insns(struct qz *q, uint64_t addr, const struct cmd_xfmt *f,
			    struct sbuf *b)
{
	const struct frame *fr = qz_running(q) ? frame_get(q, 0) : NULL;
	for (long i = 0; i < f->count; i++) {
		uint8_t code[16];
		struct dis_insn in;
		if (qz_read(q, addr, code, sizeof code) < 0 ||
		    !dis_decode(code, sizeof code, addr, &in)) {
			qz_error(q, "Cannot access memory at address 0x%llx", (unsigned long long)addr);
			return 0;
		}
		sbuf_add(b, fr && fr->pc == addr ? "=> " : "   ");
		cmd_x_label(q, addr, b);
		sbuf_printf(b, "\t%-6s %s\n", in.mnemonic, in.operands);
		addr += in.len;
	}
	return addr;
}

int cmd_x(struct qz *q, const char *a)
{
	/* a bare x repeats the last count and format, after the last address */
	struct cmd_xfmt f = {*a ? 1 : (q->x_count ? q->x_count : 1),
			     q->x_fmt ? q->x_fmt : 'x', q->x_size ? q->x_size : 4};
	if (*a == '/') {
		size_t n = strcspn(a, " \t");
		char *spec = xstrndup(a + 1, n - 1);
		cmd_xfmt_parse(spec, &f);
		free(spec);
		if (f.count < 0)
			return qz_error(q, "The count of x must be between 0 and %d.", INT32_MAX);
		a = str_skip_space(a + n);
	}
	if (f.fmt == 'a' || (f.fmt == 'g'))
		f.size = 8;
	if (f.fmt == 'c' && !strchr("bhwg", 0))
		f.size = 1;
	uint64_t addr = q->x_next;
	if (*a) {
		struct val v;
		if (eval_text(q, a, &v) < 0)
			return -1;
		addr = v.where == VAL_MEM && !val_is_pointer(&v) && !val_is_integer(&v) ?
			v.addr : (uint64_t)val_as_int(&v);
		val_free(&v);
	} else if (!q->x_next) {
		return qz_error(q, "Argument required (starting display address).");
	}
	struct sbuf b = {0};
	uint64_t next;
	if (f.fmt == 's')
		next = cmd_x_strings(q, addr, &f, &b);
	else if (f.fmt == 'i')
		next = cmd_x_insns(q, addr, &f, &b);
	else
		next = cmd_x_units(q, addr, &f, &b);
	if (b.s)
		qz_puts(q, b.s);
	sbuf_free(&b);
	if (!next)
		return -1;
	q->x_next = next;
	q->x_count = (int)f.count;
	q->x_fmt = f.fmt;
	q->x_size = f.size;
	return 0;
}

/* The scope of s or below it that declares v (NULL if none: v is a
 * parameter), and its depth below s in *depth. */
static const struct di_scope *cmd_var_scope(const struct di_scope *s, const struct di_var *v,
					    int *depth)
{
	if (v >= s->vars && v < s->vars + s->nvars)
		return s;
	for (size_t i = 0; i < s->nchildren; i++) {
		const struct di_scope *c = cmd_var_scope(&s->children[i], v, depth);
		if (c) {
			++*depth;
			return c;
		}
	}
	return NULL;
}

static const struct di_scope *cmd_frame_top(const struct frame *f)
{
	return f->inl ? &f->inl->body : &f->func->body;
}

static const void *cmd_frame_owner(const struct frame *f)
{
	return f->inl ? (const void *)f->inl : (const void *)f->func;
}

/* gdb's display block: the innermost block of the locals e names in the
 * selected frame; none when it names no local. */
static void cmd_display_block(struct qz *q, const struct expr *e, struct qz_display *d)
{
	const struct frame *f = qz_running(q) ? frame_get(q, q->sel_frame) : NULL;
	const char *names[32];
	const struct di_var *vars[256];
	size_t nn = expr_names(e, names, 32), nv = f && f->func ? frame_vars(f, vars, 256) : 0;
	int best = -1;
	for (size_t i = 0; i < nn; i++) {
		size_t k = 0;
		while (k < nv && (!vars[k]->name || strcmp(vars[k]->name, names[i])))
			k++;
		if (k == nv)
			continue;   /* not a local */
		int depth = 0;
		const struct di_scope *s = cmd_var_scope(cmd_frame_top(f), vars[k], &depth);
		if (!s)
			s = cmd_frame_top(f);   /* a parameter: the function's block */
		if (depth > best) {
			best = depth;
			d->block = s;
		}
	}
	if (d->block) {
		d->owner = cmd_frame_owner(f);
		d->di = q->exe.di;
	}
}

/* gdb's contained_in (selected block, display block): a frame of the
 * selected frame's machine frame (an inlined call lies inside its caller)
 * whose function owns the block, at a pc inside it. */
static bool cmd_display_in_scope(struct qz *q, const struct qz_display *d)
{
	if (!d->block || d->di != q->exe.di)   /* no block, or a program since reloaded */
		return true;
	const struct frame *f = frame_get(q, q->sel_frame);
	for (int l = q->sel_frame; f && l <= f->set_real; l++) {
		const struct frame *g = frame_get(q, l);
		if (!g || !g->func || !g->mod || cmd_frame_owner(g) != d->owner)
			continue;
		uint64_t pc = g->pc - g->mod->bias - (g->exact_pc ? 0 : 1);
		return d->block == cmd_frame_top(g) || di_scope_covers(d->block, pc);
	}
	return false;
}

/* One display: "1: x = 5", "2: /x counter = 0x3e8" or "3: x/i $pc" and the
 * memory after it. */
static void cmd_display_one(struct qz *q, const struct qz_display *d)
{
	if (d->fmt == 'i' || d->fmt == 's') {
		char *cmd = xasprintf("/%d%c %s", d->count ? d->count : 1, d->fmt, d->expr);
		qz_printf(q, "%d: x/%c %s\n", d->num, d->fmt, d->expr);
		if (cmd_x(q, cmd) < 0) {
			qz_printf(q, "<error: %s>\n", q->err.s ? q->err.s : "");
			sbuf_reset(&q->err);
		}
		free(cmd);
		return;
	}
	struct val v;
	struct sbuf b = {0};
	if (d->fmt)
		sbuf_printf(&b, "%d: /%c %s = ", d->num, d->fmt, d->expr);
	else
		sbuf_printf(&b, "%d: %s = ", d->num, d->expr);
	if (eval_text(q, d->expr, &v) < 0) {
		sbuf_printf(&b, "<error: %s>", q->err.s ? q->err.s : "");
		sbuf_reset(&q->err);
	} else {
		struct val_print vp = {
			.format = d->fmt, .top = true, .max_elements = q->print_elements,
			.read_mem = qz_read_cb, .symbolize = qz_symbolize_cb, .arg = q,
		};
		val_print(&b, &v, &vp);
		val_free(&v);
	}
	sbuf_addc(&b, '\n');
	qz_puts(q, b.s);
	sbuf_free(&b);
}

void cmd_show_displays(struct qz *q)
{
	for (size_t i = 0; qz_running(q) && i < q->ndisplays; i++)
		if (q->displays[i].enabled && cmd_display_in_scope(q, &q->displays[i]))
			cmd_display_one(q, &q->displays[i]);
}

/* gdb looks the names of a display up when it is made: one that names
 * nothing in scope is an error and makes no display. The error is left
 * in q->err (true); false when every name is known. Types only: nothing
 * is evaluated. */
static bool cmd_display_unknown_name(struct qz *q, const char *text)
{
	struct val v;
	if (eval_type_of(q, text, &v) == 0) {
		val_free(&v);
		return false;
	}
	if (q->err.s && str_starts(q->err.s, "No symbol "))
		return true;
	sbuf_reset(&q->err);
	return false;
}

int cmd_display(struct qz *q, const char *a)
{
	if (!*a) {
		cmd_show_displays(q);
		return 0;
	}
	char fmt = 0;
	int count = 0;
	if (*a == '/') {
		a++;
		int64_t n = 0;
		if (isdigit((unsigned char)*a) && str_num(&a, 0, INT32_MAX, &n))
			return qz_error(q, "Invalid count in \"%.40s\".", a);
		count = (int)n;
		while (*a && !isspace((unsigned char)*a))
			fmt = *a++;
		a = str_skip_space(a);
	}
	char err[512];
	struct expr *e = expr_parse(a, err, sizeof err);
	if (!e)
		return qz_error(q, "%s", err);
	if (cmd_display_unknown_name(q, a)) {
		expr_free(e);
		return -1;
	}
	XGROW(q->displays, q->displays_cap, q->ndisplays + 1);
	struct qz_display *d = &q->displays[q->ndisplays++];
	memset(d, 0, sizeof *d);
	cmd_display_block(q, e, d);
	expr_free(e);
	d->num = q->next_display++;
	d->expr = xstrdup(a);
	d->fmt = fmt;
	d->count = count;
	d->enabled = true;
	if (qz_running(q) && q->from_tty)
		cmd_display_one(q, d);
	return 0;
}

int cmd_undisplay(struct qz *q, const char *a)
{
	if (!*a) {
		for (size_t i = 0; i < q->ndisplays; i++)
			free(q->displays[i].expr);
		q->ndisplays = 0;
		return 0;
	}
	while (*(a = str_skip_space(a))) {
		const char *end = a;
		int64_t n;
		if (str_num(&end, 0, INT32_MAX, &n))
			return qz_error(q, "Arguments must be display numbers.");
		size_t i = 0;
		while (i < q->ndisplays && q->displays[i].num != n)
			i++;
		if (i == q->ndisplays)
			return qz_error(q, "No display number %lld.", (long long)n);
		free(q->displays[i].expr);
		memmove(&q->displays[i], &q->displays[i + 1],
			(q->ndisplays - i - 1) * sizeof q->displays[0]);
		q->ndisplays--;
		a = end;
	}
	return 0;
}

int cmd_info_display(struct qz *q, const char *a)
{
	(void)a;
	if (!q->ndisplays) {
		qz_puts(q, "There are no auto-display expressions now.\n");
		return 0;
	}
	struct sbuf b = {0};
	sbuf_add(&b, "Auto-display expressions now in effect:\nNum Enb Expression\n");
	for (size_t i = 0; i < q->ndisplays; i++) {
		const struct qz_display *d = &q->displays[i];
		sbuf_printf(&b, "%d:   %c  ", d->num, d->enabled ? 'y' : 'n');
		if (d->fmt)
			sbuf_printf(&b, "/%c ", d->fmt);
		sbuf_add(&b, d->expr);
		if (!cmd_display_in_scope(q, d))
			sbuf_add(&b, " (cannot be evaluated in the current context)");
		sbuf_addc(&b, '\n');
	}
	qz_puts(q, b.s);
	sbuf_free(&b);
	return 0;
}

int cmd_set_var(struct qz *q, const char *a)
{
	if (!*a)
		return qz_error(q, "Argument required (expression to compute).");
	struct val v;
	if (eval_text(q, a, &v) < 0)
		return -1;
	val_free(&v);
	return 0;
}
