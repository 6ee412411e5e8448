/* dinfo-int: what the dinfo*.c files share while reading
 * DWARF: the arena everything lives in, small maps, libdwarf attribute
 * helpers. Not for use outside dinfo. */
#ifndef QZ_DINFO_INT_H
#define QZ_DINFO_INT_H

#include "dinfo.h"
#include "dwcu.h"
#include "util/hmap.h"

#include <dwarf.h>
#include <libdwarf.h>

#define MAX_REF_DEPTH 8     /* origin/specification chains longer are bogus */
#define MAX_SCOPE_DEPTH 64

struct di_arena_blk {
	struct di_arena_blk *next;
	size_t used, cap;
	_Alignas(16) unsigned char data[];
};

/* Attributes of a DIE merged with those of its origin/specification. */
struct die_desc {
	const char *name;
	const struct di_type *type;
	bool has_type;
	const char *decl_file;
	int decl_line;
	bool external;
};


/* How a DIE's abbreviation has a flag attribute. */
enum di_flag_form {
	DI_FLAG_NO,                /* absent: false */
	DI_FLAG_YES,               /* DW_FORM_flag_present: true */
	DI_FLAG_READ               /* another form: read the DIE's value */
};

/* What an abbreviation says about the attributes di_open looks for, so
 * that absent ones are not searched for DIE by DIE (each search walks all
 * of a DIE's attributes). */
struct di_abbrev {
	bool known;
	uint8_t declaration, external;   /* enum di_flag_form */
	bool origin;               /* DW_AT_abstract_origin or DW_AT_specification */
	bool sibling, children;    /* has DW_AT_sibling; has children (so, without
	                              one, libdwarf walks them to go on) */
};

/* What one compilation unit contributes to reading its DIEs. */
struct di_cu {
	Dwarf_Off off;             /* of the CU DIE */
	int version;
	const char *name;          /* DW_AT_name as recorded (may be relative) */
	const char *path;          /* that name made absolute */
	const char **files;        /* decl_file table, interned absolute; read on
	                              first use */
	size_t nfiles;
	bool files_read;
	int file_base;             /* decl_file of files[0]: 1 before DWARF 5 */
	uint64_t base;             /* CU base address for DWARF 4 ranges */
	struct di_range *ranges;   /* the unit's code */
	size_t nranges;
	bool has_inlines;          /* its abbreviations have
	                              DW_TAG_inlined_subroutine */
	bool inlines_xcu;          /* ... whose origins may be in another unit */
	bool expanded;             /* every function of it has been expanded
	                              (GNU C nested functions are found so) */
	bool indexed;              /* its top-level DIEs are in the index */
	Dwarf_Off abbrev_off;      /* its abbreviation table */
	struct di_abbrev *abbrevs; /* by abbreviation code, filled as met */
	size_t nabbrevs;
};

struct di_fent;

/* What a function has besides its public struct: where its DIE is, whether
 * the DIE has been read in full, and its call sites. */
struct di_fstate {
	Dwarf_Off off;
	struct di_cu *cu;
	bool expanded;
	struct di_callsite *calls; /* DW_TAG_call_site, by return_pc */
	size_t ncalls;
	struct di_static *as_static;  /* the function as a variable, once asked */
	struct di_fent *next_named;   /* the next function of the same name in
	                              address order */
	size_t ord;                /* creation order: ties of address keep it */
};

/* A function and its state, in the arena so that its address stays while
 * units are indexed on demand: a top-level function (in di_info.funcs)
 * or a GNU C nested one (found only when its parent is expanded). */
struct di_fent {
	struct di_func f;          /* first: a di_func pointer is a di_fent's */
	struct di_fstate s;
};

enum di_static_kind {        /* also the order of preference among equals */
	DI_ST_VAR, DI_ST_FUNC, DI_ST_ENUM
};

struct di_static {
	struct di_var var;
	const struct di_cu *cu;    /* for file statics */
	enum di_static_kind kind;
	uint64_t seq;              /* creation order: the first of equals wins */
	Dwarf_Off off;             /* DI_ST_VAR: its DIE */
	bool expanded;             /* var has type and location */
	struct di_static *next;    /* another static of the same name */
};

/* A unit with an abstract instance of a function (DW_AT_inline, no code
 * of its own): its inlined calls are there. */
