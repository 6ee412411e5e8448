/* cmd-stack: backtrace and frame selection. */
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cmds.h"
#include "frame.h"
#include "session.h"

static void cmd_frame_line(struct qz *q, const struct frame *f, struct sbuf *b)
{
	sbuf_printf(b, "#%-2d ", f->level);
	frame_describe(q, f, frame_shows_addr(f), b);
	sbuf_addc(b, '\n');
}

int cmd_backtrace(struct qz *q, const char *a)
{
	int64_t limit = -1;
	bool full = false;
	while (*(a = str_skip_space(a))) {
		size_t n = strcspn(a, " \t");
		char *w = xstrndup(a, n);
		if (!strcmp(w, "full") || !strcmp(w, "-full"))
			full = true;
		else if (!str_to_i64(w, &limit)) {
			free(w);
			return qz_error(q, "No symbol \"%.*s\" in current context.", (int)n, a);
		}
		free(w);
		a += n;
	}
	(void)full;
	struct sbuf b = {0};
	int i;
	for (i = 0; limit < 0 || i < limit; i++) {
		const struct frame *f = frame_get(q, i);
		if (!f)
			break;
		cmd_frame_line(q, f, &b);
	}
	if (limit >= 0 && frame_get(q, i))
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
	struct sbuf b = {0};
	sbuf_printf(&b, "#%-2d ", n);
	frame_describe(q, f, frame_shows_addr(f), &b);
	sbuf_addc(&b, '\n');
	qz_puts(q, b.s);
	sbuf_free(&b);
	/* The source line, without repeating the frame. */
	if (f->file) {
		struct frame copy = *f;
		copy.line_start = true;
		frame_print_stop(q, &copy, false);
	}
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
