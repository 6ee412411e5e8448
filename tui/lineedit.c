/* lineedit: the command line editor (see lineedit.h). Editing works on
 * UTF-8 bytes; completion reads the command table and the program's line
 * tables and functions, so it offers what the engine really knows. */
#define _XOPEN_SOURCE 700
#include "lineedit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <wchar.h>

#include "cmd/cmd.h"
#include "complete.h"
#include "dinfo/lines.h"
#include "fuzzy.h"
#include "keymap.h"
#include "target/session.h"
#include "util/util.h"

#define LE_HIST_MAX 1000

void tui_le_init(struct tui_le *e, struct qz *q)
{
	memset(e, 0, sizeof *e);
	e->cap = 64;
	e->buf = xcalloc(e->cap, 1);
	e->q = q;
}

void tui_le_free(struct tui_le *e)
{
	FREE_ALL(e->hist, e->nhist);
	free(e->buf);
	free(e->saved);
	free(e->hist_path);
}

void tui_le_set(struct tui_le *e, const char *text)
{
	size_t n = strlen(text);
	XGROW(e->buf, e->cap, n + 1);
	memcpy(e->buf, text, n + 1);
	e->len = e->cur = n;
}

static void le_insert(struct tui_le *e, const char *s, size_t n)
{
	XGROW(e->buf, e->cap, e->len + n + 1);
	memmove(e->buf + e->cur + n, e->buf + e->cur, e->len - e->cur + 1);
	memcpy(e->buf + e->cur, s, n);
	e->len += n;
	e->cur += n;
}

static void le_delete(struct tui_le *e, size_t from, size_t to)
{
	memmove(e->buf + from, e->buf + to, e->len - to + 1);
	e->len -= to - from;
	if (e->cur >= to)
		e->cur -= to - from;
	else if (e->cur > from)
		e->cur = from;
}

static size_t le_prev(const struct tui_le *e, size_t i)
{
	while (i > 0 && ((unsigned char)e->buf[--i] & 0xc0) == 0x80)
		;
	return i;
}

static size_t le_next(const struct tui_le *e, size_t i)
{
	while (i < e->len && ((unsigned char)e->buf[++i] & 0xc0) == 0x80)
		;
	return i;
}

static void le_put_char(struct tui_le *e, int c)
{
	char u[4];
	size_t n = 0;
	if (c < 0x80)
		u[n++] = (char)c;
	else if (c < 0x800) {
		u[n++] = (char)(0xc0 | c >> 6);
		u[n++] = (char)(0x80 | (c & 0x3f));
	} else if (c < 0x10000) {
		u[n++] = (char)(0xe0 | c >> 12);
		u[n++] = (char)(0x80 | (c >> 6 & 0x3f));
		u[n++] = (char)(0x80 | (c & 0x3f));
	} else {
		u[n++] = (char)(0xf0 | c >> 18);
		u[n++] = (char)(0x80 | (c >> 12 & 0x3f));
		u[n++] = (char)(0x80 | (c >> 6 & 0x3f));
		u[n++] = (char)(0x80 | (c & 0x3f));
	}
	le_insert(e, u, n);
}

static void le_history_go(struct tui_le *e, int dir)
{
	if ((dir < 0 && e->hpos == 0) || (dir > 0 && e->hpos >= e->nhist))
		return;
	if (e->hpos == e->nhist) {
		free(e->saved);
		e->saved = xstrdup(e->buf);
	}
	e->hpos = (size_t)((long)e->hpos + dir);
	tui_le_set(e, e->hpos == e->nhist ? (e->saved ? e->saved : "") : e->hist[e->hpos]);
}

static void le_kill_word(struct tui_le *e)
{
	size_t i = e->cur;
	while (i > 0 && e->buf[i - 1] == ' ')
		i--;
	while (i > 0 && e->buf[i - 1] != ' ')
		i--;
	le_delete(e, i, e->cur);
}

static enum tui_le_result le_complete(struct tui_le *e, struct sbuf *list);

