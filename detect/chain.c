/* chain: read access to the last chain's links (see chain.h). */
#include "chain.h"

#include "detect-int.h"

size_t detect_chain_len(struct qz *q)
{
	const struct detect_state *st = det_state(q);
	return st ? st->nlinks : 0;
}

bool detect_chain_place(struct qz *q, size_t i, const char **file, int *line)
{
	const struct detect_state *st = det_state(q);
	if (!st || i >= st->nlinks || !st->links[i].file)
		return false;
	*file = st->links[i].file;
	*line = st->links[i].line;
	return true;
}
