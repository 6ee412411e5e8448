/* prune: what `prune ID NAME...` removes, resolved at the slice's
 * criterion instance rather than in the frame the program is stopped in:
 * a variable of the criterion's function, FUNC::VAR (also of a function
 * that has returned, from the frames the recording saw, or behind a
 * smashed stack), a global or file static; and whole scopes: every
 * variable of a function's recorded frames (`function F`), every static
 * of a source file (`file F`), all of a library's memory (`library L`).
 * Anything else print accepts is evaluated in the selected frame. */
#include "prune.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd-slice.h"
#include "dinfo/dinfo.h"
#include "dinfo/image.h"
#include "dinfo/lines.h"
#include "memname.h"
#include "rec.h"
#include "slice.h"
#include "target/session.h"

static void pr_range(struct slice *s, uint64_t lo, uint64_t hi)
{
	XGROW(s->pruned, s->pruned_cap, s->npruned + 1);
	s->pruned[s->npruned++] = (struct slice_range){ lo, hi };
}

/* The record the criterion instance began at. */
static uint64_t pr_crit_rec(const struct trace *t, int32_t inst)
{
	uint64_t first;
	return trace_inst_span(t, inst, &first, NULL) ? first : t->n;
}

/* The frame of f live at rec, else its latest frame begun before rec
 * (a function that has returned by then). */
static const struct mn_frame *pr_frame(const struct mn_map *m, const struct di_func *f,
				       uint64_t rec)
{
	const struct mn_frame *best = NULL;
	for (size_t k = 0; k < m->n; k++) {
		const struct mn_frame *fr = &m->v[k];
		if (fr->func != f || fr->from > rec)
			continue;
		if (rec < fr->to)
			return fr;
		if (!best || fr->from > best->from)
			best = fr;
	}
	return best;
}

/* Variable name of frame fr into the pruned memory: 1; 0 if the frame has
 * no such variable; -1 if it has one outside memory (-O2: a register,
 * which evaluation in the program's frame handles). */
static int pr_frame_var(struct qz *q, const struct mn_frame *fr, const char *name,
			 struct slice *s)
{
	const struct di_func *f = fr->func;
	uint64_t pc = fr->pc - q->exe.bias;
	const struct di_var *vars[128];
	size_t n = di_vars_at(f, pc, vars, 128);
	for (size_t i = 0; i < n; i++) {
		int64_t fb;
		if (strcmp(vars[i]->name ? vars[i]->name : "", name) != 0 || !vars[i]->type)
			continue;
		if (f->frame_base.len == 1 && f->frame_base.ops[0] == 0x9c &&
		    mn_fbreg(vars[i], pc, &fb)) {
			uint64_t size = di_type_strip(vars[i]->type)->size;
			pr_range(s, fr->cfa + (uint64_t)fb, fr->cfa + (uint64_t)fb + (size ? size : 1));
			return 1;
		}
		return -1;
	}
	return 0;
}

static const struct di_func *pr_crit_func(struct qz *q, const struct slice *s, uint64_t rec)
{
	const struct mn_map *m = &slice_state(q)->names;
	const struct mn_frame *in = NULL;
	for (size_t k = 0; k < m->n; k++)   /* the innermost program frame live then */
		if (m->v[k].func && rec >= m->v[k].from && rec < m->v[k].to &&
		    (!in || m->v[k].cfa < in->cfa))
			in = &m->v[k];
	(void)s;
	return in ? in->func : NULL;
}

/* A global or static by its ELF symbol. */
static bool pr_static(struct qz *q, const char *name, struct slice *s)
{
	const struct img_sym *sym = q->exe.img ? img_sym_named(q->exe.img, name) : NULL;
	if (!sym || sym->is_func)
		return false;
	pr_range(s, sym->addr + q->exe.bias, sym->addr + q->exe.bias + (sym->size ? sym->size : 1));
	return true;
}

