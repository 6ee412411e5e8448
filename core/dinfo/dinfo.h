/* dinfo: DWARF debugging information entries of one ELF file: functions
 * (ranges, frame base, parameters, nested scopes), variables (locals, static
 * locals, file statics, globals), types, and evaluation of DWARF location
 * expressions and location lists. Addresses are link-time; the evaluation
 * context carries the load bias. */
#ifndef QZ_DINFO_H
#define QZ_DINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* DWARF register numbers on x86-64: 0 rax 1 rdx 2 rcx 3 rbx 4 rsi 5 rdi
 * 6 rbp 7 rsp 8-15 r8-r15 16 return address (rip). */
#define DI_NREGS 17
#define DI_REG_RBP 6
#define DI_REG_RSP 7
#define DI_REG_RIP 16

enum di_kind {
	DI_VOID, DI_BASE, DI_PTR, DI_STRUCT, DI_UNION, DI_ENUM, DI_ARRAY,
	DI_TYPEDEF, DI_CONST, DI_VOLATILE, DI_FUNC
};

struct di_type;

struct di_member {
	const char *name;          /* NULL for an anonymous struct/union */
	const struct di_type *type;
	uint64_t offset;           /* byte offset in the aggregate */
	int bit_size;              /* 0 unless a bitfield */
	int bit_offset;            /* from the start of the byte at offset */
};

struct di_enumerator {
	const char *name;
	int64_t value;
};

struct di_type {
	enum di_kind kind;
	const char *name;          /* "int", "node" (no "struct "), NULL if none */
	uint64_t size;             /* bytes; arrays: whole array if known */
	int encoding;              /* DW_ATE_* for DI_BASE */
	const struct di_type *target;  /* ptr/typedef/cv: pointee; array: element;
	                                  func: return type (NULL = void) */
	struct di_member *members;
	size_t nmembers;
	struct di_enumerator *enums;
	size_t nenums;
	uint64_t *dims;            /* array dimensions, outermost first; 0 = unknown */
	size_t ndims;
	const struct di_type **params; /* func: parameter types */
	size_t nparams;
	bool varargs;
	bool declaration;          /* incomplete struct */
};

/* One location description, valid for pcs in [lo, hi) (link-time) unless
 * always is set. */
struct di_locexpr {
	const uint8_t *ops;
	size_t len;
	uint64_t lo, hi;
	bool always;
	/* A base-address entry came just before this one in its list (gdb's
	 * info address names it: "Base address 0x1060  Range ..."). */
	bool after_base;
	uint64_t base;
};

struct di_var {
	const char *name;
	const struct di_type *type;
	bool is_param;
	bool is_static;            /* static storage: a global, file static or
	                              static local */
	bool external;             /* visible from other compilation units */
	struct di_locexpr *locs;   /* none: optimized out (unless has_const) */
	size_t nlocs;
	bool has_const;            /* DW_AT_const_value */
	int64_t const_value;
	const char *decl_file;     /* interned absolute path (as in lines.h) */
	int decl_line;
};

struct di_range {
	uint64_t lo, hi;
};

struct di_scope {
	struct di_range *ranges;
	size_t nranges;
	struct di_var *vars;       /* in declaration order */
	size_t nvars;
	struct di_scope *children; /* nested lexical blocks */
	size_t nchildren;
	/* How many symbols gdb puts in this block's dictionary (variables,
	 * labels, named types, enumerators, and those of range-less nested
	 * blocks): a lexical block's dictionary is a hash table of
	 * nsyms / 5 + 1 buckets, which gives the order of its locals in
	 * gdb's `info locals` (di_scope_gdb_order). */
	size_t nsyms;
};

struct di_func;

