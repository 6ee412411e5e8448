/* pane-output: what the program writes to its terminal (the UI's pty), a
 * scrollback (scrollback.c) under a small terminal model: lines, carriage
 * return, backspace; escape sequences are dropped (colours and cursor
 * moves would garble the pane). The line being written sits at the
 * bottom. With the keys, the pane sends what is typed to the program,
 * except the keys qzdb binds everywhere (F5, F10, ...). */
#define _XOPEN_SOURCE 700
#include <curses.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "draw.h"
#include "keymap.h"
#include "scrollback.h"
#include "theme.h"
#include "util/util.h"

struct outp {
	struct tui_sb sb;       /* first: the scrollback type's state */
	struct sbuf cur;        /* the line being written */
	int esc;                /* 0, 1 after ESC, 2 in CSI, 3 in OSC */
	bool cr;                /* a CR not yet followed by LF */
};

/* Inside an escape sequence: where it goes after byte c. */
static int out_esc(int esc, unsigned char c)
{
	if (esc == 1)
		return c == '[' ? 2 : c == ']' ? 3 : 0;
	if (esc == 2)
		return c >= 0x40 && c <= 0x7e ? 0 : 2;
	return c == 7 || c == '\\' ? 0 : 3;
}

static void out_byte(struct outp *o, unsigned char c)
{
	if (o->esc) {
		o->esc = out_esc(o->esc, c);
		return;
	}
	if (o->cr && c != '\n')
		sbuf_reset(&o->cur);   /* CR then text: overwrite the line */
	o->cr = false;
	if (c == 27)
		o->esc = 1;
	else if (c == '\r')
		o->cr = true;
	else if (c == '\n') {
		tui_sb_split(&o->sb, o->cur.s ? o->cur.s : "", TUI_EL_OUTPUT);
		sbuf_reset(&o->cur);
	} else if (c == '\b') {
		while (o->cur.len && (o->cur.s[--o->cur.len] & 0xc0) == 0x80)
			;
		if (o->cur.s)
			o->cur.s[o->cur.len] = 0;
	} else if (c >= ' ' || c == '\t') {
		sbuf_addc(&o->cur, (char)c);
	}
}

static void out_feed(struct tui_pane *p, const char *s, size_t n, int elem)
{
	(void)elem;
	for (size_t i = 0; i < n; i++)
		out_byte(p->st, (unsigned char)s[i]);
}

/* The line being written, wrapped like the rest; the cursor follows it
 * while the pane has the keys. Scrolled back, only the lines show. */
static int out_bottom(struct tui_pane *p, const struct tui_view *v, WINDOW *w, int last,
		      struct tui_cursor *cur)
{
	struct outp *o = p->st;
	const char *s = o->cur.s ? o->cur.s : "";
	int cols;
	if (o->sb.back)
		return last;
	tui_text_col(s, -1, &cols);
	/* text filling its last row puts the cursor on an empty row below */
	int top = tui_draw_wrapped_text(w, s, 1, cols && cols % p->w == 0 ? last - 1 : last,
					p->w, TUI_EL_OUTPUT);
	if (v->focus == p->id)
		*cur = (struct tui_cursor){last, cols % p->w};
	return top - 1;
}

/* The bytes a key sends to the program's terminal. */
static int out_key(struct tui_pane *p, const struct tui_view *v, int key, struct tui_req *req)
{
	static const struct { int key; const char *seq; } seqs[] = {
		{TK_ENTER, "\r"}, {TK_TAB, "\t"}, {TK_BACKSPACE, "\x7f"},
		{TK_UP, "\x1b[A"}, {TK_DOWN, "\x1b[B"}, {TK_RIGHT, "\x1b[C"},
		{TK_LEFT, "\x1b[D"}, {TK_ESC, "\x1b"},
	};
	char u[8] = "";
	mbstate_t st = {0};
	size_t n = 0;
	(void)p, (void)v;
	if (tui_keymap_lookup(TUI_KEYMAP_GENERIC, key))
		return TUI_NOT_MINE;
	for (size_t i = 0; i < sizeof seqs / sizeof *seqs; i++)
		if (seqs[i].key == key)
			n = strlen(strcpy(u, seqs[i].seq));
	if (!n && key < TK_BASE && (n = wcrtomb(u, (wchar_t)key, &st)) == (size_t)-1)
		n = 0;
	if (n)
		*req = (struct tui_req){.kind = TUI_REQ_SEND, .text = xstrndup(u, n), .len = n};
	return 0;
}

static const struct tui_sb_kind out_kind = {
	.keep = 2000, .stay = true, .scroll_all = true,
	.hint = " (O in the source pane: type to the program)",
	.focus_hint = " - keys go to the program (Esc: back)", .bottom = out_bottom,
};

static void out_init(struct tui_pane *p, const struct tui_view *v)
{
	struct outp *o = xcalloc(1, sizeof *o);
	(void)v;
	tui_sb_init(&o->sb, &out_kind);
	p->st = o;
}

static void out_fini(struct tui_pane *p)
{
	struct outp *o = p->st;
	tui_sb_free(&o->sb);
	sbuf_free(&o->cur);
	free(o);
}

const struct tui_pane_ops tui_output_pane = {
	.init = out_init, .fini = out_fini, .draw = tui_sb_draw, .action = tui_sb_action,
	.key = out_key, .feed = out_feed, .min_rows = 2,
};