/* NAME or FUNC::NAME at the criterion. 1 done, 0 not a plain name, -1 error. */
static int pr_name(struct qz *q, struct slice *s, const char *spec)
{
	const char *sep = strstr(spec, "::");
	const char *name = sep ? sep + 2 : spec;
	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			return 0;
	for (const char *p = spec; sep && p < sep; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			return 0;
	struct mn_map *m = &slice_state(q)->names;
	mn_update(q, m);
	uint64_t rec = pr_crit_rec(&slice_rec(q)->tr, s->crit);
	const struct di_func *f = NULL;
	if (sep) {
		char *fn = xstrndup(spec, (size_t)(sep - spec));
		f = q->exe.di ? di_func_named(q->exe.di, fn) : NULL;
		free(fn);
		if (!f)
			return qz_error(q, "No function \"%.*s\" in the program.", (int)(sep - spec), spec);
	} else {
		f = pr_crit_func(q, s, rec);
	}
	const struct mn_frame *fr = f ? pr_frame(m, f, rec) : NULL;
	int found = fr ? pr_frame_var(q, fr, name, s) : 0;
	if (found)
		return found > 0 ? 1 : 0;
	if (sep && !fr)
		return qz_error(q, "%s never ran while recording (no frame of it to find %s in).",
				f->name, name);
	if (pr_static(q, name, s))
		return 1;
	if (sep)
		return qz_error(q, "No variable \"%s\" in %s.", name, f->name);
	if (f)   /* not the criterion's, nor a global: say so, pick no other frame */
		return qz_error(q, "No variable \"%s\" in %s (the criterion's function) nor a "
				"global or static of that name; write FUNC::%s for another "
				"function's.", name, f->name, name);
	return 0;
}

/* prune ID function F: every variable of every recorded frame of F. */
static int pr_function(struct qz *q, struct slice *s, const char *fn)
{
	const struct di_func *f = q->exe.di ? di_func_named(q->exe.di, fn) : NULL;
	if (!f)
		return qz_error(q, "No function \"%s\" in the program.", fn);
	struct mn_map *m = &slice_state(q)->names;
	mn_update(q, m);
	size_t before = s->npruned;
	for (size_t k = 0; k < m->n; k++) {
		const struct mn_frame *fr = &m->v[k];
		if (fr->func != f)
			continue;
		const struct di_var *vars[128];
		size_t n = di_vars_at(f, fr->pc - q->exe.bias, vars, 128);
		for (size_t i = 0; i < n; i++)
			if (vars[i]->name)
				(void)pr_frame_var(q, fr, vars[i]->name, s);
	}
	return s->npruned > before ? 0 :
	       qz_error(q, "%s has no variables in the frames the recording saw.", f->name);
}

/* prune ID file F: every global and static defined in source file F. */
static int pr_file(struct qz *q, struct slice *s, const char *file)
{
	const char *path = q->exe.lines ? lines_file(q->exe.lines, file) : NULL;
	if (!path)
		return qz_error(q, "No source file named %s.", file);
	static const char *const secs[] = { ".data", ".bss", ".rodata" };
	size_t before = s->npruned;
	for (size_t k = 0; k < 3; k++) {
		uint64_t lo, hi, off;
		if (!img_section_range(q->exe.img, secs[k], &lo, &hi))
			continue;
		for (uint64_t a = lo; a < hi;) {
			const struct img_sym *sym = img_sym_at(q->exe.img, a, &off);
			uint64_t next = sym && sym->addr + (sym->size ? sym->size : 1) > a ?
					sym->addr + (sym->size ? sym->size : 1) : a + 1;
			const struct di_var *v = sym && !off && sym->size && !sym->is_func ?
				di_static_named(q->exe.di, sym->name, path) : NULL;
			if (v && v->decl_file && strcmp(v->decl_file, path) == 0)
				pr_range(s, sym->addr + q->exe.bias, sym->addr + q->exe.bias + sym->size);
			a = next;
		}
	}
	return s->npruned > before ? 0 : qz_error(q, "%s defines no global or static.", file);
}

/* prune ID library L: all of that library's mapped memory. */
static int pr_library(struct qz *q, struct slice *s, const char *lib)
{
	char path[64], line[600];
	if (!q->proc)
		return qz_error(q, "No process: the library's memory is not mapped.");
	snprintf(path, sizeof path, "/proc/%d/maps", (int)proc_pid(q->proc));
	FILE *f = fopen(path, "re");
	size_t before = s->npruned;
	unsigned long long lo, hi;
	int off = 0;
	while (f && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "%llx-%llx %*s %*s %*s %*s %n", &lo, &hi, &off) >= 2 && off &&
		    strstr(str_basename(line + off), lib) == str_basename(line + off))
			pr_range(s, lo, hi);
	}
	if (f)
		fclose(f);
	return s->npruned > before ? 0 : qz_error(q, "No library named %s is mapped.", lib);
}

int prune_add(struct qz *q, struct slice *s, const char *spec)
{
	uint8_t kind = 0;
	int reg = -1;
	uint64_t addr = 0, size = 0;
	int r = pr_name(q, s, spec);
	if (r != 0)
		return r < 0 ? -1 : 0;
	if (cs_location(q, spec, &kind, &reg, &addr, &size) < 0)
		return -1;
	if (kind == SLICE_REG)
		s->pruned_regs |= 1ull << reg;
	else
		pr_range(s, addr, addr + size);
	return 0;
}

int prune_scope(struct qz *q, struct slice *s, const char *what, const char *name)
{
	if (!strcmp(what, "function"))
		return pr_function(q, s, name);
	if (!strcmp(what, "file"))
		return pr_file(q, s, name);
	return pr_library(q, s, name);
}
