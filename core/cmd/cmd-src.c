/* cmd-src: source listing, line information and disassembly. */
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cmds.h"
#include "dinfo/disasm.h"
#include "target/frame.h"
#include "target/loc.h"
#include "target/session.h"
#include "dinfo/source.h"

static int cmd_list_range(struct qz *q, const char *file, int first, int last)
{
	int n = src_count(file);
	if (n < 0) {
		const char *why;
		src_line(file, 1, &why);
		return qz_error(q, "%s: %s.", frame_file_name(q, file), why ? why : "cannot read");
	}
	if (first < 1)
		first = 1;
	if (first > n)
		return qz_error(q, "Line number %d out of range; \"%s\" has %d lines.",
				first, frame_file_name(q, file), n);
	if (last > n)
		last = n;
	struct sbuf b = {0};
	for (int i = first; i <= last; i++)
		sbuf_printf(&b, "%d\t%s\n", i, src_line(file, i, NULL));
	qz_puts(q, b.s ? b.s : "");
	sbuf_free(&b);
	q->list_file = file;
	q->list_first = first;
	q->list_last = last;
	return 0;
}

/* Where `list` centres when nothing was listed yet: the stop, or as gdb a
 * screen (listsize - 1 lines) above main's first line. */
static int cmd_list_default(struct qz *q, const char **file, int *line)
{
	if (q->list_file && q->list_line) {
		*file = q->list_file;
		*line = q->list_line;
		return 0;
	}
	struct loc_addr *l;
	size_t n;
	if (loc_resolve(q, "main", &l, &n) < 0 || !l[0].file) {
		if (n)
			free(l);
		return qz_error(q, "No symbol table is loaded.  Use the \"file\" command.");
	}
	*file = l[0].file;
	*line = l[0].line > q->listsize - 1 ? l[0].line - (q->listsize - 1) : 1;
	free(l);
	return 0;
}

static bool cmd_all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* LINE or FILE:LINE name source lines, code or not: list shows them as
 * they are. Returns 1 if spec is not of that form. */
static int cmd_list_literal(struct qz *q, const char *spec, const char **file, int *line)
{
	const char *colon = strrchr(spec, ':');
	const char *num = colon ? colon + 1 : spec;
	if (!cmd_all_digits(num))
		return 1;
	int64_t v;
	if (str_num_all(num, 0, INT32_MAX, &v))
		return qz_error(q, "Line number %.40s out of range.", num);
	*line = (int)v;
	if (!colon) {
		int ignored;
		return cmd_list_default(q, file, &ignored) < 0 ? -1 : 0;
	}
	char *name = xstrndup(spec, (size_t)(colon - spec));
	*file = q->exe.lines ? lines_file(q->exe.lines, name) : NULL;
	int r = *file ? 0 : qz_error(q, "No source file named %s.", name);
	free(name);
	return r;
}

/* The line a location names, for list: a function's opening line. */
static int cmd_list_loc(struct qz *q, const char *spec, const char **file, int *line)
{
	struct loc_addr *l;
	size_t n;
	int lit = cmd_list_literal(q, spec, file, line);
	if (lit <= 0)
		return lit;
	if (loc_resolve_ex(q, spec, false, &l, &n) < 0)
		return -1;
	struct qz_module *m = l[0].mod;
	const struct di_func *f = m && qz_mod_di(q, m) ? di_func_at(m->di, l[0].link_addr) : NULL;
	*file = l[0].file;
	*line = l[0].line;
	bool is_func = spec[0] != '*' && !strchr(spec, ':') && !(spec[0] >= '0' && spec[0] <= '9');
	if (f && is_func) {
		const struct lines_row *fr = lines_at(m->lines, f->lo);
		if (fr) {
			*file = fr->file;
			*line = fr->line;
		}
	}
	free(l);
	if (!*file)
		return qz_error(q, "No line number information available for address %s", spec);
	return 0;
}

