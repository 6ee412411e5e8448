/* eval: the expression environment of the selected frame. */
#include "eval.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/user.h>

#include "value/expr.h"
#include "frame.h"
#include "infcall.h"
#include "dinfo/lines.h"
#include "session.h"

static const struct frame *eval_frame(struct qz *q)
{
	return frame_get(q, q->sel_frame);
}

/* A static's address is relocated by the bias of the module whose debug
 * information describes it (sbias): the program's, or a library's. */
static int eval_var_value_in(struct qz *q, const struct frame *f, uint64_t sbias,
			     const struct di_var *v, struct val *out,
			     char *err, size_t errlen)
{
	struct di_ctx ctx;
	if (f && !v->is_static) {
		frame_di_ctx(q, f, &ctx);
	} else {
		/* Statics belong to the program, whatever frame (a libc one)
		 * is selected: its load bias, and after exit the file. */
		memset(&ctx, 0, sizeof ctx);
		ctx.read_mem = qz_read_cb;
		ctx.arg = q;
		ctx.bias = sbias;
	}
	return val_from_var(v, &ctx, out, err, errlen);
}

static int eval_var_value(struct qz *q, const struct frame *f,
			  const struct di_var *v, struct val *out,
			  char *err, size_t errlen)
{
	return eval_var_value_in(q, f, q->exe.bias, v, out, err, errlen);
}

/* The bias for the statics among a frame's variables (a static local of a
 * libc function is libc's). */
static uint64_t eval_frame_bias(struct qz *q, const struct frame *f)
{
	return f && f->mod ? f->mod->bias : q->exe.bias;
}

/* A global of a library with debug information (libc's stdout), as gdb
 * looks in every object after the program: this reads a library's debug
 * file on first use. 1 if none has it. */
static int eval_lib_global(struct qz *q, const char *name, struct val *out,
			   char *err, size_t errlen)
{
	for (size_t i = 0; qz_running(q) && i < q->nlibs; i++) {
		struct qz_module *m = &q->libs[i];
		if (!m->lo || !qz_mod_has_debug(m) || !qz_mod_di(q, m))
			continue;
		const struct di_var *v = di_static_named(m->di, name, NULL);
		if (v && v->external)
			return eval_var_value_in(q, NULL, m->bias, v, out, err, errlen);
	}
	return 1;
}

/* A function of module m at link address link as a value: its DWARF
 * function's type if the module has one there, else gdb's type for a
 * symbol without debug information. */
static void eval_func_value(struct qz *q, struct qz_module *m, const struct img_sym *s,
			    struct val *out)
{
	const struct di_func *f = !s->is_ifunc && qz_mod_has_debug(m) && qz_mod_di(q, m) ?
		di_func_at_named(m->di, s->addr, s->name) : NULL;
	const struct di_type *t = f && f->lo == s->addr && f->type ? f->type :
		val_builtin(s->is_ifunc ? "<text gnu-indirect-function variable, no debug info>" :
					  "<text variable, no debug info>");
	*out = (struct val){ .type = t, .where = VAL_MEM, .addr = s->addr + m->bias };
	out->bytes = xcalloc(1, 1);
}

/* A name only a symbol table has (a program built without -g, a library
 * without its debug file), as gdb's minimal symbols: the program, then
 * the libraries, a global symbol before a local one. A function is a
 * value (see eval_func_value); data without a type is refused in gdb's
 * words. 1 if no symbol has the name. */
static int eval_minsym(struct qz *q, const char *name, struct val *out,
		       char *err, size_t errlen)
{
	size_t nmods = 1 + (qz_running(q) ? q->nlibs : 0);
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < nmods; i++) {
			struct qz_module *m = i ? &q->libs[i - 1] : &q->exe;
			if (!m->img || (i && !m->lo))
				continue;
			const struct img_sym *s = pass ? img_sym_named(m->img, name) :
				img_sym_named_global(m->img, name);
			if (!s || !s->addr)
				continue;
			if (!s->is_func) {
				snprintf(err, errlen, "'%s' has unknown type; cast it to its "
					 "declared type", name);
				return -1;
			}
			eval_func_value(q, m, s, out);
			return 0;
		}
	}
	bool any_debug = q->exe.img && img_has_debug_info(q->exe.img);
	for (size_t i = 1; !any_debug && i < nmods; i++)
		any_debug = qz_mod_has_debug(&q->libs[i - 1]);
	if (any_debug)
		return 1;
	snprintf(err, errlen, "No symbol table is loaded.  Use the \"file\" command.");
	return -1;   /* gdb's words when no object has debug information */
}

