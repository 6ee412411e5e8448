/* cmd-reduce: the reduce command and the module. Parses what to shrink
 * and the oracle, checks the original input (fails, the same way each
 * time), runs plain or guided search, writes NAME.min. */
#include "reduce.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "dinfo/unwind.h"
#include "proc/signals.h"
#include "target/loc.h"
#include "target/mod.h"
#include "target/objects.h"
#include "target/session.h"

/* Runs of the original input that must fail alike before reducing. */
#define RED_ORIG_RUNS 5

/* Words of args: white space separates, "..." or '...' keep it. */
static char **red_words(const char *a, size_t *n)
{
	char **w = NULL;
	size_t cap = 0;
	*n = 0;
	for (const char *p = a;;) {
		p = str_skip_space(p);
		if (!*p)
			break;
		struct sbuf b = {0};
		char quote = 0;
		for (; *p && (quote || (*p != ' ' && *p != '\t')); p++) {
			if (!quote && (*p == '"' || *p == '\'')) {
				quote = *p;
			} else if (quote && *p == quote) {
				quote = 0;
			} else if (quote == '"' && *p == '\\' && (p[1] == '"' || p[1] == '\\')) {
				sbuf_addc(&b, *++p);
			} else {
				sbuf_addc(&b, *p);
			}
		}
		XGROW(w, cap, *n + 1);
		w[(*n)++] = sbuf_take(&b);
	}
	return w;
}

/* Inputs larger than this are not reduced (ddmin at this size is hopeless
 * already; a device like /dev/zero would never end). */
#define RED_MAX_INPUT ((size_t)16 << 20)
/* A replayed session's runs end after this many seconds at most. */
#define RED_REPLAY_TIMEOUT 10

static int red_read_file(struct qz *q, const char *path, char **data, size_t *len)
{
	/* no blocking on a FIFO's open: look at what it is first */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return qz_error(q, "reduce: cannot read %s: %s.", path, strerror(e));
	}
	if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
		close(fd);
		return qz_error(q, "reduce: %s is not a regular file.", path);
	}
	if ((size_t)st.st_size > RED_MAX_INPUT) {
		close(fd);
		return qz_error(q, "reduce: %s is too large (%lld bytes; at most %zu).", path,
				(long long)st.st_size, RED_MAX_INPUT);
	}
	fcntl(fd, F_SETFL, 0);
	FILE *f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return qz_error(q, "reduce: cannot read %s: %s.", path, strerror(errno));
	}
	struct sbuf b = {0};
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		sbuf_addn(&b, buf, n);
	bool bad = ferror(f);
	int e = errno;
	fclose(f);
	if (bad) {
		sbuf_free(&b);
		return qz_error(q, "reduce: cannot read %s: %s.", path, strerror(e));
	}
	*len = b.len;
	*data = b.s ? sbuf_take(&b) : xstrdup("");
	return 0;
}

/* A number from the user within [lo, hi]: 0, or -1 with the error set. */
static int red_num(struct qz *q, const char *s, const char *what, int64_t lo, int64_t hi,
		   int64_t *out)
{
	char buf[128];
	int r = str_num_all(s, lo, hi, out);
	if (r < 0)
		return qz_error(q, "reduce: %s", str_num_error(r, what, s, lo, hi, buf, sizeof buf));
	return 0;
}

static int red_argn(struct qz *q, const char *s, int *n)
{
	int64_t v;
	if (!q->nargs)
		return qz_error(q, "reduce: the program has no arguments: give them after its name.");
	if (red_num(q, s, "the argument number", 1, (int64_t)q->nargs, &v) < 0)
		return -1;
	*n = (int)v;
	return 0;
}

/* What to shrink: file ARGN, stdin FILE, arg N. */
static int red_what(struct qz *q, struct red *r, char **w, size_t n)
{
	if (n < 2)
		return qz_error(q, "Usage: reduce file ARGN | stdin FILE | arg N [OPTIONS] (see help reduce)");
	int argn = 0;
	if (strcmp(w[0], "file") == 0) {
		if (red_argn(q, w[1], &argn) < 0)
			return -1;
		const char *path = q->args[argn - 1];
		r->where = (struct rr_input){ .where = RR_FILE, .argn = argn,
					      .name = str_basename(path) };
		r->min_path = xasprintf("%s.min", path);
		r->what = path;
		return red_read_file(q, path, &r->data, &r->len);
	}
	if (strcmp(w[0], "stdin") == 0) {
		r->where = (struct rr_input){ .where = RR_STDIN };
		r->min_path = xasprintf("%s.min", w[1]);
		r->stdin_file = xstrdup(w[1]);
		r->what = "standard input";
		return red_read_file(q, w[1], &r->data, &r->len);
	}
	if (strcmp(w[0], "arg") == 0) {
		if (red_argn(q, w[1], &argn) < 0)
			return -1;
		r->where = (struct rr_input){ .where = RR_ARG, .argn = argn };
		r->data = xstrdup(q->args[argn - 1]);
		r->len = strlen(r->data);
		r->min_path = xasprintf("%s.arg%d.min", str_basename(q->prog), argn);
		r->what = "the argument";
		return 0;
	}
	return qz_error(q, "reduce: \"%s\" is not file, stdin or arg.", w[0]);
}

