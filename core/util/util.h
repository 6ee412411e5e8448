/* util: allocation wrappers that fail loudly, a growable string buffer and
 * small string helpers shared by every module. */
#ifndef QZ_UTIL_H
#define QZ_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* A copy of the n bytes at p (NULL when n is 0: memcpy may not be given
 * NULL even then); never NULL. */
void *xmemdup(const void *p, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The path of rel beside qzdb's own executable ("themes",
 * "detect/specs"): data installed with it, found wherever it was built or
 * copied; for an installed qzdb (PREFIX/bin), PREFIX/share/qzdb/rel when
 * that exists. Into buf (len bytes); "" if it does not fit. */
const char *path_beside_exe(const char *rel, char *buf, size_t len);

/* Put item into the ':'-separated list in environment variable var, or
 * take it out (with its separator; the variable goes when it is empty);
 * what else the list holds stays (GLIBC_TUNABLES, LD_PRELOAD of the
 * programs qzdb starts). */
void env_list_item(const char *var, const char *item, bool on);

/* Grow *arr (element size elem) so that it holds at least need elements. */
void xgrow(void **arr, size_t *cap, size_t need, size_t elem);
#define XGROW(arr, cap, need) xgrow((void **)&(arr), &(cap), (need), sizeof(*(arr)))

/* Free the n pointers an array holds, then the array. */
#define FREE_ALL(arr, n)                                        \
	do {                                                    \
		for (size_t free_all_i_ = 0; free_all_i_ < (n); free_all_i_++) \
			free((void *)(arr)[free_all_i_]);       \
		free((void *)(arr));                            \
	} while (0)

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
/* path without "." components and doubled slashes (not resolving ".."),
 * so that DWARF's file names compare equal as strings; malloc'd. */
char *str_path_norm(const char *p);
bool str_starts(const char *s, const char *prefix);
const char *str_basename(const char *path);
/* Parse an unsigned/signed number in C syntax (0x.., 0.., decimal); the whole
 * string must be consumed. */
bool str_to_u64(const char *s, uint64_t *out);
bool str_to_i64(const char *s, int64_t *out);

/* The one checked parser for a numeric argument: an optionally signed
 * decimal (or 0x hex) integer at *s, within [lo, hi]. On success *s moves
 * past it and 0 is returned; otherwise *s is unchanged and the result says
 * why: STR_NUM_NONE (no digits) or STR_NUM_RANGE (outside [lo, hi],
 * overflow included). str_num_error words the failure for the user. */
enum { STR_NUM_OK = 0, STR_NUM_NONE = -1, STR_NUM_RANGE = -2 };
int str_num(const char **s, int64_t lo, int64_t hi, int64_t *out);
/* The same for a whole string (surrounding spaces allowed). */
int str_num_all(const char *s, int64_t lo, int64_t hi, int64_t *out);
/* "Number expected, not \"abc\"." or "N must be between LO and HI." */
const char *str_num_error(int r, const char *what, const char *text,
			  int64_t lo, int64_t hi, char *buf, size_t len);

/* Terminal safety: the one place bytes from a file or the program are
 * made safe to print. Appends s (n bytes) to b with every byte a terminal
 * would act on shown visibly: C0 controls and DEL as ^X (^[ for ESC; newline
 * and tab kept), C1 controls, bidi overrides and invalid UTF-8 as \xNN. */
void str_sanitize(struct sbuf *b, const char *s, size_t n);
/* One character of a C string or char literal as gdb prints it: \n and
 * friends, \033 for other non-printing bytes, quote and backslash escaped. */
void str_esc_char(struct sbuf *b, unsigned char ch, char quote);

/* Safe writes. A temporary file next to path ("DIR/.NAME.XXXXXX",
 * O_CLOEXEC, created exclusively so no link is followed); its name in
 * *tmp. -1 with errno set. */
int file_temp_near(const char *path, char **tmp);
/* Write all of data at offset (EINTR and short writes handled); -1 with
 * errno set (ENOSPC, EFBIG with SIGXFSZ ignored). */
int file_pwrite_all(int fd, const char *data, size_t len, long long offset);
/* Replace the file at path with data atomically: a temporary file in the
 * same directory, written, fsynced and renamed over path (a symbolic link
 * at path is replaced, never followed). On error nothing changed at path;
 * -1 with errno set. */
int file_replace(const char *path, const char *data, size_t len);

/* Up to len bytes of process pid's memory at addr into buf (getpid() for
 * our own), by process_vm_readv: an address not mapped there ends the
 * read, it never faults. How many bytes were read (0 on error). */
size_t vm_read(pid_t pid, uint64_t addr, void *buf, size_t len);

#endif