/* Keys that move or delete. */
static enum tui_le_result le_edit_key(struct tui_le *e, int key)
{
	switch (key) {
	case TK_LEFT: case 2: e->cur = le_prev(e, e->cur); break;
	case TK_RIGHT: case 6: e->cur = le_next(e, e->cur); break;
	case TK_HOME: case 1: e->cur = 0; break;
	case TK_END: case 5: e->cur = e->len; break;
	case TK_BACKSPACE:
		if (e->cur)
			le_delete(e, le_prev(e, e->cur), e->cur);
		break;
	case TK_DEL: case 4:
		if (key == 4 && !e->len)
			return LE_EOF;
		if (e->cur < e->len)
			le_delete(e, e->cur, le_next(e, e->cur));
		break;
	case 11: le_delete(e, e->cur, e->len); break;
	case 21: le_delete(e, 0, e->cur); break;
	case 23: le_kill_word(e); break;
	case TK_UP: case 16: le_history_go(e, -1); break;
	case TK_DOWN: case 14: le_history_go(e, 1); break;
	default: return LE_UNHANDLED;
	}
	return LE_CHANGED;
}

/* ---- C-r: reverse search of the history ---- */

/* The newest entry at or before from that holds rq; shown if found. */
static void le_rs_find(struct tui_le *e, size_t from)
{
	for (size_t i = from < e->nhist ? from + 1 : e->nhist; i-- > 0;)
		if (strstr(e->hist[i], e->rq)) {
			e->rs_hit = i;
			e->rs_failed = false;
			tui_le_set(e, e->hist[i]);
			return;
		}
	e->rs_failed = true;
}

static void le_rs_start(struct tui_le *e)
{
	free(e->saved);
	e->saved = xstrdup(e->buf);
	e->rs = true;
	e->rs_failed = false;
	e->rq[0] = 0;
	e->rs_hit = e->nhist;
}

/* A key while searching: LE_UNHANDLED leaves the search, the line found
 * kept, for the editor to handle the key. */
static enum tui_le_result le_rs_key(struct tui_le *e, int key)
{
	size_t n = strlen(e->rq);
	if (key == 18) {   /* C-r again: an older match */
		if (e->rs_hit > 0 && e->rs_hit <= e->nhist)
			le_rs_find(e, e->rs_hit - 1);
	} else if (key == 7 || key == 3) {   /* C-g, C-c: back to the line */
		tui_le_set(e, e->saved ? e->saved : "");
		e->rs = false;
	} else if (key == TK_BACKSPACE) {
		if (n)
			e->rq[n - 1] = 0;
		le_rs_find(e, e->nhist);
	} else if (key >= ' ' && key < 127) {
		if (n + 1 < sizeof e->rq)
			e->rq[n] = (char)key, e->rq[n + 1] = 0;
		le_rs_find(e, e->rs_hit < e->nhist ? e->rs_hit : e->nhist);
	} else {
		e->rs = false;
		return LE_UNHANDLED;
	}
	return LE_CHANGED;
}

const char *tui_le_prompt(struct tui_le *e, const char *normal)
{
	if (!e->rs)
		return normal;
	snprintf(e->prompt, sizeof e->prompt, "(%sreverse-i-search)`%s': ",
		 e->rs_failed ? "failed " : "", e->rq);
	return e->prompt;
}

enum tui_le_result tui_le_key(struct tui_le *e, int key, struct sbuf *list)
{
	if (e->rs && le_rs_key(e, key) == LE_CHANGED)
		return LE_CHANGED;
	if (key == 18) {
		le_rs_start(e);
		return LE_CHANGED;
	}
	if (key == TK_ENTER)
		return LE_ACCEPT;
	if (key == 3) {
		tui_le_set(e, "");
		e->hpos = e->nhist;
		return LE_CANCEL;
	}
	if (key == TK_TAB)
		return le_complete(e, list);
	if (key >= ' ' && key < TK_BASE && key != 127) {
		le_put_char(e, key);
		return LE_CHANGED;
	}
	return le_edit_key(e, key);
}

