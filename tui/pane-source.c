/* pane-source: the program's source around the current line or the
 * cursor, with a gutter: the alteration mark (W switch, X suppress), the
 * slice mark (how many instances of the line are members of the current
 * slice: 1-9, + beyond; member lines also get the `slice` colour), the
 * breakpoint mark (B enabled, b disabled), the current-line mark (>) and
 * the line number; lines of the last detector's value propagation chain
 * get the `chain` colour (over `slice`). The text is
 * copied out of the engine's source cache when the file changes, so the
 * runner thread can draw it while the engine works. */
#include "pane-source.h"

#include <curses.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "alter/alter.h"
#include "detect/chain.h"
#include "dinfo/source.h"
#include "draw.h"
#include "keymap.h"
#include "pane.h"
#include "slice-view.h"
#include "target/bp.h"
#include "target/frame.h"
#include "target/loc.h"
#include "target/session.h"
#include "theme.h"
#include "util/util.h"

#define SRC_GUTTER 9       /* 2 marks + bp + current + 4 digits + space */

struct src {
	char *path;           /* the file shown, as the line table names it */
	char **text;          /* its lines (copied) */
	int n;
	int top, cursor;      /* 1-based; top is the first line on screen */
	int cur_line;         /* where the program is in this file, 0: not here */
	unsigned char *marks; /* per line: 0, 'B' (enabled), 'b' (disabled) */
	unsigned char *alter; /* per line: 0, 'W' (switch), 'X' (suppress) */
	unsigned char *slice; /* per line: member instances of the slice shown */
	unsigned char *chain; /* per line: a link of the last detector's chain */
	char *search;         /* last search (a POSIX extended regex) */
	regex_t re;           /* it compiled, when search is set */
	bool back;            /* it searched backward: n goes on backward */
	char *stop_file;      /* the last stop followed */
	int stop_line, stop_seq;
	bool center;          /* scroll the cursor to a third of the pane */
};

static void src_free_text(struct src *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->text[i]);
	free(s->text);
	free(s->marks);
	free(s->alter);
	free(s->slice);
	free(s->chain);
	s->text = NULL;
	s->marks = s->alter = s->slice = s->chain = NULL;
	s->n = 0;
}

static void src_load(struct src *s, const char *path)
{
	if (s->path && !strcmp(s->path, path))
		return;
	src_free_text(s);
	free(s->path);
	s->path = xstrdup(path);
	const char *why = NULL;
	int n = src_count(path);
	if (n < 0) {
		src_line(path, 1, &why);
		s->text = xcalloc(1, sizeof *s->text);
		s->text[0] = xasprintf("(cannot read %s: %s)", path, why ? why : "unknown");
		n = 1;
	} else {
		s->text = xcalloc((size_t)n + 1, sizeof *s->text);
		for (int i = 0; i < n; i++) {
			const char *l = src_line(path, i + 1, NULL);
			s->text[i] = xstrdup(l ? l : "");
		}
	}
	s->n = n;
	s->marks = xcalloc((size_t)n + 2, 1);
	s->alter = xcalloc((size_t)n + 2, 1);
	s->slice = xcalloc((size_t)n + 2, 1);
	s->chain = xcalloc((size_t)n + 2, 1);
	s->cursor = s->top = 1;
}

static void src_mark_one(struct src *s, const struct bp *b, int line)
{
	if (b->kind == BP_KIND_SWITCH || b->kind == BP_KIND_SUPPRESS)
		s->alter[line] = b->kind == BP_KIND_SWITCH ? 'W' : 'X';
	else if (s->marks[line] != 'B')
		s->marks[line] = b->enabled ? 'B' : 'b';
}

/* The lines of the last value propagation chain's links. */
static void src_chain_marks(struct src *s, struct qz *q)
{
	memset(s->chain, 0, (size_t)s->n + 2);
	for (size_t i = 0, n = detect_chain_len(q); i < n; i++) {
		const char *file;
		int line;
		if (detect_chain_place(q, i, &file, &line) && line >= 1 && line <= s->n &&
		    tui_slice_same_file(file, s->path))
			s->chain[line] = 1;
	}
}

