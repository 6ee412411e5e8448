/* test_lines: the line table module against objdump's decoded lines and
 * gdb's own answers for the fixtures built in tests/build. */
#include "dinfo/lines.h"
#include "util/util.h"
#include "unit.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_ADDRS 4096

/* One objdump row: an address and the line it gives. */
struct orow {
	uint64_t addr;
	int line;
};

static size_t objdump_rows(const char *bin, struct orow *rows, size_t max)
{
	char cmd[512], buf[512];
	size_t n = 0;
	snprintf(cmd, sizeof cmd, "objdump --dwarf=decodedline %s 2>/dev/null", bin);
	FILE *p = popen(cmd, "r");
	if (!p)
		return 0;
	while (fgets(buf, sizeof buf, p) && n < max) {
		char file[256], lno[32], addr[64];
		if (sscanf(buf, "%255s %31s %63s", file, lno, addr) != 3)
			continue;
		if (strncmp(addr, "0x", 2) || lno[0] < '0' || lno[0] > '9')
			continue;
		rows[n].addr = strtoull(addr, NULL, 16);
		rows[n].line = atoi(lno);
		n++;
	}
	pclose(p);
	return n;
}

/* Run gdb on bin with one command per line of cmds; returns its output. */
static char *gdb_run(const char *bin, const char *cmds)
{
	char path[] = "/tmp/qz-test-lines-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return xstrdup("");
	if (write(fd, cmds, strlen(cmds)) < 0)
		cmds = "";
	close(fd);
	char *cmd = xasprintf("gdb -batch -nx -x %s %s 2>&1", path, bin);
	FILE *p = popen(cmd, "r");
	struct sbuf out = {0};
	char buf[1024];
	while (p && fgets(buf, sizeof buf, p))
		sbuf_add(&out, buf);
	if (p)
		pclose(p);
	free(cmd);
	unlink(path);
	return sbuf_take(&out);
}

static bool in_rows(const struct orow *rows, size_t n, uint64_t addr, int line)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].addr == addr && rows[i].line == line)
			return true;
	return false;
}

/* gdb's line for each address (0: none), in the order asked. */
static void gdb_lines(const char *bin, const uint64_t *addrs, size_t n, int *out)
{
	struct sbuf cmds = {0};
	for (size_t i = 0; i < n; i++)
		sbuf_printf(&cmds, "echo @@\\n\ninfo line *0x%llx\n",
			    (unsigned long long)addrs[i]);
	char *text = gdb_run(bin, cmds.s ? cmds.s : "");
	size_t k = 0;
	for (char *s = strstr(text, "@@\n"); s && k < n; s = strstr(s, "@@\n"), k++) {
		s += 3;
		out[k] = strncmp(s, "Line ", 5) ? 0 : atoi(s + 5);
	}
	while (k < n)
		out[k++] = -1;
	free(text);
	sbuf_free(&cmds);
}

static void test_rows(const char *bin)
{
	static struct orow rows[MAX_ADDRS];
	static uint64_t addrs[MAX_ADDRS];
	static int glines[MAX_ADDRS];
	char name[256];
	char err[256] = "";
	size_t n = objdump_rows(bin, rows, MAX_ADDRS), na = 0;
	struct lines *lt = lines_open(bin, err, sizeof err);

	snprintf(name, sizeof name, "lines_open %s", bin);
	unit_check(lt && !lines_empty(lt) && n > 0, name, "lt=%p n=%zu err=%s",
	      (void *)lt, n, err);
	if (!lt)
		return;
	for (size_t i = 0; i < n; i++)
		if (!na || addrs[na - 1] != rows[i].addr)
			addrs[na++] = rows[i].addr;

	size_t bad = 0;
	for (size_t i = 0; i < na; i++) {
		const struct lines_row *r = lines_at(lt, addrs[i]);
		if (!r || !in_rows(rows, n, addrs[i], r->line)) {
			if (!bad++)
				printf("# %s 0x%llx: got %d\n", bin,
				       (unsigned long long)addrs[i], r ? r->line : -1);
		}
	}
	snprintf(name, sizeof name, "lines_at objdump rows %s", bin);
	unit_check(!bad, name, "%zu of %zu addresses wrong", bad, na);

	gdb_lines(bin, addrs, na, glines);
	bad = 0;
	for (size_t i = 0; i < na; i++) {
		const struct lines_row *r = lines_at(lt, addrs[i]);
		int got = r ? r->line : 0;
		if (got != glines[i] && !bad++)
			printf("# %s 0x%llx: got %d gdb %d\n", bin,
			       (unsigned long long)addrs[i], got, glines[i]);
	}
	snprintf(name, sizeof name, "lines_at = gdb info line %s", bin);
	unit_check(!bad, name, "%zu of %zu addresses differ", bad, na);

	size_t nr;
	const struct lines_row *all = lines_rows(lt, &nr);
	bool sorted = true;
	for (size_t i = 1; i < nr; i++)
		sorted &= all[i - 1].addr <= all[i].addr;
	/* Rows gdb would not record are dropped, so probe with one of ours. */
	uint64_t probe = nr ? all[nr / 2].addr : 0;
	size_t lb = lines_lower_bound(lt, probe);
	snprintf(name, sizeof name, "lines_rows sorted, lower_bound %s", bin);
	unit_check(sorted && lb < nr && all[lb].addr == probe &&
	      (lb == 0 || all[lb - 1].addr < probe), name,
	      "sorted=%d lb=%zu", sorted, lb);
	lines_close(lt);
}

