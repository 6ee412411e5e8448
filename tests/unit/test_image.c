/* test_image: core/image checked against binutils (nm, objdump, readelf) on
 * the fixtures, a few linker variants of a small program and the system
 * libc. Run from the repository root after the fixtures are built. */
#include "dinfo/image.h"
#include "util/util.h"
#include "unit.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"

static char tmpdir[] = "/tmp/qz-test-image-XXXXXX";

static void check(const char *name, bool ok, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	unit_vcheck(ok, name, fmt, ap);
	va_end(ap);
}

static bool sh(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct sbuf cmd = {0};
	sbuf_vprintf(&cmd, fmt, ap);
	va_end(ap);
	int rc = system(cmd.s);
	sbuf_free(&cmd);
	return rc == 0;
}

static struct img *open_ok(const char *path)
{
	char err[256] = "";
	struct img *im = img_open(path, err, sizeof(err));
	char *name = xasprintf("image open %s", path);
	check(name, im != NULL, "%s", err);
	free(name);
	return im;
}

/* ---- nm oracle ---- */

struct nmsym {
	uint64_t addr, size;
	char type;
	char name[256];
};

static struct nmsym *nm_syms(const char *nmargs, const char *path, size_t *n)
{
	char *out = unit_run("nm -S --defined-only %s '%s' 2>/dev/null", nmargs, path);
	struct nmsym *v = NULL;
	size_t cap = 0;
	*n = 0;
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		struct nmsym s = {0};
		unsigned long long a, sz;
		if (sscanf(line, "%llx %llx %c %255s", &a, &sz, &s.type, s.name) != 4)
			continue;
		s.addr = a;
		s.size = sz;
		XGROW(v, cap, *n + 1);
		v[(*n)++] = s;
	}
	free(out);
	return v;
}

/* nm names several aliases at one address: is name one of them? */
static bool nm_has(const struct nmsym *v, size_t n, uint64_t addr, const char *name)
{
	for (size_t i = 0; i < n; i++) {
		const char *at = strchr(v[i].name, '@');
		size_t len = at ? (size_t)(at - v[i].name) : strlen(v[i].name);
		if (v[i].addr == addr && strlen(name) == len &&
		    strncmp(v[i].name, name, len) == 0)
			return true;
	}
	return false;
}

static bool is_func_type(char t)
{
	return t == 'T' || t == 't' || t == 'W' || t == 'i';
}

static void check_syms(const char *tag, struct img *im, const char *nmargs)
{
	size_t n, bad = 0, tried = 0, badname = 0;
	struct nmsym *v = nm_syms(nmargs, img_path(im), &n);
	char first[512] = "";
	for (size_t i = 0; i < n; i++) {
		if (!is_func_type(v[i].type) || !v[i].size)
			continue;
		tried++;
		uint64_t probes[] = {v[i].addr, v[i].addr + v[i].size - 1};
		for (size_t k = 0; k < 2; k++) {
			uint64_t off;
			const struct img_sym *s = img_sym_at(im, probes[k], &off);
			if (s && nm_has(v, n, s->addr, s->name) && s->is_func &&
			    off == probes[k] - s->addr && s->addr <= v[i].addr)
				continue;
			if (!bad++)
				snprintf(first, sizeof(first), "%s+%zu -> %s", v[i].name,
					 (size_t)(probes[k] - v[i].addr), s ? s->name : "NULL");
		}
		char nm_name[256];
		snprintf(nm_name, sizeof(nm_name), "%.*s",
			 (int)strcspn(v[i].name, "@"), v[i].name);
		const struct img_sym *s = img_sym_named(im, nm_name);
		if (!s || !nm_has(v, n, s->addr, nm_name))
			badname++;
	}
	char *name = xasprintf("image sym_at vs nm %s", tag);
	check(name, tried > 0 && bad == 0, "%zu of %zu functions wrong, first %s",
	      bad, tried, first);
	free(name);
	name = xasprintf("image sym_named vs nm %s", tag);
	check(name, tried > 0 && badname == 0, "%zu of %zu names not found",
	      badname, tried);
	free(name);
	free(v);
}

/* ---- objdump oracle for PLT stubs ---- */

