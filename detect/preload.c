/* preload: heap-call detectors without a stop per heap call. A program
 * started while only classes that look at frees, the exit, signals and
 * the canary are on (double-free, invalid-free, leak, null-deref,
 * stack-overflow: no read, write, uninit or allocation rule, and free
 * rules only from the shipped specs) gets qzheap.so (detect/preload/,
 * built beside qzdb) in LD_PRELOAD. When the program's malloc is then
 * bound in it, its allocator runs natively with no ptrace stop: it keeps
 * each block's size, sites and state in a header and sends a free of
 * anything but a live block's start to qzheap_bad_free, where the only
 * heap site is planted (heap.c's free trap then runs as for glibc's
 * free). The model (blocks, their sites, the event counts) is read back
 * from the program's memory at each of qzdb's stops that needs it
 * (det_pre_sync). Anything else (a static program, a program with its own
 * malloc, a user's LD_PRELOAD allocator before ours, qzheap.so missing,
 * `set detect-preload off`, a class that needs every call) keeps the
 * internal stops on the allocator's entries and returns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <limits.h>

#include "detect-int.h"
#include "target/session.h"

/* qzheap.c's layout (QZHEAP_VERSION 1). */
#define PRE_MAGIC 0x51485a5148455031ull
#define PRE_VERSION 1
#define PRE_HDR 64
#define TAG_LIVE 0x4c4956454c495645ull
#define TAG_FREED 0x4652454546524545ull
#define TAG_PAD 0x5041445041445041ull
#define PRE_CHUNK (1u << 20)          /* region bytes read at a time */
#define PRE_MAX (4ull << 30)          /* region bytes read at most */
enum { FN_MALLOC, FN_CALLOC, FN_REALLOC, FN_FREE, FN_MEMALIGN, FN_ALIGNED_ALLOC,
       FN_POSIX_MEMALIGN, FN_VALLOC, FN_N };
static const char *const pre_fn[FN_N] = {
	"malloc", "calloc", "realloc", "free", "memalign", "aligned_alloc", "posix_memalign",
	"valloc",
};

struct pre_hdr {
	uint64_t tag, size, alloc_ret, alloc_prog, free_ret, free_prog;
	uint16_t cls;
	uint8_t fn_alloc, fn_free;
	uint32_t pad;
	uint64_t span;
};
struct pre_state {
	uint64_t magic, version, lo, bump, commit, calls[8], exe_lo, exe_hi;
};

static bool pre_off;   /* set detect-preload off */

void det_pre_allow(bool on)
{
	pre_off = !on;
}

bool det_pre_allowed(void)
{
	return !pre_off;
}

const char *det_pre_path(void)
{
	static char path[PATH_MAX];
	return path[0] ? path : path_beside_exe("qzheap.so", path, sizeof path);
}

/* Can the classes that are on do without a stop per heap call? */
bool det_pre_rules_ok(const struct detect_state *st)
{
	if (!det_any_on(st) || st->record)
		return false;
	const char *dir = det_spec_dir();
	size_t n = strlen(dir);
	for (size_t i = 0; i < st->nclasses; i++) {
		const struct spec *s = st->classes[i].spec;
		bool shipped = s->path && strncmp(s->path, dir, n) == 0 && s->path[n] == '/';
		for (int r = 0; st->classes[i].on && r < s->nrules; r++) {
			enum spec_event ev = s->rules[r].ev;
			if (ev == EV_FREE && !shipped)
				return false;
			if (ev != EV_FREE && ev != EV_START && ev != EV_EXIT && ev != EV_SEGV &&
			    ev != EV_CANARY && ev != EV_SMASH)
				return false;
		}
	}
	return true;
}

/* LD_PRELOAD for programs started from now on: ours last (a user's
 * allocator preloaded first wins, and we then fall back). */
void det_pre_env(struct detect_state *st)
{
	bool want = !pre_off && det_pre_rules_ok(st) && access(det_pre_path(), R_OK) == 0;
	if (want == st->pre_set)
		return;
	env_list_item("LD_PRELOAD", det_pre_path(), want);
	st->pre_set = want;
}

/* The program's malloc is qzheap's: plant its bad-free site; false to
 * keep the allocator's entries (fn_at is then untouched). */
