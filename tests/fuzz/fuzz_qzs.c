/* fuzz_qzs: libFuzzer harness for session files. Every input either
 * parses or is refused with a message naming a line; a parsed file is then
 * walked the way a replay reads it (its arguments: every "#@ arg" line
 * once corrupted memory; its outputs compared and sanitised for the
 * terminal; the program it names judged), and replayed as `qzdb --replay
 * FILE --program P` replays it: the replay policy refuses what a file may
 * not do, and the program runs in the sandbox, forced on as in --replay.
 *
 * P is tests/build/bug_nullp-O0 (a fixture; QZ_FUZZ_PROGRAM overrides),
 * the program's terminal /dev/null, its scratch directory
 * tests/build/fuzz/scratch; the file "lives" in the empty
 * tests/build/fuzz/session, so `source` finds nothing to run. Where the
 * kernel cannot sandbox, nothing is replayed (said once at start). At exit
 * it says how many denials the sandbox reported. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/qzs.h"
#include "proc/sandbox.h"
#include "target/session.h"
#include "modules.h"

#define FUZZ_DIR "tests/build/fuzz"
#define FUZZ_PATH FUZZ_DIR "/session/fuzz.qzs"

static const char *fuzz_program;   /* NULL: parse only (no sandbox here) */
static unsigned long fuzz_denials;  /* [sandbox: denied ...] lines seen */

/* At exit: the smoke test reads that the sandbox was on and denied. */
static void fuzz_report(void)
{
	fprintf(stderr, "fuzz_qzs: %lu sandbox denials reported\n", fuzz_denials);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	char err[512];
	struct stat st;
	const char *prog = getenv("QZ_FUZZ_PROGRAM");
	prog = prog ? prog : "tests/build/bug_nullp-O0";
	mkdir(FUZZ_DIR, 0755);
	mkdir(FUZZ_DIR "/session", 0755);
	mkdir(FUZZ_DIR "/scratch", 0755);
	if (sandbox_supported(err, sizeof err) < 0)
		fprintf(stderr, "fuzz_qzs: no replays: the sandbox is not available (%s)\n", err);
	else if (stat(prog, &st) < 0 || !S_ISREG(st.st_mode))
		fprintf(stderr, "fuzz_qzs: no replays: no program %s (build the fixtures)\n", prog);
	else
		fuzz_program = prog;
	atexit(fuzz_report);
	return 0;
}

static void fuzz_sink(void *arg, enum qz_out_kind kind, const char *text)
{
	(void)arg;
	(void)kind;
	for (const char *s = text; (s = strstr(s, "[sandbox: denied ")); s++)
		fuzz_denials++;
}

/* The session --replay makes, every module registered (tui/main.c),
 * its program on /dev/null, sandboxed. NULL if the sandbox failed. */
static struct qz *fuzz_session(void)
{
	char err[512];
	struct qz *q = qz_new((struct qz_sink){fuzz_sink, NULL});
	modules_init(q);
	q->tty_path = xstrdup("/dev/null");
	q->sandbox.scratch = xstrdup(FUZZ_DIR "/scratch");
	if (sandbox_session_force(q, err, sizeof err) < 0) {
		fprintf(stderr, "fuzz_qzs: the sandbox failed: %s\n", err);
		abort();   /* never replay unsandboxed */
	}
	return q;
}

/* Replay f with the program chosen as --program chooses it. */
static void fuzz_replay(const struct qzs_file *f)
{
	char err[1024];
	char *named = qzs_replay_program(f, NULL, err, sizeof err);
	if (!named && !strstr(err, FUZZ_PATH))
		abort();   /* a refused program names the file */
	free(named);
	char *prog = qzs_replay_program(f, fuzz_program, err, sizeof err);
	if (!prog)
		abort();
	(void)qzs_check_program(f, prog, err, sizeof err);   /* as with --force */
	struct qz *q = fuzz_session();
	if (qz_load(q, prog, f->args, f->nargs) == 0) {
		struct qzs_replay r = { .check = false };
		(void)qzs_replay_run(q, f, &r);
	}
	if (!q->sandbox.on || !q->sandbox.forced)
		abort();   /* a command turned the sandbox off */
	qz_free(q);
	free(prog);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512];
	struct qzs_file *f = qzs_parse_text((const char *)data, size, FUZZ_PATH, err, sizeof err);
	if (!f) {
		if (!strstr(err, FUZZ_PATH ":"))
			abort();   /* every refusal names the file and the line */
		return 0;
	}
	size_t total = 0;
	for (size_t i = 0; i < f->n; i++) {
		total += strlen(f->entries[i].cmd) + strlen(f->entries[i].output);
		if (f->entries[i].comment)
			total += strlen(f->entries[i].comment);
		(void)qzs_output_matches(f->entries[i].output, f->entries[i].cmd);
	}
	for (size_t i = 0; i < f->nargs; i++)
		total += strlen(f->args[i]);
	struct sbuf b = {0};
	for (size_t i = 0; i < f->n; i++)
		str_sanitize(&b, f->entries[i].output, strlen(f->entries[i].output));
	sbuf_free(&b);
	if (fuzz_program)
		fuzz_replay(f);
	qzs_file_free(f);
	return total > size * 2 ? 1 : 0;
}
