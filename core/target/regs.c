/* regs: x87/SSE/AVX/AVX-512 state through PTRACE_GETREGSET NT_X86_XSTATE
 * (standard XSAVE layout, component offsets from CPUID leaf 0xD). */
#include "regs.h"

#include <cpuid.h>
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>

#include "proc/platform.h"
#include "session.h"
#include "util/util.h"
#include "value/value.h"

enum { XS_YMM = 2, XS_OPMASK = 5, XS_ZMM_HI = 6, XS_HI16 = 7, XS_PKRU = 9 };

struct regs_xs {
	uint8_t *buf;
	size_t len;
	uint64_t bv;                 /* XSTATE_BV: components not in init state */
};

uint8_t *regs_xstate_read(pid_t tid, size_t *len)
{
	/* the probe's size covers every component the CPU supports (AMX's
	 * 8 KiB tiles too); 4096 is more than the legacy area and AVX need */
	size_t cap = platform_get()->xsave_size;
	if (cap < 4096)
		cap = 4096;
	uint8_t *buf = xcalloc(1, cap);
	struct iovec iov = {buf, cap};
	if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_X86_XSTATE, &iov) < 0) {
		free(buf);
		*len = 0;
		return NULL;
	}
	*len = iov.iov_len;
	return buf;
}

int regs_xstate_write(pid_t tid, uint8_t *buf, size_t len)
{
	struct iovec iov = {buf, len};
	return ptrace(PTRACE_SETREGSET, tid, (void *)NT_X86_XSTATE, &iov) < 0 ? -1 : 0;
}

static bool regs_read(struct qz *q, struct regs_xs *xs)
{
	free(xs->buf);
	xs->buf = qz_running(q) ? regs_xstate_read(proc_pid(q->proc), &xs->len) : NULL;
	if (!xs->buf)
		return false;
	memcpy(&xs->bv, xs->buf + 512, 8);
	return true;
}

/* Where component c lives in the XSAVE area, or NULL if absent. */
static const uint8_t *regs_comp(const struct regs_xs *xs, int c, size_t need)
{
	static const uint8_t zero[1024];   /* the largest component read */
	unsigned a, b, cx, d;
	if (need > 1024 || !__get_cpuid_count(0xd, (unsigned)c, &a, &b, &cx, &d) || !a ||
	    b + need > xs->len)
		return NULL;
	return (xs->bv >> c) & 1 ? xs->buf + b : zero;   /* init state is zero */
}

static void regs_name(struct sbuf *out, const char *name)
{
	sbuf_printf(out, "%-15s", name);
}

static void regs_hexcol(struct sbuf *out, uint64_t v)
{
	char hex[24];
	snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)v);
	sbuf_printf(out, "%-19s ", hex);
}

/* A lane array: {0x1, 0x0 <repeats 15 times>} as gdb groups runs. */
static void regs_lanes(struct sbuf *out, const uint8_t *p, int n, int size)
{
	sbuf_addc(out, '{');
	for (int i = 0; i < n;) {
		uint64_t v = 0;
		memcpy(&v, p + (size_t)i * size, (size_t)(size > 8 ? 8 : size));
		int run = 1;
		while (i + run < n && !memcmp(p + (size_t)i * size, p + (size_t)(i + run) * size, (size_t)size))
			run++;
		if (i)
			sbuf_add(out, ", ");
		if (size == 16) {
			uint64_t lo, hi;
			memcpy(&lo, p + (size_t)i * 16, 8);
			memcpy(&hi, p + (size_t)i * 16 + 8, 8);
			if (hi)
				sbuf_printf(out, "0x%llx%016llx", (unsigned long long)hi, (unsigned long long)lo);
			else
				sbuf_printf(out, "0x%llx", (unsigned long long)lo);
		} else {
			sbuf_printf(out, "0x%llx", (unsigned long long)v);
		}
		if (run > 10) {
			sbuf_printf(out, " <repeats %d times>", run);
			i += run;
		} else {
			i++;
		}
	}
	sbuf_addc(out, '}');
}