static void src_marks(struct src *s, const struct tui_view *v)
{
	struct qz *q = v->q;
	if (!s->marks)
		return;
	memset(s->marks, 0, (size_t)s->n + 2);
	memset(s->alter, 0, (size_t)s->n + 2);
	for (size_t i = 0; i < q->bps.n; i++) {
		const char *af;
		int al;
		if (alter_bp_line(&q->bps.bps[i], &af, &al)) {
			if (al >= 1 && al <= s->n && tui_slice_same_file(af, s->path))
				src_mark_one(s, &q->bps.bps[i], al);
			continue;
		}
		for (size_t j = 0; j < q->bps.bps[i].nlocs; j++) {
			const struct bp_loc *l = &q->bps.bps[i].locs[j];
			if (!l->file || l->line < 1 || l->line > s->n || strcmp(l->file, s->path))
				continue;
			src_mark_one(s, &q->bps.bps[i], l->line);
		}
	}
	tui_slice_lines(v->sv, s->path, s->n, s->slice);
	src_chain_marks(s, q);
}

static void src_go(struct src *s, const char *file, int line)
{
	src_load(s, file);
	s->cursor = line < 1 ? 1 : line > s->n ? s->n : line;
	s->center = true;
}

/* Before `run`: main. */
static void src_show_main(struct src *s, struct qz *q)
{
	struct loc_addr *a = NULL;
	size_t n = 0;
	struct sbuf err = q->err;
	q->err = (struct sbuf){0};
	if (loc_resolve_ex(q, "main", false, &a, &n) == 0 && n && a[0].file)
		src_go(s, a[0].file, a[0].line);
	free(a);
	sbuf_free(&q->err);
	q->err = err;
}

static void src_update(struct tui_pane *p, const struct tui_view *v, const char *text)
{
	struct src *s = p->st;
	struct qz *q = v->q;
	const struct frame *f = q->proc ? frame_get(q, q->sel_frame) : NULL;
	s->cur_line = 0;
	if (f && f->file) {
		bool moved = !s->stop_file || strcmp(s->stop_file, f->file) ||
			     s->stop_line != f->line || s->stop_seq != q->stops_shown;
		if (moved) {
			free(s->stop_file);
			s->stop_file = xstrdup(f->file);
			s->stop_line = f->line;
			s->stop_seq = q->stops_shown;
			src_go(s, f->file, f->line);
		}
		if (!strcmp(s->path, f->file))
			s->cur_line = f->line;
	} else if (!s->path) {
		src_show_main(s, q);
	}
	(void)text;
	src_marks(s, v);
}

static void src_scroll(struct src *s, int rows)
{
	if (s->center) {
		s->top = s->cursor - rows / 3;
		s->center = false;
	}
	if (s->cursor < s->top)
		s->top = s->cursor;
	if (s->cursor >= s->top + rows)
		s->top = s->cursor - rows + 1;
	if (s->top > s->n - rows + 1)
		s->top = s->n - rows + 1;
	if (s->top < 1)
		s->top = 1;
}

/* The last search's first match on the line, highlighted. */
static void src_draw_match(const struct src *s, WINDOW *w, int y, const char *text, int width)
{
	regmatch_t m;
	if (!s->search || regexec(&s->re, text, 1, &m, 0) || m.rm_eo <= m.rm_so)
		return;
	char *pre = xasprintf("%.*s", (int)m.rm_eo, text);
	int from, to;
	tui_text_col(pre, -1, &to);
	pre[m.rm_so] = 0;
	tui_text_col(pre, -1, &from);
	free(pre);
	if (from < width)
		tui_draw_el(w, y, SRC_GUTTER + from, text + m.rm_so,
			    (to < width ? to : width) - from, TUI_EL_MATCH, false);
}

