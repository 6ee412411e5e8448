/* dwcu: walking every compilation unit of a libdwarf handle and reading
 * what both the line table reader and the DIE reader need of a unit (its
 * address ranges, its abbreviations). */
#ifndef QZ_DWCU_H
#define QZ_DWCU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dwarf.h>
#include <libdwarf.h>

/* abbrev: offset of the unit's abbreviation table in .debug_abbrev. */
typedef void (*dwcu_fn)(void *arg, Dwarf_Die cu, Dwarf_Off abbrev);

/* Call fn on each CU's top DIE, in .debug_info order. */
void dwcu_each(Dwarf_Debug dbg, dwcu_fn fn, void *arg);

/* Whether the unit with the abbreviation table at abbrev can have inlined
 * calls (DW_TAG_inlined_subroutine), and *cross_unit whether their abstract
 * origins may be in another unit (a DW_AT_abstract_origin that is not a
 * unit-relative reference). Both true when the table is unreadable. */
bool dwcu_inlined_calls(Dwarf_Debug dbg, Dwarf_Off abbrev, bool *cross_unit);

/* Call add on each pc range of die: low_pc/high_pc, or DW_AT_ranges (DWARF
 * 4 .debug_ranges relative to base, the unit's base address, or DWARF 5
 * .debug_rnglists). Empty ranges and ranges at address 0 (code the linker
 * discarded) are left out. Returns the number of ranges given to add. */
typedef void (*dwcu_range_fn)(void *arg, uint64_t lo, uint64_t hi);
size_t dwcu_ranges(Dwarf_Debug dbg, Dwarf_Die die, uint64_t base,
		   dwcu_range_fn add, void *arg);

/* Offsets of the line tables in .debug_line whose header libdwarf reads
 * safely, ascending (it reads past its directory table on a DWARF 5 file
 * entry whose directory is one too many). */
struct dwcu_lines {
	uint64_t *ok;
	size_t n;
	/* Where .debug_line lies in the file, for reading a table's program
	 * again (linefno.c); raw is false if it is compressed. */
	uint64_t sec_off, sec_size;
	bool raw;
	/* A compressed section's bytes, decompressed (libc6-dbg's are). */
	uint8_t *data;
	size_t data_size;
};

/* Check the ELF file at path for what libdwarf 20210528 does not survive:
 * section headers or contents past the end of the file (it allocates
 * what they claim), bad table headers in .debug_rnglists or
 * .debug_loclists (it frees memory twice). 0, or -1 with err
 * ("PATH: corrupt .debug_rnglists header at 0x10"). When lines is not
 * NULL it gets the sane line tables (free them with dwcu_lines_free). */
/* dwarf_init_b on path opened close-on-exec (dwarf_init_path's own open
 * lacks O_CLOEXEC: the program and qzdb's children would inherit it). The
 * caller closes *fd after dwarf_finish; -1 unless DW_DLV_OK. */
int dwcu_init(const char *path, int *fd, Dwarf_Debug *dbg, Dwarf_Error *e);
int dwcu_check_file(const char *path, struct dwcu_lines *lines,
		    char *err, size_t errlen);
void dwcu_lines_free(struct dwcu_lines *lines);
/* The one open of a DWARF reader (dinfo and lines): path must be an ELF file
 * that passes dwcu_check_file (*sane gets its .debug_line index), then
 * dwcu_init. DW_DLV_OK with *fd and *dbg, DW_DLV_NO_ENTRY without DWARF
 * (*dbg NULL; *fd closed), DW_DLV_ERROR with err set and *sane freed. */
int dwcu_open(const char *path, struct dwcu_lines *sane, int *fd,
	      Dwarf_Debug *dbg, char *err, size_t errlen);
/* One open DWARF reader that the line tables and the DIE reader of a file
 * share (each open decompresses and walks .debug_info again: 30 ms for
 * libc's debug file). dbg is NULL for a file without DWARF. */
struct dwcu_file {
	Dwarf_Debug dbg;
	int fd;
	struct dwcu_lines sane;
	int refs;
};
/* dwcu_open into a new dwcu_file with one reference; NULL with err. */
struct dwcu_file *dwcu_file_open(const char *path, char *err, size_t errlen);
/* Another reference; drop one (the last closes the file). */
struct dwcu_file *dwcu_file_get(struct dwcu_file *f);
void dwcu_file_put(struct dwcu_file *f);
/* Undo dwcu_open: dwarf_finish, close fd, free *sane (dbg may be NULL:
 * a file without DWARF, whose fd is already closed). */
void dwcu_close(Dwarf_Debug dbg, int fd, struct dwcu_lines *sane);

/* Whether the DWARF 5 location list (loc) or range list that attribute a
 * of die refers to lies whole inside its table and ends there: libdwarf
 * 20210528 reads past .debug_loclists/.debug_rnglists otherwise. True
 * for an attribute that is no such list. */
bool dwcu_list_ok(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Attribute a, bool loc);

/* Whether walking the CU's DIEs with dwarf_child and dwarf_siblingof_b
 * ends: every DW_AT_sibling points forward (libdwarf 20210528 loops on
 * one pointing at itself) and DIEs nest at most 500 deep. */
bool dwcu_tree_ok(Dwarf_Debug dbg, Dwarf_Die cu);
/* Whether dwarf_siblingof_b may be asked for the DIE after die: it has a
 * DW_AT_sibling (libdwarf jumps there; di_next_if checks it went forward),
 * or, without one, the subtree libdwarf then walks is dwcu_tree_ok. Checked as each DIE is passed (di_next),
 * so a program's whole tree is never walked only to be checked (16 MB of
 * types: 0.8 s at startup). */
bool dwcu_next_ok(Dwarf_Debug dbg, Dwarf_Die die);

/* Whether dwarf_srcfiles may be asked for the CU's files: it has no line
 * table or one of lines. */
bool dwcu_files_ok(const struct dwcu_lines *lines, Dwarf_Die cu);

#endif
