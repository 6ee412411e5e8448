/* guide: relevant-input guided reduction, the dissertation's IDTHDD
 * (chapter 4.2) over qzdb's recorder and slicer:
 *   1. record the failing run, slice back from the failure, and keep the
 *      input bytes the failure depends on (data and control): one run
 *      checks that they alone still fail;
 *   2. build the input decomposition tree from the run's own control
 *      structure: each unit hangs on the first instance that read it,
 *      each instance on its dynamic control parent, a loop's iterations
 *      side by side; chains collapsed. So the bytes one call of a lexer
 *      read are one node, the tokens one parse routine read one above
 *      them (a recursive descent parser's constructs nest so); a
 *      table-driven parser, whose every step decides the rest of the
 *      parse, gives a chain: token after token, each tried once;
 *   3. search it level by level: at each level the nodes' input subsets
 *      are removed whole (complements only), going on after a removal
 *      rather than starting over; leaves that stay are kept, surviving
 *      inner nodes open into their children;
 * then a unit at a time over what is left makes the result 1-minimal
 * (going on after each removal, and ending with a pass that removes
 * nothing; the units one instance read together are a level of their
 * own, so no coarser search is needed there).
 * The dissertation builds its tree breadth-first over every dependence
 * edge from the failure; on a lexer that makes every byte a small group
 * of its own (GNU bc: 1 to 6 bytes a step, tens of runs each), since
 * every byte read decides the lexer's control flow. */
#include "reduce.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/qzs.h"
#include "proc/proc.h"
#include "slice/slice-input.h"
#include "target/out.h"
#include "target/session.h"

extern char **environ;

/* The input as the recorded run saw it: which bytes it read from where. */
struct gd_src {
	uint64_t file;             /* file id of the input (file, stdin) */
	uint64_t arg_lo, arg_hi;   /* argv[N]'s bytes in memory (arg) */
};

/* One node of the decomposition tree: its input units, its children. */
struct gd_node {
	uint32_t *units;
	size_t nunits;
	size_t *kids;              /* indexes into the node array */
	size_t nkids;
};

struct gd_tree {
	struct gd_node *v;
	size_t n, cap;
};

/* argv[argn]'s address range, from /proc/PID/stat's arg_start and the
 * lengths of the arguments before it. */
static int gd_arg_range(struct red *r, pid_t pid, struct gd_src *src)
{
	char path[64], buf[4096];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "re");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	unsigned long long start = 0;
	for (int field = 2; p && *p && field < 48; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p, " %llu", &start) != 1 || !start)
		return -1;
	/* the arguments before it as the process has them (its argv[0] is
	 * whatever the launch gave) */
	snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
	f = fopen(path, "re");
	uint64_t a = start;
	int c, k = 0;
	while (f && k < r->where.argn && (c = fgetc(f)) != EOF) {
		a++;
		k += c == 0;
	}
	if (f)
		fclose(f);
	if (k < r->where.argn)
		return -1;
	src->arg_lo = a;
	src->arg_hi = a + r->len;
	return 0;
}

