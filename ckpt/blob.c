/* blob: saved pages and the memory they live in. A page copied alone is
 * its own allocation; pages copied together share a slab (one mapping,
 * contiguous, so a run of adjacent pages is one copy), freed with its last
 * page. The undo log's slabs are kept for reuse once free (up to 1 GiB):
 * its next copies then go into memory already allocated, not into fresh
 * pages the kernel must zero first, and a rollback does not pay for
 * unmapping them.
 *
 * A page that repeats one 8-byte word (zeros, a memset: common for the
 * pre-images of fresh or initialised memory) is held as a blob pointing at
 * one shared read-only page of that word, as zram holds same-filled pages:
 * saving it allocates nothing, and a rollback writes it from a page that
 * stays in the cache. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ckpt-int.h"

#define CKPT_HUGE (2ull << 20)
#define CKPT_POOL_MAX (1ull << 30)
#define CKPT_FILLS 256   /* different words held as fills, at most (1 MiB) */

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

/* The pages of the words held as fills: kept for the session (at most
 * CKPT_FILLS pages), so a blob never outlives its page. Entries are
 * written before nfills publishes them: found without the lock. */
static struct ckpt_fill {
	uint64_t word;
	uint8_t *page;
} ckpt_fills[CKPT_FILLS];
static _Atomic size_t ckpt_nfills;

bool ckpt_page_fill(const uint8_t *page, uint64_t *word)
{
	/* every word equals the next one: the page against itself a word on
	 * (libc's memcmp is the vectorised loop; it stops at the first
	 * difference) */
	if (memcmp(page, page + 8, CKPT_PAGE - 8))
		return false;
	memcpy(word, page, 8);
	return true;
}

static uint8_t *ckpt_fill_find(uint64_t word, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ckpt_fills[i].word == word)
			return ckpt_fills[i].page;
	return NULL;
}

static uint8_t *ckpt_fill_page(uint64_t word)
{
	uint8_t *page = ckpt_fill_find(word, atomic_load(&ckpt_nfills));
	if (page)
		return page;
	pthread_mutex_lock(&ckpt_pool_mu);
	size_t n = atomic_load(&ckpt_nfills);
	page = ckpt_fill_find(word, n);
	if (!page && n < CKPT_FILLS) {
		page = mmap(NULL, CKPT_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (page == MAP_FAILED) {
			page = NULL;
		} else {
			for (size_t i = 0; i < CKPT_PAGE / 8; i++)
				((uint64_t *)page)[i] = word;
			mprotect(page, CKPT_PAGE, PROT_READ);   /* shared: never written */
			ckpt_fills[n] = (struct ckpt_fill){word, page};
			atomic_store(&ckpt_nfills, n + 1);
		}
	}
	pthread_mutex_unlock(&ckpt_pool_mu);
	return page;
}

struct ckpt_blob *ckpt_blob_fill(uint64_t word)
{
	uint8_t *page = ckpt_fill_page(word);
	if (!page)
		return NULL;
	struct ckpt_blob *b = xmalloc(sizeof *b);
	*b = (struct ckpt_blob){.refs = 1, .fill = true, .data = page};
	return b;
}

void ckpt_blob_unref(struct ckpt_blob *b)
{
	if (!b || --b->refs)
		return;
	if (!b->slab) {
		if (!b->fill)
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
			*out[i] = (struct ckpt_blob){.refs = 1, .data = xmalloc(CKPT_PAGE)};
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
		sl->blobs[i] = (struct ckpt_blob){.refs = 1, .slab = sl, .data = (uint8_t *)at + i * CKPT_PAGE};
		out[i] = &sl->blobs[i];
	}
}

