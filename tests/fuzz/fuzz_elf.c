/* fuzz_elf: libFuzzer harness for the readers of an ELF file. The input is
 * written to a temporary file and opened the way qzdb opens a program:
 * image (symbols, sections), line tables, DWARF entries (functions, scopes,
 * inlined calls, types, variable locations) and call frame information,
 * each then queried at the addresses the file itself names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dinfo/dinfo.h"
#include "dinfo/image.h"
#include "dinfo/inlidx.h"
#include "dinfo/lines.h"
#include "dinfo/unwind.h"
#include "util/util.h"

/* Queries per input stay bounded so that one input is never slow. */
#define MAX_FUNCS 64
#define MAX_PCS 16

static char path[64];

/* Memory of the fake stopped process: every address reads as a value
 * derived from it, except a hole at page 0. */
static int fake_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	(void)arg;
	if (addr < 0x1000)
		return -1;
	uint8_t *b = buf;
	for (size_t i = 0; i < len; i++)
		b[i] = (uint8_t)((addr + i) * 0x9d);
	return 0;
}

static uint64_t func_of(void *arg, uint64_t addr)
{
	const struct di_info *di = arg;
	const struct di_func *f = di ? di_func_at(di, addr) : NULL;
	return f ? f->lo : 0;
}

static void fake_regs(struct di_regs *r, uint64_t pc)
{
	memset(r, 0, sizeof(*r));
	for (int i = 0; i < DI_NREGS; i++) {
		r->r[i] = 0x7ffe0000 + 0x100 * (uint64_t)i;
		r->valid[i] = true;
	}
	r->r[DI_REG_RIP] = pc;
}

static void try_image(void)
{
	char err[256];
	struct img *im = img_open(path, err, sizeof(err));
	if (!im)
		return;
	uint64_t off, entry = img_entry(im);
	uint8_t buf[16];
	img_sym_at(im, entry, &off);
	img_sym_named(im, "main");
	img_sym_named(im, "puts@plt");
	img_in_plt(im, entry);
	img_is_code(im, entry);
	img_read(im, entry, buf, sizeof(buf));
	img_read(im, img_base_vaddr(im), buf, sizeof(buf));
	img_build_id(im);
	img_has_debug_info(im);
	img_close(im);
}

static void try_lines(struct di_info *di)
{
	char err[256];
	struct lines *lt = lines_open(path, err, sizeof(err));
	if (!lt)
		return;
	size_t nrows, nfiles;
	const struct lines_row *rows = lines_rows(lt, &nrows);
	for (size_t i = 0; i < nrows && i < MAX_PCS; i++) {
		lines_at(lt, rows[i].addr);
		lines_at(lt, rows[i].end - 1);
		lines_lower_bound(lt, rows[i].addr + 1);
	}
	lines_at(lt, 0);
	lines_at(lt, UINT64_MAX);
	const char **files = lines_files(lt, &nfiles);
	for (size_t i = 0; i < nfiles && i < MAX_PCS; i++) {
		const char *f = lines_file(lt, str_basename(files[i]));
		int max = lines_max_line(lt, files[i]);
		int probe[] = { 0, 1, max / 2, max, max + 1 };
		for (size_t k = 0; k < ARRAY_LEN(probe); k++) {
			uint64_t *out = NULL;
			int actual;
			lines_addrs_for(lt, f ? f : files[i], probe[k],
					k & 1 ? func_of : NULL, di, &out, &actual);
			free(out);
		}
	}
	lines_file(lt, "basic.c");
	lines_close(lt);
}

static void try_vars(const struct di_var *const *vars, size_t n,
		     const struct di_func *f, uint64_t pc)
{
	struct di_regs regs;
	fake_regs(&regs, pc + 0x1000);
	struct di_ctx ctx = { .regs = &regs, .cfa = 0x7ffe1000, .has_cfa = true,
		.bias = 0x1000, .pc = pc + 0x1000, .func = f, .read_mem = fake_read };
	char err[256];
	for (size_t i = 0; i < n; i++) {
		struct di_loc loc;
		uint8_t buf[64];
		di_locate(vars[i], &ctx, &loc, err, sizeof(err));
		size_t size = vars[i]->type ? vars[i]->type->size : 8;
		di_read_var(vars[i], &ctx, buf, size < sizeof(buf) ? size : sizeof(buf),
			    err, sizeof(err));
	}
}

static void try_func(const struct di_func *f)
{
	const struct di_var *vars[64];
	const struct di_inline *chain[16];
	uint64_t pcs[] = { f->lo, f->lo + 1, (f->lo + f->hi) / 2, f->hi - 1 };
	for (size_t k = 0; k < ARRAY_LEN(pcs); k++) {
		size_t n = di_vars_at(f, pcs[k], vars, ARRAY_LEN(vars));
		try_vars(vars, n, f, pcs[k]);
		size_t nc = di_inline_chain(f, pcs[k], chain, ARRAY_LEN(chain));
		for (size_t c = 0; c < nc; c++) {
			n = di_inline_vars_at(chain[c], pcs[k], vars, ARRAY_LEN(vars));
			try_vars(vars, n, f, pcs[k]);
		}
	}
}

