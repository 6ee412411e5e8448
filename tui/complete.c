/* complete: see complete.h. */
#include "complete.h"

#include "dinfo/dinfo.h"
#include "target/eval.h"
#include "target/frame.h"
#include "target/session.h"
#include "util/util.h"

void tui_complete_locals(struct qz *q, tui_complete_add *add, void *arg)
{
	const struct di_var *vars[256];
	const struct frame *f = q->proc ? frame_get(q, q->sel_frame) : NULL;
	if (!f || !f->func || !f->mod)
		return;
	uint64_t pc = (f->exact_pc ? f->pc : f->pc - 1) - f->mod->bias;
	size_t n = di_vars_at(f->func, pc, vars, sizeof vars / sizeof *vars);
	for (size_t i = 0; i < n; i++)
		if (vars[i]->name)
			add(arg, vars[i]->name);
}

bool tui_complete_members(struct qz *q, const char *expr, bool arrow, tui_complete_add *add,
			  void *arg)
{
	struct val v;
	if (!q->proc || eval_type_of(q, expr, &v) < 0) {
		sbuf_reset(&q->err);   /* Tab says nothing about a bad prefix */
		return false;
	}
	const struct di_type *t = di_type_strip(v.type);
	if (arrow && t && (t->kind == DI_PTR || t->kind == DI_ARRAY))
		t = di_type_strip(t->target);
	val_free(&v);
	if (!t || (t->kind != DI_STRUCT && t->kind != DI_UNION))
		return false;
	for (size_t i = 0; i < t->nmembers; i++)
		if (t->members[i].name)
			add(arg, t->members[i].name);
	return true;
}
