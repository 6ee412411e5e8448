/* pty: the program's pseudo-terminal (see pty.h). */
#define _GNU_SOURCE
#include "pty.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "target/session.h"
#include "ui.h"

int tui_pty_open(struct tui *t)
{
	t->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (t->master < 0 || grantpt(t->master) < 0 || unlockpt(t->master) < 0)
		return -1;
	const char *name = ptsname(t->master);
	if (!name)
		return -1;
	/* Kept open so the master never reads EIO between two runs. */
	t->slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	fcntl(t->master, F_SETFL, O_NONBLOCK);
	free(t->q->tty_path);
	t->q->tty_path = xstrdup(name);
	return 0;
}

void tui_pty_close(struct tui *t)
{
	if (t->master >= 0)
		close(t->master);
	if (t->slave >= 0)
		close(t->slave);
	t->master = t->slave = -1;
}

/* A stopped program gets no SIGWINCH from qzdb: the kernel would queue it
 * for the tracee and deliver it at the next resume, changing its state
 * between a checkpoint and a rollback. The size is set while there is no
 * program (the next one starts with it) or once it is seen running
 * (runner.c), when a terminal program expects to be told. */
void tui_pty_resize(struct tui *t, int rows, int cols)
{
	t->pty_rows = rows > 0 ? rows : 1;
	t->pty_cols = cols > 0 ? cols : 1;
	t->pty_pending = true;
	if (!t->q->proc)
		tui_pty_apply(t);
}

void tui_pty_apply(struct tui *t)
{
	struct winsize ws = {.ws_row = (unsigned short)t->pty_rows,
			     .ws_col = (unsigned short)t->pty_cols};
	if (t->pty_pending && t->master >= 0)
		ioctl(t->master, TIOCSWINSZ, &ws);
	t->pty_pending = false;
}

/* At most 64 KiB a turn, so that a program that never stops writing
 * cannot starve the keys. */
bool tui_pty_drain(struct tui *t)
{
	char buf[4096];
	bool any = false;
	ssize_t n;
	for (int i = 0; i < 16 && t->master >= 0 &&
	     (n = read(t->master, buf, sizeof buf)) > 0; i++) {
		tui_feed(t, TP_OUTPUT, buf, (size_t)n, 0);
		any = true;
		t->output_unseen = !t->panes[TP_OUTPUT].win;   /* its tab says so */
	}
	return any;
}

void tui_pty_send(struct tui *t, const char *s, size_t n)
{
	while (n && t->master >= 0) {
		ssize_t w = write(t->master, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;   /* the program does not read: drop the keys */
		s += w;
		n -= (size_t)w;
	}
}
