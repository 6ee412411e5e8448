/* rev-last: "where did this value come from", answered by moving there.
 * `last LVALUE` finds in the recording (its per-instruction memory
 * writes, as who-wrote reads them) the latest write of any of the
 * lvalue's bytes before the current position, and goes back to that
 * instruction as a reverse watchpoint stop would: before the write, the
 * Old value being the later one. `goto-instance FILE:LINE#N` moves to a
 * statement instance as the slice commands name it (its end: the state it
 * left; `start`: the state it began with). */
#include "rev.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cmd-slice.h"
#include "rec.h"
#include "slice.h"
#include "target/eval.h"
#include "target/frame.h"
#include "target/session.h"
#include "target/watch.h"
#include "value/value.h"
#include "whowrote.h"

/* The latest writer of any byte of w[0..size): its record, or -1. */
static int64_t rl_latest(const struct ww_byte *w, uint64_t size, bool *sys)
{
	int64_t best = -1;
	for (uint64_t k = 0; k < size; k++)
		if (w[k].found && (int64_t)w[k].rec > best) {
			best = (int64_t)w[k].rec;
			*sys = w[k].sys;
		}
	return best;
}

/* The bytes at v's address now, typed as v. */
static struct val rl_reread(struct qz *q, const struct val *v, bool *ok)
{
	uint8_t *buf = xmalloc(v->size ? v->size : 1);
	*ok = qz_read(q, v->addr, buf, v->size) == 0;
	struct val n = val_from_bytes(v->type, buf, v->size);
	n.where = VAL_MEM;
	n.addr = v->addr;
	free(buf);
	return n;
}

/* The stop: gdb's reverse watchpoint report, titled by what was asked. */
static void rl_report(struct qz *q, const char *what, uint64_t rec, bool sys,
		      const struct val *later, const struct val *before, bool readable)
{
	struct sbuf out = {0};
	sbuf_printf(&out, "\nLast write to %s: instruction %llu%s\n\n", what,
		    (unsigned long long)rec, sys ? " (a system call)" : "");
	watch_print_value(q, &out, "Old value", later);
	watch_print_value(q, &out, "New value", readable ? before : NULL);
	qz_puts(q, out.s);
	sbuf_free(&out);
	const struct frame *f = frame_get(q, 0);
	if (f)
		frame_print_stop(q, f, true);
}

int rev_last(struct qz *q, const char *what)
{
	uint64_t first, pos, end;
	if (!*what)
		return qz_error(q, "Usage: last LVALUE");
	if (rev_span(q, &first, &pos, &end) < 0)
		return -1;
	struct val v;
	if (eval_text(q, what, &v) < 0)
		return -1;
	int rc = 0;
	if (v.where != VAL_MEM || !v.size) {
		rc = qz_error(q, "\"%s\" is not in memory here (a register or a computed value): "
			      "last follows writes to memory; `slice` follows registers too.", what);
	} else if (v.size > 4096) {
		rc = qz_error(q, "%zu bytes: at most 4096 at a time.", v.size);
	} else {
		struct ww_byte *w = xcalloc(v.size, sizeof *w);
		bool sys = false, readable;
		ww_walk(q, w, v.addr, v.size, pos);
		int64_t rec = rl_latest(w, v.size, &sys);
		free(w);
		if (rec < 0)
			rc = qz_error(q, "%s was not written inside the recorded region before "
				      "instruction %llu (its value was set before recording began, "
				      "or by code the recording did not see).", what,
				      (unsigned long long)pos);
		else if ((uint64_t)rec < first)
			rc = qz_error(q, "%s was last written at instruction %llu, before the oldest "
				      "the undo log still holds (%llu): see set record undo-limit.",
				      what, (unsigned long long)rec, (unsigned long long)first);
		else if (rev_move(q, (uint64_t)rec) == 0) {
			struct val before = rl_reread(q, &v, &readable);
			rl_report(q, what, (uint64_t)rec, sys, &v, &before, readable);
			val_free(&before);
		} else {
			rc = -1;
		}
	}
	val_free(&v);
	return rc;
}

/* ---- goto-instance ---- */

/* "FILE:LINE#N", "FILE:LINE #N" (info slice's way) or "FILE:LINE N",
 * then an optional "start"/"end": the instance and which side of it. */
static int rl_parse(struct qz *q, const char *spec, int32_t *inst, bool *start)
{
	char *s = str_trim(spec), *word = s + strcspn(s, " \t#");
	long n = 0;
	int rc = 0;
	char sep = *word;
	*word = 0;
	const char *rest = sep ? str_skip_space(word + 1) : "";
	if (*rest == '#')
		rest++;
	if (isdigit((unsigned char)*rest)) {
		int64_t v = 0;
		if (str_num(&rest, 1, INT32_MAX, &v) != STR_NUM_OK)
			rc = qz_error(q, "Instance numbers start at 1.");
		n = (long)v;
		rest = str_skip_space(rest);
	} else if (sep == '#') {
		rc = qz_error(q, "Instance numbers start at 1.");
	}
	*start = false;
	if (rc == 0 && !strcmp(rest, "start"))
		*start = true;
	else if (rc == 0 && *rest && strcmp(rest, "end") != 0)
		rc = qz_error(q, "Usage: goto-instance FILE:LINE[#N] [start|end]");
	int32_t stmt;
	if (rc == 0 && !*s)
		rc = qz_error(q, "Usage: goto-instance FILE:LINE[#N] [start|end]");
	if (rc == 0)
		rc = cs_stmt(q, s, &stmt) < 0 || cs_inst(q, stmt, n, inst) < 0 ? -1 : 0;
	free(s);
	return rc;
}

int rev_goto_instance(struct qz *q, const char *spec)
{
	int32_t inst;
	bool start;
	uint64_t first, pos, end, lo = 0, hi = 0;
	if (rev_span(q, &first, &pos, &end) < 0 || rl_parse(q, spec, &inst, &start) < 0)
		return -1;
	char nb[256];
	slice_inst_name(q, inst, nb, sizeof nb);
	const struct trace *t = &slice_rec(q)->tr;
	if (!trace_inst_span(t, inst, &lo, &hi))
		return qz_error(q, "%s ran no instruction in the recording.", nb);
	uint64_t to = start ? lo : hi + 1;
	if (to < first)
		return qz_error(q, "%s ran at instructions %llu-%llu, before the oldest the undo log "
				"still holds (%llu): see set record undo-limit.", nb,
				(unsigned long long)lo, (unsigned long long)hi,
				(unsigned long long)first);
	if (rev_move(q, to) < 0)
		return -1;
	qz_printf(q, "%s %s (instructions %llu-%llu of %llu):\n", start ? "Start of" : "After", nb,
		  (unsigned long long)lo, (unsigned long long)hi, (unsigned long long)end);
	const struct frame *f = frame_get(q, 0);
	if (f)
		frame_print_stop(q, f, true);
	return 0;
}
