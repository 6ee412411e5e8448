/* slice: backward dynamic slices over the recording, their members and
 * dependence edges, pruning, and the module's per-session state. */
#ifndef QZ_SLICE_SLICE_H
#define QZ_SLICE_SLICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "memname.h"
#include "rec.h"

struct qz;

enum slice_crit_kind { SLICE_ALL, SLICE_REG, SLICE_MEM };
enum slice_edge_kind { SLICE_DATA, SLICE_CONTROL };

/* 24 bytes as a value; stored compressed out of memory (edges.h): a
 * slice over a long loop has one or more per instance (93 million over
 * 100 million instructions of sl_long's loop). */
#define SLICE_DEF_NONE 0x3fffffu
struct slice_edge {
	int32_t from, to;         /* statement instances */
	uint64_t addr;            /* data through memory at addr */
	int32_t rbp_off;          /* framed: its offset from rbp (to name a local) */
	uint32_t def : 22;        /* the defining instruction (trace insns), or NONE */
	uint32_t reg : 8;         /* data through a register, or 0xff */
	uint32_t kind : 1;        /* enum slice_edge_kind */
	uint32_t framed : 1;      /* the def addressed it as [rbp+D] */
};

struct slice_range { uint64_t lo, hi; };

/* The input bytes a slice used, for reduce/ (slice-input.h): instance user
 * used the byte at addr, written by the trace's system-call write sys, or
 * (sys -1) there before the recording began. */
struct slice_use { int32_t user; int32_t sys; uint64_t addr; };
struct slice_uses { struct slice_use *v; size_t n, cap; };

struct slice {
	int id;
	int32_t crit;             /* criterion instance */
	uint8_t kind;             /* enum slice_crit_kind */
	int reg;
	uint64_t addr, size;
	char *what;               /* the criterion as typed, for messages */
	uint64_t pruned_regs;
	struct slice_range *pruned;
	size_t npruned, pruned_cap;
	struct blocks *members;   /* instances, in discovery order: slice_member_at */
	size_t nmembers;
	int32_t top;              /* the largest member */
	struct blocks *edges;     /* blocks.h: read them with slice_edge_at */
	size_t nedges;
	size_t nstmts;            /* distinct statements among members */
	double seconds;           /* time the last computation took */
	struct slice_uses *uses;  /* NULL, or where the walk reports them */
};

struct slice_sbreak { int slice; int32_t stmt; int bp; };   /* bp: its table entry */

/* record FILE:LINE on|off: an internal stop that flips recording. */
struct slice_arm {
	uint64_t link_addr, addr;
	bool on;
	bool planted;
};

struct slice_state {
	struct rec rec;
	struct slice *slices;
	size_t n, cap;
	int next_id;
	struct slice_sbreak *sb;  /* sbreak: stop at these statements' */
	size_t nsb, sb_cap;       /* instances that are slice members */
	struct slice_arm *arms;
	size_t narms, arms_cap;
	int snext;                /* snext: stop at this slice's next instance */
	/* Counting for sbreaks starts where the program's own code is first
	 * entered: internal stops at every function's entry until then, so
	 * the dynamic loader runs freely. */
	uint64_t *ff;
	size_t nff, ff_cap;
	int last_sb;              /* the slice sbreak was last set on */
	struct mn_map names;      /* frames of the recording, for naming memory */
};

struct qz_mod;
/* The module (core/target/mod.h): commands, hooks, per-session state. */
extern const struct qz_mod slice_mod;
struct rec *slice_rec(struct qz *q);
/* For a status line: "REC 12345" while recording, "SBREAK" while
 * counting for sbreaks, "" otherwise. */
const char *slice_status(struct qz *q, char *buf, size_t len);
struct slice_state *slice_state(struct qz *q);

/* The recorder started instance inst: if an sbreak wants it, report the
 * stop and return true. */
bool slice_sbreak_hit(struct qz *q, int32_t inst);

/* Compute s (members, edges) from its criterion and prunes; -1 with an
 * error if the criterion instance is not in the trace. */
int slice_compute(struct qz *q, struct slice *s);
struct slice *slice_find(struct qz *q, int id);
/* Name of a data edge's location: "$rax", a global's name, or an address. */
const char *slice_edge_label(struct qz *q, const struct slice_edge *e, char *buf, size_t len);
/* The variable a data edge through a register carried, when DWARF says
 * the variable lives in that register where it was set (-O2); NULL. */
const char *slice_reg_var(struct qz *q, const struct slice_edge *e);
/* "file.c:12#3" */
const char *slice_inst_name(struct qz *q, int32_t inst, char *buf, size_t len);
/* Edge i (< nedges) of s in *e; false for an edge the temporary file
 * lost (skip it). */
bool slice_edge_at(const struct slice *s, size_t i, struct slice_edge *e);
/* Member i (< nmembers) of s; one the temporary file lost (an I/O error
 * on qzdb's own file) reads as the criterion, which is always one. */
int32_t slice_member_at(const struct slice *s, size_t i);
/* Free what s holds (not s). */
void slice_free(struct slice *s);
/* Is instance inst a member of s? */
bool slice_has(const struct slice *s, int32_t inst);
/* Was s computed on a recording that a rollback has since cut back, or a
 * new recording replaced? Then it cannot be computed again (prune). */
bool slice_stale(struct qz *q, const struct slice *s);

#endif
