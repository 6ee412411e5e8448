/* runner: the helper thread that keeps the UI alive while a command
 * blocks in the engine (waitpid): it copies the program's output (pty.c)
 * into the output pane and draws it, and passes the keys typed meanwhile
 * to the program, Ctrl-C included, which the pty's line discipline turns
 * into SIGINT for the program alone. The engine itself stays on the main
 * thread (ptrace wants one tracer thread). */
#define _GNU_SOURCE
#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pty.h"
#include "screen.h"
#include "target/session.h"
#include "ui.h"
#include "util/progress.h"

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
	if (!memchr(buf, 3, (size_t)n))
		return;
	/* A command showing progress is qzdb's own long work (a reduction):
	 * its SIGINT handler stops it, keeping what it has; commands without
	 * one run with SIGINT ignored in the UI. */
	char line[8];
	progress_read(line, sizeof line);
	if (*line)
		kill(getpid(), SIGINT);
	if (++r->ctrl_c >= 2 && r->t->q->proc)
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
	char line[8];
	unsigned shown = progress_read(line, sizeof line);
	for (;;) {
		/* Keys go to the program only once it is seen running: a quick
		 * command must not take the keys typed after it. */
		int n = poll(fds, t->running ? 3 : 2, dirty ? RUNNER_FRAME_MS : RUNNER_BUSY_MS);
		if ((n < 0 && errno != EINTR) || (n > 0 && fds[0].revents))
			break;
		long now = runner_ms();
		if (!t->running && now - start >= RUNNER_BUSY_MS) {
			t->running = dirty = true;
			tui_pty_apply(t);   /* a size left while it was stopped */
		}
		if (n > 0 && t->running && (fds[2].revents & POLLIN))
			runner_input(r);
		if (n > 0 && (fds[1].revents & POLLIN)) {
			pthread_mutex_lock(&t->lock);
			dirty |= tui_pty_drain(t);
			pthread_mutex_unlock(&t->lock);
		}
		unsigned gen = progress_read(line, sizeof line);
		dirty |= gen != shown;
		shown = gen;
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
	progress_clear();
	free(r);
}