static int red_at(struct qz *q, struct red *r, const char *spec)
{
	struct loc_addr *locs;
	size_t n;
	if (loc_resolve(q, spec, &locs, &n) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (locs[i].mod == &q->exe) {
			XGROW(r->prog.at, r->prog.nat, r->prog.nat + 1);
			r->prog.at[r->prog.nat - 1] = locs[i].link_addr;
		}
	free(locs);
	if (!r->prog.nat)
		return qz_error(q, "reduce: %s is not in the program's own code.", spec);
	r->oracle.at = true;
	return 0;
}

static int red_option(struct qz *q, struct red *r, const char *o, const char *v)
{
	int64_t x;
	static const char *const known[] = { "--by", "--timeout", "--jobs", "--signal", "--exit",
					     "--at", "--output" };
	if (strcmp(o, "--plain") == 0)
		return r->plain = true, 0;
	if (strcmp(o, "--no-sandbox") == 0)
		return r->unconfined = true, 0;
	bool ok = false;
	for (size_t i = 0; i < ARRAY_LEN(known); i++)
		ok |= strcmp(o, known[i]) == 0;
	if (!ok)
		return qz_error(q, "reduce: unknown option \"%s\" (see help reduce).", o);
	if (!v)
		return qz_error(q, "reduce: %s needs a value.", o);
	if (strcmp(o, "--by") == 0) {
		if (split_parse(v, &r->by) < 0)
			return qz_error(q, "reduce: --by takes bytes, lines or tokens, not \"%s\".", v);
	} else if (strcmp(o, "--timeout") == 0) {
		if (red_num(q, v, "the timeout", 1, 3600, &x) < 0)
			return -1;
		r->prog.timeout = (double)x;
	} else if (strcmp(o, "--jobs") == 0) {
		if (red_num(q, v, "the number of jobs", 1, 256, &x) < 0)
			return -1;
		r->jobs = (int)x;
	} else if (strcmp(o, "--signal") == 0) {
		if ((r->oracle.sig = sig_parse(v)) <= 0)
			return qz_error(q, "reduce: unknown signal \"%s\".", v);
	} else if (strcmp(o, "--exit") == 0) {
		if (red_num(q, v, "the exit status", 0, 255, &x) < 0)
			return -1;
		r->oracle.has_exit = true;
		r->oracle.exit = (int)x;
	} else if (strcmp(o, "--at") == 0) {
		return red_at(q, r, v) < 0 ? -1 : 1;
	} else {   /* --output */
		if (regcomp(&r->oracle.re, v, REG_EXTENDED | REG_NOSUB | REG_NEWLINE) != 0)
			return qz_error(q, "reduce: bad regular expression \"%s\".", v);
		r->oracle.has_re = true;
		r->prog.want_output = true;
	}
	return 1;   /* took the value */
}

static int red_parse(struct qz *q, struct red *r, const char *args)
{
	size_t n;
	char **w = red_words(args ? args : "", &n);
	int rc = red_what(q, r, w, n);
	for (size_t i = 2; i < n && rc == 0; i++) {
		int t = red_option(q, r, w[i], i + 1 < n ? w[i + 1] : NULL);
		if (t < 0)
			rc = -1;
		else
			i += (size_t)t;
	}
	for (size_t i = 0; i < n; i++)
		free(w[i]);
	free(w);
	r->oracle.same = !r->oracle.sig && !r->oracle.has_exit && !r->oracle.at && !r->oracle.has_re;
	return rc;
}

static void red_prog(struct qz *q, struct red *r)
{
	struct rr_prog *p = &r->prog;
	p->path = q->prog;
	p->exe_real = q->prog;
	p->argc = (int)q->nargs + 1;
	p->argv = xcalloc((size_t)p->argc + 1, sizeof *p->argv);
	p->argv[0] = q->prog;
	for (size_t i = 0; i < q->nargs; i++)
		p->argv[i + 1] = q->args[i];
	p->lines = q->exe.lines;
	p->unw = q->exe.unw;
	if (!p->timeout)
		p->timeout = 10;
	if (!r->jobs) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);
		r->jobs = c > 0 ? (int)c : 1;
	}
}

