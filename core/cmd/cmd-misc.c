/* cmd-misc: help, signals, settings and small commands. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cmd-ui.h"
#include "cmds.h"
#include "target/session.h"

static void cmd_help_list(struct qz *q, const char *prefix)
{
	struct sbuf b = {0};
	size_t pl = strlen(prefix);
	const struct cmd_def *c;
	for (size_t i = 0; (c = cmd_at(i)); i++) {
		const char *sp = strchr(c->name, ' ');
		size_t parent = sp ? (size_t)(sp - c->name) : 0;
		if (c->flags & CMD_HIDDEN || parent != pl || strncmp(c->name, prefix, pl))
			continue;
		sbuf_printf(&b, "%-22s -- %s\n", c->name, c->help);
	}
	qz_puts(q, b.s ? b.s : "");
	sbuf_free(&b);
}

void (*cmd_ui_help_keys)(struct sbuf *b);

static int cmd_help_keys(struct qz *q)
{
	struct sbuf b = {0};
	if (!cmd_ui_help_keys)
		return qz_error(q, "No full-screen UI in this build: no keys.");
	cmd_ui_help_keys(&b);
	qz_puts(q, b.s ? b.s : "");
	sbuf_free(&b);
	return 0;
}

int cmd_help(struct qz *q, const char *a)
{
	if (!*a) {
		qz_puts(q, "List of commands:\n\n");
		cmd_help_list(q, "");
		qz_puts(q, "\nType \"help\" followed by a command name for full documentation.\n"
			   "Command name abbreviations are allowed if unambiguous.\n");
		return 0;
	}
	if (!strcmp(a, "keys"))
		return cmd_help_keys(q);
	char word[64] = "", sub[64] = "";
	sscanf(a, "%63s %63s", word, sub);
	bool amb;
	const struct cmd_def *c = cmd_lookup("", word, &amb);
	if (c && (c->flags & CMD_PREFIX) && *sub)
		c = cmd_lookup(c->name, sub, &amb);
	if (!c)
		return qz_error(q, "Undefined command: \"%s\".  Try \"help\".", a);
	qz_printf(q, "%s -- %s\n", c->name, c->help);
	if (c->usage)
		qz_printf(q, "Usage: %s\n", c->usage);
	if (c->aliases)
		qz_printf(q, "Aliases: %s\n", c->aliases);
	if (c->long_help)
		qz_printf(q, "%s\n", c->long_help);
	if (c->flags & CMD_PREFIX) {
		qz_printf(q, "\nList of %s subcommands:\n\n", c->name);
		cmd_help_list(q, c->name);
	}
	return 0;
}

int cmd_info(struct qz *q, const char *a)
{
	(void)a;
	cmd_help_list(q, "info");
	return 0;
}

static void cmd_sig_row(struct qz *q, int s, struct sbuf *b)
{
	const struct sig_action *x = &q->sigs.act[s];
	sbuf_printf(b, "%-14s%s\t%s\t%s\t\t%s\n", sig_name(s), x->stop ? "Yes" : "No",
		    x->print ? "Yes" : "No", x->pass ? "Yes" : "No", sig_desc(s));
}

static const char cmd_sig_header[] = "Signal        Stop\tPrint\tPass to program\tDescription\n";

int cmd_info_signals(struct qz *q, const char *a)
{
	struct sbuf b = {0};
	sbuf_add(&b, cmd_sig_header);
	if (*a) {
		int s = sig_parse(a);
		if (!s) {
			sbuf_free(&b);
			return qz_error(q, "Only signals 1-15 are valid as numeric signals.\n"
					"Use \"info signals\" for a list of symbolic signals.");
		}
		cmd_sig_row(q, s, &b);
	} else {
		sbuf_addc(&b, '\n');
		for (int s = 1; s < 32; s++)
			cmd_sig_row(q, s, &b);
	}
	qz_puts(q, b.s);
	sbuf_free(&b);
	return 0;
}

static int cmd_handle_word(struct sig_action *x, const char *w)
{
	if (!strcmp(w, "stop")) {
		x->stop = x->print = true;
	} else if (!strcmp(w, "nostop")) {
		x->stop = false;
	} else if (!strcmp(w, "print")) {
		x->print = true;
	} else if (!strcmp(w, "noprint")) {
		x->print = x->stop = false;
	} else if (!strcmp(w, "pass") || !strcmp(w, "noignore")) {
		x->pass = true;
	} else if (!strcmp(w, "nopass") || !strcmp(w, "ignore")) {
		x->pass = false;
	} else {
		return -1;
	}
	return 0;
}

int cmd_handle(struct qz *q, const char *a)
{
	char sigw[32];
	int used = 0;
	if (sscanf(a, "%31s%n", sigw, &used) != 1)
		return qz_error(q, "Argument required (signal and actions to apply).");
	int s = sig_parse(sigw);
	if (!s)
		return qz_error(q, "Unrecognized or ambiguous flag word: \"%s\".", sigw);
	a += used;
	char w[32];
	while (sscanf(a, "%31s%n", w, &used) == 1) {
		if (cmd_handle_word(&q->sigs.act[s], w) < 0)
			return qz_error(q, "Unrecognized or ambiguous flag word: \"%s\".", w);
		a += used;
	}
	if (!q->from_tty)   /* gdb -batch shows no table after handle */
		return 0;
	struct sbuf b = {0};
	sbuf_add(&b, cmd_sig_header);
	cmd_sig_row(q, s, &b);
	qz_puts(q, b.s);
	sbuf_free(&b);
	return 0;
}

