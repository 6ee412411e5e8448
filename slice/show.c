/* show: printing slices and dependence edges (show.h). */
#include "show.h"

#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "rec.h"
#include "slice.h"
#include "target/session.h"

static int show_cmp(const void *x, const void *y)
{
	const int32_t *a = x, *b = y;
	return (*a > *b) - (*a < *b);
}

/* The members' instance numbers grouped by statement: by[st][0..cnt[st]),
 * sorted; order lists the statements in discovery order. */
struct show_groups {
	int32_t *m, **by;
	size_t *cnt;
	uint32_t *order;
	size_t norder;
};

static void show_group(const struct trace *t, const struct slice *s, struct show_groups *g)
{
	g->m = xmalloc((s->nmembers + 1) * sizeof *g->m);
	g->cnt = xcalloc(t->nstmts + 1, sizeof *g->cnt);
	g->by = xcalloc(t->nstmts + 1, sizeof *g->by);
	g->order = xmalloc((t->nstmts + 1) * sizeof *g->order);
	g->norder = 0;
	for (size_t i = 0; i < s->nmembers; i++)
		if (g->cnt[trace_inst_get(t, slice_member_at(s, i)).stmt]++ == 0)
			g->order[g->norder++] = trace_inst_get(t, slice_member_at(s, i)).stmt;
	for (size_t st = 0, o = 0; st < t->nstmts; st++) {
		g->by[st] = g->m + o;
		o += g->cnt[st];
		g->cnt[st] = 0;
	}
	for (size_t i = 0; i < s->nmembers; i++) {
		uint32_t st = trace_inst_get(t, slice_member_at(s, i)).stmt;
		g->by[st][g->cnt[st]++] = (int32_t)trace_inst_get(t, slice_member_at(s, i)).n;
	}
	for (size_t k = 0; k < g->norder; k++)
		qsort(g->by[g->order[k]], g->cnt[g->order[k]], sizeof *g->m, show_cmp);
}

static void show_groups_free(struct show_groups *g)
{
	free(g->m);
	free(g->by);
	free(g->cnt);
	free(g->order);
}

/* Instances m[0..k) (sorted) as text: spelled out when there are a few
 * (#1,#2,#3), else runs with the count (#1-#98,#120 (99)); without full,
 * at most SHOW_RUNS runs, the rest elided. */
#define SHOW_SPELL 8
#define SHOW_RUNS 6
static void show_instances(struct sbuf *b, const int32_t *m, size_t k, bool full)
{
	if (k <= SHOW_SPELL) {
		for (size_t j = 0; j < k; j++)
			sbuf_printf(b, "%s#%d", j ? "," : " ", m[j]);
		return;
	}
	size_t runs = 0, shown = 0;
	for (size_t j = 0; j < k; j++)
		runs += !j || m[j] != m[j - 1] + 1;
	for (size_t j = 0, r = 0; j < k; r++) {
		size_t e = j;
		while (e + 1 < k && m[e + 1] == m[e] + 1)
			e++;
		bool show = full || runs <= SHOW_RUNS || r < SHOW_RUNS - 2 || r >= runs - 2;
		if (show && e > j)
			sbuf_printf(b, "%s#%d-#%d", shown ? "," : " ", m[j], m[e]);
		else if (show)
			sbuf_printf(b, "%s#%d", shown ? "," : " ", m[j]);
		else if (r == SHOW_RUNS - 2)
			sbuf_printf(b, ",... (%zu runs)", runs - SHOW_RUNS);
		shown += show;
		j = e + 1;
	}
	sbuf_printf(b, " (%zu)", k);
}

void show_members(struct qz *q, const struct slice *s, bool full)
{
	const struct trace *t = &slice_rec(q)->tr;
	struct show_groups g;
	show_group(t, s, &g);
	for (size_t k = 0; k < g.norder; k++) {
		uint32_t st = g.order[k];
		char nb[256];
		struct sbuf b = {0};
		sbuf_printf(&b, "  %s", rec_stmt_name(slice_rec(q), (int32_t)st, nb, sizeof nb));
		show_instances(&b, g.by[st], g.cnt[st], full);
		qz_printf(q, "%s\n", b.s);
		sbuf_free(&b);
	}
	show_groups_free(&g);
}

