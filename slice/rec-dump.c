/* rec-dump: `maint print-record`: every record of the trace in words, one
 * a line (pc, mnemonic, statement instance, control parent, addresses,
 * system-call writes), so two engines' traces can be compared line by line
 * (tests/batch/recdiff.sh). */
#include "rec.h"

#include <stdlib.h>

#include "target/session.h"
#include "slice.h"

static void rd_record(struct qz *q, const struct trace *t, uint64_t i, const struct trace_rec *rec)
{
	const struct trace_insn *e = &t->insns[rec->id];
	char nb[300];
	int32_t inst = trace_inst_at(t, i);
	qz_printf(q, "%llu 0x%llx %s %s cd=%lld", (unsigned long long)i, (unsigned long long)e->pc,
		  e->in.text, inst >= 0 ? slice_inst_name(q, inst, nb, sizeof nb) : "-",
		  (long long)trace_cd_at(t, i));
	if (rec->skipped)
		qz_puts(q, " skipped");
	for (int k = 0; k < e->in.nmem && !rec->skipped; k++)
		qz_printf(q, " %s0x%llx", e->in.mem[k].rw & INSN_MEM_W ? "w" : "r",
			  (unsigned long long)rec->addr[k]);
	size_t n, s = trace_sys_of(t, i, &n);
	for (size_t k = s; k < s + n; k++)
		qz_printf(q, " sys[0x%llx+%llu]", (unsigned long long)t->sys[k].addr,
			  (unsigned long long)t->sys[k].len);
	qz_puts(q, "\n");
}

void rec_dump(struct qz *q, const struct rec *r, uint64_t from, uint64_t count)
{
	const struct trace *t = &r->tr;
	struct trace_rec *recs = xmalloc(TRACE_BLK * sizeof *recs);
	for (size_t b = from / TRACE_BLK; b < t->nblks && count; b++) {
		size_t n = trace_block(t, b, recs);
		for (size_t k = 0; k < n && count; k++) {
			uint64_t i = (uint64_t)b * TRACE_BLK + k;
			if (i < from)
				continue;
			rd_record(q, t, i, &recs[k]);
			count--;
		}
	}
	free(recs);
}
