/* image: an ELF file read with libelf: its section table, its symbols
 * (.symtab, .dynsym and synthesized "name@plt" stubs) sorted for address
 * and name lookups, its build-id and load layout. The file stays mapped so
 * that symbol names and img_read point straight into it. */
#include "image.h"
#include "util/util.h"
#include "util/sorted.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct sec {
	const char *name;
	uint64_t addr;
	uint64_t size;
	uint64_t offset;
	uint32_t type;
	uint64_t flags;
};

struct seg {
	uint64_t vaddr, memsz, offset, filesz;
};

struct isym {
	struct img_sym s;     /* first: img_sym_at returns &isym->s */
	size_t shndx;         /* a size-0 symbol only covers its own section */
	int rank;             /* lower is preferred among symbols at one address */
};

struct img {
	char *path;
	int fd;
	Elf *elf;
	const char *raw;      /* the whole file, mapped by libelf */
	size_t rawsize;
	GElf_Ehdr eh;
	uint64_t base_vaddr;
	char *build_id;
	struct sec *secs;
	size_t nsecs;
	struct seg *segs;     /* PT_LOAD, clipped to the file */
	size_t nsegs;
	struct isym *syms;    /* by address, best first at equal addresses */
	size_t nsyms, symcap;
	struct isym **by_name;
	const struct sec *plt[3];  /* .plt, .plt.sec, .plt.got when present */
	char **owned;         /* synthesized PLT names */
	size_t nowned, ownedcap;
	struct img *dbg;      /* separate debug file whose symbols were added */
	bool interp;          /* has a PT_INTERP: the dynamic linker loads it */
	uint64_t relro_lo, relro_hi;  /* PT_GNU_RELRO, link-time, or 0, 0 */
};

/* A relocation target of a GOT slot, for naming PLT stubs. */
struct got_rel {
	uint64_t slot;
	const char *name;     /* NULL for R_X86_64_IRELATIVE */
	int64_t addend;
};

static void set_err(char *err, size_t errlen, const char *msg)
{
	if (err && errlen)
		snprintf(err, errlen, "%s", msg);
}

/* ---- sections ---- */

static bool load_sections(struct img *im)
{
	size_t n, shstrndx;
	if (elf_getshdrnum(im->elf, &n) || elf_getshdrstrndx(im->elf, &shstrndx))
		return false;
	im->secs = xcalloc(n, sizeof(*im->secs));
	im->nsecs = n;
	for (size_t i = 0; i < n; i++) {
		Elf_Scn *scn = elf_getscn(im->elf, i);
		GElf_Shdr sh;
		if (!scn || !gelf_getshdr(scn, &sh))
			continue;
		struct sec *s = &im->secs[i];
		const char *name = elf_strptr(im->elf, shstrndx, sh.sh_name);
		s->name = name ? name : "";
		s->addr = sh.sh_addr;
		s->size = sh.sh_size;
		s->offset = sh.sh_offset;
		s->type = sh.sh_type;
		s->flags = sh.sh_flags;
		/* A truncated file must not make img_read run off the mapping. */
		if (s->type != SHT_NOBITS && (s->offset > im->rawsize ||
					      s->size > im->rawsize - s->offset))
			s->size = 0;
	}
	return true;
}

static const struct sec *sec_named(const struct img *im, const char *name)
{
	for (size_t i = 0; i < im->nsecs; i++)
		if (strcmp(im->secs[i].name, name) == 0)
			return &im->secs[i];
	return NULL;
}

/* .tbss overlaps the sections after it in the address space but occupies
 * nothing there: it never holds an address. */
static bool sec_has(const struct sec *s, uint64_t addr)
{
	if (!(s->flags & SHF_ALLOC) || (s->flags & SHF_TLS && s->type == SHT_NOBITS))
		return false;
	return s->size && addr >= s->addr && addr - s->addr < s->size;
}