/* Parse the addresses gdb reports for "break spec". */
static size_t gdb_break(const char *bin, const char *spec, uint64_t *out,
			size_t max, int *line)
{
	char *cmds = xasprintf("break %s\ninfo breakpoints\n", spec);
	char *text = gdb_run(bin, cmds);
	size_t n = 0;
	*line = 0;
	for (char *s = text; (s = strstr(s, "0x")) && n < max; s++) {
		char *at = strstr(s, ":");
		uint64_t a = strtoull(s, NULL, 16);
		if (s > text && (s[-1] == ' ' || s[-1] == '\t') && strstr(s, " in ") &&
		    strstr(s, " in ") < strchr(s, '\n')) {
			bool dup = false;
			for (size_t i = 0; i < n; i++)
				dup |= out[i] == a;
			if (!dup)
				out[n++] = a;
			if (at)
				*line = atoi(at + 1);
		}
	}
	free(text);
	free(cmds);
	return n;
}

/* Map an address to the function symbol that contains it, from nm. */
struct fsym {
	uint64_t addr;
};

static struct fsym syms[1024];
static size_t nsyms;

static void load_syms(const char *bin)
{
	char cmd[512], buf[512];
	snprintf(cmd, sizeof cmd, "nm -n %s", bin);
	FILE *p = popen(cmd, "r");
	nsyms = 0;
	while (p && fgets(buf, sizeof buf, p) && nsyms < ARRAY_LEN(syms)) {
		char type;
		unsigned long long a;
		if (sscanf(buf, "%llx %c", &a, &type) == 2 &&
		    (type == 'T' || type == 't'))
			syms[nsyms++].addr = a;
	}
	if (p)
		pclose(p);
}

static uint64_t func_of(void *arg, uint64_t addr)
{
	(void)arg;
	uint64_t best = 0;
	for (size_t i = 0; i < nsyms; i++)
		if (syms[i].addr <= addr)
			best = syms[i].addr;
	return best;
}

static bool same_set(const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
	if (na != nb)
		return false;
	for (size_t i = 0; i < na; i++) {
		bool found = false;
		for (size_t j = 0; j < nb; j++)
			found |= a[i] == b[j];
		if (!found)
			return false;
	}
	return true;
}

static void test_break(const char *bin, const char *file, int line, bool funcs)
{
	char name[256], spec[128];
	char err[256] = "";
	uint64_t want[16], *got = NULL;
	int want_line, got_line = -1;
	struct lines *lt = lines_open(bin, err, sizeof err);
	if (!lt) {
		printf("FAIL lines_addrs_for %s: %s\n", bin, err);
		return;
	}
	if (funcs)
		load_syms(bin);
	snprintf(spec, sizeof spec, "%s:%d", file, line);
	size_t nw = gdb_break(bin, spec, want, ARRAY_LEN(want), &want_line);
	size_t ng = lines_addrs_for(lt, lines_file(lt, file), line,
				    funcs ? func_of : NULL, NULL, &got, &got_line);
	snprintf(name, sizeof name, "lines_addrs_for %s %s", bin, spec);
	unit_check(nw > 0 && same_set(got, ng, want, nw) && got_line == want_line, name,
	      "got %zu addrs (first 0x%llx) line %d, gdb %zu (first 0x%llx) line %d",
	      ng, ng ? (unsigned long long)got[0] : 0ull, got_line, nw,
	      nw ? (unsigned long long)want[0] : 0ull, want_line);
	free(got);
	lines_close(lt);
}

