/* blob: saved pages and the memory they live in. A page copied alone is
 * its own allocation; pages copied together share a slab (one mapping,
 * contiguous, so a run of adjacent pages is one copy), freed with its last
 * page. The undo log's slabs are kept for reuse once free (up to 1 GiB):
 * its next copies then go into memory already allocated, not into fresh
 * pages the kernel must zero first, and a rollback does not pay for
 * unmapping them. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "ckpt-int.h"

#define CKPT_HUGE (2ull << 20)
#define CKPT_POOL_MAX (1ull << 30)

/* The free slabs (the fault thread takes from it while qzdb's frees). */
static pthread_mutex_t ckpt_pool_mu = PTHREAD_MUTEX_INITIALIZER;
static struct ckpt_slab *ckpt_pool;
static uint64_t ckpt_pool_bytes;

static void ckpt_slab_free(struct ckpt_slab *sl)
{
	munmap(sl->mem, sl->len);
	free(sl->blobs);
	free(sl);
}

static bool ckpt_pool_put(struct ckpt_slab *sl)
{
	bool kept = false;
	pthread_mutex_lock(&ckpt_pool_mu);
	if (sl->populated && ckpt_pool_bytes + sl->len <= CKPT_POOL_MAX) {
		sl->next = ckpt_pool;
		ckpt_pool = sl;
		ckpt_pool_bytes += sl->len;
		kept = true;
	}
	pthread_mutex_unlock(&ckpt_pool_mu);
	return kept;
}

static struct ckpt_slab *ckpt_pool_take(size_t len)
{
	pthread_mutex_lock(&ckpt_pool_mu);
	struct ckpt_slab **at = &ckpt_pool;
	while (*at && (*at)->len != len)
		at = &(*at)->next;
	struct ckpt_slab *sl = *at;
	if (sl) {
		*at = sl->next;
		ckpt_pool_bytes -= sl->len;
	}
	pthread_mutex_unlock(&ckpt_pool_mu);
	return sl;
}

void ckpt_pool_drain(void)
{
	pthread_mutex_lock(&ckpt_pool_mu);
	struct ckpt_slab *sl = ckpt_pool;
	ckpt_pool = NULL;
	ckpt_pool_bytes = 0;
	pthread_mutex_unlock(&ckpt_pool_mu);
	while (sl) {
		struct ckpt_slab *next = sl->next;
		ckpt_slab_free(sl);
		sl = next;
	}
}

void ckpt_blob_unref(struct ckpt_blob *b)
{
	if (!b || --b->refs)
		return;
	if (!b->slab) {
		free(b->data);
		free(b);
	} else if (--b->slab->live == 0 && !ckpt_pool_put(b->slab)) {
		ckpt_slab_free(b->slab);   /* b lives in the slab */
	}
}

/* n blobs with one reference each into out[]. */
void ckpt_blobs_alloc(size_t n, struct ckpt_blob **out)
{
	ckpt_blobs_alloc_as(n, out, false);
}

/* populated: small pages allocated at once (MAP_POPULATE) rather than huge
 * pages on first touch: with the machine busy a huge page's allocation may
 * wait for compaction (measured for 512 MiB in 16 MiB runs: 300-400 ms
 * populated, 900-1800 ms with MADV_HUGEPAGE); the undo log's copies. */
void ckpt_blobs_alloc_as(size_t n, struct ckpt_blob **out, bool populated)
{
	enum { SLAB_MIN = 32 };
	if (n < SLAB_MIN) {
		for (size_t i = 0; i < n; i++) {
			out[i] = xmalloc(sizeof **out);
			out[i]->refs = 1;
			out[i]->slab = NULL;
			out[i]->data = xmalloc(CKPT_PAGE);
		}
		return;
	}
	struct ckpt_slab *sl = populated ? ckpt_pool_take(n * CKPT_PAGE) : NULL;
	if (!sl) {
		sl = xmalloc(sizeof *sl);
		sl->populated = populated;
		sl->len = n * CKPT_PAGE + (populated ? 0 : CKPT_HUGE);
		sl->blobs = xmalloc(n * sizeof *sl->blobs);
		sl->mem = mmap(NULL, sl->len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | (populated ? MAP_POPULATE : 0), -1, 0);
		if (sl->mem == MAP_FAILED)
			abort();   /* out of memory: as xmalloc would */
	}
	sl->live = n;
	/* Huge pages: a fault per 2 MiB instead of per page (faults are
	 * what costs on a virtual machine). Not populated here: the copy
	 * that fills it faults it in, in one pass over the memory instead
	 * of two (measured: 1.5-3 ms less for 64 MiB). */
	uintptr_t at = (uintptr_t)sl->mem;
	if (!populated) {
		at = (at + CKPT_HUGE - 1) & ~(uintptr_t)(CKPT_HUGE - 1);
		madvise((void *)at, n * CKPT_PAGE, MADV_HUGEPAGE);
	}
	for (size_t i = 0; i < n; i++) {
		sl->blobs[i] = (struct ckpt_blob){1, sl, (uint8_t *)at + i * CKPT_PAGE};
		out[i] = &sl->blobs[i];
	}
}

