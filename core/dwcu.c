/* dwcu: compilation unit iteration, and the sanity checks libdwarf needs
 * before it walks them. */
#include "dwcu.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

static uint64_t get_le(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* Offset of the first bad table header in a DWARF 5 list section, or -1.
 * Each table: unit length (4, or 0xffffffff and 8), version 5, address
 * size, segment selector size, offset entry count; all inside the section. */
static int64_t bad_list_header(const uint8_t *d, size_t size)
{
	size_t off = 0;
	while (off < size) {
		size_t left = size - off, lsz = 4;
		if (left < 4)
			return (int64_t)off;
		uint64_t len = get_le(d + off, 4);
		if (len == 0xffffffff) {
			if (left < 12)
				return (int64_t)off;
			len = get_le(d + off + 4, 8);
			lsz = 12;
		}
		const uint8_t *h = d + off + lsz;
		if (len < 8 || len > left - lsz || get_le(h, 2) != 5 ||
		    (h[2] != 2 && h[2] != 4 && h[2] != 8))
			return (int64_t)off;
		off += lsz + len;
	}
	return -1;
}

int dwcu_check_lists(const char *path, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;    /* the caller's own open reports it */
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	size_t shstr;
	int rc = 0;
	if (!elf || elf_getshdrstrndx(elf, &shstr) != 0)
		goto out;
	for (Elf_Scn *scn = NULL; rc == 0 && (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		const char *name;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    (sh.sh_flags & SHF_COMPRESSED) ||
		    !(name = elf_strptr(elf, shstr, sh.sh_name)) ||
		    (strcmp(name, ".debug_rnglists") && strcmp(name, ".debug_loclists")))
			continue;
		Elf_Data *data = elf_rawdata(scn, NULL);
		int64_t bad = data && data->d_buf ?
			bad_list_header(data->d_buf, data->d_size) : -1;
		if (bad >= 0) {
			snprintf(err, errlen, "%s: corrupt %s header at 0x%llx",
				 path, name, (unsigned long long)bad);
			rc = -1;
		}
	}
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return rc;
}
