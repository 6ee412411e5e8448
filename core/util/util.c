/* util: allocation wrappers, string buffer and string helpers. */
#define _GNU_SOURCE
#include "util.h"

#include <ctype.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

void *xmemdup(const void *p, size_t n)
{
	void *d = xmalloc(n);
	if (n)
		memcpy(d, p, n);
	return d;
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

/* Digits of base at s into *out; false on overflow of uint64_t. */
static bool str_digits(const char **s, int base, uint64_t *out, bool *any)
{
	uint64_t v = 0;
	bool ok = true;
	for (const char *p = *s;; p++) {
		int d = isdigit((unsigned char)*p) ? *p - '0' :
			base == 16 && isxdigit((unsigned char)*p) ? tolower((unsigned char)*p) - 'a' + 10 : -1;
		if (d < 0) {
			*s = p;
			break;
		}
		*any = true;
		if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			ok = false;
		v = ok ? v * (uint64_t)base + (uint64_t)d : v;
	}
	*out = v;
	return ok;
}

int str_num(const char **s, int64_t lo, int64_t hi, int64_t *out)
{
	const char *p = *s;
	bool neg = *p == '-', any = false;
	if (*p == '-' || *p == '+')
		p++;
	int base = p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && isxdigit((unsigned char)p[2]) ? 16 : 10;
	p += base == 16 ? 2 : 0;
	uint64_t mag;
	bool fits = str_digits(&p, base, &mag, &any);
	if (!any)
		return STR_NUM_NONE;
	if (!fits || mag > (neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX))
		return STR_NUM_RANGE;
	int64_t v = neg ? (int64_t)(0 - mag) : (int64_t)mag;
	if (v < lo || v > hi)
		return STR_NUM_RANGE;
	*out = v;
	*s = p;
	return STR_NUM_OK;
}

int str_num_all(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
	const char *p = str_skip_space(s);
	int64_t v;
	int r = str_num(&p, lo, hi, &v);
	if (r == STR_NUM_OK && *str_skip_space(p))
		return STR_NUM_NONE;
	if (r == STR_NUM_OK)
		*out = v;
	return r;
}

const char *str_num_error(int r, const char *what, const char *text,
			  int64_t lo, int64_t hi, char *buf, size_t len)
{
	if (r == STR_NUM_RANGE)
		snprintf(buf, len, "%s must be between %lld and %lld, not \"%.40s\".",
			 what, (long long)lo, (long long)hi, text);
	else
		snprintf(buf, len, "%s must be a number, not \"%.40s\".", what, text);
	return buf;
}

/* Length of the valid UTF-8 sequence at s (at most n bytes) and its code
 * point, or 0 if the bytes are not one (overlong forms and surrogates
 * included). */
static size_t str_utf8(const unsigned char *s, size_t n, uint32_t *cp)
{
	static const uint32_t min[] = { 0, 0, 0x80, 0x800, 0x10000 };
	size_t len = s[0] >= 0xf0 && s[0] < 0xf5 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
	if (!len || s[0] >= 0xf5 || len > n)
		return 0;
	uint32_t c = s[0] & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min[len] || c > 0x10ffff || (c >= 0xd800 && c < 0xe000))
		return 0;
	*cp = c;
	return len;
}

/* Code points a terminal acts on: C1 controls and the bidi overrides
 * that reorder what is shown. */
static bool str_unsafe_cp(uint32_t c)
{
	return c < 0xa0 || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

void str_sanitize(struct sbuf *b, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		unsigned char c = u[i];
		if (c < 0x80) {
			if (c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f))
				sbuf_addc(b, (char)c);
			else
				sbuf_printf(b, "^%c", c == 0x7f ? '?' : c + '@');
			i++;
			continue;
		}
		uint32_t cp;
		size_t len = str_utf8(u + i, n - i, &cp);
		if (len && !str_unsafe_cp(cp)) {
			sbuf_addn(b, s + i, len);
			i += len;
			continue;
		}
		for (size_t end = i + (len ? len : 1); i < end; i++)
			sbuf_printf(b, "\\x%02x", u[i]);
	}
}

