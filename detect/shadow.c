/* shadow: what the detectors know of each heap byte, per 8-byte granule
 * (memcheck's A bits, coarsened): addressable, past a block's end (the
 * slack up to the chunk's end and the next chunk's header), or freed.
 * Granules live in pages (det_page, also uninit.c's), made on first
 * write; an address no page covers is addressable (the detectors know
 * nothing of it). */
#include <stdlib.h>
#include <string.h>

#include "detect-int.h"
#include "util/util.h"

#define SH_PAGE_SHIFT DET_PAGE_SHIFT
#define SH_GRANULES DET_PAGE_BYTES

uint8_t *det_page_find(struct det_pages *p, uint64_t key, bool make)
{
	unsigned shift = p->shift ? p->shift : DET_PAGE_SHIFT;
	int w = -1;
	for (int i = 0; i < p->nkeys; i++)
		if (p->keys[i] == key)
			w = i;
	uint8_t *b = w >= 0 ? NULL : hmap_get(&p->map, key);   /* a remembered NULL is none */
	if (!b && make) {
		b = xcalloc(DET_PAGE_BYTES, 1);
		hmap_put(&p->map, key, b);
		uint64_t lo = key << shift, hi = lo + (1ull << shift);
		if (!p->hi || lo < p->lo)
			p->lo = lo;
		if (hi > p->hi)
			p->hi = hi;
	}
	if (w < 0) {
		w = p->next;
		p->next = (uint8_t)((p->next + 1) % DET_PAGE_WAYS);
		if (p->nkeys < DET_PAGE_WAYS)
			p->nkeys++;
		p->keys[w] = key;
	}
	p->bufs[w] = b;
	return b;
}

void det_pages_free(struct det_pages *p)
{
	for (size_t i = 0; i < p->map.cap; i++)
		free(hmap_slot(&p->map, i));
	hmap_free(&p->map);
	memset(p, 0, sizeof *p);
}

static uint8_t *sh_page(struct det_shadow *sh, uint64_t addr, bool make)
{
	return det_page(&sh->pages, addr, make);
}

void det_shadow_set(struct det_shadow *sh, uint64_t addr, uint64_t len, uint8_t state)
{
	uint64_t end = addr + len;
	if (end < addr)
		return;
	for (uint64_t g = addr & ~7ull; g < end; g += 8) {
		uint8_t *p = sh_page(sh, g, state != SH_OK || sh_page(sh, g, false));
		if (!p) {   /* addressable where nothing is known: nothing to do */
			g = ((g >> SH_PAGE_SHIFT) + 1) << SH_PAGE_SHIFT;
			g -= 8;
			continue;
		}
		uint8_t *s = &p[(g >> 3) & (SH_GRANULES - 1)];
		if (state != SH_OK || end >= g + 8)
			*s = state;
		else   /* a block ending inside the granule: its first bytes */
			*s = (uint8_t)(end - g);
	}
}

/* The state of the byte at a: SH_OK, SH_RED or SH_FREED. */
uint8_t det_shadow_byte(struct det_shadow *sh, uint64_t a)
{
	if (a < sh->pages.lo || a >= sh->pages.hi)
		return SH_OK;
	const uint8_t *p = sh_page(sh, a, false);
	uint8_t s = p ? p[(a >> 3) & (SH_GRANULES - 1)] : SH_OK;
	if (s > SH_OK && s < 8)   /* partial: its first s bytes are the block's */
		return (a & 7) < s ? SH_OK : SH_RED;
	return s;
}

bool det_shadow_bad(struct det_shadow *sh, uint64_t addr, unsigned size, uint64_t *first)
{
	uint64_t end = addr + (size ? size : 1);
	if (end <= sh->pages.lo || addr >= sh->pages.hi)
		return false;
	for (uint64_t a = addr; a < end; a++) {
		const uint8_t *p = sh_page(sh, a, false);
		if (!p) {
			a |= (1ull << SH_PAGE_SHIFT) - 1;
			continue;
		}
		uint8_t s = p[(a >> 3) & (SH_GRANULES - 1)];
		if (s == SH_OK) {
			a |= 7;   /* the whole granule */
			continue;
		}
		if (s < 8 && (a & 7) < s)
			continue;
		*first = a;
		return true;
	}
	return false;
}

void det_shadow_reset(struct det_shadow *sh)
{
	det_pages_free(&sh->pages);
}

size_t det_shadow_bytes(const struct det_shadow *sh)
{
	return sh->pages.map.n * SH_GRANULES;
}
