/* guide: relevant-input guided reduction (not built yet). */
#include "reduce.h"

#include "target/out.h"

int red_guided(struct red *r)
{
	return qz_error(r->q, "reduce: guided reduction is not built yet; use --plain.");
}