static const struct sec *sec_at(const struct img *im, uint64_t addr)
{
	for (size_t i = 0; i < im->nsecs; i++)
		if (sec_has(&im->secs[i], addr))
			return &im->secs[i];
	return NULL;
}

static const uint8_t *sec_bytes(const struct img *im, const struct sec *s)
{
	if (s->type == SHT_NOBITS || !s->size)
		return NULL;
	return (const uint8_t *)im->raw + s->offset;
}

static Elf_Data *sec_data(const struct img *im, const struct sec *s)
{
	Elf_Scn *scn = elf_getscn(im->elf, (size_t)(s - im->secs));
	return scn ? elf_getdata(scn, NULL) : NULL;
}

/* ---- layout and notes ---- */

static void load_segments(struct img *im)
{
	size_t n;
	uint64_t lo = UINT64_MAX;
	if (elf_getphdrnum(im->elf, &n))
		n = 0;
	im->segs = xcalloc(n, sizeof(*im->segs));
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(im->elf, (int)i, &ph))
			continue;
		if (ph.p_type == PT_INTERP)
			im->interp = true;
		if (ph.p_type == PT_GNU_RELRO && ph.p_vaddr + ph.p_memsz > ph.p_vaddr) {
			im->relro_lo = ph.p_vaddr;
			im->relro_hi = ph.p_vaddr + ph.p_memsz;
		}
		if (ph.p_type != PT_LOAD)
			continue;
		if (ph.p_vaddr < lo)
			lo = ph.p_vaddr;
		struct seg *s = &im->segs[im->nsegs++];
		*s = (struct seg){ph.p_vaddr, ph.p_memsz, ph.p_offset, ph.p_filesz};
		if (s->offset > im->rawsize)
			s->offset = s->filesz = 0;
		if (s->filesz > im->rawsize - s->offset)
			s->filesz = im->rawsize - s->offset;
	}
	im->base_vaddr = lo == UINT64_MAX ? 0 : lo & ~(uint64_t)0xfff;
}

static char *hex(const uint8_t *p, size_t n)
{
	char *s = xmalloc(n * 2 + 1);
	for (size_t i = 0; i < n; i++)
		sprintf(s + i * 2, "%02x", p[i]);
	return s;
}

static char *note_build_id(const struct img *im, const struct sec *s)
{
	Elf_Data *d = sec_data(im, s);
	GElf_Nhdr nh;
	size_t off = 0, name_off, desc_off, next;
	while (d && (next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		const char *name = (const char *)d->d_buf + name_off;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp(name, "GNU", 4) == 0 && nh.n_descsz)
			return hex((const uint8_t *)d->d_buf + desc_off, nh.n_descsz);
		off = next;
	}
	return NULL;
}

static void load_build_id(struct img *im)
{
	for (size_t i = 0; i < im->nsecs && !im->build_id; i++)
		if (im->secs[i].type == SHT_NOTE)
			im->build_id = note_build_id(im, &im->secs[i]);
}

/* ---- symbols ---- */

static int sym_rank(const GElf_Sym *st)
{
	int type = GELF_ST_TYPE(st->st_info), bind = GELF_ST_BIND(st->st_info);
	int r = (type == STT_FUNC || type == STT_GNU_IFUNC) ? 0 : 8;
	if (bind == STB_LOCAL)
		r += 2;
	else if (bind == STB_WEAK)
		r += 1;
	return r;
}

static void add_sym(struct img *im, const char *name, uint64_t addr,
		    uint64_t size, bool is_func, size_t shndx, int rank)
{
	XGROW(im->syms, im->symcap, im->nsyms + 1);
	struct isym *is = &im->syms[im->nsyms++];
	is->s.name = name;
	is->s.addr = addr;
	is->s.size = size;
	is->s.is_func = is_func;
	is->shndx = shndx;
	is->rank = rank;
}

