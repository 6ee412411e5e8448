/* test_unwind: core/unwind checked against `readelf -wF` (the decoded CFI
 * table) for every row of the fixtures and of the system libc, against
 * hand-made frames (function entry, -O0 body, PLT expression rules), and
 * live: a signal frame through libc's __restore_rt and a whole backtrace of
 * this process compared with glibc's backtrace(). */
#define _GNU_SOURCE
#include "dinfo/unwind.h"
#include "util/util.h"
#include "unit.h"

#include <execinfo.h>
#include <link.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ucontext.h>
#include <time.h>
#include <unistd.h>

#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"
#define MAXCOLS 24

static const char *const regnames[DI_NREGS] = {
	"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "ra",
};

static void check(const char *name, bool ok, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	unit_vcheck(ok, name, fmt, ap);
	va_end(ap);
}

static struct unw *open_ok(const char *path)
{
	char err[256] = "";
	struct unw *u = unw_open(path, err, sizeof(err));
	char *name = xasprintf("unwind open %s", path);
	check(name, u != NULL, "%s", err);
	free(name);
	return u;
}

/* ---- fake memory: every address holds a value derived from it ---- */

static uint64_t mem_value(uint64_t addr)
{
	return (addr * 0x9e3779b97f4a7c15ull) ^ 0x5a5a5a5a5a5a5a5aull;
}

static int fake_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	(void)arg;
	uint64_t v = mem_value(addr);
	memset(buf, 0, len);
	memcpy(buf, &v, len < 8 ? len : 8);
	return 0;
}

/* ---- readelf -wF oracle ---- */

struct row {
	uint64_t loc;
	char cfa[32];
	char val[MAXCOLS][24];
};

struct table {
	uint64_t off, cie, lo, hi;
	bool is_cie;
	int ncols;
	int colreg[MAXCOLS];  /* DWARF number of each column, -1 if other */
	struct row *rows;
	size_t nrows, cap;
};

struct cfi {
	struct table *v;
	size_t n, cap;
};

static int reg_by_name(const char *s)
{
	for (int i = 0; i < DI_NREGS; i++)
		if (strcmp(regnames[i], s) == 0)
			return i;
	return -1;
}

static void parse_header(struct table *t, char *line)
{
	t->ncols = 0;
	strtok(line, " ");            /* LOC */
	strtok(NULL, " ");            /* CFA */
	for (char *w = strtok(NULL, " "); w && t->ncols < MAXCOLS; w = strtok(NULL, " "))
		t->colreg[t->ncols++] = reg_by_name(w);
}

/* Register rules print as two words, "r9 (r9)": keep them as one value. */
static void parse_row(struct table *t, char *line)
{
	struct row r = {0};
	char *w = strtok(line, " ");
	r.loc = strtoull(w, NULL, 16);
	w = strtok(NULL, " ");
	snprintf(r.cfa, sizeof(r.cfa), "%s", w ? w : "");
	for (int c = 0; c < t->ncols && (w = strtok(NULL, " ")); c++) {
		snprintf(r.val[c], sizeof(r.val[c]), "%s", w);
		if (w[0] == 'r' && w[1] >= '0' && w[1] <= '9')
			strtok(NULL, " ");
	}
	XGROW(t->rows, t->cap, t->nrows + 1);
	t->rows[t->nrows++] = r;
}

static struct table *new_table(struct cfi *c)
{
	XGROW(c->v, c->cap, c->n + 1);
	struct table *t = &c->v[c->n++];
	memset(t, 0, sizeof(*t));
	return t;
}

static void parse_readelf(struct cfi *c, const char *path)
{
	char *out = unit_run("readelf -wF '%s' 2>/dev/null", path);
	struct table *t = NULL;
	char *save = NULL;
	for (char *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long off, lo, hi, cie;
		if (strstr(line, " CIE ")) {
			t = new_table(c);
			t->is_cie = true;
			t->off = strtoull(line, NULL, 16);
		} else if (sscanf(line, "%llx %*x %*x FDE cie=%llx pc=%llx..%llx",
				  &off, &cie, &lo, &hi) == 4) {
			t = new_table(c);
			*t = (struct table){.off = off, .cie = cie, .lo = lo, .hi = hi};
		} else if (t && strstr(line, "LOC") && strstr(line, "CFA")) {
			parse_header(t, line);
		} else if (t && strlen(line) > 17 && line[16] == ' ') {
			parse_row(t, line);
		}
	}
	free(out);
}