/* gdb's union view of an n-byte vector register. */
static void regs_vector(struct sbuf *out, const uint8_t *p, int n)
{
	static const char *const kinds[] = {"bfloat16", "half", "float", "double",
					    "int8", "int16", "int32", "int64"};
	static const int sizes[] = {2, 2, 4, 8, 1, 2, 4, 8};
	sbuf_addc(out, '{');
	for (int k = 0; k < 8; k++) {
		sbuf_printf(out, "%sv%d_%s = ", k ? ", " : "", n / sizes[k], kinds[k]);
		regs_lanes(out, p, n / sizes[k], sizes[k]);
	}
	if (n == 16) {
		uint64_t lo, hi;
		memcpy(&lo, p, 8);
		memcpy(&hi, p + 8, 8);
		if (hi)
			sbuf_printf(out, ", uint128 = 0x%llx%016llx}", (unsigned long long)hi,
				    (unsigned long long)lo);
		else
			sbuf_printf(out, ", uint128 = 0x%llx}", (unsigned long long)lo);
		return;
	}
	sbuf_printf(out, ", v%d_int128 = ", n / 16);
	regs_lanes(out, p, n / 16, 16);
	sbuf_addc(out, '}');
}

static void regs_flags(struct sbuf *out, uint32_t v, const char *const *names, int n)
{
	sbuf_add(out, "[ ");
	for (int i = 0; i < n; i++)
		if (names[i] && (v >> i) & 1)
			sbuf_printf(out, "%s ", names[i]);
	sbuf_add(out, "]");
}

static void regs_st(struct qz *q, struct sbuf *out, const uint8_t *p)
{
	struct val v = val_from_bytes(val_builtin("long double"), p, 16);
	struct val_print vp = {.max_elements = q->print_elements};
	struct sbuf s = {0};
	val_print(&s, &v, &vp);
	val_free(&v);
	sbuf_printf(out, "%-19s (raw 0x", s.s ? s.s : "?");
	for (int i = 9; i >= 0; i--)
		sbuf_printf(out, "%02x", p[i]);
	sbuf_add(out, ")");
	sbuf_free(&s);
}

/* The full 16-bit x87 tag word from FXSAVE's abridged one. */
static uint16_t regs_ftag(const uint8_t *fx)
{
	uint16_t tag = 0;
	uint16_t top = (uint16_t)((fx[2] | fx[3] << 8) >> 11 & 7);
	for (int i = 0; i < 8; i++) {
		int phys = i, st = (phys - top) & 7;
		const uint8_t *r = fx + 32 + st * 16;
		int t = 3;
		if (fx[4] >> phys & 1) {
			uint16_t exp = (uint16_t)((r[8] | r[9] << 8) & 0x7fff);
			bool zero = true;
			for (int j = 0; j < 8; j++)
				zero &= r[j] == 0;
			t = exp == 0x7fff ? 2 : exp == 0 ? (zero ? 1 : 2) : 0;
		}
		tag |= (uint16_t)(t << (2 * phys));
	}
	return tag;
}

static uint32_t regs_u32(const uint8_t *p, size_t n)
{
	uint32_t v = 0;
	memcpy(&v, p, n);
	return v;
}

static bool regs_x87_row(struct qz *q, const char *name, const uint8_t *fx, struct sbuf *out)
{
	static const char *const ctl[] = {"fctrl", "fstat", "ftag", "fiseg", "fioff",
					  "foseg", "fooff", "fop"};
	int st;
	if (sscanf(name, "st%d", &st) == 1 && st >= 0 && st < 8) {
		regs_name(out, name);
		regs_st(q, out, fx + 32 + st * 16);
		return true;
	}
	uint64_t v[8] = {
		regs_u32(fx, 2), regs_u32(fx + 2, 2), regs_ftag(fx), 0,
		regs_u32(fx + 8, 4), 0, regs_u32(fx + 16, 4), regs_u32(fx + 6, 2),
	};
	for (int i = 0; i < 8; i++) {
		if (strcmp(name, ctl[i]))
			continue;
		regs_name(out, name);
		regs_hexcol(out, v[i]);
		sbuf_printf(out, "%llu", (unsigned long long)v[i]);
		return true;
	}
	return false;
}