static void check_plt(const char *tag, struct img *im, size_t want_min)
{
	char *out = unit_run("objdump -d -j .plt -j .plt.sec -j .plt.got '%s' 2>/dev/null",
			img_path(im));
	size_t n = 0, bad = 0;
	char first[512] = "";
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned long long a;
		char name[256];
		if (sscanf(line, "%llx <%255[^>]>:", &a, name) != 2 || !strstr(name, "@plt") ||
		    strstr(name, "@plt-"))
			continue;
		n++;
		const struct img_sym *s = img_sym_named(im, name);
		uint64_t off;
		const struct img_sym *at = img_sym_at(im, a + 4, &off);
		/* Two IRELATIVE stubs may share a name: compare names only. */
		if (s && at && strcmp(at->name, name) == 0 && at->addr == a &&
		    off == 4 && img_in_plt(im, a))
			continue;
		if (!bad++)
			snprintf(first, sizeof(first), "%s at %llx: named %s at %s", name, a,
				 s ? "found" : "missing", at ? at->name : "NULL");
	}
	free(out);
	char *name = xasprintf("image plt stubs vs objdump %s", tag);
	check(name, n >= want_min && bad == 0, "%zu stubs, %zu wrong, first %s",
	      n, bad, first);
	free(name);
}

/* ---- readelf oracles ---- */

static uint64_t readelf_entry(const char *path)
{
	char *out = unit_run("readelf -h '%s' | sed -n 's/.*Entry point address: *//p'", path);
	uint64_t v = strtoull(out, NULL, 16);
	free(out);
	return v;
}

static char *readelf_build_id(const char *path)
{
	char *out = unit_run("readelf -n '%s' | sed -n 's/.*Build ID: *//p'", path);
	char *t = str_trim(out);
	free(out);
	return t;
}

/* Address, file offset and size of a section. */
static bool readelf_section(const char *path, const char *sec, uint64_t *addr,
			    uint64_t *off, uint64_t *size)
{
	char *out = unit_run("readelf -SW '%s' | sed 's/^ *\\[ *[0-9]*\\]//' | "
			"awk '$1 == \"%s\" {print $3, $4, $5}'", path, sec);
	unsigned long long a, o, s;
	bool ok = sscanf(out, "%llx %llx %llx", &a, &o, &s) == 3;
	free(out);
	*addr = a;
	*off = o;
	*size = s;
	return ok;
}

static void check_header_facts(const char *tag, struct img *im)
{
	const char *p = img_path(im);
	char *name = xasprintf("image entry %s", tag);
	check(name, img_entry(im) == readelf_entry(p), "%llx",
	      (unsigned long long)img_entry(im));
	free(name);
	char *bid = readelf_build_id(p);
	const char *got = img_build_id(im);
	name = xasprintf("image build-id %s", tag);
	check(name, got && strcmp(got, bid) == 0, "got %s want %s", got ? got : "NULL", bid);
	free(name);
	free(bid);
}

static void check_read(const char *tag, struct img *im)
{
	uint64_t addr, off, size;
	char *name = xasprintf("image read .text %s", tag);
	if (!readelf_section(img_path(im), ".text", &addr, &off, &size)) {
		check(name, false, "no .text from readelf");
		free(name);
		return;
	}
	uint8_t *a = xmalloc(size), *b = xmalloc(size);
	FILE *f = fopen(img_path(im), "rb");
	bool ok = f && fseek(f, (long)off, SEEK_SET) == 0 && fread(b, 1, size, f) == size;
	if (f)
		fclose(f);
	check(name, ok && img_read(im, addr, a, size) && memcmp(a, b, size) == 0,
	      "bytes differ");
	free(name);
	/* An instruction read at the end of .text runs into the next section. */
	name = xasprintf("image read across sections %s", tag);
	uint8_t buf[8];
	check(name, img_read(im, addr + size - 4, buf, sizeof(buf)) &&
	      memcmp(buf, b + size - 4, 4) == 0, "failed");
	free(name);
	free(a);
	free(b);
	name = xasprintf("image read outside sections %s", tag);
	check(name, !img_read(im, 0x7fff00000000ull, buf, 4), "read succeeded");
	free(name);
}

/* ---- scenarios ---- */

