/* slice-input: relevant-input dependences for reduce/ (see slice-input.h),
 * computed with a slice of the session's recording that is not kept. */
#include "slice-input.h"

#include <stdlib.h>
#include <string.h>

#include "target/out.h"
#include "util/util.h"
#include "slice.h"

uint64_t slice_input_file_id(uint64_t dev, uint64_t ino)
{
	return rec_file_id(dev, ino);
}

int slice_input_deps(struct qz *q, struct slice_input *out)
{
	const struct trace *t = &slice_rec(q)->tr;
	memset(out, 0, sizeof *out);
	if (!t->n)
		return qz_error(q, "Nothing is recorded.");
	struct slice_uses uses = {0};
	struct slice s = { .crit = trace_inst_at(t, t->n - 1), .kind = SLICE_ALL, .uses = &uses };
	if (s.crit < 0)
		return qz_error(q, "The recording ends outside the program's statements.");
	if (slice_compute(q, &s) < 0)
		return -1;
	out->crit = s.crit;
	out->nmembers = s.nmembers;
	out->ninsts = t->insts.n;
	out->nsys = t->nsys;
	out->sys = xcalloc(t->nsys ? t->nsys : 1, sizeof *out->sys);
	for (size_t i = 0; i < t->nsys; i++)
		out->sys[i] = (struct slice_input_sys){ t->sys[i].addr, t->sys[i].len,
							t->sys[i].file, t->sys[i].off };
	out->nuses = uses.n;
	out->uses = xcalloc(uses.n ? uses.n : 1, sizeof *out->uses);
	for (size_t i = 0; i < uses.n; i++)
		out->uses[i] = (struct slice_input_use){ uses.v[i].user, uses.v[i].sys,
							 uses.v[i].addr };
	out->nedges = s.nedges;
	out->edges = xcalloc(s.nedges ? s.nedges : 1, sizeof *out->edges);
	struct slice_edge ev;
	const struct slice_edge *e = &ev;
	size_t n = 0;
	for (size_t i = 0; i < s.nedges; i++) {
		if (!slice_edge_at(&s, i, &ev))
			continue;
		bool ctl = e->kind == SLICE_CONTROL;
		out->edges[n++] = (struct slice_input_edge){ e->from, e->to, ctl,
			ctl && trace_inst_get(t, e->from).stmt == trace_inst_get(t, e->to).stmt };
	}
	out->nedges = n;
	free(uses.v);
	slice_free(&s);
	return 0;
}

void slice_input_free(struct slice_input *in)
{
	free(in->sys);
	free(in->uses);
	free(in->edges);
	memset(in, 0, sizeof *in);
}
