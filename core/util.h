/* util: allocation wrappers that fail loudly, a growable string buffer and
 * small string helpers shared by every module. */
#ifndef QZ_UTIL_H
#define QZ_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Grow *arr (element size elem) so that it holds at least need elements. */
void xgrow(void **arr, size_t *cap, size_t need, size_t elem);
#define XGROW(arr, cap, need) xgrow((void **)&(arr), &(cap), (need), sizeof(*(arr)))

struct sbuf {
	char *s;      /* always NUL-terminated once anything was added */
	size_t len;
	size_t cap;
};

void sbuf_add(struct sbuf *b, const char *s);
void sbuf_addn(struct sbuf *b, const char *s, size_t n);
void sbuf_addc(struct sbuf *b, char c);
void sbuf_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sbuf_vprintf(struct sbuf *b, const char *fmt, va_list ap);
void sbuf_reset(struct sbuf *b);
void sbuf_free(struct sbuf *b);
/* Hand over the string (never NULL) and reset the buffer. */
char *sbuf_take(struct sbuf *b);

const char *str_skip_space(const char *s);
/* Copy s without leading/trailing white space. */
char *str_trim(const char *s);
bool str_starts(const char *s, const char *prefix);
const char *str_basename(const char *path);
/* Parse an unsigned/signed number in C syntax (0x.., 0.., decimal); the whole
 * string must be consumed. */
bool str_to_u64(const char *s, uint64_t *out);
bool str_to_i64(const char *s, int64_t *out);

#endif