static bool sym_wanted(const GElf_Sym *st, const char *name, size_t nsecs)
{
	int type = GELF_ST_TYPE(st->st_info);
	if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_OBJECT)
		return false;
	return name && *name && st->st_shndx != SHN_UNDEF &&
	       st->st_shndx < nsecs && st->st_shndx < SHN_LORESERVE;
}

/* A .dynsym entry whose version is hidden (cfree@GLIBC_2.2.5, kept for old
 * binaries; a debug file's .symtab spells it so) names an address less
 * well than the default one (free). */
static bool sym_hidden(Elf_Data *versym, size_t i)
{
	GElf_Versym v;
	return versym && gelf_getversym(versym, (int)i, &v) && (v & 0x8000);
}

static Elf_Data *versym_data(struct img *im, const struct sec *s)
{
	if (s->type != SHT_DYNSYM)
		return NULL;
	for (size_t i = 0; i < im->nsecs; i++)
		if (im->secs[i].type == SHT_GNU_versym)
			return sec_data(im, &im->secs[i]);
	return NULL;
}

static void load_symtab(struct img *im, const struct sec *s)
{
	Elf_Data *d = sec_data(im, s), *vs = versym_data(im, s);
	Elf_Scn *scn = elf_getscn(im->elf, (size_t)(s - im->secs));
	GElf_Shdr sh;
	if (!d || !gelf_getshdr(scn, &sh) || !sh.sh_entsize)
		return;
	size_t n = sh.sh_size / sh.sh_entsize;
	for (size_t i = 1; i < n; i++) {
		GElf_Sym st;
		if (!gelf_getsym(d, (int)i, &st))
			continue;
		const char *name = elf_strptr(im->elf, sh.sh_link, st.st_name);
		if (!sym_wanted(&st, name, im->nsecs))
			continue;
		int type = GELF_ST_TYPE(st.st_info);
		add_sym(im, name, st.st_value, st.st_size, type != STT_OBJECT,
			st.st_shndx, sym_rank(&st) +
			(sym_hidden(vs, i) || strchr(name, '@') ? 4 : 0));
		im->syms[im->nsyms - 1].s.is_ifunc = type == STT_GNU_IFUNC;
	}
}

/* The symbol name of a dynamic relocation (from .dynsym via sh_link). */
static const char *rel_sym_name(const struct img *im, const struct sec *rs,
				uint64_t symi)
{
	Elf_Scn *scn = elf_getscn(im->elf, (size_t)(rs - im->secs));
	GElf_Shdr sh, dsh;
	if (!symi || !gelf_getshdr(scn, &sh))
		return NULL;
	Elf_Scn *dyn = elf_getscn(im->elf, sh.sh_link);
	Elf_Data *d = dyn ? elf_getdata(dyn, NULL) : NULL;
	GElf_Sym st;
	if (!d || !gelf_getshdr(dyn, &dsh) || !gelf_getsym(d, (int)symi, &st))
		return NULL;
	return elf_strptr(im->elf, dsh.sh_link, st.st_name);
}

static void load_rels(const struct img *im, const struct sec *rs,
		      struct got_rel **rels, size_t *n, size_t *cap)
{
	Elf_Data *d = sec_data(im, rs);
	size_t count = rs->size / sizeof(Elf64_Rela);
	for (size_t i = 0; d && i < count; i++) {
		GElf_Rela r;
		if (!gelf_getrela(d, (int)i, &r))
			continue;
		uint64_t type = GELF_R_TYPE(r.r_info);
		if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT &&
		    type != R_X86_64_IRELATIVE)
			continue;
		const char *name = rel_sym_name(im, rs, GELF_R_SYM(r.r_info));
		if (type != R_X86_64_IRELATIVE && (!name || !*name))
			continue;
		XGROW(*rels, *cap, *n + 1);
		(*rels)[(*n)++] = (struct got_rel){r.r_offset, name, r.r_addend};
	}
}

