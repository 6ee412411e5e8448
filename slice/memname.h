/* memname: the program's names for the memory a recording touched: a
 * global or file static and its element (`genstr[12]`, `genstr+80` past
 * its end), a local of a frame the recording saw (`name[3]` in
 * rename_one), a frame's saved return address or rbp, the heap, a
 * library's data. Frames come from the recording itself (each recorded
 * call's return-address slot is its CFA - 8; a frame already running when
 * recording began is found from an rbp-based access), so locals are
 * named also after their frame returned or the stack was smashed. */
#ifndef QZ_SLICE_MEMNAME_H
#define QZ_SLICE_MEMNAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct qz;
struct trace;
struct di_func;
struct di_type;

enum mn_kind {
	MN_NONE,        /* nothing known: shown as an address */
	MN_STATIC,      /* a global or file static (ELF symbol, DWARF type) */
	MN_STATIC_GAP,  /* in the program's data, after an object's end */
	MN_LOCAL,       /* a local or parameter of a recorded frame */
	MN_RETADDR,     /* a frame's return address */
	MN_SAVED_RBP,   /* a frame's saved rbp */
	MN_FRAME,       /* in a frame, in no variable */
	MN_HEAP,        /* a malloc block (its usable bytes, from the heap now) */
	MN_HEAP_META,   /* malloc's size field before a block */
	MN_STACK,       /* on the stack, in no frame the recording saw */
	MN_LIB,         /* a library's memory */
	MN_TLS,         /* thread-local storage (below fs_base) */
};

/* A frame the recording saw: live from record `from` to record `to`
 * (exclusive; UINT64_MAX: still live at the end). */
struct mn_frame {
	uint64_t cfa;
	const struct di_func *func;   /* NULL: not the program's code */
	uint64_t from, to;
	uint64_t pc;                  /* the last pc it ran at (runtime) */
	uint64_t call_pc;             /* the call that made it (runtime), 0 */
	bool rbp_frame;               /* push %rbp at entry: saved rbp at cfa-16 */
};

struct mn_map {
	uint64_t built_n;             /* trace records when built */
	struct mn_frame *v;
	size_t n, cap;
};

/* What one address is. */
struct mn_obj {
	enum mn_kind kind;
	const char *name;             /* variable or symbol; for a slot: NULL */
	const struct di_type *type;   /* DWARF type when known */
	uint64_t base, size;          /* the object's extent (runtime) */
	const struct mn_frame *frame; /* locals, slots, MN_FRAME */
	char where[96];               /* MN_LIB: the library; statics: the section */
};

/* Build or bring up to date the frames of the current recording. */
void mn_update(struct qz *q, struct mn_map *m);
void mn_free(struct mn_map *m);
/* What addr is at record rec (frames live then; rec past the end: at the
 * end of the recording). */
void mn_lookup(struct qz *q, const struct mn_map *m, uint64_t rec, uint64_t addr,
	       struct mn_obj *o);
/* addr as the program would write it: "genstr[12]", "genstr+80 (past its
 * 80 bytes, in .bss)", "name[3] (a local of rename_one)", "the return
 * address of rename_one", "0x7ffe...". */
const char *mn_text(struct qz *q, const struct mn_obj *o, uint64_t addr, char *buf, size_t len);
/* The object alone: "genstr[80]" (its declared size), "tempname[4096]". */
const char *mn_decl(const struct mn_obj *o, char *buf, size_t len);
/* DW_OP_fbreg N as a variable's location at link-time pc: N. */
struct di_var;
bool mn_fbreg(const struct di_var *v, uint64_t pc, int64_t *n);
/* The name of the mapping holding addr in the process's memory map:
 * "[stack]", "[heap]", a file's path, "" for anonymous memory; false if
 * none holds it (or there is no process). */
bool mn_mapping(struct qz *q, uint64_t addr, char *name, size_t len);
/* The function a frame ran, or "a library function". */
const char *mn_frame_func(const struct mn_frame *f);

#endif
