/* cmd-sym: questions about symbols, in gdb's words: info symbol (which
 * symbol an address is in), info address (where a symbol lives), info
 * scope (the variables visible at a location). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cmds.h"
#include "target/eval.h"
#include "target/frame.h"
#include "target/loc.h"
#include "target/session.h"

/* The module of a runtime address and the address's link-time value. */
static struct qz_module *cmd_sym_module(struct qz *q, uint64_t addr, uint64_t *link)
{
	struct qz_module *m = qz_module_at(q, addr);
	if (!m || !m->img)
		return NULL;
	*link = addr - m->bias;
	return m;
}

/* gdb names the object file once more than one is loaded (a running
 * program has its libraries): by its real path. */
static void cmd_sym_objfile(struct qz *q, struct qz_module *m, struct sbuf *b)
{
	if (!qz_running(q))
		return;
	if (m->name) {   /* a library: as the dynamic linker names it */
		sbuf_printf(b, " of %s", m->name);
		return;
	}
	char *real = realpath(img_path(m->img), NULL);
	sbuf_printf(b, " of %s", real ? real : img_path(m->img));
	free(real);
}

/* The bias of the program's addresses as gdb shows them: none before run. */
static uint64_t cmd_sym_bias(struct qz *q, const struct qz_module *m)
{
	return qz_running(q) ? m->bias : 0;
}

/* A symbol without debug information (gdb's minimal symbols): the
 * program's, then a library's; its address as gdb shows it in *addr. */
static bool cmd_sym_elf(struct qz *q, const char *name, uint64_t *addr)
{
	for (size_t i = 0; i <= q->nlibs; i++) {
		struct qz_module *m = i == 0 ? &q->exe : &q->libs[i - 1];
		if (i && (!qz_running(q) || !m->lo))
			continue;
		const struct img_sym *s = m->img ? img_sym_named(m->img, name) : NULL;
		if (!s || !s->addr)
			continue;
		*addr = s->addr + cmd_sym_bias(q, m);
		return true;
	}
	return false;
}

static bool cmd_address_elf(struct qz *q, const char *name)
{
	uint64_t addr;
	if (!cmd_sym_elf(q, name, &addr))
		return false;
	qz_printf(q, "Symbol \"%s\" is at 0x%llx in a file compiled without debugging.\n",
		  name, (unsigned long long)addr);
	return true;
}

int cmd_info_symbol(struct qz *q, const char *a)
{
	uint64_t addr, link = 0, off = 0;
	if (!*a)
		return qz_error(q, "Argument required (address).");
	/* the expression evaluator knows no symbols without debug info
	 * (printf in libc): a name it does not know is looked up there */
	if (eval_address(q, a, &addr) < 0) {
		if (!cmd_sym_elf(q, a, &addr))
			return -1;
		sbuf_reset(&q->err);   /* not an error after all */
	}
	struct qz_module *m = cmd_sym_module(q, addr, &link);
	const struct img_sym *s = m ? img_sym_at(m->img, link, &off) : NULL;
	const char *sec = m ? img_section_at(m->img, link) : NULL;
	if (!s || !sec)
		return qz_error(q, "No symbol matches %s.", a);
	struct sbuf b = {0};
	sbuf_add(&b, s->name);
	if (off)
		sbuf_printf(&b, " + %llu", (unsigned long long)off);
	sbuf_printf(&b, " in section %s", sec);
	cmd_sym_objfile(q, m, &b);
	qz_printf(q, "%s\n", b.s);
	sbuf_free(&b);
	return 0;
}

/* info address for a variable found in the debug information. */
static int cmd_address_var(struct qz *q, const char *name, const struct di_var *v,
			   uint64_t bias)
{
	struct sbuf b = {0};
	int kind = di_describe_var(&b, v, bias);
	if (kind == DI_DESC_CONST)
		qz_printf(q, "Symbol \"%s\" is constant.\n", name);
	else if (kind == DI_DESC_OPTIMIZED)
		qz_printf(q, "Symbol \"%s\" is optimized out.\n", name);
	else
		qz_printf(q, "Symbol \"%s\" is %s.\n", name, b.s);
	sbuf_free(&b);
	return 0;
}

/* A local of the selected frame, else NULL. */
static const struct di_var *cmd_sym_local(struct qz *q, const char *name)
{
	const struct frame *f = qz_running(q) ? frame_get(q, q->sel_frame) : NULL;
	const struct di_var *vars[256];
	size_t n = f && f->func ? frame_vars(f, vars, 256) : 0;
	for (size_t i = 0; i < n; i++)
		if (vars[i]->name && !strcmp(vars[i]->name, name))
			return vars[i];
	return NULL;
}


