/* cmd-slice: record, info record, slice, prune, deps, sbreak, sdelete,
 * info slices, info slice. Parsing and printing only; the work is in
 * rec.c and slice.c. */
#include "cmd-slice.h"
#include "emu-inline.h"
#include "emu-patch.h"
#include "explain.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmds.h"
#include "target/eval.h"
#include "dinfo/lines.h"
#include "emu.h"
#include "target/loc.h"
#include "target/session.h"
#include "prune.h"
#include "rev.h"
#include "sbreak.h"
#include "show.h"
#include "slice.h"
#include "spill.h"
#include "json.h"
#include "whowrote.h"
#include "sys.h"

static int cs_record_at(struct qz *q, const char *spec, bool on);

static int cmd_record(struct qz *q, const char *a)
{
	struct rec *r = slice_rec(q);
	char *s = str_trim(a ? a : "");
	int rc = 0;
	char *sp = strrchr(s, ' ');
	if (!*s || strcmp(s, "on") == 0 || strcmp(s, "full") == 0) {
		if (!qz_running(q))
			rc = qz_error(q, "The program is not being run.");
		else if (r->on)
			rc = qz_error(q, "Recording is already on.");
		else
			rec_start(q, r);
	} else if (strcmp(s, "off") == 0 || strcmp(s, "stop") == 0) {
		if (!r->on)
			rc = qz_error(q, "Recording is not on.");
		else if (qz_present(q) < 0)
			rc = -1;
		else {
			rec_stop(q, r);
			qz_printf(q, "Recording off: %llu instructions recorded.\n",
				  (unsigned long long)r->tr.n);
		}
	} else if (str_starts(s, "goto") && (!s[4] || s[4] == ' ')) {
		rc = cmd_record_goto(q, s + 4);
	} else if (sp && (strcmp(sp + 1, "on") == 0 || strcmp(sp + 1, "off") == 0)) {
		*sp = 0;
		rc = cs_record_at(q, s, strcmp(sp + 1, "on") == 0);
	} else {
		rc = qz_error(q, "Usage: record on | record off | record FILE:LINE on|off | "
			      "record goto begin|end|N");
	}
	free(s);
	return rc;
}

/* record FILE:LINE on|off: an internal stop at the line's address flips
 * recording when execution reaches it (slice.c's on_trap hook). */
static int cs_record_at(struct qz *q, const char *spec, bool on)
{
	struct loc_addr *locs;
	size_t n;
	if (loc_resolve_ex(q, spec, false, &locs, &n) < 0)
		return -1;
	struct slice_state *st = slice_state(q);
	for (size_t i = 0; i < n; i++) {
		XGROW(st->arms, st->arms_cap, st->narms + 1);
		struct slice_arm *arm = &st->arms[st->narms++];
		arm->link_addr = locs[i].link_addr;
		arm->addr = locs[i].addr;
		arm->on = on;
		arm->planted = false;
		if (qz_running(q) && bp_site_add(&q->bps, q->proc, arm->addr) == 0)
			arm->planted = true;
		qz_printf(q, "Recording %s when execution reaches %s:%d.\n", on ? "starts" : "stops",
			  locs[i].file ? str_basename(locs[i].file) : "??", locs[i].line);
	}
	free(locs);
	return 0;
}


static void cs_info_engine(struct qz *q, const struct rec *r)
{
	if (r->engine_note[0])
		qz_printf(q, "Not emulating: %s.\n", r->engine_note);
	uint64_t em, nat;
	rec_emu_counts(r->emu, &em, &nat);
	if (em || nat)
		qz_printf(q, "Emulated %llu instructions, ran %llu natively.\n",
			  (unsigned long long)em, (unsigned long long)nat);
}

static int cmd_info_record(struct qz *q, const char *a)
{
	(void)a;
	struct rec *r = slice_rec(q);
	const struct trace *t = &r->tr;
	qz_printf(q, "Recording: %s (engine: %s).\n", r->on ? "on" : "off", r->engine->name);
	cs_info_engine(q, r);
	size_t bytes = trace_bytes(t);
	qz_printf(q, "Recorded %llu instructions, %zu statement instances, %zu bytes held "
		  "(%.2f bytes per instruction).\n", (unsigned long long)t->n,
		  t->segs.n ? (size_t)t->insts.n : 0, bytes,
		  t->n ? (double)bytes / (double)t->n : 0.0);
	if (t->spilled) {
		char path[256];
		qz_printf(q, "%zu bytes of records spilled to a temporary file, zstd-compressed to %llu "
			  "bytes (%.3f bytes per instruction) in %zu frames: %s.\n", t->spilled,
			  (unsigned long long)t->file_bytes,
			  (double)t->file_bytes / (double)trace_spilled_records(t),
			  t->nframes, trace_file_name(t, path, sizeof path));
	}
	if (t->tabfile && t->tabfile->end && t->n)
		qz_printf(q, "Statement-instance tables: %zu + %zu + %zu rows, zstd-compressed to %llu "
			  "bytes in a second temporary file (%.3f bytes per instruction).\n",
			  t->insts.n, t->segs.n, t->cds.n, (unsigned long long)t->tabfile->end,
			  (double)t->tabfile->end / (double)t->n);
	qz_printf(q, "Decode cache: %zu instructions; statements seen: %zu.\n", t->ninsns, t->nstmts);
	rev_info(q);
	if (t->n)
		qz_printf(q, "Instance numbers are %s.\n", r->exact ?
			  "exact (counted from the start of the run)" :
			  "counted from where recording began (not from the start of the run)");
	if (!r->nunknown)
		return 0;
	qz_printf(q, "System calls whose memory effects are not modelled (treated as writing "
		  "nothing):");
	for (size_t i = 0; i < r->nunknown; i++) {
		char name[32];
		unsigned long n = r->unknown[i].count;
		qz_printf(q, "%s %s (%lu time%s)", i ? "," : "", sys_name(r->unknown[i].nr, name,
			  sizeof name), n, n == 1 ? "" : "s");
	}
	qz_puts(q, ".\n");
	return 0;
}

