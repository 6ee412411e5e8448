/* cmd-core: core's own module. Its init registers core's parts that
 * watch the program's events through the same contract as the modules. */
#include "cmd.h"
#include "cmds.h"
#include "qzs.h"
#include "target/session.h"
#include "target/infcall.h"
#include "target/solib.h"
#include "target/watch.h"

static void *core_init(struct qz *q)
{
	qzs_init(q);     /* the transcript sees every output */
	watch_init(q);   /* page-protection watchpoints, then debug registers */
	solib_init(q);
	infcall_init(q);   /* dummy frames of calls from the debugger */
	return NULL;
}

const struct qz_mod core_mod = {
	.name = "core",
	.cmds = core_cmds,
	.init = core_init,
};