/* slice-numbers: the line's member instances, right-aligned. */
static void src_draw_insts(const struct tui_view *v, const struct src *s, WINDOW *w, int y,
			   int ln, int width)
{
	char buf[256], txt[260];
	tui_slice_line_insts(v->sv, s->path, ln, buf, sizeof buf);
	int n = snprintf(txt, sizeof txt, " %s", buf);
	if (n < width - SRC_GUTTER - 4)
		tui_draw_el(w, y, width - n, txt, n, TUI_EL_MARK, false);
}

/* The gutter (marks, then > or * and the number) and the text. */
static void src_draw_line(const struct tui_view *v, const struct src *s, WINDOW *w, int y,
			  int ln, int width)
{
	char gut[16];
	bool focus = v->cursor_lit;
	bool member = s->slice[ln] || s->chain[ln];
	unsigned text_attr = tui_theme_attr(s->chain[ln] ? TUI_EL_CHAIN
					    : s->slice[ln] ? TUI_EL_SLICE : TUI_EL_DEFAULT);
	if (ln == s->cur_line)
		text_attr = tui_theme_attr(TUI_EL_CURRENT);
	else if (ln == s->cursor && focus)   /* a member keeps its colour */
		text_attr = member ? text_attr | A_BOLD | A_UNDERLINE : tui_theme_attr(TUI_EL_CURSOR);
	int sm = !s->slice[ln] ? 0 : s->slice[ln] > 9 ? '+' : '0' + s->slice[ln];
	tui_draw_mark(w, y, 0, s->alter[ln], TUI_EL_ALTER);
	tui_draw_mark(w, y, 1, sm, TUI_EL_MARK);
	tui_draw_mark(w, y, 2, s->marks[ln], s->marks[ln] == 'b' ? TUI_EL_BP_OFF : TUI_EL_BP_ON);
	snprintf(gut, sizeof gut, "%c%4d ", ln == s->cur_line ? '>' : ln == s->cursor && focus ? '*' : ' ', ln);
	tui_draw_el(w, y, 3, gut, 6, ln == s->cur_line ? TUI_EL_CURRENT : TUI_EL_LINENO, false);
	tui_draw_text(w, y, SRC_GUTTER, s->text[ln - 1], width - SRC_GUTTER, text_attr,
		      ln == s->cur_line || (ln == s->cursor && focus) || member);
	src_draw_match(s, w, y, s->text[ln - 1], width - SRC_GUTTER);
	if (v->sv->numbers && s->slice[ln])
		src_draw_insts(v, s, w, y, ln, width);
}

static void src_draw(struct tui_pane *p, const struct tui_view *v, WINDOW *w,
		     struct tui_cursor *cur)
{
	struct src *s = p->st;
	int rows = tui_pane_rows(p);
	char title[256];
	(void)cur;
	if (!s->path) {
		tui_draw_title(w, p->def->title, v->focus == p->id);
		tui_draw_el(w, 1, 1, "(no source: the program has no line information for main)",
			    p->w - 2, TUI_EL_DEFAULT, false);
		return;
	}
	src_scroll(s, rows);
	const char *base = strrchr(s->path, '/');
	snprintf(title, sizeof title, "%s: %s  line %d/%d", p->def->title,
		 base ? base + 1 : s->path, s->cursor, s->n);
	tui_draw_title(w, title, v->focus == p->id);
	for (int i = 0; i < rows && s->top + i <= s->n; i++)
		src_draw_line(v, s, w, i + 1, s->top + i, p->w);
}

/* A new search: its regex compiled, or the error (the old one kept). */
static int src_search_set(const struct tui_view *v, struct src *s, const char *arg)
{
	regex_t re;
	int rc = regcomp(&re, arg, REG_EXTENDED);
	if (rc) {
		char why[128];
		regerror(rc, &re, why, sizeof why);
		return qz_error(v->q, "Bad search pattern \"%s\": %s.", arg, why);
	}
	if (s->search)
		regfree(&s->re);
	free(s->search);
	s->search = xstrdup(arg);
	s->re = re;
	return 0;
}

