/* replay: a session file replayed live in the UI (see replay.h). The
 * engine's qzs_replay_run drives; the UI only draws between commands and,
 * with --step, reads the key that lets the next one run. */
#define _XOPEN_SOURCE_EXTENDED 1
#include "replay.h"

#include <curses.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include "cmd/qzs.h"
#include "exec.h"
#include "pty.h"
#include "scrollback.h"
#include "screen.h"
#include "target/session.h"
#include "ui.h"

struct rp {
	struct tui *t;
	tui_walk_fn *walk;        /* the UI while it waits, NULL: no --step */
	size_t ncmds;             /* commands run so far */
};

/* The caption: the `# comment` the replay printed just before the
 * latest command line, if any (else the one shown stays). */
static void rp_caption(struct tui *t)
{
	const struct tui_lines *l = tui_sb_lines(&t->panes[TP_CMD]);
	size_t i = l->n;
	while (i-- > 0 && strncmp(l->v[i], "(qzdb) ", 7))
		;
	if (i + 1 == 0 || i == 0 || strncmp(l->v[i - 1], "# ", 2))
		return;
	while (i > 1 && !strncmp(l->v[i - 2], "# ", 2))   /* its first line */
		i--;
	snprintf(t->caption, sizeof t->caption, "%s", l->v[i - 1] + 2);
}

/* Draw the panes as they are now. */
static void rp_show(struct tui *t)
{
	tui_pty_drain(t);
	tui_refresh(t);
	rp_caption(t);
	if (t->want & TUI_LAYOUT)
		tui_layout(t);
	t->want = 0;
	tui_draw(t);
}

static void rp_after(void *arg)
{
	struct rp *r = arg;
	r->ncmds++;
	rp_show(r->t);
}

static int rp_wait(void *arg)
{
	struct rp *r = arg;
	char caption[sizeof r->t->caption];
	rp_show(r->t);
	snprintf(caption, sizeof caption, "%s", r->t->caption);   /* the hint first: */
	snprintf(r->t->caption, sizeof r->t->caption,             /* a caption is cut */
		 "[Space: run it, Backspace: back, C-x: stop] %.150s", caption);
	int k = r->walk(r->t, NULL);
	snprintf(r->t->caption, sizeof r->t->caption, "%s", caption);
	return k;
}

/* A task: the student works in the UI until its expectations hold. */
static int rp_task(void *arg, const struct qzs_task *task)
{
	struct rp *r = arg;
	rp_show(r->t);
	snprintf(r->t->caption, sizeof r->t->caption, "[C-x: stop] Task: %s", task->text);
	int k = r->walk(r->t, task);
	r->t->caption[0] = 0;
	rp_show(r->t);
	return k;
}

int tui_replay(struct tui *t, const struct qzs_file *f, tui_walk_fn *walk)
{
	struct rp r = {t, walk, 0};
	struct qzs_replay rp = {.wait_key = walk ? rp_wait : NULL, .arg = &r, .after = rp_after,
				.task = walk ? rp_task : NULL};
	tui_layout(t);
	rp_show(t);
	int rc = qzs_replay_run(t->q, f, &rp);
	tui_refresh(t);
	char last[sizeof t->caption], head[64];
	snprintf(last, sizeof last, "%s", t->caption);   /* the last caption stays */
	if (*last)   /* the caption matters more than the count */
		snprintf(head, sizeof head, "replay %s", rc ? "stopped" : "done");
	else
		snprintf(head, sizeof head, "replay %s (%zu commands)", rc ? "stopped" : "done",
			 r.ncmds);
	snprintf(t->caption, sizeof t->caption, "%s%s%.*s", head, *last ? ": " : "",
		 (int)(sizeof t->caption - sizeof head - 3), last);
	return rc;
}
