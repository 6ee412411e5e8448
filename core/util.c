/* util: allocation wrappers, string buffer and string helpers. */
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void oom(size_t n)
{
	fprintf(stderr, "qzdb: out of memory (%zu bytes)\n", n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom(n * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	struct sbuf b = {0};
	va_list ap;
	va_start(ap, fmt);
	sbuf_vprintf(&b, fmt, ap);
	va_end(ap);
	return sbuf_take(&b);
}

void xgrow(void **arr, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return;
	size_t n = *cap ? *cap * 2 : 8;
	while (n < need)
		n *= 2;
	*arr = xrealloc(*arr, n * elem);
	*cap = n;
}

static void sbuf_reserve(struct sbuf *b, size_t extra)
{
	size_t need = b->len + extra + 1;
	if (need <= b->cap)
		return;
	size_t n = b->cap ? b->cap * 2 : 64;
	while (n < need)
		n *= 2;
	b->s = xrealloc(b->s, n);
	b->cap = n;
}

void sbuf_addn(struct sbuf *b, const char *s, size_t n)
{
	sbuf_reserve(b, n);
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = 0;
}

void sbuf_add(struct sbuf *b, const char *s)
{
	sbuf_addn(b, s, strlen(s));
}

void sbuf_addc(struct sbuf *b, char c)
{
	sbuf_addn(b, &c, 1);
}

void sbuf_vprintf(struct sbuf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return;
	sbuf_reserve(b, (size_t)n);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void sbuf_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sbuf_vprintf(b, fmt, ap);
	va_end(ap);
}

void sbuf_reset(struct sbuf *b)
{
	b->len = 0;
	if (b->s)
		b->s[0] = 0;
}

void sbuf_free(struct sbuf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

char *sbuf_take(struct sbuf *b)
{
	char *s = b->s ? b->s : xstrdup("");
	b->s = NULL;
	b->len = b->cap = 0;
	return s;
}

const char *str_skip_space(const char *s)
{
	while (*s && isspace((unsigned char)*s))
		s++;
	return s;
}

char *str_trim(const char *s)
{
	s = str_skip_space(s);
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return xstrndup(s, n);
}

bool str_starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

const char *str_basename(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

bool str_to_u64(const char *s, uint64_t *out)
{
	char *end;
	if (!*s || *s == '-')
		return false;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

bool str_to_i64(const char *s, int64_t *out)
{
	char *end;
	if (!*s)
		return false;
	errno = 0;
	long long v = strtoll(s, &end, 0);
	if (errno || *end) {
		uint64_t u;
		if (str_to_u64(s, &u)) {	/* 0xffffffffffffffff */
			*out = (int64_t)u;
			return true;
		}
		return false;
	}
	*out = v;
	return true;
}