int cmd_list(struct qz *q, const char *a)
{
	const char *file = NULL;
	int line = 0, size = q->listsize;
	/* The first list since a stop centres on it, `list -` too (gdb's
	 * list_command when get_first_line_listed () is 0). */
	if (!*a || (!strcmp(a, "-") && !q->list_last)) {
		if (*a != '-' && q->list_last && q->list_file)
			return cmd_list_range(q, q->list_file, q->list_last + 1, q->list_last + size);
		if (cmd_list_default(q, &file, &line) < 0)
			return -1;
		return cmd_list_range(q, file, line - size / 2, line - size / 2 + size - 1);
	}
	if (!strcmp(a, "-")) {
		if (!q->list_file || q->list_first <= 1)
			return qz_error(q, "Already at the start of %s.",
					q->list_file ? frame_file_name(q, q->list_file) : "the file");
		int last = q->list_first - 1;
		return cmd_list_range(q, q->list_file, last - size + 1, last);
	}
	const char *comma = strchr(a, ',');
	if (comma) {
		char *lhs = xstrndup(a, (size_t)(comma - a));
		const char *rhs = str_skip_space(comma + 1);
		int l1, l2;
		const char *f1, *f2;
		int r = cmd_list_loc(q, lhs, &f1, &l1);
		free(lhs);
		if (r < 0)
			return -1;
		if (!*rhs)
			return cmd_list_range(q, f1, l1, l1 + size - 1);
		const char *save = q->list_file;
		q->list_file = f1;
		r = cmd_list_loc(q, rhs, &f2, &l2);
		q->list_file = save;
		return r < 0 ? -1 : cmd_list_range(q, f1, l1, l2);
	}
	if (cmd_list_loc(q, a, &file, &line) < 0)
		return -1;
	return cmd_list_range(q, file, line - size / 2, line - size / 2 + size - 1);
}

static void cmd_sym_suffix(struct qz *q, uint64_t addr, struct sbuf *b)
{
	char sym[256];
	if (qz_symbolize(q, addr, sym, sizeof sym))
		sbuf_printf(b, " <%s>", sym);
}

static int cmd_info_line_at(struct qz *q, struct qz_module *m, uint64_t link, int want_line)
{
	const struct lines_row *r = qz_mod_lines(q, m) ? lines_at(m->lines, link) : NULL;
	struct sbuf b = {0};
	if (!r) {
		sbuf_printf(&b, "No line number information available for address 0x%llx",
			    (unsigned long long)(link + m->bias));
		cmd_sym_suffix(q, link + m->bias, &b);
		sbuf_addc(&b, '\n');
	} else if (want_line && r->line != want_line) {
		sbuf_printf(&b, "Line %d of \"%s\" is at address 0x%llx", want_line,
			    frame_file_name(q, r->file), (unsigned long long)(link + m->bias));
		cmd_sym_suffix(q, link + m->bias, &b);
		sbuf_add(&b, " but contains no code.\n");
	} else {
		uint64_t s = r->addr + m->bias, e = r->end + m->bias;
		sbuf_printf(&b, "Line %d of \"%s\"", r->line, frame_file_name(q, r->file));
		if (s != link + m->bias) {
			sbuf_printf(&b, " starts at address 0x%llx", (unsigned long long)s);
			cmd_sym_suffix(q, s, &b);
			sbuf_printf(&b, " and ends at 0x%llx", (unsigned long long)e);
		} else {
			sbuf_printf(&b, " starts at address 0x%llx", (unsigned long long)s);
			cmd_sym_suffix(q, s, &b);
			sbuf_printf(&b, " and ends at 0x%llx", (unsigned long long)e);
		}
		cmd_sym_suffix(q, e, &b);
		sbuf_add(&b, ".\n");
	}
	qz_puts(q, b.s);
	sbuf_free(&b);
	return 0;
}

/* Of a header's line in several units, the copy in the selected frame's
 * unit (gdb looks the line up in the current symtab). */
static size_t cmd_info_line_pick(struct qz *q, const struct loc_addr *l, size_t n)
{
	const struct frame *f = qz_running(q) ? frame_get(q, q->sel_frame) : NULL;
	if (!f || !f->func || n < 2)
		return 0;
	for (size_t i = 0; i < n; i++) {
		const struct di_func *g = l[i].mod && qz_mod_di(q, l[i].mod) ?
			di_func_at(l[i].mod->di, l[i].absolute ? l[i].addr - l[i].mod->bias : l[i].link_addr) : NULL;
		if (g && g->cu_name && f->func->cu_name && !strcmp(g->cu_name, f->func->cu_name))
			return i;
	}
	return 0;
}

static int cmd_info_line_one(struct qz *q, struct qz_module *m, uint64_t link, int want,
			     const char *a);

/* A bare `info line` shows gdb's last_line_listed: the line of the last
 * stop or frame shown, the first of the last listing, or the one after
 * the last `info line`. */
