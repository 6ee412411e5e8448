/* main: qzdb's entry point and its line-oriented front ends: batch mode
 * (-ex, -x) and the plain command line. The full-screen UI plugs in here
 * when the terminal allows. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "slice/slice.h"
#include "cmd/cmd.h"
#include "cmd/qzs.h"
#include "target/session.h"
#include "target/watch.h"
#include "alter/alter.h"
#include "target/solib.h"
#include "ckpt/ckpt.h"
#include "lineedit.h"
#include "modules.h"
#include "tui.h"

#define QZDB_VERSION "0.1.0"

enum { EXIT_OK = 0, EXIT_CMD_FAILED = 1, EXIT_USAGE = 2 };

struct opts {
	bool batch;
	bool no_tui;
	const char *theme;       /* --theme NAME */
	int bench;               /* --tui-bench N (hidden): redraw timing */
	const char **cmds;       /* -ex and -x in the order given; -x as "\1FILE",
	                            --reduce SPEC as "\2reduce SPEC" */
	size_t ncmds;
	const char *prog;
	char **args;
	size_t nargs;
	const char *record_session;   /* --record-session FILE */
	const char *replay;           /* --replay FILE */
	bool step, check, force;      /* replay options */
	const char *program;          /* --program PATH: the viewer's choice */
	bool allow_unsafe;            /* --allow-unsafe: trust the session file */
	const char *pid;         /* -p PID: attach to it */
	const char *scratch;     /* --scratch DIR: where a sandboxed program writes */
	bool allow_network;      /* --allow-network: sandboxed, but sockets allowed */
	bool unsandboxed;        /* --unsandboxed: replay without the sandbox */
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: qzdb [options] PROGRAM [ARGS...]\n"
		"       qzdb --batch [-x FILE] [-ex CMD]... PROGRAM [ARGS...]\n"
		"       qzdb --replay SESSION.qzs [--program PATH] [--step] [--check] [--force]\n"
		"       qzdb [options] -p PID [PROGRAM]\n"
		"       qzdb --reduce 'file ARGN|stdin FILE|arg N [OPTIONS]' PROGRAM [ARGS...]\n"
		"\n"
		"A debugger for C programs on x86-64 Linux.\n"
		"\n"
		"Options:\n"
		"  --batch        run the commands from -ex and -x, print, exit;\n"
		"                 exit status 0 if all succeeded, 1 if one failed\n"
		"  -ex CMD        run the command CMD (repeatable)\n"
		"  -x FILE        run the commands in FILE\n"
		"  -p PID         attach to the running process PID (the program\n"
		"                 is read from /proc/PID/exe if not given)\n"
		"  --no-tui       use the plain command line, not the full-screen UI\n"
		"  --theme NAME   colour theme of the UI (themes/NAME.theme)\n"
		"  --reduce SPEC  batch mode running `reduce SPEC`: shrink a failing\n"
		"                 input of PROGRAM (see `help reduce`)\n"
		"  --record-session FILE  write the session (commands and output) to FILE\n"
		"  --replay FILE  run the commands of a session file again\n"
		"  --step         with --replay: wait for a key before each command\n"
		"                 (space or Enter: run it, b: back one step, q: stop)\n"
		"  --check        with --replay: stop with status 1 at the first\n"
		"                 command whose output differs from the saved one\n"
		"  --force        with --replay: replay even if the program changed\n"
		"  --scratch DIR  the one directory a sandboxed program may write to\n"
		"                 (default: a fresh one under $XDG_RUNTIME_DIR or /tmp)\n"
		"  --allow-network  a sandboxed program may use TCP/UDP sockets\n"
		"  --unsandboxed  with --replay: run the program without the sandbox\n"
		"                 (Landlock and seccomp; only for files you trust)\n"
		"  --program PATH with --replay: run PATH, not the program the file names\n"
		"                 (which must lie in the session file's directory tree)\n"
		"  --allow-unsafe with --replay: let the file run commands a replay\n"
		"                 refuses (attach, bind, file writes, ...)\n"
		"  --help         show this help\n"
		"  --version      show the version\n");
}

/* Write text to f with control bytes shown visibly: what qzdb prints can
 * hold bytes from files and from the program (a source line, a string, a
 * session file's output), which must not drive the user's terminal. */
static void put_safe(FILE *f, const char *text)
{
	struct sbuf b = {0};
	str_sanitize(&b, text, strlen(text));
	if (b.s)
		fputs(b.s, f);
	sbuf_free(&b);
}

static void sink_write(void *arg, enum qz_out_kind kind, const char *text)
{
	(void)arg;
	if (kind == QZ_OUT_TEXT) {
		put_safe(stdout, text);
		fflush(stdout);
		return;
	}
	fflush(stdout);
	if (kind == QZ_OUT_ERROR)
		fputs("error: ", stderr);
	put_safe(stderr, text);
	if (kind == QZ_OUT_ERROR)
		fputs("\n", stderr);
	fflush(stderr);
}