static void test_files(void)
{
	char err[256] = "";
	struct lines *lt = lines_open("tests/build/basic-O0", err, sizeof err);
	if (!lt) {
		printf("FAIL lines_file: %s\n", err);
		return;
	}
	char cwd[512], abs[700];
	if (!getcwd(cwd, sizeof cwd))
		cwd[0] = 0;
	snprintf(abs, sizeof abs, "%s/tests/fixtures/basic.c", cwd);
	const char *f = lines_file(lt, "basic.c");
	unit_check(f && !strcmp(f, abs), "lines_file basic.c", "got %s want %s",
	      f ? f : "NULL", abs);
	unit_check(f && lines_file(lt, "fixtures/basic.c") == f &&
	      lines_file(lt, "./tests/fixtures/basic.c") == f &&
	      lines_file(lt, abs) == f, "lines_file suffixes and absolute", "mismatch");
	unit_check(!lines_file(lt, "asic.c") && !lines_file(lt, "nope.c"),
	      "lines_file partial component", "matched");
	unit_check(lines_file(lt, "stdio.h") != NULL, "lines_file header without rows",
	      "stdio.h not found");
	size_t nf;
	const char **files = lines_files(lt, &nf);
	unit_check(nf == 1 && files[0] == f, "lines_files", "nf=%zu", nf);
	unit_check(lines_max_line(lt, f) == 68, "lines_max_line", "got %d",
	      lines_max_line(lt, f));
	uint64_t *out = NULL;
	int actual = -1;
	size_t n = lines_addrs_for(lt, f, 69, NULL, NULL, &out, &actual);
	unit_check(n == 0 && actual == 0 && !out, "lines_addrs_for past the end",
	      "n=%zu", n);
	unit_check(!lines_at(lt, 0) && !lines_at(lt, ~0ull), "lines_at outside", "row");
	lines_close(lt);
}

/* The runner builds fixtures with -g only: make the one without. */
static void build_nog(void)
{
	if (access("tests/build/basic-nog", R_OK) &&
	    system("gcc -O0 -o tests/build/basic-nog tests/fixtures/basic.c"))
		printf("# cannot build tests/build/basic-nog\n");
}

static void test_bad_files(void)
{
	char err[256] = "";
	build_nog();
	struct lines *lt = lines_open("tests/build/basic-nog", err, sizeof err);
	size_t n = 1;
	unit_check(lt && lines_empty(lt) && !lines_at(lt, 0x1139) &&
	      !lines_file(lt, "basic.c") && (lines_files(lt, &n), n == 0),
	      "lines_open without -g", "lt=%p err=%s", (void *)lt, err);
	lines_close(lt);

	err[0] = 0;
	lt = lines_open("tests/fixtures/basic.c", err, sizeof err);
	unit_check(!lt && strstr(err, "not an ELF"), "lines_open non-ELF", "err=%s", err);
	lines_close(lt);
	err[0] = 0;
	lt = lines_open("tests/build/does-not-exist", err, sizeof err);
	unit_check(!lt && strstr(err, "No such file"), "lines_open missing", "err=%s", err);
	lines_close(lt);
}

int main(void)
{
	static const char *fixtures[] = { "basic", "crash", "loop", "io", "sig", "multi" };
	for (size_t i = 0; i < ARRAY_LEN(fixtures); i++) {
		char bin[128];
		snprintf(bin, sizeof bin, "tests/build/%s-O0", fixtures[i]);
		test_rows(bin);
		snprintf(bin, sizeof bin, "tests/build/%s-O2", fixtures[i]);
		test_rows(bin);
	}
	test_files();
	test_bad_files();
	test_break("tests/build/basic-O0", "basic.c", 57, false);  /* loop */
	test_break("tests/build/basic-O0", "basic.c", 56, false);  /* blank */
	test_break("tests/build/basic-O0", "basic.c", 46, false);  /* for */
	test_break("tests/build/basic-O2", "basic.c", 37, true);   /* inlined */
	test_break("tests/build/basic-O2", "basic.c", 56, true);
	test_break("tests/build/loop-O0", "loop.c", 16, false);
	return 0;
}
