/* dwcu: walking every compilation unit of a libdwarf handle, shared by the
 * line table reader and the DIE reader. */
#ifndef QZ_DWCU_H
#define QZ_DWCU_H

#include <stddef.h>
#include <stdbool.h>

#include <dwarf.h>
#include <libdwarf.h>

typedef void (*dwcu_fn)(void *arg, Dwarf_Die cu);

/* Call fn on each CU's top DIE, in .debug_info order. */
void dwcu_each(Dwarf_Debug dbg, dwcu_fn fn, void *arg);

/* Check the ELF file at path for what libdwarf 20210528 does not survive:
 * section headers or contents past the end of the file (it allocates
 * what they claim), bad table headers in .debug_rnglists or
 * .debug_loclists (it frees memory twice). 0, or -1 with err
 * ("PATH: corrupt .debug_rnglists header at 0x10"). */
int dwcu_check_file(const char *path, char *err, size_t errlen);

/* Whether the DWARF 5 location list (loc) or range list that attribute a
 * of die refers to lies whole inside its table and ends there: libdwarf
 * 20210528 reads past .debug_loclists/.debug_rnglists otherwise. True
 * for an attribute that is no such list. */
bool dwcu_list_ok(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Attribute a, bool loc);

/* Whether walking the CU's DIEs with dwarf_child and dwarf_siblingof_b
 * ends: every DW_AT_sibling points forward (libdwarf 20210528 loops on
 * one pointing at itself) and DIEs nest at most 500 deep. */
bool dwcu_tree_ok(Dwarf_Debug dbg, Dwarf_Die cu);

#endif