static const struct table *find_cie(const struct cfi *c, uint64_t off)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].is_cie && c->v[i].off == off)
			return &c->v[i];
	return NULL;
}

/* ---- expected registers from one readelf row ---- */

struct expect {
	bool skip;            /* an expression rule: not modelled here */
	uint64_t cfa;
	bool valid[DI_NREGS];
	uint64_t r[DI_NREGS];
	bool known[DI_NREGS]; /* false: do not compare (expression rule) */
};

static void fill_regs(struct di_regs *regs, uint64_t pc)
{
	for (int i = 0; i < DI_NREGS; i++) {
		regs->r[i] = 0x7ffd00000000ull + (uint64_t)i * 0x1010;
		regs->valid[i] = true;
	}
	regs->r[DI_REG_RIP] = pc;
}

static bool callee_saved(int reg)
{
	return reg == 3 || reg == 6 || (reg >= 12 && reg <= 15);
}

static bool parse_cfa(const char *s, const struct di_regs *regs, uint64_t *cfa)
{
	char name[16];
	long long off;
	if (sscanf(s, "%15[a-z0-9]%lld", name, &off) != 2 || reg_by_name(name) < 0)
		return false;
	*cfa = regs->r[reg_by_name(name)] + (uint64_t)off;
	return true;
}

static void expect_col(struct expect *e, int reg, const char *v,
		       const struct di_regs *regs)
{
	long long off;
	unsigned n;
	if (strcmp(v, "u") == 0) {
		/* Unset (or undefined): the defaults apply. */
		return;
	} else if (strcmp(v, "s") == 0) {
		e->valid[reg] = true;
		e->r[reg] = regs->r[reg];
	} else if (v[0] == 'c' && sscanf(v + 1, "%lld", &off) == 1) {
		e->valid[reg] = true;
		e->r[reg] = mem_value(e->cfa + (uint64_t)off);
	} else if (v[0] == 'v' && sscanf(v + 1, "%lld", &off) == 1) {
		e->valid[reg] = true;
		e->r[reg] = e->cfa + (uint64_t)off;
	} else if (sscanf(v, "r%u", &n) == 1 && n < DI_NREGS) {
		e->valid[reg] = true;
		e->r[reg] = regs->r[n];
	} else {
		e->known[reg] = false;
	}
}

static void expect_row(struct expect *e, const struct table *t,
		       const struct row *r, const struct di_regs *regs)
{
	memset(e, 0, sizeof(*e));
	if (!parse_cfa(r->cfa, regs, &e->cfa)) {
		e->skip = true;
		return;
	}
	for (int i = 0; i < DI_NREGS; i++) {
		e->known[i] = true;
		e->valid[i] = callee_saved(i) || i == DI_REG_RSP;
		e->r[i] = i == DI_REG_RSP ? e->cfa : regs->r[i];
		if (!e->valid[i])
			e->r[i] = 0;
	}
	e->valid[DI_REG_RIP] = false;
	for (int c = 0; c < t->ncols; c++)
		if (t->colreg[c] >= 0)
			expect_col(e, t->colreg[c], r->val[c], regs);
}

/* "" when the step matches, else what differs. */
static const char *compare(const struct expect *e, int rc, uint64_t cfa,
			   const struct di_regs *got)
{
	static char why[200];
	if (rc != 0)
		return "step failed";
	if (cfa != e->cfa) {
		snprintf(why, sizeof(why), "cfa %llx want %llx",
			 (unsigned long long)cfa, (unsigned long long)e->cfa);
		return why;
	}
	for (int i = 0; i < DI_NREGS; i++) {
		if (!e->known[i])
			continue;
		if (got->valid[i] != e->valid[i] || (e->valid[i] && got->r[i] != e->r[i])) {
			snprintf(why, sizeof(why), "%s valid %d %llx want %d %llx",
				 regnames[i], got->valid[i], (unsigned long long)got->r[i],
				 e->valid[i], (unsigned long long)e->r[i]);
			return why;
		}
	}
	return "";
}

struct tally {
	size_t n, bad, skipped;
	char first[400];
};

