/* dwcu: walking every compilation unit of a libdwarf handle, shared by the
 * line table reader and the DIE reader. */
#ifndef QZ_DWCU_H
#define QZ_DWCU_H

#include <libdwarf.h>

typedef void (*dwcu_fn)(void *arg, Dwarf_Die cu);

/* Call fn on each CU's top DIE, in .debug_info order. */
void dwcu_each(Dwarf_Debug dbg, dwcu_fn fn, void *arg);

#endif
