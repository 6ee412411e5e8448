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
#include "keymap.h"
#include "proc/signals.h"
#include "target/frame.h"
#include "target/session.h"
#include "theme.h"
#include "ui.h"
#include "util/progress.h"

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

/* While recording at the present, the keys that go back (as bound now),
 * to follow REC when the line has room; in the past the replay position
 * takes it. */
static void status_reverse_keys(struct tui *t)
{
	char kn[16], kc[16];
	const char *n = tui_keymap_key_for("generic", "reverse-next", kn, sizeof kn);
	const char *c = tui_keymap_key_for("generic", "reverse-continue", kc, sizeof kc);
	t->rev_keys[0] = 0;
	if (strncmp(t->indicators, "REC", 3) != 0 || (!n && !c) || t->q->in_past)
		return;
	snprintf(t->rev_keys, sizeof t->rev_keys, " (back: %s%s%s)", n ? n : "",
		 n && c ? " " : "", c ? c : "");
}

/* The slots with the reverse keys after "REC N", in out. */
static void status_slots_keys(const struct tui *t, char *out, size_t len)
{
	int rec = (int)strcspn(t->indicators, "|");
	const char *rest = t->indicators + rec;
	while (rec && t->indicators[rec - 1] == ' ')
		rec--;
	snprintf(out, len, "%.*s%s%s%s", rec, t->indicators, t->rev_keys, *rest ? " " : "", rest);
}

void tui_status_update(struct tui *t)
{
	struct qz *q = t->q;
	char where[128];
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
	size_t n = strlen(t->state);
	if (q->proc && q->in_past)   /* positioned in the recording's past */
		snprintf(t->state + n, sizeof t->state - n, " | replay: instruction %llu of %llu",
			 (unsigned long long)q->replay_insn, (unsigned long long)q->replay_insns);
	tui_slicev_status(&t->sv, t->indicators, sizeof t->indicators);
	status_reverse_keys(t);
}

void tui_status_draw(struct tui *t, WINDOW *w)
{
	char left[512], right[512], slots[256], progress[160], running[200];
	int cols = getmaxx(w);
	progress_read(progress, sizeof progress);
	if (*progress)   /* qzdb's own long work, not the program's */
		snprintf(running, sizeof running, "%s (C-c stops)", progress);
	else
		snprintf(running, sizeof running, "running (C-c interrupts)");
	snprintf(left, sizeof left, " %s%s%s", t->running ? running : t->state,
		 *t->caption ? " | " : "", t->caption);
	status_slots_keys(t, slots, sizeof slots);
	snprintf(right, sizeof right, "%s%s%s | theme %s | F1 help ", slots,
		 *slots ? " | " : "", t->panes[t->focus].def->name, tui_theme_name());
	if ((int)strlen(right) >= cols - (int)strlen(left) - 1)   /* without the keys */
		snprintf(right, sizeof right, "%s%s%s | theme %s | F1 help ", t->indicators,
			 *t->indicators ? " | " : "", t->panes[t->focus].def->name,
			 tui_theme_name());
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
