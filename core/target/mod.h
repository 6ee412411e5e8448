/* mod: the module contract. A module (alter/, ckpt/, slice/, and core's own
 * parts: watchpoints, page-protection watchpoints, shared libraries, the
 * transcript) is one const struct qz_mod: its name, and hooks on the
 * program's events, which core calls through the dispatcher below and
 * never by name. modules.c at the top lists them; mod_add registers one
 * with a session. Every hook may be NULL. */
#ifndef QZ_MOD_H
#define QZ_MOD_H

#include <stdbool.h>
#include <stdint.h>

#include "out.h"

struct cmd_def;
struct qz;
struct run_target;
struct sbuf;

struct qz_mod {
	const char *name;
	/* The module's commands (core/cmd/cmd.h), ended by an entry with a
	 * NULL name: the command table is assembled from every registered
	 * module's array, in modules.c's order. */
	const struct cmd_def *cmds;
	/* Make the module's state for a new session (the session keeps it:
	 * mod_state); NULL is a state too. fini frees it. */
	void *(*init)(struct qz *q);
	/* State that must follow the process: a checkpoint saves it and a
	 * rollback restores it (ckpt/); free_saved drops a saved copy. */
	void *(*save)(struct qz *q);
	void (*restore)(struct qz *q, const void *saved);
	void (*free_saved)(void *saved);
	void (*on_start)(struct qz *q);          /* a new process was started */
	void (*on_gone)(struct qz *q);           /* the process is gone */
	/* The process is about to be detached (alive, stopped): take out
	 * what the module changed in it that breakpoints are not (ckpt/'s
	 * patched vDSO). */
	void (*on_detach)(struct qz *q);
	void (*fini)(struct qz *q);              /* the session ends */
	/* The process stopped at an int3 site (pc is its address): a module
	 * that planted one there (bp_site_add) acts on it and returns a
	 * run_ev: RUN_AGAIN to resume silently (it may have moved the pc),
	 * RUN_STOPPED after reporting a stop, RUN_TARGET when not its own. */
	int (*on_trap)(struct qz *q, uint64_t pc);
	/* `break SPEC if COND`: 0 if COND is not the module's form, 1 if the
	 * module created the breakpoint, -1 with the error set. */
	int (*on_break)(struct qz *q, const char *spec, const char *cond, bool temp);
	/* A SIGTRAP stop at no int3 site (a debug register fired): a run_ev as
	 * for on_trap. */
	int (*on_sigtrap)(struct qz *q);
	/* The process is about to be resumed with signal sig, which will end
	 * it: return true to keep it instead (run.c reports the termination
	 * and marks the process held). */
	bool (*keep_dying)(struct qz *q, int sig);
	/* The process stopped with signal sig: a module that sent it (ckpt's
	 * interval timer) acts and returns RUN_AGAIN to resume silently,
	 * else RUN_TARGET. */
	int (*on_signal)(struct qz *q, int sig);
	/* Going back a step in a session replay (core/cmd/qzs-replay.c): mark
	 * saves the process as it is, unseen by the user (no number, not
	 * listed, nothing printed), and returns a handle > 0, or -1 with the
	 * error set; back returns to a mark quietly: 0, or -1 with the error
	 * set. ckpt/ has them. */
	int (*mark)(struct qz *q);
	int (*back)(struct qz *q, int handle);
	/* While the module is q->driver, run control hands every continue and
	 * step to it (slice/ records a region by single-stepping, with
	 * run_step_raw and run_region_check): t holds the internal stops
	 * wanted (NULL: none), one asks for a single instruction. Returns an
	 * enum run_ev. */
	int (*drive)(struct qz *q, const struct run_target *t, bool one);
	/* Every piece of text qzdb says (qz_emit), also while the session is
	 * quiet, before the front end's sink gets it: the transcript keeps
	 * what each command printed. */
	void (*on_output)(struct qz *q, enum qz_out_kind kind, const char *text);
	/* `explain` of the current stop (q->nstops names it): what the module
	 * knows of it, in plain words, appended to out; true when the module
	 * made the stop itself (explain then gives no reason of its own, such
	 * as "a breakpoint you set"). */
	bool (*explain_stop)(struct qz *q, struct sbuf *out);
	/* How many times FILE:LINE (an interned path) has started executing in
	 * this run, if the module counted it from the start of the run (slice/
	 * while it records or counts for sbreaks): true with *count. */
	bool (*instance_count)(struct qz *q, const char *file, int line, uint64_t *count);
	/* A reverse move (enum mod_reverse) where no recorded history is there
	 * to go back in (slice/ records none): a module that can go back
	 * another way (ckpt/: re-execution from a checkpoint with the logged
	 * system calls) does and returns 0, or -1 with the error set;
	 * MOD_UNCLAIMED when it cannot (no checkpoints, no log). */
	int (*reverse)(struct qz *q, int how);
	/* The module can take the program back now (slice/ while it records
	 * with an undo log): `set exec-direction reverse` is accepted, and
	 * while it is set the forward commands run their reverse-* twins. */
	bool (*can_reverse)(struct qz *q);
};

