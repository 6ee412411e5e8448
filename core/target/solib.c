/* solib: shared libraries through r_debug. The dynamic linker calls
 * _dl_debug_state (r_brk) before and after each change of its link map;
 * when r_state is RT_CONSISTENT again the map is re-read: new libraries are
 * opened, unloaded ones dropped, and breakpoints given by function or line
 * are resolved again, so `break free` before `run` moves from the PLT stub
 * to libc's free and a pending breakpoint finds its dlopened library. */
#define _GNU_SOURCE
#include "solib.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dinfo/debuglink.h"
#include "frame.h"
#include "loc.h"
#include "run.h"
#include "session.h"

#define RT_CONSISTENT 0
#define SOLIB_MAX_OBJECTS 4096   /* a longer link map is a corrupt one */

struct solib_state {
	uint64_t r_debug;   /* runtime address of ld.so's _r_debug, 0 if unknown */
	uint64_t brk;       /* our internal stop at r_brk, 0 if none */
};

static void solib_read_str(struct qz *q, uint64_t addr, char *buf, size_t len)
{
	size_t i = 0;
	/* Names are short: read in chunks, not byte by byte. */
	while (addr && i + 1 < len) {
		char chunk[64];
		size_t n = sizeof chunk < len - 1 - i ? sizeof chunk : len - 1 - i;
		size_t to_page = 4096 - ((addr + i) & 4095);   /* never cross into
		                                                  an unmapped page */
		if (n > to_page)
			n = to_page;
		if (qz_read(q, addr + i, chunk, n) < 0)
			break;
		char *z = memchr(chunk, 0, n);
		memcpy(buf + i, chunk, z ? (size_t)(z - chunk) : n);
		i += z ? (size_t)(z - chunk) : n;
		if (z)
			break;
	}
	buf[i] = 0;
}

/* The separate debug file of a stripped library (by build-id or
 * debuglink): its full symbol table now (cheap), its DWARF and line
 * tables only when first needed (qz_mod_di, qz_mod_lines). */
static void solib_debug_file(struct qz *q, struct qz_module *m)
{
	char warn[512];
	char *path = dbg_find_file(m->path, img_build_id(m->img), q->debug_dir, warn, sizeof warn);
	if (warn[0])
		qz_warn(q, "%s", warn);
	if (!path)
		return;
	if (img_add_debug_symbols(m->img, path))
		m->debug_path = path;
	else {
		qz_warn(q, "Could not read symbols of \"%s\": not a usable ELF file.", path);
		free(path);
	}
}

/* Debug info of a library: its own DWARF when it has some (a user's
 * library built with -g), read now; else that of its separate debug file,
 * read on first use. */
void solib_debug_info(struct qz *q, struct qz_module *m)
{
	if (img_has_debug_info(m->img)) {
		qz_mod_read_debug(m, m->path);
		return;
	}
	solib_debug_file(q, m);
}

static void solib_open(struct qz *q, const char *name, uint64_t bias)
{
	char err[256], real[PATH_MAX];
	struct img *im = img_open(name, err, sizeof err);
	if (!im)
		return;   /* the vDSO ("linux-vdso.so.1") has no file */
	XGROW(q->libs, q->libs_cap, q->nlibs + 1);
	struct qz_module *m = &q->libs[q->nlibs++];
	memset(m, 0, sizeof *m);
	m->path = xstrdup(realpath(name, real) ? real : name);
	m->name = xstrdup(name);
	m->img = im;
	m->bias = bias;
	m->lo = bias + img_base_vaddr(im);
	m->hi = bias + img_end_vaddr(im);
	solib_debug_info(q, m);
}

static bool solib_same(const struct qz_module *m, const char *name, uint64_t bias)
{
	char real[PATH_MAX];
	if (m->bias != bias)
		return false;
	if (m->name)
		return strcmp(m->name, name) == 0;
	return realpath(name, real) && strcmp(real, m->path) == 0;
}