/* Run the original RED_ORIG_RUNS times: it must fail, the same way each
 * time (for a stated condition: meet it each time). The first run's
 * failure is the one the default oracle keeps. */
static int red_check_original(struct qz *q, struct red *r)
{
	struct rr_input in[RED_ORIG_RUNS];
	struct rr_result res[RED_ORIG_RUNS];
	for (int i = 0; i < RED_ORIG_RUNS; i++) {
		in[i] = r->where;
		in[i].data = r->data;
		in[i].len = r->len;
	}
	rr_run_many(&r->prog, in, res, RED_ORIG_RUNS, r->jobs, NULL);
	r->orig_runs = RED_ORIG_RUNS;
	/* Ctrl-C from here on stops the search, which keeps the best so far */
	bool stopped = r->stop;
	char *d0 = rr_describe(&res[0]), *other = NULL;
	int alike = 1, meet = 0;
	for (int i = 1; i < RED_ORIG_RUNS; i++) {
		alike += rr_same(&res[i], &res[0]);
		if (!other && !rr_same(&res[i], &res[0]))
			other = rr_describe(&res[i]);
	}
	r->oracle.orig = res[0];
	r->oracle.orig.output = NULL;
	for (int i = 0; i < RED_ORIG_RUNS; i++)
		meet += red_oracle_holds(&r->oracle, &res[i]);
	int rc = 0;
	if (stopped)
		rc = qz_error(q, "reduce: interrupted while running the original input.");
	else if (res[0].how == RR_ERROR)
		rc = qz_error(q, "reduce: cannot run %s.", q->prog);
	else if (r->oracle.same && alike < RED_ORIG_RUNS)
		rc = qz_error(q, "reduce: the failure is not deterministic: %d of %d runs of the "
			      "original input ended with %s, others with %s; nothing reduced.",
			      alike, RED_ORIG_RUNS, d0, other);
	else if (r->oracle.same && res[0].how == RR_TIMEOUT)
		rc = qz_error(q, "reduce: the program does not end on the original input (timeout "
			      "after %.0f s); nothing reduced.", r->prog.timeout);
	else if (r->oracle.same && res[0].how == RR_EXIT && res[0].code == 0)
		rc = qz_error(q, "reduce: the program does not fail on the original input (exit "
			      "status 0); nothing reduced.");
	else if (meet == 0)
		rc = qz_error(q, "reduce: the original input does not meet the condition (it "
			      "ended with %s); nothing reduced.", d0);
	else if (meet < RED_ORIG_RUNS)
		rc = qz_error(q, "reduce: the failure is not deterministic: %d of %d runs of the "
			      "original input meet the condition; nothing reduced.", meet,
			      RED_ORIG_RUNS);
	else
		qz_printf(q, "The failure: %s (the same in %d runs of the original)\n", d0,
			  RED_ORIG_RUNS);
	for (int i = 0; i < RED_ORIG_RUNS; i++)
		rr_result_free(&res[i]);
	free(d0);
	free(other);
	return rc;
}

static volatile bool *red_stop_flag;

static void red_on_sigint(int sig)
{
	(void)sig;
	if (red_stop_flag)
		*red_stop_flag = true;
}

/* Show the result when it is short: escaped, in quotes. */
static void red_show(struct qz *q, const char *s, size_t n)
{
	if (n > 200)
		return;
	struct sbuf b = {0};
	for (size_t i = 0; i < n; i++)
		str_esc_char(&b, (unsigned char)s[i], '"');
	qz_printf(q, "Minimal input: \"%s\"\n", b.s ? b.s : "");
	sbuf_free(&b);
}

static void red_result_line(struct qz *q, const struct red *r, bool stopped, size_t len)
{
	qz_printf(q, "%s %s from %zu to %zu bytes (%s): %s\n",
		  stopped ? "Interrupted: the best so far for" : "Reduced", r->what, r->len, len,
		  r->plain ? "ddmin" : "guided", r->min_path);
}

