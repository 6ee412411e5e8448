/* cmd-stack: backtrace and frame selection. */
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cmds.h"
#include "target/frame.h"
#include "target/infcall.h"
#include "target/session.h"

static void cmd_frame_line(struct qz *q, const struct frame *f, struct sbuf *b)
{
	sbuf_printf(b, "#%-2d ", f->level);
	frame_describe(q, f, frame_shows_addr(f), b);
	sbuf_addc(b, '\n');
}

int cmd_backtrace(struct qz *q, const char *a)
{
	int64_t limit = -1;
	bool full = false, outer = false;
	while (*(a = str_skip_space(a))) {
		size_t n = strcspn(a, " \t");
		char *w = xstrndup(a, n);
		if (!strcmp(w, "full") || !strcmp(w, "-full"))
			full = true;
		else if (!str_to_i64(w, &limit) || limit < -INT32_MAX || limit > INT32_MAX) {
			free(w);
			return qz_error(q, "No symbol \"%.*s\" in current context.", (int)n, a);
		} else {
			outer = limit < 0;
		}
		free(w);
		a += n;
	}
	struct sbuf b = {0};
	int i = 0;
	if (outer) {   /* bt -N: the outermost N frames (gdb) */
		int total = 0;
		while (frame_get(q, total))
			total++;
		i = total > -limit ? total + (int)limit : 0;
		limit = -1;
	}
	for (; limit < 0 || i < limit; i++) {
		const struct frame *f = frame_get(q, i);
		if (!f)
			break;
		cmd_frame_line(q, f, &b);
		if (full && f->func && !cmd_frame_vars(q, f, false, 8, &b))
			sbuf_add(&b, "No locals.\n");
	}
	if (limit >= 0 && frame_get(q, i) && q->from_tty)
		sbuf_add(&b, "(More stack frames follow...)\n");
	if (b.s)
		qz_puts(q, b.s);
	sbuf_free(&b);
	return 0;
}

static int cmd_select(struct qz *q, int n)
{
	const struct frame *f = frame_get(q, n);
	if (!f)
		return qz_error(q, "No frame at level %d.", n);
	q->sel_frame = n;
	frame_print_level(q, n, f);
	return 0;
}

/* info frame's line of the neighbours: "tail call frame", "inlined into
 * frame N" or "called by frame at X", then ", caller of frame at Y", as gdb joins them. */
static void cmd_frame_links(struct qz *q, const struct frame *f, struct sbuf *b)
{
	const struct frame *up = frame_get(q, f->level + 1);
	const struct frame *down = f->level > 0 ? frame_get(q, f->level - 1) : NULL;
	if (up && f->tailcall)
		sbuf_add(b, " tail call frame");
	else if (up && f->inl)
		sbuf_printf(b, " inlined into frame %d", up->level);
	else if (up)
		sbuf_printf(b, " called by frame at 0x%llx", (unsigned long long)up->cfa);
	if (up && down)
		sbuf_addc(b, ',');
	if (down)
		sbuf_printf(b, " caller of frame at 0x%llx", (unsigned long long)down->cfa);
	if (up || down)
		sbuf_addc(b, '\n');
}

/* " Arglist at X, args: a=1" and " Locals at X," from gdb's frame base;
 * "unknown address" for an inlined call. */
static void cmd_frame_base(struct qz *q, const struct frame *f, struct sbuf *b)
{
	uint64_t base;
	if (frame_base_address(q, f, &base) < 0) {
		sbuf_add(b, " Arglist at unknown address.\n Locals at unknown address,");
		return;
	}
	sbuf_printf(b, " Arglist at 0x%llx, args: ", (unsigned long long)base);
	if (f->func) {
		struct sbuf d = {0};
		frame_describe(q, f, false, &d);   /* "name (args) at ..." */
		const char *open = strchr(d.s, '('), *close = strrchr(d.s, ')');
		if (open && close && close > open)
			sbuf_addn(b, open + 1, (size_t)(close - open - 1));
		sbuf_free(&d);
	}
	sbuf_printf(b, "\n Locals at 0x%llx,", (unsigned long long)base);
}