static void tally_one(struct tally *t, const char *why, uint64_t pc, const char *what)
{
	t->n++;
	if (!*why)
		return;
	if (!t->bad++)
		snprintf(t->first, sizeof(t->first), "%s at %llx: %s", what,
			 (unsigned long long)pc, why);
}

/* Step at link-time pc (loaded at bias) as the given frame kind. */
static void step_at(struct tally *t, const struct unw *u, uint64_t bias,
		    const struct table *tab, const struct row *row, uint64_t pc,
		    uint64_t regs_pc, bool innermost, const char *what)
{
	struct di_regs regs, caller;
	struct expect e;
	uint64_t cfa = 0;
	fill_regs(&regs, regs_pc + bias);
	expect_row(&e, tab, row, &regs);
	if (e.skip) {
		t->skipped++;
		return;
	}
	int rc = unw_step_ex(u, bias, &regs, innermost, fake_read, NULL, &caller, &cfa, NULL);
	tally_one(t, compare(&e, rc, cfa, &caller), pc, what);
}

/* Every row of every FDE: at its first and last byte as the innermost
 * frame, and one byte in as an outer frame (looked up at pc - 1). */
static void check_table(struct tally *t, const struct unw *u, uint64_t bias,
			const struct cfi *c, const struct table *f)
{
	const struct table *tab = f;
	struct row first;
	if (!f->nrows) {
		/* No instructions of its own: the CIE's initial row. */
		tab = find_cie(c, f->cie);
		if (!tab || !tab->nrows)
			return;
		first = tab->rows[tab->nrows - 1];
	}
	size_t nrows = f->nrows ? f->nrows : 1;
	for (size_t i = 0; i < nrows; i++) {
		const struct row *r = f->nrows ? &f->rows[i] : &first;
		uint64_t lo = f->nrows ? r->loc : f->lo;
		uint64_t hi = i + 1 < nrows ? f->rows[i + 1].loc : f->hi;
		step_at(t, u, bias, tab, r, lo, lo, true, "first byte");
		step_at(t, u, bias, tab, r, hi - 1, hi - 1, true, "last byte");
		if (lo + 1 < hi)
			step_at(t, u, bias, tab, r, lo, lo + 1, false, "outer frame");
		/* A return address just past the function (noreturn call). */
		if (i + 1 == nrows)
			step_at(t, u, bias, tab, r, hi - 1, hi, false, "return past end");
	}
}

static void check_readelf(const char *tag, const char *path, uint64_t bias)
{
	struct cfi c = {0};
	parse_readelf(&c, path);
	struct unw *u = open_ok(path);
	struct tally t = {0};
	for (size_t i = 0; u && i < c.n; i++)
		if (!c.v[i].is_cie)
			check_table(&t, u, bias, &c, &c.v[i]);
	char *name = xasprintf("unwind rows vs readelf %s", tag);
	check(name, u && t.n > 0 && t.bad == 0, "%zu of %zu steps wrong (%zu skipped), first %s",
	      t.bad, t.n, t.skipped, t.first);
	if (getenv("UNWIND_VERBOSE"))
		printf("  %s: %zu steps, %zu skipped\n", tag, t.n, t.skipped);
	free(name);
	/* Past the last byte of the last FDE there is no CFI. */
	uint64_t end = 0;
	for (size_t i = 0; i < c.n; i++)
		if (!c.v[i].is_cie && c.v[i].hi > end)
			end = c.v[i].hi;
	struct di_regs regs, caller;
	uint64_t cfa;
	fill_regs(&regs, end + bias);
	name = xasprintf("unwind no cfi past the end %s", tag);
	check(name, u && unw_step(u, bias, &regs, fake_read, NULL, &caller, &cfa) == -1,
	      "step succeeded at %llx", (unsigned long long)end);
	free(name);
	unw_close(u);
	for (size_t i = 0; i < c.n; i++)
		free(c.v[i].rows);
	free(c.v);
}

/* ---- hand-made frames ---- */

static uint64_t sym_addr(const char *path, const char *sym)
{
	char *out = unit_run("nm '%s' | awk '$3 == \"%s\" {print $1}'", path, sym);
	uint64_t v = strtoull(out, NULL, 16);
	free(out);
	return v;
}

/* Address of the instruction after the first one matching pattern in
 * objdump's listing of function sym. */