/* FILE:LINE to a statement of the trace. */
int cs_stmt(struct qz *q, const char *spec, int32_t *stmt)
{
	struct rec *r = slice_rec(q);
	const char *colon = strrchr(spec, ':');
	if (!colon || !q->exe.lines)
		return qz_error(q, "Expected FILE:LINE, not \"%s\".", spec);
	char *file = xstrndup(spec, (size_t)(colon - spec));
	const char *path = lines_file(q->exe.lines, file);
	int64_t line;
	bool ok = str_to_i64(colon + 1, &line);
	int rc = 0;
	if (!path)
		rc = qz_error(q, "No source file named %s.", file);
	else if (!ok || line <= 0)
		rc = qz_error(q, "Bad line number in \"%s\".", spec);
	free(file);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < r->tr.nstmts; i++)
		if (r->tr.stmts[i].file == path && r->tr.stmts[i].line == line) {
			*stmt = (int32_t)i;
			return 0;
		}
	return qz_error(q, "%s did not execute while recording.", spec);
}

/* The recorded instance #n of stmt (n 0: the latest). */
int cs_inst(struct qz *q, int32_t stmt, long n, int32_t *inst)
{
	const struct trace *t = &slice_rec(q)->tr;
	uint32_t lo = UINT32_MAX, hi = 0;
	*inst = -1;
	for (size_t k = 0; k < t->segs.n; k++) {
		int32_t i = trace_seg_get(t, k).inst;
		struct trace_inst ti = i < 0 ? (struct trace_inst){ 0, 0 } : trace_inst_get(t, i);
		if (i < 0 || ti.stmt != (uint32_t)stmt)
			continue;
		lo = ti.n < lo ? ti.n : lo;
		if (ti.n >= hi) {
			hi = ti.n;
			if (!n)
				*inst = i;
		}
		if (n && ti.n == (uint32_t)n)
			*inst = i;
	}
	if (*inst >= 0)
		return 0;
	char nb[256];
	return qz_error(q, "%s has no instance #%ld in the recording (recorded: #%u-#%u).",
			rec_stmt_name(slice_rec(q), stmt, nb, sizeof nb), n, lo, hi);
}

static int cs_last_inst(struct qz *q, int32_t *inst)
{
	const struct trace *t = &slice_rec(q)->tr;
	for (size_t k = t->segs.n; k-- > 0;) {
		struct trace_seg g = trace_seg_get(t, k);
		if (g.inst >= 0 && g.at < t->n) {
			*inst = g.inst;
			return 0;
		}
	}
	return qz_error(q, "No statement of the program was recorded.");
}

/* DWARF register number to the recorder's. */
static int cs_dwarf_reg(int d)
{
	static const int map[16] = { 0, 2, 1, 3, 6, 7, 5, 4, 8, 9, 10, 11, 12, 13, 14, 15 };
	if (d >= 0 && d < 16)
		return map[d];
	if (d >= 17 && d <= 32)
		return INSN_R_VEC0 + d - 17;
	return -1;
}

/* A variable, $REG or ADDR [SIZE] to a location: kind, reg, addr, size. */
int cs_location(struct qz *q, const char *what, uint8_t *kind, int *reg,
		       uint64_t *addr, uint64_t *size)
{
	if (what[0] == '$' && what[1 + strspn(what + 1, "abcdefghijklmnopqrstuvwxyz0123456789")] == 0) {
		*reg = insn_reg_by_name(what + 1);
		if (*reg < 0 || *reg == INSN_R_RSP)
			return qz_error(q, "Invalid or untracked register \"%s\".", what);
		*kind = SLICE_REG;
		return 0;
	}
	if (isdigit((unsigned char)what[0])) {
		char *end;
		*addr = strtoull(what, &end, 0);
		*size = 1;
		end = (char *)str_skip_space(end);
		if (*end && (!str_to_u64(end, size) || !*size || *size > 1 << 20))
			return qz_error(q, "Bad size \"%s\".", end);
		*kind = SLICE_MEM;
		return 0;
	}
	if (!qz_running(q))
		return qz_error(q, "No process: cannot locate \"%s\" (give ADDR SIZE or $REG).", what);
	struct val v;
	if (eval_text(q, what, &v) < 0)
		return -1;
	int rc = 0;
	if (v.where == VAL_MEM) {
		*kind = SLICE_MEM;
		*addr = v.addr;
		*size = v.size ? v.size : 1;
	} else if (v.where == VAL_REG && cs_dwarf_reg(v.reg) >= 0) {
		*kind = SLICE_REG;
		*reg = cs_dwarf_reg(v.reg);
	} else {
		rc = qz_error(q, "\"%s\" is not in memory or a register here.", what);
	}
	val_free(&v);
	return rc;
}

/* The N of FILE:LINE#N: 0 (refused by the caller) unless a number in
 * range; trailing text is ignored as before. */
static long cs_instance(const char *s)
{
	int64_t n = 0;
	return str_num(&s, 0, INT32_MAX, &n) == STR_NUM_OK ? (long)n : 0;
}

/* The last record of instance inst, or -1. */
static int64_t cs_last_rec(const struct trace *t, int32_t inst)
{
	uint64_t last;
	return trace_inst_span(t, inst, NULL, &last) ? (int64_t)last : -1;
}

