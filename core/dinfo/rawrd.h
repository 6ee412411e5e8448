/* rawrd: a bounds-checked reader of raw DWARF section bytes (little
 * endian, LEB128), for the few places that read sections themselves
 * rather than through libdwarf (dwcu.c's header checks, linefno.c). A read
 * past the end sets bad and gives 0. */
#ifndef QZ_RAWRD_H
#define QZ_RAWRD_H

#include <stdbool.h>
#include <stdint.h>

struct rd {
	const uint8_t *p, *end;
	bool bad;
};

static inline uint64_t rd_le(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static inline void rd_skip(struct rd *r, uint64_t n)
{
	if ((uint64_t)(r->end - r->p) < n) {
		r->bad = true;
		r->p = r->end;
	} else {
		r->p += n;
	}
}

static inline uint64_t rd_n(struct rd *r, int n)
{
	const uint8_t *p = r->p;
	rd_skip(r, (uint64_t)n);
	return r->bad ? 0 : rd_le(p, n);
}

/* An unsigned LEB128 (or, to skip it, a signed one). */
static inline uint64_t rd_uleb(struct rd *r)
{
	uint64_t v = 0;
	for (unsigned shift = 0; r->p < r->end; shift += 7) {
		uint8_t c = *r->p++;
		if (shift < 64)
			v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
	}
	r->bad = true;
	return 0;
}

/* A unit's initial length (32- or 64-bit DWARF): the reader is narrowed
 * to the unit, *offsz gets its offset size. False if it does not fit. */
static inline bool rd_unit(struct rd *r, int *offsz)
{
	*offsz = 4;
	uint64_t len = rd_n(r, 4);
	if (len == 0xffffffff) {
		len = rd_n(r, 8);
		*offsz = 8;
	}
	if (r->bad || len > (uint64_t)(r->end - r->p))
		return false;
	r->end = r->p + len;
	return true;
}

#endif
