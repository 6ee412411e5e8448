/* actions: the UI actions' handlers (see actions.h). */
#define _GNU_SOURCE
#include "actions.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alter/alter.h"
#include "cmd/qzs.h"
#include "dinfo/lines.h"
#include "exec.h"
#include "fuzzy.h"
#include "keymap.h"
#include "pane-source.h"
#include "screen.h"
#include "slice/slice.h"
#include "target/bp.h"
#include "target/session.h"
#include "theme.h"
#include "ui.h"

typedef int act_fn(struct tui *t, int act, const char *arg);

/* A command line made from fmt, echoed and run; 0 or -1. */
static int act_run(struct tui *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int act_run(struct tui *t, const char *fmt, ...)
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

/* ---- back/forward through the places followed to ---- */

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

static void act_show(struct tui *t, const char *file, int line)
{
	tui_show_place(t, file, line);
}

/* Show file:line in the source pane, remembered for back/forward. */
static void act_go(struct tui *t, const char *file, int line)
{
	const char *cf;
	int cl;
	if (tui_source_cursor(t, &cf, &cl))
		hist_push(t, cf, cl);
	hist_push(t, file, line);
	act_show(t, file, line);
}

static int act_history(struct tui *t, int act, const char *arg)
{
	int dir = act == TUI_ACT_BACK ? -1 : 1;
	(void)arg;
	if (dir < 0 ? t->hist_at == 0 || !t->nhist : t->hist_at + 1 >= t->nhist)
		return qz_error(t->q, dir < 0 ? "Nothing to go back to." : "Nothing to go forward to.");
	t->hist_at = (size_t)((long)t->hist_at + dir);
	act_show(t, t->hist[t->hist_at].file, t->hist[t->hist_at].line);
	return 0;
}

void tui_actions_free(struct tui *t)
{
	for (size_t i = 0; i < t->nhist; i++)
		free(t->hist[i].file);
	free(t->hist);
	t->hist = NULL;
	t->nhist = t->hist_at = t->hist_cap = 0;
}

/* ---- panes ---- */

/* Pane p's action, then what it asked for. */
static int act_pane(struct tui *t, struct tui_pane *p, int act, const char *arg)
{
	struct tui_view v = tui_view(t);
	struct tui_req req = {0};
	int r = p->def->ops->action ? p->def->ops->action(p, &v, act, arg, &req) : TUI_NOT_MINE;
	if (r == 0 && req.kind == TUI_REQ_RUN)
		r = tui_echo_run(t, req.text);
	else if (r == 0 && req.kind == TUI_REQ_GO)
		act_go(t, req.text, req.line);
	free(req.text);
	return r;
}

/* Scrolling: the focused pane if it scrolls, else the source. */
static int act_scroll(struct tui *t, int act, const char *arg)
{
	struct tui_pane *p = &t->panes[t->focus];
	if (p->id != TP_SOURCE) {
		int r = act_pane(t, p, act, arg);
		if (r != TUI_NOT_MINE)
			return r;
	}
	return act_pane(t, &t->panes[TP_SOURCE], act, arg);
}

/* Search, goto, current: the source pane. */
static int act_source(struct tui *t, int act, const char *arg)
{
	return act_pane(t, &t->panes[TP_SOURCE], act, arg);
}

/* select, delete-item: the focused list; follow-edge, prune-edge: deps. */
static int act_list(struct tui *t, int act, const char *arg)
{
	bool deps = act == TUI_ACT_FOLLOW_EDGE || act == TUI_ACT_PRUNE_EDGE;
	struct tui_pane *p = &t->panes[deps ? TP_DEPS : t->focus];
	int r = act_pane(t, p, act, arg);
	if (r == TUI_NOT_MINE)
		return qz_error(t->q, "Nothing to %s in the %s pane.", tui_action_name(act),
				p->def->name);
	return r;
}

static int act_focus_pane(struct tui *t, int pane)
{
	t->focus = pane;
	t->searching = false;
	if (pane == TP_OUTPUT || tui_pane_is_side(&tui_panes[pane]))
		tui_dock_show(t, pane);   /* seen, if the region toggles */
	return 0;
}

static int act_cycle(struct tui *t, int act, const char *arg)
{
	(void)act;
	if (*arg) {   /* cycle NAME: that one */
		struct tui_pane *p = tui_pane_named(t, arg);
		if (!p || (p->id != TP_OUTPUT && !tui_pane_is_side(p->def)))
			return qz_error(t->q, "No pane \"%s\" for the bottom region.", arg);
		p->shown = true;
		tui_dock_show(t, p->id);
		return 0;
	}
	if (!tui_dock_cycle(t))
		return qz_error(t->q, "The bottom region shows all its panes already.");
	if (t->focus != TP_SOURCE && t->focus != TP_CMD)
		t->focus = t->dock;
	return 0;
}

static int act_focus(struct tui *t, int act, const char *arg)
{
	(void)arg;
	return act_focus_pane(t, act == TUI_ACT_FOCUS_SOURCE ? TP_SOURCE :
			      act == TUI_ACT_FOCUS_CMD ? TP_CMD : TP_OUTPUT);
}

/* The main pane, then each shown side pane in turn. */
static int act_focus_next(struct tui *t, int act, const char *arg)
{
	(void)act, (void)arg;
	for (int i = 1; i <= TP_COUNT; i++) {
		int k = (t->focus + i) % TP_COUNT;
		if (tui_panes[k].where == TUI_MAIN ||
		    (tui_pane_is_side(&tui_panes[k]) && t->panes[k].shown))
			return act_focus_pane(t, k);
	}
	return 0;
}

static int act_search_prompt(struct tui *t, int act, const char *arg)
{
	t->focus_before = t->focus == TP_CMD ? TP_SOURCE : t->focus;
	t->focus = TP_CMD;
	t->searching = true;
	t->search_back = !strcmp(arg, "back");
	return act_pane(t, &t->panes[TP_CMD], act, arg);
}

/* ---- the file picker ---- */

/* files TEXT: the program's source files matching TEXT, best first; the
 * best is shown. No TEXT: the command line, to type it (Tab completes). */
static int act_files(struct tui *t, int act, const char *arg)
{
	size_t n = 0, best = 0;
	int bs = -1, shown = 0;
	(void)act;
	if (!*arg) {
		act_focus_pane(t, TP_CMD);
		return act_pane(t, &t->panes[TP_CMD], TUI_ACT_FILES, "tui files ");
	}
	const char **files = t->q->exe_loaded && t->q->exe.lines ? lines_files(t->q->exe.lines, &n)
		: NULL;
	for (size_t i = 0; i < n; i++) {
		int sc = tui_fuzzy_score(arg, files[i]);
		if (sc >= 0 && (bs < 0 || sc < bs))
			bs = sc, best = i;
	}
	if (bs < 0)
		return qz_error(t->q, "No source file matches \"%s\".", arg);
	for (size_t i = 0; i < n && shown < 8; i++)
		if (i != best && tui_fuzzy_score(arg, files[i]) >= 0)
			qz_printf(t->q, "%s also matches\n", files[i]), shown++;
	act_go(t, files[best], 1);
	qz_printf(t->q, "%s\n", files[best]);
	return 0;
}

/* ---- the screen ---- */

static int act_redraw(struct tui *t, int act, const char *arg)
{
	(void)act, (void)arg;
	t->want |= TUI_FULL | TUI_LAYOUT;
	return 0;
}

static int act_help(struct tui *t, int act, const char *arg)
{
	struct sbuf b = {0};
	(void)act, (void)arg;
	tui_keymap_help(&b);
	tui_lines_clear(&t->help_text);
	tui_lines_split(&t->help_text, b.s, TUI_EL_HELP);
	sbuf_free(&b);
	t->help = true;
	t->help_top = 0;
	return 0;
}

static int act_slice_numbers(struct tui *t, int act, const char *arg)
{
	(void)act, (void)arg;
	t->sv.numbers = !t->sv.numbers;
	return 0;
}

/* ---- the program ---- */

static int act_run_continue(struct tui *t, int act, const char *arg)
{
	(void)act, (void)arg;
	return tui_echo_run(t, t->q->proc ? "continue" : "run");
}

static int act_record(struct tui *t, int act, const char *arg)
{
	(void)act, (void)arg;
	return act_run(t, "record %s", slice_rec(t->q)->on ? "off" : "on");
}

static int act_checkpoint(struct tui *t, int act, const char *arg)
{
	(void)act, (void)arg;
	return tui_echo_run(t, "checkpoint");
}

/* slice-select N; without N, the slices pane's selected row. */
static int act_slice_select(struct tui *t, int act, const char *arg)
{
	int64_t v = 0;
	(void)act;
	if (!*arg)
		return act_pane(t, &t->panes[TP_SLICES], TUI_ACT_SELECT, arg);
	int id = str_num_all(arg, 1, INT32_MAX, &v) == STR_NUM_OK ? (int)v : 0;
	if (!slice_find(t->q, id))
		return qz_error(t->q, "No slice number %s.", arg);
	t->sv.cur = id;
	return 0;
}

/* ---- the line under the source cursor ---- */

/* The breakpoint with a location at file:line, or NULL. */
static struct bp *act_bp_at(struct qz *q, const char *file, int line)
{
	for (size_t i = 0; i < q->bps.n; i++)
		for (size_t j = 0; j < q->bps.bps[i].nlocs; j++) {
			const struct bp_loc *l = &q->bps.bps[i].locs[j];
			if (l->file && l->line == line && !strcmp(l->file, file))
				return &q->bps.bps[i];
		}
	return NULL;
}

/* The switch or suppression of this kind at file:line, or NULL. */
static struct bp *act_alter_at(struct qz *q, enum bp_kind kind, const char *file, int line)
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
static int act_alter(struct tui *t, enum bp_kind kind, const char *file, int line,
		     const char *arg)
{
	const char *verb = kind == BP_KIND_SWITCH ? "switch" : "suppress";
	struct bp *b = act_alter_at(t->q, kind, file, line);
	if (b && !*arg)
		return act_run(t, "delete %d", b->num);
	if (*arg)
		return act_run(t, "%s %s:%d %s", verb, file, line, arg);
	return act_run(t, "%s %s:%d", verb, file, line);
}

/* ] and [: the next (dir 1) or previous member line in the file. */
static int act_member(struct tui *t, const char *file, int line, int dir)
{
	const struct slice *s = tui_slice_current(&t->sv);
	if (!s)
		return qz_error(t->q, "No current slice.");
	int best = tui_slice_member_line(&t->sv, file, line, dir);
	if (!best)
		return qz_error(t->q, "No %s line of slice %d in this file.",
				dir > 0 ? "later" : "earlier", s->id);
	act_show(t, file, best);
	return 0;
}

/* goto-instance [N]: the deps pane's selected edge when it has the focus,
 * else the cursor line: instance N, or its latest in the current slice,
 * or (no slice) its latest recorded. */
static int act_goto_instance(struct tui *t, int act, const char *arg)
{
	if (t->focus == TP_DEPS)
		return act_list(t, act, arg);
	const char *file, *f;
	int line, l;
	unsigned n = 0, k;
	int64_t want = 0;
	if (!tui_source_cursor(t, &file, &line))
		return qz_error(t->q, "No source line under the cursor.");
	if (*arg && str_num_all(arg, 1, INT32_MAX, &want))
		return qz_error(t->q, "Instance numbers start at 1.");
	const struct slice *s = tui_slice_current(&t->sv);
	for (size_t i = 0; !want && s && i < s->nmembers; i++)
		if (tui_slice_place(&t->sv, slice_member_at(s, i), &f, &l, &k) && l == line &&
		    tui_slice_same_file(f, file) && k > n)
			n = k;
	if (want)
		n = (unsigned)want;
	if (n)
		return act_run(t, "goto-instance %s:%d#%u", file, line, n);
	return act_run(t, "goto-instance %s:%d", file, line);
}

/* The actions on the line under the source cursor. */
static int act_cursor(struct tui *t, int act, const char *arg)
{
	const struct slice *s = tui_slice_current(&t->sv);
	const char *file;
	int line;
	struct bp *b;
	if (!tui_source_cursor(t, &file, &line))
		return qz_error(t->q, "No source line under the cursor.");
	switch (act) {
	case TUI_ACT_TOGGLE_BREAK:
		b = act_bp_at(t->q, file, line);
		return b ? act_run(t, "delete %d", b->num) : act_run(t, "break %s:%d", file, line);
	case TUI_ACT_SWITCH_LINE: return act_alter(t, BP_KIND_SWITCH, file, line, arg);
	case TUI_ACT_SUPPRESS_LINE: return act_alter(t, BP_KIND_SUPPRESS, file, line, arg);
	case TUI_ACT_SLICE_LINE: return act_run(t, "slice %s:%d", file, line);
	case TUI_ACT_SBREAK_LINE:
		if (!s)
			return qz_error(t->q, "No current slice (make one with \"slice\").");
		return act_run(t, "sbreak %d %s:%d", s->id, file, line);
	case TUI_ACT_NEXT_MEMBER: return act_member(t, file, line, 1);
	default: return act_member(t, file, line, -1);
	}
}

/* ---- a walkthrough waiting ---- */

static int act_walk(struct tui *t, int act, const char *arg)
{
	struct sbuf why = {0};
	(void)arg;
	if (!t->walking)
		return qz_error(t->q, "No walkthrough is waiting (qzdb --replay FILE --step).");
	if (act == TUI_ACT_WALK_STOP) {
		t->walk_key = 'q';
	} else if (t->walk_task && act == TUI_ACT_WALK_BACK) {
		return qz_error(t->q, "A task goes on only once done (C-x stops the walkthrough).");
	} else if (t->walk_task && !qzs_task_met(t->q, t->walk_task->expects,
						 t->walk_task->nexpects, &why)) {
		qz_error(t->q, "Not done yet: %s", why.s);
		sbuf_free(&why);
		return -1;
	} else {
		t->walk_key = act == TUI_ACT_WALK_BACK ? 'b' : ' ';
	}
	return 0;
}

static act_fn *const act_table[TUI_ACT_COUNT] = {
	[TUI_ACT_RUN_CONTINUE] = act_run_continue,
	[TUI_ACT_TOGGLE_BREAK] = act_cursor,
	[TUI_ACT_FOCUS_SOURCE] = act_focus,
	[TUI_ACT_FOCUS_CMD] = act_focus,
	[TUI_ACT_FOCUS_OUTPUT] = act_focus,
	[TUI_ACT_FOCUS_NEXT] = act_focus_next,
	[TUI_ACT_REDRAW] = act_redraw,
	[TUI_ACT_HELP] = act_help,
	[TUI_ACT_LINE_UP] = act_scroll,
	[TUI_ACT_LINE_DOWN] = act_scroll,
	[TUI_ACT_PAGE_UP] = act_scroll,
	[TUI_ACT_PAGE_DOWN] = act_scroll,
	[TUI_ACT_TOP] = act_scroll,
	[TUI_ACT_BOTTOM] = act_scroll,
	[TUI_ACT_SEARCH_PROMPT] = act_search_prompt,
	[TUI_ACT_SEARCH] = act_source,
	[TUI_ACT_SEARCH_BACK] = act_source,
	[TUI_ACT_FILES] = act_files,
	[TUI_ACT_CYCLE] = act_cycle,
	[TUI_ACT_SEARCH_NEXT] = act_source,
	[TUI_ACT_SEARCH_PREV] = act_source,
	[TUI_ACT_GOTO] = act_source,
	[TUI_ACT_CURRENT] = act_source,
	[TUI_ACT_FOLLOW_EDGE] = act_list,
	[TUI_ACT_BACK] = act_history,
	[TUI_ACT_FORWARD] = act_history,
	[TUI_ACT_NEXT_MEMBER] = act_cursor,
	[TUI_ACT_PREV_MEMBER] = act_cursor,
	[TUI_ACT_SWITCH_LINE] = act_cursor,
	[TUI_ACT_SUPPRESS_LINE] = act_cursor,
	[TUI_ACT_SLICE_LINE] = act_cursor,
	[TUI_ACT_SBREAK_LINE] = act_cursor,
	[TUI_ACT_TOGGLE_RECORD] = act_record,
	[TUI_ACT_CHECKPOINT] = act_checkpoint,
	[TUI_ACT_SLICE_SELECT] = act_slice_select,
	[TUI_ACT_SELECT] = act_list,
	[TUI_ACT_DELETE_ITEM] = act_list,
	[TUI_ACT_PRUNE_EDGE] = act_list,
	[TUI_ACT_GOTO_INSTANCE] = act_goto_instance,
	[TUI_ACT_SLICE_NUMBERS] = act_slice_numbers,
	[TUI_ACT_WALK_NEXT] = act_walk,
	[TUI_ACT_WALK_BACK] = act_walk,
	[TUI_ACT_WALK_STOP] = act_walk,
};

int tui_action(struct tui *t, int act, const char *arg)
{
	if (act < 0 || act >= TUI_ACT_COUNT || !act_table[act])
		return qz_error(t->q, "The UI action \"%s\" does nothing here.",
				act >= 0 && act < TUI_ACT_COUNT ? tui_action_name(act) : "?");
	return act_table[act](t, act, arg ? arg : "");
}
