/* ptype: gdb's layout of types. */
#include "ptype.h"

#include <stdlib.h>
#include <string.h>

#include "value.h"

void ptype_declarator(struct sbuf *out, const struct di_type *t, const char *name)
{
	struct sbuf tn = {0};
	val_type_name(&tn, t);
	const char *s = tn.s ? tn.s : "";
	const char *fp = strstr(s, "(*");
	const char *br = strstr(s, " [");
	size_t len = strlen(s);
	if (fp) {   /* pointer to function or array: the name after the stars */
		const char *p = fp + 1;
		while (*p == '*')
			p++;
		sbuf_addn(out, s, (size_t)(p - s));
		sbuf_add(out, name);
		sbuf_add(out, p);
	} else if (br) {
		sbuf_addn(out, s, (size_t)(br - s));
		sbuf_printf(out, " %s%s", name, br + 1);
	} else if (len && s[len - 1] == '*') {
		sbuf_printf(out, "%s%s", s, name);
	} else {
		sbuf_printf(out, "%s %s", s, name);
	}
	sbuf_free(&tn);
}

static void ptype_indent(struct sbuf *out, int n)
{
	for (int i = 0; i < n; i++)
		sbuf_addc(out, ' ');
}

static void ptype_body(struct sbuf *out, const struct di_type *t, int indent);

static void ptype_member(struct sbuf *out, const struct di_member *m, int indent)
{
	const struct di_type *mt = m->type;
	ptype_indent(out, indent);
	bool anon_aggr = mt && (mt->kind == DI_STRUCT || mt->kind == DI_UNION) && !mt->name;
	if (anon_aggr) {
		ptype_body(out, mt, indent);
		if (m->name)
			sbuf_printf(out, " %s", m->name);
	} else {
		ptype_declarator(out, mt, m->name ? m->name : "");
	}
	if (m->bit_size)
		sbuf_printf(out, " : %d", m->bit_size);
	sbuf_add(out, ";\n");
}

static void ptype_enum(struct sbuf *out, const struct di_type *t)
{
	sbuf_add(out, "enum ");
	if (t->name)
		sbuf_printf(out, "%s ", t->name);
	sbuf_addc(out, '{');
	int64_t next = 0;
	for (size_t i = 0; i < t->nenums; i++) {
		const struct di_enumerator *e = &t->enums[i];
		sbuf_printf(out, "%s%s", i ? ", " : "", e->name);
		if (e->value != next)
			sbuf_printf(out, " = %lld", (long long)e->value);
		next = e->value + 1;
	}
	sbuf_addc(out, '}');
}

/* "struct node {...}" with members at indent + 4. */
static void ptype_body(struct sbuf *out, const struct di_type *t, int indent)
{
	if (t->kind == DI_ENUM) {
		ptype_enum(out, t);
		return;
	}
	sbuf_add(out, t->kind == DI_UNION ? "union " : "struct ");
	if (t->name)
		sbuf_printf(out, "%s ", t->name);
	if (t->declaration && !t->nmembers) {
		sbuf_add(out, "{\n");
		ptype_indent(out, indent + 4);
		sbuf_add(out, "<incomplete type>\n");
	} else {
		sbuf_add(out, "{\n");
		for (size_t i = 0; i < t->nmembers; i++)
			ptype_member(out, &t->members[i], indent + 4);
	}
	ptype_indent(out, indent);
	sbuf_addc(out, '}');
}

/* The struct, union or enum behind pointers, arrays, typedefs and
 * qualifiers, or NULL. */
static const struct di_type *ptype_core(const struct di_type *t)
{
	while (t && (t->kind == DI_PTR || t->kind == DI_ARRAY || t->kind == DI_TYPEDEF ||
		     t->kind == DI_CONST || t->kind == DI_VOLATILE))
		t = t->target;
	if (t && (t->kind == DI_STRUCT || t->kind == DI_UNION || t->kind == DI_ENUM))
		return t;
	return NULL;
}

/* t with its outermost typedefs resolved, as ptype shows it. */
static const struct di_type *ptype_untypedef(const struct di_type *t)
{
	while (t && t->kind == DI_TYPEDEF)
		t = t->target;
	return t;
}

/* Copies of the type nodes ptype_resolve changed, freed after printing. */
struct ptype_pool {
	struct di_type **v;
	size_t n, cap;
};

/* t with the typedefs of its declarator chain (pointers, arrays,
 * qualifiers, return types) resolved down to the base type, as gdb's ptype
 * prints it (c_type_print_base with show > 0): ptype of a u32 [2][2] is
 * unsigned int [2][2]. Parameters and members keep their typedef names. */
static const struct di_type *ptype_resolve(const struct di_type *t, struct ptype_pool *pool)
{
	t = ptype_untypedef(t);
	if (!t || !(t->kind == DI_PTR || t->kind == DI_ARRAY || t->kind == DI_CONST ||
		    t->kind == DI_VOLATILE || t->kind == DI_FUNC))
		return t;
	const struct di_type *inner = ptype_resolve(t->target, pool);
	if (inner == t->target)
		return t;
	struct di_type *copy = xmalloc(sizeof *copy);
	*copy = *t;
	copy->target = inner;
	XGROW(pool->v, pool->cap, pool->n + 1);
	pool->v[pool->n++] = copy;
	return copy;
}

static void ptype_print_resolved(struct sbuf *out, const struct di_type *t);

void ptype_print(struct sbuf *out, const struct di_type *t)
{
	struct ptype_pool pool = {0};
	ptype_print_resolved(out, ptype_resolve(t, &pool));
	for (size_t i = 0; i < pool.n; i++)
		free(pool.v[i]);
	free(pool.v);
}

static void ptype_print_resolved(struct sbuf *out, const struct di_type *t)
{
	const struct di_type *core = ptype_core(t);
	struct sbuf whole = {0}, base = {0};
	val_type_name(&whole, t);
	if (!core) {
		sbuf_add(out, whole.s ? whole.s : "void");
		sbuf_free(&whole);
		return;
	}
	val_type_name(&base, core);
	ptype_body(out, core, 0);
	const char *w = whole.s ? whole.s : "";
	size_t bl = base.len;
	if (bl && strncmp(w, base.s, bl) == 0)
		sbuf_add(out, w + bl);   /* " *", " [3]" */
	sbuf_free(&whole);
	sbuf_free(&base);
}
