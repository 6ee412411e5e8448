/* linefno: the file register of each row of a DWARF 5 line table, decoded
 * from the table's own bytes. libdwarf 20210528 starts each sequence of a
 * DWARF 5 table with file 0 (the unit's primary file) where the standard
 * (and gdb) start it with file 1, which gcc's tables use for a header: read
 * through libdwarf alone, a header's lines would be credited to the main
 * file. */
#ifndef QZ_LINEFNO_H
#define QZ_LINEFNO_H

#include <stddef.h>
#include <stdint.h>

/* The file number of every row (DW_LNS_copy, special opcodes and
 * DW_LNE_end_sequence, in program order) of the DWARF 5 line table at
 * table_off in .debug_line, which lies uncompressed at sec_off (sec_size
 * bytes) in the file fd. Returns the row count (the caller frees *out), or
 * 0 with *out NULL if the table cannot be read or is not DWARF 5. */
size_t linefno_rows(int fd, uint64_t sec_off, uint64_t sec_size,
		    uint64_t table_off, uint32_t **out);

/* The same from the section's bytes in memory (a compressed .debug_line,
 * decompressed). */
size_t linefno_rows_mem(const uint8_t *sec, uint64_t sec_size, uint64_t table_off,
			uint32_t **out);

#endif
