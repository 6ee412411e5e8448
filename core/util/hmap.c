/* hmap: open-addressing hash map (see hmap.h). */
#include "hmap.h"

#include <assert.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define HMAP_MIN 64

uint64_t hmap_hash_u64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	return k ^ (k >> 33);
}

uint64_t hmap_hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;   /* FNV-1a */
	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static const char *hmap_str(uint64_t key)
{
	return (const char *)(uintptr_t)key;
}

static size_t hmap_find(const struct hmap *m, uint64_t key, bool str)
{
	size_t mask = m->cap - 1;
	size_t i = (str ? hmap_hash_str(hmap_str(key)) : hmap_hash_u64(key)) & mask;
	while (m->vals[i] && (str ? strcmp(hmap_str(m->keys[i]), hmap_str(key)) != 0
				  : m->keys[i] != key))
		i = (i + 1) & mask;
	return i;
}

static void hmap_insert(struct hmap *m, uint64_t key, void *val, bool str);

/* At most half full, so that probes stay short. */
static void hmap_grow(struct hmap *m, bool str)
{
	struct hmap big = { .cap = m->cap ? m->cap * 2 : HMAP_MIN };
	big.keys = xcalloc(big.cap, sizeof(*big.keys));
	big.vals = xcalloc(big.cap, sizeof(*big.vals));
	for (size_t i = 0; i < m->cap; i++)
		if (m->vals[i])
			hmap_insert(&big, m->keys[i], m->vals[i], str);
	hmap_free(m);
	*m = big;
}

static void hmap_insert(struct hmap *m, uint64_t key, void *val, bool str)
{
	assert(val);   /* NULL marks a free slot */
	if ((m->n + 1) * 2 > m->cap)
		hmap_grow(m, str);
	size_t i = hmap_find(m, key, str);
	m->n += !m->vals[i];
	m->keys[i] = key;
	m->vals[i] = val;
}

void *hmap_get(const struct hmap *m, uint64_t key)
{
	return m->cap ? m->vals[hmap_find(m, key, false)] : NULL;
}

void hmap_put(struct hmap *m, uint64_t key, void *val)
{
	hmap_insert(m, key, val, false);
}

void *hmap_sget(const struct hmap *m, const char *key)
{
	return m->cap ? m->vals[hmap_find(m, (uintptr_t)key, true)] : NULL;
}

void hmap_sput(struct hmap *m, const char *key, void *val)
{
	hmap_insert(m, (uintptr_t)key, val, true);
}

void *hmap_slot(const struct hmap *m, size_t i)
{
	return i < m->cap ? m->vals[i] : NULL;
}

void hmap_free(struct hmap *m)
{
	free(m->keys);
	free(m->vals);
	*m = (struct hmap){0};
}
