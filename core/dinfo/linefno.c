/* linefno: decode a DWARF 5 line program for its file register only (see
 * linefno.h for why). Bounds-checked: a short or corrupt table gives 0. */
#include "linefno.h"
#include "rawrd.h"
#include "util/util.h"

#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

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
static void lf_program(struct rd *r, unsigned opcode_base, const uint8_t *lens,
		       struct lfrows *rows)
{
	uint64_t file = 1;
	while (r->p < r->end && !r->bad) {
		unsigned op = *r->p++;
		if (op >= opcode_base) {
			lf_row(rows, file);
		} else if (op == 0) {
			uint64_t len = rd_uleb(r);
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
			file = rd_uleb(r);
		} else if (op == 9) {                       /* DW_LNS_fixed_advance_pc */
			rd_skip(r, 2);
		} else {
			for (unsigned k = 0; k < lens[op - 1]; k++)
				rd_uleb(r);
		}
	}
}

static size_t lf_table(const uint8_t *d, size_t size, uint32_t **out)
{
	struct rd r = { d, d + size, false };
	struct lfrows rows = {0};
	int offsz;
	if (!rd_unit(&r, &offsz))
		return 0;
	if (rd_n(&r, 2) != 5)
		return 0;
	rd_skip(&r, 2);                              /* address, selector sizes */
	uint64_t hlen = rd_n(&r, offsz);
	const uint8_t *prog = r.p;
	rd_skip(&r, 5);                              /* min_insn .. line_range */
	unsigned opcode_base = (unsigned)rd_n(&r, 1);
	const uint8_t *lens = r.p;
	rd_skip(&r, opcode_base ? opcode_base - 1 : 0);
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

/* The length of the table whose first 12 bytes are head, unit header
 * included, if it fits in room bytes; else 0. */
static uint64_t lf_total(const uint8_t *head, uint64_t room)
{
	uint64_t len = rd_le(head, 4), total = len + 4;
	if (len == 0xffffffff) {
		len = rd_le(head + 4, 8);
		total = len + 12;
	}
	return total < len || total > room ? 0 : total;
}

size_t linefno_rows_mem(const uint8_t *sec, uint64_t sec_size, uint64_t table_off,
			uint32_t **out)
{
	*out = NULL;
	if (!sec || table_off > sec_size || sec_size - table_off < 12)
		return 0;
	uint64_t total = lf_total(sec + table_off, sec_size - table_off);
	return total ? lf_table(sec + table_off, total, out) : 0;
}

size_t linefno_rows(int fd, uint64_t sec_off, uint64_t sec_size,
		    uint64_t table_off, uint32_t **out)
{
	uint8_t head[12];
	*out = NULL;
	if (fd < 0 || table_off + sizeof head > sec_size ||
	    pread(fd, head, sizeof head, (off_t)(sec_off + table_off)) != (ssize_t)sizeof head)
		return 0;
	uint64_t total = lf_total(head, sec_size - table_off);
	if (!total)
		return 0;
	uint8_t *buf = xmalloc(total);
	size_t n = 0;
	if (pread(fd, buf, total, (off_t)(sec_off + table_off)) == (ssize_t)total)
		n = lf_table(buf, total, out);
	free(buf);
	return n;
}
