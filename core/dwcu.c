/* dwcu: compilation unit iteration. */
#include "dwcu.h"

#include <stddef.h>

void dwcu_each(Dwarf_Debug dbg, dwcu_fn fn, void *arg)
{
	Dwarf_Unsigned hlen, typeoff, next;
	Dwarf_Half ver, asz, lsz, esz, cutype;
	Dwarf_Off abbr;
	Dwarf_Sig8 sig;
	Dwarf_Error e = NULL;

	while (dwarf_next_cu_header_d(dbg, 1, &hlen, &ver, &abbr, &asz, &lsz,
				      &esz, &sig, &typeoff, &next, &cutype,
				      &e) == DW_DLV_OK) {
		Dwarf_Die cu = NULL;
		if (dwarf_siblingof_b(dbg, NULL, 1, &cu, &e) != DW_DLV_OK)
			continue;
		fn(arg, cu);
		dwarf_dealloc_die(cu);
	}
}
