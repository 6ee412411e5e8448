/* unit: what every unit test shares: one PASS/FAIL line per check (the
 * runner counts them) and the output of a shell command used as an oracle
 * (gdb, nm, objdump, readelf). Header-only: each test is one .c file. */
#ifndef QZ_UNIT_H
#define QZ_UNIT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "util/util.h"

static inline void unit_vcheck(bool ok, const char *name, const char *fmt, va_list ap)
{
	if (ok) {
		printf("PASS %s\n", name);
		return;
	}
	printf("FAIL %s: ", name);
	vprintf(fmt, ap);
	printf("\n");
}

/* unit_check(ok, name, fmt, ...): a PASS line, or a FAIL line saying why. */
static inline void unit_check(bool ok, const char *name, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	unit_vcheck(ok, name, fmt, ap);
	va_end(ap);
}

/* The next number of a xorshift sequence (state: not 0): inputs that
 * differ each call and are the same each run. */
static inline uint64_t unit_rnd(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/* Everything a shell command prints on stdout. */
static inline char *unit_run(const char *fmt, ...)
{
	va_list ap;
	struct sbuf cmd = {0}, out = {0};
	va_start(ap, fmt);
	sbuf_vprintf(&cmd, fmt, ap);
	va_end(ap);
	FILE *f = popen(cmd.s, "r");
	char buf[4096];
	size_t n;
	while (f && (n = fread(buf, 1, sizeof(buf), f)) > 0)
		sbuf_addn(&out, buf, n);
	if (f)
		pclose(f);
	sbuf_free(&cmd);
	return sbuf_take(&out);
}

#endif
