/* test_dinfo: the DWARF info module against nm and gdb on the fixtures in
 * tests/build, the expression evaluator on hand-made expressions, and types
 * on a program this test writes and compiles itself. */
#include "dinfo/dinfo.h"
#include "dinfo/lines.h"
#include "util/util.h"
#include "unit.h"

#include <dwarf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BIAS 0x555555554000ull
#define CFA 0x7ffffffde000ull

static char *run(const char *cmd)
{
	return unit_run("%s", cmd);
}

static uint64_t nm_addr(const char *bin, const char *sym)
{
	char *cmd = xasprintf("nm %s", bin);
	char *text = run(cmd);
	uint64_t addr = 0;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned long long a;
		char type, name[256];
		if (sscanf(line, "%llx %c %255s", &a, &type, name) == 3 && !strcmp(name, sym))
			addr = a;
	}
	free(text);
	free(cmd);
	return addr;
}

/* ---- fake process: registers and a little memory ---- */

static uint8_t mem[256];
static uint64_t mem_base;

static int fake_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	(void)arg;
	if (addr < mem_base || addr + len > mem_base + sizeof mem)
		return -1;
	memcpy(buf, mem + (addr - mem_base), len);
	return 0;
}

static struct di_ctx make_ctx(struct di_regs *regs, const struct di_func *f, uint64_t pc)
{
	return (struct di_ctx){ .regs = regs, .cfa = CFA, .has_cfa = true, .bias = BIAS,
				.pc = pc + BIAS, .func = f, .read_mem = fake_read };
}

static const struct di_var *find_var(const struct di_var **vs, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (vs[i]->name && !strcmp(vs[i]->name, name))
			return vs[i];
	return NULL;
}

static bool is_ptr_to(const struct di_type *t, enum di_kind kind, const char *name)
{
	t = di_type_strip(t);
	if (t->kind != DI_PTR || !t->target)
		return false;
	const struct di_type *p = di_type_strip(t->target);
	return p->kind == kind && p->name && !strcmp(p->name, name);
}

/* ---- basic-O0 ---- */

static void test_funcs(struct di_info *di, const char *bin)
{
	static const char *names[] = { "square", "fact", "note_directory", "push",
				       "sum_list", "main" };
	size_t bad = 0;
	for (size_t i = 0; i < ARRAY_LEN(names); i++) {
		const struct di_func *f = di_func_named(di, names[i]);
		uint64_t a = nm_addr(bin, names[i]);
		if (!f || f->lo != a || di_func_at(di, a) != f ||
		    di_func_at(di, f->hi - 1) != f || di_func_at(di, f->hi) == f) {
			printf("# %s: f=%p lo=0x%llx nm=0x%llx\n", names[i], (void *)f,
			       f ? (unsigned long long)f->lo : 0ull, (unsigned long long)a);
			bad++;
		}
	}
	char name[128];
	snprintf(name, sizeof name, "di_func_named/di_func_at %s", bin);
	unit_check(!bad, name, "%zu functions wrong", bad);
	unit_check(!di_func_at(di, 0) && !di_func_named(di, "nosuchfunc"),
	      "di_func_at outside functions", "found one");
	const struct di_func *m = di_func_named(di, "main");
	const struct di_func *sq = di_func_named(di, "square");
	unit_check(m && m->external && m->decl_line == 51 && m->ret && m->ret->kind == DI_BASE &&
	      sq && !sq->external && m->cu_name && strstr(m->cu_name, "basic.c") &&
	      m->decl_file && m->decl_file[0] == '/' && strstr(m->decl_file, "fixtures/basic.c"),
	      "function attributes", "main/square attributes wrong");
	const struct di_func *nd = di_func_named(di, "note_directory");
	unit_check(nd && !nd->ret, "void function has no return type", "ret=%p",
	      nd ? (const void *)nd->ret : NULL);
}

static void test_params(struct di_info *di)
{
	const struct di_func *f = di_func_named(di, "note_directory");
	bool ok = f && f->nparams == 2;
	if (ok) {
		const struct di_var *n = &f->params[0], *t = &f->params[1];
		const struct di_type *pt = di_type_strip(n->type);
		ok = !strcmp(n->name, "name") && n->is_param && pt->kind == DI_PTR &&
		     pt->target->kind == DI_CONST &&
		     !strcmp(di_type_strip(pt->target)->name, "char") &&
		     !strcmp(t->name, "mtime") && di_type_strip(t->type)->kind == DI_BASE &&
		     !strcmp(t->type->name, "int") && t->type->size == 4 &&
		     t->type->encoding == DW_ATE_signed;
	}
	unit_check(ok, "note_directory(const char *name, int mtime)", "params wrong");
}

/* Compare locals and params with gdb's "info scope FUNC": names, sizes and
 * where DW_OP_fbreg puts them given a CFA. */
static void test_scope_vs_gdb(struct di_info *di, const char *bin, const char *func)
{
	char *cmd = xasprintf("gdb -batch -nx -ex 'info scope %s' %s 2>&1", func, bin);
	char *text = run(cmd);
	const struct di_func *f = di_func_named(di, func);
	const struct di_var *vs[64];
	size_t n = f ? di_vars_at(f, f->lo, vs, ARRAY_LEN(vs)) : 0, seen = 0, bad = 0;
	struct di_regs regs = {0};
	struct di_ctx ctx = make_ctx(&regs, f, f ? f->lo : 0);

	for (char *s = text; (s = strstr(s, "Symbol ")); seen++) {
		char vname[128];
		long long off = 0;
		size_t len = 0;
		sscanf(s, "Symbol %127s", vname);
		char *fb = strstr(s, "DW_OP_fbreg "), *l = strstr(s, "length ");
		if (fb)
			off = atoll(fb + 12);
		if (l)
			len = (size_t)atoll(l + 7);
		s += 7;
		const struct di_var *v = find_var(vs, n, vname);
		struct di_loc loc;
		char err[128];
		if (!v || di_type_strip(v->type)->size != len ||
		    di_locate(v, &ctx, &loc, err, sizeof err) || loc.kind != DI_LOC_MEM ||
		    loc.addr != CFA + (uint64_t)off) {
			printf("# %s: %s len %zu off %lld: v=%p\n", func, vname, len, off,
			       (const void *)v);
			bad++;
		}
	}
	char name[128];
	snprintf(name, sizeof name, "%s locals = gdb info scope (fbreg from CFA)", func);
	unit_check(f && seen == n && seen > 0 && !bad, name, "gdb %zu symbols, ours %zu, %zu bad",
	      seen, n, bad);
	free(text);
	free(cmd);
}

static void test_main_locals(struct di_info *di)
{
	const struct di_func *f = di_func_named(di, "main");
	const struct di_var *vs[16];
	size_t n = f ? di_vars_at(f, f->lo + 8, vs, ARRAY_LEN(vs)) : 0;
	const struct di_var *list = find_var(vs, n, "list");
	unit_check(n == 5 && !strcmp(vs[0]->name, "acc") && !strcmp(vs[1]->name, "i") &&
	      !strcmp(vs[2]->name, "list") && !strcmp(vs[3]->name, "argc") &&
	      !strcmp(vs[4]->name, "argv") && vs[3]->is_param && !vs[2]->is_param,
	      "di_vars_at main order", "n=%zu", n);
	unit_check(list && is_ptr_to(list->type, DI_STRUCT, "node") && list->decl_line == 53,
	      "main: struct node *list", "type wrong");
	size_t m = f ? di_vars_at(f, f->lo, vs, 2) : 0;
	unit_check(m == 2, "di_vars_at respects max", "m=%zu", m);
}

static void test_nested_scope(struct di_info *di)
{
	const struct di_func *f = di_func_named(di, "sum_list");
	const struct di_var *vs[16];
	bool ok = f && f->body.nchildren == 1 && f->body.children[0].nranges;
	if (ok) {
		uint64_t in = f->body.children[0].ranges[0].lo;
		size_t n = di_vars_at(f, in, vs, ARRAY_LEN(vs));
		size_t m = di_vars_at(f, f->lo, vs + 8, 8);
		ok = n == 3 && !strcmp(vs[0]->name, "p") && !strcmp(vs[1]->name, "s") &&
		     !strcmp(vs[2]->name, "head") && m == 2 && !find_var(vs + 8, m, "p");
	}
	unit_check(ok, "sum_list: p only inside its block, innermost first", "scopes wrong");
}

