/* ckpt_addrs_sort: the page-address sets of a checkpoint or rollback
 * (sorted, no duplicates) from inputs of every shape the module makes:
 * empty, one run, several appended runs that overlap, descending, random
 * with duplicates. The oracle: qsort, then dropping duplicates. */
#include <stdlib.h>
#include <string.h>

#include "ckpt/ckpt-int.h"
#include "unit.h"

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Sort a copy of in[] both ways and compare. */
static void same(const char *name, const uint64_t *in, size_t n)
{
	struct ckpt_addrs s = {0};
	uint64_t *want = xmalloc((n + 1) * sizeof *want);
	size_t nw = 0;
	for (size_t i = 0; i < n; i++)
		ckpt_addrs_add(&s, in[i]);
	memcpy(want, in, n * sizeof *want);
	qsort(want, n, sizeof *want, cmp);
	for (size_t i = 0; i < n; i++)
		if (!nw || want[i] != want[nw - 1])
			want[nw++] = want[i];
	ckpt_addrs_sort(&s);
	size_t bad = 0;
	while (bad < nw && bad < s.n && s.a[bad] == want[bad])
		bad++;
	unit_check(s.n == nw && bad == nw, name, "%zu addresses, want %zu; first difference at %zu",
	      s.n, nw, bad);
	ckpt_addrs_add(&s, 0);   /* still growable: its capacity is right */
	ckpt_addrs_free(&s);
	free(want);
}

int main(void)
{
	enum { N = 40000 };
	uint64_t *a = xmalloc(N * sizeof *a);
	same("sort-empty", a, 0);
	for (size_t i = 0; i < N; i++)
		a[i] = 0x10000 + i * 4096;
	same("sort-one-run", a, N);
	for (size_t i = 0; i < N; i++)   /* three runs, overlapping */
		a[i] = 0x10000 + (i % (N / 3 + 1)) * 4096 * (1 + i / (N / 3 + 1));
	same("sort-runs-overlap", a, N);
	for (size_t i = 0; i < N; i++)
		a[i] = (uint64_t)(N - i) * 4096;
	same("sort-descending", a, N);
	srand(7);
	for (size_t i = 0; i < N; i++)
		a[i] = (uint64_t)(rand() % 5000) * 4096;
	same("sort-random-dups", a, N);
	for (int k = 1; k < 8; k++) {
		char name[32];
		snprintf(name, sizeof name, "sort-small-%d", k);
		same(name, a, (size_t)k);
	}
	free(a);
	return 0;
}