static int cmd_info_line_default(struct qz *q)
{
	const char *file = q->list_file;
	int line = q->list_first ? q->list_first : q->list_line;
	if (!file)   /* nothing listed, stopped at or named: gdb has no line */
		return qz_error(q, "No line number information available.");
	if (q->info_line_next && q->info_line_file == q->list_file &&
	    q->info_line_at[0] == q->list_line && q->info_line_at[1] == q->list_first)
		line = q->info_line_next;
	if (!line && cmd_list_default(q, &file, &line) < 0)   /* nothing shown yet */
		return -1;
	char *spec = xasprintf("%s:%d", file, line);
	struct loc_addr *l;
	size_t n;
	int r = loc_resolve_ex(q, spec, false, &l, &n);
	if (r == 0) {
		size_t i = cmd_info_line_pick(q, l, n);
		struct qz_module *m = l[i].mod;
		r = cmd_info_line_one(q, m, l[i].absolute && m ? l[i].addr - m->bias : l[i].link_addr,
				      line, spec);
		free(l);
	}
	free(spec);
	return r;
}

/* Repeating `info line` shows the following line, as gdb. */
static void cmd_info_line_then(struct qz *q, int line)
{
	q->info_line_next = line + 1;
	q->info_line_file = q->list_file;
	q->info_line_at[0] = q->list_line;
	q->info_line_at[1] = q->list_first;
}

static int cmd_info_line_one(struct qz *q, struct qz_module *m, uint64_t link, int want,
			     const char *a)
{
	if (!m)
		return qz_error(q, "No line number information available for address %s", a);
	const struct lines_row *r = qz_mod_lines(q, m) ? lines_at(m->lines, link) : NULL;
	if (r || want)
		cmd_info_line_then(q, want ? want : r->line);
	return cmd_info_line_at(q, m, link, want);
}

int cmd_info_line(struct qz *q, const char *a)
{
	if (!*a)
		return cmd_info_line_default(q);
	struct loc_addr *l;
	size_t n;
	if (loc_resolve_ex(q, a, false, &l, &n) < 0)
		return -1;
	int want = 0;
	const char *colon = strrchr(a, ':');
	const char *num = colon ? colon + 1 : a;
	int64_t v;
	if (*a != '*' && *num >= '0' && *num <= '9' && str_num_all(num, 0, INT32_MAX, &v) == 0)
		want = (int)v;
	int r = 0;
	/* FUNC: each function of that name (a static one per unit), as gdb;
	 * a line or an address: its first location */
	for (size_t i = 0; i < n && r == 0; i++) {
		struct qz_module *m = l[i].mod;
		uint64_t link = l[i].absolute && m ? l[i].addr - m->bias : l[i].link_addr;
		const struct di_func *f = m && !want && *a != '*' && qz_mod_di(q, m) ?
			di_func_at(m->di, link) : NULL;
		if (i > 0 && !f)
			break;
		if (f)
			link = f->lo;   /* info line FUNC: the function's first line */
		r = cmd_info_line_one(q, m, link, want, a);
	}
	free(l);
	return r;
}

int cmd_info_source(struct qz *q, const char *a)
{
	(void)a;
	const char *file = q->list_file;
	if (!file)
		return qz_puts(q, "No current source file.\n"), 0;
	const char *shown = frame_file_name(q, file);
	size_t fl = strlen(file), sl = strlen(shown);
	qz_printf(q, "Current source file is %s\n", shown);
	if (shown != file && fl > sl + 1)
		qz_printf(q, "Compilation directory is %.*s\n", (int)(fl - sl - 1), file);
	qz_printf(q, "Located in %s\n", file);
	int n = src_count(file);
	if (n >= 0)
		qz_printf(q, "Contains %d lines.\n", n);
	qz_puts(q, "Source language is c.\n");
	return 0;
}

static void cmd_dis_range(struct qz *q, uint64_t lo, uint64_t hi, uint64_t func,
			  bool raw, struct sbuf *b)
{
	uint64_t pc = qz_running(q) ? frame_get(q, q->sel_frame)->pc : 0;
	uint64_t a = lo;
	while (a < hi) {
		uint8_t buf[16];
		struct dis_insn in;
		size_t n = sizeof buf;
		while (n > 1 && qz_read(q, a, buf, n) < 0)
			n--;   /* the last instructions of a section */
		if (qz_read(q, a, buf, n) < 0 || !dis_decode(buf, n, a, &in)) {
			sbuf_printf(b, "   0x%016llx:\t(bad)\n", (unsigned long long)a);
			a++;
			continue;
		}
		sbuf_printf(b, "%s0x%016llx", a == pc ? "=> " : "   ", (unsigned long long)a);
		if (func)
			sbuf_printf(b, " <+%llu>", (unsigned long long)(a - func));
		sbuf_add(b, ":\t");
		for (size_t i = 0; raw && i < in.len; i++)
			sbuf_printf(b, "%02x%s", buf[i], i + 1 < in.len ? " " : "\t");
		if (in.operands[0])
			sbuf_printf(b, "%-6s %s", in.mnemonic, in.operands);
		else
			sbuf_add(b, in.mnemonic);
		if (in.has_target)
			cmd_sym_suffix(q, in.target, b);
		if (in.rip_relative) {   /* gdb's comment with the address */
			sbuf_printf(b, "        # 0x%llx", (unsigned long long)in.rip_target);
			cmd_sym_suffix(q, in.rip_target, b);
		}
		sbuf_addc(b, '\n');
		a += in.len;
	}
}

