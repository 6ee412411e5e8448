/* bp: the breakpoint table (user breakpoints with their locations,
 * conditions, hit and ignore counts) and the int3 sites planted in the
 * process. Several breakpoints and internal stops may share one site. */
#ifndef QZ_BP_H
#define QZ_BP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct proc;
struct expr;
struct sbuf;
struct bp;

/* What a table entry is: a plain breakpoint, a watchpoint, or one owned
 * by a module outside core (alter/: switch, suppress, call breakpoints). */
enum bp_kind {
	BP_KIND_BREAK,          /* break, tbreak */
	BP_KIND_WATCH,          /* watch on a debug register */
	BP_KIND_RWATCH,         /* rwatch: reported when read */
	BP_KIND_AWATCH,         /* awatch: read or written */
	BP_KIND_SWATCH,         /* software watch: single-stepping */
	BP_KIND_SWITCH,         /* alter/: switch */
	BP_KIND_SUPPRESS,       /* alter/: suppress */
	BP_KIND_CALL,           /* alter/: break FUNC if argN/ret/write... */
	BP_KIND_SBREAK,         /* slice/: sbreak, a slice's statement instances */
};

/* How core handles an entry a module owns: such entries have no user
 * locations (the module plants its own sites), so deleting one must tell
 * the module, and info breakpoints asks it for the row. */
struct bp_ext_ops {
	void (*free)(struct bp *b);                     /* the entry is deleted */
	void (*row)(const struct bp *b, struct sbuf *out); /* from Type onwards */
};

struct bp_loc {
	uint64_t link_addr;     /* link-time address in its module */
	uint64_t addr;          /* runtime address (link_addr + bias), 0 when
	                           the module is not loaded */
	const char *file;       /* NULL without line info */
	int line;
	char *func;             /* containing function, NULL if unknown */
	bool absolute;          /* *ADDR: stays at that address across runs */
	bool in_lib;            /* in a shared library: no address until it is
	                           loaded (core/target/solib.c places it) */
	bool disabled;          /* disable N.M: this location alone is off */
};

struct bp {
	int num;
	bool temp;              /* tbreak: deleted when hit */
	bool enabled;
	char *spec;             /* what the user typed, to re-resolve on run */
	char *cond;             /* condition text, NULL if none */
	struct expr *cond_expr;
	int hits;
	int ignore;             /* crossings still to ignore */
	struct bp_loc *locs;
	size_t nlocs;
	/* Watchpoints (core/target/watch.c) live in the same table: no locations,
	 * their expression and debug registers in watch. */
	enum bp_kind kind;
	struct watch *watch;    /* NULL but for watchpoints */
	void *ext;              /* the owning module's data (switch, suppress, call) */
	const struct bp_ext_ops *ext_ops;
};

struct bp_site {
	uint64_t addr;
	uint8_t orig;           /* the byte the int3 replaced */
	bool inserted;
	int internal;           /* internal stops (step, finish) using it; user
	                           locations are counted from the table */
	/* How to resume from this site without lifting it (see run.c): */
	uint8_t resume;         /* BP_RESUME_* */
	uint8_t len;            /* length of the replaced instruction */
	uint64_t slot;          /* out-of-line copy, BP_RESUME_SLOT */
	uint64_t target;        /* branch target, BP_RESUME_CALL/JUMP */
};

enum bp_resume {
	BP_RESUME_UNKNOWN,      /* not looked at yet */
	BP_RESUME_SLOW,         /* lift, single-step, plant again */
	BP_RESUME_SLOT,         /* run the copy in the scratch page */
	BP_RESUME_CALL,         /* emulate a direct call */
	BP_RESUME_JUMP,         /* emulate a direct jmp */
};

struct bp_table {
	struct bp *bps;
	size_t n, cap;
	int next_num;
	struct bp_site *sites;
	size_t nsites, sites_cap;
	/* The program is stopped for the user: the int3s are out of its memory
	 * (gdb's `breakpoint always-inserted off`), so that qzdb dying now
	 * leaves a clean program. Sites stay listed; bp_put_back plants them
	 * all when the program resumes. */
	bool out;
};

void bp_table_free(struct bp_table *t);
struct bp *bp_new(struct bp_table *t);
struct bp *bp_find(struct bp_table *t, int num);
void bp_delete(struct bp_table *t, struct proc *p, int num);
void bp_free_locs(struct bp *b);

/* Plant/remove an internal stop at addr (refcounted). */
int bp_site_add(struct bp_table *t, struct proc *p, uint64_t addr);
void bp_site_del(struct bp_table *t, struct proc *p, uint64_t addr);
struct bp_site *bp_site_at(struct bp_table *t, uint64_t addr);
/* Temporarily take the int3 out (to step over it) and put it back. */
int bp_site_lift(struct bp_table *t, struct proc *p, struct bp_site *s);
int bp_site_drop(struct bp_table *t, struct proc *p, struct bp_site *s);

/* Sync the sites with the enabled locations of every breakpoint: call after
 * any change to breakpoints or relocation. */
void bp_sync(struct bp_table *t, struct proc *p);
/* Take every int3 out (the program stops for the user) and put them all
 * back (it resumes); while out, adding a site only lists it. */
void bp_take_out(struct bp_table *t, struct proc *p);
void bp_put_back(struct bp_table *t, struct proc *p);
/* From a fatal signal's handler: the original bytes back, with nothing
 * but pwrite (no allocation, no locks). */
void bp_restore_raw(const struct bp_table *t, struct proc *p);
/* Forget inserted state (the process is gone) and restore the original
 * bytes if the process is alive (detach). */
void bp_remove_all(struct bp_table *t, struct proc *p);
/* Replace int3 bytes in a buffer read from [addr, addr+len) by the
 * original bytes. */
void bp_mask(const struct bp_table *t, uint64_t addr, void *buf, size_t len);

#endif