static uint64_t insn_after(const char *path, const char *sym, const char *pattern)
{
	char *out = unit_run("objdump -d --no-show-raw-insn '%s' | awk '/^[0-9a-f]+ <%s>:/ {f=1; next} "
			"f && /^$/ {exit} f && hit {print $1; exit} f && /%s/ {hit=1}'",
			path, sym, pattern);
	uint64_t v = strtoull(out, NULL, 16);
	free(out);
	return v;
}

#define STACK 0x7ffe0000f000ull

struct fake_stack {
	uint64_t base;
	uint64_t words[64];
};

static int stack_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	const struct fake_stack *s = arg;
	if (addr < s->base || addr + len > s->base + sizeof(s->words))
		return -1;
	memcpy(buf, (const char *)s->words + (addr - s->base), len);
	return 0;
}

static void test_entry_and_body(const char *path)
{
	struct unw *u = open_ok(path);
	uint64_t bias = 0x555555554000ull;
	uint64_t fact = sym_addr(path, "fact");
	struct fake_stack st = {.base = STACK};
	struct di_regs regs = {0}, caller;
	uint64_t cfa = 0;
	if (!u || !fact) {
		check("unwind entry setup", false, "no fact in %s", path);
		unw_close(u);
		return;
	}
	/* At the entry: rsp points at the return address. */
	st.words[4] = 0x555555555321ull;
	regs.r[DI_REG_RIP] = fact + bias;
	regs.r[DI_REG_RSP] = STACK + 4 * 8;
	regs.r[3] = 0x1111;
	regs.r[DI_REG_RBP] = 0x2222;
	regs.r[0] = 0x3333;
	regs.valid[DI_REG_RIP] = regs.valid[DI_REG_RSP] = regs.valid[3] = true;
	regs.valid[DI_REG_RBP] = regs.valid[0] = true;
	int rc = unw_step(u, bias, &regs, stack_read, &st, &caller, &cfa);
	check("unwind at function entry", rc == 0 && cfa == STACK + 40 &&
	      caller.r[DI_REG_RIP] == st.words[4] && caller.valid[DI_REG_RIP] &&
	      caller.r[DI_REG_RSP] == STACK + 40 && caller.r[3] == 0x1111 &&
	      caller.r[DI_REG_RBP] == 0x2222 && !caller.valid[0],
	      "rc %d cfa %llx rip %llx", rc, (unsigned long long)cfa,
	      (unsigned long long)caller.r[DI_REG_RIP]);
	uint64_t c2;
	check("unwind cfa at function entry",
	      unw_cfa(u, bias, &regs, stack_read, &st, &c2) == 0 && c2 == STACK + 40,
	      "cfa %llx", (unsigned long long)c2);

	/* In the body after push %rbp; mov %rsp,%rbp: CFA = rbp + 16. */
	uint64_t body = insn_after(path, "fact", "mov +%rsp,%rbp");
	st.words[10] = 0xabcdef;              /* saved rbp at CFA - 16 */
	st.words[11] = 0x555555555400ull;     /* return address at CFA - 8 */
	regs.r[DI_REG_RIP] = body + bias;
	regs.r[DI_REG_RBP] = STACK + 10 * 8;
	regs.r[DI_REG_RSP] = STACK + 6 * 8;
	rc = unw_step(u, bias, &regs, stack_read, &st, &caller, &cfa);
	check("unwind in -O0 body", body && rc == 0 && cfa == STACK + 96 &&
	      caller.r[DI_REG_RBP] == 0xabcdef && caller.r[DI_REG_RIP] == 0x555555555400ull &&
	      caller.r[DI_REG_RSP] == STACK + 96 && caller.r[3] == 0x1111,
	      "body %llx rc %d cfa %llx rbp %llx", (unsigned long long)body, rc,
	      (unsigned long long)cfa, (unsigned long long)caller.r[DI_REG_RBP]);

	/* A needed register unknown: no guess. */
	regs.valid[DI_REG_RBP] = false;
	check("unwind unknown cfa register",
	      unw_step(u, bias, &regs, stack_read, &st, &caller, &cfa) == -1, "succeeded");
	unw_close(u);
}

/* Classic lazy PLT entries: CFA = rsp + 8, + 8 more once the entry has
 * pushed its relocation index (an expression on rip & 15). */