struct di_origin {
	struct di_cu *cu;
	struct di_origin *next;    /* another unit with one of the same name */
};

/* A named type known by its DIE; the type is read when first asked for. */
struct di_tname {
	const char *key;           /* "struct node", "node_t", "int" */
	const struct di_type *type;   /* NULL until read */
	Dwarf_Off off;
	bool declaration;
};

struct di_func_range {
	uint64_t lo, hi;
	const struct di_func *f;
};

struct di_callsite_vec {
	struct di_callsite *v;
	size_t n, cap;
};

/* The index di_open builds from the top-level DIEs of every unit, and
 * what has been read in full since. Lookups take a const di_info but
 * expand it: it is never const in fact (di_open made it). */
struct di_info {
	struct dwcu_file *dw;      /* held until di_close: DIEs are read lazily */
	Dwarf_Debug dbg;           /* dw's reader, NULL without DWARF */
	struct di_arena_blk *arena;
	struct di_func **funcs;    /* top-level functions (each a di_fent's),
	                              by lo once di_index_sort has run */
	size_t nfuncs, capfuncs;
	size_t nsorted;            /* funcs sorted and in franges, func_names */
	struct hmap func_names; /* name -> its first di_fent by address */
	/* Units are indexed when something inside them is first needed (a
	 * library's separate debug file: libc's has 2,000 units): by pc
	 * through the units' ranges, every unit at the first lookup by
	 * name. Otherwise di_open indexes all of them. */
	bool lazy;
	bool all_indexed;
	struct di_fent **nested;
	size_t nnested, capnested;
	struct di_func_range *franges;
	size_t nfranges, capfranges;
	struct hmap statics;    /* name -> struct di_static chain */
	uint64_t nstatics;
	Dwarf_Off *enum_offs;      /* top-level enum types, read for their
	                              enumerators on the first static lookup */
	size_t nenum_offs, capenum_offs;
	bool enums_read;
	struct di_cu **cus;
	size_t ncus, capcus;
	struct hmap cu_by_off;
	struct di_cu *last_cu;     /* cu_of's cache: DIEs come CU by CU */
	struct hmap types;      /* DIE offset -> struct di_type */
	struct hmap named;      /* "struct node", "node_t", "int" -> di_tname */
	struct di_tname **bases;   /* named base types, for other spellings */
	size_t nbases, capbases;
	struct hmap paths;      /* interned file names */
	struct di_type **alltypes; /* creation order, for size fix-ups */
	size_t nalltypes, capalltypes;
	size_t nfixed;             /* alltypes before this are fixed up */
	int type_depth;            /* nesting of type reads in progress */
	struct hmap origins;    /* function name -> struct di_origin chain */
	bool xcu_expanded;         /* units with inlines_xcu are expanded */
	struct di_callsite_vec *calls;  /* of the function being expanded */
};

/* Arena: zeroed memory that lives until di_close. */
void *di_alloc(struct di_info *di, size_t n);
void *di_memdup(struct di_info *di, const void *p, size_t n);
const char *di_strdup(struct di_info *di, const char *s);
const char *di_intern_path(struct di_info *di, const char *path);


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
/* di_next when the caller knows whether libdwarf may be asked for die's
 * sibling (dwcu_next_ok, or its abbreviation says so); NULL if not. */
Dwarf_Die di_next_if(struct di_info *di, Dwarf_Die die, bool ok);

/* dinfo-type.c */
const struct di_type *di_type_at(struct di_info *di, Dwarf_Off off);
/* The DW_AT_type of die (following origin/specification); void if none. */
const struct di_type *di_type_of(struct di_info *di, Dwarf_Die die);
const struct di_type *di_void_type(void);
/* Read a type DIE met while walking (so that named types are known even
 * if nothing refers to them); false if die is not a type. */
bool di_type_visit(struct di_info *di, Dwarf_Die die);
/* Note a top-level DIE's name if it is a named type (di_open's index),
 * without reading it. */
void di_type_index(struct di_info *di, Dwarf_Die die, Dwarf_Half tag, bool declaration);

/* dinfo.c: the enumerators of an enum type just read become statics. */
void di_add_enumerators(struct di_info *di, const struct di_type *t);

/* dinfo-loc.c: how an operation's operands are encoded (dinfo-eval.c
 * decodes them the same way). */