void str_esc_char(struct sbuf *b, unsigned char ch, char quote)
{
	static const char names[] = "\aa\bb\ff\nn\rr\tt\vv";
	const char *e = ch ? memchr(names, ch, sizeof(names) - 1) : NULL;
	if (e && (e - names) % 2 == 0) {
		sbuf_addc(b, '\\');
		sbuf_addc(b, e[1]);
	} else if (ch >= 0x20 && ch < 0x7f) {
		if (ch == quote || ch == '\\')
			sbuf_addc(b, '\\');
		sbuf_addc(b, (char)ch);
	} else {
		sbuf_printf(b, "\\%03o", ch);
	}
}

int file_temp_near(const char *path, char **tmp)
{
	const char *base = str_basename(path);
	char *t = xasprintf("%.*s.%s.XXXXXX", (int)(base - path), path, base);
	int fd = mkostemp(t, O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		free(t);
		errno = e;
		return -1;
	}
	mode_t mask = umask(0);   /* the mode an ordinary open would give */
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	*tmp = t;
	return fd;
}

int file_pwrite_all(int fd, const char *data, size_t len, long long offset)
{
	while (len) {
		ssize_t n = pwrite(fd, data, len, (off_t)offset);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = ENOSPC;
			return -1;
		}
		data += n;
		len -= (size_t)n;
		offset += n;
	}
	return 0;
}

int file_replace(const char *path, const char *data, size_t len)
{
	char *tmp;
	int fd = file_temp_near(path, &tmp);
	if (fd < 0)
		return -1;
	int r = file_pwrite_all(fd, data, len, 0);
	if (r == 0 && fsync(fd) < 0)
		r = -1;
	int e = errno;
	if (close(fd) < 0 && r == 0) {
		r = -1;
		e = errno;
	}
	if (r == 0 && rename(tmp, path) < 0) {
		r = -1;
		e = errno;
	}
	if (r < 0)
		unlink(tmp);
	free(tmp);
	errno = e;
	return r;
}

char *str_path_norm(const char *p)
{
	struct sbuf b = {0};
	if (p[0] == '/')
		sbuf_addc(&b, '/');
	while (*p) {
		while (*p == '/')
			p++;
		size_t n = strcspn(p, "/");
		if (n && !(n == 1 && p[0] == '.')) {
			if (b.len && b.s[b.len - 1] != '/')
				sbuf_addc(&b, '/');
			sbuf_addn(&b, p, n);
		}
		p += n;
	}
	return sbuf_take(&b);
}

const char *path_beside_exe(const char *rel, char *buf, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	exe[n > 0 ? n : 0] = 0;
	char *slash = strrchr(exe, '/');
	if (slash)
		*slash = 0;
	/* installed (make install): PREFIX/bin/qzdb, its data in
	 * PREFIX/share/qzdb; else the checkout, data beside the executable */
	if ((size_t)snprintf(buf, len, "%s/../share/qzdb/%s", exe, rel) < len &&
	    access(buf, F_OK) == 0)
		return buf;
	if ((size_t)snprintf(buf, len, "%s/%s", exe, rel) >= len)
		buf[0] = 0;
	return buf;
}

void env_list_item(const char *var, const char *item, bool on)
{
	const char *old = getenv(var);
	char *keep = xstrdup(old ? old : ""), *p = strstr(keep, item);
	if (p)   /* take it out, with its separator */
		memmove(p, p + strlen(item), strlen(p + strlen(item)) + 1);
	size_t n = strlen(keep);
	while (n && keep[n - 1] == ':')
		keep[--n] = 0;
	while (keep[0] == ':')
		memmove(keep, keep + 1, n--);
	char *sep = strstr(keep, "::");   /* where it was, in the middle */
	if (sep)
		memmove(sep, sep + 1, strlen(sep + 1) + 1);
	char *v = xasprintf("%s%s%s", keep, *keep && on ? ":" : "", on ? item : "");
	if (*v)
		setenv(var, v, 1);
	else
		unsetenv(var);
	free(v);
	free(keep);
}

size_t vm_read(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec l = { buf, len }, r = { (void *)(uintptr_t)addr, len };
	ssize_t n = process_vm_readv(pid, &l, 1, &r, 1, 0);
	return n > 0 ? (size_t)n : 0;
}