/* $pc or $rip as the criterion: where the pc came from. After a `ret`
 * that is the return-address slot it read (a smashed return address is
 * sliced as memory); otherwise everything the instance used, which holds
 * the conditions it ran under. */
static int cs_pc_crit(struct qz *q, struct slice *sl)
{
	const struct trace *t = &slice_rec(q)->tr;
	int64_t i = cs_last_rec(t, sl->crit);
	struct trace_rec *recs = xmalloc(TRACE_BLK * sizeof *recs);
	size_t n = i < 0 ? 0 : trace_block(t, (size_t)i / TRACE_BLK, recs);
	const struct trace_rec *r = i >= 0 && (size_t)i % TRACE_BLK < n ? &recs[i % TRACE_BLK] : NULL;
	const struct insn *in = r && r->id < t->ninsns ? &t->insns[r->id].in : NULL;
	for (int k = 0; in && in->kind == INSN_RET && k < in->nmem; k++)
		if (in->mem[k].rw & INSN_MEM_R) {
			sl->kind = SLICE_MEM;
			sl->addr = r->addr[k];
			sl->size = 8;
		}
	free(recs);
	return 0;
}

/* Split "FILE:LINE[#N] [N] [REST]" off args. */
static int cs_parse_crit(struct qz *q, char *s, struct slice *sl)
{
	char *rest = s;
	if (*s && *s != '$' && !isdigit((unsigned char)*s)) {
		char *end = s + strcspn(s, " \t");
		char *colon = memchr(s, ':', (size_t)(end - s));
		if (colon) {
			char save = *end;
			*end = 0;
			char *hash = strchr(s, '#');
			long n = 0;
			if (hash) {
				*hash = 0;
				n = cs_instance(hash + 1);
			}
			int32_t stmt;
			int rc = cs_stmt(q, s, &stmt);
			*end = save;
			if (rc < 0)
				return -1;
			rest = (char *)str_skip_space(end);
			size_t digits = strspn(rest, "0123456789");
			if (!hash && digits && (!rest[digits] || isspace((unsigned char)rest[digits]))) {
				int64_t v = 0;   /* N; an ADDR is 0x... */
				str_num((const char **)&rest, 1, INT32_MAX, &v);
				n = (long)v;
				rest = (char *)str_skip_space(rest);
				hash = rest;
			}
			if (hash && n <= 0)
				return qz_error(q, "Instance numbers start at 1.");
			if (cs_inst(q, stmt, n, &sl->crit) < 0)
				return -1;
		}
	}
	if (sl->crit < 0 && cs_last_inst(q, &sl->crit) < 0)
		return -1;
	sl->kind = SLICE_ALL;
	if (!strcmp(rest, "$pc") || !strcmp(rest, "$rip"))
		return cs_pc_crit(q, sl);
	if (*rest)
		return cs_location(q, rest, &sl->kind, &sl->reg, &sl->addr, &sl->size);
	return 0;
}

static void cs_print_head(struct qz *q, const struct slice *s)
{
	char nb[300];
	qz_printf(q, "Slice %d from %s: %zu statements, %zu edges\n", s->id,
		  slice_inst_name(q, s->crit, nb, sizeof nb), s->nstmts, s->nedges);
}

static void cs_slice_free(struct slice *s)
{
	slice_free(s);
}

static int cmd_slice(struct qz *q, const char *a)
{
	struct slice_state *st = slice_state(q);
	if (!st->rec.tr.n)
		return qz_error(q, "Nothing has been recorded (use \"record on\" first).");
	struct slice s = { .crit = -1, .reg = -1 };
	char *args = str_trim(a ? a : "");
	int rc = cs_parse_crit(q, args, &s);
	s.what = args;
	if (rc == 0)
		rc = slice_compute(q, &s);
	if (rc < 0) {
		cs_slice_free(&s);
		return -1;
	}
	s.id = ++st->next_id;
	XGROW(st->slices, st->cap, st->n + 1);
	st->slices[st->n++] = s;
	cs_print_head(q, &s);
	return 0;
}

static struct slice *cs_slice_arg(struct qz *q, const char **a)
{
	const char *s = str_skip_space(*a ? *a : "");
	int64_t id;
	if (str_num(&s, INT32_MIN, INT32_MAX, &id))
		return qz_error(q, "Expected a slice number."), NULL;
	struct slice *sl = slice_find(q, (int)id);
	if (!sl)
		return qz_error(q, "No slice number %lld.", (long long)id), NULL;
	*a = str_skip_space(s);
	return sl;
}

static int cmd_prune(struct qz *q, const char *a)
{
	struct slice *s = cs_slice_arg(q, &a);
	if (!s)
		return -1;
	if (!*a)
		return qz_error(q, "Usage: prune ID VAR|$REG...");
	if (slice_stale(q, s))
		return qz_error(q, "Slice %d was computed on a recording that has since been cut "
				"back (a rollback) or replaced: record again and compute a new slice.",
				s->id);
	char *names = xstrdup(a), *save = NULL;
	int rc = 0;
	for (char *tok = strtok_r(names, " \t,", &save); tok && rc == 0;
	     tok = strtok_r(NULL, " \t,", &save)) {
		if (!strcmp(tok, "function") || !strcmp(tok, "file") || !strcmp(tok, "library")) {
			char *scope = tok;
			tok = strtok_r(NULL, " \t,", &save);
			rc = tok ? prune_scope(q, s, scope, tok) :
			     qz_error(q, "Usage: prune ID %s NAME", scope);
		} else {
			rc = prune_add(q, s, tok);
		}
	}
	free(names);
	if (rc < 0 || slice_compute(q, s) < 0)
		return -1;
	cs_print_head(q, s);
	return 0;
}