static int cmp_rel(const void *a, const void *b)
{
	const struct got_rel *x = a, *y = b;
	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

static const struct got_rel *rel_for_slot(const struct got_rel *rels,
					  size_t n, uint64_t slot)
{
	struct got_rel key = {.slot = slot};
	if (!n)
		return NULL;
	return bsearch(&key, rels, n, sizeof(*rels), cmp_rel);
}

/* The GOT slot a PLT entry jumps through: the target of its
 * `jmp *disp32(%rip)` (ff 25, possibly after endbr64 / bnd prefixes). The
 * resolver entry `push GOT+8; jmp *GOT+16` finds no relocation later. */
static bool plt_entry_slot(const uint8_t *p, size_t len, uint64_t addr,
			   uint64_t *slot)
{
	for (size_t i = 0; i + 6 <= len; i++) {
		if (p[i] != 0xff || p[i + 1] != 0x25)
			continue;
		int32_t disp;
		memcpy(&disp, p + i + 2, 4);
		*slot = addr + i + 6 + (int64_t)disp;
		return true;
	}
	return false;
}

static char *plt_name(const struct got_rel *r)
{
	if (r->name)
		return xasprintf("%s@plt", r->name);
	return xasprintf("*ABS*+0x%llx@plt", (unsigned long long)r->addend);
}

static void load_plt_sec(struct img *im, const struct sec *s,
			 const struct got_rel *rels, size_t nrels)
{
	Elf_Scn *scn = elf_getscn(im->elf, (size_t)(s - im->secs));
	GElf_Shdr sh;
	const uint8_t *p = sec_bytes(im, s);
	if (!p || !gelf_getshdr(scn, &sh))
		return;
	uint64_t step = sh.sh_entsize ? sh.sh_entsize : 16;
	for (uint64_t off = 0; off + step <= s->size; off += step) {
		uint64_t slot;
		const struct got_rel *r;
		if (!plt_entry_slot(p + off, step, s->addr + off, &slot) ||
		    !(r = rel_for_slot(rels, nrels, slot)))
			continue;
		char *name = plt_name(r);
		XGROW(im->owned, im->ownedcap, im->nowned + 1);
		im->owned[im->nowned++] = name;
		add_sym(im, name, s->addr + off, step, true,
			(size_t)(s - im->secs), 0);
	}
}

/* PLT stubs carry no symbols: name each after the relocation of the GOT
 * slot it jumps through, as objdump does. */
static void load_plt(struct img *im)
{
	struct got_rel *rels = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < im->nsecs; i++)
		if (im->secs[i].type == SHT_RELA && (im->secs[i].flags & SHF_ALLOC))
			load_rels(im, &im->secs[i], &rels, &n, &cap);
	if (n)
		qsort(rels, n, sizeof(*rels), cmp_rel);
	static const char *const plts[] = {".plt", ".plt.sec", ".plt.got"};
	for (size_t i = 0; i < ARRAY_LEN(plts); i++) {
		im->plt[i] = sec_named(im, plts[i]);
		if (im->plt[i])
			load_plt_sec(im, im->plt[i], rels, n);
	}
	free(rels);
}

static int cmp_addr(const void *a, const void *b)
{
	const struct isym *x = a, *y = b;
	if (x->s.addr != y->s.addr)
		return x->s.addr < y->s.addr ? -1 : 1;
	/* Weak or global does not matter here (gdb names strdup, weak, rather
	 * than __strdup); local, hidden and data symbols come last. */
	if ((x->rank & ~1) != (y->rank & ~1))
		return (x->rank & ~1) - (y->rank & ~1);
	if ((x->s.size == 0) != (y->s.size == 0))
		return x->s.size == 0 ? 1 : -1;
	/* Of aliases, "malloc" reads better than "__libc_malloc". */
	size_t ux = strspn(x->s.name, "_"), uy = strspn(y->s.name, "_");
	if (ux != uy)
		return ux < uy ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	return strcmp(x->s.name, y->s.name);
}