static int src_search(const struct tui_view *v, struct src *s, const char *arg, int dir)
{
	if (arg && *arg && src_search_set(v, s, arg) < 0)
		return -1;
	if (arg && *arg)
		s->back = dir < 0;   /* n goes on the same way, N the other */
	if (!s->search)
		return qz_error(v->q, "No previous search.");
	for (int k = 1; k <= s->n; k++) {
		int ln = ((s->cursor - 1 + dir * k) % s->n + s->n) % s->n + 1;
		if (!regexec(&s->re, s->text[ln - 1], 0, NULL, 0)) {
			s->cursor = ln;
			return 0;
		}
	}
	return qz_error(v->q, "Pattern not found: %s", s->search);
}

static int src_goto(const struct tui_view *v, struct src *s, const char *arg)
{
	struct loc_addr *a = NULL;
	size_t n = 0;
	int64_t ln;
	if (str_num_all(arg, 0, INT32_MAX, &ln) == STR_NUM_OK && s->path) {
		src_go(s, s->path, (int)ln);
		return 0;
	}
	if (loc_resolve_ex(v->q, arg, false, &a, &n) < 0)
		return -1;
	if (n && a[0].file)
		src_go(s, a[0].file, a[0].line);
	free(a);
	return n ? 0 : qz_error(v->q, "No line for \"%s\".", arg);
}

static int src_action(struct tui_pane *p, const struct tui_view *v, int act, const char *arg,
		      struct tui_req *req)
{
	struct src *s = p->st;
	int page = tui_pane_rows(p) > 2 ? tui_pane_rows(p) - 1 : 1;
	(void)req;
	if (!s->path && act != TUI_ACT_GOTO)
		return qz_error(v->q, "No source shown.");
	switch (act) {
	case TUI_ACT_LINE_UP: s->cursor--; break;
	case TUI_ACT_LINE_DOWN: s->cursor++; break;
	case TUI_ACT_PAGE_UP: s->cursor -= page; s->top -= page; break;
	case TUI_ACT_PAGE_DOWN: s->cursor += page; s->top += page; break;
	case TUI_ACT_TOP: s->cursor = 1; break;
	case TUI_ACT_BOTTOM: s->cursor = s->n; break;
	case TUI_ACT_SEARCH: return src_search(v, s, arg, 1);
	case TUI_ACT_SEARCH_BACK: return src_search(v, s, arg, -1);
	case TUI_ACT_SEARCH_NEXT: return src_search(v, s, NULL, s->back ? -1 : 1);
	case TUI_ACT_SEARCH_PREV: return src_search(v, s, NULL, s->back ? 1 : -1);
	case TUI_ACT_GOTO: return src_goto(v, s, arg);
	case TUI_ACT_CURRENT:
		if (!s->stop_file || !v->q->proc)
			return qz_error(v->q, "The program is not stopped anywhere.");
		src_go(s, s->stop_file, s->stop_line);
		break;
	}
	s->cursor = s->cursor < 1 ? 1 : s->cursor > s->n ? s->n : s->cursor;
	return 0;
}

void tui_source_show(struct tui_pane *p, const struct tui_view *v, const char *file, int line)
{
	struct src *s = p->st;
	src_go(s, file, line);
	src_marks(s, v);
}

bool tui_source_place(const struct tui_pane *p, const char **file, int *line)
{
	const struct src *s = p->st;
	*file = s->path;
	*line = s->cursor;
	return s->path && s->n > 0;
}

static void src_init(struct tui_pane *p, const struct tui_view *v)
{
	(void)v;
	p->st = xcalloc(1, sizeof(struct src));
}

static void src_fini(struct tui_pane *p)
{
	struct src *s = p->st;
	src_free_text(s);
	free(s->path);
	if (s->search)
		regfree(&s->re);
	free(s->search);
	free(s->stop_file);
	free(s);
}

const struct tui_pane_ops tui_source_pane = {
	.init = src_init, .fini = src_fini, .update = src_update, .draw = src_draw,
	.action = src_action,
};