static int red_finish(struct qz *q, struct red *r)
{
	struct sbuf out = {0};
	split_join(r->data, r->units, r->best, r->nbest, &out);
	if (file_replace(r->min_path, out.s ? out.s : "", out.len) < 0) {
		sbuf_free(&out);
		return qz_error(q, "reduce: cannot write %s: %s.", r->min_path, strerror(errno));
	}
	/* the way there is volatile (runs, times: a session file's --check
	 * compares the result alone, which a replay verifies) */
	qz_emit(q, QZ_OUT_VOLATILE, r->log.s ? r->log.s : "");
	red_result_line(q, r, r->dd.stopped, out.len);
	qz_printf_volatile(q, "(in %zu runs, %.1f s; %zu processes at most %d at a time, %zu "
			   "answers from the cache, %zu runs of the original)\n", r->dd.runs,
			   rr_now() - r->t0, r->dd.launched + r->orig_runs, r->jobs, r->dd.cached,
			   r->orig_runs);
	for (size_t i = 0; i < r->nothers; i++)
		qz_printf_volatile(q, "Not accepted: %s (%zu run%s)\n", r->others[i].what,
				   r->others[i].n, r->others[i].n == 1 ? "" : "s");
	red_show(q, out.s ? out.s : "", out.len);
	sbuf_free(&out);
	return 0;
}

/* In a replayed session file: the reduction is not searched again; its
 * result (NAME.min, next to the input as the original wrote it) is run
 * and must still fail as the original input does. The lines printed are
 * the original's lasting ones, so --check compares the outcome. */
static int red_verify(struct qz *q, struct red *r)
{
	char *min = NULL;
	size_t len = 0;
	if (red_read_file(q, r->min_path, &min, &len) < 0) {
		char *why = xstrdup(q->err.s);   /* qz_error starts q->err anew */
		qz_error(q, "reduce: the session's result %s cannot be read (%s)", r->min_path, why);
		free(why);
		return -1;
	}
	struct rr_input in = r->where;
	in.data = min;
	in.len = len;
	struct rr_result res;
	rr_run_many(&r->prog, &in, &res, 1, 1, NULL);
	bool holds = red_oracle_holds(&r->oracle, &res);
	char *d = rr_describe(&res);
	int rc = 0;
	if (!holds)
		rc = qz_error(q, "reduce: %s (%zu bytes) no longer fails the same way: it ended "
			      "with %s.", r->min_path, len, d);
	else {
		red_result_line(q, r, false, len);
		red_show(q, min, len);
	}
	free(d);
	rr_result_free(&res);
	free(min);
	return rc;
}

static void red_free(struct red *r)
{
	rr_cleanup(&r->prog);
	free(r->prog.argv);
	free(r->prog.at);
	if (r->oracle.has_re)
		regfree(&r->oracle.re);
	dd_free(&r->dd);
	free(r->data);
	free(r->min_path);
	free(r->stdin_file);
	free(r->units);
	free(r->best);
	sbuf_free(&r->log);
	for (size_t i = 0; i < r->nothers; i++)
		free(r->others[i].what);
	free(r->others);
}

static int red_search(struct qz *q, struct red *r)
{
	red_dd_init(r);
	uint32_t *all = red_all(r);
	dd_known(&r->dd, all, r->nunits, DD_FAIL);   /* checked: the original fails */
	free(all);
	red_note(r, "start", r->nunits, r->len);
	int rc = r->plain ? red_plain(r) : red_guided(r);
	if (rc == 0 && !r->best)
		rc = qz_error(q, "reduce: interrupted before any smaller input failed.");
	return rc < 0 ? -1 : red_finish(q, r);
}

/* Thousands of runs of a program on mangled input may do anything: they
 * are confined to the scratch directory where the machine allows it. */
static void red_confine(struct qz *q, struct red *r)
{
	char err[256];
	if (r->unconfined)
		qz_printf_volatile(q, "Runs are not confined (--no-sandbox).\n");
	else if (rr_sandbox(&r->prog, err, sizeof err) < 0)
		qz_printf_volatile(q, "Runs are not confined: %s.\n", err);
	else
		qz_printf_volatile(q, "Runs are confined: they write only under %s, run no "
				   "other program and use no network.\n", r->prog.scratch);
}

