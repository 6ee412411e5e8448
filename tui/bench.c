/* bench: the cost of the UI's redraw after `next` (make bench): the UI
 * runs at 120x40 on a virtual terminal (curses writing to a temporary
 * file), steps the program with `next` and times, in CPU time, what the
 * UI does after each step: the panes read the engine (frame, locals,
 * backtrace, breakpoints) and the screen is drawn. It also counts the
 * bytes curses sends per redraw against a full repaint, which shows that
 * only changed cells go out. With QZ_TUI_BENCH=follow it times instead
 * following dependence edges (tui follow-edge / tui back, with the panes'
 * refresh and the drawing) in a slice of the program's crash. */
#define _GNU_SOURCE
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "exec.h"
#include "loop.h"
#include "screen.h"
#include "target/session.h"
#include "tui.h"
#include "ui.h"

static double bench_cpu_ms(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

static long bench_bytes(FILE *out)
{
	fflush(out);
	return (long)lseek(fileno(out), 0, SEEK_END);
}

/* One step, not timed: `next`, or a new run when the program ended. */
static void bench_step(struct tui *t)
{
	if (!t->q->proc || cmd_run(t->q, "next") != CMD_OK || !t->q->proc) {
		cmd_run(t->q, "break main");
		cmd_run(t->q, "run");
	}
}

static int bench_run(struct tui *t, FILE *out, int n)
{
	double refresh = 0, draw = 0;
	long bytes = 0;
	for (int i = 0; i < n; i++) {
		bench_step(t);
		double c0 = bench_cpu_ms();
		tui_refresh(t);
		double c1 = bench_cpu_ms();
		long b0 = bench_bytes(out);
		tui_draw(t);
		bytes += bench_bytes(out) - b0;
		draw += bench_cpu_ms() - c1;
		refresh += c1 - c0;
	}
	long f0 = bench_bytes(out);
	clearok(curscr, TRUE);
	tui_draw(t);
	long full = bench_bytes(out) - f0;
	printf("tui-redraw: %d redraws after next at %dx%d: %.3f ms CPU each "
	       "(panes reading the engine %.3f ms, drawing %.3f ms); "
	       "%ld bytes to the terminal each, a full repaint %ld bytes\n",
	       n, t->cols, t->rows, (refresh + draw) / n, refresh / n, draw / n,
	       bytes / n, full);
	return 0;
}

/* Record to the crash, slice, then follow edges 1 three times and go
 * back three times, over and over; each move timed with its redraw. */
static int bench_follow(struct tui *t, int n)
{
	static const char *const setup[] = {"break main", "run", "record on", "continue", "slice"};
	double cpu = 0;
	int fails = 0;
	for (size_t i = 0; i < sizeof setup / sizeof *setup; i++)
		cmd_run(t->q, setup[i]);
	tui_refresh(t);
	tui_layout(t);
	tui_draw(t);
	for (int i = 0; i < n; i++) {
		double c0 = bench_cpu_ms();
		fails += cmd_run(t->q, i % 6 < 3 ? "tui follow-edge 1" : "tui back") != CMD_OK;
		tui_refresh(t);
		tui_draw(t);
		cpu += bench_cpu_ms() - c0;
	}
	printf("tui-follow: %d edge moves at %dx%d: %.3f ms CPU each (%d failed)\n", n, t->cols,
	       t->rows, cpu / n, fails);
	return fails ? 1 : 0;
}

int tui_bench(struct qz *q, int n)
{
	setenv("LINES", "40", 1);
	setenv("COLUMNS", "120", 1);
	if (!getenv("TERM") || !*getenv("TERM"))
		setenv("TERM", "xterm-256color", 1);
	FILE *out = tmpfile(), *in = fopen("/dev/null", "re");
	SCREEN *scr = out && in ? newterm(NULL, out, in) : NULL;
	if (!scr) {
		fprintf(stderr, "error: no virtual terminal for the bench\n");
		return 1;
	}
	struct qz_sink old = q->sink;
	struct tui t;
	start_color();
	use_default_colors();
	tui_setup(&t, q, NULL);
	tui_layout(&t);
	tui_refresh(&t);
	tui_draw(&t);
	const char *mode = getenv("QZ_TUI_BENCH");
	int rc = mode && !strcmp(mode, "follow") ? bench_follow(&t, n) : bench_run(&t, out, n);
	endwin();
	if (q->proc)
		cmd_run(q, "kill");
	tui_teardown(&t);
	q->sink = old;
	delscreen(scr);
	fclose(out);
	fclose(in);
	return rc;
}
