/* test_sorted: the shared hash map (core/util/hmap.c) and binary search
 * (core/util/sorted.c) checked against plain linear scans on random data,
 * with duplicates, empty tables and growth past many rehashes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "util/hmap.h"
#include "util/sorted.h"

struct row {
	int pad;
	uint64_t addr;
	char tag;
	uint32_t at;      /* a 32-bit key, as the trace's segments have */
};

static int cmp_row(const void *a, const void *b)
{
	uint64_t x = ((const struct row *)a)->addr, y = ((const struct row *)b)->addr;
	return x < y ? -1 : x > y;
}

static bool even_before(size_t i, const void *arg)
{
	return i < *(const size_t *)arg;
}

static void test_sorted(void)
{
	srand(7);
	int bad = 0, tried = 0;
	for (size_t n = 0; n < 60; n++) {
		struct row *r = calloc(n + 1, sizeof *r);
		for (size_t i = 0; i < n; i++)
			r[i].addr = (uint64_t)(rand() % 40) * 3;   /* duplicates */
		qsort(r, n, sizeof *r, cmp_row);
		for (size_t i = 0; i < n; i++)
			r[i].at = (uint32_t)r[i].addr;
		for (uint64_t key = 0; key < 130; key++) {
			size_t below = 0, upto = 0;
			for (size_t i = 0; i < n; i++) {
				below += r[i].addr < key;
				upto += r[i].addr <= key;
			}
			tried++;
			bad += SORTED_BELOW(r, n, addr, key) != below ||
			       SORTED_UPTO(r, n, addr, key) != upto ||
			       SORTED_BELOW(r, n, at, key) != below ||
			       SORTED_UPTO(r, n, at, key) != upto;
		}
		free(r);
	}
	unit_check(bad == 0, "sorted: SORTED_BELOW/UPTO on 64- and 32-bit keys equal a linear count", "%d of %d wrong", bad, tried);
	uint64_t big[3] = {1, UINT64_MAX - 1, UINT64_MAX};
	unit_check(sorted_count_key(big, 3, 8, 0, 8, UINT64_MAX, true) == 3 &&
	      sorted_count_key(big, 3, 8, 0, 8, UINT64_MAX, false) == 2 &&
	      sorted_count_key(big, 3, 8, 0, 8, 0, false) == 0,
	      "sorted: keys at the ends of the 64-bit range", "");
	bad = 0;
	for (size_t n = 0; n < 20; n++)
		for (size_t cut = 0; cut <= n; cut++)
			bad += sorted_count(n, even_before, &cut) != cut;
	unit_check(bad == 0, "sorted: sorted_count finds the end of a predicate's prefix", "%d wrong", bad);
}

static void test_hmap_u64(void)
{
	struct hmap m = {0};
	unit_check(hmap_get(&m, 5) == NULL && hmap_slot(&m, 0) == NULL, "hmap: an empty map finds nothing", "");
	enum { N = 20000 };
	static int vals[N];
	for (int i = 0; i < N; i++)
		hmap_put(&m, (uint64_t)i * 0x10000 + 0x400000, &vals[i]);
	hmap_put(&m, 0, &vals[0]);             /* key 0 is a key like any other */
	hmap_put(&m, 0x400000, &vals[1]);      /* replaces */
	int bad = 0;
	for (int i = 1; i < N; i++)
		bad += hmap_get(&m, (uint64_t)i * 0x10000 + 0x400000) != &vals[i];
	bad += hmap_get(&m, 0x400000) != &vals[1] || hmap_get(&m, 0) != &vals[0];
	bad += hmap_get(&m, 0x400001) != NULL || hmap_get(&m, UINT64_MAX) != NULL;
	size_t walked = 0;
	for (size_t i = 0; i < m.cap; i++)
		walked += hmap_slot(&m, i) != NULL;
	unit_check(bad == 0 && m.n == N + 1 && walked == N + 1, "hmap: 20001 u64 keys through many rehashes",
	      "%d wrong, n=%zu walked=%zu", bad, m.n, walked);
	hmap_free(&m);
	unit_check(m.cap == 0 && hmap_get(&m, 0) == NULL, "hmap: freed map is empty again", "");
}

static void test_hmap_str(void)
{
	struct hmap m = {0};
	char a[] = "main.c", b[] = "main.c", c[] = "util/main.c";
	int x, y;
	hmap_sput(&m, a, &x);
	unit_check(hmap_sget(&m, b) == &x, "hmap: string keys compare by contents", "");
	hmap_sput(&m, b, &y);
	unit_check(hmap_sget(&m, a) == &y && m.n == 1, "hmap: an equal string replaces the value", "n=%zu", m.n);
	unit_check(hmap_sget(&m, c) == NULL && hmap_sget(&m, "") == NULL, "hmap: other strings are absent", "");
	char names[3000][12];
	int bad = 0;
	for (int i = 0; i < 3000; i++) {
		snprintf(names[i], sizeof names[i], "f%d", i);
		hmap_sput(&m, names[i], names[i]);
	}
	for (int i = 0; i < 3000; i++) {
		char k[12];
		snprintf(k, sizeof k, "f%d", i);
		bad += hmap_sget(&m, k) != names[i];
	}
	unit_check(bad == 0 && m.n == 3001, "hmap: 3000 string keys", "%d wrong, n=%zu", bad, m.n);
	hmap_free(&m);
}

int main(void)
{
	test_sorted();
	test_hmap_u64();
	test_hmap_str();
	return 0;
}
