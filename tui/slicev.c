/* slicev: the UI's view of slicing (see slicev.h). It reads the slice
 * module's state (slice/slice.h) directly and changes it only through
 * commands, so everything a key does is also a command line. */
#define _GNU_SOURCE
#include "slicev.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alter/alter.h"
#include "ckpt/ckpt.h"
#include "slice/slice.h"
#include "target/bp.h"
#include "cmd/cmd.h"
#include "keymap.h"
#include "target/session.h"
#include "theme.h"
#include "ui.h"

const struct slice *tui_slice_current(struct tui *t)
{
	return t->cur_slice ? slice_find(t->q, t->cur_slice) : NULL;
}

bool tui_slice_same_file(const char *a, const char *b)
{
	return a && b && (!strcmp(a, b) || !strcmp(str_basename(a), str_basename(b)));
}

bool tui_slice_place(struct tui *t, int32_t inst, const char **file, int *line, unsigned *n)
{
	const struct trace *tr = &slice_rec(t->q)->tr;
	if (inst < 0 || (size_t)inst >= tr->ninsts)
		return false;
	uint32_t s = tr->insts[inst].stmt;
	if (s >= tr->nstmts || !tr->stmts[s].file)
		return false;
	*file = tr->stmts[s].file;
	*line = tr->stmts[s].line;
	if (n)
		*n = tr->insts[inst].n;
	return true;
}

