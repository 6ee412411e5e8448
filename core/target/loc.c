/* loc: location specs to addresses. */
#include "loc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval.h"
#include "frame.h"
#include "session.h"

/* Where Linux maps a PIE executable when address randomisation is off. */
#define LOC_PIE_BASE 0x555555554000ull

static bool loc_read_code(struct qz *q, struct qz_module *m, uint64_t link,
			  uint8_t *buf, size_t n)
{
	if (qz_running(q) && m->lo && qz_read(q, link + m->bias, buf, n) == 0)
		return true;
	return img_read(m->img, link, buf, n);
}

/* gdb's amd64_analyze_prologue: only a full push %rbp; mov %rsp,%rbp
 * (after an optional endbr64) counts as a frame set-up. */
static uint64_t loc_analyze_prologue(struct qz *q, struct qz_module *m, uint64_t pc)
{
	static const uint8_t endbr64[4] = {0xf3, 0x0f, 0x1e, 0xfa};
	uint8_t b[8];
	if (!loc_read_code(q, m, pc, b, sizeof b))
		return pc;
	uint64_t p = pc;
	const uint8_t *c = b;
	if (memcmp(c, endbr64, 4) == 0) {
		p += 4;
		c += 4;
	}
	if (c[0] != 0x55)
		return pc;
	if ((c[1] == 0x48 && c[2] == 0x89 && c[3] == 0xe5) ||
	    (c[1] == 0x48 && c[2] == 0x8b && c[3] == 0xec))
		return p + 4;
	return pc;
}

uint64_t loc_skip_prologue(struct qz *q, struct qz_module *m, uint64_t lo, uint64_t hi)
{
	uint64_t pc = loc_analyze_prologue(q, m, lo);
	const struct lines_row *r = qz_mod_lines(q, m) ? lines_at(m->lines, pc) : NULL;
	if (r && r->addr != pc && r->end > lo && r->end < hi)
		pc = r->end;
	return pc;
}

void loc_describe(struct qz *q, struct qz_module *m, struct loc_addr *a)
{
	(void)q;
	a->mod = m;
	a->addr = a->link_addr + m->bias;
	const struct lines_row *r = qz_mod_lines(q, m) ? lines_at(m->lines, a->link_addr) : NULL;
	a->file = r ? r->file : NULL;
	a->line = r ? r->line : 0;
	const struct di_func *f = qz_mod_di(q, m) ? di_func_at(m->di, a->link_addr) : NULL;
	uint64_t off;
	const struct img_sym *s = f ? NULL : img_sym_at(m->img, a->link_addr, &off);
	a->func = f ? f->name : s ? s->name : NULL;
	const struct di_inline *in;
	if (f && di_inline_chain(f, a->link_addr, &in, 1))
		a->func = in->name;   /* the innermost inlined call */
}

static void loc_push(struct qz *q, struct qz_module *m, uint64_t link,
		     struct loc_addr **out, size_t *n)
{
	*out = xrealloc(*out, (*n + 1) * sizeof **out);
	struct loc_addr *a = &(*out)[(*n)++];
	memset(a, 0, sizeof *a);
	a->link_addr = link;
	loc_describe(q, m, a);
}

static const struct di_scope *loc_innermost(const struct di_scope *s, uint64_t pc)
{
	for (size_t i = 0; i < s->nchildren; i++)
		if (di_scope_covers(&s->children[i], pc))
			return loc_innermost(&s->children[i], pc);
	return s;
}

/* gdb keeps one location of a line per innermost block (lexical block,
 * inlined call or function): the block's identity for lines_addrs_for. */
static uint64_t loc_func_of(void *arg, uint64_t addr)
{
	const struct di_func *f = di_func_at(arg, addr);
	if (!f)
		return 0;
	const struct di_inline *in;
	const struct di_scope *top = di_inline_chain(f, addr, &in, 1) ? &in->body : &f->body;
	return (uint64_t)(uintptr_t)loc_innermost(top, addr);
}

/* gdb moves a line breakpoint that falls in a function's prologue (the
 * line of its opening brace) to where the body starts. */
/* Whether the spec being resolved is for stopping (break, until) or for
 * looking (info line, list): only the former skips prologues. */
static bool loc_skip = true;

static uint64_t loc_past_prologue(struct qz *q, struct qz_module *m, uint64_t addr)
{
	if (!loc_skip)
		return addr;
	const struct di_func *f = qz_mod_di(q, m) ? di_func_at(m->di, addr) : NULL;
	if (!f)
		return addr;
	uint64_t body = loc_skip_prologue(q, m, f->lo, f->hi);
	return addr < body ? body : addr;
}

