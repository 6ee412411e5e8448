/* lcode: the machine code of one source line, as switch, suppress and
 * instance counting need it: the line's address ranges (every block of the
 * line in one function), where control enters them, and the branches by
 * which it leaves them (the line's exits). Addresses are link-time. */
#ifndef ALTER_LCODE_H
#define ALTER_LCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct qz;
struct qz_module;
struct dis_insn;

/* Roles of an instruction of the line that alter traps at. */
enum lc_role {
	LC_ENTRY = 1,    /* first address of a range: control enters here */
	LC_MARK = 2,     /* a branch inside the line to an entry (not a new
	                    execution when it is taken) */
	LC_DECIDE = 4,   /* a branch with a successor outside the line */
	LC_FLIP = 8,     /* a setcc or cmovcc: a branchless decision */
};

struct lc_site {
	uint64_t addr;
	int roles;
	int cc;          /* condition code of a jcc (0-15), -1 for jmp, -2 for
	                    a plain instruction (entry only) */
	uint64_t target, next;   /* taken target, fall-through address */
	int flip_cc;             /* LC_FLIP: the condition code it reads */
};

#define LC_MAX_EXITS 16
#define LC_MAX_COPIES 16

struct lcode {
	const char *file;          /* interned path */
	int line;
	uint64_t (*ranges)[2];     /* [lo, hi), merged, by address */
	size_t nranges;
	struct lc_site *sites;
	size_t nsites;
	uint64_t exits[LC_MAX_EXITS];  /* addresses outside the line reached */
	size_t nexits;
	bool exit_ret;             /* a ret leaves the line */
	bool exit_indirect;        /* an indirect jump (jump table) leaves it */
	uint64_t fallout;          /* a non-branch instruction that falls out of
	                              the line (0 if none) */
	/* The decision a switch inverts: its two outcomes. The line's two exits;
	 * or, for a line with one exit (`x = c ? a : b;`, `if (c) x++;` on one
	 * line), the two ways out of its condition: the jcc blocks reachable
	 * from the entry. ndexits is 2 only when that is well defined. */
	uint64_t dexits[2];
	int ndexits;
	size_t nflips;             /* LC_FLIP sites: switched by their flags */
	bool dexits_inside;        /* the outcomes are arms inside the line */
	/* The line's copies: its own code in each function, and each inlined
	 * call of the function it is in (-O2); each with its own decision. */
	struct lc_copy {
		uint64_t lo, hi;       /* its hull */
		bool decided;          /* dexits hold its two outcomes */
		uint64_t dexits[2];
		bool inside;           /* as dexits_inside */
	} *copies;
	size_t ncopies;
	bool straight;             /* not a loop: one entry (the first range) per
	                              execution, so only that one counts */
	struct lc_insn *insns;     /* every instruction of the ranges */
	size_t ninsns;
};

struct lc_insn {
	uint64_t addr, next;
	int cc;                    /* as lc_site.cc; -4 for anything else */
	uint64_t target;
};

/* Analyse FILE:LINE in module m (which has line info). 0, or -1 with the
 * session's error set (no such line, no code on it). */
int lcode_build(struct qz *q, struct qz_module *m, const char *file, int line,
		struct lcode *lc);
void lcode_free(struct lcode *lc);
/* Decode the instruction at link-time a, which ends before hi. */
bool lcode_fetch(struct qz_module *m, uint64_t a, uint64_t hi, struct dis_insn *d);
bool lcode_inside(const struct lcode *lc, uint64_t addr);
struct lc_site *lcode_site(struct lcode *lc, uint64_t addr);
bool lcode_is_dexit(const struct lcode *lc, uint64_t addr);
/* Flags that make condition code cc come out the other way than with
 * rflags (the fewest bits changed). */
uint64_t lcode_flip_flags(int cc, uint64_t rflags);
bool lcode_cc_holds(int cc, uint64_t rflags);
/* The other outcome of the copy whose decision succ is one of (0 if
 * none); inside: that copy's outcomes are arms inside the line. */
uint64_t lcode_other_exit(const struct lcode *lc, uint64_t succ, bool *inside);
/* The copy whose hull holds addr. */
bool lcode_copy_of(const struct lcode *lc, uint64_t addr, const struct lc_copy **c);
/* Where a branch site goes with these flags (RFLAGS). */
uint64_t lcode_successor(const struct lc_site *s, uint64_t rflags);
/* "0x1223 (line 30), 0x122d (line 27)" for messages; caller frees. */
char *lcode_exits_text(struct qz_module *m, const struct lcode *lc);

#endif