static void le_history_add(struct tui_le *e, const char *line)
{
	if (!*str_skip_space(line) ||
	    (e->nhist && !strcmp(e->hist[e->nhist - 1], line)))
		return;
	if (e->nhist == LE_HIST_MAX) {
		free(e->hist[0]);
		memmove(e->hist, e->hist + 1, (e->nhist - 1) * sizeof *e->hist);
		e->nhist--;
	}
	XGROW(e->hist, e->hist_cap, e->nhist + 1);
	e->hist[e->nhist++] = xstrdup(line);
	FILE *f = e->hist_path ? fopen(e->hist_path, "ae") : NULL;
	if (f) {
		fprintf(f, "%s\n", line);
		fclose(f);
	}
}

char *tui_le_take(struct tui_le *e)
{
	char *line = xstrdup(e->buf);
	le_history_add(e, line);
	e->hpos = e->nhist;
	free(e->saved);
	e->saved = NULL;
	tui_le_set(e, "");
	return line;
}

void tui_le_history_load(struct tui_le *e)
{
	const char *home = getenv("HOME");
	if (!home || !*home)
		return;
	e->hist_path = xasprintf("%s/.qzdb_history", home);
	FILE *f = fopen(e->hist_path, "re");
	if (!f)
		return;
	char *line = NULL, *path = e->hist_path;
	size_t cap = 0;
	ssize_t n;
	e->hist_path = NULL;   /* do not append what is being read */
	while ((n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] == '\n')
			line[n - 1] = 0;
		le_history_add(e, line);
	}
	e->hist_path = path;
	e->hpos = e->nhist;
	free(line);
	fclose(f);
}

int tui_le_cursor_col(const struct tui_le *e)
{
	mbstate_t st = {0};
	int col = 0;
	size_t i = 0;
	while (i < e->cur) {
		wchar_t wc;
		size_t n = mbrtowc(&wc, e->buf + i, e->cur - i, &st);
		if (n == 0 || n > e->cur - i) {
			memset(&st, 0, sizeof st);
			n = 1;
			wc = '?';
		}
		int w = wcwidth(wc);
		col += w > 0 ? w : 0;
		i += n;
	}
	return col;
}

/* ---- completion ---- */

struct cands {
	char **v;
	size_t n, cap;
	const char *prefix;
	size_t plen;
};

static void cand_add(struct cands *c, const char *s)
{
	if (strncmp(s, c->prefix, c->plen))
		return;
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->v[i], s))
			return;
	XGROW(c->v, c->cap, c->n + 1);
	c->v[c->n++] = xstrdup(s);
}

/* Commands at the top level (prefix "") or under a prefix command. */
static void cand_commands(struct cands *c, const char *prefix)
{
	size_t pl = strlen(prefix);
	const struct cmd_def *d;
	for (size_t i = 0; (d = cmd_at(i)); i++) {
		if (d->flags & CMD_HIDDEN)
			continue;
		const char *sp = strchr(d->name, ' ');
		if (!pl && !sp)
			cand_add(c, d->name);
		else if (pl && sp && (size_t)(sp - d->name) == pl && !strncmp(d->name, prefix, pl))
			cand_add(c, sp + 1);
	}
}

static void cand_add_cb(void *arg, const char *name)
{
	cand_add(arg, name);
}

static void cand_program(struct cands *c, struct qz *q)
{
	size_t n;
	if (!q || !q->exe_loaded)
		return;
	tui_complete_locals(q, cand_add_cb, c);
	if (q->exe.lines) {
		const char **files = lines_files(q->exe.lines, &n);
		for (size_t i = 0; i < n; i++) {
			const char *slash = strrchr(files[i], '/');
			cand_add(c, slash ? slash + 1 : files[i]);
		}
	}
	if (q->exe.di) {
		const struct di_func *const *f = di_funcs(q->exe.di, &n);
		for (size_t i = 0; i < n; i++)
			if (f[i]->name)
				cand_add(c, f[i]->name);
	}
}

