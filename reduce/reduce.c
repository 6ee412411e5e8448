/* reduce: the reduction's runs and judgement, shared by plain and guided
 * search (see reduce.h). */
#include "reduce.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/progress.h"
#include "util/util.h"

bool red_oracle_holds(const struct red_oracle *o, const struct rr_result *res)
{
	if (o->same)
		return rr_same(res, &o->orig);
	if (o->sig && !(res->how == RR_SIGNAL && res->code == o->sig))
		return false;
	if (o->has_exit && !(res->how == RR_EXIT && res->code == o->exit))
		return false;
	if (o->at && res->how != RR_REACHED)
		return false;
	if (o->has_re) {
		regmatch_t m = { 0, (regoff_t)res->output_len };
		if (!res->output || regexec(&o->re, res->output, 1, &m, REG_STARTEND) != 0)
			return false;
	}
	return true;
}

size_t red_bytes(const struct red *r, const uint32_t *ids, size_t n)
{
	size_t b = 0;
	for (size_t i = 0; i < n; i++)
		b += r->units[ids[i]].len;
	return b;
}

int red_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

uint32_t *red_expand(const struct red *r, const struct dd_cfg *c, size_t *n)
{
	if (!r->groups) {
		*n = c->n;
		return xmemdup(c->ids, (c->n ? c->n : 1) * sizeof *c->ids);
	}
	size_t k = r->nfixed;
	for (size_t i = 0; i < c->n; i++)
		k += r->ngroup[c->ids[i]];
	uint32_t *u = xmalloc((k ? k : 1) * sizeof *u);
	if (r->nfixed)
		memcpy(u, r->fixed, r->nfixed * sizeof *u);
	k = r->nfixed;
	for (size_t i = 0; i < c->n; i++) {
		memcpy(u + k, r->groups[c->ids[i]], r->ngroup[c->ids[i]] * sizeof *u);
		k += r->ngroup[c->ids[i]];
	}
	qsort(u, k, sizeof *u, red_cmp_u32);
	*n = k;
	return u;
}

/* After each batch of runs: to the front end's status line, or once a
 * second on stderr in plain mode. */
static void red_progress(struct red *r)
{
	double t = rr_now();
	char line[128];
	/* nothing kept yet (the original's own runs): the best is the original */
	snprintf(line, sizeof line, "reduce: %zu runs, %.0f s, best %zu bytes", r->dd.runs,
		 t - r->t0, r->best ? r->best_len : r->len);
	if (progress_claimed()) {
		progress_set(line);
		return;
	}
	if (!r->progress || t - r->shown < 1.0)
		return;
	r->shown = t;
	fprintf(stderr, "%s\n", line);
}

static void red_better(struct red *r, const uint32_t *u, size_t n)
{
	size_t b = red_bytes(r, u, n);
	if (r->best && b >= r->best_len)
		return;
	free(r->best);
	r->best = xmemdup(u, (n ? n : 1) * sizeof *u);
	r->nbest = n;
	r->best_len = b;
}

/* A run that failed some other way: tally it. */
static void red_other(struct red *r, const struct rr_result *res)
{
	if (res->how == RR_ERROR || (res->how == RR_EXIT && res->code == 0))
		return;
	char *what = rr_describe(res);
	for (size_t i = 0; i < r->nothers; i++)
		if (strcmp(r->others[i].what, what) == 0) {
			r->others[i].n++;
			free(what);
			return;
		}
	XGROW(r->others, r->others_cap, r->nothers + 1);
	r->others[r->nothers++] = (struct red_other){ what, 1 };
}

int red_judge(struct red *r, const struct dd_cfg *cfgs, size_t n, int *out)
{
	struct rr_input *in = xcalloc(n ? n : 1, sizeof *in);
	struct rr_result *res = xcalloc(n ? n : 1, sizeof *res);
	struct sbuf *bufs = xcalloc(n ? n : 1, sizeof *bufs);
	uint32_t **units = xcalloc(n ? n : 1, sizeof *units);
	size_t *nunits = xcalloc(n ? n : 1, sizeof *nunits);
	red_progress(r);   /* the front end shows it while the batch runs */
	for (size_t i = 0; i < n; i++) {
		units[i] = red_expand(r, &cfgs[i], &nunits[i]);
		split_join(r->data, r->units, units[i], nunits[i], &bufs[i]);
		in[i] = r->where;
		in[i].data = bufs[i].s ? bufs[i].s : "";
		in[i].len = bufs[i].len;
	}
	int rc = rr_run_many(&r->prog, in, res, n, r->jobs, &r->stop);
	for (size_t i = 0; i < n; i++) {
		out[i] = red_oracle_holds(&r->oracle, &res[i]) ? DD_FAIL : DD_PASS;
		if (out[i] == DD_FAIL && rc == 0)
			red_better(r, units[i], nunits[i]);
		else if (rc == 0)
			red_other(r, &res[i]);
		rr_result_free(&res[i]);
		sbuf_free(&bufs[i]);
		free(units[i]);
	}
	free(in);
	free(res);
	free(bufs);
	free(units);
	free(nunits);
	red_progress(r);
	return rc;
}

static int red_dd_test(void *arg, const struct dd_cfg *cfgs, size_t n, int *out)
{
	return red_judge(arg, cfgs, n, out);
}

/* Configurations are the same when their units are. */
static uint64_t red_dd_key(void *arg, const struct dd_cfg *c)
{
	size_t n;
	uint32_t *u = red_expand(arg, c, &n);
	uint64_t h = dd_hash(u, n);
	free(u);
	return h;
}

static void red_dd_step(void *arg, const struct dd_cfg *now)
{
	struct red *r = arg;
	size_t n;
	uint32_t *u = red_expand(r, now, &n);
	red_note(r, r->groups ? "tree" : "ddmin", n, red_bytes(r, u, n));
	free(u);
}

void red_dd_init(struct red *r)
{
	r->dd.test = red_dd_test;
	r->dd.key = red_dd_key;
	r->dd.step = red_dd_step;
	r->dd.arg = r;
	r->dd.batch = (size_t)r->jobs;
}

void red_note(struct red *r, const char *stage, size_t units, size_t bytes)
{
	sbuf_printf(&r->log, "  %-7s %6zu runs  %6zu bytes", stage, r->dd.runs, bytes);
	if (r->by != SPLIT_BYTES)
		sbuf_printf(&r->log, "  %6zu %s", units, split_name(r->by));
	sbuf_addc(&r->log, '\n');
}

/* Every unit of the input: 0, 1, ... */
uint32_t *red_all(const struct red *r)
{
	uint32_t *all = xmalloc((r->nunits ? r->nunits : 1) * sizeof *all);
	for (size_t i = 0; i < r->nunits; i++)
		all[i] = (uint32_t)i;
	return all;
}

int red_plain(struct red *r)
{
	uint32_t *all = red_all(r), *res;
	size_t n;
	dd_min(&r->dd, all, r->nunits, &res, &n);
	if (!r->dd.stopped) {
		free(r->best);
		r->best = res;
		r->nbest = n;
		r->best_len = red_bytes(r, res, n);
	} else {
		free(res);
	}
	free(all);
	return 0;
}