static int cmd_info_slice(struct qz *q, const char *a)
{
	struct slice *s = cs_slice_arg(q, &a);
	if (!s)
		return -1;
	char *rest = xstrdup(str_skip_space(a));
	bool json = js_flag(rest);
	bool full = strcmp(rest, "full") == 0;
	int rc = 0;
	if (*rest && !full)
		rc = qz_error(q, "Usage: info slice ID [full] [--json]");
	else if (json)
		show_members_json(q, s);
	else {
		cs_print_head(q, s);
		show_members(q, s, full);
	}
	free(rest);
	return rc;
}

static int cmd_info_slices(struct qz *q, const char *a)
{
	(void)a;
	struct slice_state *st = slice_state(q);
	if (!st->n)
		qz_puts(q, "No slices.\n");
	char nb[300];
	for (size_t i = 0; i < st->n; i++) {   /* with the time it took */
		const struct slice *s = &st->slices[i];
		qz_printf(q, "Slice %d from %s: %zu statements, %zu edges in %.3f s\n", s->id,
			  slice_inst_name(q, s->crit, nb, sizeof nb), s->nstmts, s->nedges, s->seconds);
	}
	return 0;
}

static int cmd_sdelete(struct qz *q, const char *a)
{
	struct slice *s = cs_slice_arg(q, &a);
	if (!s)
		return -1;
	struct slice_state *st = slice_state(q);
	int id = s->id;
	sb_delete_slice(q, id);   /* its sbreak entries and their statements */
	s = slice_find(q, id);
	size_t i = (size_t)(s - st->slices);
	cs_slice_free(s);
	memmove(&st->slices[i], &st->slices[i + 1], (st->n - i - 1) * sizeof *s);
	st->n--;
	return 0;
}

static int cmd_deps(struct qz *q, const char *a)
{
	struct slice *s = cs_slice_arg(q, &a);
	if (!s)
		return -1;
	if (!*a)
		return qz_error(q, "Usage: deps ID FILE:LINE[#N] [--json]");
	char *spec = str_trim(a), *hash;
	bool json = js_flag(spec);
	hash = strchr(spec, '#');
	long n = 0;
	if (hash) {
		*hash = 0;
		n = cs_instance(hash + 1);
	}
	int32_t stmt, inst = -1;
	int rc = cs_stmt(q, spec, &stmt);
	const struct trace *t = &slice_rec(q)->tr;
	for (size_t i = 0; rc == 0 && i < s->nmembers; i++) {
		const struct trace_inst tiv = trace_inst_get(t, slice_member_at(s, i)), *ti = &tiv;
		if (ti->stmt == (uint32_t)stmt && (n ? ti->n == (uint32_t)n :
		    inst < 0 || ti->n > trace_inst_get(t, inst).n))
			inst = slice_member_at(s, i);
	}
	if (rc == 0 && inst < 0)
		rc = qz_error(q, "%s is not in slice %d.", spec, s->id);
	free(spec);
	if (rc < 0)
		return -1;
	show_deps(q, s, inst, json);
	return 0;
}

/* "S1,S2" statements of slice s: FILE:LINE or LINE. */
static int cs_sbreak_add(struct qz *q, struct slice *s, const char *spec)
{
	struct slice_state *st = slice_state(q);
	const struct trace *t = &st->rec.tr;
	int32_t stmt = -1;
	if (strchr(spec, ':')) {
		if (cs_stmt(q, spec, &stmt) < 0)
			return -1;
	} else {
		int64_t line;
		if (!str_to_i64(spec, &line))
			return qz_error(q, "Expected FILE:LINE or LINE, not \"%s\".", spec);
		for (size_t i = 0; i < s->nmembers && stmt < 0; i++)
			if (t->stmts[trace_inst_get(t, slice_member_at(s, i)).stmt].line == line)
				stmt = (int32_t)trace_inst_get(t, slice_member_at(s, i)).stmt;
	}
	bool member = false;
	for (size_t i = 0; i < s->nmembers; i++)
		member |= stmt >= 0 && trace_inst_get(t, slice_member_at(s, i)).stmt == (uint32_t)stmt;
	if (!member)
		return qz_error(q, "%s is not a statement of slice %d.", spec, s->id);
	XGROW(st->sb, st->sb_cap, st->nsb + 1);
	st->sb[st->nsb++] = (struct slice_sbreak){ s->id, stmt, 0 };
	return 0;
}

static int cmd_sbreak(struct qz *q, const char *a)
{
	bool all = str_starts(str_skip_space(a ? a : ""), "all");
	if (all)
		a = str_skip_space(a) + 3;
	struct slice *s = cs_slice_arg(q, &a);
	if (!s)
		return -1;
	struct slice_state *st = slice_state(q);
	const struct trace *t = &st->rec.tr;
	size_t before = st->nsb;
	if (all) {
		for (size_t i = 0; i < s->nmembers; i++) {
			st->sb = st->sb;
			XGROW(st->sb, st->sb_cap, st->nsb + 1);
			st->sb[st->nsb++] = (struct slice_sbreak){ s->id, (int32_t)trace_inst_get(t, slice_member_at(s, i)).stmt, 0 };
		}
	} else {
		if (!*a)
			return qz_error(q, "Usage: sbreak ID S1[,S2...] | sbreak all ID");
		char *list = xstrdup(a), *save = NULL;
		int rc = 0;
		for (char *tok = strtok_r(list, ", \t", &save); tok && rc == 0;
		     tok = strtok_r(NULL, ", \t", &save))
			rc = cs_sbreak_add(q, s, tok);
		free(list);
		if (rc < 0) {
			st->nsb = before;
			return -1;
		}
	}
	st->last_sb = s->id;
	size_t ninst = 0;
	for (size_t i = 0; i < s->nmembers; i++)
		for (size_t k = before; k < st->nsb; k++)
			if (st->sb[k].stmt == (int32_t)trace_inst_get(t, slice_member_at(s, i)).stmt) {
				ninst++;
				break;
			}
	int num = sb_entry_new(q, s->id, ninst);
	for (size_t k = before; k < st->nsb; k++)
		st->sb[k].bp = num;
	qz_printf(q, "Slice breakpoint %d on slice %d: %zu statement instances; it takes effect "
		  "from the next run (instances are counted from its start).\n", num, s->id, ninst);
	return 0;
}