/* One link map entry: mark the module we have for it, or open it. */
static void solib_note(struct qz *q, const char *name, uint64_t bias,
		       bool *seen, size_t nold)
{
	for (size_t i = 0; i < q->nlibs; i++) {
		struct qz_module *m = &q->libs[i];
		if (!solib_same(m, name, bias))
			continue;
		if (i < nold)
			seen[i] = true;
		if (!m->name)
			m->name = xstrdup(name);
		return;
	}
	solib_open(q, name, bias);
}

/* A breakpoint location inside [lo, hi) loses its address: the library it
 * was in is gone. */
static int solib_unplace(struct qz *q, uint64_t lo, uint64_t hi)
{
	int n = 0;
	for (size_t i = 0; i < q->bps.n; i++) {
		struct bp *b = &q->bps.bps[i];
		for (size_t j = 0; j < b->nlocs; j++)
			if (b->locs[j].addr >= lo && b->locs[j].addr < hi) {
				b->locs[j].addr = 0;
				n++;
			}
	}
	return n;
}

static void solib_drop_unseen(struct qz *q, const bool *seen, size_t nold)
{
	for (size_t i = nold; i-- > 0;) {
		struct qz_module *m = &q->libs[i];
		if (seen[i])
			continue;
		if (solib_unplace(q, m->lo, m->hi))
			qz_warn(q, "Temporarily disabling breakpoints for unloaded shared "
				"library \"%s\"", m->name ? m->name : m->path);
		qz_module_drop(q, i);
	}
}

/* Specs that mean the same code after a library change: functions and
 * FILE:LINE. Not *ADDR, nor a bare or relative line (they depend on where
 * `list` was). */
static bool solib_respec(const char *spec)
{
	if (!spec || *spec == '*' || *spec == '+' || *spec == '-')
		return false;
	return strspn(spec, "0123456789") != strlen(spec);
}