static int cmp_name(const void *a, const void *b)
{
	const struct isym *x = *(struct isym *const *)a;
	const struct isym *y = *(struct isym *const *)b;
	int c = strcmp(x->s.name, y->s.name);
	if (c)
		return c;
	return x->rank != y->rank ? x->rank - y->rank : (x < y ? -1 : x > y);
}

/* .symtab and .dynsym repeat most global symbols: keep one of each. */
static void dedup_syms(struct img *im)
{
	size_t out = 0;
	for (size_t i = 0; i < im->nsyms; i++) {
		struct isym *s = &im->syms[i];
		bool dup = false;
		for (size_t j = out; j-- > 0 && im->syms[j].s.addr == s->s.addr;)
			if (strcmp(im->syms[j].s.name, s->s.name) == 0) {
				dup = true;
				break;
			}
		if (!dup)
			im->syms[out++] = *s;
	}
	im->nsyms = out;
}

/* Sort, drop duplicates and index by name (after symbols were added). */
static void index_symbols(struct img *im)
{
	free(im->by_name);
	im->by_name = NULL;
	if (!im->nsyms)
		return;   /* qsort must not see the NULL array */
	qsort(im->syms, im->nsyms, sizeof(*im->syms), cmp_addr);
	dedup_syms(im);
	im->by_name = xcalloc(im->nsyms, sizeof(*im->by_name));
	for (size_t i = 0; i < im->nsyms; i++)
		im->by_name[i] = &im->syms[i];
	qsort(im->by_name, im->nsyms, sizeof(*im->by_name), cmp_name);
}

static void load_symbols(struct img *im)
{
	for (size_t i = 0; i < im->nsecs; i++)
		if (im->secs[i].type == SHT_SYMTAB || im->secs[i].type == SHT_DYNSYM)
			load_symtab(im, &im->secs[i]);
	load_plt(im);
	index_symbols(im);
}

/* ---- open / close ---- */

static bool check_header(struct img *im, char *err, size_t errlen)
{
	if (elf_kind(im->elf) != ELF_K_ELF || !gelf_getehdr(im->elf, &im->eh)) {
		set_err(err, errlen,
			"not in executable format: file format not recognized");
		return false;
	}
	if (gelf_getclass(im->elf) != ELFCLASS64 || im->eh.e_machine != EM_X86_64) {
		set_err(err, errlen, "not an x86-64 ELF file");
		return false;
	}
	return true;
}

static bool open_elf(struct img *im, char *err, size_t errlen)
{
	struct stat st;
	im->fd = open(im->path, O_RDONLY | O_CLOEXEC);
	if (im->fd < 0 || fstat(im->fd, &st) < 0) {
		set_err(err, errlen, strerror(errno));
		return false;
	}
	if (S_ISDIR(st.st_mode)) {
		set_err(err, errlen, strerror(EISDIR));
		return false;
	}
	elf_version(EV_CURRENT);
	im->elf = elf_begin(im->fd, ELF_C_READ_MMAP, NULL);
	if (im->elf)
		im->raw = elf_rawfile(im->elf, &im->rawsize);
	if (!im->elf || !im->raw) {
		set_err(err, errlen,
			"not in executable format: file format not recognized");
		return false;
	}
	return check_header(im, err, errlen);
}

struct img *img_open(const char *path, char *err, size_t errlen)
{
	struct img *im = xcalloc(1, sizeof(*im));
	im->path = xstrdup(path);
	if (!open_elf(im, err, errlen))
		goto fail;
	if (!load_sections(im)) {
		set_err(err, errlen, "bad ELF section table");
		goto fail;
	}
	load_segments(im);
	load_build_id(im);
	load_symbols(im);
	return im;
fail:
	img_close(im);
	return NULL;
}

void img_close(struct img *im)
{
	if (!im)
		return;
	FREE_ALL(im->owned, im->nowned);
	free(im->by_name);
	free(im->syms);
	free(im->secs);
	free(im->segs);
	free(im->build_id);
	img_close(im->dbg);
	if (im->elf)
		elf_end(im->elf);
	if (im->fd >= 0)
		close(im->fd);
	free(im->path);
	free(im);
}

