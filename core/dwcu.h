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

/* Check the table headers of .debug_rnglists and .debug_loclists in the
 * ELF file at path: libdwarf 20210528 frees memory twice on a bad one.
 * 0, or -1 with err ("PATH: corrupt .debug_rnglists header at 0x10"). */
int dwcu_check_lists(const char *path, char *err, size_t errlen);

/* Whether the DWARF 5 location list (loc) or range list that attribute a
 * of die refers to lies whole inside its table and ends there: libdwarf
 * 20210528 reads past .debug_loclists/.debug_rnglists otherwise. True
 * for an attribute that is no such list. */
bool dwcu_list_ok(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Attribute a, bool loc);

#endif
