/* status: the status line: the program's state (not started, running,
 * stopped at FILE:LINE, exited N, crashed SIG), the focused pane, the
 * theme, and slots for the recording and checkpoint indicators of later
 * issues. The state is read from the engine after each command
 * (tui_status_update) and only drawn from the copy. */
#include "status.h"

#include <curses.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "proc/signals.h"
#include "slice/slice.h"
#include "target/frame.h"
#include "target/session.h"
#include "theme.h"
#include "ui.h"

static void status_where(struct qz *q, char *buf, size_t len)
{
	const struct frame *f = frame_get(q, 0);
	const char *file = f && f->file ? strrchr(f->file, '/') : NULL;
	if (f && f->file)
		snprintf(buf, len, "%s:%d", file ? file + 1 : f->file, f->line);
	else if (f)
		snprintf(buf, len, "0x%llx", (unsigned long long)f->pc);
	else
		snprintf(buf, len, "?");
}

/* The recorder's progress (rec.h's on_progress, called from the engine
 * while a command runs): into the status line at once, under the screen's
 * lock as the runner's redraws are; never on stderr, under curses. */
static void status_progress(void *ctx, const struct rec_progress *p)
{
	struct tui *t = ctx;
	pthread_mutex_lock(&t->lock);
	if (p->total)
		snprintf(t->progress, sizeof t->progress, "%s %llu%%, %.1fM insns/s", p->what,
			 (unsigned long long)(100 * p->insns / p->total), p->rate / 1e6);
	else
		snprintf(t->progress, sizeof t->progress, "%s %.1fM insns, %.1fM/s", p->what,
			 (double)p->insns / 1e6, p->rate / 1e6);
	if (t->status_win) {
		werase(t->status_win);
		tui_status_draw(t, t->status_win);
		wnoutrefresh(t->status_win);
		doupdate();
	}
	pthread_mutex_unlock(&t->lock);
}

void tui_status_progress_install(struct tui *t)
{
	struct rec *r = slice_rec(t->q);
	r->on_progress = status_progress;
	r->progress_ctx = t;
}

void tui_status_update(struct tui *t)
{
	struct qz *q = t->q;
	char where[128];
	t->progress[0] = 0;   /* the command that made it is over */
	if (q->proc) {
		status_where(q, where, sizeof where);
		siginfo_t si;
		if (q->stop == QZ_STOP_SIGNAL && proc_siginfo(q->proc, &si) == 0)
			snprintf(t->state, sizeof t->state, "stopped by %s at %s",
				 sig_name(si.si_signo), where);
		else
			snprintf(t->state, sizeof t->state, "stopped at %s", where);
	} else if (q->stop == QZ_STOP_EXITED) {
		snprintf(t->state, sizeof t->state, "exited %d", q->last_exit_code);
	} else if (q->stop == QZ_STOP_KILLED) {
		snprintf(t->state, sizeof t->state, "crashed %s", sig_name(q->term_sig));
	} else {
		snprintf(t->state, sizeof t->state, "not started");
	}
	tui_slicev_status(&t->sv, t->indicators, sizeof t->indicators);
}

void tui_status_draw(struct tui *t, WINDOW *w)
{
	char left[512], right[160];
	int cols = getmaxx(w);
	snprintf(left, sizeof left, " %s%s%s%s%s", t->running ? "running (C-c interrupts)" : t->state,
		 *t->progress ? " | " : "", t->progress, *t->caption ? " | " : "", t->caption);
	snprintf(right, sizeof right, "%s%s%s | theme %s | F1 help ", t->indicators,
		 *t->indicators ? " | " : "", t->panes[t->focus].def->name, tui_theme_name());
	if ((int)strlen(right) >= cols - (int)strlen(left) - 1)   /* narrow: the slots first */
		snprintf(right, sizeof right, "%s%s%s ", t->indicators, *t->indicators ? " | " : "",
			 t->panes[t->focus].def->name);
	if ((int)strlen(right) >= cols - (int)strlen(left) - 1 && *t->indicators)
		snprintf(right, sizeof right, "%s ", t->indicators);   /* narrower: slots only */
	unsigned a = tui_theme_attr(TUI_EL_STATUS);
	tui_draw_text(w, 0, 0, left, cols, a, true);
	int rl = (int)strlen(right);
	if (rl < cols - (int)strlen(left) - 1)
		tui_draw_text(w, 0, cols - rl, right, rl, a, false);
}