static int cmd_reduce(struct qz *q, const char *args)
{
	if (!q->exe_loaded)
		return qz_error(q, "No program: start qzdb with the program and its arguments.");
	struct red r = { .q = q };
	int rc = red_parse(q, &r, args);
	if (rc == 0 && q->replaying && r.unconfined)   /* a session file is anyone's */
		rc = qz_error(q, "reduce: a replayed session may not lift the confinement of "
			      "the runs (--no-sandbox).");
	if (rc == 0 && q->replaying && r.prog.timeout > RED_REPLAY_TIMEOUT)
		r.prog.timeout = RED_REPLAY_TIMEOUT;
	if (rc == 0 && !r.plain && qz_running(q))
		rc = qz_error(q, "reduce: the program is running: kill it first (guided reduction "
			      "records a run of its own), or use --plain.");
	if (rc == 0) {
		red_prog(q, &r);
		r.units = split_units(r.data, r.len, r.by, &r.nunits);
		r.progress = !q->ui;
		r.t0 = r.shown = rr_now();
		if (!r.nunits)
			rc = qz_error(q, "reduce: the input is empty.");
		else if (rr_scratch(&r.prog) < 0)
			rc = qz_error(q, "reduce: cannot make a scratch directory: %s.", strerror(errno));
		else
			red_confine(q, &r);
	}
	/* Ctrl-C stops the reduction, keeping the best input so far */
	struct sigaction sa = { .sa_handler = red_on_sigint }, old;
	sigemptyset(&sa.sa_mask);
	red_stop_flag = &r.stop;
	sigaction(SIGINT, &sa, &old);
	if (rc == 0) {
		qz_printf(q, "Reducing %s: %zu bytes", r.what, r.len);
		if (r.by != SPLIT_BYTES)
			qz_printf(q, ", %zu %s", r.nunits, split_name(r.by));
		qz_printf(q, ", %s\n", r.plain ? "plain ddmin" : "guided by relevant inputs");
		rc = red_check_original(q, &r);
	}
	if (rc == 0)
		rc = q->replaying ? red_verify(q, &r) : red_search(q, &r);
	sigaction(SIGINT, &old, NULL);
	red_stop_flag = NULL;
	red_free(&r);
	return rc;
}

#include "cmd/cmd-flags.h"

static const struct cmd_def reduce_cmds[] = {
	{"reduce", NULL, "reduce file ARGN | stdin FILE | arg N [OPTIONS]", Y, cmd_reduce,
	 "Shrink a failing input to a 1-minimal one that still fails the same way.",
	 "What to shrink: the file named by the program's argument ARGN (argv[ARGN]),\n"
	 "FILE given as standard input, or the argument argv[N] itself. The program\n"
	 "and its arguments are the ones qzdb was started with.\n"
	 "The result goes next to the original as NAME.min (for an argument:\n"
	 "PROGRAM.argN.min here) and is printed when short; a log gives each step's\n"
	 "size and the runs so far. Ctrl-C stops and keeps the best input so far.\n"
	 "Options:\n"
	 "  --by bytes|lines|tokens  the units removed (tokens: words, white space\n"
	 "                           runs, single punctuation characters)\n"
	 "  --plain                  ddmin alone; the default is guided: the failing run\n"
	 "                           is recorded, the input bytes the failure depends on\n"
	 "                           (data and control) are found, the others dropped,\n"
	 "                           and the run's control tree (the bytes each read\n"
	 "                           consumed, under the decisions that led there) is\n"
	 "                           searched level by level, then ddmin makes the\n"
	 "                           result 1-minimal (this\n"
	 "                           recording replaces the session's own)\n"
	 "  --timeout SECS           per run (default 10); a hang is a different failure\n"
	 "  --jobs N                 runs at a time (default: the number of cores)\n"
	 "  --no-sandbox             runs not confined (by default, where the kernel has\n"
	 "                           Landlock and seccomp, each run may write only under\n"
	 "                           the reduction's scratch directory, run no other\n"
	 "                           program and use no network; it sees EPERM)\n"
	 "The failure (the oracle), by default the same as the original's: the same\n"
	 "signal (or exit status) at the same source line with the same two callers.\n"
	 "Or conditions that must all hold:\n"
	 "  --signal SIG             killed by SIG (SIGSEGV or SEGV or 11)\n"
	 "  --exit N                 exits with status N\n"
	 "  --at FILE:LINE           execution reaches that line\n"
	 "  --output REGEX           stdout+stderr match the extended regular expression\n"
	 "                           (^ and $ match at every line)\n"
	 "The original input is run 5 times first: it must fail, alike each time.\n"
	 "Runs are native processes with address randomisation off, a fixed\n"
	 "environment (PATH=/usr/local/bin:/usr/bin:/bin LC_ALL=C, nothing else)\n"
	 "and a fresh scratch directory each as the working directory\n"
	 "(name other files the program reads by absolute paths).\n"
	 "Progress (runs done, best size so far) goes to stderr once a second, or\n"
	 "to the status line in the full-screen UI; Ctrl-C stops the search and\n"
	 "writes the best input found so far.\n"
	 "In a session file only the outcome is kept (the input, the failure, the\n"
	 "result's size and name); replaying it does not search again but runs the\n"
	 "result NAME.min, which must still fail the same way (--check compares)."},
	CMD_END,
};

const struct qz_mod reduce_mod = {
	.name = "reduce",
	.cmds = reduce_cmds,
};