/* An error message that may quote a file's bytes. */
static void print_error(const char *msg)
{
	fputs("error: ", stderr);
	put_safe(stderr, msg);
	fputs("\n", stderr);
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	int i;
	o->cmds = calloc((size_t)argc, sizeof *o->cmds);
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--batch") || !strcmp(a, "-batch")) {
			o->batch = true;
		} else if ((!strcmp(a, "-ex") || !strcmp(a, "--ex") || !strcmp(a, "-x")) &&
			   i + 1 < argc) {
			o->cmds[o->ncmds++] = a[1] == 'x' ? xasprintf("\1%s", argv[++i]) : argv[++i];
		} else if (!strcmp(a, "--reduce") && i + 1 < argc) {
			/* batch mode with one command: `reduce SPEC` (reduce/) */
			o->batch = true;
			o->cmds[o->ncmds++] = xasprintf("\2reduce %s", argv[++i]);
		} else if (!strcmp(a, "--record-session") && i + 1 < argc) {
			o->record_session = argv[++i];
		} else if (!strcmp(a, "--replay") && i + 1 < argc) {
			o->replay = argv[++i];
		} else if (!strcmp(a, "--step")) {
			o->step = true;
		} else if (!strcmp(a, "--check")) {
			o->check = true;
		} else if (!strcmp(a, "--force")) {
			o->force = true;
		} else if (!strcmp(a, "--scratch") && i + 1 < argc) {
			o->scratch = argv[++i];
		} else if (!strcmp(a, "--allow-network")) {
			o->allow_network = true;
		} else if (!strcmp(a, "--unsandboxed")) {
			o->unsandboxed = true;
		} else if (!strcmp(a, "--program") && i + 1 < argc) {
			o->program = argv[++i];
		} else if (!strcmp(a, "--allow-unsafe")) {
			o->allow_unsafe = true;
		} else if ((!strcmp(a, "-p") || !strcmp(a, "--pid")) && i + 1 < argc) {
			o->pid = argv[++i];
		} else if (!strcmp(a, "--no-tui") || !strcmp(a, "-nw")) {
			o->no_tui = true;
		} else if (!strcmp(a, "-nx") || !strcmp(a, "-q")) {
			/* gdb's options: no init file, quiet; qzdb is both */
		} else if (!strcmp(a, "--theme") && i + 1 < argc) {
			o->theme = argv[++i];
		} else if (!strcmp(a, "--tui-bench") && i + 1 < argc) {
			o->bench = atoi(argv[++i]);
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			exit(EXIT_OK);
		} else if (!strcmp(a, "--version")) {
			printf("qzdb %s\n", QZDB_VERSION);
			exit(EXIT_OK);
		} else if (!strcmp(a, "--") || !strcmp(a, "--args")) {   /* gdb's --args */
			i++;
			break;
		} else {
			fprintf(stderr, "qzdb: unknown option '%s'\n", a);
			usage(stderr);
			return -1;
		}
	}
	if (o->replay) {
		if (i < argc) {
			fprintf(stderr, "qzdb: --replay takes the program from the session file\n");
			return -1;
		}
		return 0;
	}
	if ((o->step || o->check || o->force || o->unsandboxed || o->program || o->allow_unsafe) &&
	    !o->replay) {
		fprintf(stderr, "qzdb: --step, --check, --force, --unsandboxed, --program and "
			"--allow-unsafe go with --replay\n");
		return -1;
	}
	if (i >= argc && (o->pid || o->batch))
		return 0;   /* the process's program, or none (`info platform`) */
	if (i >= argc) {
		fprintf(stderr, "qzdb: no program given\n");
		usage(stderr);
		return -1;
	}
	o->prog = argv[i];
	o->args = argv + i + 1;
	o->nargs = (size_t)(argc - i - 1);
	return 0;
}

/* Run the commands of a script file; stops at quit. */
static int run_file(struct qz *q, const char *path, bool *failed)
{
	FILE *f = fopen(path, "re");
	if (!f) {
		fprintf(stderr, "error: %s: %s.\n", path, strerror(errno));
		*failed = true;
		return CMD_OK;
	}
	char *line = NULL;
	size_t cap = 0;
	int r = CMD_OK;
	while (getline(&line, &cap, f) > 0) {
		r = cmd_run(q, line);
		if (r == CMD_FAIL)
			*failed = true;
		if (r == CMD_QUIT)
			break;
	}
	free(line);
	fclose(f);
	return r;
}

