/* split: units of an input (see split.h). */
#include "split.h"

#include <ctype.h>
#include <string.h>

int split_parse(const char *s, int *by)
{
	static const char *const names[] = { "bytes", "lines", "tokens" };
	for (int i = 0; i < 3; i++)
		if (*s && strncmp(names[i], s, strlen(s)) == 0) {
			*by = i;
			return 0;
		}
	return -1;
}

const char *split_name(int by)
{
	return by == SPLIT_LINES ? "lines" : by == SPLIT_TOKENS ? "tokens" : "bytes";
}

/* 0 white space, 1 word, 2 punctuation */
static int split_class(unsigned char c)
{
	if (isspace(c))
		return 0;
	return isalnum(c) || c == '_' || c >= 0x80 ? 1 : 2;
}

static size_t split_end(const char *d, size_t len, size_t i, int by)
{
	if (by == SPLIT_BYTES)
		return i + 1;
	if (by == SPLIT_LINES) {
		const char *nl = memchr(d + i, '\n', len - i);
		return nl ? (size_t)(nl - d) + 1 : len;
	}
	int c = split_class((unsigned char)d[i]);
	if (c == 2)
		return i + 1;
	size_t j = i + 1;
	while (j < len && split_class((unsigned char)d[j]) == c)
		j++;
	return j;
}

struct split_unit *split_units(const char *data, size_t len, int by, size_t *n)
{
	struct split_unit *u = NULL;
	size_t cap = 0, k = 0;
	for (size_t i = 0; i < len;) {
		size_t e = split_end(data, len, i, by);
		XGROW(u, cap, k + 1);
		u[k++] = (struct split_unit){ (uint32_t)i, (uint32_t)(e - i) };
		i = e;
	}
	*n = k;
	return u;
}

void split_join(const char *data, const struct split_unit *u, const uint32_t *ids, size_t n,
		struct sbuf *out)
{
	sbuf_reset(out);
	for (size_t i = 0; i < n; i++)
		sbuf_addn(out, data + u[ids[i]].off, u[ids[i]].len);
}