/* One inlined call of a function inside another (DW_TAG_inlined_subroutine). */
struct di_inline {
	const char *name;            /* the inlined function's name (from DW_AT_abstract_origin) */
	struct di_range *ranges;     /* DW_AT_low_pc/high_pc or DW_AT_ranges, link-time */
	size_t nranges;
	uint64_t entry_pc;           /* DW_AT_entry_pc if present (DWARF 5 may give it as
	                                an offset from the lowest range start with a
	                                constant form) and inside the ranges, else the
	                                lowest range start */
	const char *call_file;       /* DW_AT_call_file resolved like decl_file: interned
	                                absolute path, the same string as lines_row.file */
	int call_line;               /* DW_AT_call_line */
	const char *decl_file;       /* of the abstract origin */
	int decl_line;
	struct di_var *params;       /* formal parameters of this instance in the origin's
	                                declaration order: names and types from the
	                                abstract origin, locations from this instance; a
	                                parameter with no concrete DIE is optimized out
	                                (nlocs 0) */
	size_t nparams;
	struct di_scope body;        /* the inlined body's locals and lexical blocks,
	                                like di_func.body */
	struct di_inline *children;  /* inlined calls nested inside this one (also those
	                                inside its lexical blocks) */
	size_t nchildren;
	const struct di_func *func;  /* the out-of-line function this call is in */
};

struct di_func {
	const char *name;
	uint64_t lo, hi;           /* entry point and end of the main range */
	struct di_range *ranges;   /* all ranges (DW_AT_ranges or lo/hi) */
	size_t nranges;
	struct di_locexpr frame_base;
	const struct di_type *ret; /* NULL for void */
	const struct di_type *type; /* the function as a value: "int (int, int)" */
	struct di_var *params;     /* formal parameters, in order */
	size_t nparams;
	struct di_scope body;      /* locals of the outermost block and nested
	                              lexical blocks */
	const char *decl_file;
	int decl_line;
	const char *cu_name;       /* the compilation unit's file */
	bool external;
	struct di_inline *inlines; /* top-level inlined calls, also those inside
	                              lexical blocks; calls nested in another
	                              inlined call are that call's children */
	size_t ninlines;
};

struct di_info;

/* Index the file's DIEs: only the top level of each unit is read here;
 * a function's parameters, scopes, inlined calls and call sites, a
 * variable's type and location and a type are read on first use (lookups
 * below take a const di_info but fill it in). The libdwarf handle stays
 * open until di_close. A file without .debug_info gives an empty, usable
 * object; NULL plus err only for unreadable files. */
struct di_info *di_open(const char *path, char *err, size_t errlen);
/* The same from a file already open (core/dinfo/dwcu.h), shared with its
 * line tables (di_from takes its own reference). lazy: a unit's DIEs are
 * indexed only when something inside it is first needed: a pc in its
 * ranges (di_func_at, di_callsite_at), or any lookup by name, which
 * indexes every unit (a large separate debug file such as libc's, where
 * most sessions look at a few units). */
struct dwcu_file;
struct di_info *di_from(struct dwcu_file *dw, bool lazy);
/* Whether every unit is indexed (lookups by name cost nothing more). */
bool di_index_complete(const struct di_info *di);
void di_close(struct di_info *di);

/* The function whose ranges contain pc (concrete out-of-line instances;
 * inlined subroutines are not separate functions here). di_func_at and
 * di_func_named return functions read in full. */
const struct di_func *di_func_at(const struct di_info *di, uint64_t pc);
const struct di_func *di_func_named(const struct di_info *di, const char *name);
/* di_func_at, but of several functions that begin where that one does (gas
 * gives each alias of an assembly function its own: munmap, __GI_munmap),
 * the one called name if there is one. */
const struct di_func *di_func_at_named(const struct di_info *di, uint64_t pc,
				       const char *name);
/* Every top-level function of that name (a static one in each unit that
 * has one, as gdb's `break FUNC` finds them), by address, at most max. */
size_t di_funcs_named(const struct di_info *di, const char *name,
		      const struct di_func **out, size_t max);
/* Every top-level function, by address, as di_open indexed it: only name,
 * lo, hi, ranges, external and cu_name are filled in until di_func_expand
 * (or di_func_at/di_func_named) reads the rest. GNU C nested functions are
 * not listed. */
const struct di_func *const *di_funcs(const struct di_info *di, size_t *n);
/* Read the rest of f (from di_funcs) if not done yet; returns f. */
const struct di_func *di_func_expand(const struct di_info *di, const struct di_func *f);