static void test_globals(struct di_info *di, const char *bin)
{
	const struct di_var *c = di_static_named(di, "counter", NULL);
	const struct di_var *t = di_static_named(di, "total", NULL);
	const struct di_var *g = di_static_named(di, "greeting", NULL);
	unit_check(c && t && g && c->external && !t->external && g->external &&
	      c->is_static && t->is_static && !strcmp(c->type->name, "int") &&
	      !strcmp(di_type_strip(t->type)->name, "long int") && t->type->size == 8 &&
	      is_ptr_to(g->type, DI_BASE, "char"), "globals counter/total/greeting",
	      "c=%p t=%p g=%p", (const void *)c, (const void *)t, (const void *)g);
	unit_check(di_static_named(di, "total", "tests/fixtures/basic.c") == t &&
	      di_static_named(di, "total", "basic.c") == t &&
	      !di_static_named(di, "total", "other.c") && !di_static_named(di, "nosuch", NULL),
	      "di_static_named with cu_file", "file static lookup wrong");

	struct di_regs regs = {0};
	struct di_ctx ctx = make_ctx(&regs, NULL, 0x1000);
	struct di_loc loc;
	char err[128] = "";
	uint64_t a = nm_addr(bin, "counter");
	int r = c ? di_locate(c, &ctx, &loc, err, sizeof err) : -1;
	unit_check(r == 0 && loc.kind == DI_LOC_MEM && loc.addr == a + BIAS && a,
	      "static variable address = nm + bias", "r=%d addr=0x%llx nm=0x%llx %s", r,
	      (unsigned long long)loc.addr, (unsigned long long)a, err);

	int32_t val = 1234, got = 0;
	mem_base = a + BIAS;
	memcpy(mem, &val, 4);
	r = c ? di_read_var(c, &ctx, (uint8_t *)&got, 4, err, sizeof err) : -1;
	unit_check(r == 0 && got == 1234, "di_read_var of a global", "r=%d got=%d", r, got);
	mem_base = 0x10;
	r = c ? di_read_var(c, &ctx, (uint8_t *)&got, 4, err, sizeof err) : 0;
	unit_check(r == -1 && strstr(err, "memory"), "di_read_var unreadable memory", "r=%d %s", r, err);
}

static void test_struct_node(struct di_info *di)
{
	const struct di_type *t = di_type_named(di, "struct node");
	bool ok = t && t->kind == DI_STRUCT && t->size == 16 && t->nmembers == 2 &&
		  !t->declaration && !strcmp(t->members[0].name, "key") &&
		  t->members[0].offset == 0 && !strcmp(t->members[1].name, "next") &&
		  t->members[1].offset == 8 && t->members[1].type->kind == DI_PTR &&
		  t->members[1].type->target == t;
	unit_check(ok, "struct node members, offsets, recursion", "wrong");
	unit_check(di_type_named(di, "int") && di_type_named(di, "int")->size == 4 &&
	      di_type_named(di, "unsigned long") &&
	      !strcmp(di_type_named(di, "unsigned long")->name, "long unsigned int") &&
	      di_type_named(di, "void")->kind == DI_VOID && !di_type_named(di, "struct nope") &&
	      !di_type_named(di, "node") && di_type_named(di, "  struct   node ") == t,
	      "di_type_named", "lookup wrong");
}

static void test_fbreg(struct di_info *di)
{
	const struct di_func *f = di_func_named(di, "main");
	const struct di_var *vs[16];
	size_t n = f ? di_vars_at(f, f->lo, vs, ARRAY_LEN(vs)) : 0;
	const struct di_var *list = find_var(vs, n, "list");
	struct di_regs regs = {0};
	struct di_ctx ctx = make_ctx(&regs, f, f ? f->lo : 0);
	char err[128] = "";
	uint64_t want = 0x5555deadbeefull, got = 0;

	mem_base = CFA - 64;
	memset(mem, 0, sizeof mem);
	memcpy(mem + 64 - 24, &want, 8);
	int r = list ? di_read_var(list, &ctx, (uint8_t *)&got, 8, err, sizeof err) : -1;
	unit_check(r == 0 && got == want, "di_read_var fbreg via CFA", "r=%d got=0x%llx %s", r,
	      (unsigned long long)got, err);
	ctx.has_cfa = false;
	r = list ? di_read_var(list, &ctx, (uint8_t *)&got, 8, err, sizeof err) : 0;
	unit_check(r == -1 && strstr(err, "CFA"), "fbreg without CFA is an error", "r=%d %s", r, err);
}

/* decl_file and the line table's file are the same string. */
static void test_same_paths(struct di_info *di, const char *bin)
{
	char err[256] = "";
	struct lines *lt = lines_open(bin, err, sizeof err);
	const struct di_func *m = di_func_named(di, "main");
	const struct lines_row *r = lt && m ? lines_at(lt, m->lo) : NULL;
	unit_check(r && m->decl_file && !strcmp(r->file, m->decl_file) &&
	      lines_file(lt, "basic.c") == r->file, "decl_file = line table file",
	      "%s vs %s", r ? r->file : "?", m && m->decl_file ? m->decl_file : "?");
	lines_close(lt);
}

static void test_basic_O0(void)
{
	const char *bin = "tests/build/basic-O0";
	char err[256] = "";
	struct di_info *di = di_open(bin, err, sizeof err);
	unit_check(di != NULL, "di_open basic-O0", "%s", err);
	if (!di)
		return;
	test_funcs(di, bin);
	test_params(di);
	test_scope_vs_gdb(di, bin, "main");
	test_scope_vs_gdb(di, bin, "note_directory");
	test_scope_vs_gdb(di, bin, "push");
	test_main_locals(di);
	test_nested_scope(di);
	test_globals(di, bin);
	test_struct_node(di);
	test_fbreg(di);
	test_same_paths(di, bin);
	di_close(di);
}

/* ---- basic-O2: location lists, abstract origins, inlining ---- */

/* gdb's "Range 0xA-0xB" lines of one symbol of "info scope". */
static size_t gdb_ranges(const char *text, const char *sym, uint64_t *lo, uint64_t *hi,
			 size_t max)
{
	char key[128];
	snprintf(key, sizeof key, "Symbol %s is", sym);
	const char *s = strstr(text, key), *end;
	size_t n = 0;
	if (!s)
		return 0;
	end = strstr(s + 1, "Symbol ");
	for (s = strstr(s, "Range 0x"); s && (!end || s < end) && n < max;
	     s = strstr(s + 1, "Range 0x")) {
		char *dash;
		lo[n] = strtoull(s + 6, &dash, 16);
		hi[n++] = strtoull(dash + 1, NULL, 16);
	}
	return n;
}

static void test_loclists(struct di_info *di, const char *bin)
{
	char *cmd = xasprintf("gdb -batch -nx -ex 'info scope note_directory' "
			      "-ex 'info scope main' %s 2>&1", bin);
	char *text = run(cmd);
	const struct di_func *f = di_func_named(di, "note_directory");
	bool ok = f && f->nparams == 2 && !strcmp(f->params[0].name, "name") &&
		  !strcmp(f->params[1].name, "mtime");
	unit_check(ok, "-O2 params named through abstract origin", "names wrong");
	for (size_t i = 0; ok && i < f->nparams; i++) {
		const struct di_var *v = &f->params[i];
		uint64_t lo[16], hi[16];
		size_t n = gdb_ranges(text, v->name, lo, hi, 16), same = 0;
		for (size_t j = 0; j < n && j < v->nlocs; j++)
			same += v->locs[j].lo == lo[j] && v->locs[j].hi == hi[j];
		char name[128];
		snprintf(name, sizeof name, "-O2 location list of %s = gdb", v->name);
		unit_check(v->nlocs > 1 && n == v->nlocs && same == n, name,
		      "ours %zu entries, gdb %zu, %zu equal", v->nlocs, n, same);
	}

	/* In the entry-value range: optimized out, never a value; in the
	 * register range: the register, unless the frame lost it. */
	const struct di_var *v = ok ? &f->params[0] : NULL;
	struct di_regs regs = {0};
	regs.r[5] = 0x1234;
	regs.valid[5] = true;
	struct di_loc loc;
	char err[128] = "";
	uint8_t buf[8];
	bool found = false;
	for (size_t j = 0; v && j < v->nlocs; j++) {
		struct di_ctx ctx = make_ctx(&regs, f, v->locs[j].lo);
		const uint8_t *ops = v->locs[j].ops;
		if (v->locs[j].len && ops[0] == DW_OP_entry_value) {
			found = true;
			int r = di_locate(v, &ctx, &loc, err, sizeof err);
			int rr = di_read_var(v, &ctx, buf, 8, err, sizeof err);
			unit_check(r == 0 && loc.kind == DI_LOC_OPTIMIZED && rr == 1,
			      "DW_OP_entry_value is optimized out", "r=%d kind=%d rr=%d",
			      r, loc.kind, rr);
		} else if (v->locs[j].len == 1 && ops[0] == DW_OP_reg5) {
			int r = di_locate(v, &ctx, &loc, err, sizeof err);
			uint64_t val = 0;
			int rr = di_read_var(v, &ctx, (uint8_t *)&val, 8, err, sizeof err);
			unit_check(r == 0 && loc.kind == DI_LOC_REG && loc.reg == 5 && rr == 0 &&
			      val == 0x1234, "register location", "r=%d kind=%d", r, loc.kind);
			regs.valid[5] = false;
			r = di_locate(v, &ctx, &loc, err, sizeof err);
			unit_check(r == 0 && loc.kind == DI_LOC_OPTIMIZED,
			      "invalid register is optimized out", "r=%d kind=%d", r, loc.kind);
			regs.valid[5] = true;
		}
	}
	unit_check(found, "-O2 note_directory has an entry-value range", "none");
	struct di_ctx out = make_ctx(&regs, f, f ? f->hi + 0x100 : 0);
	unit_check(v && di_read_var(v, &out, buf, 8, err, sizeof err) == 1,
	      "pc outside every range is optimized out", "not optimized");
	free(text);
	free(cmd);
}