static void test_fixture(const char *path, bool debug)
{
	struct img *im = open_ok(path);
	if (!im)
		return;
	const char *tag = str_basename(path);
	char *name = xasprintf("image pie %s", tag);
	check(name, img_is_pie(im) && img_base_vaddr(im) == 0, "pie %d base %llx",
	      img_is_pie(im), (unsigned long long)img_base_vaddr(im));
	free(name);
	name = xasprintf("image debug info %s", tag);
	check(name, img_has_debug_info(im) == debug, "got %d", img_has_debug_info(im));
	free(name);
	check_header_facts(tag, im);
	check_syms(tag, im, "");
	check_plt(tag, im, 2);
	check_read(tag, im);

	const struct img_sym *m = img_sym_named(im, "main");
	const struct img_sym *g = img_sym_named(im, "counter");
	name = xasprintf("image code vs data %s", tag);
	check(name, m && g && m->is_func && !g->is_func && img_is_code(im, m->addr) &&
	      !img_is_code(im, g->addr) && !img_in_plt(im, m->addr), "wrong");
	free(name);
	uint64_t off;
	const struct img_sym *gs = g ? img_sym_at(im, g->addr + 2, &off) : NULL;
	name = xasprintf("image sym_at object %s", tag);
	check(name, gs == g && off == 2, "got %s", gs ? gs->name : "NULL");
	free(name);
	/* _init has no size: the nearest preceding symbol still names it. */
	const struct img_sym *in = img_sym_named(im, "_init");
	const struct img_sym *ins = in ? img_sym_at(im, in->addr + 4, &off) : NULL;
	name = xasprintf("image sym_at unsized %s", tag);
	check(name, in && in->size == 0 && ins == in && off == 4, "got %s",
	      ins ? ins->name : "NULL");
	free(name);
	img_close(im);
}

static void test_libc(void)
{
	struct img *im = open_ok(LIBC);
	if (!im)
		return;
	check("image libc is shared", img_is_pie(im) && !img_has_debug_info(im), "wrong");
	check_header_facts("libc", im);
	check_syms("libc dynsym", im, "-D");
	check_plt("libc", im, 10);
	check_read("libc", im);
	const struct img_sym *s = img_sym_named(im, "malloc");
	uint64_t off;
	const struct img_sym *at = s ? img_sym_at(im, s->addr + 1, &off) : NULL;
	check("image libc malloc", at && strcmp(at->name, "malloc") == 0 && off == 1,
	      "got %s", at ? at->name : "NULL");
	img_close(im);
}

/* libc's separate debug file (libc6-dbg, by build-id): its local symbols
 * join the dynamic ones; names stay those nm gives; the text range and
 * segment end agree with readelf. */
static void test_libc_debug_file(void)
{
	struct img *im = open_ok(LIBC);
	if (!im)
		return;
	const char *id = img_build_id(im);
	char *dbg = xasprintf("/usr/lib/debug/.build-id/%.2s/%s.debug", id ? id : "xx",
			      id ? id + 2 : "");
	if (!id || access(dbg, R_OK) != 0) {
		check("image libc debug file (libc6-dbg not installed)", true, "");
		goto out;
	}
	check("image libc _int_free unknown without debug file",
	      img_sym_named(im, "_int_free") == NULL, "found");
	check("image libc add debug symbols", img_add_debug_symbols(im, dbg), "failed");
	const struct img_sym *s = img_sym_named(im, "_int_free");
	char *want = unit_run("nm '%s' | awk '$3 == \"_int_free\" { print $1 }'", dbg);
	check("image libc _int_free from debug file",
	      s && strtoull(want, NULL, 16) == s->addr, "got %s, nm %s", s ? "sym" : "NULL", want);
	free(want);
	check("image libc local is not global", img_sym_named_global(im, "_int_free") == NULL,
	      "global");
	s = img_sym_named_global(im, "free");
	uint64_t off;
	const struct img_sym *at = s ? img_sym_at(im, s->addr, &off) : NULL;
	check("image libc free keeps its name", at && strcmp(at->name, "free") == 0,
	      "got %s", at ? at->name : "NULL");
	uint64_t lo = 0, hi = 0;
	char *text = unit_run("readelf -SW '%s' | awk '$2 == \".text\" { print $4 }'", LIBC);
	check("image libc .text range", img_section_range(im, ".text", &lo, &hi) &&
	      lo == strtoull(text, NULL, 16) && hi > lo, "got %llx", (unsigned long long)lo);
	free(text);
	check("image libc end above text", img_end_vaddr(im) >= hi, "end %llx",
	      (unsigned long long)img_end_vaddr(im));
out:
	free(dbg);
	img_close(im);
}

