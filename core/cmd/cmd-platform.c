/* cmd-platform: `info platform` and the maintenance switches that force a
 * capability's fallback (core/proc/platform.c). */
#include <string.h>

#include "cmd.h"
#include "cmds.h"
#include "proc/platform.h"
#include "target/session.h"
#include "util/util.h"

int cmd_info_platform(struct qz *q, const char *a)
{
	(void)a;
	struct sbuf b = {0};
	platform_describe(&b);
	qz_printf(q, "%s", b.s);
	sbuf_free(&b);
	return 0;
}

/* The capabilities a maint switch can force off. */
static const struct {
	const char *name;
	void (*force)(bool off);
	bool (*forced)(void);
} cmd_plat_switch[] = {
	{"debug-registers", platform_force_dr_off, platform_forced_dr_off},
	{"step-traps", platform_force_step_traps_off, platform_forced_step_traps_off},
};

static int cmd_plat_find(struct qz *q, const char *a, const char **rest)
{
	for (size_t i = 0; i < ARRAY_LEN(cmd_plat_switch); i++) {
		size_t n = strlen(cmd_plat_switch[i].name);
		if (!strncmp(a, cmd_plat_switch[i].name, n) && (!a[n] || a[n] == ' ')) {
			*rest = str_skip_space(a + n);
			return (int)i;
		}
	}
	return qz_error(q, "Undefined maint set command: \"%s\".  Try \"help maint set\".", a);
}

int cmd_maint_set(struct qz *q, const char *a)
{
	const char *rest;
	int i = cmd_plat_find(q, a, &rest);
	bool on;
	if (i < 0 || cmd_onoff(q, rest, &on) < 0)
		return -1;
	cmd_plat_switch[i].force(!on);
	return 0;
}

int cmd_maint_show(struct qz *q, const char *a)
{
	const char *rest;
	int i = cmd_plat_find(q, a, &rest);
	if (i < 0)
		return -1;
	qz_printf(q, "%s: %s\n", cmd_plat_switch[i].name,
		  cmd_plat_switch[i].forced() ? "off (forced)" : "on (as the probe found)");
	return 0;
}

/* A test of qzdb's death at the worst moment (tests/batch/kill.sh): the
 * program stopped at an int3 whose trap qzdb has not answered yet. */
int cmd_maint_crash_at_breakpoint(struct qz *q, const char *a)
{
	if (*str_skip_space(a))
		return qz_error(q, "\"maint crash-at-breakpoint\" takes no argument.");
	q->crash_at_int3 = true;
	qz_printf(q, "qzdb will crash (SIGSEGV) at the next breakpoint trap.\n");
	return 0;
}
