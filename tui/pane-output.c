/* pane-output: what the program writes to its terminal (the UI's pty).
 * A small terminal model: lines, carriage return, backspace; escape
 * sequences are dropped (colours and cursor moves would garble the
 * pane). Focused, the keys typed go to the program. */
#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "theme.h"
#include "ui.h"

#define OUT_KEEP 2000

struct outp {
	struct tui_lines lines;
	struct sbuf cur;       /* the line being written */
	int esc;               /* 0, 1 after ESC, 2 in CSI, 3 in OSC */
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
	int rows = tui_pane_rows(p);
	tui_draw_title(t, p, t->focus == TP_OUTPUT ?
		       " program output - keys go to the program (Esc: back)" :
		       " program output (o in the source pane: type to the program)");
	int total = (int)o->lines.n + 1, first = total - rows;
	for (int i = 0; i < rows; i++) {
		int ln = first + i;
		if (ln < 0)
			continue;
		const char *s = ln < (int)o->lines.n ? o->lines.v[ln] : o->cur.s ? o->cur.s : "";
		int used = tui_draw_text(w, i + 1, 0, s, p->w, tui_theme_attr(TUI_EL_OUTPUT), false);
		if (ln == (int)o->lines.n && t->focus == TP_OUTPUT) {
			t->cur_y = p->y + i + 1;
			t->cur_x = p->x + (used < p->w ? used : p->w - 1);
		}
	}
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
	tui_lines_clear(&o->lines);
	free(o->lines.v);
	free(o->lines.elem);
	sbuf_free(&o->cur);
	free(o);
}

const struct tui_pane_ops tui_pane_output = {
	.name = "output", .init = out_init, .draw = out_draw, .fini = out_fini,
};
