/* lines-int: what lines.c and lines-load.c share: the line table's
 * structures and the functions one file calls in another. Not for use
 * outside core/dinfo. */
#ifndef QZ_LINES_INT_H
#define QZ_LINES_INT_H

#include "lines.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dwarf.h>
#include <libdwarf.h>

#include "dwcu.h"

/* An interned string set: open addressing, power-of-two capacity. */
struct lines_strset {
	char **slots;
	size_t cap;
	size_t n;
};

/* One compilation unit: what lines_open notes, and its rows once loaded. */
struct lines_cu {
	Dwarf_Off off;            /* of the CU DIE */
	const char **files;       /* its file table, interned */
	size_t nfiles, capfiles;
	bool loaded;
	struct lines_row *rows;   /* sorted by addr, stable */
	size_t nrows;
};

/* A range of code of a unit; units without ranges are in none. */
struct lines_range {
	uint64_t lo, hi;
	uint64_t maxhi;           /* highest hi of this and every earlier range */
	size_t cu;
};

struct lines {
	Dwarf_Debug dbg;          /* open until lines_close: units load lazily */
	int fd;                   /* dbg's file, -1 without dbg */
	struct dwcu_lines sane;   /* line tables dwarf_srcfiles may read */
	struct lines_cu *cus;
	size_t ncus, capcus;
	struct lines_range *ranges;    /* by lo */
	size_t nranges, capranges;
	size_t *noranges;         /* units with no ranges: searched for any pc */
	size_t nnoranges, capnoranges;
	size_t nloaded;
	struct lines_strset names;      /* every file of every file table */
	const char **all;         /* names in first-seen order */
	size_t nall, capall;
	/* Built once every unit is loaded (lines_rows, lines_files): */
	struct lines_row *rows;   /* all rows sorted by addr, stable */
	size_t nrows;
	const char **files;       /* names that have rows, first-seen order */
	size_t nfiles;
	bool merged;
};

/* A row while loading: ord keeps the sort stable. */
struct lines_tmp_row {
	struct lines_row r;
	bool end_seq;
	size_t ord;
};

/* lines-load.c */
/* The interned string set: the slot of s (empty if s is not there), a
 * doubling, a lookup (NULL if absent). */
char **lines_strset_slot(const struct lines_strset *set, const char *s);
void lines_strset_grow(struct lines_strset *set);
const char *lines_strset_find(const struct lines_strset *set, const char *s);
/* Drop "." components and doubled slashes; ".." is kept because it cannot
 * be resolved textually across symlinks. */
char *lines_path_normalise(const char *p);
/* Sort rows by address, keeping their order among equals, and drop empty
 * ones; returns the count. */
size_t lines_sort_rows(struct lines_tmp_row *tmp, size_t n, struct lines_row **out);
/* Read the line table of unit i. */
void lines_cu_load(struct lines *lt, size_t i);

#endif