/* Record the failing run under this session and slice it. */
static int gd_record(struct red *r, struct slice_input *in, struct gd_src *src)
{
	struct qz *q = r->q;
	char *old_in = q->stdin_path;
	bool old_quiet = q->quiet;
	struct stat st;
	const char *file = r->where.where == RR_FILE ? r->prog.argv[r->where.argn]
			 : r->where.where == RR_STDIN ? r->stdin_file : NULL;
	if (file && stat(file, &st) == 0)
		src->file = slice_input_file_id(st.st_dev, st.st_ino);
	if (r->where.where == RR_STDIN)
		q->stdin_path = xstrdup(r->stdin_file);
	q->quiet = true;
	qzs_view(q, true);   /* the analysis's own run is no part of the session */
	char **env = environ;   /* the runs' environment for the launch */
	environ = rr_env;
	int rc = cmd_run(q, "start") == CMD_OK && qz_running(q) ? 0 : -1;
	environ = env;
	if (rc == 0 && r->where.where == RR_ARG)
		rc = gd_arg_range(r, proc_pid(q->proc), src);
	if (rc == 0)
		rc = cmd_run(q, "record on") == CMD_OK ? 0 : -1;
	/* on to the failure, past the user's breakpoints and watchpoints */
	for (int i = 0; rc == 0 && i < 10000 && qz_running(q) && q->stop != QZ_STOP_SIGNAL; i++)
		if (cmd_run(q, "continue") != CMD_OK)
			break;
	if (rc == 0)
		rc = slice_input_deps(q, in);
	if (qz_running(q))
		cmd_run(q, "kill");
	qzs_view(q, false);
	q->quiet = old_quiet;
	if (r->where.where == RR_STDIN) {
		free(q->stdin_path);
		q->stdin_path = old_in;
	}
	return rc;
}

/* The input byte a use read, or -1 if it is not the input's. */
static int64_t gd_byte(const struct red *r, const struct slice_input *in,
		       const struct gd_src *src, const struct slice_input_use *u)
{
	if (u->sys < 0) {
		if (u->addr >= src->arg_lo && u->addr < src->arg_hi)
			return (int64_t)(u->addr - src->arg_lo);
		return -1;
	}
	const struct slice_input_sys *s = &in->sys[u->sys];
	if (!src->file || s->file != src->file || s->off < 0)
		return -1;
	int64_t b = s->off + (int64_t)(u->addr - s->addr);
	return b >= 0 && (uint64_t)b < r->len ? b : -1;
}

static size_t gd_add(struct gd_tree *t, uint32_t *units, size_t n, size_t *kids, size_t nkids)
{
	XGROW(t->v, t->cap, t->n + 1);
	t->v[t->n] = (struct gd_node){ units, n, kids, nkids };
	return t->n++;
}

/* Compressed adjacency: for each of n nodes, its targets. */
struct gd_adj { size_t *start; int32_t *to; };

static void gd_adj(struct gd_adj *a, size_t n, const int32_t *from, const int32_t *to, size_t m)
{
	a->start = xcalloc(n + 1, sizeof *a->start);
	a->to = xmalloc((m ? m : 1) * sizeof *a->to);
	for (size_t i = 0; i < m; i++)
		a->start[from[i] + 1]++;
	for (size_t i = 0; i < n; i++)
		a->start[i + 1] += a->start[i];
	size_t *fill = xmemdup(a->start, (n + 1) * sizeof *fill);
	for (size_t i = 0; i < m; i++)
		a->to[fill[from[i]]++] = to[i];
	free(fill);
}

/* The control tree over the readers: each instance's dynamic control
 * parent (its first control edge in the slice), from the owners up to
 * the run's top, where a virtual root (id n - 1) takes them all. A call's
 * statements hang on the caller's branch in effect, so a call's reads
 * stay together. A loop's iterations are siblings: the recorder lets a
 * loop's branch replace its own earlier instance, and an instance whose
 * control parent is an earlier instance of its own statement (a loop
 * header that calls the reader, `while ((c = next()))`) is that loop's
 * next iteration: it hangs beside it. A cycle (a statement that spans its
 * own branch) is cut. order[0..k): top-down (parents first). */
