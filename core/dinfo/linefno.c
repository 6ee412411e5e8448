/* linefno: decode a DWARF 5 line program for its file register only (see
 * linefno.h for why). Bounds-checked: a short or corrupt table gives 0. */
#include "linefno.h"
#include "util/util.h"

#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

struct lfrd {
	const uint8_t *p, *end;
	bool bad;
};

static void lf_skip(struct lfrd *r, uint64_t n)
{
	if ((uint64_t)(r->end - r->p) < n) {
		r->bad = true;
		r->p = r->end;
	} else {
		r->p += n;
	}
}

static uint64_t lf_n(struct lfrd *r, int n)
{
	uint64_t v = 0;
	const uint8_t *p = r->p;
	lf_skip(r, (uint64_t)n);
	for (int i = 0; !r->bad && i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* An unsigned LEB128, or (skipping) a signed one. */
static uint64_t lf_leb(struct lfrd *r)
{
	uint64_t v = 0;
	for (unsigned shift = 0; r->p < r->end; shift += 7) {
		uint8_t c = *r->p++;
		if (shift < 64)
			v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
	}
	r->bad = true;
	return 0;
}

struct lfrows {
	uint32_t *v;
	size_t n, cap;
};

static void lf_row(struct lfrows *rows, uint64_t file)
{
	XGROW(rows->v, rows->cap, rows->n + 1);
	rows->v[rows->n++] = (uint32_t)file;
}

/* Run the program from r (the header read: opcode_base, lens). */
static void lf_program(struct lfrd *r, unsigned opcode_base, const uint8_t *lens,
		       struct lfrows *rows)
{
	uint64_t file = 1;
	while (r->p < r->end && !r->bad) {
		unsigned op = *r->p++;
		if (op >= opcode_base) {
			lf_row(rows, file);
		} else if (op == 0) {
			uint64_t len = lf_leb(r);
			const uint8_t *next = r->p;
			if (len == 0 || (uint64_t)(r->end - r->p) < len) {
				r->bad = true;
				return;
			}
			next += len;
			if (*r->p == 1 /* DW_LNE_end_sequence */) {
				lf_row(rows, file);
				file = 1;
			}
			r->p = next;
		} else if (op == 1) {                       /* DW_LNS_copy */
			lf_row(rows, file);
		} else if (op == 4) {                       /* DW_LNS_set_file */
			file = lf_leb(r);
		} else if (op == 9) {                       /* DW_LNS_fixed_advance_pc */
			lf_skip(r, 2);
		} else {
			for (unsigned k = 0; k < lens[op - 1]; k++)
				lf_leb(r);
		}
	}
}

static size_t lf_table(const uint8_t *d, size_t size, uint32_t **out)
{
	struct lfrd r = { d, d + size, false };
	struct lfrows rows = {0};
	int offsz = 4;
	uint64_t len = lf_n(&r, 4);
	if (len == 0xffffffff) {
		len = lf_n(&r, 8);
		offsz = 8;
	}
	if (r.bad || len > (uint64_t)(r.end - r.p))
		return 0;
	r.end = r.p + len;
	if (lf_n(&r, 2) != 5)
		return 0;
	lf_skip(&r, 2);                              /* address, selector sizes */
	uint64_t hlen = lf_n(&r, offsz);
	const uint8_t *prog = r.p;
	lf_skip(&r, 5);                              /* min_insn .. line_range */
	unsigned opcode_base = (unsigned)lf_n(&r, 1);
	const uint8_t *lens = r.p;
	lf_skip(&r, opcode_base ? opcode_base - 1 : 0);
	if (r.bad || opcode_base == 0 || hlen > (uint64_t)(r.end - prog))
		return 0;
	r.p = prog + hlen;
	lf_program(&r, opcode_base, lens, &rows);
	if (r.bad) {
		free(rows.v);
		return 0;
	}
	*out = rows.v;
	return rows.n;
}

size_t linefno_rows(int fd, uint64_t sec_off, uint64_t sec_size,
		    uint64_t table_off, uint32_t **out)
{
	uint8_t head[12];
	*out = NULL;
	if (fd < 0 || table_off + sizeof head > sec_size ||
	    pread(fd, head, sizeof head, (off_t)(sec_off + table_off)) != (ssize_t)sizeof head)
		return 0;
	uint64_t len = (uint64_t)head[0] | (uint64_t)head[1] << 8 |
		       (uint64_t)head[2] << 16 | (uint64_t)head[3] << 24;
	uint64_t total = len + 4;
	if (len == 0xffffffff) {
		len = 0;
		for (int i = 0; i < 8; i++)
			len |= (uint64_t)head[4 + i] << (8 * i);
		total = len + 12;
	}
	if (total > sec_size - table_off)
		return 0;
	uint8_t *buf = xmalloc(total);
	size_t n = 0;
	if (pread(fd, buf, total, (off_t)(sec_off + table_off)) == (ssize_t)total)
		n = lf_table(buf, total, out);
	free(buf);
	return n;
}