/* ---- inlined calls, against gdb ---- */

/* Link-time addresses of the locations gdb lists for "break NAME". */
static size_t gdb_break_locs(const char *bin, const char *name, uint64_t *out, size_t max)
{
	char *cmd = xasprintf("gdb -batch -nx -ex 'break %s' -ex 'info breakpoints' %s 2>&1",
			      name, bin);
	char *text = run(cmd), *save = NULL;
	char want[160];
	size_t n = 0;
	snprintf(want, sizeof want, " in %s at ", name);
	for (char *l = strtok_r(text, "\n", &save); l && n < max; l = strtok_r(NULL, "\n", &save)) {
		char *a = strstr(l, " 0x");
		if (a && strstr(a, want))
			out[n++] = strtoull(a + 1, NULL, 16);
	}
	free(text);
	free(cmd);
	return n;
}

struct gdb_frame {
	char name[128];
	char file[256];
	int line;
};

/* One "#N ..." line of gdb's bt: "#1  0x... in NAME (args) at FILE:LINE". */
static bool parse_frame(const char *l, struct gdb_frame *fr)
{
	const char *p = l + 1 + strspn(l + 1, "0123456789"), *at = NULL;
	p += strspn(p, " ");
	if (!strncmp(p, "0x", 2) && strstr(p, " in "))
		p = strstr(p, " in ") + 4;
	for (const char *q = strstr(p, " at "); q; q = strstr(q + 1, " at "))
		at = q;
	const char *colon = at ? strrchr(at, ':') : NULL;
	if (!colon || sscanf(p, "%127s", fr->name) != 1)
		return false;
	snprintf(fr->file, sizeof fr->file, "%.*s", (int)(colon - at - 4), at + 4);
	fr->line = atoi(colon + 1);
	return true;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* names sorted and joined as "a,b,": a multiset that compares as a string */
static char *joined(const char **names, size_t n)
{
	struct sbuf b = {0};
	qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		sbuf_add(&b, names[i]);
		sbuf_add(&b, ",");
	}
	return b.s ? sbuf_take(&b) : xstrdup("");
}

/* gdb's answer when the program first reaches link-time pc (placed from
 * main so that the load address does not matter). */
struct gdb_stop {
	struct gdb_frame fr[16];
	size_t nfr;            /* 0: gdb never stopped there */
	char *locals, *args;   /* names of "info locals"/"info args", joined */
};

static void gdb_stop_at(const char *bin, uint64_t main_lo, uint64_t pc, struct gdb_stop *st)
{
	char *cmd = xasprintf("gdb -batch -nx -ex starti -ex 'break *((char *)&main + %lld)' "
			      "-ex continue -ex bt -ex 'echo @locals\\n' -ex 'info locals' "
			      "-ex 'echo @args\\n' -ex 'info args' %s 2>&1",
			      (long long)(pc - main_lo), bin);
	char *text = run(cmd), *save = NULL;
	const char *names[2][64];
	size_t nn[2] = {0}, sect = 2;   /* 0 locals, 1 args, 2 bt */
	bool stopped = strstr(text, "Breakpoint 1, ") != NULL;

	st->nfr = 0;
	for (char *l = strtok_r(text, "\n", &save); l && stopped; l = strtok_r(NULL, "\n", &save)) {
		size_t id = strspn(l, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
		if (!strcmp(l, "@locals") || !strcmp(l, "@args")) {
			sect = l[1] == 'l' ? 0 : 1;
		} else if (sect == 2 && l[0] == '#' && st->nfr < ARRAY_LEN(st->fr)) {
			st->nfr += parse_frame(l, &st->fr[st->nfr]);
		} else if (sect < 2 && id && !strncmp(l + id, " = ", 3) && nn[sect] < 64) {
			l[id] = 0;
			names[sect][nn[sect]++] = l;
		}
	}
	st->locals = joined(names[0], nn[0]);
	st->args = joined(names[1], nn[1]);
	free(text);
	free(cmd);
}

/* Our chain at pc against gdb's frames: inlined frames innermost first,
 * each called from the line (and file) the next frame shows, then f. */
static bool chain_is_gdb_bt(const struct di_func *f, uint64_t pc, const struct gdb_stop *st)
{
	const struct di_inline *ch[16];
	size_t k = di_inline_chain(f, pc, ch, ARRAY_LEN(ch));
	if (st->nfr != k + 1 || strcmp(st->fr[k].name, f->name))
		return false;
	for (size_t i = 0; i < k; i++) {
		const char *file = st->fr[i + 1].file;
		size_t lc = strlen(ch[i]->call_file ? ch[i]->call_file : ""), lf = strlen(file);
		if (strcmp(ch[i]->name, st->fr[i].name) || ch[i]->call_line != st->fr[i + 1].line ||
		    lf > lc || strcmp(ch[i]->call_file + lc - lf, file) || ch[i]->func != f)
			return false;
	}
	return true;
}

/* Locals and parameters of the innermost inlined call at pc, as gdb's
 * "info locals" and "info args" name them (gdb's order differs). */
static bool vars_are_gdb(const struct di_func *f, uint64_t pc, const struct gdb_stop *st)
{
	const struct di_inline *in;
	const struct di_var *vs[64];
	const char *names[2][64];
	size_t nn[2] = {0};
	if (!di_inline_chain(f, pc, &in, 1))
		return true;
	size_t n = di_inline_vars_at(in, pc, vs, ARRAY_LEN(vs));
	for (size_t i = 0; i < n; i++)
		names[vs[i]->is_param][nn[vs[i]->is_param]++] = vs[i]->name;
	char *l = joined(names[0], nn[0]), *a = joined(names[1], nn[1]);
	bool ok = !strcmp(l, st->locals) && !strcmp(a, st->args);
	if (!ok)
		printf("# 0x%llx: locals %s args %s, gdb %s %s\n", (unsigned long long)pc, l, a,
		       st->locals, st->args);
	free(l);
	free(a);
	return ok;
}

static void add_pc(uint64_t *pcs, size_t *n, size_t max, uint64_t pc)
{
	for (size_t i = 0; i < *n; i++)
		if (pcs[i] == pc)
			return;
	if (*n < max)
		pcs[(*n)++] = pc;
}

/* Where code of an inlined call starts: range starts at every depth. */
static void inline_pcs(const struct di_inline *v, size_t n, uint64_t *pcs, size_t *npcs,
		       size_t max)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < v[i].nranges; j++)
			add_pc(pcs, npcs, max, v[i].ranges[j].lo);
		inline_pcs(v[i].children, v[i].nchildren, pcs, npcs, max);
	}
}

/* The inline chain, locals and args at the start of every inlined range
 * of main (and at main's entry) are what gdb's bt shows when stopped
 * there; pcs gdb never reaches are skipped. */