static size_t gd_ctl(const struct slice_input *in, size_t n, const int32_t *owner, size_t nowner,
		     int32_t *order, int32_t *parent)
{
	int32_t root = (int32_t)(n - 1), *depth = xmalloc(n * sizeof *depth);
	uint8_t *state = xcalloc(n, 1);   /* 1 on the walk now, 2 placed */
	int32_t *path = xmalloc(n * sizeof *path);
	for (size_t i = 0; i < n; i++)
		parent[i] = -1;
	int32_t *prev = depth;   /* until the walk: the iteration before, -1 */
	for (size_t i = 0; i < n; i++)
		prev[i] = -1;
	for (size_t i = 0; i < in->nedges; i++) {
		const struct slice_input_edge *e = &in->edges[i];
		if (!e->control || e->from < 0 || e->to < 0 || (size_t)e->from >= n - 1 ||
		    (size_t)e->to >= n - 1 || parent[e->from] >= 0 || prev[e->from] >= 0 ||
		    e->from == e->to)
			continue;
		if (e->again && e->to < e->from)
			prev[e->from] = e->to;
		else
			parent[e->from] = e->to;
	}
	/* a loop's next iteration hangs beside the one before it, not under
	 * it (ids grow with time: the one before is settled first) */
	for (size_t i = 0; i < n - 1; i++)
		if (prev[i] >= 0)
			parent[i] = parent[prev[i]];
	state[root] = 2;
	depth[root] = 0;
	size_t k = 0, maxd = 0;
	order[k++] = root;
	for (size_t u = 0; u < nowner; u++) {
		size_t np = 0;
		int32_t v = owner[u];
		while (v >= 0 && !state[v]) {
			state[v] = 1;
			path[np++] = v;
			v = parent[v];
		}
		if (v >= 0 && state[v] == 1)
			v = -1;   /* the walk met itself: cut there */
		if (np && v < 0)
			parent[path[np - 1]] = v = root;
		for (size_t j = np; j-- > 0;) {
			depth[path[j]] = depth[v] + 1;
			if ((size_t)depth[path[j]] > maxd)
				maxd = (size_t)depth[path[j]];
			state[path[j]] = 2;
			order[k++] = path[j];
			v = path[j];
		}
	}
	/* top-down: by depth (a counting sort, stable) */
	size_t *cnt = xcalloc(maxd + 2, sizeof *cnt);
	for (size_t i = 0; i < k; i++)
		cnt[depth[order[i]] + 1]++;
	for (size_t d = 1; d <= maxd + 1; d++)
		cnt[d] += cnt[d - 1];
	memcpy(path, order, k * sizeof *path);
	for (size_t i = 0; i < k; i++)
		order[cnt[depth[path[i]]]++] = path[i];
	free(cnt);
	free(depth);
	free(state);
	free(path);
	return k;
}

/* Each unit of the base hangs on the first instance (in time: ids are
 * given in execution order) that read one of its bytes. */
static void gd_attach(const struct red *r, const struct slice_input *in, const struct gd_src *src,
		      const uint8_t *base, uint32_t *unit_of, int32_t *owner)
{
	for (size_t u = 0; u < r->nunits; u++)
		owner[u] = -1;
	for (size_t i = 0; i < in->nuses; i++) {
		int64_t b = gd_byte(r, in, src, &in->uses[i]);
		int32_t user = in->uses[i].user;
		if (b < 0 || !base[unit_of[b]] || user < 0 || (size_t)user >= in->ninsts)
			continue;
		int32_t *o = &owner[unit_of[b]];
		if (*o < 0 || user < *o)
			*o = user;
	}
}

/* The units one instance read (us, m of them): a leaf, or a node over
 * one leaf each (a line read whole by fgets: the next level tries its
 * bytes, the search's last pass need not start over at halves). */
static size_t gd_own(struct gd_tree *t, uint32_t *us, size_t m)
{
	if (m == 1)
		return gd_add(t, us, m, NULL, 0);
	size_t *ks = xmalloc(m * sizeof *ks);
	for (size_t j = 0; j < m; j++)
		ks[j] = gd_add(t, xmemdup(&us[j], sizeof *us), 1, NULL, 0);
	return gd_add(t, us, m, ks, m);
}

/* Build the tree bottom-up, children before parents; returns the root's
 * node, or (size_t)-1 when nothing hangs on it. */