#define MOD_UNCLAIMED (-2)
enum mod_reverse { MOD_REV_CONTINUE, MOD_REV_STEP, MOD_REV_NEXT, MOD_REV_FINISH };

/* Modules a session can hold: core's parts and the modules of modules.c. */
#define QZ_MAX_MODS 16

/* Register m with the session and make its state (once per session, in
 * modules.c's order: the order every hook is called in, fini in reverse). */
void mod_add(struct qz *q, const struct qz_mod *m);
/* The i-th module any session of this process registered (in the order
 * they first were), or NULL past the last: the command table is the same
 * for every session, so it is read from these. */
const struct qz_mod *mod_known(int i);
/* The registered module named name, or NULL. */
const struct qz_mod *mod_find(struct qz *q, const char *name);
/* The state m's init made in this session; NULL if m is not registered. */
void *mod_state(struct qz *q, const struct qz_mod *m);

/* The dispatcher: each calls the hook of every registered module that has
 * one, in order. */
void mod_start(struct qz *q);
void mod_gone(struct qz *q);
void mod_detach(struct qz *q);
void mod_fini(struct qz *q);
/* The first module's answer that is not 0 (on_break) or not RUN_TARGET
 * (on_trap, on_sigtrap); 0 or RUN_TARGET when none claims it. */
int mod_break(struct qz *q, const char *spec, const char *cond, bool temp);
int mod_trap(struct qz *q, uint64_t pc);
int mod_sigtrap(struct qz *q);
/* A module claimed signal sig (its on_signal said RUN_AGAIN). */
bool mod_signal(struct qz *q, int sig);
/* A module keeps the process that signal sig would end. */
bool mod_keep_dying(struct qz *q, int sig);
/* Every module's explain_stop, in order; true if one made the stop. */
bool mod_explain_stop(struct qz *q, struct sbuf *out);
/* Marks through the first module that makes them: a handle > 0, or -1
 * with the error set (also when no module can). */
int mod_mark(struct qz *q);
int mod_back(struct qz *q, int handle);
/* Hand text to every module's on_output. */
void mod_output(struct qz *q, enum qz_out_kind kind, const char *text);
/* The first module that counted FILE:LINE from the start of the run. */
bool mod_instance_count(struct qz *q, const char *file, int line, uint64_t *count);
/* The first module's reverse that claims the move how (enum
 * mod_reverse); MOD_UNCLAIMED if none does. */
int mod_reverse(struct qz *q, int how);
/* A module can take the program back now. */
bool mod_can_reverse(struct qz *q);
/* q->driver's drive. */
int mod_drive(struct qz *q, const struct run_target *t, bool one);
/* Checkpoints: saved[i] is module i's copy (QZ_MAX_MODS slots). */
void mod_save(struct qz *q, void **saved);
void mod_restore(struct qz *q, void *const *saved);
void mod_free_saved(struct qz *q, void **saved);

#endif