static void test_chain_vs_gdb(struct di_info *di, const char *bin, const char *label)
{
	const struct di_func *m = di_func_named(di, "main");
	uint64_t pcs[12];
	size_t npcs = 0, seen = 0, inl = 0, bad = 0, badvars = 0;
	if (m) {
		add_pc(pcs, &npcs, ARRAY_LEN(pcs), m->lo);
		inline_pcs(m->inlines, m->ninlines, pcs, &npcs, ARRAY_LEN(pcs));
	}
	for (size_t i = 0; i < npcs; i++) {
		struct gdb_stop st;
		const struct di_inline *ch;
		gdb_stop_at(bin, m->lo, pcs[i], &st);
		if (st.nfr) {
			seen++;
			inl += di_inline_chain(m, pcs[i], &ch, 1);
			if (!chain_is_gdb_bt(m, pcs[i], &st)) {
				printf("# 0x%llx: gdb #0 %s, %zu frames\n", (unsigned long long)pcs[i],
				       st.fr[0].name, st.nfr);
				bad++;
			}
			badvars += !vars_are_gdb(m, pcs[i], &st);
		}
		free(st.locals);
		free(st.args);
	}
	char name[160];
	snprintf(name, sizeof name, "%s: inline chain = gdb bt", label);
	unit_check(m && seen >= 2 && inl >= 1 && !bad, name, "%zu of %zu pcs differ, %zu inlined",
	      bad, seen, inl);
	printf("# %s: gdb stopped at %zu of %zu pcs, %zu in inlined code\n", label, seen,
	       npcs, inl);
	snprintf(name, sizeof name, "%s: inlined locals/args = gdb info locals/args", label);
	unit_check(m && inl >= 1 && !badvars, name, "%zu pcs differ", badvars);
}

/* di_inline_instances(name) = gdb's locations for "break name" minus the
 * out-of-line copy, if any. */
static void test_instances_vs_gdb(struct di_info *di, const char *bin, const char *label,
				  const char *fname)
{
	uint64_t locs[16];
	const struct di_inline *ins[16];
	size_t ng = gdb_break_locs(bin, fname, locs, ARRAY_LEN(locs)), nin = 0, bad = 0;
	size_t n = di_inline_instances(di, fname, ins, ARRAY_LEN(ins));
	const struct di_func *ool = di_func_named(di, fname);
	for (size_t i = 0; i < ng; i++) {
		if (ool && di_func_at(di, locs[i]) == ool)
			continue;
		bad += nin >= n || ins[nin]->entry_pc != locs[i];
		nin++;
	}
	for (size_t i = 0; i < n; i++)
		bad += strcmp(ins[i]->name, fname) != 0 || (i && ins[i - 1]->entry_pc > ins[i]->entry_pc);
	char name[160];
	snprintf(name, sizeof name, "%s: inlined %s entry pcs = gdb break %s", label, fname,
		 fname);
	unit_check(n && nin == n && !bad, name, "ours %zu, gdb %zu inlined of %zu, %zu differ", n,
	      nin, ng, bad);
}

static bool is_int(const struct di_type *t)
{
	t = di_type_strip(t);
	return t->kind == DI_BASE && t->name && !strcmp(t->name, "int");
}

/* Parameter `name` of an inlined call, in whatever order the compiler
 * emitted them (gdb keeps that order, so qzdb does too). */
static const struct di_var *param_named(const struct di_inline *in, const char *name)
{
	for (size_t i = 0; in && i < in->nparams; i++)
		if (in->params[i].name && !strcmp(in->params[i].name, name))
			return &in->params[i];
	return NULL;
}

static void test_inline_basic_O2(struct di_info *di, const char *bin)
{
	const struct di_func *m = di_func_named(di, "main"), *push = di_func_named(di, "push");
	const struct di_inline *ins[8];
	size_t n = di_inline_instances(di, "push", ins, ARRAY_LEN(ins));
	const struct di_inline *p = n ? ins[0] : NULL;
	const struct di_var *ph = param_named(p, "head"), *pk = param_named(p, "key");
	unit_check(p && p->func == m && p->nparams == 2 && ph &&
	      is_ptr_to(ph->type, DI_STRUCT, "node") && ph->is_param &&
	      pk && is_int(pk->type) &&
	      p->nranges && p->body.ranges == p->ranges && p->body.nvars >= 1,
	      "-O2 inlined push(struct node *head, int key) in main", "n=%zu", n);

	char err[256] = "";
	struct lines *lt = lines_open(bin, err, sizeof err);
	const char *file = lt ? lines_file(lt, "basic.c") : NULL;
	const struct lines_row *r = lt && p ? lines_at(lt, m->lo) : NULL;
	unit_check(p && file && r && p->call_file && !strcmp(p->call_file, r->file) &&
	      push && p->decl_line == push->decl_line && p->decl_file &&
	      !strcmp(p->decl_file, push->decl_file) && p->call_line > push->decl_line &&
	      p->call_line > m->decl_line, "-O2 inlined push: call_file = line table file, "
	      "decl from the origin", "call %s:%d decl %s:%d",
	      p && p->call_file ? p->call_file : "?", p ? p->call_line : 0,
	      p && p->decl_file ? p->decl_file : "?", p ? p->decl_line : 0);
	lines_close(lt);

	size_t top = 0, inl = 0, nf;
	const struct di_func *const *fs = di_funcs(di, &nf);
	for (size_t i = 0; i < nf; i++)
		top += di_func_expand(di, fs[i])->ninlines;
	for (size_t i = 0; m && i < m->ninlines; i++)
		inl += !strcmp(m->inlines[i].name, "push") || !strcmp(m->inlines[i].name, "sum_list");
	unit_check(m && m->ninlines >= 2 && inl >= 2 && !di_func_named(di, "square") &&
	      !di_inline_instances(di, "main", ins, 8) && !di_inline_instances(di, "nosuch", ins, 8),
	      "-O2 main has inlined push and sum_list", "main has %zu, %zu in all", 
	      m ? m->ninlines : 0, top);

	const struct di_inline *ch[4];
	unit_check(p && di_inline_chain(m, p->entry_pc, ch, 4) >= 1 && ch[0]->name &&
	      !strcmp(ch[0]->name, "push") && !di_inline_chain(m, m->lo, ch, 4) &&
	      di_inline_chain(m, p->entry_pc, ch, 0) == 0,
	      "di_inline_chain at push's entry pc", "wrong");
	test_instances_vs_gdb(di, bin, "-O2", "push");
	test_instances_vs_gdb(di, bin, "-O2", "sum_list");
	test_chain_vs_gdb(di, bin, "-O2");
}

static void test_inline_basic_O0(void)
{
	const char *bin = "tests/build/basic-O0";
	char err[256] = "";
	struct di_info *di = di_open(bin, err, sizeof err);
	size_t n = 0, inl = 0;
	const struct di_func *const *fs = di ? di_funcs(di, &n) : NULL;
	const struct di_inline *ins[4];
	for (size_t i = 0; i < n; i++) {
		const struct di_func *f = di_func_expand(di, fs[i]);
		inl += f->ninlines + (f->inlines != NULL);
	}
	unit_check(di && n >= 6 && !inl && !di_inline_instances(di, "push", ins, 4) &&
	      !di_inline_chain(di_func_named(di, "main"), di_func_named(di, "main")->lo + 8, ins, 4),
	      "-O0 has no inlined calls", "%zu", inl);
	di_close(di);
}

static void test_basic_O2(void)
{
	const char *bin = "tests/build/basic-O2";
	char err[256] = "";
	struct di_info *di = di_open(bin, err, sizeof err);
	unit_check(di != NULL, "di_open basic-O2", "%s", err);
	if (!di)
		return;
	test_loclists(di, bin);
	const struct di_func *m = di_func_named(di, "main");
	size_t bad = 0;
	for (uint64_t pc = m ? m->lo : 0; m && pc < m->hi; pc++)
		bad += di_func_at(di, pc) != m;
	unit_check(m && !bad, "-O2 inlined code belongs to its caller", "%zu pcs", bad);
	unit_check(!di_func_named(di, "square"), "fully inlined function is not a function",
	      "square found");
	size_t n;
	const struct di_func *const *fs = di_funcs(di, &n);
	bad = 0;
	for (size_t i = 0; i < n; i++)
		bad += di_func_at(di, fs[i]->lo) != fs[i] || !fs[i]->name ||
		       fs[i]->lo != nm_addr(bin, fs[i]->name);
	unit_check(n >= 5 && !bad, "-O2 every function at its nm address", "n=%zu bad=%zu", n, bad);
	const struct di_func *sl = di_func_named(di, "sum_list");
	const struct di_var *vs[8];
	size_t k = sl && sl->body.nchildren ?
		   di_vars_at(sl, sl->body.children[0].ranges[0].lo, vs, 8) : 0;
	unit_check(k == 3 && !strcmp(vs[0]->name, "p") && !strcmp(vs[2]->name, "head"),
	      "-O2 concrete lexical block (DW_AT_ranges)", "k=%zu", k);
	test_inline_basic_O2(di, bin);
	di_close(di);
}

/* ---- nested inlined calls on a program written here ---- */

