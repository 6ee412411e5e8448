/* modules: the one list of qzdb's modules. A module is a const struct
 * qz_mod (core/target/mod.h); a new capability is a new folder and one
 * line here. The order is the order their hooks are called in. */
#include "modules.h"

#include "alter/alter.h"
#include "ckpt/ckpt.h"
#include "cmd/cmd.h"
#include "detect/detect.h"
#include "reduce/reduce.h"
#include "slice/slice.h"
#include "target/session.h"

static const struct qz_mod *const modules[] = {
	&core_mod,    /* core's own parts first: watchpoints, shared libraries */
	&alter_mod,
	&ckpt_mod,
	&slice_mod,
	&detect_mod,
	&reduce_mod,
};

int modules_init(struct qz *q)
{
	for (size_t i = 0; i < ARRAY_LEN(modules); i++)
		mod_add(q, modules[i]);
	return 0;
}