static size_t gd_build(struct red *r, const struct slice_input *in, const struct gd_src *src,
		       const uint8_t *base, uint32_t *unit_of, struct gd_tree *t)
{
	size_t n = in->ninsts + 1;
	int32_t *order = xmalloc(n * sizeof *order), *parent = xmalloc(n * sizeof *parent);
	int32_t *owner = xmalloc(r->nunits * sizeof *owner);
	gd_attach(r, in, src, base, unit_of, owner);
	int32_t *readers = xmalloc((r->nunits + 1) * sizeof *readers);
	size_t nr = 0;
	for (size_t u = 0; u < r->nunits; u++)
		if (owner[u] >= 0)
			readers[nr++] = owner[u];
	size_t k = gd_ctl(in, n, readers, nr, order, parent);
	free(readers);
	/* own units and children of each instance, as adjacency lists */
	int32_t *uf = xmalloc((r->nunits + 1) * sizeof *uf), *ut = xmalloc((r->nunits + 1) * sizeof *ut);
	int32_t *cf = xmalloc(n * sizeof *cf), *ct = xmalloc(n * sizeof *ct);
	size_t nu = 0, nc = 0, loose = 0;
	for (size_t u = 0; u < r->nunits; u++)
		if (owner[u] >= 0)
			uf[nu] = owner[u], ut[nu++] = (int32_t)u;
		else
			loose += base[u];
	for (size_t i = 1; i < k; i++)
		cf[nc] = parent[order[i]], ct[nc++] = order[i];
	struct gd_adj own, kids;
	gd_adj(&own, n, uf, ut, nu);
	gd_adj(&kids, n, cf, ct, nc);
	size_t *node = xmalloc(n * sizeof *node);
	for (size_t i = k; i-- > 0;) {
		int32_t v = order[i];
		size_t *ks = NULL, cap = 0, nk = 0, total = 0;
		if (own.start[v + 1] > own.start[v]) {
			size_t m = own.start[v + 1] - own.start[v];
			uint32_t *us = xmalloc(m * sizeof *us);
			for (size_t j = 0; j < m; j++)
				us[j] = (uint32_t)own.to[own.start[v] + j];
			XGROW(ks, cap, nk + 1);
			ks[nk++] = gd_own(t, us, m);
		}
		for (size_t e = kids.start[v]; e < kids.start[v + 1]; e++)
			if (node[kids.to[e]] != (size_t)-1) {
				XGROW(ks, cap, nk + 1);
				ks[nk++] = node[kids.to[e]];
			}
		if (nk <= 1) {
			node[v] = nk ? ks[0] : (size_t)-1;
			free(ks);
			continue;
		}
		for (size_t j = 0; j < nk; j++)
			total += t->v[ks[j]].nunits;
		uint32_t *us = xmalloc(total * sizeof *us);
		total = 0;
		for (size_t j = 0; j < nk; j++) {
			memcpy(us + total, t->v[ks[j]].units, t->v[ks[j]].nunits * sizeof *us);
			total += t->v[ks[j]].nunits;
		}
		qsort(us, total, sizeof *us, red_cmp_u32);
		node[v] = gd_add(t, us, total, ks, nk);
	}
	size_t root = node[n - 1];
	if (loose) {   /* base units no reader was found for: one more leaf */
		uint32_t *us = xmalloc(loose * sizeof *us);
		size_t j = 0;
		for (size_t u = 0; u < r->nunits; u++)
			if (base[u] && owner[u] < 0)
				us[j++] = (uint32_t)u;
		size_t leaf = gd_add(t, us, loose, NULL, 0);
		if (root == (size_t)-1) {
			root = leaf;
		} else {
			size_t *ks = xmalloc(2 * sizeof *ks), total = t->v[root].nunits + loose;
			ks[0] = root;
			ks[1] = leaf;
			uint32_t *all = xmalloc(total * sizeof *all);
			memcpy(all, t->v[root].units, t->v[root].nunits * sizeof *all);
			memcpy(all + t->v[root].nunits, us, loose * sizeof *all);
			qsort(all, total, sizeof *all, red_cmp_u32);
			root = gd_add(t, all, total, ks, 2);
		}
	}
	free(order); free(parent); free(owner);
	free(uf); free(ut); free(cf); free(ct);
	free(own.start); free(own.to); free(kids.start); free(kids.to);
	free(node);
	return root;
}