/* The registers f saved on the stack, in gdb's register order. */
static void cmd_frame_saved(struct qz *q, const struct frame *f, struct sbuf *b)
{
	static const struct { int dw; const char *name; } order[] = {
		{0, "rax"}, {3, "rbx"}, {2, "rcx"}, {1, "rdx"}, {4, "rsi"}, {5, "rdi"},
		{6, "rbp"}, {8, "r8"}, {9, "r9"}, {10, "r10"}, {11, "r11"}, {12, "r12"},
		{13, "r13"}, {14, "r14"}, {15, "r15"}, {DI_REG_RIP, "rip"},
	};
	struct di_regs slots;
	int n = 0;
	if (frame_saved_regs(q, f, &slots) < 0)
		return;
	for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
		if (!slots.valid[order[i].dw])
			continue;
		sbuf_add(b, n++ ? "," : " Saved registers:\n ");
		sbuf_printf(b, " %s at 0x%llx", order[i].name,
			    (unsigned long long)slots.r[order[i].dw]);
	}
	if (n)
		sbuf_addc(b, '\n');
}

/* gdb's info frame. */
int cmd_info_frame(struct qz *q, const char *a)
{
	(void)a;
	const struct frame *f = frame_get(q, q->sel_frame);
	uint64_t ra = 0;
	if (!f)
		return qz_error(q, "No stack.");
	bool has_ra = frame_caller_pc(q, f, &ra) == 0;
	struct sbuf b = {0};
	sbuf_printf(&b, "Stack level %d, frame at 0x%llx:\n rip = 0x%llx", f->level,
		    (unsigned long long)f->cfa, (unsigned long long)f->pc);
	const char *name = f->inl ? f->inl->name : f->func ? f->func->name : f->sym;
	if (name)
		sbuf_printf(&b, " in %s", name);
	if (f->file)
		sbuf_printf(&b, " (%s:%d)", frame_file_name(q, f->file), f->line);
	if (has_ra)
		sbuf_printf(&b, "; saved rip = 0x%llx", (unsigned long long)ra);
	sbuf_addc(&b, '\n');
	cmd_frame_links(q, f, &b);
	if (f->file)
		sbuf_add(&b, " source language c.\n");
	cmd_frame_base(q, f, &b);
	/* An inlined call's frame has the registers of the frame below it:
	 * the processor's (sp "in rsp") at the innermost machine frame, else
	 * those its callee's frame saved; a tail-call frame passes its own
	 * on (sp "in rsp" too). */
	const struct frame *regs_of = f->inl && !f->tailcall && f->set_first > 0 ?
		frame_get(q, f->set_first - 1) : f;
	if (f->tailcall)
		sbuf_add(&b, " Previous frame's sp in rsp\n");
	else if (f->inl && regs_of == f)
		sbuf_add(&b, " Previous frame's sp in rsp\n");
	else if (f->dummy)
		sbuf_printf(&b, " Previous frame's sp is 0x%llx\n",
			    (unsigned long long)f->dummy->regs.rsp);
	else if (regs_of)
		sbuf_printf(&b, " Previous frame's sp is 0x%llx\n",
			    (unsigned long long)regs_of->cfa);
	if (regs_of && !(f->inl && regs_of == f))
		cmd_frame_saved(q, regs_of, &b);
	qz_puts(q, b.s);
	sbuf_free(&b);
	return 0;
}

int cmd_frame(struct qz *q, const char *a)
{
	int64_t n = q->sel_frame;
	if (str_starts(a, "level "))
		a = str_skip_space(a + 6);
	if (*a && !str_to_i64(a, &n))
		return qz_error(q, "Invalid frame level \"%s\".", a);
	return cmd_select(q, (int)n);
}

int cmd_up(struct qz *q, const char *a)
{
	int64_t n = 1;
	if (*a && !str_to_i64(a, &n))
		return qz_error(q, "Invalid number \"%s\".", a);
	int to = q->sel_frame + (int)n;
	if (!frame_get(q, to)) {
		if (!frame_get(q, q->sel_frame + 1))
			return qz_error(q, "Initial frame selected; you cannot go up.");
		while (frame_get(q, to) == NULL)
			to--;
	}
	return cmd_select(q, to);
}

int cmd_down(struct qz *q, const char *a)
{
	int64_t n = 1;
	if (*a && !str_to_i64(a, &n))
		return qz_error(q, "Invalid number \"%s\".", a);
	if (q->sel_frame == 0)
		return qz_error(q, "Bottom (innermost) frame selected; you cannot go down.");
	int to = q->sel_frame - (int)n;
	return cmd_select(q, to < 0 ? 0 : to);
}
