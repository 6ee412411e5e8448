/* lines: DWARF line tables of one ELF file: address <-> FILE:LINE over all
 * compilation units, honouring is_stmt, as gdb uses them. Addresses are
 * link-time. */
#ifndef QZ_LINES_H
#define QZ_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lines_row {
	uint64_t addr;
	uint64_t end;      /* address of the next row with a greater address in
	                      the same sequence (exclusive end of this row) */
	const char *file;  /* interned absolute path: compare pointers */
	int line;
	bool is_stmt;
};

struct lines;

/* Load every line table of the file. Returns an empty table (not NULL) for a
 * file without .debug_line; NULL plus err only for unreadable files. */
struct lines *lines_open(const char *path, char *err, size_t errlen);
/* The same from a file already open (core/dinfo/dwcu.h), shared with its
 * DIE reader: lines_from takes its own reference. */
struct dwcu_file;
struct lines *lines_from(struct dwcu_file *dw);
void lines_close(struct lines *lt);
bool lines_empty(const struct lines *lt);

/* The row that covers pc: the last row with addr <= pc in its sequence and
 * pc < end. Where several rows share one address the last of them wins (as
 * in gdb). NULL if pc has no line. */
const struct lines_row *lines_at(const struct lines *lt, uint64_t pc);

/* Rows in address order (end-of-sequence rows removed), for walking a
 * function's rows. */
const struct lines_row *lines_rows(const struct lines *lt, size_t *n);
/* Index in lines_rows() of the first row with addr >= pc. */
size_t lines_lower_bound(const struct lines *lt, uint64_t pc);

/* Resolve a user-given file name ("nullp.c", "src/nullp.c", an absolute
 * path) to the interned path; a suffix match on path components. NULL if no
 * compilation unit has such a file. If several match, the first one. */
const char *lines_file(const struct lines *lt, const char *name);
/* All distinct interned file names that have rows. */
const char **lines_files(const struct lines *lt, size_t *n);

/* Breakpoint addresses for FILE:LINE as gdb picks them: if the line has
 * is_stmt rows, for each function (given by func_of, which maps an address
 * to a function start or 0) the lowest such address; otherwise the same for
 * the smallest greater line that has rows in that file. *actual_line gets
 * the line used. Returns the count (0 if nothing at or after line), the
 * caller frees *out. */
typedef uint64_t (*lines_func_of_fn)(void *arg, uint64_t addr);
size_t lines_addrs_for(const struct lines *lt, const char *file, int line,
		       lines_func_of_fn func_of, void *arg,
		       uint64_t **out, int *actual_line);

/* The name gdb shows for an interned file of a loaded unit (its table's
 * directory and name joined: "src/util.h", "/usr/include/stdio.h"), or
 * NULL if no loaded unit names it. */
const char *lines_shown_name(const struct lines *lt, const char *file);

/* Highest line number with rows in file (for list bounds); 0 if none. */
int lines_max_line(const struct lines *lt, const char *file);

#endif