/* Step 3: level by level, complements only; leaves that stay are fixed. */
static void gd_search(struct red *r, const struct gd_tree *t, size_t root)
{
	size_t *front = NULL, cap = 0, nf = 0, *next = NULL, ncap = 0;
	uint32_t *fixed = NULL;
	size_t fcap = 0, nfixed = 0;
	if (t->v[root].nkids) {
		XGROW(front, cap, t->v[root].nkids);
		memcpy(front, t->v[root].kids, t->v[root].nkids * sizeof *front);
		nf = t->v[root].nkids;
	} else {
		XGROW(fixed, fcap, t->v[root].nunits);
		memcpy(fixed, t->v[root].units, t->v[root].nunits * sizeof *fixed);
		nfixed = t->v[root].nunits;
	}
	r->dd.complements_only = true;
	for (int level = 1; nf && !r->dd.stopped; level++) {
		uint32_t **groups = xmalloc(nf * sizeof *groups), *ids = xmalloc(nf * sizeof *ids), *keep;
		size_t *ngroup = xmalloc(nf * sizeof *ngroup), nkeep, nn = 0;
		for (size_t i = 0; i < nf; i++) {
			groups[i] = t->v[front[i]].units;
			ngroup[i] = t->v[front[i]].nunits;
			ids[i] = (uint32_t)i;
		}
		r->groups = groups;
		r->ngroup = ngroup;
		r->fixed = fixed;
		r->nfixed = nfixed;
		dd_min(&r->dd, ids, nf, &keep, &nkeep);
		for (size_t i = 0; i < nkeep; i++) {
			const struct gd_node *v = &t->v[front[keep[i]]];
			if (!v->nkids || r->dd.stopped) {
				XGROW(fixed, fcap, nfixed + v->nunits);
				memcpy(fixed + nfixed, v->units, v->nunits * sizeof *fixed);
				nfixed += v->nunits;
				continue;
			}
			XGROW(next, ncap, nn + v->nkids);
			memcpy(next + nn, v->kids, v->nkids * sizeof *next);
			nn += v->nkids;
		}
		r->groups = NULL;
		if (nfixed)
			qsort(fixed, nfixed, sizeof *fixed, red_cmp_u32);
		char stage[32];
		snprintf(stage, sizeof stage, "level%d", level);
		size_t total = nfixed, bytes = red_bytes(r, fixed, nfixed);
		for (size_t i = 0; i < nn; i++) {
			total += t->v[next[i]].nunits;
			bytes += red_bytes(r, t->v[next[i]].units, t->v[next[i]].nunits);
		}
		red_note(r, stage, total, bytes);
		free(groups); free(ngroup); free(ids); free(keep);
		size_t *tmp = front; front = next; next = tmp;
		size_t tc = cap; cap = ncap; ncap = tc;
		nf = nn;
	}
	r->dd.complements_only = false;
	free(front);
	free(next);
	free(r->best);
	r->best = fixed ? fixed : xmalloc(sizeof *fixed);
	r->nbest = nfixed;
	r->best_len = red_bytes(r, fixed, nfixed);
}

/* The units with a relevant byte (base[u] = 1): how many. */
static size_t gd_relevant(const struct red *r, const struct slice_input *in,
			  const struct gd_src *src, const uint32_t *unit_of, uint8_t *base)
{
	size_t n = 0;
	for (size_t i = 0; i < in->nuses; i++) {
		int64_t b = gd_byte(r, in, src, &in->uses[i]);
		if (b >= 0 && !base[unit_of[b]]) {
			base[unit_of[b]] = 1;
			n++;
		}
	}
	return n;
}

