/* chain: the last value propagation chain's links, read-only, for a front
 * end that marks them in the source (the UI's source pane). */
#ifndef DETECT_CHAIN_H
#define DETECT_CHAIN_H

#include <stdbool.h>
#include <stddef.h>

struct qz;

/* How many links the last chain has (0: none). */
size_t detect_chain_len(struct qz *q);
/* Link i's statement (0-based): false when it has no line (before the
 * recording began). */
bool detect_chain_place(struct qz *q, size_t i, const char **file, int *line);

#endif
