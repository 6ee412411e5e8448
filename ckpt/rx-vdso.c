/* rx-vdso: the vDSO answers time(), clock_gettime(), gettimeofday() and
 * getcpu() without entering the kernel, so no system-call stop sees them.
 * As rr does, each of these functions in the program's vDSO is
 * overwritten with `mov $NR, %eax; syscall; ret`: the arguments are
 * already in the system call's registers, and libc (which calls the vDSO
 * through pointers it resolved at start) now makes a call the log sees.
 * The vDSO's pages are private to the process, so the patch is too; it
 * comes out when logging stops. The image is read from the process and
 * checked before any of it is used. rdtsc, rdrand and cpuid are not
 * covered. */
#define _GNU_SOURCE
#include "rx.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "ckpt-int.h"

static const struct { const char *name; int nr; } rx_vdso_fns[] = {
	{"__vdso_clock_gettime", SYS_clock_gettime}, {"clock_gettime", SYS_clock_gettime},
	{"__vdso_gettimeofday", SYS_gettimeofday},   {"gettimeofday", SYS_gettimeofday},
	{"__vdso_time", SYS_time},                   {"time", SYS_time},
	{"__vdso_getcpu", SYS_getcpu},               {"getcpu", SYS_getcpu},
	{"__vdso_clock_getres", SYS_clock_getres},   {"clock_getres", SYS_clock_getres},
};

/* The [vdso] mapping's bounds from the memory map. */
static bool rx_vdso_find(struct qz *q, uint64_t *lo, uint64_t *hi)
{
	struct ckpt_os os;
	bool found = false;
	if (ckpt_os_read(q, &os, CKPT_OS_MAPS) < 0)
		return false;
	for (size_t i = 0; i < os.nmaps && !found; i++)
		if (os.maps[i].path && !strcmp(os.maps[i].path, "[vdso]")) {
			*lo = os.maps[i].lo;
			*hi = os.maps[i].hi;
			found = true;
		}
	ckpt_os_free(&os);
	return found;
}

static bool rx_in(size_t len, uint64_t off, uint64_t size)
{
	return off <= len && size <= len - off;
}

/* The load address of the image's first PT_LOAD (symbols are relative to
 * it); false if the headers do not fit the image. */
static bool rx_vdso_base(const uint8_t *img, size_t len, uint64_t *vaddr)
{
	const Elf64_Ehdr *eh = (const void *)img;
	if (len < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_phentsize != sizeof(Elf64_Phdr) ||
	    !rx_in(len, eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr)))
		return false;
	for (int i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const void *)(img + eh->e_phoff + i * sizeof *ph);
		if (ph->p_type == PT_LOAD) {
			*vaddr = ph->p_vaddr;
			return true;
		}
	}
	return false;
}

/* The dynamic symbol table and its strings, from the section headers. */
static bool rx_vdso_syms(const uint8_t *img, size_t len, const Elf64_Sym **syms, size_t *nsyms,
			 const char **str, size_t *strlen_)
{
	const Elf64_Ehdr *eh = (const void *)img;
	if (eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    !rx_in(len, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)))
		return false;
	const Elf64_Shdr *sh = (const void *)(img + eh->e_shoff);
	for (int i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type != SHT_DYNSYM || sh[i].sh_link >= eh->e_shnum)
			continue;
		const Elf64_Shdr *ss = &sh[sh[i].sh_link];
		if (!rx_in(len, sh[i].sh_offset, sh[i].sh_size) || !rx_in(len, ss->sh_offset, ss->sh_size))
			return false;
		*syms = (const void *)(img + sh[i].sh_offset);
		*nsyms = sh[i].sh_size / sizeof(Elf64_Sym);
		*str = (const char *)img + ss->sh_offset;
		*strlen_ = ss->sh_size;
		return true;
	}
	return false;
}

static int rx_vdso_nr(const char *name)
{
	for (size_t i = 0; i < sizeof rx_vdso_fns / sizeof *rx_vdso_fns; i++)
		if (!strcmp(name, rx_vdso_fns[i].name))
			return rx_vdso_fns[i].nr;
	return -1;
}

/* mov $nr, %eax; syscall; ret */
static void rx_vdso_code(int nr, uint8_t *code)
{
	const uint8_t c[8] = {0xb8, (uint8_t)nr, (uint8_t)(nr >> 8), 0, 0, 0x0f, 0x05, 0xc3};
	memcpy(code, c, sizeof c);
}

/* Overwrite the function at addr (one of the image's symbols) with its
 * system call, once per address. */
static void rx_vdso_one(struct qz *q, struct rx *x, uint64_t addr, int nr)
{
	for (int i = 0; i < x->nv; i++)
		if (x->vaddr[i] == addr)
			return;
	uint8_t code[8];
	rx_vdso_code(nr, code);
	if (x->nv == RX_VDSO_MAX || proc_read(q->proc, addr, x->vorig[x->nv], 8) < 0 ||
	    proc_write(q->proc, addr, code, sizeof code) < 0)
		return;
	x->vaddr[x->nv++] = addr;
}

void rx_vdso_patch(struct qz *q, struct rx *x)
{
	uint64_t lo, hi, vaddr;
	const Elf64_Sym *syms;
	const char *str;
	size_t nsyms, nstr;
	x->nv = 0;
	if (!rx_vdso_find(q, &lo, &hi) || hi - lo > (1u << 20)) {
		snprintf(x->vdso_note, sizeof x->vdso_note, "none mapped (nothing to patch)");
		return;
	}
	size_t len = (size_t)(hi - lo);
	uint8_t *img = xmalloc(len);
	if (proc_read(q->proc, lo, img, len) < 0 || !rx_vdso_base(img, len, &vaddr) ||
	    !rx_vdso_syms(img, len, &syms, &nsyms, &str, &nstr)) {
		snprintf(x->vdso_note, sizeof x->vdso_note, "not readable as ELF: time() is not logged");
		free(img);
		return;
	}
	for (size_t i = 0; i < nsyms; i++) {
		const Elf64_Sym *s = &syms[i];
		if (s->st_name >= nstr || ELF64_ST_TYPE(s->st_info) != STT_FUNC || s->st_size < 8 ||
		    !memchr(str + s->st_name, 0, nstr - s->st_name))
			continue;
		int nr = rx_vdso_nr(str + s->st_name);
		uint64_t off = s->st_value - vaddr;
		if (nr >= 0 && s->st_value >= vaddr && rx_in(len, off, 8))
			rx_vdso_one(q, x, lo + off, nr);
	}
	free(img);
	snprintf(x->vdso_note, sizeof x->vdso_note,
		 "%d function%s made system calls (time, clock_gettime, gettimeofday, getcpu)",
		 x->nv, x->nv == 1 ? "" : "s");
}

/* Only where the patch still is: after an exec the vDSO is new (and may
 * be elsewhere), and nothing of it is ours to write. */
void rx_vdso_unpatch(struct qz *q, struct rx *x)
{
	for (int i = 0; i < x->nv; i++) {
		uint8_t now[8], ours[8];
		rx_vdso_code(0, ours);
		if (proc_read(q->proc, x->vaddr[i], now, 8) == 0 && now[0] == ours[0] &&
		    !memcmp(now + 3, ours + 3, 5))
			proc_write(q->proc, x->vaddr[i], x->vorig[i], 8);
	}
	x->nv = 0;
	x->vdso_note[0] = 0;
}
