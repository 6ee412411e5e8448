/* dd: delta debugging's minimising algorithm (ddmin, Zeller and
 * Hildebrandt), pure: it knows configurations (lists of unit ids) and
 * outcomes, never programs or files. A test function evaluates a batch
 * of configurations (in parallel if it can); the engine consumes the
 * outcomes in the order the sequential algorithm would, so the result and
 * the count of runs are the same whatever the batch size. Outcomes are
 * cached: no configuration is counted twice. */
#ifndef QZ_REDUCE_DD_H
#define QZ_REDUCE_DD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/hmap.h"

enum dd_outcome { DD_PASS = 1, DD_FAIL, DD_UNRESOLVED };

/* One configuration: n unit ids, in the input's order. */
struct dd_cfg { const uint32_t *ids; size_t n; };

/* Evaluate cfgs[0..n): out[i] is an enum dd_outcome. Returns 0, or -1 to
 * stop the search (interrupted): the best configuration so far stands. */
typedef int (*dd_test_fn)(void *arg, const struct dd_cfg *cfgs, size_t n, int *out);
/* The cache key of a configuration (NULL: a hash of its ids). Callers
 * whose ids stand for groups of units key by the units. */
typedef uint64_t (*dd_key_fn)(void *arg, const struct dd_cfg *cfg);
/* The search moved to a smaller failing configuration. */
typedef void (*dd_step_fn)(void *arg, const struct dd_cfg *now);

struct dd {
	dd_test_fn test;
	dd_key_fn key;
	dd_step_fn step;
	void *arg;
	size_t batch;             /* configurations per call of test (>= 1) */
	/* Don't test the subsets, only the complements (the dissertation's
	 * IDTHDD levels: step 1 has already cut away the large irrelevant
	 * parts, so small subsets rarely fail). */
	bool complements_only;
	/* At single units, go on as dd_min_linear does rather than start
	 * over after each removal (the result is 1-minimal either way). */
	bool linear_tail;
	/* After a chunk goes, go on from the next chunk at the same size
	 * rather than start the granularity over (complements only; the
	 * linear pass at single units then makes the result 1-minimal):
	 * about two passes of the input per halving of the chunk size. */
	bool sweep;
	size_t runs;              /* configurations the algorithm needed */
	size_t launched;          /* configurations test evaluated (more: a
	                             batch runs ahead) */
	size_t cached;            /* answered from the cache */
	bool stopped;             /* test asked to stop */
	struct hmap cache;        /* key -> outcome (as a pointer) */
	struct hmap ahead;        /* evaluated ahead, not yet needed */
};

/* Minimise ids[0..n) (a failing configuration) to a 1-minimal one
 * (removing any one unit makes it pass or unresolved): *out (malloc'd,
 * *nout ids). Returns 0, or -1 when the search was stopped (then *out is
 * the smallest failing configuration found). The cache and the counts
 * carry over between calls on the same d. */
int dd_min(struct dd *d, const uint32_t *ids, size_t n, uint32_t **out, size_t *nout);
/* The same result property (1-minimal) by removing one unit at a time,
 * going on from the last removal: about a pass of the input per pass
 * instead of per unit removed, for the last stage of a guided search,
 * where few units go. */
int dd_min_linear(struct dd *d, const uint32_t *ids, size_t n, uint32_t **out, size_t *nout);
/* The outcome of one configuration, through the cache (counted as a run
 * when it is not there). */
int dd_test1(struct dd *d, const uint32_t *ids, size_t n);
/* Record an outcome known from elsewhere (the original input's). */
void dd_known(struct dd *d, const uint32_t *ids, size_t n, int outcome);
void dd_free(struct dd *d);
/* The default key: a hash of n ids (never 0). */
uint64_t dd_hash(const uint32_t *ids, size_t n);

#endif