/* The module whose line table has file: the program, else a loaded
 * library built with -g (plugin.c:6). */
static struct qz_module *loc_module_for_file(struct qz *q, const char *file)
{
	if (!file || (q->exe.lines && lines_file(q->exe.lines, file)))
		return &q->exe;
	for (size_t i = 0; qz_running(q) && i < q->nlibs; i++)
		if (q->libs[i].lo && qz_mod_lines(q, &q->libs[i]) && lines_file(q->libs[i].lines, file))
			return &q->libs[i];
	return &q->exe;
}

static int loc_file_line(struct qz *q, const char *file, int line,
			 struct loc_addr **out, size_t *n)
{
	struct qz_module *m = loc_module_for_file(q, file);
	if (!qz_mod_lines(q, m) || lines_empty(m->lines))
		return qz_error(q, "No symbol table is loaded.  Use the \"file\" command.");
	const char *path = file ? lines_file(m->lines, file) : q->list_file;
	if (!path) {
		if (file)
			return qz_error(q, "No source file named %s.", file);
		return qz_error(q, "No default source file: give FILE:LINE.");
	}
	uint64_t *addrs = NULL;
	int actual = line;
	size_t k = lines_addrs_for(m->lines, path, line, loc_func_of, m->di, &addrs, &actual);
	for (size_t i = 0; i < k; i++) {
		uint64_t a = loc_past_prologue(q, m, addrs[i]);
		loc_push(q, m, a, out, n);
		if (a == addrs[i]) {   /* gdb reports the file and line it found */
			(*out)[*n - 1].file = path;
			(*out)[*n - 1].line = actual;
		}
	}
	free(addrs);
	if (!k && !loc_skip)   /* info line, list */
		return qz_error(q, "Line number %d is out of range for \"%s\".", line,
				frame_file_name(q, path));
	if (!k && !file)   /* break N: gdb's words for the default file */
		return qz_error(q, "No line %d in the current file.", line);
	if (!k)
		return qz_error(q, "No line %d in file \"%s\".", line, file);
	return 0;
}