/* The function around addr: [lo, hi) and its name. */
static bool cmd_func_bounds(struct qz *q, uint64_t addr, uint64_t *lo, uint64_t *hi,
			    const char **name)
{
	struct qz_module *m = qz_module_at(q, addr);
	if (!m)
		return false;
	const struct di_func *f = qz_mod_di(q, m) ? di_func_at(m->di, addr - m->bias) : NULL;
	if (f) {
		*lo = f->lo + m->bias;
		*hi = f->hi + m->bias;
		*name = f->name;
		return true;
	}
	uint64_t off;
	const struct img_sym *s = m->img ? img_sym_at(m->img, addr - m->bias, &off) : NULL;
	if (!s || !s->size)
		return false;
	*lo = s->addr + m->bias;
	*hi = *lo + s->size;
	*name = s->name;
	return true;
}

int cmd_disassemble(struct qz *q, const char *a)
{
	bool raw = false;
	while (*a == '/') {
		raw |= strchr(a, 'r') != NULL;
		a = str_skip_space(a + strcspn(a, " \t"));
	}
	uint64_t lo, hi, addr;
	const char *name = NULL;
	if (!*a) {
		const struct frame *f = frame_get(q, q->sel_frame);
		if (!f)
			return qz_error(q, "No frame selected.");
		addr = f->pc;
	} else {
		struct loc_addr *l;
		size_t n;
		char *spec = xasprintf("%s%s", (*a >= '0' && *a <= '9') ? "*" : "", a);
		const char *comma = strchr(spec, ',');
		if (comma) {
			/* START,END or START,+LENGTH */
			uint64_t s, e;
			char *lhs = xstrndup(spec + (*spec == '*'), (size_t)(comma - spec - (*spec == '*')));
			const char *rhs = str_skip_space(comma + 1);
			bool ok = str_to_u64(lhs, &s) &&
				  str_to_u64(*rhs == '+' ? rhs + 1 : rhs, &e);
			free(lhs);
			free(spec);
			if (!ok)
				return qz_error(q, "Invalid address range \"%s\".", a);
			if (*rhs == '+')
				e += s;
			struct sbuf b = {0};
			sbuf_add(&b, "Dump of assembler code from ");
			sbuf_printf(&b, "0x%llx to 0x%llx:\n", (unsigned long long)s, (unsigned long long)e);
			cmd_dis_range(q, s, e, 0, raw, &b);
			sbuf_add(&b, "End of assembler dump.\n");
			qz_puts(q, b.s);
			sbuf_free(&b);
			return 0;
		}
		int r = loc_resolve(q, spec, &l, &n);
		if (r < 0) {
			free(spec);
			return -1;
		}
		addr = l[0].addr;
		const struct di_func *named = q->exe.di ? di_func_named(q->exe.di, spec) : NULL;
		if (named) {   /* the out-of-line function, not an inlined call */
			addr = named->lo + q->exe.bias;
		} else if (spec[0] != '*') {
			struct qz_module *m = l[0].mod;
			const struct di_func *f = m && qz_mod_di(q, m) ? di_func_at(m->di, l[0].link_addr) : NULL;
			if (f)
				addr = f->lo + m->bias;
		}
		free(spec);
		free(l);
	}
	if (!cmd_func_bounds(q, addr, &lo, &hi, &name))
		return qz_error(q, "No function contains specified address.");
	struct sbuf b = {0};
	sbuf_printf(&b, "Dump of assembler code for function %s:\n", name);
	cmd_dis_range(q, lo, hi, lo, raw, &b);
	sbuf_add(&b, "End of assembler dump.\n");
	qz_puts(q, b.s);
	sbuf_free(&b);
	return 0;
}