static void test_plt(const char *path)
{
	struct unw *u = open_ok(path);
	char *out = unit_run("objdump -d '%s' | awk '/<puts@plt>:/ {print $1}'", path);
	uint64_t stub = strtoull(out, NULL, 16);
	free(out);
	struct di_regs regs, caller;
	uint64_t cfa[2] = {0, 0};
	int rc[2];
	for (int k = 0; k < 2; k++) {
		fill_regs(&regs, stub + (k ? 11 : 0));
		rc[k] = u ? unw_step(u, 0, &regs, fake_read, NULL, &caller, &cfa[k]) : -1;
	}
	uint64_t rsp = regs.r[DI_REG_RSP];
	check("unwind plt expression", stub && rc[0] == 0 && rc[1] == 0 &&
	      cfa[0] == rsp + 8 && cfa[1] == rsp + 16 &&
	      caller.r[DI_REG_RIP] == mem_value(rsp + 8),
	      "stub %llx rc %d %d cfa %llx %llx rsp %llx", (unsigned long long)stub,
	      rc[0], rc[1], (unsigned long long)cfa[0], (unsigned long long)cfa[1],
	      (unsigned long long)rsp);
	unw_close(u);
}

/* _start marks its return address undefined: the end of the stack. */
static void test_outermost(const char *path)
{
	struct unw *u = open_ok(path);
	struct di_regs regs, caller;
	uint64_t cfa;
	fill_regs(&regs, sym_addr(path, "_start") + 4);
	int rc = u ? unw_step(u, 0, &regs, fake_read, NULL, &caller, &cfa) : -1;
	check("unwind outermost frame", rc == 0 && !caller.valid[DI_REG_RIP],
	      "rc %d rip valid %d", rc, caller.valid[DI_REG_RIP]);
	unw_close(u);
}

/* ---- live: this process's own stack ---- */

struct module {
	char path[512];
	uint64_t bias;
	uint64_t pc;
	bool found;
};

static int find_module_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct module *m = arg;
	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t lo = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type != PT_LOAD || m->pc < lo || m->pc >= lo + ph->p_memsz)
			continue;
		snprintf(m->path, sizeof(m->path), "%s",
			 *info->dlpi_name ? info->dlpi_name : "/proc/self/exe");
		m->bias = info->dlpi_addr;
		m->found = true;
		return 1;
	}
	return 0;
}

struct modcache {
	char path[8][512];
	struct unw *u[8];
	int n;
};

static struct unw *module_for(struct modcache *mc, uint64_t pc, uint64_t *bias)
{
	struct module m = {.pc = pc};
	dl_iterate_phdr(find_module_cb, &m);
	if (!m.found)
		return NULL;
	*bias = m.bias;
	for (int i = 0; i < mc->n; i++)
		if (strcmp(mc->path[i], m.path) == 0)
			return mc->u[i];
	if (mc->n == 8)
		return NULL;
	char err[256];
	snprintf(mc->path[mc->n], sizeof(mc->path[0]), "%s", m.path);
	mc->u[mc->n] = unw_open(m.path, err, sizeof(err));
	return mc->u[mc->n++];
}

static void modcache_free(struct modcache *mc)
{
	for (int i = 0; i < mc->n; i++)
		unw_close(mc->u[i]);
}

static int live_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	(void)arg;
	memcpy(buf, (const void *)(uintptr_t)addr, len);
	return 0;
}

/* Unwind from regs, collecting the return addresses of the callers. */
static int walk(struct modcache *mc, struct di_regs regs, bool innermost,
		uint64_t *pcs, int max)
{
	int n = 0;
	while (n < max) {
		uint64_t bias, cfa;
		struct di_regs caller;
		bool sig = false;
		struct unw *u = module_for(mc, regs.r[DI_REG_RIP], &bias);
		if (!u || unw_step_ex(u, bias, &regs, innermost, live_read, NULL,
				      &caller, &cfa, &sig) || !caller.valid[DI_REG_RIP])
			break;
		pcs[n++] = caller.r[DI_REG_RIP];
		regs = caller;
		innermost = sig;
	}
	return n;
}

#define CAPTURE(regs) __asm__ volatile(					\
	"movq %%rsp, %0\n\tmovq %%rbp, %1\n\tmovq %%rbx, %2\n\t"	\
	"movq %%r12, %3\n\tmovq %%r13, %4\n\tmovq %%r14, %5\n\t"	\
	"movq %%r15, %6\n\tleaq 0(%%rip), %%rax\n\tmovq %%rax, %7"	\
	: "=m"((regs).r[7]), "=m"((regs).r[6]), "=m"((regs).r[3]),	\
	  "=m"((regs).r[12]), "=m"((regs).r[13]), "=m"((regs).r[14]),	\
	  "=m"((regs).r[15]), "=m"((regs).r[16]) : : "rax")

