/* cmd-watch: the watchpoint commands (watch [-l|-location] EXPR, rwatch
 * EXPR, awatch EXPR) and set/show can-use-hw-watchpoints. Watchpoints
 * themselves are target/watch.c's. */
#include "cmds.h"
#include "target/bp.h"
#include "target/session.h"
#include "target/watch.h"
#include "util/util.h"

int cmd_watch(struct qz *q, const char *args)
{
	return watch_create(q, args, BP_KIND_WATCH);
}

int cmd_rwatch(struct qz *q, const char *args)
{
	return watch_create(q, args, BP_KIND_RWATCH);
}

int cmd_awatch(struct qz *q, const char *args)
{
	return watch_create(q, args, BP_KIND_AWATCH);
}

int cmd_set_can_use_hw_watchpoints(struct qz *q, const char *args)
{
	int64_t n;
	if (!str_to_i64(args, &n))
		return qz_error(q, "integer %s out of range", args);
	watch_set_hw_allowed(q, n != 0);
	return 0;
}

int cmd_show_can_use_hw_watchpoints(struct qz *q, const char *args)
{
	(void)args;
	qz_printf(q, "Debugger's willingness to use watchpoint hardware is %d.\n",
		  watch_hw_allowed(q) ? 1 : 0);
	return 0;
}