int cmd_info_program(struct qz *q, const char *a)
{
	(void)a;
	if (!qz_running(q))
		return qz_puts(q, "The program being debugged is not being run.\n"), 0;
	qz_printf(q, "\tUsing the running image of child process %d.\n", proc_pid(q->proc));
	qz_printf(q, "Program stopped at 0x%llx.\n", (unsigned long long)proc_pc(q->proc));
	static const char *const why[] = {
		"It stopped at a breakpoint.", "It stopped after being stepped.",
		"It stopped at a signal.", "", "", "It stopped at a location.",
	};
	if (q->stop >= QZ_STOP_BREAKPOINT && q->stop <= QZ_STOP_LOCATION)
		qz_printf(q, "%s\n", why[q->stop - QZ_STOP_BREAKPOINT]);
	return 0;
}

int cmd_set(struct qz *q, const char *a)
{
	if (strchr(a, '='))   /* gdb's "set x = 3" */
		return cmd_set_var(q, a);
	return qz_error(q, "Undefined set command: \"%s\".  Try \"help set\".", a);
}

int cmd_onoff(struct qz *q, const char *a, bool *out)
{
	if (!*a || !strcmp(a, "on") || !strcmp(a, "1") || !strcmp(a, "yes"))
		*out = true;
	else if (!strcmp(a, "off") || !strcmp(a, "0") || !strcmp(a, "no"))
		*out = false;
	else
		return qz_error(q, "\"on\" or \"off\" expected.");
	return 0;
}

int cmd_set_listsize(struct qz *q, const char *a)
{
	int64_t n;
	if (!str_to_i64(a, &n) || n < 1)
		return qz_error(q, "integer %s out of range", a);
	q->listsize = (int)n;
	return 0;
}

int cmd_set_print(struct qz *q, const char *a)
{
	int64_t n;
	if (str_starts(a, "elements")) {
		a = str_skip_space(a + 8);
		if (!strcmp(a, "unlimited"))
			n = 0;
		else if (!str_to_i64(a, &n) || n < 0)
			return qz_error(q, "integer %s out of range", a);
		q->print_elements = n ? (int)n : 1 << 30;
		return 0;
	}
	return qz_error(q, "Undefined set print command: \"%s\".", a);
}

int cmd_set_cpu_pinning(struct qz *q, const char *a)
{
	return cmd_onoff(q, a, &q->pin_cpu);
}

int cmd_set_confirm(struct qz *q, const char *a)
{
	return cmd_onoff(q, a, &q->confirm_batch);
}

int cmd_set_unwindonsignal(struct qz *q, const char *a)
{
	return cmd_onoff(q, a, &q->unwind_on_signal);
}

int cmd_show_unwindonsignal(struct qz *q, const char *a)
{
	(void)a;
	qz_printf(q, "Unwinding of stack if a signal is received while in a call dummy is %s.\n",
		  q->unwind_on_signal ? "on" : "off");
	return 0;
}

int cmd_show(struct qz *q, const char *a)
{
	return qz_error(q, "Undefined show command: \"%s\".  Try \"help show\".", a);
}

int cmd_show_args(struct qz *q, const char *a)
{
	(void)a;
	struct sbuf b = {0};
	for (size_t i = 0; i < q->nargs; i++)
		sbuf_printf(&b, "%s%s", i ? " " : "", q->args[i]);
	qz_printf(q, "Argument list to give program being debugged when it is started is \"%s\".\n",
		  b.s ? b.s : "");
	sbuf_free(&b);
	return 0;
}

int cmd_echo(struct qz *q, const char *a)
{
	struct sbuf b = {0};
	for (; *a; a++) {
		if (*a == '\\' && a[1]) {
			a++;
			sbuf_addc(&b, *a == 'n' ? '\n' : *a == 't' ? '\t' : *a);
		} else {
			sbuf_addc(&b, *a);
		}
	}
	if (b.s)
		qz_puts(q, b.s);
	sbuf_free(&b);
	return 0;
}

/* Settings that matter to gdb's pager and terminal only: accepted so that
 * gdb scripts run unchanged. */
int cmd_set_ignored(struct qz *q, const char *a)
{
	(void)q;
	(void)a;
	return 0;
}