static bool solib_locs_same(const struct bp *b, const struct loc_addr *l, size_t n)
{
	if (b->nlocs != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (b->locs[i].addr != l[i].addr)
			return false;
	return true;
}

/* Resolve b's spec again; a breakpoint whose function is nowhere now
 * keeps its locations in the program and loses those in libraries. */
static void solib_rebreak_one(struct qz *q, struct bp *b)
{
	struct loc_addr *locs = NULL;
	size_t n = 0;
	if (loc_resolve(q, b->spec, &locs, &n) == 0) {
		if (!solib_locs_same(b, locs, n))
			loc_fill_bp(q, b, locs, n);
		free(locs);
		return;
	}
	size_t k = 0;
	for (size_t i = 0; i < b->nlocs; i++) {
		if (b->locs[i].addr)
			b->locs[k++] = b->locs[i];
		else
			free(b->locs[i].func);
	}
	b->nlocs = k;
}

static void solib_rebreak(struct qz *q)
{
	struct sbuf saved = q->err;   /* failures here are not the command's */
	memset(&q->err, 0, sizeof q->err);
	for (size_t i = 0; i < q->bps.n; i++)   /* plain breakpoints only: a
						   module plants its own sites */
		if (q->bps.bps[i].kind == BP_KIND_BREAK && solib_respec(q->bps.bps[i].spec))
			solib_rebreak_one(q, &q->bps.bps[i]);
	sbuf_free(&q->err);
	q->err = saved;
	bp_sync(&q->bps, q->proc);
}

int solib_walk(struct qz *q, uint64_t r_debug, solib_entry_fn fn, void *arg)
{
	uint64_t lm = 0;
	if (qz_read(q, r_debug + 8, &lm, 8) < 0 || !lm)
		return -1;   /* at exec: ld.so has not started the list yet */
	for (int n = 0; lm && n < SOLIB_MAX_OBJECTS; n++) {
		uint64_t e[4];   /* l_addr, l_name, l_ld, l_next */
		char name[PATH_MAX];
		if (qz_read(q, lm, e, sizeof e) < 0)
			return 1;
		solib_read_str(q, e[1], name, sizeof name);
		fn(q, n, e[0], name, arg);
		lm = e[3];
	}
	return lm == 0 ? 0 : 1;
}

struct solib_seen {
	bool *seen;      /* which of the first nold modules the map still has */
	size_t nold;
};

static void solib_sync_entry(struct qz *q, int n, uint64_t bias, const char *name, void *arg)
{
	struct solib_seen *ss = arg;
	if (n > 0 && name[0])   /* the first entry is the program */
		solib_note(q, name, bias, ss->seen, ss->nold);
}

void solib_sync(struct qz *q)
{
	struct solib_state *s = q->solib;
	if (!s || !s->r_debug || !qz_running(q))
		return;
	struct solib_seen ss = { xcalloc(q->nlibs + 1, sizeof *ss.seen), q->nlibs };
	int r = solib_walk(q, s->r_debug, solib_sync_entry, &ss);
	if (r == 0)   /* a list read to its end: what is not in it is gone */
		solib_drop_unseen(q, ss.seen, ss.nold);
	free(ss.seen);
	if (r < 0)
		return;
	frame_invalidate(q);
	solib_rebreak(q);
}

/* At exec the program and ld.so are mapped (from /proc/PID/maps); ld.so
 * exports _r_debug and _dl_debug_state, so the stop can be planted before
 * the first library is loaded. After attach the same finds everything. */
static void solib_on_start(struct qz *q)
{
	struct solib_state *s = q->solib;
	s->r_debug = s->brk = 0;
	for (size_t i = 0; i < q->nlibs && !s->brk; i++) {
		struct qz_module *m = &q->libs[i];
		const struct img_sym *rd = m->img ? img_sym_named(m->img, "_r_debug") : NULL;
		const struct img_sym *st = m->img ? img_sym_named(m->img, "_dl_debug_state") : NULL;
		if (!rd || !st)
			continue;
		s->r_debug = rd->addr + m->bias;
		s->brk = st->addr + m->bias;
	}
	if (!s->brk || bp_site_add(&q->bps, q->proc, s->brk) < 0) {
		s->brk = 0;   /* static program: /proc/PID/maps stays the source */
		return;
	}
	q->libs_tracked = true;
	solib_sync(q);
}

static void solib_on_gone(struct qz *q)
{
	q->solib->r_debug = q->solib->brk = 0;
	q->libs_tracked = false;
}

static bool solib_user_bp_at(struct qz *q, uint64_t pc)
{
	for (size_t i = 0; i < q->bps.n; i++)
		for (size_t j = 0; q->bps.bps[i].enabled && j < q->bps.bps[i].nlocs; j++)
			if (q->bps.bps[i].locs[j].addr == pc && !q->bps.bps[i].locs[j].disabled)
				return true;
	return false;
}

static int solib_on_trap(struct qz *q, uint64_t pc)
{
	struct solib_state *s = q->solib;
	int32_t state;
	if (!s->brk || pc != s->brk)
		return RUN_TARGET;
	if (qz_read(q, s->r_debug + 24, &state, sizeof state) == 0 && state == RT_CONSISTENT)
		solib_sync(q);
	/* A user breakpoint on _dl_debug_state itself still stops. */
	return solib_user_bp_at(q, pc) ? RUN_TARGET : RUN_AGAIN;
}

/* A checkpoint needs nothing of ours: the link map is in the process's
 * memory, so after a rollback it is read again from there (a library
 * dlopened after the checkpoint goes, one dlclosed comes back). */
static void *solib_save(struct qz *q)
{
	(void)q;
	return xcalloc(1, 1);
}

static void solib_restore(struct qz *q, const void *saved)
{
	(void)saved;
	solib_sync(q);
}

static void solib_fini(struct qz *q)
{
	free(q->solib);
	q->solib = NULL;
}

static const struct qz_mod solib_mod = {
	.name = "solib",
	.save = solib_save,
	.restore = solib_restore,
	.free_saved = free,
	.on_start = solib_on_start,
	.on_gone = solib_on_gone,
	.fini = solib_fini,
	.on_trap = solib_on_trap,
};

void solib_init(struct qz *q)
{
	q->solib = xcalloc(1, sizeof *q->solib);
	mod_add(q, &solib_mod);
}