static int eval_lookup_var(void *arg, const char *name, struct val *out,
			   char *err, size_t errlen)
{
	struct qz *q = arg;
	const struct frame *f = qz_running(q) ? eval_frame(q) : NULL;
	if (f && f->func) {
		const struct di_var *vars[256];
		size_t n = frame_vars(f, vars, 256);
		for (size_t i = 0; i < n; i++)
			if (vars[i]->name && strcmp(vars[i]->name, name) == 0)
				return eval_var_value_in(q, f, eval_frame_bias(q, f), vars[i],
							 out, err, errlen);
	}
	const char *cu = f && f->func ? f->func->cu_name : NULL;
	const struct di_var *v = q->exe.di ? di_static_named(q->exe.di, name, cu) : NULL;
	if (!v && cu && q->exe.di)   /* gdb looks in every unit's statics last */
		v = di_static_named(q->exe.di, name, NULL);
	if (!v) {
		int rc = eval_lib_global(q, name, out, err, errlen);
		return rc == 1 ? eval_minsym(q, name, out, err, errlen) : rc;
	}
	return eval_var_value(q, qz_running(q) ? f : NULL, v, out, err, errlen);
}

int eval_var(struct qz *q, const struct frame *f, const struct di_var *v, struct val *out)
{
	char err[512];
	if (eval_var_value_in(q, v->is_static ? NULL : f, eval_frame_bias(q, f), v, out,
			      err, sizeof err) < 0)
		return qz_error(q, "%s", err);
	return 0;
}

/* A static local of a function, in any of its blocks. */
static const struct di_var *eval_static_in(const struct di_scope *s, const char *name)
{
	for (size_t i = 0; i < s->nvars; i++)
		if (s->vars[i].is_static && s->vars[i].name && !strcmp(s->vars[i].name, name))
			return &s->vars[i];
	for (size_t i = 0; i < s->nchildren; i++) {
		const struct di_var *v = eval_static_in(&s->children[i], name);
		if (v)
			return v;
	}
	return NULL;
}

/* FUNC::name: a static local, or a local of the innermost frame of FUNC. */
static int eval_in_function(struct qz *q, const struct di_func *f, const char *name,
			    struct val *out, char *err, size_t errlen)
{
	const struct di_var *v = eval_static_in(&f->body, name);
	if (v)
		return eval_var_value(q, NULL, v, out, err, errlen);
	for (int i = 0; qz_running(q); i++) {
		const struct frame *fr = frame_get(q, i);
		if (!fr)
			break;
		if (fr->func != f || fr->inl)
			continue;
		const struct di_var *vars[256];
		size_t n = frame_vars(fr, vars, 256);
		for (size_t j = 0; j < n; j++)
			if (vars[j]->name && !strcmp(vars[j]->name, name))
				return eval_var_value(q, fr, vars[j], out, err, errlen);
		break;
	}
	return 1;
}

static int eval_lookup_scoped(void *arg, const char *scope, const char *name,
			      struct val *out, char *err, size_t errlen)
{
	struct qz *q = arg;
	if (!q->exe.di)
		return 1;
	if (!*scope) {   /* ::name: globals, then any unit's statics (gdb) */
		const struct di_var *g = di_static_named(q->exe.di, name, NULL);
		if (g)
			return eval_var_value(q, NULL, g, out, err, errlen);
		snprintf(err, errlen, "No symbol \"%s\" in current context.", name);
		return -1;
	}
	const struct di_func *f = di_func_named(q->exe.di, scope);
	if (f)
		return eval_in_function(q, f, name, out, err, errlen);
	if (!q->exe.lines || !lines_file(q->exe.lines, scope)) {
		snprintf(err, errlen, "No symbol \"%s\" in current context.", scope);
		return -1;
	}
	const struct di_var *v = di_static_named(q->exe.di, name, scope);
	if (!v)
		return 1;
	return eval_var_value(q, NULL, v, out, err, errlen);
}

