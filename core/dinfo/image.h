/* image: one ELF file (executable or shared library) as the debugger sees
 * it: symbols, sections, PLT stubs, load layout. Addresses here are the
 * file's link-time addresses; callers add the module's load bias. */
#ifndef QZ_IMAGE_H
#define QZ_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct img_sym {
	const char *name;
	uint64_t addr;        /* link-time address */
	uint64_t size;
	bool is_func;
	bool is_ifunc;        /* STT_GNU_IFUNC: addr is the resolver, not the
	                         function a call reaches */
};

struct img;

/* Open an ELF file. On failure returns NULL and writes a reason a user can
 * act on into err (e.g. "not an ELF file", "No such file or directory",
 * "not an x86-64 executable"). */
struct img *img_open(const char *path, char *err, size_t errlen);
void img_close(struct img *im);

const char *img_path(const struct img *im);
bool img_is_pie(const struct img *im);          /* ET_DYN */
uint64_t img_entry(const struct img *im);       /* e_entry, link-time */
/* Has a PT_INTERP: a dynamic linker loads it (false: a static program,
 * -static-pie included, or a library). */
bool img_has_interp(const struct img *im);
/* PT_GNU_RELRO's link-time range (data made read-only once relocated);
 * false if none. */
bool img_relro(const struct img *im, uint64_t *lo, uint64_t *hi);
/* Lowest p_vaddr of the PT_LOAD segments, page aligned down: the load bias
 * is the mapping start minus this. */
uint64_t img_base_vaddr(const struct img *im);
bool img_has_debug_info(const struct img *im);  /* has .debug_info */
/* The GNU build-id as lowercase hex, or NULL. */
const char *img_build_id(const struct img *im);

/* Highest p_vaddr + p_memsz of the PT_LOAD segments (link-time). */
uint64_t img_end_vaddr(const struct img *im);
/* Add the symbols of the separate debug file at debug_path (found by
 * build-id); false if it cannot be opened. */
bool img_add_debug_symbols(struct img *im, const char *debug_path);

/* Link-time range of a section (" .text"); false if absent. */
/* The name of the allocated section holding link-time addr, or NULL. */
const char *img_section_at(const struct img *im, uint64_t addr);
bool img_section_range(const struct img *im, const char *name, uint64_t *lo, uint64_t *hi);

/* Symbol containing addr (function symbols preferred; for a symbol of size 0
 * the nearest preceding one), from .symtab and .dynsym. PLT stubs are
 * symbols too, named "puts@plt". *off is addr - sym->addr. NULL if none. */
const struct img_sym *img_sym_at(const struct img *im, uint64_t addr, uint64_t *off);
/* Exact name lookup ("main", "puts@plt"); NULL if none. */
const struct img_sym *img_sym_named(const struct img *im, const char *name);
/* The same, only if the symbol is global or weak (a library's local
 * "free" in ld.so is not the free a user means). */
const struct img_sym *img_sym_named_global(const struct img *im, const char *name);
/* True if addr is inside .plt / .plt.sec / .plt.got. */
bool img_in_plt(const struct img *im, uint64_t addr);

/* Read size bytes at link-time address addr from the file's contents
 * (SHT_NOBITS reads as zero). False if the range is not in a section. */
bool img_read(const struct img *im, uint64_t addr, void *buf, size_t size);

/* Executable section ranges, for telling code from data. */
bool img_is_code(const struct img *im, uint64_t addr);

#endif