static const char inline_src[] =
	"#include <stdlib.h>\n"
	"volatile int sink;\n"
	"static inline __attribute__((always_inline)) int leaf(int a, int b)\n"
	"{\n"
	"	int t = a * b;\n"
	"	sink = t;\n"
	"	return t + 1;\n"
	"}\n"
	"static inline __attribute__((always_inline)) int mid(int x)\n"
	"{\n"
	"	int r = leaf(x, x + 1);\n"
	"	sink = r;\n"
	"	return r * 3;\n"
	"}\n"
	"static inline __attribute__((always_inline)) int drop(int used, int gone)\n"
	"{\n"
	"	sink = used;\n"
	"	return used * 2;\n"
	"}\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"	int acc = mid(argc);\n"
	"	for (int i = 0; i < argc; i++) {\n"
	"		int k = mid(i + atoi(argv[0]));\n"
	"		sink = k;\n"
	"	}\n"
	"	acc += drop(argc, 5);\n"
	"	return acc;\n"
	"}\n";

static const struct di_inline *named_child(const struct di_inline *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].name && !strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

static void test_inline_tree(struct di_info *di, const char *opt)
{
	const struct di_func *m = di_func_named(di, "main");
	const struct di_inline *mids[4], *drops[2], *ch[4];
	size_t nm = di_inline_instances(di, "mid", mids, 4);
	size_t one = di_inline_instances(di, "mid", mids + 2, 1);
	bool ok = m && nm == 2 && one == 1 && mids[2] == mids[0] &&
		  mids[0]->entry_pc < mids[1]->entry_pc && !di_func_named(di, "mid") &&
		  !di_func_named(di, "leaf") && named_child(m->inlines, m->ninlines, "drop");
	size_t top_mids = 0;
	for (size_t i = 0; m && i < m->ninlines; i++)
		top_mids += !strcmp(m->inlines[i].name, "mid");
	char name[160];
	snprintf(name, sizeof name, "inline fixture %s: both mid calls top-level, one in a block",
		 opt);
	unit_check(ok && top_mids == 2, name, "nm=%zu top=%zu", nm, top_mids);

	size_t leaves = 0, bad = 0;
	for (size_t i = 0; i < nm && i < 2; i++) {
		const struct di_inline *md = mids[i], *lf = named_child(md->children, md->nchildren, "leaf");
		if (!lf)
			continue;
		leaves++;
		size_t k = di_inline_chain(m, lf->ranges[0].lo, ch, 4);
		size_t k1 = di_inline_chain(m, lf->ranges[0].lo, ch + 2, 1);
		bad += k != 2 || ch[0] != lf || ch[1] != md || k1 != 1 || ch[2] != lf ||
		       lf->func != m || lf->call_line != 11 || md->nparams != 1 ||
		       !param_named(md, "x") || lf->nparams != 2 ||
		       !param_named(lf, "a") || !param_named(lf, "b") ||
		       !is_int(param_named(lf, "b")->type) || lf->decl_line != 3 || md->decl_line != 9;
		const struct di_var *vs[16];
		size_t nv = di_inline_vars_at(lf, lf->ranges[0].lo, vs, ARRAY_LEN(vs));
		bad += nv < 3 || !find_var(vs, nv, "t") || !vs[nv - 2]->is_param ||
		       !vs[nv - 1]->is_param || !find_var(vs, nv, "a") || !find_var(vs, nv, "b");
	}
	snprintf(name, sizeof name, "inline fixture %s: leaf nested in each mid (in its block)", opt);
	unit_check(leaves == 2 && !bad, name, "%zu leaves, %zu bad", leaves, bad);

	size_t nd = di_inline_instances(di, "drop", drops, 2);
	const struct di_inline *d = nd ? drops[0] : NULL;
	snprintf(name, sizeof name, "inline fixture %s: drop(used, gone) call and parameters", opt);
	unit_check(nd == 1 && d->call_line == 27 && d->nparams == 2 && param_named(d, "used") &&
	      param_named(d, "gone") && mids[0]->call_line == 22 &&
	      mids[1]->call_line == 24, name, "nd=%zu", nd);
}

/* ---- the lazy index on a program of two units written here ---- */

static const char lazy_a[] =
	"struct opaque;\n"
	"struct opaque *get(void);\n"
	"enum tone { LOW = 3, HIGH = 9 };\n"
	"extern int shared;\n"
	"static int twice(int x) { return 2 * x; }\n"
	"static inline __attribute__((always_inline)) int bump(int x) { return x + 1; }\n"
	"int outer(int n)\n"
	"{\n"
	"	int nested(int k) { return k + n; }\n"
	"	return nested(twice(n));\n"
	"}\n"
	"int main(void)\n"
	"{\n"
	"	struct opaque *o = get();\n"
	"	return bump(outer(shared)) + (o != 0) + LOW;\n"
	"}\n";

static const char lazy_b[] =
	"struct opaque { int a; long b; };\n"
	"static struct opaque one = { 1, 2 };\n"
	"int shared = 5;\n"
	"static int twice(int x) { return x + x; }\n"
	"static inline __attribute__((always_inline)) int bump(int x) { return x + 2; }\n"
	"struct opaque *get(void) { return bump(twice(1)) ? &one : 0; }\n";

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* What di_open leaves for later must come out as an eager read would
 * have it: functions from di_funcs once expanded, a nested function found
 * by its address, an opaque struct completed from the other unit, the
 * enumerators and function statics. */
static void test_lazy_units(struct di_info *di, const char *bin)
{
	size_t n, bad = 0;
	const struct di_func *const *fs = di_funcs(di, &n);
	for (size_t i = 0; i < n; i++) {
		const struct di_func *f = di_func_expand(di, fs[i]);
		bad += !f->name || !f->decl_line || !f->decl_file || di_func_at(di, f->lo) != f ||
		       (!strcmp(f->name, "outer") && (f->nparams != 1 || !f->ret));
	}
	unit_check(n == 5 && !bad, "lazy: di_funcs expanded", "n=%zu bad=%zu", n, bad);
	const struct di_func *nf = di_func_at(di, nm_addr(bin, "nested.0"));
	unit_check(nf && nf->name && !strcmp(nf->name, "nested") && nf->nparams == 1 &&
	      di_func_named(di, "nested") == nf, "lazy: nested function by address",
	      "nf=%p", (const void *)nf);
	const struct di_func *m = di_func_named(di, "main");
	const struct di_var *vs[8];
	size_t k = m ? di_vars_at(m, m->hi - 1, vs, 8) : 0;
	const struct di_type *o = k ? di_type_strip(vs[0]->type) : NULL;
	const struct di_type *so = di_type_named(di, "struct opaque");
	unit_check(k == 1 && o->kind == DI_PTR && o->target->nmembers == 2 &&
	      !o->target->declaration && so && so->nmembers == 2 && !so->declaration,
	      "lazy: opaque struct completed from another unit",
	      "k=%zu so=%p", k, (const void *)so);
	const struct di_var *hi = di_static_named(di, "HIGH", NULL);
	const struct di_var *ta = di_static_named(di, "twice", "a.c");
	const struct di_var *tb = di_static_named(di, "twice", "b.c");
	unit_check(hi && hi->has_const && hi->const_value == 9 && ta && tb && ta != tb &&
	      ta->type && ta->type->kind == DI_FUNC && !di_static_named(di, "one", "a.c") &&
	      di_static_named(di, "one", "b.c"), "lazy: enumerators and function statics",
	      "hi=%p ta=%p tb=%p", (const void *)hi, (const void *)ta, (const void *)tb);
	const struct di_inline *ins[4];
	size_t ni = di_inline_instances(di, "bump", ins, 4);
	unit_check(ni == 2 && ins[0]->func != ins[1]->func && !di_inline_instances(di, "twice", ins, 4),
	      "lazy: inlined calls in both units", "ni=%zu", ni);
}

static void test_lazy(void)
{
	char dir[] = "/tmp/qz-test-lazy-XXXXXX";
	if (!mkdtemp(dir)) {
		printf("FAIL lazy: mkdtemp\n");
		return;
	}
	char *a = xasprintf("%s/a.c", dir), *b = xasprintf("%s/b.c", dir);
	char *bin = xasprintf("%s/lazy", dir);
	write_file(a, lazy_a);
	write_file(b, lazy_b);
	char *cmd = xasprintf("cd %s && gcc -g -O0 -o lazy a.c b.c", dir);
	char err[256] = "";
	if (system(cmd))
		printf("# %s failed\n", cmd);
	struct di_info *di = di_open(bin, err, sizeof err);
	unit_check(di != NULL, "di_open lazy fixture", "%s", err);
	if (di)
		test_lazy_units(di, bin);
	di_close(di);
	free(cmd);
	cmd = xasprintf("rm -rf %s", dir);
	if (system(cmd))
		printf("# cannot remove %s\n", dir);
	free(cmd);
	free(a);
	free(b);
	free(bin);
}