/* Step 1: the relevant units alone, if they still fail; else all. */
static void gd_step1(struct red *r, uint8_t *base, size_t nrel)
{
	uint32_t *ids = xmalloc(r->nunits * sizeof *ids);
	size_t n = 0;
	for (size_t u = 0; u < r->nunits; u++)
		if (base[u])
			ids[n++] = (uint32_t)u;
	int o = nrel && nrel < r->nunits ? dd_test1(&r->dd, ids, n) : DD_FAIL;
	if (o == DD_FAIL) {
		red_note(r, "step1", n, red_bytes(r, ids, n));
	} else {
		sbuf_printf(&r->log, "  (the relevant %s alone do not fail the same way: the tree "
			    "holds them all)\n", split_name(r->by));
		memset(base, 1, r->nunits);
	}
	free(ids);
}

int red_guided(struct red *r)
{
	struct slice_input in = {0};
	struct gd_src src = {0};
	double t0 = rr_now();
	if (gd_record(r, &in, &src) < 0) {
		/* no analysis (no debug information, a program the recorder
		 * cannot run): ddmin alone, and the log says why */
		sbuf_printf(&r->log, "  (the failing run could not be analysed: %s; plain ddmin)\n",
			    r->q->err.len ? r->q->err.s : "no failure recorded");
		sbuf_reset(&r->q->err);
		r->plain = true;
		return red_plain(r);
	}
	uint32_t *unit_of = xmalloc((r->len ? r->len : 1) * sizeof *unit_of);
	for (size_t u = 0; u < r->nunits; u++)
		for (uint32_t b = 0; b < r->units[u].len; b++)
			unit_of[r->units[u].off + b] = (uint32_t)u;
	uint8_t *base = xcalloc(r->nunits, 1);
	size_t nrel = gd_relevant(r, &in, &src, unit_of, base);
	sbuf_printf(&r->log, "  analysis: %zu of %zu %s relevant (slice of %zu statement "
		    "instances, %.1f s)\n", nrel, r->nunits, split_name(r->by), in.nmembers,
		    rr_now() - t0);
	if (!nrel) {
		sbuf_printf(&r->log, "  (no input byte reaches the failure: plain ddmin)\n");
		memset(base, 1, r->nunits);
	}
	/* every ddmin of the search goes on after a single-unit (or single
	 * node) removal rather than starting over */
	r->dd.linear_tail = true;
	r->dd.sweep = true;
	gd_step1(r, base, nrel);
	free(r->best);   /* the tree's result replaces it; this if there is none */
	r->best = xmalloc(r->nunits * sizeof *r->best);
	r->nbest = 0;
	for (size_t u = 0; u < r->nunits; u++)
		if (base[u])
			r->best[r->nbest++] = (uint32_t)u;
	r->best_len = red_bytes(r, r->best, r->nbest);
	struct gd_tree t = {0};
	size_t root = gd_build(r, &in, &src, base, unit_of, &t);
	if (root != (size_t)-1 && !r->dd.stopped)
		gd_search(r, &t, root);
	/* 1-minimal: a unit at a time over what the tree left (its levels
	 * tried the coarser groups; ending with a pass that removes
	 * nothing), or ddmin when there was no tree */
	if (r->best && !r->dd.stopped) {
		uint32_t *res;
		size_t n;
		uint32_t *cur = xmemdup(r->best, (r->nbest ? r->nbest : 1) * sizeof *cur);
		size_t ncur = r->nbest;
		if (root != (size_t)-1)
			dd_min_linear(&r->dd, cur, ncur, &res, &n);
		else
			dd_min(&r->dd, cur, ncur, &res, &n);
		free(r->best);
		r->best = res;
		r->nbest = n;
		r->best_len = red_bytes(r, res, n);
		free(cur);
	}
	for (size_t i = 0; i < t.n; i++) {
		free(t.v[i].units);
		free(t.v[i].kids);
	}
	free(t.v);
	free(base);
	free(unit_of);
	slice_input_free(&in);
	return 0;
}
