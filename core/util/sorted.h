/* sorted: binary search over sorted arrays, written once. Most of qzdb's
 * tables (line rows, symbols, ranges, checkpoint pages, trace segments) are
 * arrays of structs sorted by an unsigned integer field (64 or 32 bits):
 * SORTED_BELOW and
 * SORTED_UPTO count the elements whose field is < key or <= key, which is
 * the index of the first element not before key, or one past the last at
 * or before it. sorted_count is the same over any monotone predicate. */
#ifndef QZ_SORTED_H
#define QZ_SORTED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The elements of base[0..n) (each size bytes, its key an unsigned integer
 * of width bytes, 8 or 4, at byte offset off) whose key is < key (or <= key
 * when upto). */
size_t sorted_count_key(const void *base, size_t n, size_t size, size_t off,
			size_t width, uint64_t key, bool upto);

/* The length of the prefix of 0..n for which before(i, arg) holds: before
 * must be true up to some index and false from there on. */
size_t sorted_count(size_t n, bool (*before)(size_t i, const void *arg),
		    const void *arg);

#define SORTED_KEY_CHECK(arr, field) \
	_Static_assert((sizeof((arr)->field) == 8 || sizeof((arr)->field) == 4) && \
		       (__typeof__((arr)->field))-1 > 0, \
		       "sorted: the key must be an unsigned 64- or 32-bit field")
#define SORTED_COUNT(arr, n, field, key, upto) __extension__({ \
	SORTED_KEY_CHECK(arr, field); \
	sorted_count_key((arr), (n), sizeof(*(arr)), \
			 offsetof(__typeof__(*(arr)), field), \
			 sizeof((arr)->field), (key), (upto)); })
/* how many elements have field < key: the first one not before key */
#define SORTED_BELOW(arr, n, field, key) SORTED_COUNT(arr, n, field, key, false)
/* how many elements have field <= key: one past the last at or before key */
#define SORTED_UPTO(arr, n, field, key) SORTED_COUNT(arr, n, field, key, true)

#endif