void show_members_json(struct qz *q, const struct slice *s)
{
	const struct trace *t = &slice_rec(q)->tr;
	struct show_groups g;
	char nb[300];
	struct sbuf b = {0};
	show_group(t, s, &g);
	sbuf_printf(&b, "{\"slice\": %d, \"criterion\": ", s->id);
	js_str(&b, slice_inst_name(q, s->crit, nb, sizeof nb));
	sbuf_printf(&b, ", \"statements\": %zu, \"edges\": %zu, \"members\": [", s->nstmts, s->nedges);
	for (size_t k = 0; k < g.norder; k++) {
		uint32_t st = g.order[k];
		sbuf_add(&b, k ? ", {\"statement\": " : "{\"statement\": ");
		js_str(&b, rec_stmt_name(slice_rec(q), (int32_t)st, nb, sizeof nb));
		sbuf_add(&b, ", \"instances\": [");
		for (size_t j = 0; j < g.cnt[st]; j++)
			sbuf_printf(&b, "%s%d", j ? ", " : "", g.by[st][j]);
		sbuf_add(&b, "]}");
	}
	sbuf_add(&b, "]}\n");
	qz_puts(q, b.s);
	sbuf_free(&b);
	show_groups_free(&g);
}

/* One line of deps: edges from inst to instances of one statement, of
 * one kind, through one place. */
struct show_dep {
	int32_t first;            /* the first edge's target instance */
	uint32_t stmt, lo, hi;
	uint8_t kind;
	char label[160];
	size_t n;
};

static size_t show_dep_groups(struct qz *q, const struct slice *s, int32_t inst,
			      struct show_dep **out)
{
	const struct trace *t = &slice_rec(q)->tr;
	struct show_dep *v = NULL;
	size_t n = 0, cap = 0;
	struct slice_edge ev;
	const struct slice_edge *e = &ev;
	for (size_t i = 0; i < s->nedges; i++) {
		if (!slice_edge_at(s, i, &ev) || e->from != inst)
			continue;
		char lb[160] = "";
		if (e->kind == SLICE_DATA)
			slice_edge_label(q, e, lb, sizeof lb);
		uint32_t st = trace_inst_get(t, e->to).stmt, num = trace_inst_get(t, e->to).n;
		size_t k = 0;
		while (k < n && !(v[k].stmt == st && v[k].kind == e->kind && !strcmp(v[k].label, lb)))
			k++;
		if (k == n) {
			XGROW(v, cap, n + 1);
			v[n] = (struct show_dep){ .first = e->to, .stmt = st, .lo = num, .hi = num,
						  .kind = e->kind };
			memcpy(v[n++].label, lb, sizeof lb);
		}
		v[k].lo = num < v[k].lo ? num : v[k].lo;
		v[k].hi = num > v[k].hi ? num : v[k].hi;
		v[k].n++;
	}
	*out = v;
	return n;
}

static void show_dep_json(struct qz *q, const struct show_dep *d, size_t k, struct sbuf *b)
{
	char nb[300];
	sbuf_add(b, k ? ", {\"to\": " : "{\"to\": ");
	js_str(b, rec_stmt_name(slice_rec(q), (int32_t)d->stmt, nb, sizeof nb));
	sbuf_printf(b, ", \"instances\": [%u, %u], \"edges\": %zu, \"kind\": \"%s\"", d->lo, d->hi,
		    d->n, d->kind == SLICE_CONTROL ? "control" : "data");
	if (d->kind == SLICE_DATA) {
		sbuf_add(b, ", \"through\": ");
		js_str(b, d->label);
	}
	sbuf_addc(b, '}');
}

void show_deps(struct qz *q, const struct slice *s, int32_t inst, bool json)
{
	struct show_dep *v;
	size_t n = show_dep_groups(q, s, inst, &v);
	char x[300], y[300];
	struct sbuf b = {0};
	slice_inst_name(q, inst, x, sizeof x);
	if (json) {
		sbuf_add(&b, "{\"from\": ");
		js_str(&b, x);
		sbuf_add(&b, ", \"deps\": [");
	}
	for (size_t k = 0; k < n; k++) {
		const struct show_dep *d = &v[k];
		if (json) {
			show_dep_json(q, d, k, &b);
			continue;
		}
		if (d->n > 1)   /* FILE:LINE#lo-#hi */
			sbuf_printf(&b, "%s -> %s#%u-#%u", x,
				    rec_stmt_name(slice_rec(q), (int32_t)d->stmt, y, sizeof y), d->lo, d->hi);
		else
			sbuf_printf(&b, "%s -> %s", x, slice_inst_name(q, d->first, y, sizeof y));
		sbuf_printf(&b, " %s%s%s", d->kind == SLICE_CONTROL ? "control" : "data",
			    d->kind == SLICE_DATA ? " " : "", d->label);
		if (d->n > 1)
			sbuf_printf(&b, " (%zu edges)", d->n);
		sbuf_addc(&b, '\n');
	}
	if (json)
		sbuf_add(&b, "]}\n");
	if (b.s)
		qz_puts(q, b.s);
	sbuf_free(&b);
	free(v);
}