int cmd_info_address(struct qz *q, const char *a)
{
	if (!*a)
		return qz_error(q, "Argument required.");
	const struct di_var *v = cmd_sym_local(q, a);
	struct qz_module *m = &q->exe;
	if (v)
		return cmd_address_var(q, a, v, cmd_sym_bias(q, m));
	const struct di_func *f = m->di ? di_func_named(m->di, a) : NULL;
	if (f) {
		qz_printf(q, "Symbol \"%s\" is a function at address 0x%llx.\n", a,
			  (unsigned long long)(f->lo + cmd_sym_bias(q, m)));
		return 0;
	}
	const struct frame *fr = qz_running(q) ? frame_get(q, q->sel_frame) : NULL;
	const char *cu = fr && fr->func ? fr->func->cu_name : NULL;
	v = m->di ? di_static_named(m->di, a, cu) : NULL;
	if (!v && m->di && cu)   /* a static of another unit, as gdb finds it */
		v = di_static_named(m->di, a, NULL);
	if (v)
		return cmd_address_var(q, a, v, cmd_sym_bias(q, m));
	if (cmd_address_elf(q, a))
		return 0;
	return qz_error(q, "No symbol \"%s\" in current context.", a);
}

/* One symbol of info scope: "Symbol n is ..., length 4." */
static int cmd_scope_var(const struct di_var *v, uint64_t bias, struct sbuf *b)
{
	if (!v->name)
		return 0;
	struct sbuf d = {0};
	int kind = di_describe_var(&d, v, bias);
	sbuf_printf(b, "Symbol %s is ", v->name);
	if (kind == DI_DESC_OPTIMIZED)
		sbuf_add(b, "optimized out.\n");
	else
		sbuf_printf(b, "%s, length %llu.\n", d.s,
			    (unsigned long long)val_type_size(v->type));
	sbuf_free(&d);
	return 1;
}

/* The innermost lexical block of s covering pc, and the blocks around it
 * up to s (out[0] innermost); returns their count. */
static size_t cmd_scope_chain(const struct di_scope *s, uint64_t pc,
			      const struct di_scope **out, size_t max)
{
	for (size_t i = 0; i < s->nchildren; i++) {
		if (!di_scope_covers(&s->children[i], pc))
			continue;
		size_t n = cmd_scope_chain(&s->children[i], pc, out, max);
		if (n < max)
			out[n++] = s;
		return n;
	}
	out[0] = s;
	return 1;
}

/* gdb's info scope: from the innermost block at the location up to its
 * function's, each block's symbols in declaration order (parameters first
 * in the function's). */
static int cmd_scope_at(struct qz *q, const struct loc_addr *l, struct sbuf *b)
{
	struct qz_module *m = l->mod;
	const struct di_func *f = m && m->di ? di_func_at(m->di, l->link_addr) : NULL;
	const struct di_inline *in = NULL;
	int count = 0;
	if (!f)
		return 0;
	uint64_t bias = cmd_sym_bias(q, m);
	const struct di_scope *top = di_inline_chain(f, l->link_addr, &in, 1) ? &in->body : &f->body;
	const struct di_scope *chain[64];
	size_t n = cmd_scope_chain(top, l->link_addr, chain, 64);
	for (size_t i = 0; i < n; i++) {
		if (chain[i] == top && in) {   /* gdb's inlined block holds its function */
			sbuf_printf(b, "Symbol %s is a function at address 0x%llx, length 1.\n",
				    in->name, (unsigned long long)(in->entry_pc + bias));
			count++;
		}
		if (chain[i] == top) {
			const struct di_var *params = in ? in->params : f->params;
			size_t np = in ? in->nparams : f->nparams;
			for (size_t k = 0; k < np; k++)
				count += cmd_scope_var(&params[k], bias, b);
		}
		for (size_t k = 0; k < chain[i]->nvars; k++)
			count += cmd_scope_var(&chain[i]->vars[k], bias, b);
	}
	return count;
}

int cmd_info_scope(struct qz *q, const char *a)
{
	if (!*a)
		return qz_error(q, "requires an argument (an expression or variable): foo*(a+b)");
	struct loc_addr *l;
	size_t n;
	if (loc_resolve(q, a, &l, &n) < 0)
		return -1;
	struct sbuf b = {0};
	int count = cmd_scope_at(q, &l[0], &b);
	free(l);
	if (count > 0)
		qz_printf(q, "Scope for %s:\n%s", a, b.s);
	else
		qz_printf(q, "Scope for %s:\ncontains no locals or arguments.\n", a);
	sbuf_free(&b);
	return 0;
}
