/* split: an input cut into units of a granularity (--by bytes, lines or
 * tokens); a configuration of units is put back together in order. */
#ifndef QZ_REDUCE_SPLIT_H
#define QZ_REDUCE_SPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

enum split_by { SPLIT_BYTES, SPLIT_LINES, SPLIT_TOKENS };

struct split_unit { uint32_t off, len; };

/* "bytes", "lines", "tokens" (or a prefix): 0 and *by, or -1. */
int split_parse(const char *s, int *by);
const char *split_name(int by);
/* Cut data[0..len) into units: *n of them (malloc'd). Tokens are runs of
 * letters, digits and _ (or of bytes >= 0x80), runs of white space, and
 * each punctuation character alone. */
struct split_unit *split_units(const char *data, size_t len, int by, size_t *n);
/* The bytes of units ids[0..n) in order. */
void split_join(const char *data, const struct split_unit *u, const uint32_t *ids, size_t n,
		struct sbuf *out);

#endif