static void test_inline_fixture(void)
{
	char dir[] = "/tmp/qz-test-inline-XXXXXX";
	if (!mkdtemp(dir)) {
		printf("FAIL inline fixture: mkdtemp\n");
		return;
	}
	char *src = xasprintf("%s/inl.c", dir);
	FILE *f = fopen(src, "w");
	if (f) {
		fputs(inline_src, f);
		fclose(f);
	}
	static const char *opts[] = { "-O2", "-O2 -gdwarf-4" };
	for (size_t i = 0; i < ARRAY_LEN(opts); i++) {
		char *bin = xasprintf("%s/inl%zu", dir, i);
		char *cmd = xasprintf("gcc -g %s -o %s %s", opts[i], bin, src);
		char err[256] = "", name[128];
		if (system(cmd))
			printf("# %s failed\n", cmd);
		struct di_info *di = di_open(bin, err, sizeof err);
		snprintf(name, sizeof name, "di_open inline fixture %s", opts[i]);
		unit_check(di != NULL, name, "%s", err);
		if (di) {
			test_inline_tree(di, opts[i]);
			snprintf(name, sizeof name, "inline fixture %s", opts[i]);
			test_instances_vs_gdb(di, bin, name, "mid");
			test_instances_vs_gdb(di, bin, name, "leaf");
			test_chain_vs_gdb(di, bin, name);
		}
		di_close(di);
		free(cmd);
		free(bin);
	}
	free(src);
	char *cmd = xasprintf("rm -rf %s", dir);
	if (system(cmd))
		printf("# cannot remove %s\n", dir);
	free(cmd);
}

/* ---- the evaluator on hand-made expressions ---- */

static int eval_ops(const uint8_t *ops, size_t len, struct di_regs *regs,
		    const struct di_func *f, struct di_loc *loc, char *err)
{
	struct di_locexpr le = { .ops = ops, .len = len, .always = true };
	struct di_var v = { .name = "v", .locs = &le, .nlocs = 1 };
	struct di_ctx ctx = make_ctx(regs, f, 0x1000);
	return di_locate(&v, &ctx, loc, err, 128);
}

static uint64_t value_of(const struct di_loc *loc)
{
	uint64_t v = 0;
	memcpy(&v, loc->value, 8);
	return v;
}

static void test_eval(void)
{
	struct di_regs regs = {0};
	struct di_loc loc;
	char err[128];
	for (int i = 0; i < DI_NREGS; i++) {
		regs.r[i] = 0x1000 * (uint64_t)(i + 1);
		regs.valid[i] = true;
	}
	regs.valid[3] = false;

	/* ((7 + 5) * 3 - 2) >> 1 ^ 0xf0 */
	static const uint8_t arith[] = { DW_OP_lit7, DW_OP_const1u, 5, DW_OP_plus,
		DW_OP_lit3, DW_OP_mul, DW_OP_lit2, DW_OP_minus, DW_OP_lit1, DW_OP_shr,
		DW_OP_const2u, 0xf0, 0, DW_OP_xor, DW_OP_stack_value };
	int r = eval_ops(arith, sizeof arith, &regs, NULL, &loc, err);
	unit_check(r == 0 && loc.kind == DI_LOC_VALUE && value_of(&loc) == ((((7 + 5) * 3 - 2) >> 1) ^ 0xf0),
	      "eval arithmetic + stack_value", "r=%d v=%llu", r, (unsigned long long)value_of(&loc));

	static const uint8_t stackops[] = { DW_OP_lit1, DW_OP_lit2, DW_OP_lit3, DW_OP_rot,
		DW_OP_swap, DW_OP_over, DW_OP_pick, 1, DW_OP_drop, DW_OP_minus,
		DW_OP_consts, 0x7f, DW_OP_mul, DW_OP_neg, DW_OP_stack_value };
	/* 1 2 3 rot -> 3 1 2; swap -> 3 2 1; over -> 3 2 1 2; pick 1 -> ..2 1;
	 * drop -> 3 2 1 2; minus -> 3 2 -1; * -1 -> 3 2 1; neg -> 3 2 -1 */
	r = eval_ops(stackops, sizeof stackops, &regs, NULL, &loc, err);
	unit_check(r == 0 && value_of(&loc) == (uint64_t)-1, "eval stack operations", "r=%d v=%lld",
	      r, (long long)value_of(&loc));

	static const uint8_t breg[] = { DW_OP_breg7, 0x10, DW_OP_bregx, 6, 0x78, DW_OP_plus };
	r = eval_ops(breg, sizeof breg, &regs, NULL, &loc, err);
	unit_check(r == 0 && loc.kind == DI_LOC_MEM && loc.addr == regs.r[7] + 16 + regs.r[6] - 8,
	      "eval breg/bregx -> memory", "r=%d", r);

	static const uint8_t badreg[] = { DW_OP_breg3, 0 };
	r = eval_ops(badreg, sizeof badreg, &regs, NULL, &loc, err);
	unit_check(r == 0 && loc.kind == DI_LOC_OPTIMIZED, "eval invalid register -> optimized out",
	      "r=%d kind=%d", r, loc.kind);

	static const uint8_t addr[] = { DW_OP_addr, 0x44, 0x40, 0, 0, 0, 0, 0, 0 };
	r = eval_ops(addr, sizeof addr, &regs, NULL, &loc, err);
	unit_check(r == 0 && loc.kind == DI_LOC_MEM && loc.addr == 0x4044 + BIAS,
	      "eval DW_OP_addr adds the bias", "r=%d", r);

	static const uint8_t pieces[] = { DW_OP_reg0, DW_OP_piece, 4, DW_OP_lit9,
		DW_OP_stack_value, DW_OP_piece, 2, DW_OP_implicit_value, 2, 0xaa, 0xbb,
		DW_OP_piece, 2, DW_OP_addr, 0, 0, 0, 0, 0, 0, 0, 0, DW_OP_piece, 4 };
	mem_base = BIAS;
	memcpy(mem, "\x11\x22\x33\x44", 4);
	r = eval_ops(pieces, sizeof pieces, &regs, NULL, &loc, err);
	static const uint8_t want[] = { 0x00, 0x10, 0, 0, 9, 0, 0xaa, 0xbb, 0x11, 0x22, 0x33, 0x44 };
	unit_check(r == 0 && loc.kind == DI_LOC_PIECES && loc.value_len == sizeof want &&
	      !memcmp(loc.value, want, sizeof want), "eval pieces from reg/value/implicit/memory",
	      "r=%d kind=%d len=%zu %s", r, loc.kind, loc.value_len, err);

	static const uint8_t holes[] = { DW_OP_reg0, DW_OP_piece, 4, DW_OP_piece, 4 };
	r = eval_ops(holes, sizeof holes, &regs, NULL, &loc, err);
	static const uint8_t holes_mask[] = { 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff };
	unit_check(r == 0 && loc.kind == DI_LOC_PIECES && loc.partial && loc.value_len == 8 &&
	      !memcmp(loc.unavail, holes_mask, 8), "eval missing piece -> those bytes optimized out",
	      "r=%d kind=%d", r, loc.kind);

	static const uint8_t no_loc[] = { DW_OP_piece, 4, DW_OP_piece, 4 };
	r = eval_ops(no_loc, sizeof no_loc, &regs, NULL, &loc, err);
	unit_check(r == 0 && loc.kind == DI_LOC_OPTIMIZED, "eval only missing pieces -> optimized out",
	      "r=%d kind=%d", r, loc.kind);

	/* ready:1 missing, mode:3 = 5 from the low bits of rax, level:4 = 0xf
	 * from bits 4.. of a literal, then 24 missing bits */
	regs.r[0] = 0x1005;
	static const uint8_t bits[] = { DW_OP_bit_piece, 1, 0, DW_OP_reg0, DW_OP_bit_piece, 3, 0,
		DW_OP_const1u, 0xf0, DW_OP_stack_value, DW_OP_bit_piece, 4, 4,
		DW_OP_bit_piece, 24, 0 };
	r = eval_ops(bits, sizeof bits, &regs, NULL, &loc, err);
	unit_check(r == 0 && loc.kind == DI_LOC_PIECES && loc.value_len == 4 &&
	      loc.value[0] == 0xfa && loc.unavail[0] == 0x01 && loc.unavail[1] == 0xff,
	      "eval DW_OP_bit_piece", "r=%d kind=%d v=%02x u=%02x %s", r, loc.kind,
	      loc.value[0], loc.unavail[0], err);
	regs.r[0] = 0x1000;

	static const uint8_t entry[] = { DW_OP_lit1, DW_OP_entry_value, 1, DW_OP_reg5,
		DW_OP_plus, DW_OP_stack_value };
	static const uint8_t pref[] = { DW_OP_GNU_parameter_ref, 1, 0, 0, 0, DW_OP_stack_value };
	int r1 = eval_ops(entry, sizeof entry, &regs, NULL, &loc, err);
	int k1 = loc.kind;
	int r2 = eval_ops(pref, sizeof pref, &regs, NULL, &loc, err);
	unit_check(r1 == 0 && k1 == DI_LOC_OPTIMIZED && r2 == 0 && loc.kind == DI_LOC_OPTIMIZED,
	      "eval entry_value/GNU_parameter_ref -> optimized out", "r1=%d r2=%d", r1, r2);

	/* 1 if 5 > 3 else 2, with bra/skip */
	static const uint8_t branch[] = { DW_OP_lit5, DW_OP_lit3, DW_OP_gt, DW_OP_bra, 4, 0,
		DW_OP_lit2, DW_OP_skip, 1, 0, DW_OP_lit1, DW_OP_stack_value };
	r = eval_ops(branch, sizeof branch, &regs, NULL, &loc, err);
	unit_check(r == 0 && value_of(&loc) == 1, "eval bra/skip", "r=%d v=%llu", r,
	      (unsigned long long)value_of(&loc));

	mem_base = 0x8000;
	memcpy(mem, "\x08\x80\0\0\0\0\0\0\xfe\xff", 10);
	static const uint8_t deref[] = { DW_OP_const2u, 0, 0x80, DW_OP_deref,
		DW_OP_deref_size, 2, DW_OP_stack_value };
	r = eval_ops(deref, sizeof deref, &regs, NULL, &loc, err);
	unit_check(r == 0 && value_of(&loc) == 0xfffe, "eval deref/deref_size", "r=%d v=0x%llx",
	      r, (unsigned long long)value_of(&loc));

	/* frame base DW_OP_breg6 16, as some producers emit */
	static const uint8_t fbx[] = { DW_OP_breg6, 16 };
	struct di_func f = { .name = "f", .frame_base = { .ops = fbx, .len = 2, .always = true } };
	static const uint8_t fbreg[] = { DW_OP_fbreg, 0x68 };   /* -24 */
	r = eval_ops(fbreg, sizeof fbreg, &regs, &f, &loc, err);
	unit_check(r == 0 && loc.kind == DI_LOC_MEM && loc.addr == regs.r[6] + 16 - 24,
	      "eval fbreg with a breg frame base", "r=%d", r);

	static const uint8_t cfa[] = { DW_OP_call_frame_cfa, DW_OP_lit8, DW_OP_minus };
	r = eval_ops(cfa, sizeof cfa, &regs, NULL, &loc, err);
	unit_check(r == 0 && loc.kind == DI_LOC_MEM && loc.addr == CFA - 8, "eval call_frame_cfa",
	      "r=%d", r);

	static const uint8_t bad[] = { DW_OP_lit1, 0xe9 };
	static const uint8_t under[] = { DW_OP_plus };
	static const uint8_t divz[] = { DW_OP_lit1, DW_OP_lit0, DW_OP_div };
	int e1 = eval_ops(bad, sizeof bad, &regs, NULL, &loc, err);
	int e2 = eval_ops(under, sizeof under, &regs, NULL, &loc, err);
	int e3 = eval_ops(divz, sizeof divz, &regs, NULL, &loc, err);
	unit_check(e1 == -1 && e2 == -1 && e3 == -1 && err[0], "eval errors: unknown op, underflow, /0",
	      "%d %d %d", e1, e2, e3);

	struct di_var cv = { .name = "c", .has_const = true, .const_value = -5 };
	struct di_ctx ctx = make_ctx(&regs, NULL, 0);
	int32_t c32 = 0;
	r = di_read_var(&cv, &ctx, (uint8_t *)&c32, 4, err, sizeof err);
	unit_check(r == 0 && c32 == -5, "DW_AT_const_value", "r=%d v=%d", r, c32);
	struct di_var none = { .name = "gone" };
	unit_check(di_read_var(&none, &ctx, (uint8_t *)&c32, 4, err, sizeof err) == 1,
	      "no location is optimized out", "not 1");
}