static int cmd_who_wrote(struct qz *q, const char *a)
{
	char *what = str_trim(a ? a : "");
	uint8_t kind = 0;
	int reg = -1, rc = -1;
	uint64_t addr = 0, size = 0;
	if (!slice_rec(q)->tr.n)
		qz_error(q, "Nothing has been recorded (use \"record on\" first).");
	else if (!*what)
		qz_error(q, "Usage: who-wrote ADDR [SIZE] | who-wrote LVALUE");
	else if (cs_location(q, what, &kind, &reg, &addr, &size) == 0) {
		if (kind != SLICE_MEM)
			qz_error(q, "\"%s\" is a register: who-wrote looks at memory (slice it instead).",
				 what);
		else if (size > 4096)
			qz_error(q, "%llu bytes: at most 4096 at a time.", (unsigned long long)size);
		else
			rc = ww_report(q, &slice_state(q)->names, addr, size, what);
	}
	free(what);
	return rc;
}

static int cmd_info_overflows(struct qz *q, const char *a)
{
	(void)a;
	if (!slice_rec(q)->tr.n)
		return qz_error(q, "Nothing has been recorded (use \"record on\" first).");
	return ww_overflows(q, &slice_state(q)->names);
}

/* set record engine emulate|step: takes effect at the next region. */
static int cs_set_engine(struct qz *q, const char *v)
{
	struct rec *r = slice_rec(q);
	if (strcmp(v, "step") == 0 || strcmp(v, "single-step") == 0)
		r->want_step = true;
	else if (strcmp(v, "emulate") == 0)
		r->want_step = false;
	else
		return qz_error(q, "Usage: set record engine emulate|step");
	return 0;
}

static int cs_set_progress(struct qz *q, const char *v)
{
	int *m = &slice_rec(q)->progress_mode;
	if (strcmp(v, "on") == 0)
		*m = 1;
	else if (strcmp(v, "off") == 0)
		*m = -1;
	else if (strcmp(v, "auto") == 0)
		*m = 0;
	else
		return qz_error(q, "Usage: set record progress on|off|auto");
	return 0;
}

/* v as one of two words: 1 for yes, 0 for no, -1 for anything else. */
static int cs_pick(const char *v, const char *yes, const char *no)
{
	return strcmp(v, yes) == 0 ? 1 : strcmp(v, no) == 0 ? 0 : -1;
}

/* set record tmpfile on|off (hidden, the tests'): off forces the memory
 * fallback of spill.c's files. */
static int cs_set_tmpfile(struct qz *q, const char *v)
{
	int on = cs_pick(v, "on", "off");
	if (on < 0)
		return qz_error(q, "Usage: set record tmpfile on|off");
	spill_set_enabled(on);
	return 0;
}

static int cmd_maint_emulator(struct qz *q, const char *a)
{
	const char *v = str_skip_space(a ? a : "");
	int on;
	if ((on = cs_pick(v, "hook-libs", "skip-libs")) >= 0)
		rec_emu_hook_libs(on);
	else if ((on = cs_pick(v, "full-hook", "quick-hook")) >= 0)
		rec_emu_full_hook(on);
	else if ((on = cs_pick(v, "on", "off")) >= 0)
		rec_emu_force_off(!on);
	else
		return qz_error(q, "Usage: maint emulator on|off|hook-libs|skip-libs|full-hook|quick-hook");
	return 0;
}

static int cmd_maint_emulator_time_limit(struct qz *q, const char *a)
{
	uint64_t usec;
	if (!str_to_u64(str_skip_space(a ? a : ""), &usec) || usec == 0 || usec > 10000000)
		return qz_error(q, "Usage: maint emulator-time-limit USEC (1 to 10000000)");
	rec_emu_time_limit(usec);
	return 0;
}

static int cmd_maint_emulator_lean(struct qz *q, const char *a)
{
	const char *v = str_skip_space(a ? a : "");
	int on = strcmp(v, "unsync") == 0 ? 2 : cs_pick(v, "on", "off");   /* unsync: the tests' */
	if (on < 0)
		return qz_error(q, "Usage: maint emulator-lean on|off");
	rec_emu_lean(on != 0, on == 2);
	return 0;
}

/* maint emulator-stores [fast|exact|stuck]: Unicorn 2.0.1's stores on the
 * fast path (its code mended in place, the default) or its own slow path;
 * stuck (the tests') makes putting its code back fail. */
static int cmd_maint_emulator_stores(struct qz *q, const char *a)
{
	const char *v = str_skip_space(a ? a : "");
	char why[200];
	if (strcmp(v, "stuck") == 0) {   /* the tests': putting it back fails */
		emu_patch_stuck();
		return 0;
	}
	int fast = cs_pick(v, "fast", "exact");
	if (*v && fast < 0)
		return qz_error(q, "Usage: maint emulator-stores [fast|exact]");
	if (*v && !emu_patch_allow(fast, why, sizeof why))
		return qz_error(q, "Stores cannot take the fast path: %s.", why);
	qz_printf(q, "%s\n", emu_patch_state());
	return 0;
}

