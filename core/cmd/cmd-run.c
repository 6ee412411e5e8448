/* cmd-run: commands that start, resume, step and end the program. */
#include <ctype.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "cmds.h"
#include "target/frame.h"
#include "target/loc.h"
#include "target/mod.h"
#include "target/run.h"
#include "qzs.h"
#include "target/session.h"
#include "target/step.h"
#include "target/watch.h"

/* A repeat count argument: empty means 1. */
static int cmd_count(struct qz *q, const char *a, int *n)
{
	int64_t v;
	*n = 1;
	if (!*a) {
		*n = 1;
		return 0;
	}
	if (!str_to_i64(a, &v) || v < 0 || v > 1000000000)
		return qz_error(q, "Invalid number \"%s\".", a);
	*n = (int)v;
	return 0;
}

/* Split "a 'b c' <in >out" into words, honouring quotes; redirections go
 * to *in and *out. */
static void cmd_split_args(const char *a, char ***words, size_t *n,
			   char **in, char **out)
{
	size_t cap = 0;
	*n = 0;
	*words = NULL;
	while (*(a = str_skip_space(a))) {
		struct sbuf w = {0};
		char redir = (*a == '<' || *a == '>') ? *a++ : 0;
		a = str_skip_space(a);
		while (*a && !isspace((unsigned char)*a)) {
			if (*a == '\'' || *a == '"') {
				char qc = *a++;
				while (*a && *a != qc)
					sbuf_addc(&w, *a++);
				if (*a)
					a++;
			} else if (*a == '\\' && a[1]) {
				sbuf_addc(&w, a[1]);
				a += 2;
			} else {
				sbuf_addc(&w, *a++);
			}
		}
		char *s = sbuf_take(&w);
		if (redir == '<') {
			free(*in);
			*in = s;
		} else if (redir == '>') {
			free(*out);
			*out = s;
		} else {
			XGROW(*words, cap, *n + 1);
			(*words)[(*n)++] = s;
		}
	}
}

static void cmd_set_prog_args(struct qz *q, const char *a)
{
	FREE_ALL(q->args, q->nargs);
	free(q->stdin_path);
	free(q->stdout_path);
	q->stdin_path = q->stdout_path = NULL;
	cmd_split_args(a, &q->args, &q->nargs, &q->stdin_path, &q->stdout_path);
}

int cmd_set_args(struct qz *q, const char *a)
{
	cmd_set_prog_args(q, a);
	return 0;
}

static int cmd_start_prog(struct qz *q, const char *a)
{
	if (!q->exe_loaded)
		return qz_error(q, "No executable file specified.");
	if (*a)
		cmd_set_prog_args(q, a);
	if (q->stdout_path && qzs_check_write(q, q->stdout_path) < 0)
		return -1;
	return run_start(q);
}

int cmd_run_prog(struct qz *q, const char *a)
{
	return cmd_start_prog(q, a);
}

int cmd_start(struct qz *q, const char *a)
{
	if (!q->exe.di || !di_func_named(q->exe.di, "main"))
		return qz_error(q, "No symbol table loaded.  Use the \"file\" command.");
	if (cmd_run(q, "tbreak main") != CMD_OK)
		return -1;
	return cmd_start_prog(q, a);
}

/* The user breakpoint the program is stopped at, for continue N. */
static struct bp *cmd_bp_here(struct qz *q)
{
	uint64_t pc = proc_pc(q->proc);
	for (size_t i = 0; i < q->bps.n; i++)
		for (size_t j = 0; j < q->bps.bps[i].nlocs; j++)
			if (q->bps.bps[i].locs[j].addr == pc)
				return &q->bps.bps[i];
	return NULL;
}

/* set exec-direction reverse while a module can go back: a forward
 * command runs its reverse twin (the module's reverse-next...) instead;
 * true with *rc when it did. The twin runs with the direction forward
 * for the moment, or it would refuse as "Already in reverse mode". */
static bool cmd_reversed(struct qz *q, const char *twin, const char *a, int *rc)
{
	if (!q->exec_reverse || !mod_can_reverse(q))
		return false;
	bool amb;
	const struct cmd_def *c = cmd_lookup("", twin, &amb);
	if (!c || !c->fn) {
		*rc = qz_error(q, "Target does not support this operation.");
		return true;
	}
	q->exec_reverse = false;
	*rc = c->fn(q, a);
	q->exec_reverse = true;
	return true;
}

int cmd_set_exec_direction(struct qz *q, const char *a)
{
	size_t n = strlen(a);
	if (!n)
		return qz_error(q, "Requires an argument. Valid arguments are forward, reverse.");
	if (!strncmp(a, "forward", n)) {
		q->exec_reverse = false;
		return 0;
	}
	if (strncmp(a, "reverse", n) != 0)
		return qz_error(q, "Undefined item: \"%s\".", a);
	if (!mod_can_reverse(q))
		return qz_error(q, "Target does not support this operation.");
	q->exec_reverse = true;
	return 0;
}

