/* pane-output: what the program writes to its terminal (the UI's pty).
 * A small terminal model: lines, carriage return, backspace; escape
 * sequences are dropped (colours and cursor moves would garble the
 * pane). Focused, the keys typed go to the program. */
#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "keymap.h"
#include "theme.h"
#include "ui.h"

#define OUT_KEEP 2000

struct outp {
	struct tui_lines lines;
	struct sbuf cur;       /* the line being written */
	int esc;               /* 0, 1 after ESC, 2 in CSI, 3 in OSC */
	int back;              /* lines scrolled back from the end */
	bool cr;               /* a CR not yet followed by LF */
};

static void out_byte(struct outp *o, unsigned char c)
{
	if (o->esc == 1) {
		o->esc = c == '[' ? 2 : c == ']' ? 3 : 0;
		return;
	}
	if (o->esc == 2) {
		o->esc = c >= 0x40 && c <= 0x7e ? 0 : 2;
		return;
	}
	if (o->esc == 3) {
		o->esc = c == 7 || c == '\\' ? 0 : 3;
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
		tui_lines_add(&o->lines, o->cur.s ? o->cur.s : "", TUI_EL_OUTPUT);
		o->back += o->back > 0;   /* a scrolled-back view stays put */
		sbuf_reset(&o->cur);
	} else if (c == '\b') {
		while (o->cur.len && (o->cur.s[--o->cur.len] & 0xc0) == 0x80)
			;
		if (o->cur.s)
			o->cur.s[o->cur.len] = 0;
	} else if (c >= ' ' || c == '\t') {
		char s[2] = {(char)c, 0};
		sbuf_add(&o->cur, s);
	}
}

void tui_output_feed(struct tui *t, const char *buf, size_t n)
{
	struct outp *o = t->panes[TP_OUTPUT].st;
	for (size_t i = 0; i < n; i++)
		out_byte(o, (unsigned char)buf[i]);
}

static void out_draw(struct tui *t, struct tui_pane *p, WINDOW *w)
{
	struct outp *o = p->st;
	int rows = tui_pane_rows(p), last = rows;
	if (o->back)
		tui_draw_title(w, " program output (scrolled back: PgDn)", &t->panes[t->focus] == p);
	else
		tui_draw_title(w, t->focus == TP_OUTPUT ?
			       " program output - keys go to the program (Esc: back)" :
			       " program output (o in the source pane: type to the program)", &t->panes[t->focus] == p);
	/* The line being written sits on the bottom row, wrapped like the
	 * rest; the cursor follows it when the pane has the keys. */
	if (!o->back) {
		const char *cur = o->cur.s ? o->cur.s : "";
		int cols;
		tui_text_col(cur, -1, &cols);
		/* text filling its last row puts the cursor on an empty row below */
		int top = tui_draw_wrapped_text(w, cur, 1, cols && cols % p->w == 0 ? last - 1 : last,
						p->w, TUI_EL_OUTPUT);
		if (t->focus == TP_OUTPUT)
			t->cur_y = p->y + last, t->cur_x = p->x + cols % p->w;
		last = top - 1;
	}
	tui_draw_wrapped(w, &o->lines, o->lines.n - (size_t)o->back, 1, last, p->w);
}

static int out_action(struct tui *t, struct tui_pane *p, int act, const char *arg)
{
	struct outp *o = p->st;
	int page = tui_pane_rows(p) > 1 ? tui_pane_rows(p) - 1 : 1;
	(void)t, (void)arg;
	if (act == TUI_ACT_PAGE_UP)
		o->back += page;
	else if (act == TUI_ACT_PAGE_DOWN)
		o->back -= page;
	else
		return TUI_NOT_MINE;
	o->back = o->back > (int)o->lines.n ? (int)o->lines.n : o->back < 0 ? 0 : o->back;
	return 0;
}

static void out_init(struct tui *t, struct tui_pane *p)
{
	(void)t;
	struct outp *o = xcalloc(1, sizeof *o);
	o->lines.max = OUT_KEEP;
	p->st = o;
}

static void out_fini(struct tui_pane *p)
{
	struct outp *o = p->st;
	tui_lines_free(&o->lines);
	sbuf_free(&o->cur);
	free(o);
}

const struct tui_pane_ops tui_pane_output = {
	.name = "output", .init = out_init, .draw = out_draw, .action = out_action,
	.fini = out_fini,
};
