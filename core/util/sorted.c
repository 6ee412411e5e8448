/* sorted: binary search over sorted arrays (see sorted.h). */
#include "sorted.h"

#include <string.h>

static uint64_t sorted_key(const void *base, size_t i, size_t size, size_t off,
			   size_t width)
{
	const char *p = (const char *)base + i * size + off;
	if (width == 4) {
		uint32_t k;
		memcpy(&k, p, sizeof k);
		return k;
	}
	uint64_t k;
	memcpy(&k, p, sizeof k);
	return k;
}

size_t sorted_count_key(const void *base, size_t n, size_t size, size_t off,
			size_t width, uint64_t key, bool upto)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k = sorted_key(base, mid, size, off, width);
		if (k < key || (upto && k == key))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t sorted_count(size_t n, bool (*before)(size_t i, const void *arg),
		    const void *arg)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (before(mid, arg))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