static int run_batch(struct qz *q, const struct opts *o)
{
	bool failed = false;
	q->from_tty = false;   /* the shapes of gdb -batch */
	for (size_t i = 0; i < o->ncmds; i++) {
		int r;
		if (o->cmds[i][0] == '\1')
			r = run_file(q, o->cmds[i] + 1, &failed);
		else if (o->cmds[i][0] == '\2')
			r = cmd_run(q, o->cmds[i] + 1);
		else
			r = cmd_run(q, o->cmds[i]);
		if (r == CMD_FAIL)
			failed = true;
		if (r == CMD_QUIT)
			break;
	}
	return failed ? EXIT_CMD_FAILED : EXIT_OK;
}

/* One line from stdin: edited (with history and completion) on a
 * terminal, read plainly otherwise. NULL at end of input. */
static char *read_command(struct tui_le *le, bool tty, char **buf, size_t *cap)
{
	if (tty)
		return tui_le_readline(le, "(qzdb) ");
	fputs("(qzdb) ", stdout);
	fflush(stdout);
	if (getline(buf, cap, stdin) <= 0)
		return NULL;
	return xstrdup(*buf);
}

static int run_interactive(struct qz *q, const struct opts *o)
{
	char *buf = NULL, *last = NULL, *line;
	size_t cap = 0;
	bool tty = isatty(0) && isatty(1);
	struct tui_le le;
	tui_le_init(&le, q);
	if (tty)
		tui_le_history_load(&le);
	signal(SIGINT, SIG_IGN);   /* Ctrl-C stops the program, not qzdb */
	run_batch(q, o);
	for (;; free(line)) {
		if (!(line = read_command(&le, tty, &buf, &cap))) {
			fputs("quit\n", stdout);
			break;
		}
		const char *cmd = line;
		if (!*str_skip_space(line) && last)
			cmd = last;
		else if (tui_le_repeatable(str_skip_space(line))) {
			free(last);
			last = xstrdup(line);
		} else {
			free(last);
			last = NULL;
		}
		if (cmd_run(q, cmd) == CMD_QUIT) {
			free(line);
			break;
		}
	}
	free(buf);
	free(last);
	tui_le_free(&le);
	return EXIT_OK;
}

/* A session with every module registered: the one place they are listed. */
static struct qz *main_session(void)
{
	struct qz_sink sink = {sink_write, NULL};
	struct qz *q = qz_new(sink);
	qz_signals(q);   /* SIGTERM, SIGHUP, SIGPIPE, crashes: leave it clean */
	tui_help_keys_install();
	if (modules_init(q) < 0) {   /* a broken build: two modules, one command */
		fprintf(stderr, "qzdb: %s\n", q->err.s);
		exit(EXIT_CMD_FAILED);
	}
	return q;
}

/* --step: one key before each command; a line when stdin is not a tty. */
static int replay_wait_key(void *arg)
{
	(void)arg;
	fputs("-- space or Enter: run, b: back, q: stop --", stderr);
	fflush(stderr);
	int c;
	if (isatty(STDIN_FILENO)) {
		struct termios old, raw;
		tcgetattr(STDIN_FILENO, &old);
		raw = old;
		raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		tcsetattr(STDIN_FILENO, TCSANOW, &raw);
		c = getchar();
		tcsetattr(STDIN_FILENO, TCSANOW, &old);
	} else {
		c = getchar();
		for (int d = c; d != '\n' && d != EOF;)
			d = getchar();
	}
	fputs("\n", stderr);
	return c == EOF ? 'q' : c;
}

/* On a terminal the replay is shown in the full-screen UI (--check stays
 * a batch feature); -1 when it is not. */
static int run_replay_ui(struct qz *q, const struct opts *o, const struct qzs_file *f)
{
	if (o->check || o->batch || o->no_tui || !isatty(0) || !isatty(1))
		return -1;
	struct tui_opts to = {.theme = o->theme, .replay = f, .step = o->step};
	int rc = tui_main(q, &to);
	if (rc < 0)
		return -1;
	return to.replay_rc ? EXIT_CMD_FAILED : rc;
}

/* The sandbox options; a replay is sandboxed unless --unsandboxed, and
 * refuses to run where the kernel cannot sandbox. The scratch directory
 * is named on stderr (not in the transcript: it differs every run). */
static int main_sandbox(struct qz *q, const struct opts *o)
{
	char err[512];
	struct sandbox *sb = &q->sandbox;
	sb->allow_network = o->allow_network;
	if (o->scratch)
		sb->scratch = xstrdup(o->scratch);
	if (!o->replay || o->unsandboxed)
		return 0;
	if (sandbox_session_force(q, err, sizeof err) < 0) {
		fprintf(stderr, "error: cannot replay safely: %s. qzdb --replay --unsandboxed "
			"replays without the sandbox (only for files you trust).\n", err);
		return -1;
	}
	fprintf(stderr, "qzdb: the program runs sandboxed; it may write only under %s\n",
		sb->scratch);
	return 0;
}