/* Writes by assignment (print x = 3, set var): memory through the process,
 * keeping planted breakpoints intact. */
static int eval_write_mem(void *arg, uint64_t addr, const void *buf, size_t len)
{
	struct qz *q = arg;
	if (!qz_running(q))
		return -1;
	return qz_write(q, addr, buf, len);
}

/* In a recording's past nothing may change (qz_present). */
static const char *eval_write_refused(void *arg)
{
	struct qz *q = arg;
	if (qz_present(q) == 0)
		return NULL;
	return q->err.s ? q->err.s : "";
}

static int eval_write_reg(void *arg, int reg, const void *buf, size_t len)
{
	struct qz *q = arg;
	if (!qz_running(q) || qz_present(q) < 0 || reg < 0 || reg >= DI_NREGS || len > 8 ||
	    q->sel_frame != 0)
		return -1;
	uint64_t v = 0;
	memcpy(&v, buf, len);
	*frame_user_reg(proc_regs(q->proc), reg) = v;
	proc_regs_dirty(q->proc);
	frame_invalidate(q);
	return 0;
}

struct eval_regdef {
	const char *name;
	int dwarf;          /* DWARF number, -1 if not unwound */
	size_t off;         /* offset in user_regs_struct */
	int size;           /* bytes shown: 8, or 4 for eflags/e*x */
};

#define R(n, d, f, s) {n, d, offsetof(struct user_regs_struct, f), s}
static const struct eval_regdef eval_regs[] = {
	R("rax", 0, rax, 8), R("rbx", 3, rbx, 8), R("rcx", 2, rcx, 8),
	R("rdx", 1, rdx, 8), R("rsi", 4, rsi, 8), R("rdi", 5, rdi, 8),
	R("rbp", 6, rbp, 8), R("rsp", 7, rsp, 8), R("r8", 8, r8, 8),
	R("r9", 9, r9, 8), R("r10", 10, r10, 8), R("r11", 11, r11, 8),
	R("r12", 12, r12, 8), R("r13", 13, r13, 8), R("r14", 14, r14, 8),
	R("r15", 15, r15, 8), R("rip", 16, rip, 8), R("pc", 16, rip, 8),
	R("sp", 7, rsp, 8), R("fp", 6, rbp, 8), R("eflags", -1, eflags, 4),
	R("eax", 0, rax, 4), R("ebx", 3, rbx, 4), R("ecx", 2, rcx, 4),
	R("edx", 1, rdx, 4), R("esi", 4, rsi, 4), R("edi", 5, rdi, 4),
	R("cs", -1, cs, 4), R("ss", -1, ss, 4), R("ds", -1, ds, 4),
	R("es", -1, es, 4), R("fs", -1, fs, 4), R("gs", -1, gs, 4),
	R("fs_base", -1, fs_base, 8), R("gs_base", -1, gs_base, 8),
};
#undef R

static const struct di_type *eval_reg_type(const char *name, int size)
{
	if (!strcmp(name, "pc") || !strcmp(name, "rip"))
		return val_builtin("code *");
	if (!strcmp(name, "sp") || !strcmp(name, "fp") ||
	    !strcmp(name, "rsp") || !strcmp(name, "rbp"))
		return val_builtin("void *");
	return val_builtin(size == 8 ? "long" : "int");
}