static bool regs_mxcsr_row(const char *name, const uint8_t *fx, struct sbuf *out)
{
	static const char *const bits[] = {"IE", "DE", "ZE", "OE", "UE", "PE", "DAZ", "IM",
					   "DM", "ZM", "OM", "UM", "PM", NULL, NULL, "FZ"};
	if (strcmp(name, "mxcsr"))
		return false;
	uint32_t v = regs_u32(fx + 24, 4);
	regs_name(out, name);
	regs_hexcol(out, v);
	regs_flags(out, v, bits, 16);
	return true;
}

/* xmmN, ymmN, zmmN assembled from their XSAVE pieces. */
static bool regs_vec_row(const struct regs_xs *xs, const char *name, struct sbuf *out)
{
	char kind;
	int n;
	uint8_t v[64] = {0};
	if (sscanf(name, "%cmm%d", &kind, &n) != 2 || n < 0 || n > 31)
		return false;
	int width = kind == 'x' ? 16 : kind == 'y' ? 32 : kind == 'z' ? 64 : 0;
	if (!width || (width < 64 && n > 15))
		return false;
	const uint8_t *ymm = regs_comp(xs, XS_YMM, 256), *zhi = regs_comp(xs, XS_ZMM_HI, 512);
	const uint8_t *hi16 = regs_comp(xs, XS_HI16, 1024);
	if ((width >= 32 && !ymm) || (width == 64 && (!zhi || !hi16)))
		return false;
	if (n < 16) {
		memcpy(v, xs->buf + 160 + n * 16, 16);
		if (width >= 32)
			memcpy(v + 16, ymm + n * 16, 16);
		if (width == 64)
			memcpy(v + 32, zhi + n * 32, 32);
	} else {
		memcpy(v, hi16 + (n - 16) * 64, 64);
	}
	regs_name(out, name);
	regs_vector(out, v, width);
	return true;
}

static bool regs_other_row(const struct regs_xs *xs, const char *name, struct sbuf *out)
{
	int k;
	uint64_t v = 0;
	if (sscanf(name, "k%d", &k) == 1 && k >= 0 && k < 8) {
		const uint8_t *p = regs_comp(xs, XS_OPMASK, 64);
		if (!p)
			return false;
		memcpy(&v, p + k * 8, 8);
	} else if (!strcmp(name, "pkru")) {
		const uint8_t *p = regs_comp(xs, XS_PKRU, 8);
		if (!p)
			return false;
		memcpy(&v, p, 4);
	} else {
		return false;
	}
	regs_name(out, name);
	regs_hexcol(out, v);
	sbuf_printf(out, "%llu", (unsigned long long)v);
	return true;
}

bool regs_row(struct qz *q, const char *name, struct sbuf *out)
{
	static struct regs_xs xs;
	if (!regs_read(q, &xs))
		return false;
	bool ok = regs_x87_row(q, name, xs.buf, out) || regs_mxcsr_row(name, xs.buf, out) ||
		  regs_vec_row(&xs, name, out) || regs_other_row(&xs, name, out);
	if (ok)
		sbuf_addc(out, '\n');
	return ok;
}

void regs_all(struct qz *q, struct sbuf *out)
{
	static const char *const names[] = {
		"st0", "st1", "st2", "st3", "st4", "st5", "st6", "st7", "fctrl", "fstat",
		"ftag", "fiseg", "fioff", "foseg", "fooff", "fop", "mxcsr",
	};
	for (size_t i = 0; i < ARRAY_LEN(names); i++)
		regs_row(q, names[i], out);
	char name[16];
	for (int k = 0; k < 8; k++) {
		snprintf(name, sizeof name, "k%d", k);
		regs_row(q, name, out);
	}
	regs_row(q, "pkru", out);
	const char *kinds[] = {"xmm", "ymm", "zmm"};
	for (int w = 0; w < 3; w++) {
		for (int n = 0; n < (w == 2 ? 32 : 16); n++) {
			snprintf(name, sizeof name, "%s%d", kinds[w], n);
			if (!regs_row(q, name, out))
				break;
		}
	}
}
