/* cmd-sandbox: the session's side of the sandbox: `set sandbox on|off`,
 * `show sandbox`, and the launch's preparation (denials go to the
 * transcript), and the replay's sandbox, forced on. */
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "proc/sandbox.h"
#include "target/session.h"

static void sandbox_report_line(void *ctx, const char *line)
{
	qz_printf(ctx, "%s\n", line);
}

int sandbox_session_prepare(struct qz *q, char *err, size_t errlen)
{
	struct sandbox *sb = &q->sandbox;
	sb->tty_path = q->tty_path;
	sb->report = sandbox_report_line;
	sb->ctx = q;
	return sandbox_prepare(sb, err, errlen);
}

int sandbox_session_force(struct qz *q, char *err, size_t errlen)
{
	struct sandbox *sb = &q->sandbox;
	if (sandbox_supported(err, errlen) < 0 || sandbox_scratch(sb, err, errlen) < 0)
		return -1;
	sb->on = sb->forced = true;
	return 0;
}

int cmd_set_sandbox(struct qz *q, const char *a)
{
	struct sandbox *sb = &q->sandbox;
	char err[512];
	bool on = !*a || !strcmp(a, "on") || !strcmp(a, "1");
	if (!on && strcmp(a, "off") && strcmp(a, "0"))
		return qz_error(q, "\"on\" or \"off\" expected.");
	if (!on && sb->forced)
		return qz_error(q, "The sandbox stays on in a replayed session "
				"(qzdb --replay --unsandboxed turns it off, for files you trust).");
	if (on && (sandbox_supported(err, sizeof err) < 0 ||
		   sandbox_scratch(sb, err, sizeof err) < 0))
		return qz_error(q, "Cannot sandbox the program: %s.", err);
	sb->on = on;
	if (q->proc)
		qz_printf(q, "The sandbox applies from the next run.\n");
	return 0;
}

int cmd_show_sandbox(struct qz *q, const char *a)
{
	(void)a;
	const struct sandbox *sb = &q->sandbox;
	if (!sb->on) {
		qz_printf(q, "The sandbox is off: the program may write anywhere you may.\n");
		return 0;
	}
	qz_printf(q, "The sandbox is on: the program writes only under %s; no exec, "
		  "ptrace or signals to other processes; network %s.\n", sb->scratch,
		  sb->allow_network ? "allowed" : "denied");
	return 0;
}
