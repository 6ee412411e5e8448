/* view: read-only access to the recording for other modules (view.h). */
#include "view.h"

#include <stdlib.h>

#include "insn.h"
#include "rec.h"
#include "slice.h"
#include "target/session.h"

struct slice_view {
	const struct trace *tr;
	size_t blk;               /* the block in recs, or SIZE_MAX */
	size_t n;
	struct trace_rec recs[TRACE_BLK];
};

uint64_t slice_view_count(struct qz *q)
{
	return slice_rec(q)->tr.n;
}

bool slice_view_recording(struct qz *q)
{
	return slice_rec(q)->on;
}

int slice_view_record(struct qz *q)
{
	struct rec *r = slice_rec(q);
	if (!qz_running(q))
		return qz_error(q, "The program is not being run.");
	if (!r->on)
		rec_start(q, r);
	return 0;
}

struct slice_view *slice_view_open(struct qz *q)
{
	struct slice_view *v = xcalloc(1, sizeof *v);
	v->tr = &slice_rec(q)->tr;
	v->blk = SIZE_MAX;
	return v;
}

bool slice_view_get(struct slice_view *v, uint64_t i, struct slice_view_rec *out)
{
	const struct trace *t = v->tr;
	if (i >= t->n)
		return false;
	size_t b = (size_t)(i / TRACE_BLK);
	if (b != v->blk) {
		v->n = trace_block(t, b, v->recs);
		v->blk = b;
	}
	size_t k = (size_t)(i % TRACE_BLK);
	if (k >= v->n)
		return false;
	const struct trace_rec *r = &v->recs[k];
	const struct trace_insn *e = &t->insns[r->id];
	*out = (struct slice_view_rec){
		.pc = e->pc, .user = e->user, .text = e->in.text,
		.call = e->in.kind == INSN_CALL || e->in.kind == INSN_CALL_IND,
		.def = e->in.def, .use = e->in.use, .cond_def = e->in.cond_def,
		.inst = trace_inst_at(t, i),
	};
	if (out->inst >= 0 && (size_t)out->inst < t->insts.n) {
		const struct trace_stmt *s = &t->stmts[trace_inst_get(t, out->inst).stmt];
		out->file = s->file;
		out->line = s->line;
	}
	for (int m = 0; m < e->in.nmem && m < 3 && !r->skipped; m++) {
		const struct insn_mem *im = &e->in.mem[m];
		out->mem[out->nmem].addr = r->addr[m];
		out->mem[out->nmem].size = im->size;
		out->mem[out->nmem].base = im->base;
		out->mem[out->nmem].index = im->index;
		out->mem[out->nmem].rw = (im->rw & INSN_MEM_R ? SLICE_VIEW_MEM_R : 0) |
					 (im->rw & (INSN_MEM_W | INSN_MEM_CW) ? SLICE_VIEW_MEM_W : 0);
		out->nmem++;
	}
	return true;
}

void slice_view_close(struct slice_view *v)
{
	free(v);
}

bool slice_view_decode(struct qz *q, uint64_t pc, struct slice_view_rec *out)
{
	uint8_t code[15];
	struct insn in;
	if (qz_read(q, pc, code, sizeof code) < 0 || !insn_decode(code, sizeof code, pc, &in))
		return false;
	*out = (struct slice_view_rec){ .pc = pc, .def = in.def, .use = in.use,
					.cond_def = in.cond_def, .inst = -1 };
	for (int m = 0; m < in.nmem && m < 3; m++) {
		out->mem[m].size = in.mem[m].size;
		out->mem[m].base = in.mem[m].base;
		out->mem[m].index = in.mem[m].index;
		out->mem[m].rw = (in.mem[m].rw & INSN_MEM_R ? SLICE_VIEW_MEM_R : 0) |
				 (in.mem[m].rw & (INSN_MEM_W | INSN_MEM_CW) ? SLICE_VIEW_MEM_W : 0);
		out->nmem++;
	}
	return true;
}

int slice_view_reg(const char *name)
{
	return insn_reg_by_name(name);
}
