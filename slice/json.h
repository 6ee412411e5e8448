/* json: the little JSON the slice commands print with --json (info slice,
 * deps, explain): strings escaped, nothing else needed. */
#ifndef QZ_SLICE_JSON_H
#define QZ_SLICE_JSON_H

#include <stdbool.h>

struct sbuf;

/* Append s as a JSON string (quoted, escaped). */
void js_str(struct sbuf *b, const char *s);
/* Remove a trailing " --json" (or a lone "--json") word from the
 * arguments in place; true if it was there. */
bool js_flag(char *args);
/* Text as {"lines": ["...", ...]}, one string a line. */
void js_lines(struct sbuf *b, const char *key, const char *text);

#endif