static void mark_captured(struct di_regs *r)
{
	static const int regs[] = {3, 6, 7, 12, 13, 14, 15, 16};
	for (size_t i = 0; i < ARRAY_LEN(regs); i++)
		r->valid[regs[i]] = true;
}

static bool same_chain(const uint64_t *a, int na, void **b, int nb, char *why, size_t len)
{
	if (na != nb) {
		int k = snprintf(why, len, "%d frames, backtrace() has %d:", na, nb);
		for (int i = 0; i < na && k < (int)len; i++)
			k += snprintf(why + k, len - (size_t)k, " %llx", (unsigned long long)a[i]);
		for (int i = 0; i < nb && k < (int)len; i++)
			k += snprintf(why + k, len - (size_t)k, " %s%p", i ? "" : "| ", b[i]);
		return false;
	}
	for (int i = 0; i < na; i++)
		if (a[i] != (uint64_t)(uintptr_t)b[i]) {
			snprintf(why, len, "frame %d: %llx, backtrace() has %p", i,
				 (unsigned long long)a[i], b[i]);
			return false;
		}
	return true;
}

static __attribute__((noinline)) void live_capture(int depth)
{
	if (depth > 0) {
		live_capture(depth - 1);
		__asm__ volatile("" ::: "memory");   /* not a tail call */
		return;
	}
	struct di_regs regs = {0};
	void *bt[64];
	CAPTURE(regs);
	mark_captured(&regs);
	int nbt = backtrace(bt, 64);
	struct modcache mc = {0};
	uint64_t pcs[64];
	int n = walk(&mc, regs, true, pcs, 64);
	char why[600] = "";
	/* backtrace() starts with the return address into this function (and
	 * under ASan one into its interceptor): align on our first caller. */
	int k = 0;
	while (k < 3 && k < nbt && n && (uint64_t)(uintptr_t)bt[k] != pcs[0])
		k++;
	check("unwind live backtrace", n >= 5 && same_chain(pcs, n, bt + k, nbt - k, why,
							     sizeof(why)), "%s", why);
	modcache_free(&mc);
}

/* ---- live: a signal frame ---- */

static struct {
	bool done;
	bool ok;
	char why[200];
} sigres;

static __attribute__((noinline)) void on_signal(int sig, siginfo_t *si, void *ctx)
{
	(void)sig;
	(void)si;
	const ucontext_t *uc = ctx;
	struct di_regs regs = {0};
	/* The handler's return address is __restore_rt; the frame above it
	 * starts where that address is stored + 8. */
	void **frame = __builtin_frame_address(0);
	regs.r[DI_REG_RIP] = (uint64_t)(uintptr_t)__builtin_return_address(0);
	regs.r[DI_REG_RSP] = (uint64_t)(uintptr_t)(frame + 2);
	regs.valid[DI_REG_RIP] = regs.valid[DI_REG_RSP] = true;
	struct modcache mc = {0};
	uint64_t bias, cfa;
	struct di_regs caller;
	bool signal = false;
	struct unw *u = module_for(&mc, regs.r[DI_REG_RIP], &bias);
	int rc = u ? unw_step_ex(u, bias, &regs, false, live_read, NULL, &caller, &cfa,
				 &signal) : -1;
	const greg_t *g = uc->uc_mcontext.gregs;
	sigres.ok = rc == 0 && signal &&
		    caller.r[DI_REG_RIP] == (uint64_t)g[REG_RIP] &&
		    caller.r[DI_REG_RSP] == (uint64_t)g[REG_RSP] &&
		    caller.r[6] == (uint64_t)g[REG_RBP] && caller.r[3] == (uint64_t)g[REG_RBX] &&
		    caller.r[0] == (uint64_t)g[REG_RAX] && caller.r[5] == (uint64_t)g[REG_RDI] &&
		    caller.r[15] == (uint64_t)g[REG_R15] && caller.valid[1];
	snprintf(sigres.why, sizeof(sigres.why),
		 "rc %d signal %d rip %llx want %llx rsp %llx want %llx", rc, signal,
		 (unsigned long long)caller.r[DI_REG_RIP], (unsigned long long)g[REG_RIP],
		 (unsigned long long)caller.r[DI_REG_RSP], (unsigned long long)g[REG_RSP]);
	sigres.done = true;
	modcache_free(&mc);
}