/* maint emulator-inline [on|off|blind] (the tests'): which, or why not. */
static int cmd_maint_emulator_inline(struct qz *q, const char *a)
{
	const char *v = str_skip_space(a ? a : "");
	if (strcmp(v, "blind") == 0) {   /* the tests': checks never stop */
		emu_inline_blind();
		return 0;
	}
	int on = cs_pick(v, "on", "off");
	if (*v && on < 0)
		return qz_error(q, "Usage: maint emulator-inline [on|off]");
	if (*v)
		emu_inline_allow(on);
	qz_printf(q, "%s.\n", emu_inline_state());
	return 0;
}

/* maint emulator-regs [direct|api] (hidden, the tests'): api reads every
 * register through uc_reg_read; without an argument, what the probe found. */
static int cmd_maint_emulator_regs(struct qz *q, const char *a)
{
	const char *v = str_skip_space(a ? a : "");
	if (!*v) {
		qz_printf(q, "%s.\n", emu_regs_status());
		return 0;
	}
	int api = cs_pick(v, "api", "direct");
	if (api < 0)
		return qz_error(q, "Usage: maint emulator-regs [direct|api]");
	emu_force_reg_api(api);
	return 0;
}

/* set record-libc baseline|vector: for the next run (not in a replay: it
 * changes qzdb's environment, which every program it starts inherits). */
static int cmd_set_record_libc(struct qz *q, const char *a)
{
	const char *v = str_skip_space(a ? a : "");
	if (strcmp(v, "baseline") != 0 && strcmp(v, "vector") != 0)
		return qz_error(q, "Usage: set record-libc baseline|vector");
	rec_emu_libc_baseline(strcmp(v, "baseline") == 0);
	qz_printf(q, "Programs started from now on use glibc's %s string functions.\n",
		  rec_emu_libc_is_baseline() ? "SSE2 (emulated)" : "vector (AVX2/EVEX: run natively)");
	return 0;
}

/* maint print-record [FROM [COUNT]] */
static int cmd_maint_print_record(struct qz *q, const char *a)
{
	uint64_t from = 0, count = UINT64_MAX;
	char *s = str_trim(a ? a : ""), *sp = strchr(s, ' ');
	if (sp)
		*sp++ = 0;
	bool ok = (!*s || str_to_u64(s, &from)) && (!sp || str_to_u64(str_skip_space(sp), &count));
	free(s);
	if (!ok)
		return qz_error(q, "Usage: maint print-record [FROM [COUNT]]");
	rec_dump(q, slice_rec(q), from, count);
	return 0;
}

static int cmd_set_record(struct qz *q, const char *a)
{
	char *s = str_trim(a ? a : "");
	uint64_t n = 0;
	int rc = 0;
	if (str_starts(s, "undo"))
		rc = rev_set(q, s);
	else if (str_starts(s, "engine"))
		rc = cs_set_engine(q, str_skip_space(s + 6));
	else if (str_starts(s, "progress"))
		rc = cs_set_progress(q, str_skip_space(s + 8));
	else if (str_starts(s, "tmpfile"))
		rc = cs_set_tmpfile(q, str_skip_space(s + 7));
	else if (str_starts(s, "spill") && str_to_u64(str_skip_space(s + 5), &n) && n >= 4096)
		slice_rec(q)->tr.spill_at = (size_t)n;
	else
		rc = qz_error(q, "Usage: set record spill BYTES (at least 4096) | set record engine "
			      "emulate|step | set record progress on|off|auto | set record undo-limit "
			      "BYTES|unlimited | set record undo on|off");
	free(s);
	return rc;
}

/* snext [ID]: continue to the next instance that is a member of the slice
 * (the one sbreak was last set on), with the instance counts of a run
 * counted from its start. */
static int cmd_snext(struct qz *q, const char *a)
{
	struct slice_state *st = slice_state(q);
	const char *p = str_skip_space(a ? a : "");
	int id = st->last_sb;
	if (*p) {
		struct slice *s = cs_slice_arg(q, &p);
		if (!s)
			return -1;
		id = s->id;
	}
	if (!slice_find(q, id))
		return qz_error(q, "No slice to step in: give its number, or set an sbreak on it.");
	if (!st->rec.counting && !st->rec.on)
		return qz_error(q, "snext needs instances counted from the start of the run: "
				"set an sbreak on the slice and run again.");
	if (!st->rec.exact)
		return qz_error(q, "Instance counts are not exact here (counting began mid-run).");
	st->snext = id;
	int rc = cmd_continue(q, "");
	st->snext = 0;
	return rc;
}

#include "cmd/cmd-flags.h"

