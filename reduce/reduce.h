/* reduce: shrinking a failing input (issue 21). A reduction runs the
 * program natively many times (run.h) on candidate inputs cut from the
 * original (split.h), asks the oracle whether each fails the same way,
 * and searches with ddmin (dd.h), alone (--plain) or guided by the
 * relevant-input analysis of a recorded failing run (guide.c). */
#ifndef QZ_REDUCE_REDUCE_H
#define QZ_REDUCE_REDUCE_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dd.h"
#include "run.h"
#include "split.h"

struct qz;

/* Which runs count as failing. */
struct red_oracle {
	bool same;                 /* the original's failure (the default) */
	struct rr_result orig;
	int sig;                   /* --signal: killed by it (0: any) */
	bool has_exit;             /* --exit N */
	int exit;
	bool at;                   /* --at FILE:LINE reached */
	bool has_re;               /* --output REGEX matches stdout+stderr */
	regex_t re;
};

struct red {
	struct qz *q;
	struct rr_prog prog;
	struct rr_input where;     /* where the input goes; data: the original */
	char *data;
	size_t len;
	char *min_path;            /* where the result goes: NAME.min */
	char *stdin_file;          /* stdin FILE: the file */
	const char *what;          /* "input.txt", "standard input", "argv[1]" */
	int by;                    /* enum split_by */
	struct split_unit *units;
	size_t nunits;
	struct red_oracle oracle;
	int jobs;
	bool plain;
	bool unconfined;           /* --no-sandbox */
	bool progress;             /* once a second on stderr */
	struct dd dd;
	/* The ids dd works on stand for groups of units (guided levels), and
	 * fixed units are in every candidate; NULL groups: ids are units. */
	uint32_t **groups;
	size_t *ngroup;
	uint32_t *fixed;
	size_t nfixed;
	volatile bool stop;        /* Ctrl-C: keep the best so far */
	double t0, shown;
	uint32_t *best;            /* units of the smallest failing input */
	size_t nbest, best_len;
	struct sbuf log;           /* each step's size */
	size_t orig_runs;          /* runs of the original (determinism) */
	/* Failures seen but not accepted (another line, another signal, a
	 * hang): what each was and how many runs ended so. */
	struct red_other { char *what; size_t n; } *others;
	size_t nothers, others_cap;
};

struct qz_mod;
/* The module (core/target/mod.h): the reduce command. */
extern const struct qz_mod reduce_mod;

/* qsort's comparison of uint32_t (unit ids) */
int red_cmp_u32(const void *a, const void *b);
/* Does a run meet the oracle? */
bool red_oracle_holds(const struct red_oracle *o, const struct rr_result *res);
/* Run candidates (unit id lists) and judge them: out[i] enum dd_outcome. */
int red_judge(struct red *r, const struct dd_cfg *cfgs, size_t n, int *out);
/* dd's hooks for r: test through the groups, key by the units. */
void red_dd_init(struct red *r);
/* The units of a configuration of dd ids (groups expanded, fixed units
 * added, in input order). */
uint32_t *red_expand(const struct red *r, const struct dd_cfg *c, size_t *n);
/* A step of the search reached size bytes: into the log. */
void red_note(struct red *r, const char *stage, size_t units, size_t bytes);
size_t red_bytes(const struct red *r, const uint32_t *ids, size_t n);

/* Every unit of the input: 0, 1, ... (malloc'd). */
uint32_t *red_all(const struct red *r);
/* Plain ddmin over every unit; the result in r->best. */
int red_plain(struct red *r);
/* The analysis and the tree search; 0 and the result in r->best, -1 with
 * the error set. Falls back to plain ddmin when the analysis finds
 * nothing to go on (says so in the log). */
int red_guided(struct red *r);

#endif
