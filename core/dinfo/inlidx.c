/* inlidx: which units of a DWARF file may hold inlined calls of a
 * function, by the function's name, saved on disk so that a later session
 * reads only those units (see inlidx.h). The file is hostile like any
 * other: every length and count is checked against what is left, every
 * unit offset against the units the DWARF has; anything wrong and the
 * caller rebuilds it.
 *
 * Layout (little-endian):
 *   "QZINLIX\0"  u32 version  u32 idlen  id bytes (the build-id, hex)
 *   u32 nunits   nunits x u64 unit offsets
 *   u32 nnames   nnames x { u16 len  name bytes  u32 n  n x u32 unit index }
 * The name "" lists the units whose inlined calls refer to other units
 * (any name may be inlined there). */
#include "inlidx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dinfo-int.h"
#include "util/hmap.h"
#include "util/util.h"

#define INLIDX_MAGIC "QZINLIX"
enum {
	INLIDX_VERSION = 1,
	INLIDX_MAX_FILE = 64 << 20,   /* a bigger file is not ours */
};

struct inlidx_name {
	uint32_t n;
	const uint32_t *units;        /* indexes into units[] */
};

struct di_inlidx {
	uint64_t *units;
	uint32_t nunits;
	struct hmap names;            /* name -> struct inlidx_name */
	char *blob;                   /* the file's bytes (names point in) */
	struct inlidx_name *ents;
	uint32_t *idx;
};

void di_inlidx_free(struct di_inlidx *x)
{
	if (!x)
		return;
	hmap_free(&x->names);
	free(x->units);
	free(x->ents);
	free(x->idx);
	free(x->blob);
	free(x);
}

/* ---- writing ---- */

static void put_u16(struct sbuf *b, uint16_t v)
{
	sbuf_addn(b, (const char *)&v, 2);
}

static void put_u32(struct sbuf *b, uint32_t v)
{
	sbuf_addn(b, (const char *)&v, 4);
}

static void put_u64(struct sbuf *b, uint64_t v)
{
	sbuf_addn(b, (const char *)&v, 8);
}

static void put_name(struct sbuf *b, const char *name, const uint32_t *v, uint32_t n)
{
	size_t len = strlen(name);
	put_u16(b, (uint16_t)len);
	sbuf_addn(b, name, len);
	put_u32(b, n);
	for (uint32_t i = 0; i < n; i++)
		put_u32(b, v[i]);
}

int di_inlidx_save(struct di_info *di, const char *path, const char *build_id)
{
	struct sbuf b = {0};
	di_index_all(di);
	uint32_t *v = xcalloc(di->ncus + 1, sizeof *v), nv = 0, nnames = 0;
	struct hmap at = {0};   /* unit -> its index + 1 */
	for (size_t i = 0; i < di->ncus; i++)
		hmap_put(&at, (uint64_t)(uintptr_t)di->cus[i], (void *)(uintptr_t)(i + 1));
	sbuf_addn(&b, INLIDX_MAGIC, 8);
	put_u32(&b, INLIDX_VERSION);
	put_u32(&b, (uint32_t)strlen(build_id));
	sbuf_add(&b, build_id);
	put_u32(&b, (uint32_t)di->ncus);
	for (size_t i = 0; i < di->ncus; i++)
		put_u64(&b, di->cus[i]->off);
	size_t count_at = b.len;
	put_u32(&b, 0);
	for (size_t i = 0; i < di->ncus; i++)
		if (di->cus[i]->has_inlines && di->cus[i]->inlines_xcu)
			v[nv++] = (uint32_t)i;
	put_name(&b, "", v, nv);
	nnames++;
	for (size_t s = 0; s < di->origins.cap; s++) {
		const struct di_origin *o = hmap_slot(&di->origins, s);
		const char *name = o ? (const char *)(uintptr_t)di->origins.keys[s] : NULL;
		if (!name || !*name || strlen(name) > 0xffff)
			continue;
		for (nv = 0; o && nv < di->ncus; o = o->next)
			v[nv++] = (uint32_t)((uintptr_t)hmap_get(&at, (uint64_t)(uintptr_t)o->cu) - 1);
		put_name(&b, name, v, nv);
		nnames++;
	}
	memcpy(b.s + count_at, &nnames, 4);
	int r = file_replace(path, b.s, b.len);
	hmap_free(&at);
	free(v);
	sbuf_free(&b);
	return r;
}

