/* dinfo-int: what dinfo.c, dinfo-type.c and dinfo-loc.c share while reading
 * DWARF: the arena everything lives in, small maps, libdwarf attribute
 * helpers. Not for use outside dinfo. */
#ifndef QZ_DINFO_INT_H
#define QZ_DINFO_INT_H

#include "dinfo.h"

#include <dwarf.h>
#include <libdwarf.h>

/* Map from a DIE offset to a pointer; NULL values are never stored. */
struct di_omap {
	uint64_t *keys;
	void **vals;
	size_t cap, n;
};

/* Map from a string to a pointer; keys are owned by the caller. */
struct di_smap {
	const char **keys;
	void **vals;
	size_t cap, n;
};

struct di_arena_blk;

/* What one compilation unit contributes to reading its DIEs. */
struct di_cu {
	Dwarf_Off off;             /* of the CU DIE */
	int version;
	const char *name;          /* DW_AT_name as recorded (may be relative) */
	const char *path;          /* that name made absolute */
	const char **files;        /* decl_file table, interned absolute */
	size_t nfiles;
	int file_base;             /* decl_file of files[0]: 1 before DWARF 5 */
	uint64_t base;             /* CU base address for DWARF 4 ranges */
};

struct di_static {
	struct di_var var;
	const struct di_cu *cu;    /* for file statics */
};

struct di_func_range {
	uint64_t lo, hi;
	const struct di_func *f;
};

struct di_info {
	Dwarf_Debug dbg;           /* only while di_open reads */
	struct di_arena_blk *arena;
	struct di_func *funcs;
	size_t nfuncs, capfuncs;
	struct di_func_range *franges;
	size_t nfranges;
	struct di_static *statics;
	size_t nstatics, capstatics;
	struct di_cu **cus;
	size_t ncus, capcus;
	struct di_cu *last_cu;     /* cu_of's cache: DIEs come CU by CU */
	struct di_omap types;      /* DIE offset -> struct di_type */
	struct di_smap named;      /* "struct node", "node_t", "int" -> type */
	struct di_smap paths;      /* interned file names */
	struct di_type **alltypes; /* creation order, for size fix-ups */
	size_t nalltypes, capalltypes;
	const struct di_inline **inlines; /* every inlined call at any depth,
	                                     by entry_pc, for lookups by name */
	size_t ninlines, capinlines;
	struct di_callsite *calls; /* DW_TAG_call_site, by return_pc */
	size_t ncalls, capcalls;
};

/* Arena: zeroed memory that lives until di_close. */
void *di_alloc(struct di_info *di, size_t n);
void *di_memdup(struct di_info *di, const void *p, size_t n);
const char *di_strdup(struct di_info *di, const char *s);
const char *di_intern_path(struct di_info *di, const char *path);

void *di_omap_get(const struct di_omap *m, uint64_t key);
void di_omap_put(struct di_omap *m, uint64_t key, void *val);
void *di_smap_get(const struct di_smap *m, const char *key);
void di_smap_put(struct di_smap *m, const char *key, void *val);

/* libdwarf attribute helpers: 0 on success, -1 if absent or unreadable. */
int di_attr_u64(Dwarf_Die die, Dwarf_Half at, uint64_t *out);
int di_attr_s64(Dwarf_Die die, Dwarf_Half at, int64_t *out);
int di_attr_ref(Dwarf_Die die, Dwarf_Half at, Dwarf_Off *out);
bool di_attr_flag(Dwarf_Die die, Dwarf_Half at);
/* The DIE's name, following DW_AT_abstract_origin/specification. */
const char *di_die_name(struct di_info *di, Dwarf_Die die);
Dwarf_Die di_offdie(struct di_info *di, Dwarf_Off off);
Dwarf_Half di_tag(Dwarf_Die die);
/* Iterate children: first child, then the next sibling (freeing the
 * previous one); NULL at the end. */
Dwarf_Die di_child(Dwarf_Die die);
Dwarf_Die di_next(struct di_info *di, Dwarf_Die die);

/* dinfo-type.c */
const struct di_type *di_type_at(struct di_info *di, Dwarf_Off off);
/* The DW_AT_type of die (following origin/specification); void if none. */
const struct di_type *di_type_of(struct di_info *di, Dwarf_Die die);
const struct di_type *di_void_type(void);
/* Read a type DIE met while walking (so that named types are known even
 * if nothing refers to them); false if die is not a type. */
bool di_type_visit(struct di_info *di, Dwarf_Die die);
void di_types_finish(struct di_info *di);

/* dinfo-loc.c: the location description(s) of attribute at of die, with
 * ops re-encoded as standalone DWARF bytes (DW_OP_addrx/constx resolved). */
int di_parse_locs(struct di_info *di, Dwarf_Die die, Dwarf_Half at,
		  struct di_locexpr **out, size_t *n);

#endif