/* A variable with static storage by name: a global, or a file static of
 * cu_file when given (NULL: any, globals preferred). Functions and
 * enumerators are found here too, as gdb finds them by name: a function
 * as a variable of its function type at its entry address, an enumerator
 * as a constant of its enum type (visible from every unit). */
const struct di_var *di_static_named(const struct di_info *di, const char *name,
				     const char *cu_file);
/* Visible variables of func at pc, innermost scope first, each scope's
 * variables in reverse declaration order so that the first match of a name
 * is the one C would pick; parameters come last. Returns the count (never
 * more than max). Variables whose declaration scope does not cover pc are
 * left out. */
size_t di_vars_at(const struct di_func *f, uint64_t pc,
		  const struct di_var **out, size_t max);
/* The chain of inlined calls containing pc in f, innermost first; returns
 * its length (0: pc is in f's own code). When the chain is longer than max,
 * the innermost max calls are given. */
size_t di_inline_chain(const struct di_func *f, uint64_t pc,
		       const struct di_inline **out, size_t max);
/* Every inlined instance of the function called name, in address order of
 * entry_pc; returns the count (<= max). Out-of-line copies are di_funcs. */
size_t di_inline_instances(const struct di_info *di, const char *name,
			   const struct di_inline **out, size_t max);
/* di_inline_instances, reading only the units at the given offsets (a
 * name index's, inlidx.h): -1 if one of them is no unit of di. */
int di_inline_instances_in(const struct di_info *di, const char *name,
			   const uint64_t *units, size_t nunits,
			   const struct di_inline **out, size_t max, size_t *n);
/* Visible variables at pc inside an inlined call, like di_vars_at:
 * innermost scope first, params last. */
size_t di_inline_vars_at(const struct di_inline *in, uint64_t pc,
			 const struct di_var **out, size_t max);
/* Where v lives in gdb's words (info address, info scope), addresses
 * relocated by bias: "a variable in $rdi", "a complex DWARF
 * expression:\n     0: DW_OP_fbreg -36\n", "multi-location:\n  Range
 * 0x..-0x..: ...\n", "static storage at address 0x4010", "a constant with
 * value 0 (0x0)". Returns which kind it was (nothing is written for
 * DI_DESC_OPTIMIZED). */
enum { DI_DESC_COMPUTED, DI_DESC_STATIC, DI_DESC_CONST, DI_DESC_OPTIMIZED };
struct sbuf;
int di_describe_var(struct sbuf *out, const struct di_var *v, uint64_t bias);
/* A named type: "int", "struct node", "node_t", "enum color", ... */
const struct di_type *di_type_named(const struct di_info *di, const char *name);

/* Whether one of the scope's ranges holds pc (a scope without ranges, a
 * block without code, holds none). */
bool di_scope_covers(const struct di_scope *s, uint64_t pc);
/* gdb's hash of a symbol name (its dictionaries' buckets). */
uint32_t di_gdb_name_hash(const char *name);
/* Put v, the n variables of lexical block s, in the order gdb's hashed
 * dictionary lists them: by bucket, declaration order within one. */
void di_scope_gdb_order(const struct di_scope *s, const struct di_var **v, size_t n);

/* Strip typedefs and const/volatile. */
const struct di_type *di_type_strip(const struct di_type *t);

/* The state a location expression is evaluated in. */
struct di_regs {
	uint64_t r[DI_NREGS];
	bool valid[DI_NREGS];
};

typedef int (*di_read_fn)(void *arg, uint64_t addr, void *buf, size_t len);

struct di_ctx {
	const struct di_regs *regs;  /* of the frame the variable is in */
	uint64_t cfa;                /* that frame's canonical frame address */
	bool has_cfa;
	uint64_t bias;               /* load bias of the module */
	uint64_t pc;                 /* runtime pc of the frame (for location
	                                lists: pc - bias is compared) */
	const struct di_func *func;  /* for DW_OP_fbreg */
	di_read_fn read_mem;         /* returns 0 on success */
	void *arg;
	/* The value DWARF register reg had when the frame's function was
	 * entered (DW_OP_entry_value), from the caller's call site; 0 on
	 * success. NULL: entry values are optimized out. */
	int (*entry_reg)(void *entry_arg, int reg, uint64_t *val);
	void *entry_arg;
	/* The 16 bytes of xmm register n (DWARF 17 + n) into buf; 0 on
	 * success. NULL: values in xmm registers are optimized out. */
	int (*read_xmm)(void *arg, int n, uint8_t *buf);
};