/* The module's commands (core assembles its table from every module's). */
const struct cmd_def slice_cmds[] = {
	{"record", "rec", "record on|off | record FILE:LINE on|off | record goto begin|end|N", Y,
	 cmd_record,
	 "Record every instruction the program executes (for slicing).",
	 "While recording is on, continue/next/step/finish log every instruction with\n"
	 "its statement instance, the registers and memory it read and wrote. The\n"
	 "instructions run in an emulator (system calls, AVX, cpuid natively); see\n"
	 "`help set record` for the single-step engine. `record FILE:LINE on|off`\n"
	 "starts or stops recording when execution reaches that line.\n"
	 "record goto begin|end|N moves to an instruction of the recording (N counts\n"
	 "those run since recording began, as gdb; end is the live process again):\n"
	 "in between the process shows the past (see reverse-stepi)."},
	{"info record", "rec", NULL, Y, cmd_info_record,
	 "Recording status: engine, instructions, instances, bytes per instruction, file.",
	 NULL},
	{"reverse-stepi", "rsi", "reverse-stepi [N]", P | Y, cmd_reverse_stepi,
	 "Step back one instruction (N times) in the recording.",
	 "The process is taken back to the state before the instruction: registers\n"
	 "and memory from the undo log. stepi, next, continue then replay the log\n"
	 "forward (system calls are not run again) until the end of the recording."},
	{"reverse-nexti", "rni", "reverse-nexti [N]", P | Y, cmd_reverse_nexti,
	 "Step back one instruction, over a call that returned there.", NULL},
	{"reverse-step", "rs", "reverse-step [N]", P | Y, cmd_reverse_step,
	 "Step back to the start of the previous line executed, into calls.",
	 "Going back over a call of a function with line info stops at the start of\n"
	 "its last line, as gdb's record full does."},
	{"reverse-next", "rn", "reverse-next [N]", P | Y, cmd_reverse_next,
	 "Step back to the start of the previous line executed in this frame.", NULL},
	{"reverse-finish", NULL, "reverse-finish", P | Y, cmd_reverse_finish,
	 "Go back to where the selected frame's function was called (the call).", NULL},
	{"reverse-continue", "rc", "reverse-continue", P | Y, cmd_reverse_continue,
	 "Run backwards to the latest breakpoint hit, or the start of the recording.",
	 "Breakpoints stop where their line starts, with their conditions;\n"
	 "watchpoints at the instruction that wrote the value (Old value is the later\n"
	 "one); at the first recorded instruction: \"No more reverse-execution history.\""},
	{"last", NULL, "last LVALUE", P | Y, cmd_last,
	 "Go back to the instruction that last wrote LVALUE (where its value came from).",
	 "Searches the recording's memory writes (no watchpoint needed) for the latest\n"
	 "write to any byte of LVALUE before the current position and moves there, as\n"
	 "reverse-continue with a watchpoint would stop: before the writing instruction,\n"
	 "with Old value (the later one) and New value (the one before the write). A\n"
	 "write that stored the value already there counts too (a watchpoint would pass\n"
	 "it). Says so when the bytes were not written inside the recorded region."},
	{"goto-instance", "gi", "goto-instance FILE:LINE[#N] [start|end]", P | Y, cmd_goto_instance,
	 "Move to a statement instance of the recording, as slices name them.",
	 "FILE:LINE#N is the N-th execution of that line while recording (as `info\n"
	 "slice`, `deps` and the slice panes show it; without #N the latest). end (the\n"
	 "default): the state just after the instance's last instruction, where what it\n"
	 "defined is visible; start: the state before its first instruction. Then the\n"
	 "usual commands read that state; `record goto end` returns to the present."},
	{"slice", NULL, "slice [FILE:LINE [N]] [VAR | ADDR [SIZE] | $REG]", Y, cmd_slice,
	 "Backward dynamic slice from a statement instance of the recording.",
	 "The criterion defaults to the last statement executed (the crash point\n"
	 "after a crash) and its latest instance; with no variable, everything that\n"
	 "instance used. Prints the slice's number."},
	{"prune", NULL, "prune ID VAR|FUNC::VAR|LVALUE|$REG... | prune ID function|file|library NAME",
	 Y, cmd_prune, "Drop a slice's dependences through those variables or registers.",
	 "Names are found at the slice's criterion: a variable of the criterion's\n"
	 "function, FUNC::VAR of any function the recording saw run (also after it\n"
	 "returned, or with the stack smashed), a global or file static; other\n"
	 "lvalues (p->next, buf[3]) are evaluated in the selected frame.\n"
	 "function F: every variable of F's recorded frames; file F: every global\n"
	 "and static defined in F; library L: all of L's mapped memory."},
	{"deps", NULL, "deps ID FILE:LINE[#N] [--json]", Y, cmd_deps,
	 "Dependence edges out of a statement instance of a slice.",
	 "Edges to several instances of one statement through one place (a copy\n"
	 "loop's bytes) are one line: FROM -> FILE:LINE#3-#9 data NAME (7 edges).\n"
	 "Memory is named from debug info and the frames the recording saw."},
	{"sbreak", NULL, "sbreak ID S1[,S2...] | sbreak all ID", Y, cmd_sbreak,
	 "Break at a slice's statements, only at their slice instances (next run).", NULL},
	{"snext", NULL, "snext [ID]", P | Y, cmd_snext,
	 "Continue to the next instance of a statement of the slice.", NULL},
	{"sdelete", NULL, "sdelete ID", Y, cmd_sdelete, "Delete a slice.", NULL},
	{"info slices", NULL, NULL, Y, cmd_info_slices, "List the slices.", NULL},
	{"info slice", NULL, "info slice ID [full] [--json]", Y, cmd_info_slice,
	 "Members of a slice: one statement a line with its instances.",
	 "Up to 8 instances are spelled out (#1,#2,#3); more are shown as runs\n"
	 "with their count (#1-#98,#120 (99)), at most 6 runs unless `full`."},
	/* plain-words explanations (slice/explain.c) */
	{"explain", NULL, "explain | explain slice ID | explain ID FILE:LINE[#N] [--json]", Y,
	 cmd_explain,
	 "Explain in plain words the last stop, a slice, or a statement's dependences.",
	 "With no argument: why the program stopped (the signal and what it means, where,\n"
	 "the statement, and your call site if it stopped inside a library).\n"
	 "explain slice ID: the chain from the slice's criterion back to its roots.\n"
	 "explain ID FILE:LINE[#N]: what that statement instance used and why it ran."},
	{"who-wrote", NULL, "who-wrote ADDR [SIZE] | who-wrote LVALUE", Y, cmd_who_wrote,
	 "The last recorded writes to some memory, with their statement instances.",
	 "Each byte's last writer in the recording: a statement instance (the\n"
	 "library function it called, when the write was inside one), a system\n"
	 "call, or `not written while recording`. Bytes are named from debug info\n"
	 "and the frames the recording saw (`genstr[12]`, `the return address of f`)."},
	{"info overflows", NULL, NULL, Y, cmd_info_overflows,
	 "Recorded writes that ran past the object they started in.",
	 "A statement's writes are followed as one run (all the stores of a call\n"
	 "such as strcpy or sprintf; one store instruction of a copy loop over its\n"
	 "instances); a run that starts in a global, a static or a local of a\n"
	 "recorded frame and ends past it is shown with its size and what it ran\n"
	 "over. Malloc blocks are measured from glibc's heap as it is now (their\n"
	 "usable size, which malloc may round up from the size asked for)."},
	{"set record", NULL, "set record spill BYTES | engine emulate|step | progress on|off|auto | "
	 "undo-limit BYTES|unlimited | undo on|off",
	 Y, cmd_set_record, "Recording settings: memory kept, engine, progress lines, undo log.",
	 "spill BYTES: keep at most BYTES of recording in memory (4 MiB by default);\n"
	 "the rest goes to a temporary file in $TMPDIR, as do slices' edges. engine\n"
	 "emulate (the default): run the program's instructions in an emulator and\n"
	 "only system calls and what it lacks (AVX, cpuid, rdtsc, x87) natively;\n"
	 "engine step: single-step every instruction (the oracle). Both record the\n"
	 "same trace. progress: a line on stderr once a second while a region runs\n"
	 "longer than half a second (auto: when stderr is a terminal). undo-limit:\n"
	 "the most the undo log of reverse execution keeps (64 MiB by default, all\n"
	 "but its newest 2 MiB at most in a temporary file; beyond it the oldest\n"
	 "instructions' entries go, with a warning);\n"
	 "undo off: keep none (no reverse execution; recording is a little faster)."},
	{"set record-libc", NULL, "set record-libc baseline|vector", 0, cmd_set_record_libc,
	 "Whether programs started from now on use glibc's SSE2 string functions.",
	 "baseline: the next run gets GLIBC_TUNABLES hwcaps masks so that glibc picks its\n"
	 "SSE2 string functions, which the recorder emulates (about 100 times faster than\n"
	 "single-stepping); vector (the default): glibc picks the AVX2/EVEX ones, whose\n"
	 "every instruction runs natively while recording. Dependences are the same\n"
	 "either way at the level of your statements (library code is squashed into\n"
	 "the calling statement)."},
	{"maint print-record", NULL, "maint print-record [FROM [COUNT]]", Y, cmd_maint_print_record,
	 "The recording's records, one a line: pc, instance, control parent, addresses.", NULL},
	{"maint emulator-regs", NULL, "maint emulator-regs [direct|api]", Y | CMD_HIDDEN,
	 cmd_maint_emulator_regs,
	 "direct (the default): the emulator's hooks read general registers from\n"
	 "where Unicorn keeps them, when a probe found and checked that place;\n"
	 "api: always through uc_reg_read (tests the fallback). Without an\n"
	 "argument: what the last probe found.", NULL},
	{"maint emulator-time-limit", NULL, "maint emulator-time-limit USEC", Y | CMD_HIDDEN,
	 cmd_maint_emulator_time_limit,
	 "How long the emulator runs while a loop runs unhooked before it stops\n"
	 "at the next hook to look for a quit or a signal (100000 us); for the\n"
	 "tests: small, it stops often.", NULL},
	{"maint emulator-inline", NULL, "maint emulator-inline [on|off]", Y | CMD_HIDDEN,
	 cmd_maint_emulator_inline,
	 "on (the default where it works): checks compiled into lean translations;\n"
	 "off: their instructions with memory operands keep the hook (the tests').", NULL},
	{"maint emulator-lean", NULL, "maint emulator-lean on|off", Y | CMD_HIDDEN,
	 cmd_maint_emulator_lean,
	 "on (the default): in the memory watcher's runs with quick verdicts, a block\n"
	 "of the program's own code run 256 times is translated again with only the\n"
	 "instructions that need the hook hooked; off: every instruction keeps it\n"
	 "(for the tests).", NULL},
	{"maint emulator-stores", NULL, "maint emulator-stores [fast|exact]", Y | CMD_HIDDEN,
	 cmd_maint_emulator_stores,
	 "fast (the default): Unicorn 2.0.1's stores run its fast path, the one\n"
	 "instruction that sent each store to a search for code to invalidate made\n"
	 "a no-op in the loaded library (about 60 ns a store saved); exact: its\n"
	 "own code back (for the tests). A writable and executable mapping puts it\n"
	 "back for good (or, if it cannot be, runs that mapping on the CPU; stuck\n"
	 "makes putting it back fail, for the tests). Without an argument: the path\n"
	 "stores take now.", NULL},
	{"maint emulator", NULL, "maint emulator on|off|hook-libs|skip-libs|full-hook|quick-hook", Y,
	 cmd_maint_emulator,
	 "off: act as if the recorder's emulator could not be used (tests the fallback).\n"
	 "skip-libs (the default): in the memory watcher's runs library code runs\n"
	 "without the per-instruction hook, a block hook looks at each block;\n"
	 "hook-libs: the emulator hooks every library instruction too, as when\n"
	 "recording.\n"
	 "quick-hook (the default): in the same runs, while no register holds an\n"
	 "undefined byte, a hooked instruction that touches no memory and is no\n"
	 "call, return or indirect jump is only counted once the hook has seen it;\n"
	 "full-hook: the hook looks at each such instruction in full every time.", NULL},

	CMD_END,
};