int cmd_show_exec_direction(struct qz *q, const char *a)
{
	(void)a;
	qz_puts(q, q->exec_reverse ? "Reverse.\n" : "Forward.\n");
	return 0;
}

int cmd_continue(struct qz *q, const char *a)
{
	int n, rc;
	if (cmd_reversed(q, "reverse-continue", a, &rc))
		return rc;
	if (cmd_count(q, a, &n) < 0)
		return -1;
	if (*a && n > 1) {
		struct bp *b = cmd_bp_here(q);
		if (b) {
			b->ignore = n - 1;
			qz_printf(q, "Will ignore next %d crossings of breakpoint %d.  Continuing.\n",
				  n - 1, b->num);
		}
	}
	return run_until_target(q, NULL) == RUN_ERROR ? -1 : 0;
}

static int cmd_step_lines(struct qz *q, const char *a, enum step_kind k)
{
	int n, rc;
	if (cmd_reversed(q, k == STEP_OVER ? "reverse-next" : "reverse-step", a, &rc))
		return rc;
	if (cmd_count(q, a, &n) < 0)
		return -1;
	return step_line(q, k, n);
}

int cmd_next(struct qz *q, const char *a)
{
	return cmd_step_lines(q, a, STEP_OVER);
}

int cmd_step(struct qz *q, const char *a)
{
	return cmd_step_lines(q, a, STEP_INTO);
}

int cmd_stepi(struct qz *q, const char *a)
{
	int n, rc;
	if (cmd_reversed(q, "reverse-stepi", a, &rc))
		return rc;
	if (cmd_count(q, a, &n) < 0)
		return -1;
	return step_insn(q, false, n);
}

int cmd_nexti(struct qz *q, const char *a)
{
	int n, rc;
	if (cmd_reversed(q, "reverse-nexti", a, &rc))
		return rc;
	if (cmd_count(q, a, &n) < 0)
		return -1;
	return step_insn(q, true, n);
}

int cmd_finish(struct qz *q, const char *a)
{
	int rc;
	if (cmd_reversed(q, "reverse-finish", a, &rc))
		return rc;
	return step_finish(q);
}

/* until and advance run forward only (gdb has reverse forms of them). */
static int cmd_forward_only(struct qz *q, const char *what)
{
	if (!q->exec_reverse || !mod_can_reverse(q))
		return 0;
	return qz_error(q, "qzdb's %s runs forward only: \"set exec-direction forward\" first "
			"(backwards: a breakpoint and reverse-continue).", what);
}

int cmd_until(struct qz *q, const char *a)
{
	if (cmd_forward_only(q, "until") < 0)
		return -1;
	if (!*a)
		return step_line(q, STEP_UNTIL, 1);
	return step_to(q, a, true);
}

int cmd_advance(struct qz *q, const char *a)
{
	if (cmd_forward_only(q, "advance") < 0)
		return -1;
	if (!*a)
		return qz_error(q, "Argument required (a location).");
	return step_to(q, a, false);
}

int cmd_kill(struct qz *q, const char *a)
{
	(void)a;
	int pid = proc_pid(q->proc);
	run_kill(q);
	qz_printf(q, "[Inferior 1 (process %d) killed]\n", pid);
	return 0;
}

int cmd_detach(struct qz *q, const char *a)
{
	(void)a;
	return qz_detach(q);
}

/* The program loaded is not what the process runs: its symbols would lie. */
static void cmd_attach_check_exe(struct qz *q, const char *exe)
{
	char real[PATH_MAX];
	if (realpath(exe, real) && q->prog && strcmp(real, q->prog) != 0)
		qz_warn(q, "process runs %s, not the program loaded (%s): "
			"its symbols may not match", real, q->prog);
}

int cmd_attach(struct qz *q, const char *a)
{
	int64_t pid;
	char exe[64];
	if (!*a)
		return qz_error(q, "Argument required (process-id to attach).");
	if (!str_to_i64(a, &pid) || pid <= 0 || pid > INT32_MAX)
		return qz_error(q, "Illegal process-id: %s.", a);
	if (q->proc)
		return qz_error(q, "The program is already being debugged (kill or detach it first).");
	snprintf(exe, sizeof exe, "/proc/%d", (int)pid);
	if (access(exe, F_OK) < 0)
		return qz_error(q, "ptrace: No such process.");
	snprintf(exe, sizeof exe, "/proc/%d/exe", (int)pid);
	if (!q->exe_loaded && qz_load(q, exe, NULL, 0) < 0)
		return -1;
	cmd_attach_check_exe(q, exe);
	qz_printf(q, "Attaching to process %d\n", (int)pid);
	if (run_attach(q, (int)pid) < 0)
		return -1;
	const struct frame *f = frame_get(q, 0);
	if (f)
		frame_print_stop(q, f, true);
	return 0;
}

int cmd_quit(struct qz *q, const char *a)
{
	(void)a;
	if (q->proc && q->attached)   /* as gdb in batch mode: leave it running */
		cmd_detach(q, "");
	else if (q->proc)
		run_kill(q);
	return CMD_QUIT;
}