bool det_pre_arm(struct qz *q, struct detect_state *st)
{
	st->pre = false;
	if (pre_off || !det_pre_rules_ok(st))
		return false;
	uint64_t at;
	const struct qz_module *m = det_bound_in(q, "malloc", &at);
	const char *slash = m && m != &q->exe && m->path ? strrchr(m->path, '/') : NULL;
	if (!slash || strcmp(slash, "/qzheap.so") != 0)
		return false;
	const struct img_sym *ss = img_sym_named_global(m->img, "qzheap_state");
	const struct img_sym *sb = img_sym_named_global(m->img, "qzheap_bad_free");
	struct pre_state ps;
	if (!ss || !sb || !ss->addr || !sb->addr ||
	    qz_read(q, ss->addr + m->bias, &ps, sizeof ps) < 0 || ps.magic != PRE_MAGIC ||
	    ps.version != PRE_VERSION)
		return false;
	uint64_t bad = sb->addr + m->bias;
	if (bp_site_add(&q->bps, q->proc, bad) < 0)
		return false;
	st->fn_at[DF_FREE] = bad;
	st->pre_at = ss->addr + m->bias;
	st->pre = true;
	return true;
}

/* The program's call site and the function it called, of a heap call
 * whose return address is ret (prog: the program's return address qzheap
 * found on the stack when ret is a library's); 0 if not known. */
static uint64_t pre_site(struct qz *q, struct hmap *names, uint64_t ret, uint64_t prog, int fn,
			 char *buf, size_t len)
{
	snprintf(buf, len, "%s", pre_fn[fn < FN_N ? fn : 0]);
	if (qz_module_at(q, ret) == &q->exe)
		return ret;
	if (!prog || qz_module_at(q, prog) != &q->exe)
		return 0;
	char *name = hmap_get(names, prog);
	if (!name) {
		char callee[32];
		name = xstrdup(det_callee_name(q, prog, callee, sizeof callee) ? callee : "");
		hmap_put(names, prog, name);
	}
	if (*name)
		snprintf(buf, len, "%s", name);
	return prog;
}

static void pre_block(struct qz *q, struct detect_state *st, struct hmap *names,
		      const struct pre_hdr *h, uint64_t p)
{
	struct det_block *b = det_block_add(st, p);
	b->live = h->tag == (TAG_LIVE ^ p);
	b->size = h->size;
	b->alloc_site = pre_site(q, names, h->alloc_ret, h->alloc_prog, h->fn_alloc, b->alloc_fn,
				 sizeof b->alloc_fn);
	b->free_site = 0;
	b->free_fn[0] = 0;
	if (!b->live)
		b->free_site = pre_site(q, names, h->free_ret, h->free_prog, h->fn_free, b->free_fn,
					sizeof b->free_fn);
}

/* The model from the program's memory: every block qzheap made, live or
 * freed, and the event counts. A header the program overwrote is skipped
 * (headers check themselves: the tag holds the block's address). */
void det_pre_sync(struct qz *q, struct detect_state *st)
{
	struct pre_state ps;
	if (!st->pre || qz_read(q, st->pre_at, &ps, sizeof ps) < 0 || ps.magic != PRE_MAGIC)
		return;
	det_blocks_clear(st);
	st->events[EV_MALLOC] = ps.calls[FN_MALLOC] + ps.calls[FN_MEMALIGN] +
				ps.calls[FN_ALIGNED_ALLOC] + ps.calls[FN_POSIX_MEMALIGN] +
				ps.calls[FN_VALLOC];
	st->events[EV_CALLOC] = ps.calls[FN_CALLOC];
	st->events[EV_REALLOC] = ps.calls[FN_REALLOC];
	st->events[EV_FREE] = ps.calls[FN_FREE];
	if (!ps.lo || ps.bump < ps.lo)
		return;
	uint64_t end = ps.bump - ps.lo > PRE_MAX ? ps.lo + PRE_MAX : ps.bump;
	uint8_t *buf = xmalloc(PRE_CHUNK + PRE_HDR);
	struct hmap names = {0};
	uint64_t h = ps.lo, have_lo = 0, have_hi = 0;
	while (h + PRE_HDR <= end) {
		if (h + PRE_HDR > have_hi) {   /* the next window, from h */
			size_t n = end - h < PRE_CHUNK ? (size_t)(end - h) : PRE_CHUNK;
			if (qz_read(q, h, buf, n) < 0)
				break;
			have_lo = h, have_hi = h + n;
		}
		struct pre_hdr hd;
		memcpy(&hd, buf + (h - have_lo), sizeof hd);
		uint64_t p = h + PRE_HDR;
		bool ok = hd.tag == (TAG_LIVE ^ p) || hd.tag == (TAG_FREED ^ p) || hd.tag == (TAG_PAD ^ p);
		if (!ok || hd.span < 16 || hd.span % 16 || hd.span > end - h) {
			h += 16;   /* not a header: look for the next */
			continue;
		}
		if (hd.tag != (TAG_PAD ^ p))
			pre_block(q, st, &names, &hd, p);
		h += hd.span;
	}
	for (size_t i = 0; i < names.cap; i++)
		free(hmap_slot(&names, i));
	hmap_free(&names);
	free(buf);
}