/* ---- types and scopes on a program written here ---- */

static const char types_src[] =
	"#include <stdio.h>\n"
	"struct opaque;\n"
	"typedef struct node node_t;\n"
	"struct node { node_t *next; const struct node *prev; int v; };\n"
	"struct bits { unsigned a : 3; int b : 5; unsigned char c; unsigned long d : 40; };\n"
	"union u { int i; float f; char c[4]; };\n"
	"enum color { RED, GREEN = 5, BLUE = -2 };\n"
	"enum big { BIGV = 200 };\n"
	"typedef int (*cmp_fn)(const void *, const void *, ...);\n"
	"struct holder { int arr[3][4]; char name[16]; struct { int x, y; };\n"
	"	cmp_fn fn; struct opaque *op; volatile double d; int flex[]; };\n"
	"int counter;\n"
	"struct holder h = { .name = \"hi\" };\n"
	"enum color col = GREEN;\n"
	"enum big bg = BIGV;\n"
	"struct bits bt = { 5, -3, 7, 123456789 };\n"
	"union u uu;\n"
	"int *restrict rp;\n"
	"static int file_static = 7;\n"
	"int shadow = 1;\n"
	"__attribute__((noinline)) int user(int k)\n"
	"{\n"
	"	static int calls;\n"
	"	extern int counter;\n"
	"	calls++;\n"
	"	counter += k;\n"
	"	{\n"
	"		int inner = k * 2;\n"
	"		{\n"
	"			int shadow = inner + file_static;\n"
	"			return shadow + calls;\n"
	"		}\n"
	"	}\n"
	"}\n"
	"__attribute__((noinline)) double fl(double d)\n"
	"{\n"
	"	double c = 1.5;\n"
	"	printf(\"%f\\n\", c * d);\n"
	"	return c * d;\n"
	"}\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"	int shadow = 2;\n"
	"	struct node n = { 0 };\n"
	"	(void)argv;\n"
	"	printf(\"%d %d\\n\", user(argc), shadow);\n"
	"	fl(argc);\n"
	"	return n.v + h.arr[0][0] + bt.a + uu.i + (rp != 0) + col + bg;\n"
	"}\n";

static char *build_types(const char *dir, const char *opt, int i)
{
	char *src = xasprintf("%s/types.c", dir);
	char *bin = xasprintf("%s/types%d", dir, i);
	FILE *f = fopen(src, "w");
	if (f) {
		fputs(types_src, f);
		fclose(f);
	}
	char *cmd = xasprintf("gcc -g %s -o %s %s", opt, bin, src);
	if (system(cmd))
		printf("# %s failed\n", cmd);
	free(cmd);
	free(src);
	return bin;
}

static const struct di_member *member(const struct di_type *t, const char *name)
{
	for (size_t i = 0; t && i < t->nmembers; i++)
		if (t->members[i].name && !strcmp(t->members[i].name, name))
			return &t->members[i];
	return NULL;
}

