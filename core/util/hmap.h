/* hmap: the one hash map of qzdb: open addressing with linear probing, from
 * 64-bit keys (DIE offsets, addresses) or from strings (names, paths) to
 * non-NULL pointers. A string map keeps the caller's key pointers and
 * compares contents. Written here rather than taken from a library because
 * the needs are this small (get, put, walk; nothing is ever removed) and a
 * zero-initialised struct hmap is an empty map. One map holds one kind of
 * key: use either the u64 calls or the str calls on it. */
#ifndef QZ_HMAP_H
#define QZ_HMAP_H

#include <stddef.h>
#include <stdint.h>

struct hmap {
	uint64_t *keys;      /* the key, or the string's address */
	void **vals;         /* NULL: a free slot */
	size_t cap, n;       /* cap is 0 or a power of two */
};

void *hmap_get(const struct hmap *m, uint64_t key);
void hmap_put(struct hmap *m, uint64_t key, void *val);
void *hmap_sget(const struct hmap *m, const char *key);
void hmap_sput(struct hmap *m, const char *key, void *val);
/* Slot i's value or NULL, for walking every entry: i in 0..m->cap. */
void *hmap_slot(const struct hmap *m, size_t i);
/* Free the table (not the keys nor the values). */
void hmap_free(struct hmap *m);

uint64_t hmap_hash_u64(uint64_t k);
uint64_t hmap_hash_str(const char *s);

#endif