/* ---- queries ---- */

const char *img_path(const struct img *im)
{
	return im->path;
}

bool img_is_pie(const struct img *im)
{
	return im->eh.e_type == ET_DYN;
}

bool img_has_interp(const struct img *im)
{
	return im->interp;
}

bool img_relro(const struct img *im, uint64_t *lo, uint64_t *hi)
{
	*lo = im->relro_lo;
	*hi = im->relro_hi;
	return im->relro_hi > im->relro_lo;
}

uint64_t img_entry(const struct img *im)
{
	return im->eh.e_entry;
}

uint64_t img_base_vaddr(const struct img *im)
{
	return im->base_vaddr;
}

bool img_has_debug_info(const struct img *im)
{
	const struct sec *s = sec_named(im, ".debug_info");
	return s && s->type != SHT_NOBITS && s->size;
}

const char *img_build_id(const struct img *im)
{
	return im->build_id;
}

const char *img_section_at(const struct img *im, uint64_t addr)
{
	for (size_t i = 0; i < im->nsecs; i++)
		if (im->secs[i].size && sec_has(&im->secs[i], addr))
			return im->secs[i].name;
	return NULL;
}

bool img_section_range(const struct img *im, const char *name, uint64_t *lo, uint64_t *hi)
{
	const struct sec *s = sec_named(im, name);
	if (!s || !s->size)
		return false;
	*lo = s->addr;
	*hi = s->addr + s->size;
	return true;
}

const struct img_sym *img_sym_named_global(const struct img *im, const char *name)
{
	const struct img_sym *s = img_sym_named(im, name);
	/* by_name puts the best rank first; rank bit 2 marks a local */
	return s && ((const struct isym *)s)->rank % 8 < 2 ? s : NULL;
}

uint64_t img_end_vaddr(const struct img *im)
{
	uint64_t end = 0;
	for (size_t i = 0; i < im->nsegs; i++)
		if (im->segs[i].vaddr + im->segs[i].memsz > end)
			end = im->segs[i].vaddr + im->segs[i].memsz;
	return end;
}

/* A stripped library's separate debug file keeps the full .symtab (local
 * functions such as libc's _int_free): its symbols join ours. The debug
 * file stays open since the names live in its mapping. */
bool img_add_debug_symbols(struct img *im, const char *debug_path)
{
	char err[256];
	if (im->dbg)
		return true;
	struct img *d = img_open(debug_path, err, sizeof err);
	if (!d)
		return false;
	for (size_t i = 0; i < d->nsyms; i++) {
		const struct isym *s = &d->syms[i];
		if (!strstr(s->s.name, "@plt"))
		{
			add_sym(im, s->s.name, s->s.addr, s->s.size, s->s.is_func,
				s->shndx, s->rank);
			im->syms[im->nsyms - 1].s.is_ifunc = s->s.is_ifunc;
		}
	}
	im->dbg = d;
	index_symbols(im);
	return true;
}

/* Number of symbols at or below addr. */
static size_t count_at_or_below(const struct img *im, uint64_t addr)
{
	return SORTED_UPTO(im->syms, im->nsyms, s.addr, addr);
}

static bool sym_covers(const struct isym *s, uint64_t addr)
{
	return s->s.size && addr - s->s.addr < s->s.size;
}

/* Walking down, is s better than best? Functions first, then the innermost
 * (highest start), then the lower index (better rank at one address). */
static bool sym_better(const struct isym *s, const struct isym *best)
{
	if (!best)
		return true;
	if (s->s.is_func != best->s.is_func)
		return s->s.is_func;
	return s->s.addr == best->s.addr;
}

/* Symbols can nest (aliases of other sizes, a function inside a larger
 * object): a few steps back find the enclosing one. */
#define SYM_LOOKBACK 16