/* Linker variants of a small program: IBT PLT (.plt.sec) with -z now,
 * classic lazy PLT in a non-PIE, and a stripped binary (.dynsym only). */
static void test_variants(void)
{
	char src[512], bin[512];
	snprintf(src, sizeof(src), "%s/p.c", tmpdir);
	FILE *f = fopen(src, "w");
	fputs("#include <stdio.h>\n#include <string.h>\nint main(int c, char **v)"
	      " { puts(v[0]); return (int)strlen(v[0]) + c; }\n", f);
	fclose(f);
	struct { const char *tag, *flags; } v[] = {
		{"ibt", "-fcf-protection -Wl,-z,now -Wl,-z,ibtplt"},
		{"nopie", "-no-pie -Wl,-z,lazy"},
		{"stripped", "-s"},
	};
	for (size_t i = 0; i < ARRAY_LEN(v); i++) {
		snprintf(bin, sizeof(bin), "%s/p-%s", tmpdir, v[i].tag);
		char *name = xasprintf("image build variant %s", v[i].tag);
		bool ok = sh("gcc %s -o %s %s", v[i].flags, bin, src);
		check(name, ok, "gcc failed");
		free(name);
		struct img *im = ok ? open_ok(bin) : NULL;
		if (!im)
			continue;
		check_plt(v[i].tag, im, 2);
		if (strcmp(v[i].tag, "nopie") == 0)
			check("image nopie not pie", !img_is_pie(im) &&
			      img_base_vaddr(im) == 0x400000, "base %llx",
			      (unsigned long long)img_base_vaddr(im));
		if (strcmp(v[i].tag, "ibt") == 0)
			check("image ibt puts in .plt.sec", img_sym_named(im, "puts@plt") &&
			      img_in_plt(im, img_sym_named(im, "puts@plt")->addr), "no puts@plt");
		img_close(im);
	}
}

static void expect_error(const char *tag, const char *path, const char *want)
{
	char err[256] = "";
	struct img *im = img_open(path, err, sizeof(err));
	char *name = xasprintf("image error %s", tag);
	check(name, !im && strcmp(err, want) == 0, "got \"%s\"", err);
	free(name);
	img_close(im);
}

static void test_errors(void)
{
	expect_error("missing", "tests/build/no-such-file", "No such file or directory");
	expect_error("not elf", "tests/fixtures/basic.c",
		     "not in executable format: file format not recognized");
	expect_error("directory", "tests", "Is a directory");
	char empty[512], x32[512], arm[512];
	snprintf(empty, sizeof(empty), "%s/empty", tmpdir);
	fclose(fopen(empty, "w"));
	expect_error("empty", empty, "not in executable format: file format not recognized");
	snprintf(x32, sizeof(x32), "%s/a32", tmpdir);
	if (sh("printf '.globl _start\\n_start: nop\\n' | as --32 -o %s.o - && "
	       "ld -m elf_i386 -o %s %s.o", x32, x32, x32))
		expect_error("32-bit", x32, "not an x86-64 ELF file");
	else
		check("image error 32-bit", false, "could not build a 32-bit ELF");
	/* The same x86-64 file claiming another machine (EM_AARCH64). */
	snprintf(arm, sizeof(arm), "%s/arm", tmpdir);
	sh("cp tests/build/basic-O0 %s && printf '\\267' | dd of=%s bs=1 seek=18 "
	   "conv=notrunc status=none", arm, arm);
	expect_error("other machine", arm, "not an x86-64 ELF file");
}

static void build_fixtures(void)
{
	sh("mkdir -p tests/build && for o in O0 O2; do [ tests/build/basic-$o -nt "
	   "tests/fixtures/basic.c ] || gcc -g -$o -o tests/build/basic-$o "
	   "tests/fixtures/basic.c; done; [ tests/build/basic-nodebug -nt "
	   "tests/fixtures/basic.c ] || gcc -O0 -o tests/build/basic-nodebug "
	   "tests/fixtures/basic.c");
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		printf("FAIL image setup: mkdtemp\n");
		return 0;
	}
	build_fixtures();
	test_fixture("tests/build/basic-O0", true);
	test_fixture("tests/build/basic-O2", true);
	test_fixture("tests/build/basic-nodebug", false);
	test_libc();
	test_libc_debug_file();
	test_variants();
	test_errors();
	sh("rm -rf %s", tmpdir);
	return 0;
}