bool tui_slice_lines(struct tui *t, const char *file, int n, unsigned char *counts)
{
	const struct slice *s = tui_slice_current(t);
	memset(counts, 0, (size_t)n + 1);
	if (!s)
		return false;
	const char *last = NULL;   /* members come in runs of one file */
	bool same = false;
	for (size_t i = 0; i < s->nmembers; i++) {
		const char *f;
		int line;
		if (!tui_slice_place(t, s->members[i], &f, &line, NULL))
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

const char *tui_slice_line_insts(struct tui *t, const char *file, int line, char *buf,
				 size_t len)
{
	const struct slice *s = tui_slice_current(t);
	unsigned *v = NULL, k;
	size_t nv = 0, cap = 0, n = 0;
	const char *f;
	int l;
	for (size_t i = 0; s && i < s->nmembers; i++)
		if (tui_slice_place(t, s->members[i], &f, &l, &k) && l == line &&
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

void tui_slicev_refresh(struct tui *t)
{
	struct slice_state *st = slice_state(t->q);
	if (!st)
		return;
	if (st->next_id != t->slices_seen) {   /* a new slice: show it */
		t->slices_seen = st->next_id;
		if (st->n && st->slices[st->n - 1].id == st->next_id) {
			t->cur_slice = st->next_id;
			if (!t->panes[TP_DEPS].shown)
				t->want |= TUI_LAYOUT | TUI_DRAW;
			t->panes[TP_DEPS].shown = true;
		}
	}
	if (t->cur_slice && !slice_find(t->q, t->cur_slice))
		t->cur_slice = st->n ? st->slices[st->n - 1].id : 0;
}

void tui_slicev_status(struct tui *t, char *buf, size_t len)
{
	char rec[64];
	const char *r = slice_status(t->q, rec, sizeof rec);
	const struct slice *s = tui_slice_current(t);
	int nc = ckpt_count(t->q);
	size_t n = (size_t)snprintf(buf, len, "%s", r ? r : "");
	if (s && n < len)
		n += (size_t)snprintf(buf + n, len - n, "%sslice %d: %zu stmts", n ? " | " : "",
				      s->id, s->nstmts);
	if (nc && n < len)
		snprintf(buf + n, len - n, "%sckpt %d", n ? " | " : "", nc);
}

/* ---- history ---- */

static void hist_push(struct tui *t, const char *file, int line)
{
	while (t->nhist > t->hist_at + 1)   /* a new branch drops forward */
		free(t->hist[--t->nhist].file);
	if (t->nhist && t->hist[t->nhist - 1].line == line &&
	    !strcmp(t->hist[t->nhist - 1].file, file))
		return;
	XGROW(t->hist, t->hist_cap, t->nhist + 1);
	t->hist[t->nhist++] = (struct tui_place){xstrdup(file), line};
	t->hist_at = t->nhist - 1;
}

void tui_slicev_go(struct tui *t, const char *file, int line)
{
	const char *cf;
	int cl;
	if (tui_source_cursor(t, &cf, &cl))
		hist_push(t, cf, cl);
	hist_push(t, file, line);
	tui_source_go(t, file, line);
}

static int hist_move(struct tui *t, int dir)
{
	if (dir < 0 ? t->hist_at == 0 || !t->nhist : t->hist_at + 1 >= t->nhist)
		return qz_error(t->q, dir < 0 ? "Nothing to go back to." : "Nothing to go forward to.");
	t->hist_at = (size_t)((long)t->hist_at + dir);
	tui_source_go(t, t->hist[t->hist_at].file, t->hist[t->hist_at].line);
	return 0;
}

void tui_slicev_free(struct tui *t)
{
	for (size_t i = 0; i < t->nhist; i++)
		free(t->hist[i].file);
	free(t->hist);
	t->hist = NULL;
	t->nhist = t->hist_at = t->hist_cap = 0;
}

/* ---- actions ---- */

int tui_slicev_run(struct tui *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *cmd = NULL;
	if (vasprintf(&cmd, fmt, ap) < 0)
		cmd = NULL;
	va_end(ap);
	if (!cmd)
		return qz_error(t->q, "Out of memory.");
	int r = tui_echo_run(t, cmd);
	free(cmd);
	return r;
}

/* The switch or suppression of this kind at file:line, or NULL. */
static struct bp *sv_alter_at(struct qz *q, enum bp_kind kind, const char *file, int line)
{
	for (size_t i = 0; i < q->bps.n; i++) {
		const char *f;
		int l;
		if (q->bps.bps[i].kind == kind && alter_bp_line(&q->bps.bps[i], &f, &l) &&
		    l == line && tui_slice_same_file(f, file))
			return &q->bps.bps[i];
	}
	return NULL;
}

/* switch or suppress the cursor line: the instances given (all, once,
 * N), else the next one; again without them deletes it. */
static int sv_alter(struct tui *t, enum bp_kind kind, const char *file, int line,
		    const char *arg)
{
	const char *verb = kind == BP_KIND_SWITCH ? "switch" : "suppress";
	struct bp *b = sv_alter_at(t->q, kind, file, line);
	if (b && !*arg)
		return tui_slicev_run(t, "delete %d", b->num);
	if (*arg)
		return tui_slicev_run(t, "%s %s:%d %s", verb, file, line, arg);
	return tui_slicev_run(t, "%s %s:%d", verb, file, line);
}

/* ] and [: the next (dir 1) or previous member line in the file. */
static int sv_member(struct tui *t, const char *file, int line, int dir)
{
	const struct slice *s = tui_slice_current(t);
	if (!s)
		return qz_error(t->q, "No current slice.");
	int best = 0;
	for (size_t i = 0; i < s->nmembers; i++) {
		const char *f;
		int l;
		if (!tui_slice_place(t, s->members[i], &f, &l, NULL) || !tui_slice_same_file(f, file))
			continue;
		if ((dir > 0 && l > line && (!best || l < best)) || (dir < 0 && l < line && l > best))
			best = l;
	}
	if (!best)
		return qz_error(t->q, "No %s line of slice %d in this file.",
				dir > 0 ? "later" : "earlier", s->id);
	tui_source_go(t, file, best);
	return 0;
}

static int sv_slice_select(struct tui *t, const char *arg)
{
	if (!*arg)   /* Enter in the slices pane */
		return t->panes[TP_SLICES].ops->action(t, &t->panes[TP_SLICES], TUI_ACT_SELECT, arg);
	int64_t v = 0;
	int id = str_num_all(arg, 1, INT32_MAX, &v) == STR_NUM_OK ? (int)v : 0;
	if (!slice_find(t->q, id))
		return qz_error(t->q, "No slice number %s.", arg);
	t->cur_slice = id;
	return 0;
}

/* Actions on the focused list pane (checkpoints, slices, deps). */
static int sv_pane_action(struct tui *t, int pane, int act, const char *arg)
{
	struct tui_pane *p = &t->panes[pane < 0 ? t->focus : pane];
	int r = p->ops->action ? p->ops->action(t, p, act, arg) : TUI_NOT_MINE;
	if (r == TUI_NOT_MINE)
		return qz_error(t->q, "Nothing to %s in the %s pane.", tui_action_name(act),
				p->ops->name);
	return r;
}

static int sv_cursor_action(struct tui *t, int act, const char *file, int line,
			    const char *arg)
{
	const struct slice *s = tui_slice_current(t);
	switch (act) {
	case TUI_ACT_SWITCH_LINE: return sv_alter(t, BP_KIND_SWITCH, file, line, arg);
	case TUI_ACT_SUPPRESS_LINE: return sv_alter(t, BP_KIND_SUPPRESS, file, line, arg);
	case TUI_ACT_SLICE_LINE: return tui_slicev_run(t, "slice %s:%d", file, line);
	case TUI_ACT_SBREAK_LINE:
		if (!s)
			return qz_error(t->q, "No current slice (make one with \"slice\").");
		return tui_slicev_run(t, "sbreak %d %s:%d", s->id, file, line);
	case TUI_ACT_NEXT_MEMBER: return sv_member(t, file, line, 1);
	case TUI_ACT_PREV_MEMBER: return sv_member(t, file, line, -1);
	}
	return TUI_NOT_MINE;
}

int tui_slicev_action(struct tui *t, int act, const char *arg)
{
	const char *file;
	int line;
	switch (act) {
	case TUI_ACT_BACK: return hist_move(t, -1);
	case TUI_ACT_FORWARD: return hist_move(t, 1);
	case TUI_ACT_TOGGLE_RECORD:
		return tui_slicev_run(t, "record %s", slice_rec(t->q)->on ? "off" : "on");
	case TUI_ACT_CHECKPOINT: return tui_slicev_run(t, "checkpoint");
	case TUI_ACT_SLICE_NUMBERS: t->slice_numbers = !t->slice_numbers; return 0;
	case TUI_ACT_SLICE_SELECT: return sv_slice_select(t, arg);
	case TUI_ACT_SELECT: case TUI_ACT_DELETE_ITEM: return sv_pane_action(t, -1, act, arg);
	case TUI_ACT_FOLLOW_EDGE: case TUI_ACT_PRUNE_EDGE: return sv_pane_action(t, TP_DEPS, act, arg);
	case TUI_ACT_SWITCH_LINE: case TUI_ACT_SUPPRESS_LINE: case TUI_ACT_SLICE_LINE:
	case TUI_ACT_SBREAK_LINE: case TUI_ACT_NEXT_MEMBER: case TUI_ACT_PREV_MEMBER:
		if (!tui_source_cursor(t, &file, &line))
			return qz_error(t->q, "No source line under the cursor.");
		return sv_cursor_action(t, act, file, line, arg ? arg : "");
	}
	return TUI_NOT_MINE;
}