static void test_type_kinds(struct di_info *di)
{
	const struct di_type *node = di_type_named(di, "struct node");
	const struct di_type *nt = di_type_named(di, "node_t");
	const struct di_member *next = member(node, "next"), *prev = member(node, "prev");
	unit_check(node && nt && nt->kind == DI_TYPEDEF && nt->target == node && nt->size == 24 &&
	      next && next->type->kind == DI_PTR && next->type->target == nt && prev &&
	      prev->type->target->kind == DI_CONST && di_type_strip(prev->type->target) == node,
	      "typedef of a recursive struct, const member", "wrong");

	const struct di_type *b = di_type_named(di, "struct bits");
	const struct di_member *ba = member(b, "a"), *bb = member(b, "b"),
			       *bc = member(b, "c"), *bd = member(b, "d");
	unit_check(b && b->size == 8 && ba && ba->bit_size == 3 && ba->offset == 0 &&
	      ba->bit_offset == 0 && bb && bb->bit_size == 5 && bb->offset == 0 &&
	      bb->bit_offset == 3 && bc && !bc->bit_size && bc->offset == 1 && bd &&
	      bd->bit_size == 40 && bd->offset == 2 && bd->bit_offset == 0,
	      "bitfields (DW_AT_data_bit_offset)", "layout wrong");

	const struct di_type *u = di_type_named(di, "union u");
	const struct di_member *uc = member(u, "c");
	unit_check(u && u->kind == DI_UNION && u->size == 4 && u->nmembers == 3 && uc &&
	      uc->type->kind == DI_ARRAY && uc->type->ndims == 1 && uc->type->dims[0] == 4,
	      "union with an array member", "wrong");

	const struct di_type *e = di_type_named(di, "enum color");
	const struct di_type *big = di_type_named(di, "enum big");
	unit_check(e && e->kind == DI_ENUM && e->nenums == 3 && !strcmp(e->enums[1].name, "GREEN") &&
	      e->enums[1].value == 5 && e->enums[2].value == -2 && big && big->nenums == 1 &&
	      big->enums[0].value == 200, "enums signed and unsigned", "values wrong");

	const struct di_type *h = di_type_named(di, "struct holder");
	const struct di_member *arr = member(h, "arr"), *fn = member(h, "fn"),
			       *op = member(h, "op"), *flex = member(h, "flex"), *d = member(h, "d");
	const struct di_type *ft = fn ? di_type_strip(fn->type) : NULL;
	bool anon = false;
	for (size_t i = 0; h && i < h->nmembers; i++)
		anon |= !h->members[i].name && h->members[i].offset == 64 &&
			h->members[i].type->kind == DI_STRUCT && h->members[i].type->nmembers == 2;
	unit_check(h && h->size == 96 && arr && arr->type->ndims == 2 && arr->type->dims[0] == 3 &&
	      arr->type->dims[1] == 4 && arr->type->size == 48 && anon,
	      "2-d array and anonymous struct member", "wrong");
	unit_check(ft && ft->kind == DI_PTR && ft->target->kind == DI_FUNC &&
	      ft->target->nparams == 2 && ft->target->varargs &&
	      ft->target->target && !strcmp(ft->target->target->name, "int"),
	      "function pointer type", "wrong");
	unit_check(op && is_ptr_to(op->type, DI_STRUCT, "opaque") &&
	      di_type_strip(op->type)->target->declaration && flex && flex->offset == 96 &&
	      flex->type->dims[0] == 0 && d && d->type->kind == DI_VOLATILE && d->type->size == 8,
	      "incomplete struct, flexible array, volatile", "wrong");
	const struct di_var *rp = di_static_named(di, "rp", NULL);
	unit_check(rp && rp->type->kind == DI_PTR, "restrict is transparent", "wrong");
	unit_check(di_type_named(di, "unsigned") && !strcmp(di_type_named(di, "unsigned")->name,
							   "unsigned int") &&
	      di_type_named(di, "signed char") && !strcmp(di_type_named(di, "signed char")->name,
							    "signed char") &&
	      di_type_named(di, "char") && !strcmp(di_type_named(di, "char")->name, "char") &&
	      di_type_named(di, "cmp_fn") && di_type_named(di, "enum color") == e,
	      "di_type_named C spellings", "wrong");
	unit_check(di_type_strip(nt) == node && di_type_strip(d ? d->type : NULL)->kind == DI_BASE,
	      "di_type_strip", "wrong");
}

static void test_type_scopes(struct di_info *di, bool o0)
{
	const struct di_func *f = di_func_named(di, "user");
	const struct di_var *vs[16];
	size_t n = 0;
	for (size_t i = 0; f && i < f->body.nchildren; i++)
		for (size_t j = 0; j < f->body.children[i].nchildren; j++)
			n = di_vars_at(f, f->body.children[i].children[j].ranges[0].lo, vs, 16);
	const struct di_var *sh = find_var(vs, n, "shadow"), *calls = find_var(vs, n, "calls"),
			    *cnt = find_var(vs, n, "counter"), *g = di_static_named(di, "counter", NULL);
	unit_check(f && n == 5 && !strcmp(vs[0]->name, "shadow") && !strcmp(vs[1]->name, "inner") &&
	      !strcmp(vs[4]->name, "k") && sh && !sh->is_static && calls && calls->is_static &&
	      !calls->external && cnt && g && cnt->nlocs == 1 && cnt->locs == g->locs,
	      o0 ? "-O0 nested blocks, static local, extern local" :
		   "-O2 nested blocks, static local, extern local", "n=%zu", n);
	const struct di_var *fs = di_static_named(di, "file_static", NULL);
	unit_check(fs && !fs->external && di_static_named(di, "shadow", NULL) &&
	      di_static_named(di, "shadow", NULL)->external, o0 ? "-O0 file static" :
	      "-O2 file static", "wrong");
	if (o0)
		return;
	const struct di_func *fl = di_func_named(di, "fl");
	const struct di_var *c = NULL;
	for (size_t i = 0; fl && i < fl->body.nvars; i++)
		if (!strcmp(fl->body.vars[i].name, "c"))
			c = &fl->body.vars[i];
	struct di_regs regs = {0};
	struct di_ctx ctx = make_ctx(&regs, fl, fl ? fl->lo : 0);
	double dv = 0;
	char err[128] = "";
	int r = c ? di_read_var(c, &ctx, (uint8_t *)&dv, 8, err, sizeof err) : -1;
	unit_check(r == 0 && dv == 1.5, "-O2 DW_OP_implicit_value double", "r=%d v=%g %s", r, dv, err);
}

static void test_types(void)
{
	char dir[] = "/tmp/qz-test-dinfo-XXXXXX";
	if (!mkdtemp(dir)) {
		printf("FAIL types fixture: mkdtemp\n");
		return;
	}
	static const char *opts[] = { "-O0", "-O2", "-O0 -gdwarf-4",
				      "-O0 -gdwarf-2 -gstrict-dwarf" };
	for (size_t i = 0; i < ARRAY_LEN(opts); i++) {
		char *bin = build_types(dir, opts[i], (int)i);
		char err[256] = "";
		struct di_info *di = di_open(bin, err, sizeof err);
		char name[128];
		snprintf(name, sizeof name, "di_open types %s", opts[i]);
		unit_check(di != NULL, name, "%s", err);
		if (di) {
			test_type_kinds(di);
			test_type_scopes(di, i != 1);
		}
		di_close(di);
		unlink(bin);
		free(bin);
	}
	char *cmd = xasprintf("rm -rf %s", dir);
	if (system(cmd))
		printf("# cannot remove %s\n", dir);
	free(cmd);
}

/* ---- files that are not what we want ---- */

static void test_bad_files(void)
{
	char err[256] = "";
	if (access("tests/build/basic-nog", R_OK) &&
	    system("gcc -O0 -o tests/build/basic-nog tests/fixtures/basic.c"))
		printf("# cannot build tests/build/basic-nog\n");
	struct di_info *di = di_open("tests/build/basic-nog", err, sizeof err);
	size_t n = 1;
	unit_check(di && (di_funcs(di, &n), n == 0) && !di_func_at(di, 0x1139) &&
	      !di_func_named(di, "main") && !di_static_named(di, "counter", NULL) &&
	      !di_type_named(di, "int") && di_type_named(di, "void"),
	      "di_open without -g is empty and usable", "di=%p err=%s", (void *)di, err);
	di_close(di);

	err[0] = 0;
	di = di_open("tests/fixtures/basic.c", err, sizeof err);
	unit_check(!di && strstr(err, "not an ELF"), "di_open non-ELF", "err=%s", err);
	di_close(di);
	err[0] = 0;
	di = di_open("tests/build/does-not-exist", err, sizeof err);
	unit_check(!di && strstr(err, "No such file"), "di_open missing file", "err=%s", err);
}

static void test_all_fixtures(void)
{
	static const char *fixtures[] = { "crash", "loop", "io", "sig" };
	for (size_t i = 0; i < ARRAY_LEN(fixtures); i++) {
		for (int o = 0; o < 2; o++) {
			char *bin = xasprintf("tests/build/%s-O%d", fixtures[i], o ? 2 : 0);
			char err[256] = "", name[128];
			struct di_info *di = di_open(bin, err, sizeof err);
			const struct di_func *m = di ? di_func_named(di, "main") : NULL;
			snprintf(name, sizeof name, "di_open %s: main at nm address", bin);
			unit_check(m && m->lo == nm_addr(bin, "main") && di_func_at(di, m->lo) == m,
			      name, "%s", err);
			di_close(di);
			free(bin);
		}
	}
}

int main(void)
{
	test_basic_O0();
	test_basic_O2();
	test_inline_basic_O0();
	test_inline_fixture();
	test_lazy();
	test_eval();
	test_types();
	test_bad_files();
	test_all_fixtures();
	return 0;
}