enum di_loc_kind {
	DI_LOC_MEM,       /* value lives in memory at addr */
	DI_LOC_REG,       /* value lives in DWARF register reg */
	DI_LOC_VALUE,     /* DW_OP_stack_value / implicit: bytes in value */
	DI_LOC_PIECES,    /* composed from pieces: only readable, not an lvalue */
	DI_LOC_OPTIMIZED  /* not available at this pc */
};

#define DI_LOC_MAX 512    /* bytes of a value made of pieces */

struct di_loc {
	enum di_loc_kind kind;
	uint64_t addr;
	int reg;
	uint8_t value[DI_LOC_MAX];   /* DI_LOC_VALUE / DI_LOC_PIECES contents */
	size_t value_len;
	/* DI_LOC_PIECES: one bit per bit of value, set where a piece has no
	 * location (gdb prints such members <optimized out>); bits past
	 * value_len are unavailable too. */
	uint8_t unavail[DI_LOC_MAX];
	bool partial;                /* some bit of unavail is set */
};

/* A call site (DW_TAG_call_site) by its return address: the values the
 * caller put in argument registers, as DWARF expressions to evaluate in
 * the caller's frame. */
struct di_callparam {
	int reg;                     /* DWARF register the callee receives it in */
	struct di_locexpr value;     /* DW_AT_call_value */
};

struct di_callsite {
	uint64_t return_pc;          /* link-time (of a tail call: the address
	                                after its jump) */
	struct di_callparam *params;
	size_t nparams;
	bool tail_call;              /* DW_AT_call_tail_call: a jump, its
	                                caller's frame is gone */
	/* The function called (DW_AT_call_origin), as gdb takes it: a
	 * definition's entry (link-time), or a declaration's name, which the
	 * caller finds by symbol; neither: not known (an indirect call). */
	uint64_t target;
	bool has_target;
	const char *target_name;
};

const struct di_callsite *di_callsite_at(const struct di_info *di, uint64_t return_pc);
/* The tail calls made by the function whose entry is entry (link-time):
 * its call sites with the tail-call flag, also those inside its inlined
 * calls, at most max; 0 if no function begins there. */
size_t di_tail_calls(const struct di_info *di, uint64_t entry,
		     const struct di_callsite **out, size_t max);
/* Evaluate a DWARF expression to the value on top of its stack (or the
 * register/implicit value it names). 0, 1 if not available, -1 with err. */
int di_eval_value(const struct di_locexpr *le, const struct di_ctx *ctx,
		  uint64_t *out, char *err, size_t errlen);

/* Evaluate where var is in ctx. Returns 0, or -1 with err (unsupported
 * operation, unreadable memory). Static variables get addr + bias. */
int di_locate(const struct di_var *v, const struct di_ctx *ctx,
	      struct di_loc *out, char *err, size_t errlen);
/* Whether v at pc (link-time) is a pointer to an object that exists only
 * in the debug information (DW_OP_implicit_pointer: gdb's
 * <synthetic pointer>). */
bool di_var_synthetic(const struct di_var *v, uint64_t pc);
/* Read size bytes of the variable's value. Returns 0, 1 if optimized out
 * (wholly or in part), -1 with err on error. */
int di_read_var(const struct di_var *v, const struct di_ctx *ctx,
		uint8_t *buf, size_t size, char *err, size_t errlen);
/* As di_read_var, but a value available in part is read: unavail (size
 * bytes) gets a set bit for each bit of buf that is optimized out. Returns
 * 0 if some bit is available, 1 if none is, -1 with err on error. */
int di_read_var_bits(const struct di_var *v, const struct di_ctx *ctx,
		     uint8_t *buf, uint8_t *unavail, size_t size,
		     char *err, size_t errlen);

#endif