static int loc_cmp(const void *a, const void *b)
{
	const struct loc_addr *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

enum { LOC_INLINED_MAX = 256 };   /* ld.so has 57 inlined calls of free */

/* gdb also stops where the function was inlined, at each call's entry. */
static void loc_inlined(struct qz *q, struct qz_module *m, const char *name,
			struct loc_addr **out, size_t *n)
{
	const struct di_inline *ins[LOC_INLINED_MAX];
	size_t k = qz_mod_inlined(q, m, name, ins, LOC_INLINED_MAX);
	for (size_t i = 0; i < k; i++) {
		loc_push(q, m, ins[i]->entry_pc, out, n);
		(*out)[*n - 1].func = ins[i]->name;   /* not a call inlined into it */
	}
	if (*n > 1)   /* (*out may still be NULL: qsort must not see it) */
		qsort(*out, *n, sizeof **out, loc_cmp);
}

/* Whether a location at link address link of m is among out already. */
static bool loc_have(const struct loc_addr *out, size_t n, const struct qz_module *m,
		     uint64_t link)
{
	for (size_t i = 0; i < n; i++)
		if (out[i].mod == m && out[i].link_addr == link)
			return true;
	return false;
}

/* A function of the loaded libraries, as gdb's linespec finds it: in every
 * library that has a function of that name, one location (libc's munmap
 * and ld.so's own make two). The name is found through the symbol table,
 * an exported symbol before a local one, and then its DWARF function at
 * that address (libc's fgets is _IO_fgets), so that a library whose units
 * are indexed on demand reads only the unit that has it; calls inlined in
 * a library are locations too (one indexed on demand reads only the units
 * its name index, cached on disk, gives: qz_mod_inlined). */
static bool loc_library_function(struct qz *q, const char *name,
				 struct loc_addr **out, size_t *n)
{
	size_t before = *n;
	for (size_t i = 0; qz_running(q) && i < q->nlibs; i++) {
		struct qz_module *l = &q->libs[i];
		if (!l->img || !l->lo)
			continue;
		const struct img_sym *s = img_sym_named_global(l->img, name);
		if (!s || !s->is_func || !s->addr)
			s = img_sym_named(l->img, name);
		if (s && (!s->is_func || !s->addr))
			s = NULL;
		const struct di_func *f = s && qz_mod_di(q, l) ?
			di_func_at_named(l->di, s->addr, name) : NULL;
		f = f && f->lo == s->addr ? f : NULL;
		if (!s && l->di && di_index_complete(l->di))
			f = di_func_named(l->di, name);
		if ((s || f) && !loc_have(*out, *n, l, f ? f->lo : s->addr)) {
			uint64_t lo = f ? f->lo : s->addr, hi = f ? f->hi : s->addr + s->size;
			loc_push(q, l, loc_skip_prologue(q, l, lo, hi), out, n);
			/* gdb names it by what it found, not by an alias */
			(*out)[*n - 1].func = f ? f->name : s->name;
		}
		if (qz_mod_has_debug(l))
			loc_inlined(q, l, name, out, n);
	}
	if (*n - before > 1)
		qsort(*out + before, *n - before, sizeof **out, loc_cmp);
	return *n > before;
}

static int loc_function(struct qz *q, const char *name, struct loc_addr **out, size_t *n)
{
	struct qz_module *m = &q->exe;
	const struct di_func *fs[16];
	size_t nf = m->di ? di_funcs_named(m->di, name, fs, 16) : 0;
	for (size_t i = 0; i < nf; i++) {   /* a static one in each unit */
		const struct di_func *f = fs[i];
		loc_push(q, m, loc_skip ? loc_skip_prologue(q, m, f->lo, f->hi) : f->lo, out, n);
		/* gdb stops in FUNC itself, not in a call inlined at its body's
		 * first instruction (util_mix's inlined mix_step) */
		(*out)[*n - 1].func = f->name;
	}
	if (nf) {
		if (loc_skip)
			loc_inlined(q, m, name, out, n);
		return 0;
	}
	if (m->di) {   /* a function that exists only inlined */
		loc_inlined(q, m, name, out, n);
		if (*n)
			return 0;
	}
	const struct img_sym *s = img_sym_named(m->img, name);
	if (s && s->is_func && s->addr) {
		loc_push(q, m, loc_skip_prologue(q, m, s->addr, s->addr + s->size), out, n);
		return 0;
	}
	if (loc_library_function(q, name, out, n))
		return 0;
	char plt[256];
	snprintf(plt, sizeof plt, "%s@plt", name);
	s = img_sym_named(m->img, plt);
	if (s) {
		loc_push(q, m, s->addr, out, n);
		return 0;
	}
	return qz_error(q, "Function \"%s\" not defined.", name);
}

static int loc_address(struct qz *q, const char *text, struct loc_addr **out, size_t *n)
{
	uint64_t a;
	bool expr = !str_to_u64(str_skip_space(text), &a);
	if (expr && eval_address(q, text, &a) < 0)
		return -1;
	struct qz_module *m = qz_module_at(q, a);
	*out = xrealloc(*out, (*n + 1) * sizeof **out);
	struct loc_addr *l = &(*out)[(*n)++];
	memset(l, 0, sizeof *l);
	/* A symbol's address while the PIE program is not mapped (before run,
	 * or re-resolved at an exec) is a link-time one: it moves with the
	 * program when it is loaded (gdb shows it unrelocated too). */
	if (expr && q->exe.img && img_is_pie(q->exe.img) && a < img_end_vaddr(q->exe.img)) {
		l->link_addr = a;
		loc_describe(q, &q->exe, l);
		l->addr = a;
		return 0;
	}
	uint64_t bias = m ? m->bias : 0;
	/* Before run, a PIE program's runtime addresses are known too: with
	 * randomisation off the kernel loads it at the same place each time. */
	if (m == &q->exe && !qz_running(q) && img_is_pie(m->img) && a >= LOC_PIE_BASE)
		bias = LOC_PIE_BASE - img_base_vaddr(m->img);
	if (m) {
		l->link_addr = a - bias;
		loc_describe(q, m, l);
	}
	l->link_addr = l->addr = a;
	l->absolute = true;
	return 0;
}

static bool loc_is_number(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* The file a bare LINE refers to: where list is, or the selected frame's,
 * or main's. */
static void loc_default_file(struct qz *q)
{
	if (q->list_file)
		return;
	const struct frame *f = frame_get(q, q->sel_frame);
	if (f && f->file) {
		q->list_file = f->file;
		return;
	}
	const struct di_func *m = q->exe.di ? di_func_named(q->exe.di, "main") : NULL;
	const struct lines_row *r = m && q->exe.lines ? lines_at(q->exe.lines, m->lo) : NULL;
	if (r)
		q->list_file = r->file;
}

/* A line number or offset of a location, checked (no silent overflow). */
static int loc_number(struct qz *q, const char *s, int *out)
{
	int64_t v;
	char why[160];
	int r = str_num_all(s, 0, INT32_MAX, &v);
	if (r != STR_NUM_OK)
		return qz_error(q, "%s", str_num_error(r, "A line number", s, 0, INT32_MAX,
						      why, sizeof why));
	*out = (int)v;
	return 0;
}

static int loc_relative(struct qz *q, const char *spec, struct loc_addr **out, size_t *n)
{
	const struct frame *f = frame_get(q, q->sel_frame);
	int base = f && f->file ? f->line : q->list_line;
	const char *file = f && f->file ? f->file : q->list_file;
	int d;
	if (loc_number(q, spec + 1, &d) < 0)
		return -1;
	if (!file)
		return qz_error(q, "No default source file: give FILE:LINE.");
	const char *save = q->list_file;
	q->list_file = file;
	int r = loc_file_line(q, NULL, spec[0] == '+' ? base + d : base - d, out, n);
	q->list_file = save;
	return r;
}

/* Whether the location at link of b's old ones was disabled alone (gdb
 * keeps that across a re-resolution when the location stays). */
static bool loc_was_disabled(const struct bp_loc *old, size_t n, uint64_t link,
			     const char *func)
{
	for (size_t i = 0; i < n; i++)
		if (old[i].disabled && old[i].link_addr == link &&
		    !old[i].func == !func && (!func || !strcmp(old[i].func, func)))
			return true;
	return false;
}

void loc_fill_bp(struct qz *q, struct bp *b, const struct loc_addr *locs, size_t n)
{
	struct bp_loc *old = b->locs;
	size_t nold = b->nlocs;
	b->locs = n ? xcalloc(n, sizeof *b->locs) : NULL;
	b->nlocs = n;
	for (size_t i = 0; i < n; i++) {
		b->locs[i].disabled = loc_was_disabled(old, nold, locs[i].link_addr, locs[i].func);
		b->locs[i].link_addr = locs[i].link_addr;
		b->locs[i].addr = locs[i].addr;
		b->locs[i].file = locs[i].file;
		b->locs[i].line = locs[i].line;
		b->locs[i].func = locs[i].func ? xstrdup(locs[i].func) : NULL;
		b->locs[i].absolute = locs[i].absolute;
		b->locs[i].in_lib = locs[i].mod && locs[i].mod != &q->exe && !locs[i].absolute;
	}
	struct bp tmp = { .locs = old, .nlocs = nold };
	bp_free_locs(&tmp);
}

int loc_resolve_ex(struct qz *q, const char *spec, bool skip_prologue,
		   struct loc_addr **out, size_t *n)
{
	loc_skip = skip_prologue;
	int r = loc_resolve(q, spec, out, n);
	loc_skip = true;
	return r;
}

int loc_resolve(struct qz *q, const char *spec, struct loc_addr **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	spec = str_skip_space(spec);
	if (!q->exe.img)   /* `qzdb --batch` with no program */
		return qz_error(q, "No symbol table is loaded.  Use the \"file\" command.");
	if (*spec == '*')
		return loc_address(q, spec + 1, out, n);
	if ((*spec == '+' || *spec == '-') && loc_is_number(spec + 1))
		return loc_relative(q, spec, out, n);
	if (loc_is_number(spec)) {
		int line;
		if (loc_number(q, spec, &line) < 0)
			return -1;
		loc_default_file(q);
		return loc_file_line(q, NULL, line, out, n);
	}
	const char *colon = strrchr(spec, ':');
	if (colon && colon[1] != ':' && colon > spec && colon[-1] != ':') {
		char *file = xstrndup(spec, (size_t)(colon - spec));
		int r;
		int line;
		if (loc_is_number(colon + 1))
			r = loc_number(q, colon + 1, &line) < 0 ? -1 :
			    loc_file_line(q, file, line, out, n);
		else if (q->exe.lines && loc_module_for_file(q, file) == &q->exe &&
			 !lines_file(q->exe.lines, file))
			r = qz_error(q, "No source file named %s.", file);
		else
			r = loc_function(q, colon + 1, out, n);
		free(file);
		return r;
	}
	return loc_function(q, spec, out, n);
}