static void test_signal_frame(void)
{
	struct sigaction sa = {0}, old;
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGUSR1, &sa, &old);
	raise(SIGUSR1);
	sigaction(SIGUSR1, &old, NULL);
	check("unwind signal frame (__restore_rt)", sigres.done && sigres.ok, "%s",
	      sigres.done ? sigres.why : "handler did not run");
}

/* ---- errors, empty CFI, speed ---- */

static void test_open_errors(void)
{
	char err[256] = "";
	struct unw *u = unw_open("tests/build/no-such-file", err, sizeof(err));
	check("unwind open missing", !u && strcmp(err, "No such file or directory") == 0,
	      "got \"%s\"", err);
	unw_close(u);
	err[0] = 0;
	u = unw_open("tests/fixtures/basic.c", err, sizeof(err));
	check("unwind open not elf", !u && *err, "opened");
	unw_close(u);
	char dir[] = "/tmp/qz-test-unwind-XXXXXX";
	if (!mkdtemp(dir))
		return;
	char *bin = xasprintf("%s/nocfi", dir);
	char *cmd = xasprintf("printf '.globl _start\\n_start: ret\\n' | as -o %s.o - && "
			      "ld -o %s %s.o", bin, bin, bin);
	bool built = system(cmd) == 0;
	u = built ? unw_open(bin, err, sizeof(err)) : NULL;
	struct di_regs regs, caller;
	uint64_t cfa;
	fill_regs(&regs, 0x401000);
	check("unwind file without cfi", u && unw_step(u, 0, &regs, fake_read, NULL,
						       &caller, &cfa) == -1,
	      "%s", built ? err : "could not build");
	unw_close(u);
	free(cmd);
	cmd = xasprintf("rm -rf %s", dir);
	system(cmd);
	free(cmd);
	free(bin);
}

/* A lookup and step costs a few microseconds (libdwarf re-runs the CIE
 * and FDE instructions each time). */
static void test_speed(void)
{
	struct unw *u = open_ok(LIBC);
	char *out = unit_run("readelf -wF %s | sed -n 's/.* FDE .*pc=\\([0-9a-f]*\\)\\.\\..*/\\1/p'",
			LIBC);
	uint64_t pcs[4096];
	int n = 0;
	for (char *l = strtok(out, "\n"); l && n < 4096; l = strtok(NULL, "\n"))
		pcs[n++] = strtoull(l, NULL, 16);
	free(out);
	struct timespec a, b;
	struct di_regs regs, caller;
	uint64_t cfa;
	int ok = 0;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; u && i < n; i++) {
		fill_regs(&regs, pcs[i]);
		ok += unw_step(u, 0, &regs, fake_read, NULL, &caller, &cfa) == 0;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	double us = ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / 1e3 / (n ? n : 1);
	check("unwind speed", n > 100 && ok == n && us < 50, "%d steps, %d ok, %.1f us each",
	      n, ok, us);
	unw_close(u);
}

int main(void)
{
	system("mkdir -p tests/build && for o in O0 O2; do for f in basic crash loop io sig; do "
	       "[ tests/build/$f-$o -nt tests/fixtures/$f.c ] || gcc -g -$o -o "
	       "tests/build/$f-$o tests/fixtures/$f.c; done; done");
	static const char *const fx[] = {"basic", "crash", "loop", "io", "sig"};
	for (size_t i = 0; i < ARRAY_LEN(fx); i++)
		for (int o = 0; o <= 2; o += 2) {
			char path[128];
			snprintf(path, sizeof(path), "tests/build/%s-O%d", fx[i], o);
			check_readelf(path + 12, path, i % 2 ? 0x555555554000ull : 0);
		}
	check_readelf("libc", LIBC, 0x7ffff7d80000ull);
	test_entry_and_body("tests/build/basic-O0");
	test_plt("tests/build/basic-O0");
	test_outermost("tests/build/basic-O0");
	test_open_errors();
	live_capture(3);
	test_signal_frame();
	test_speed();
	return 0;
}