int eval_reg(struct qz *q, const char *name, struct val *out)
{
	if (!qz_running(q)) {   /* known names say "No registers.", as gdb */
		for (size_t i = 0; i < ARRAY_LEN(eval_regs); i++)
			if (strcmp(eval_regs[i].name, name) == 0)
				return -1;
		return 1;
	}
	const struct eval_regdef *d = NULL;
	for (size_t i = 0; i < ARRAY_LEN(eval_regs); i++)
		if (strcmp(eval_regs[i].name, name) == 0)
			d = &eval_regs[i];
	if (!d)
		return 1;
	const struct frame *f = eval_frame(q);
	uint64_t v;
	bool known = true;
	if (q->sel_frame == 0 || !f) {
		const struct user_regs_struct *u = proc_regs(q->proc);
		memcpy(&v, (const char *)u + d->off, 8);
	} else if (d->dwarf >= 0 && f->regs.valid[d->dwarf]) {
		v = f->regs.r[d->dwarf];
	} else {
		known = false;
		v = 0;
	}
	*out = val_from_int(eval_reg_type(name, d->size), (int64_t)v);
	out->where = VAL_REG;
	out->reg = d->dwarf;
	out->optimized_out = !known;
	return 0;
}

static int eval_read_reg(void *arg, const char *name, struct val *out)
{
	return eval_reg(arg, name, out);
}

static int eval_history(void *arg, int idx, bool relative, struct val *out)
{
	struct qz *q = arg;
	long i = relative ? (long)q->nhistory + idx : idx;
	if (i < 1 || i > (long)q->nhistory)
		return 1;
	*out = val_copy(&q->history[i - 1]);
	return 0;
}

static void eval_warn(void *arg, const char *msg)
{
	qz_warn(arg, "%s", msg);
}

static const struct di_type *eval_lookup_type(void *arg, const char *name)
{
	struct qz *q = arg;
	const struct di_type *t = q->exe.di ? di_type_named(q->exe.di, name) : NULL;
	return t ? t : val_builtin(name);
}

static int eval_call(void *arg, uint64_t addr, const struct di_type *ftype,
		     const struct val *args, size_t nargs, struct val *out,
		     char *err, size_t errlen)
{
	return infcall(arg, addr, ftype, args, nargs, out, err, errlen);
}

void eval_env(struct qz *q, struct expr_env *env)
{
	memset(env, 0, sizeof *env);
	env->arg = q;
	env->lookup_var = eval_lookup_var;
	env->read_reg = eval_read_reg;
	env->read_mem = qz_read_cb;
	env->history = eval_history;
	env->lookup_type = eval_lookup_type;
	env->lookup_scoped = eval_lookup_scoped;
	env->warn = eval_warn;
	env->write_mem = eval_write_mem;
	env->write_reg = eval_write_reg;
	env->write_refused = eval_write_refused;
	env->call = eval_call;
}

static int eval_text_mode(struct qz *q, const char *text, struct val *out, bool types)
{
	char err[512];
	struct expr *e = expr_parse(text, err, sizeof err);
	if (!e)
		return qz_error(q, "%s", err);
	struct expr_env env;
	eval_env(q, &env);
	int r = (types ? expr_eval_types : expr_eval)(e, &env, out, err, sizeof err);
	expr_free(e);
	if (r < 0)
		return qz_error(q, "%s", err);
	return 0;
}

int eval_text(struct qz *q, const char *text, struct val *out)
{
	return eval_text_mode(q, text, out, false);
}

int eval_type_of(struct qz *q, const char *text, struct val *out)
{
	return eval_text_mode(q, text, out, true);
}

int eval_address(struct qz *q, const char *text, uint64_t *a)
{
	struct val v;
	if (eval_text(q, text, &v) < 0)
		return -1;
	const struct di_type *t = val_type_strip(v.type);
	int r = 0;
	if (t && (t->kind == DI_FUNC || t->kind == DI_ARRAY) && v.where == VAL_MEM)
		*a = v.addr;
	else if (val_is_integer(&v) || val_is_pointer(&v))
		*a = (uint64_t)val_as_int(&v);
	else
		r = qz_error(q, "Invalid address \"%s\".", text);
	val_free(&v);
	return r;
}

int eval_truth(struct qz *q, const struct expr *e, bool *truth)
{
	char err[512];
	struct expr_env env;
	struct val v;
	eval_env(q, &env);
	if (expr_eval(e, &env, &v, err, sizeof err) < 0)
		return qz_error(q, "%s", err);
	if (val_is_float(&v))
		*truth = val_as_double(&v) != 0;
	else
		*truth = val_as_int(&v) != 0;
	val_free(&v);
	return 0;
}
