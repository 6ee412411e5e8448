/* slice-view: the UI's view of slicing (see slice-view.h). It reads the
 * slice module's state (slice/slice.h) and never changes it: what a key
 * does to a slice goes through a command (actions.c). */
#include "slice-view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt/ckpt.h"
#include "slice/slice.h"
#include "util/util.h"

const struct slice *tui_slice_current(const struct tui_slicev *sv)
{
	return sv->cur ? slice_find(sv->q, sv->cur) : NULL;
}

bool tui_slice_same_file(const char *a, const char *b)
{
	return a && b && (!strcmp(a, b) || !strcmp(str_basename(a), str_basename(b)));
}

bool tui_slice_place(const struct tui_slicev *sv, int32_t inst, const char **file, int *line,
		     unsigned *n)
{
	const struct trace *tr = &slice_rec(sv->q)->tr;
	if (inst < 0 || (size_t)inst >= tr->insts.n)
		return false;
	uint32_t s = trace_inst_get(tr, inst).stmt;
	if (s >= tr->nstmts || !tr->stmts[s].file)
		return false;
	*file = tr->stmts[s].file;
	*line = tr->stmts[s].line;
	if (n)
		*n = trace_inst_get(tr, inst).n;
	return true;
}

bool tui_slice_lines(const struct tui_slicev *sv, const char *file, int n,
		     unsigned char *counts)
{
	const struct slice *s = tui_slice_current(sv);
	memset(counts, 0, (size_t)n + 1);
	if (!s)
		return false;
	const char *last = NULL;   /* members come in runs of one file */
	bool same = false;
	for (size_t i = 0; i < s->nmembers; i++) {
		const char *f;
		int line;
		if (!tui_slice_place(sv, slice_member_at(s, i), &f, &line, NULL))
			continue;
		if (f != last)
			same = tui_slice_same_file(f, file), last = f;
		if (same && line >= 1 && line <= n && counts[line] < 255)
			counts[line]++;
	}
	return true;
}

static int sv_cmp_u(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return x < y ? -1 : x > y;
}

const char *tui_slice_line_insts(const struct tui_slicev *sv, const char *file, int line,
				 char *buf, size_t len)
{
	const struct slice *s = tui_slice_current(sv);
	unsigned *v = NULL, k;
	size_t nv = 0, cap = 0, n = 0;
	const char *f;
	int l;
	for (size_t i = 0; s && i < s->nmembers; i++)
		if (tui_slice_place(sv, slice_member_at(s, i), &f, &l, &k) && l == line &&
		    tui_slice_same_file(f, file)) {
			XGROW(v, cap, nv + 1);
			v[nv++] = k;
		}
	if (nv)   /* members come in discovery order, backwards */
		qsort(v, nv, sizeof *v, sv_cmp_u);
	buf[0] = 0;
	for (size_t i = 0; i < nv && n + 12 < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s#%u", n ? "," : "", v[i]);
	free(v);
	return buf;
}

int tui_slice_member_line(const struct tui_slicev *sv, const char *file, int line, int dir)
{
	const struct slice *s = tui_slice_current(sv);
	int best = 0;
	for (size_t i = 0; s && i < s->nmembers; i++) {
		const char *f;
		int l;
		if (!tui_slice_place(sv, slice_member_at(s, i), &f, &l, NULL) || !tui_slice_same_file(f, file))
			continue;
		if ((dir > 0 && l > line && (!best || l < best)) || (dir < 0 && l < line && l > best))
			best = l;
	}
	return best;
}

bool tui_slicev_update(struct tui_slicev *sv)
{
	struct slice_state *st = slice_state(sv->q);
	bool fresh = false;
	if (!st)
		return false;
	if (st->next_id != sv->seen) {
		sv->seen = st->next_id;
		if (st->n && st->slices[st->n - 1].id == st->next_id) {
			sv->cur = st->next_id;
			fresh = true;
		}
	}
	if (sv->cur && !slice_find(sv->q, sv->cur))
		sv->cur = st->n ? st->slices[st->n - 1].id : 0;
	return fresh;
}

void tui_slicev_status(const struct tui_slicev *sv, char *buf, size_t len)
{
	char rec[64];
	const char *r = slice_status(sv->q, rec, sizeof rec);
	const struct slice *s = tui_slice_current(sv);
	int nc = ckpt_count(sv->q);
	size_t n = (size_t)snprintf(buf, len, "%s", r ? r : "");
	if (s && n < len)
		n += (size_t)snprintf(buf + n, len - n, "%sslice %d: %zu stmts", n ? " | " : "",
				      s->id, s->nstmts);
	if (nc && n < len)
		snprintf(buf + n, len - n, "%sckpt %d", n ? " | " : "", nc);
}
