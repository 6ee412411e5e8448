/* runner: the program's pseudo-terminal and the helper thread that keeps
 * the UI alive while a command blocks in the engine (waitpid): it copies
 * the program's output into the output pane and draws it, and passes the
 * keys typed meanwhile to the program, Ctrl-C included, which the pty's
 * line discipline turns into SIGINT for the program alone. The engine
 * itself stays on the main thread (ptrace wants one tracer thread). */
#define _GNU_SOURCE
#include "runner.h"

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "target/session.h"
#include "ui.h"

/* How long a command may run before the status line says "running"
 * (and keys go to the program), and the least time between two redraws
 * of a program's output (a flood of it must not cost a redraw a line). */
#define RUNNER_BUSY_MS 150
#define RUNNER_FRAME_MS 30

static long runner_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

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

void tui_pty_resize(struct tui *t, int rows, int cols)
{
	struct winsize ws = {.ws_row = (unsigned short)(rows > 0 ? rows : 1),
			     .ws_col = (unsigned short)(cols > 0 ? cols : 1)};
	if (t->master >= 0)
		ioctl(t->master, TIOCSWINSZ, &ws);
}

/* Drain the program's output (at most 64 KiB a turn, so that a program
 * that never stops writing cannot starve the keys); true if any came. */
bool tui_pty_drain(struct tui *t)
{
	char buf[4096];
	bool any = false;
	ssize_t n;
	for (int i = 0; i < 16 && t->master >= 0 &&
	     (n = read(t->master, buf, sizeof buf)) > 0; i++) {
		tui_output_feed(t, buf, (size_t)n);
		any = true;
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

struct runner {
	struct tui *t;
	int stop[2];            /* the main thread writes here when done */
	pthread_t th;
	bool started;
	int ctrl_c;             /* C-c typed during this command */
};

static void runner_redraw(struct tui *t)
{
	pthread_mutex_lock(&t->lock);
	tui_draw(t);
	pthread_mutex_unlock(&t->lock);
}

/* Keys typed while the program runs go to it. A second C-c stops it
 * with SIGSTOP, for a program that ignores SIGINT or reads its terminal
 * raw (q->proc does not change while the command runs the program). */
static void runner_input(struct runner *r)
{
	char buf[256];
	ssize_t n = read(0, buf, sizeof buf);
	if (n <= 0)
		return;
	tui_pty_send(r->t, buf, (size_t)n);
	if (memchr(buf, 3, (size_t)n) && ++r->ctrl_c >= 2 && r->t->q->proc)
		proc_interrupt(r->t->q->proc);
}

static void *runner_loop(void *arg)
{
	struct runner *r = arg;
	struct tui *t = r->t;
	struct pollfd fds[3] = {
		{r->stop[0], POLLIN, 0}, {t->master, POLLIN, 0}, {0, POLLIN, 0},
	};
	long start = runner_ms(), drawn = 0;
	bool dirty = false;
	for (;;) {
		/* Keys go to the program only once it is seen running: a quick
		 * command must not take the keys typed after it. */
		int n = poll(fds, t->running ? 3 : 2, dirty ? RUNNER_FRAME_MS : RUNNER_BUSY_MS);
		if ((n < 0 && errno != EINTR) || (n > 0 && fds[0].revents))
			break;
		long now = runner_ms();
		if (!t->running && now - start >= RUNNER_BUSY_MS)
			t->running = dirty = true;
		if (n > 0 && t->running && (fds[2].revents & POLLIN))
			runner_input(r);
		if (n > 0 && (fds[1].revents & POLLIN)) {
			pthread_mutex_lock(&t->lock);
			dirty |= tui_pty_drain(t);
			pthread_mutex_unlock(&t->lock);
		}
		if (dirty && now - drawn >= RUNNER_FRAME_MS) {
			runner_redraw(t);
			drawn = now;
			dirty = false;
		}
	}
	return NULL;
}

struct runner *tui_runner_start(struct tui *t)
{
	struct runner *r = xcalloc(1, sizeof *r);
	r->t = t;
	if (pipe2(r->stop, O_CLOEXEC) < 0)
		return r;
	sigset_t all, old;
	sigfillset(&all);   /* signals (SIGWINCH) stay with the main thread */
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r->started = pthread_create(&r->th, NULL, runner_loop, r) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return r;
}

void tui_runner_stop(struct runner *r)
{
	if (r->started) {
		if (write(r->stop[1], "x", 1) < 0)
			pthread_cancel(r->th);
		pthread_join(r->th, NULL);
	}
	if (r->stop[0] > 0) {
		close(r->stop[0]);
		close(r->stop[1]);
	}
	r->t->running = false;
	free(r);
}