static int cand_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Gather candidates for the word that ends at the cursor. */
static void le_candidates(struct tui_le *e, size_t start, struct cands *c)
{
	char first[64] = "";
	const char *s = str_skip_space(e->buf);
	size_t fl = strcspn(s, " \t");
	bool first_word = (size_t)(s - e->buf) >= start;
	if (fl < sizeof first)
		memcpy(first, s, fl), first[fl] = 0;
	if (first_word) {
		cand_commands(c, "");
		return;
	}
	const struct cmd_def *d = cmd_lookup("", first, &(bool){false});
	size_t words = 0;
	for (size_t i = 0; i < start; i++)
		words += e->buf[i] != ' ' && (i == 0 || e->buf[i - 1] == ' ');
	if (d && (d->flags & CMD_PREFIX) && words == 1)
		cand_commands(c, d->name);
	else
		cand_program(c, e->q);
	qsort(c->v, c->n, sizeof *c->v, cand_cmp);
}

static bool le_ident(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       ch == '_';
}

/* After `EXPR.` or `EXPR->`: the members of EXPR's type (the word starts
 * after the operator); false if the cursor is not there. */
static bool le_members(struct tui_le *e, size_t *start, struct cands *c)
{
	size_t w = e->cur, op, x;
	while (w > 0 && le_ident(e->buf[w - 1]))
		w--;
	bool arrow = w >= 2 && e->buf[w - 1] == '>' && e->buf[w - 2] == '-';
	if (!arrow && !(w >= 1 && e->buf[w - 1] == '.'))
		return false;
	op = x = w - (arrow ? 2 : 1);
	while (x > 0 && e->buf[x - 1] != ' ' && e->buf[x - 1] != '(' && e->buf[x - 1] != '*' &&
	       e->buf[x - 1] != '&' && e->buf[x - 1] != '!')
		x--;
	if (x == op)
		return false;
	char *expr = xasprintf("%.*s", (int)(op - x), e->buf + x);
	bool ok = tui_complete_members(e->q, expr, arrow, cand_add_cb, c);
	free(expr);
	*start = w;
	return ok;
}

/* `tui files TEXT` (the file picker, C-p): Tab lists the source files
 * whose names TEXT matches fuzzily, best first; one match completes. */
struct fz {
	int score;
	const char *name;
};

static int fz_cmp(const void *a, const void *b)
{
	const struct fz *x = a, *y = b;
	return x->score != y->score ? (x->score > y->score) - (x->score < y->score)
		: strcmp(x->name, y->name);
}

static bool le_complete_files(struct tui_le *e, struct sbuf *list, enum tui_le_result *r)
{
	static const char pre[] = "tui files ";
	size_t n = 0, k = 0;
	if (strncmp(e->buf, pre, sizeof pre - 1) || !e->q || !e->q->exe_loaded || !e->q->exe.lines)
		return false;
	const char **files = lines_files(e->q->exe.lines, &n);
	const char *word = str_skip_space(e->buf + sizeof pre - 1);
	struct fz *m = xcalloc(n + 1, sizeof *m);
	for (size_t i = 0; i < n; i++)
		if ((m[k].score = tui_fuzzy_score(word, files[i])) >= 0)
			m[k++].name = files[i];
	qsort(m, k, sizeof *m, fz_cmp);
	*r = LE_CHANGED;
	if (k == 1) {
		char *line = xasprintf("%s%s", pre, m[0].name);
		tui_le_set(e, line);
		free(line);
	} else if (k > 1 && list) {
		for (size_t i = 0; i < k && i < 12; i++)
			sbuf_printf(list, "%s%s", i ? "  " : "", m[i].name);
		*r = LE_LISTED;
	}
	free(m);
	return true;
}

static enum tui_le_result le_complete(struct tui_le *e, struct sbuf *list)
{
	enum tui_le_result fr;
	if (le_complete_files(e, list, &fr))
		return fr;
	size_t start = e->cur;
	while (start > 0 && e->buf[start - 1] != ' ' && e->buf[start - 1] != ':')
		start--;
	size_t mstart = e->cur;
	while (mstart > 0 && le_ident(e->buf[mstart - 1]))
		mstart--;
	char *word = xasprintf("%.*s", (int)(e->cur - mstart), e->buf + mstart);
	struct cands c = {.prefix = word, .plen = strlen(word)};
	if (e->q && le_members(e, &mstart, &c)) {
		qsort(c.v, c.n, sizeof *c.v, cand_cmp);
	} else {
		free(word);
		word = xasprintf("%.*s", (int)(e->cur - start), e->buf + start);
		c = (struct cands){.prefix = word, .plen = strlen(word)};
		le_candidates(e, start, &c);
	}
	enum tui_le_result r = LE_CHANGED;
	if (c.n) {
		size_t common = strlen(c.v[0]);
		for (size_t i = 1; i < c.n; i++)
			while (common && strncmp(c.v[0], c.v[i], common))
				common--;
		le_insert(e, c.v[0] + c.plen, common - c.plen);
		if (c.n == 1)
			le_insert(e, " ", 1);
		else if (common == c.plen && list) {
			for (size_t i = 0; i < c.n; i++)
				sbuf_printf(list, "%s%s", i ? "  " : "", c.v[i]);
			r = LE_LISTED;
		}
	}
	FREE_ALL(c.v, c.n);
	free(word);
	return r;
}