static struct di_info *try_dinfo(void)
{
	char err[256];
	struct di_info *di = di_open(path, err, sizeof(err));
	if (!di)
		return NULL;
	size_t n;
	const struct di_func *const *fs = di_funcs(di, &n);
	for (size_t i = 0; i < n && i < MAX_FUNCS; i++) {
		try_func(fs[i]);
		di_func_at(di, fs[i]->lo);
		if (fs[i]->name) {
			di_func_named(di, fs[i]->name);
			const struct di_inline *in[8];
			di_inline_instances(di, fs[i]->name, in, 8);
		}
		const struct di_callsite *tc[8];
		size_t k = di_tail_calls(di, fs[i]->lo, tc, 8);
		for (size_t j = 0; j < k; j++)
			if (tc[j]->target_name && !tc[j]->target_name[0])
				abort();   /* a name is never empty */
	}
	static const char *const types[] = {
		"int", "char", "struct node", "node_t", "enum color", "union u",
		"unsigned long", "struct", "",
	};
	for (size_t i = 0; i < ARRAY_LEN(types); i++)
		di_type_named(di, types[i]);
	di_static_named(di, "counter", NULL);
	di_static_named(di, "total", "basic.c");
	return di;
}

static void try_unwind(struct di_info *di)
{
	char err[256];
	struct unw *u = unw_open(path, err, sizeof(err));
	if (!u)
		return;
	size_t n = 0;
	const struct di_func *const *fs = di ? di_funcs(di, &n) : NULL;
	uint64_t pcs[MAX_PCS + 2] = { 0x1000, 0x401000 };
	size_t npcs = 2;
	for (size_t i = 0; i < n && npcs < ARRAY_LEN(pcs); i++)
		pcs[npcs++] = fs[i]->lo + 4;
	for (size_t i = 0; i < npcs; i++) {
		struct di_regs regs, caller;
		uint64_t cfa;
		bool sig;
		fake_regs(&regs, pcs[i] + 0x1000);
		unw_step(u, 0x1000, &regs, fake_read, NULL, &caller, &cfa);
		unw_step_ex(u, 0x1000, &regs, false, fake_read, NULL, &caller, &cfa, &sig);
		/* Walk a few frames as bt would. */
		for (int d = 0; d < 4; d++) {
			if (unw_step_ex(u, 0x1000, &regs, d == 0, fake_read, NULL,
					&caller, &cfa, &sig) != 0 ||
			    !caller.valid[DI_REG_RIP])
				break;
			regs = caller;
		}
	}
	unw_close(u);
}

/* The name index of inlined calls (inlidx.h): the input itself read as
 * an index file (a hostile cache), and the index of the input's DWARF
 * saved, read back and used. */
static char idx_path[80];

static void try_inlidx(struct di_info *di)
{
	const struct di_inline *in[8];
	uint64_t units[16];
	size_t n;
	struct di_inlidx *x = di_inlidx_load(path, "ab");
	if (x) {
		n = di_inlidx_units(x, "f", units, 16);
		if (di)
			di_inline_instances_in(di, "f", units, n, in, 8, &n);
		di_inlidx_free(x);
	}
	if (!di || di_inlidx_save(di, idx_path, "ab") != 0)
		return;
	x = di_inlidx_load(idx_path, "ab");
	if (!x)
		abort();   /* what was just saved must read back */
	size_t nf;
	const struct di_func *const *fs = di_funcs(di, &nf);
	for (size_t i = 0; i < nf && i < MAX_FUNCS; i++) {
		if (!fs[i]->name)
			continue;
		n = di_inlidx_units(x, fs[i]->name, units, 16);
		if (di_inline_instances_in(di, fs[i]->name, units, n, in, 8, &n) != 0)
			abort();   /* its units are the file's */
	}
	di_inlidx_free(x);
}

static void remove_input(void)
{
	unlink(path);
	unlink(idx_path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!path[0]) {
		snprintf(path, sizeof(path), "/tmp/qzdb-fuzz-elf.%d", (int)getpid());
		snprintf(idx_path, sizeof(idx_path), "/tmp/qzdb-fuzz-elf.%d.inl", (int)getpid());
		atexit(remove_input);
	}
	FILE *f = fopen(path, "wb");
	if (!f)
		abort();
	if (fwrite(data, 1, size, f) != size || fclose(f) != 0)
		abort();
	try_image();
	struct di_info *di = try_dinfo();
	try_lines(di);
	try_unwind(di);
	try_inlidx(di);
	if (di)
		di_close(di);
	return 0;
}