enum di_shape {
	DI_SH_NONE, DI_SH_U1, DI_SH_S1, DI_SH_U2, DI_SH_S2, DI_SH_U4, DI_SH_S4,
	DI_SH_U8, DI_SH_S8, DI_SH_ULEB, DI_SH_SLEB, DI_SH_ULEB_SLEB,
	DI_SH_ULEB_ULEB, DI_SH_BLOCK, DI_SH_U4_SLEB, DI_SH_UNKNOWN
};
/* The operand shape of opcode op. */
enum di_shape di_op_shape(uint8_t op);
/* One decoded operation of a location expression (dinfo-eval.c): its
 * operands and where the next one starts. 0, or -1 if cut short. */
struct di_op {
	uint8_t code;
	uint64_t a, b;
	const uint8_t *blk;       /* DI_SH_BLOCK contents, a bytes */
	size_t next;
};
int di_op_decode(const uint8_t *p, size_t len, size_t pos, struct di_op *out);
/* The width of a fixed-size operand shape; 0 for the others. */
int di_fixed_width(enum di_shape sh);
/* dinfo-loc.c: the location description(s) of attribute at of die, with
 * ops re-encoded as standalone DWARF bytes (DW_OP_addrx/constx resolved). */
int di_parse_locs(struct di_info *di, Dwarf_Die die, Dwarf_Half at,
		  struct di_locexpr **out, size_t *n);

/* dinfo-read.c: DIE descriptions, origins, pc ranges */
Dwarf_Attribute di_get_attr(Dwarf_Die die, Dwarf_Half at);
Dwarf_Half di_attr_form(Dwarf_Attribute a);
Dwarf_Off di_die_offset(Dwarf_Die die);
Dwarf_Die di_origin_die(struct di_info *di, Dwarf_Die die);
/* Call fn on die, then on its abstract origin or specification, and so
 * on up the chain (bounded: a corrupt file may loop). */
void di_each_origin(struct di_info *di, Dwarf_Die die,
		    void (*fn)(struct di_info *di, Dwarf_Die die, void *arg), void *arg);
void di_describe(struct di_info *di, Dwarf_Die die, struct die_desc *d);
size_t di_read_ranges(struct di_info *di, Dwarf_Die die, struct di_range **out);
int di_attr_addr(Dwarf_Die die, Dwarf_Half at, uint64_t *out);
int di_read_entry_pc(Dwarf_Die die, uint64_t base, uint64_t *out);
bool di_ranges_cover(const struct di_range *r, size_t n, uint64_t pc);
uint64_t di_lowest_pc(const struct di_range *r, size_t n);

/* dinfo.c: units and the index di_open builds */
size_t di_ranges_of(struct di_info *di, Dwarf_Die die, uint64_t base,
	struct di_range **out);
struct di_cu *di_cu_of(struct di_info *di, Dwarf_Die die);
const char *di_file_attr(struct di_info *di, Dwarf_Die die, Dwarf_Half at);
bool di_func_note(struct di_info *di, Dwarf_Die die, struct di_cu *cu,
	const struct di_abbrev *ab, struct di_func *f);
struct di_static *di_new_static(struct di_info *di, enum di_static_kind kind,
	const char *name);
/* Lazy mode: index the units whose code covers pc; every unit. No-ops
 * once every unit is indexed. */
void di_index_pc(struct di_info *di, uint64_t pc);
void di_index_all(struct di_info *di);
/* The unit whose DIE is at off, indexed; NULL if there is none. */
struct di_cu *di_index_unit_at(struct di_info *di, uint64_t off);

/* dinfo-func.c: reading a function in full (on its first lookup) */
void di_parse_var(struct di_info *di, Dwarf_Die die, bool param,
	struct di_var *v);
void di_func_entry(Dwarf_Die die, struct di_func *f);
struct di_fstate *di_fstate_of(const struct di_info *di,
	const struct di_func *f);
void di_func_read_all(struct di_info *di, const struct di_func *f);
int di_cmp_frange(const void *a, const void *b);
void di_add_franges(struct di_info *di, const struct di_func *f);
void di_cu_expand(struct di_info *di, struct di_cu *cu);

/* dinfo-lookup.c */
const struct di_static *di_find_static(struct di_info *di, const char *name,
	const char *cu_file);

#endif