/* ---- the plain command line ---- */

static void le_show(struct tui_le *e, const char *prompt)
{
	struct sbuf b = {0};
	prompt = tui_le_prompt(e, prompt);
	sbuf_printf(&b, "\r%s%s\x1b[K", prompt, e->buf);
	int back = (int)strlen(prompt) + tui_le_cursor_col(e);
	sbuf_printf(&b, "\r");
	if (back)
		sbuf_printf(&b, "\x1b[%dC", back);
	if (write(1, b.s, b.len) < 0)
		{ /* the terminal is gone; the next read ends the session */ }
	sbuf_free(&b);
}

/* Read one key from the raw terminal; -1 at end of input. */
static int le_read_key(unsigned char *pend, size_t *npend)
{
	for (;;) {
		size_t used;
		int k = tui_key_decode(pend, *npend, &used);
		if (used) {
			memmove(pend, pend + used, *npend - used);
			*npend -= used;
			if (k >= 0)
				return k;
			continue;
		}
		ssize_t n = read(0, pend + *npend, 64 - *npend);
		if (n < 0 && errno == EINTR && !proc_quit_pending())
			continue;   /* SIGWINCH; SIGTERM or SIGHUP end the input */
		if (n <= 0)
			return -1;
		*npend += (size_t)n;
	}
}

/* One key and what it does to the line: 0 the line is taken, -1 end of
 * input, 1 go on. */
static int le_read_step(struct tui_le *e, const char *prompt, struct sbuf *list)
{
	le_show(e, prompt);
	int k = le_read_key(e->pend, &e->npend);
	if (k < 0)
		return -1;
	sbuf_reset(list);
	switch (tui_le_key(e, k, list)) {
	case LE_ACCEPT: return 0;
	case LE_EOF: return -1;
	case LE_CANCEL:
		return write(1, "^C\r\n", 4) < 0 ? -1 : 1;
	case LE_LISTED:
		return write(1, "\r\n", 2) < 0 || write(1, list->s, list->len) < 0 ||
		       write(1, "\r\n", 2) < 0 ? -1 : 1;
	default: return 1;
	}
}

static int le_read_loop(struct tui_le *e, const char *prompt)
{
	struct sbuf list = {0};
	int r;
	while ((r = le_read_step(e, prompt, &list)) > 0)
		;
	sbuf_free(&list);
	return r;
}

char *tui_le_readline(struct tui_le *e, const char *prompt)
{
	struct termios old, raw;
	if (tcgetattr(0, &old) < 0)
		return NULL;
	raw = old;
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO | ISIG | IEXTEN);
	raw.c_iflag &= ~(tcflag_t)(IXON | ICRNL);
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	tcsetattr(0, TCSADRAIN, &raw);
	int r = le_read_loop(e, prompt);
	tcsetattr(0, TCSADRAIN, &old);
	if (write(1, "\n", 1) < 0)
		r = -1;
	if (r < 0)
		return NULL;
	return tui_le_take(e);
}

bool tui_le_repeatable(const char *line)
{
	static const char *const words[] = {
		"n", "next", "s", "step", "si", "stepi", "ni", "nexti", "c",
		"continue", "l", "list", "x", "u", "until", NULL,
	};
	size_t n = strcspn(line, " \t\n");
	for (int i = 0; words[i]; i++)
		if (strlen(words[i]) == n && !strncmp(words[i], line, n))
			return true;
	return false;
}