static int run_replay(const struct opts *o)
{
	char err[1024];
	struct qzs_file *f = qzs_parse(o->replay, err, sizeof err);
	char *prog = f ? qzs_replay_program(f, o->program, err, sizeof err) : NULL;
	if (!prog || (!o->force && qzs_check_program(f, prog, err, sizeof err) < 0)) {
		print_error(err);
		free(prog);
		qzs_file_free(f);
		return EXIT_CMD_FAILED;
	}
	struct qz *q = main_session();
	/* a session recorded interactively replays with the terminal's output
	 * shapes, one recorded with --batch with gdb -batch's */
	q->from_tty = !f->batch;
	qzs_replay_allow_unsafe(q, o->allow_unsafe);
	int rc = EXIT_CMD_FAILED;
	if (main_sandbox(q, o) < 0) {
		/* said why */
	} else if (qz_load(q, prog, f->args, f->nargs) < 0) {
		print_error(q->err.s);
	} else {
		rc = run_replay_ui(q, o, f);
		if (rc < 0) {
			struct qzs_replay r = { .check = o->check,
						.wait_key = o->step ? replay_wait_key : NULL };
			signal(SIGINT, SIG_IGN);
			rc = qzs_replay_run(q, f, &r) ? EXIT_CMD_FAILED : EXIT_OK;
		}
	}
	qz_free(q);
	free(prog);
	qzs_file_free(f);
	return rc;
}

/* qzdb -p PID [PROGRAM]: attach first; without a process there is
 * nothing for the commands to work on. */
static int main_attach(struct qz *q, const struct opts *o)
{
	if (o->prog && qz_load(q, o->prog, NULL, 0) < 0) {
		fprintf(stderr, "error: %s\n", q->err.s);
		return EXIT_CMD_FAILED;
	}
	char *cmd = xasprintf("attach %s", o->pid);
	int r = cmd_run(q, cmd);   /* prints its own error */
	free(cmd);
	if (r == CMD_FAIL)
		return EXIT_CMD_FAILED;
	return o->batch ? run_batch(q, o) : run_interactive(q, o);
}

static void on_sigxfsz(int sig)
{
	(void)sig;
}

/* A file over ulimit -f is an EFBIG error for qzdb to report, not death.
 * A handler that does nothing rather than SIG_IGN: exec resets a handler
 * to the default, so the program still gets the signal as in a shell. */
static void main_ignore_sigxfsz(void)
{
	struct sigaction sa = { .sa_handler = on_sigxfsz };
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGXFSZ, &sa, NULL);
}

static void opts_free(struct opts *o)
{
	for (size_t i = 0; i < o->ncmds; i++)
		if (o->cmds[i][0] == '\1' || o->cmds[i][0] == '\2')
			free((char *)o->cmds[i]);
	free(o->cmds);
}

int main(int argc, char **argv)
{
	struct opts o = {0};
	if (parse_opts(argc, argv, &o) < 0) {
		opts_free(&o);
		return EXIT_USAGE;
	}
	signal(SIGPIPE, SIG_IGN);
	main_ignore_sigxfsz();
	if (o.replay) {
		opts_free(&o);
		return run_replay(&o);
	}
	struct qz *q = main_session();
	int rc;
	main_sandbox(q, &o);
	if (o.pid) {
		rc = main_attach(q, &o);
	} else if (o.prog && qz_load(q, o.prog, o.args, o.nargs) < 0) {
		fprintf(stderr, "error: %s\n", q->err.s);
		rc = EXIT_CMD_FAILED;
		if (!o.batch)
			rc = run_interactive(q, &o) == EXIT_OK ? EXIT_CMD_FAILED : rc;
	} else if (o.record_session && (q->from_tty = !o.batch, qzs_record_to(q, o.record_session)) < 0) {
		fprintf(stderr, "error: %s\n", q->err.s);
		rc = EXIT_CMD_FAILED;
	} else if (o.bench) {
		rc = tui_bench(q, o.bench);
	} else if (!o.batch && !o.no_tui && isatty(0) && isatty(1)) {
		struct tui_opts to = {.theme = o.theme, .cmds = o.cmds, .ncmds = o.ncmds};
		rc = tui_main(q, &to);
		if (rc < 0) {
			fprintf(stderr, "qzdb: the terminal (TERM=%s) cannot show the full-screen "
				"UI; using the plain command line.\n", getenv("TERM") ? getenv("TERM") : "");
			rc = run_interactive(q, &o);
		}
	} else {
		rc = o.batch ? run_batch(q, &o) : run_interactive(q, &o);
	}
	qz_free(q);
	opts_free(&o);
	return rc;
}
