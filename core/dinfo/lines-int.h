/* lines-int: what lines.c (loading units, address lookups) and
 * lines-file.c (files, FILE:LINE to addresses) share. Not for use outside
 * core/dinfo/lines*.c. */
#ifndef QZ_LINES_INT_H
#define QZ_LINES_INT_H

#include "lines.h"
#include "dwcu.h"
#include "util/hmap.h"

#include <dwarf.h>
#include <libdwarf.h>

/* One compilation unit: what lines_open notes, and its rows once loaded. */
struct lcu {
	Dwarf_Off off;            /* of the CU DIE */
	const char **files;       /* its file table, interned */
	size_t nfiles, capfiles;
	bool loaded;
	struct lines_row *rows;   /* sorted by addr, stable */
	size_t nrows;
};

/* A range of code of a unit; units without ranges are in none. */
struct lrange {
	uint64_t lo, hi;
	uint64_t maxhi;           /* highest hi of this and every earlier range */
	size_t cu;
};

struct lines {
	struct dwcu_file *dw;     /* held until lines_close: units load lazily */
	Dwarf_Debug dbg;          /* dw's reader, NULL without DWARF */
	struct lcu *cus;
	size_t ncus, capcus;
	struct lrange *ranges;    /* by lo */
	size_t nranges, capranges;
	size_t *noranges;         /* units with no ranges: searched for any pc */
	size_t nnoranges, capnoranges;
	size_t nloaded;
	struct hmap names;        /* every file of every file table (owned) */
	struct hmap shown;        /* interned path -> the name gdb shows (owned) */
	const char **all;         /* names in first-seen order */
	size_t nall, capall;
	/* Built once every unit is loaded (lines_rows, lines_files): */
	struct lines_row *rows;   /* all rows sorted by addr, stable */
	size_t nrows;
	const char **files;       /* names that have rows, first-seen order */
	size_t nfiles;
	bool merged;
	bool files_noted;         /* every unit's file table is in names, all */
};

/* Read the line table of unit i (once). */
void lines_cu_load(struct lines *lt, size_t i);
/* Note every unit's file table (once). */
void lines_note_files(struct lines *lt);
/* Load every unit and merge their rows in address order (once). */
void lines_merge_all(struct lines *lt);
/* Units load on demand, so const lookups fill lt in: it is never const in
 * fact (lines_open made it). */
struct lines *lines_mut(const struct lines *lt);

#endif
