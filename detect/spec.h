/* spec: the rule language of bug detectors (Wang's dissertation, chapter
 * 3): a class, then rules, each a detection point (an event), a condition
 * over the event's fields and auxiliary predicates on the heap, a report
 * template and a locator (the value whose propagation chain is shown).
 *
 *   # comment
 *   class double-free "Double free"
 *   on free
 *   when addr != 0 and freed(addr)
 *   report "Double free of {addr} ({bsize} bytes, ...) at {here}"
 *   locate addr
 *
 * Each `on` starts a rule; `on exit each block` evaluates the rule once
 * per block still allocated, with addr and size bound to it. Parsed here,
 * interpreted by detect.c: no process, no session, so the parser is unit
 * tested and fuzzed on its own. */
#ifndef DETECT_SPEC_H
#define DETECT_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Detection points. The engine delivers the heap events, program start
 * and exit, segv (an access that faulted, with its address), libwrite
 * (the program's call of memcpy, memmove, memset, strcpy, stpcpy, strncpy,
 * strcat or strncat, before it writes: addr, size), canary (the stack
 * protector found a frame's guard overwritten: addr is the guard's slot)
 * and smash (a return through an overwritten return address: addr is the
 * slot, result the address it held), read and write (the program's own
 * load or store that touches a heap byte outside every live block: a
 * freed block, a block's header or the slack past its end; addr is the
 * first such byte, size the access's), uninit (a value made from memory
 * nothing wrote, heap or stack, decides a branch, forms an address or is
 * a system call's argument: addr is that memory, 0 if unknown; size the
 * bytes read from it); dereferences parse but a class using them cannot
 * be turned on yet. */
enum spec_event {
	EV_MALLOC, EV_CALLOC, EV_REALLOC, EV_FREE, EV_START, EV_EXIT, EV_SEGV,
	EV_LIBWRITE, EV_CANARY, EV_SMASH, EV_READ, EV_WRITE, EV_DEREF, EV_UNINIT, EV_COUNT
};

/* The values an event binds (which ones each event has: spec_event_has).
 * over: bytes a libwrite writes past the end of the live block holding
 * addr (0 when it stays inside, or addr is in no block); for canary and
 * smash, bytes from the end of the overflowed array to the end of the
 * overwritten slot (0 when no array is known); for read and write, bytes
 * of the access past the end of the live block it ran past. under: read
 * and write, bytes of the access before the start of the live block it
 * ran into (an underflow). */
enum spec_field { F_ADDR, F_SIZE, F_RESULT, F_OVER, F_UNDER, F_COUNT };

/* Auxiliary predicates on an address. */
enum spec_pred {
	P_ALLOCATED,   /* the start of a live block */
	P_FREED,       /* the start of a freed block, not allocated again */
	P_INBLOCK,     /* inside a live block (start included) */
	P_REACHABLE,   /* at exit: reachable from the program's roots */
	P_INFREED,     /* inside a freed block that no live block overlaps */
	P_INDIRECT,    /* at exit: unreachable, but only through another
	                  unreachable block (Valgrind's "indirectly lost") */
	P_COUNT
};

enum spec_op {
	OP_OR, OP_AND, OP_NOT, OP_PRED, OP_EQ, OP_NE, OP_LT, OP_GT, OP_LE, OP_GE
};

/* An operand: a field or a number. */
struct spec_val {
	bool is_field;
	enum spec_field field;
	uint64_t num;
};

struct spec_cond {
	enum spec_op op;
	struct spec_cond *l, *r;     /* OR/AND: both; NOT: l */
	enum spec_pred pred;         /* OP_PRED */
	struct spec_val a, b;        /* OP_PRED: a; comparisons: a op b */
};

struct spec_rule {
	enum spec_event ev;
	bool each_block;             /* on exit each block */
	struct spec_cond *cond;      /* NULL (no 'when'): every such event */
	char *report;                /* the template, {name} placeholders */
	bool has_locator;
	enum spec_field locate;
	int line;                    /* of its `on`, for messages */
};

#define SPEC_MAX_RULES 16
#define SPEC_MAX_BYTES (64 * 1024)

struct spec {
	char *name;                  /* the class: "double-free" */
	char *title;                 /* "Double free" */
	char *path;                  /* where it was read from, or NULL */
	struct spec_rule rules[SPEC_MAX_RULES];
	int nrules;
};

/* Parse len bytes of text (NULs are errors, not ends). 0 and *out set, or
 * -1 with err holding "WHERE:LINE:COL: message" (WHERE is name). */
int spec_parse(const char *text, size_t len, const char *name, struct spec **out,
	       char *err, size_t errlen);
/* Read and parse a file; the same errors, also for an unreadable file. */
int spec_load(const char *path, struct spec **out, char *err, size_t errlen);
void spec_free(struct spec *s);

const char *spec_event_name(enum spec_event e);
const char *spec_field_name(enum spec_field f);
/* Whether event e binds field f (each_block: exit binds addr and size). */
bool spec_event_has(enum spec_event e, bool each_block, enum spec_field f);
/* The report placeholders a template may use, NULL-terminated. */
extern const char *const spec_placeholders[];

#endif