static const struct isym *sym_covering(const struct img *im, size_t top,
				       uint64_t addr)
{
	const struct isym *best = NULL;
	for (size_t k = 0; k < SYM_LOOKBACK && k < top; k++) {
		const struct isym *s = &im->syms[top - 1 - k];
		if (sym_covers(s, addr) && sym_better(s, best))
			best = s;
	}
	return best;
}

/* No sized symbol covers addr: the best size-0 symbol at the nearest
 * address below, if it is in the same section. */
static const struct isym *sym_unsized(const struct img *im, size_t top,
				      uint64_t addr)
{
	const struct isym *best = NULL;
	for (size_t i = top; i > 0 && im->syms[i - 1].s.addr == im->syms[top - 1].s.addr; i--)
		if (im->syms[i - 1].s.size == 0)
			best = &im->syms[i - 1];
	if (best && sec_has(&im->secs[best->shndx], addr))
		return best;
	return NULL;
}

static const struct isym *sym_lookup(const struct img *im, uint64_t addr)
{
	size_t top = count_at_or_below(im, addr);
	if (!top)
		return NULL;
	const struct isym *s = sym_covering(im, top, addr);
	return s ? s : sym_unsized(im, top, addr);
}

const struct img_sym *img_sym_at(const struct img *im, uint64_t addr, uint64_t *off)
{
	const struct isym *s = sym_lookup(im, addr);
	if (!s)
		return NULL;
	if (off)
		*off = addr - s->s.addr;
	return &s->s;
}

struct by_name_key {
	const struct img *im;
	const char *name;
};

static bool name_before(size_t i, const void *arg)
{
	const struct by_name_key *k = arg;
	return strcmp(k->im->by_name[i]->s.name, k->name) < 0;
}

const struct img_sym *img_sym_named(const struct img *im, const char *name)
{
	struct by_name_key k = {im, name};
	size_t lo = sorted_count(im->nsyms, name_before, &k);
	if (lo < im->nsyms && strcmp(im->by_name[lo]->s.name, name) == 0)
		return &im->by_name[lo]->s;
	return NULL;
}

bool img_in_plt(const struct img *im, uint64_t addr)
{
	for (size_t i = 0; i < ARRAY_LEN(im->plt); i++)
		if (im->plt[i] && sec_has(im->plt[i], addr))
			return true;
	return false;
}

static bool read_sections(const struct img *im, uint64_t addr, uint8_t *out,
			  size_t size)
{
	while (size) {
		const struct sec *s = sec_at(im, addr);
		if (!s)
			return false;
		uint64_t off = addr - s->addr;
		size_t n = s->size - off < size ? (size_t)(s->size - off) : size;
		const uint8_t *p = sec_bytes(im, s);
		if (p)
			memcpy(out, p + off, n);
		else
			memset(out, 0, n);
		out += n;
		addr += n;
		size -= n;
	}
	return true;
}

/* The bytes the loader maps, padding between sections included. */
static bool read_segment(const struct img *im, uint64_t addr, uint8_t *out,
			 size_t size)
{
	for (size_t i = 0; i < im->nsegs; i++) {
		const struct seg *s = &im->segs[i];
		if (addr < s->vaddr || addr - s->vaddr > s->memsz ||
		    size > s->memsz - (addr - s->vaddr))
			continue;
		uint64_t off = addr - s->vaddr;
		for (size_t k = 0; k < size; k++, off++)
			out[k] = off < s->filesz ? im->raw[s->offset + off] : 0;
		return true;
	}
	return false;
}

/* An instruction read near the end of .text runs into the alignment gap or
 * the next section: fall back to the loaded segment for such ranges. */
bool img_read(const struct img *im, uint64_t addr, void *buf, size_t size)
{
	if (!sec_at(im, addr))
		return false;
	return read_sections(im, addr, buf, size) ||
	       read_segment(im, addr, buf, size);
}

bool img_is_code(const struct img *im, uint64_t addr)
{
	const struct sec *s = sec_at(im, addr);
	return s && (s->flags & SHF_EXECINSTR);
}