/* ---- reading ---- */

struct rd {
	const char *p;
	size_t left;
};

static bool take(struct rd *r, void *out, size_t n)
{
	if (r->left < n)
		return false;
	if (out)
		memcpy(out, r->p, n);
	r->p += n;
	r->left -= n;
	return true;
}

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
	if (n > 0 && n <= INLIDX_MAX_FILE && fseek(f, 0, SEEK_SET) == 0) {
		buf = xmalloc((size_t)n + 1);
		if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		} else {
			buf[n] = '\0';
			*len = (size_t)n;
		}
	}
	fclose(f);
	return buf;
}

/* The names, each '\0'-ended in place (its length field is overwritten:
 * the bytes after a name are its count, read before). */
static bool read_names(struct di_inlidx *x, struct rd *r, uint32_t nnames)
{
	uint32_t total = 0;
	struct rd scan = *r;
	for (uint32_t i = 0; i < nnames; i++) {   /* first pass: sizes */
		uint16_t len;
		uint32_t n;
		if (!take(&scan, &len, 2) || !take(&scan, NULL, len) || !take(&scan, &n, 4) ||
		    n > x->nunits || !take(&scan, NULL, (size_t)n * 4))
			return false;
		total += n;
	}
	x->ents = xcalloc(nnames ? nnames : 1, sizeof *x->ents);
	x->idx = xcalloc(total ? total : 1, sizeof *x->idx);
	uint32_t *next = x->idx;
	for (uint32_t i = 0; i < nnames; i++) {
		uint16_t len = 0;
		char *name = (char *)r->p + 2;
		take(r, &len, 2);
		take(r, NULL, len);
		take(r, &x->ents[i].n, 4);
		/* the name's first byte moves back over its length field */
		memmove(name - 2, name, len);
		name[len - 2] = '\0';
		x->ents[i].units = next;
		for (uint32_t k = 0; k < x->ents[i].n; k++) {
			take(r, next, 4);
			if (*next++ >= x->nunits)
				return false;
		}
		hmap_sput(&x->names, name - 2, &x->ents[i]);
	}
	return r->left == 0;
}

struct di_inlidx *di_inlidx_load(const char *path, const char *build_id)
{
	size_t len = 0;
	char *buf = read_all(path, &len);
	if (!buf)
		return NULL;
	struct di_inlidx *x = xcalloc(1, sizeof *x);
	x->blob = buf;
	struct rd r = {buf, len};
	char magic[8];
	uint32_t version, idlen, nnames;
	bool ok = take(&r, magic, 8) && !memcmp(magic, INLIDX_MAGIC, 8) &&
		  take(&r, &version, 4) && version == INLIDX_VERSION &&
		  take(&r, &idlen, 4) && idlen == strlen(build_id) && r.left >= idlen &&
		  !memcmp(r.p, build_id, idlen) && take(&r, NULL, idlen) &&
		  take(&r, &x->nunits, 4) && x->nunits <= r.left / 8;
	if (ok) {
		x->units = xcalloc(x->nunits ? x->nunits : 1, sizeof *x->units);
		ok = take(&r, x->units, (size_t)x->nunits * 8) && take(&r, &nnames, 4) &&
		     nnames <= r.left / 6 && read_names(x, &r, nnames);
	}
	if (!ok) {
		di_inlidx_free(x);
		return NULL;
	}
	return x;
}

size_t di_inlidx_units(const struct di_inlidx *x, const char *name, uint64_t *out, size_t max)
{
	size_t n = 0;
	const char *keys[2] = {name, ""};
	for (int k = 0; k < 2; k++) {
		const struct inlidx_name *e = hmap_sget(&x->names, keys[k]);
		for (uint32_t i = 0; e && i < e->n && n < max; i++)
			out[n++] = x->units[e->units[i]];
	}
	return n;
}
