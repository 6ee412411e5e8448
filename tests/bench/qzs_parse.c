/* qzs_parse: time of qzs_parse_text over a session of LINES output lines
 * (default 1,000,000) and of a session with one 60 MiB line; best of RUNS.
 * Prints the bench line of tests/bench/qzs.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cmd/qzs.h"

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Parse text runs times; the best time in ms, or -1 if it is refused. */
static double best_parse(const char *text, size_t len, int runs)
{
	double best = -1;
	char err[256];
	for (int r = 0; r < runs; r++) {
		double t0 = now_ms();
		struct qzs_file *f = qzs_parse_text(text, len, "bench.qzs", err, sizeof err);
		double t = now_ms() - t0;
		if (!f) {
			fprintf(stderr, "qzs-parse: %s\n", err);
			return -1;
		}
		qzs_file_free(f);
		if (best < 0 || t < best)
			best = t;
	}
	return best;
}

int main(int argc, char **argv)
{
	long lines = argc > 1 ? atol(argv[1]) : 1000000;
	int runs = argc > 2 ? atoi(argv[2]) : 3;
	struct sbuf b = {0};
	sbuf_add(&b, "# qzdb session\n#@ version 1\n#@ program prog\n#@ arg a\n");
	for (long i = 0; i < lines; i++) {
		if (i % 10 == 0)
			sbuf_printf(&b, "(qzdb) print table[%ld]\n", i);
		sbuf_printf(&b, "$%ld = {key = 0x4006f4 \"alpha\", value = %ld}\n", i, i);
	}
	sbuf_add(&b, "#@ end\n");
	double ms = best_parse(b.s, b.len, runs);
	sbuf_free(&b);
	sbuf_add(&b, "# qzdb session\n#@ version 1\n#@ program prog\n(qzdb) echo x\n");
	for (long i = 0; i < 60L << 20; i++)
		sbuf_addc(&b, 'x');
	sbuf_add(&b, "\n#@ end\n");
	double big = best_parse(b.s, b.len, 1);
	sbuf_free(&b);
	if (ms <= 0 || big < 0)
		return 1;
	printf("qzs-parse: qzdb %.0f lines/s, gdb n/a, speedup n/a "
	       "(%ld lines in %.1f ms, must be under 1000; one 60 MiB line in %.1f ms)\n",
	       lines / ms * 1000, lines, ms, big);
	return 0;
}
