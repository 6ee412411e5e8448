/* explain: plain-words accounts, for students, of why the program last
 * stopped, of what a slice says (the chain from its criterion back to its
 * roots) and of one statement instance's dependence edges. Everything is
 * read from the stop (siginfo, frames) and the slice module's data; no
 * state of its own. */
#include "explain.h"
#include "explain-rec.h"
#include "json.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dinfo/dinfo.h"
#include "target/frame.h"
#include "target/mod.h"
#include "dinfo/image.h"
#include "proc/proc.h"
#include "target/session.h"
#include "proc/signals.h"
#include "rec.h"
#include "slice.h"
#include "dinfo/source.h"

/* How many statement instances `explain slice` walks before it stops
 * (a long slice is read with info slice and explain ID FILE:LINE). */
#define EX_WALK_MAX 12

/* ---- the last stop ---- */

/* What signal sig means, in a sentence or two. addr: the faulting
 * address, pc: where the program was. */
static void ex_sig_meaning(struct sbuf *b, int sig, int code, uint64_t addr, uint64_t pc)
{
	if (sig == SIGSEGV && code == SI_KERNEL)
		sbuf_add(b, "It used an address the processor refuses outright (a \"non-canonical\" "
			 "address, far outside all memory): a pointer made of garbage bytes, such as "
			 "text copied over it.\n");
	else if (sig == SIGSEGV && addr < 4096)
		sbuf_printf(b, "It used the address 0x%llx, which is NULL%s: nothing lives there, "
			    "so the program may not read or write it. A pointer that should point "
			    "to something was NULL.\n", (unsigned long long)addr,
			    addr ? " plus a small offset (a field reached through a NULL pointer)" : "");
	else if (sig == SIGSEGV && addr == pc)
		sbuf_printf(b, "It tried to run code at 0x%llx, where there is none: a return "
			    "address on the stack was overwritten (a stack buffer overflow) or a "
			    "function pointer holds garbage.\n", (unsigned long long)addr);
	else if (sig == SIGSEGV)
		sbuf_printf(b, "It used the address 0x%llx, which is not memory the program may use "
			    "(never allocated, already freed, or past the end of a buffer).\n",
			    (unsigned long long)addr);
	else if (sig == SIGABRT)
		sbuf_add(b, "The program stopped itself by calling abort(). The C library does this "
			 "when it finds its heap bookkeeping broken (a double free, or a write past "
			 "the end of a malloc'd block); assert() does it when a check fails.\n");
	else if (sig == SIGFPE)
		sbuf_add(b, "An arithmetic error: most often an integer division by zero.\n");
	else if (sig == SIGBUS)
		sbuf_add(b, "It used an address that exists but cannot be accessed that way "
			 "(past the end of a mapped file, or misaligned).\n");
	else if (sig == SIGILL)
		sbuf_add(b, "The processor met bytes that are not a valid instruction: the program "
			 "jumped into data, or reached a deliberate trap.\n");
	else if (sig == SIGINT)
		sbuf_add(b, "You interrupted it (Control-C).\n");
}

static bool ex_json;   /* explain ... --json: the text as JSON lines */

static void ex_emit(struct qz *q, const char *text)
{
	if (!ex_json) {
		qz_puts(q, text);
		return;
	}
	struct sbuf j = {0};
	js_lines(&j, "explain", text);
	qz_puts(q, j.s);
	sbuf_free(&j);
}

/* "FUNC at FILE:LINE" then the statement's text on its own line. */
static void ex_where(struct qz *q, struct sbuf *b, const struct frame *f)
{
	sbuf_printf(b, "%s (%s:%d)", f->func ? f->func->name : f->sym ? f->sym : "??",
		    str_basename(frame_file_name(q, f->file)), f->line);
	const char *text = src_line(f->file, f->line, NULL);
	if (text)
		sbuf_printf(b, ", the statement\n    %s\n", str_skip_space(text));
	else
		sbuf_add(b, ".\n");
}

/* The innermost frame in the program's own code with line information. */
static const struct frame *ex_user_frame(struct qz *q, int *level)
{
	for (int i = 0; i < 64; i++) {
		const struct frame *f = frame_get(q, i);
		if (!f)
			return NULL;
		if (f->mod == &q->exe && f->file && f->line > 0) {
			*level = i;
			return f;
		}
	}
	return NULL;
}

/* The name the program called a library function by: the symbol at the
 * function's entry (free), not its debug information's name
 * (__GI___libc_free, with libc6-dbg). */
static const char *ex_called_name(const struct frame *callee)
{
	if (!callee)
		return "??";
	if (callee->sym || !callee->func)
		return callee->sym ? callee->sym : "??";
	uint64_t off;
	const struct img_sym *s = callee->mod && callee->mod->img ?
		img_sym_at(callee->mod->img, callee->func->lo, &off) : NULL;
	return s && off == 0 ? s->name : callee->func->name;
}

static void ex_location(struct qz *q, struct sbuf *b, const char *verb)
{
	int level = 0;
	const struct frame *u = ex_user_frame(q, &level);
	if (!u) {
		sbuf_printf(b, "It %s at 0x%llx, in code without debugging information.\n", verb,
			    (unsigned long long)proc_pc(q->proc));
		return;
	}
	if (level == 0) {
		sbuf_printf(b, "It %s in ", verb);
		ex_where(q, b, u);
		return;
	}
	const struct frame *callee = frame_get(q, level - 1);
	const char *lib = callee && callee->mod && callee->mod->path ?
		str_basename(callee->mod->path) : "a library";
	sbuf_printf(b, "It %s inside %s, a function of %s (library code, not yours), which your "
		    "program called from ", verb, ex_called_name(callee), lib);
	ex_where(q, b, u);
	sbuf_add(b, "The cause is in your code: the arguments it passed there, or, for malloc "
		 "and free, memory your code damaged earlier that the library only noticed now.\n");
}

/* At a closing brace the function returns through the address saved on
 * its stack: a crash there means that address was overwritten. */
static void ex_return_hint(struct qz *q, struct sbuf *b)
{
	const struct frame *f = frame_get(q, 0);
	const char *text = f && f->file ? src_line(f->file, f->line, NULL) : NULL;
	uint8_t op = 0;
	bool ret = qz_read(q, proc_pc(q->proc), &op, 1) == 0 && (op == 0xc3 || op == 0xc2);
	if (ret || (text && str_skip_space(text)[0] == '}'))
		sbuf_add(b, "At a closing brace the function returns, through an address saved on the "
			 "stack next to its local variables: that address was overwritten, typically "
			 "by a local array written past its end.\n");
}

static int ex_gone(struct qz *q)
{
	if (q->stop == QZ_STOP_EXITED)
		return qz_printf(q, "The program ran to its end and exited with code %d: "
				 "nothing went wrong that the system noticed.\n", q->last_exit_code), 0;
	if (q->stop == QZ_STOP_KILLED && q->term_sig) {
		struct sbuf b = {0};
		sbuf_printf(&b, "The program was ended by signal %s (%s).\n", sig_name(q->term_sig),
			    sig_desc(q->term_sig));
		ex_sig_meaning(&b, q->term_sig, 0, 1 << 20, 0);
		ex_emit(q, b.s);
		sbuf_free(&b);
		return 0;
	}
	return qz_error(q, "The program is not being run: there is no stop to explain.");
}

static int ex_stop(struct qz *q)
{
	if (!qz_running(q))
		return ex_gone(q);
	struct sbuf b = {0}, mods = {0};
	siginfo_t si = {0};
	if (mod_explain_stop(q, &mods)) {   /* a module made the stop: its words */
		ex_location(q, &mods, "stopped");
		ex_emit(q, mods.s);
		sbuf_free(&mods);
		return 0;
	}
	switch (q->stop) {
	case QZ_STOP_SIGNAL:
		if (proc_siginfo(q->proc, &si) < 0)
			si.si_signo = q->stop_sig;
		sbuf_printf(&b, "The program received signal %s (%s).\n", sig_name(si.si_signo),
			    sig_desc(si.si_signo));
		ex_sig_meaning(&b, si.si_signo, si.si_code, (uint64_t)(uintptr_t)si.si_addr,
			       proc_pc(q->proc));
		ex_location(q, &b, "was running");
		if (si.si_signo == SIGSEGV || si.si_signo == SIGBUS)
			ex_return_hint(q, &b);
		exr_crash(q, &b);
		break;
	case QZ_STOP_BREAKPOINT:
		sbuf_add(&b, "The program reached a breakpoint you set; the statement there has not run yet.\n");
		ex_location(q, &b, "stopped");
		break;
	case QZ_STOP_STEP:
	case QZ_STOP_LOCATION:
		sbuf_add(&b, "The program stopped where a step or finish command (or until, advance) "
			 "ended; the statement shown has not run yet.\n");
		ex_location(q, &b, "stopped");
		break;
	default:
		sbuf_add(&b, "The program is stopped but has not been run further yet.\n");
		ex_location(q, &b, "is");
	}
	sbuf_add(&b, mods.s ? mods.s : "");   /* what a module knows of it */
	ex_emit(q, b.s);
	sbuf_free(&b);
	sbuf_free(&mods);
	return 0;
}

/* ---- statement instances of the recording ---- */

/* The record number where instance inst begins, -1 if none. */
static int64_t ex_first_rec(const struct trace *t, int32_t inst)
{
	uint64_t first;
	return trace_inst_span(t, inst, &first, NULL) ? (int64_t)first : -1;
}

/* The decoded instruction of record i. */
static const struct trace_insn *ex_rec_insn(const struct trace *t, uint64_t i)
{
	struct trace_rec *recs = xmalloc(TRACE_BLK * sizeof *recs);
	size_t n = trace_block(t, (size_t)(i / TRACE_BLK), recs);
	const struct trace_insn *ti = NULL;
	if (i % TRACE_BLK < n && recs[i % TRACE_BLK].id < t->ninsns)
		ti = &t->insns[recs[i % TRACE_BLK].id];
	free(recs);
	return ti;
}

/* The function instance inst ran in, or NULL. */
static const char *ex_func(struct qz *q, int32_t inst)
{
	const struct trace *t = &slice_rec(q)->tr;
	int64_t i = ex_first_rec(t, inst);
	const struct trace_insn *ti = i < 0 ? NULL : ex_rec_insn(t, (uint64_t)i);
	if (!ti || !q->exe.di || ti->pc < q->exe.lo || ti->pc >= q->exe.hi)
		return NULL;
	const struct di_func *f = di_func_at(q->exe.di, ti->pc - q->exe.bias);
	return f ? f->name : NULL;
}

static const char *ex_text(struct qz *q, int32_t inst)
{
	const struct trace *t = &slice_rec(q)->tr;
	const struct trace_stmt *st = &t->stmts[trace_inst_get(t, inst).stmt];
	const char *text = st->file ? src_line(st->file, st->line, NULL) : NULL;
	return text ? str_skip_space(text) : NULL;
}

/* Was the condition that the control edge from -> to stands for true (1)
 * or false (0)? -1: cannot tell. The branch is the conditional jump the
 * recorder found as from's control parent; gcc lays out a condition so
 * that a forward jump skips the guarded code (taken: false) and a
 * backward jump, a loop's test at its bottom, repeats it (taken: true).
 * Only an if/for/while line is read this way (a switch's jumps are not). */
static int ex_outcome(struct qz *q, int32_t from, int32_t to)
{
	const struct trace *t = &slice_rec(q)->tr;
	int64_t i = ex_first_rec(t, from);
	int64_t p = i < 0 ? -1 : trace_cd_at(t, (uint64_t)i);
	const char *text = ex_text(q, to);
	if (p < 0 || (uint64_t)p + 1 >= t->n || trace_inst_at(t, (uint64_t)p) != to || !text ||
	    strstr(text, "switch") || strstr(text, "case") ||
	    !(strstr(text, "if") || strstr(text, "for") || strstr(text, "while")))
		return -1;
	const struct trace_insn *br = ex_rec_insn(t, (uint64_t)p);
	const struct trace_insn *next = ex_rec_insn(t, (uint64_t)p + 1);
	if (!br || !next || br->in.kind != INSN_JCC)
		return -1;
	bool taken = next->pc == br->in.target;
	return br->in.target <= br->pc ? taken : !taken;
}

/* ---- edges in sentences ---- */

/* The control edge out of inst into *e, if it has one. */
static bool ex_control_of(const struct slice *s, int32_t inst, struct slice_edge *e)
{
	for (size_t i = 0; i < s->nedges; i++)
		if (slice_edge_at(s, i, e) && e->from == inst && e->kind == SLICE_CONTROL)
			return true;
	return false;
}

/* "ran only because the condition at X was false" */
static void ex_because(struct qz *q, struct sbuf *b, const struct slice_edge *e)
{
	char nb[300];
	int o = ex_outcome(q, e->from, e->to);
	slice_inst_name(q, e->to, nb, sizeof nb);
	if (o >= 0)
		sbuf_printf(b, "ran only because the condition at %s was %s", nb, o ? "true" : "false");
	else
		sbuf_printf(b, "ran only because of how the test at %s came out", nb);
}

static bool ex_is_arg_reg(uint8_t r)
{
	return r == 7 || r == 6 || r == 2 || r == 1 || r == 8 || r == 9;   /* rdi..r9 */
}

/* A data edge through memory no variable names. Stack addresses depend on
 * the environment and a library's on its version, so only a heap address
 * is shown (it matches the pointers print shows). */
static void ex_memory(struct qz *q, struct sbuf *b, uint64_t addr, const char *to)
{
	char m[512] = "";
	bool known = mn_mapping(q, addr, m, sizeof m);
	if (known && !strcmp(m, "[stack]"))
		sbuf_printf(b, "uses a local variable on the stack (an array element, or one "
			    "reached through a pointer), which was written at %s", to);
	else if (known && m[0] != '[' && (!q->prog || strcmp(m, q->prog)))
		sbuf_printf(b, "uses memory that belongs to %s (not to your variables), which "
			    "was written at %s", m[0] ? str_basename(m) : "memory mapped without a file",
			    to);
	else
		sbuf_printf(b, "uses the memory at 0x%llx (reached through a pointer: no variable "
			    "names it), which was written at %s", (unsigned long long)addr, to);
}

/* One data edge: "uses entry, whose value was returned by f at X" */
/* The call whose returned value instance inst stored, if it stored one:
 * its data edge through rax into another function. */
static bool ex_returned(struct qz *q, const struct slice *s, int32_t inst, struct slice_edge *e)
{
	const char *f = ex_func(q, inst);
	for (size_t i = 0; f && i < s->nedges; i++) {
		if (!slice_edge_at(s, i, e))
			continue;
		const char *g = e->from == inst && e->kind == SLICE_DATA && e->reg == 0 ?
			ex_func(q, e->to) : NULL;
		if (g && strcmp(f, g) != 0)
			return true;
	}
	return false;
}

/* Returns the instance a following "which ran only because" is about. */
static int32_t ex_data(struct qz *q, struct sbuf *b, const struct slice *s,
		       const struct slice_edge *e)
{
	char to[300], lb[128];
	const char *var;
	slice_inst_name(q, e->to, to, sizeof to);
	slice_edge_label(q, e, lb, sizeof lb);
	const char *ff = ex_func(q, e->from), *tf = ex_func(q, e->to);
	bool other = ff && tf && strcmp(ff, tf) != 0;
	struct slice_edge rv, *r = &rv;
	if (e->reg == 0 && other)
		sbuf_printf(b, "uses the value returned by %s at %s", tf, to);
	else if (e->reg != 0xff && other && ex_is_arg_reg(e->reg))
		sbuf_printf(b, "uses an argument that %s passed to %s at %s", tf, ff, to);
	else if (e->reg != 0xff && (var = slice_reg_var(q, e)))
		sbuf_printf(b, "uses %s (a variable the compiler keeps in register %s), set at %s",
			    var, lb + 1, to);
	else if (e->reg != 0xff)
		sbuf_printf(b, "uses a value computed at %s (it travelled in the processor "
			    "register %s, not in a variable)", to, lb + 1);
	else if (lb[0] == '0' && lb[1] == 'x')
		ex_memory(q, b, e->addr, to);
	else if (ex_returned(q, s, e->to, r)) {
		char at[300];
		sbuf_printf(b, "uses %s (set at %s), whose value was returned by %s at %s",
			    lb, to, ex_func(q, r->to), slice_inst_name(q, r->to, at, sizeof at));
		return r->to;
	} else
		sbuf_printf(b, "uses %s, whose value was set at %s", lb, to);
	return e->to;
}

/* Every dependence of inst in s, a sentence each. */
/* Data edges of one instance through the same place to instances of the
 * same statement (a byte-by-byte copy: eight edges for one return
 * address) are said once, with the instances as a range. */
struct ex_group {
	struct slice_edge e;          /* the first edge of the group */
	char label[128];
	uint32_t stmt, lo, hi;
	size_t n;
};

static size_t ex_groups(struct qz *q, const struct slice *s, int32_t inst, struct ex_group **out)
{
	const struct trace *t = &slice_rec(q)->tr;
	struct ex_group *g = NULL;
	size_t n = 0, cap = 0;
	struct slice_edge ev;
	const struct slice_edge *e = &ev;
	for (size_t i = 0; i < s->nedges; i++) {
		if (!slice_edge_at(s, i, &ev) || e->from != inst || e->kind != SLICE_DATA)
			continue;
		char lb[128];
		slice_edge_label(q, e, lb, sizeof lb);
		uint32_t st = trace_inst_get(t, e->to).stmt, num = trace_inst_get(t, e->to).n;
		size_t k = 0;
		while (k < n && !(g[k].stmt == st && !strcmp(g[k].label, lb)))
			k++;
		if (k == n) {
			XGROW(g, cap, n + 1);
			g[n] = (struct ex_group){ .e = *e, .stmt = st, .lo = num, .hi = num };
			snprintf(g[n++].label, sizeof g->label, "%s", lb);
		}
		g[k].lo = num < g[k].lo ? num : g[k].lo;
		g[k].hi = num > g[k].hi ? num : g[k].hi;
		g[k].n++;
	}
	*out = g;
	return n;
}

static void ex_inst(struct qz *q, struct sbuf *b, const struct slice *s, int32_t inst)
{
	char nb[300];
	const char *text = ex_text(q, inst);
	slice_inst_name(q, inst, nb, sizeof nb);
	sbuf_printf(b, "%s", nb);
	if (text)
		sbuf_printf(b, " (%s)", text);
	struct ex_group *g;
	size_t n = ex_groups(q, s, inst, &g);
	for (size_t i = 0; i < n; i++) {
		sbuf_add(b, i ? ";\n    it also " : "\n    ");
		if (g[i].n > 1) {   /* one sentence for the group */
			char st[256];
			sbuf_printf(b, "uses %s, set piece by piece by %s #%u-#%u (%zu instances)", g[i].label,
				    rec_stmt_name(slice_rec(q), (int32_t)g[i].stmt, st, sizeof st),
				    g[i].lo, g[i].hi, g[i].n);
			continue;
		}
		struct slice_edge c;
		if (ex_control_of(s, ex_data(q, b, s, &g[i].e), &c)) {
			sbuf_add(b, ", which ");
			ex_because(q, b, &c);
		}
	}
	free(g);
	struct slice_edge c;
	bool ctl = ex_control_of(s, inst, &c);
	if (ctl) {
		sbuf_add(b, n ? ".\n    It " : "\n    ");
		ex_because(q, b, &c);
	}
	sbuf_add(b, n || ctl ? ".\n" : "\n    depends on nothing recorded before it: a root of the slice.\n");
}

/* ---- explain slice ID and explain ID FILE:LINE[#N] ---- */

static struct slice *ex_slice_arg(struct qz *q, const char **a)
{
	const char *s = str_skip_space(*a);
	const char *end = s;
	int64_t id;
	if (str_num(&end, INT32_MIN, INT32_MAX, &id) || (*end && *end != ' ' && *end != '\t'))
		return qz_error(q, "Expected a slice number, not \"%s\".", s), NULL;
	struct slice *sl = slice_find(q, (int)id);
	if (!sl)
		return qz_error(q, "No slice number %lld (\"info slices\" lists them).", (long long)id), NULL;
	if (slice_stale(q, sl))
		return qz_error(q, "Slice %ld was computed on a recording that has since been cut "
				"back (a rollback) or replaced: record again and compute a new slice.",
				id), NULL;
	*a = str_skip_space(end);
	return sl;
}

/* The members with no dependence of their own: where the chain begins. */
static void ex_roots(struct qz *q, struct sbuf *b, const struct slice *s)
{
	const struct trace *t = &slice_rec(q)->tr;
	uint8_t *out = xcalloc(t->insts.n + 1, 1);
	char nb[300];
	struct slice_edge e;
	for (size_t i = 0; i < s->nedges; i++)
		if (slice_edge_at(s, i, &e))
			out[e.from] = 1;
	sbuf_add(b, "Roots (where the chain begins: they depend on nothing recorded):");
	size_t nroots = 0;
	for (size_t i = 0; i < s->nmembers; i++)
		if (!out[slice_member_at(s, i)] && nroots++ < EX_WALK_MAX)
			sbuf_printf(b, " %s", slice_inst_name(q, slice_member_at(s, i), nb, sizeof nb));
	sbuf_add(b, nroots > EX_WALK_MAX ? " ...\n" : nroots ? "\n" : " none\n");
	free(out);
}

static int ex_slice(struct qz *q, const char *a)
{
	struct slice *s = ex_slice_arg(q, &a);
	if (!s)
		return -1;
	if (*a)
		return qz_error(q, "Usage: explain slice ID");
	const struct trace *t = &slice_rec(q)->tr;
	char nb[300];
	struct sbuf b = {0};
	sbuf_printf(&b, "Slice %d answers: which statements that ran could have affected %s",
		    s->id, slice_inst_name(q, s->crit, nb, sizeof nb));
	if (s->what && *s->what)
		sbuf_printf(&b, " (criterion: %s)", s->what);
	sbuf_printf(&b, "? %zu statements (%zu executions of them). \"#N\" means the N-th time "
		    "a line ran. Read backwards from the criterion:\n", s->nstmts, s->nmembers);
	int32_t *queue = xmalloc((s->nmembers + 1) * sizeof *queue);
	uint8_t *seen = xcalloc(t->insts.n + 1, 1);
	size_t head = 0, tail = 0;
	queue[tail++] = s->crit;
	seen[s->crit] = 1;
	uint8_t *told = xcalloc(t->nstmts + 1, 1);   /* statements explained once */
	size_t said = 0, alike = 0;
	while (head < tail && said < EX_WALK_MAX) {
		int32_t inst = queue[head++];
		uint32_t st = trace_inst_get(t, inst).stmt;
		if (told[st]) {   /* another instance of a statement above: alike */
			alike++;
		} else {
			told[st] = 1;
			sbuf_printf(&b, "%zu. ", ++said);
			ex_inst(q, &b, s, inst);
		}
		struct slice_edge e;
		for (size_t i = 0; i < s->nedges; i++)
			if (slice_edge_at(s, i, &e) && e.from == inst && !seen[e.to] && tail < s->nmembers) {
				seen[e.to] = 1;
				queue[tail++] = e.to;
			}
	}
	free(told);
	if (alike)
		sbuf_printf(&b, "(%zu more instances of the statements above were passed over: each is "
			    "explained like the one shown.)\n", alike);
	if (s->nmembers > head)
		sbuf_printf(&b, "... and %zu more (\"info slice %d\" lists them, \"explain %d "
			    "FILE:LINE#N\" explains one).\n", s->nmembers - head, s->id, s->id);
	ex_roots(q, &b, s);
	ex_emit(q, b.s);
	sbuf_free(&b);
	free(seen);
	free(queue);
	return 0;
}

/* The member of s at FILE:LINE[#N] (no #N: its latest instance in s). */
static int ex_member(struct qz *q, const struct slice *s, const char *spec, int32_t *inst)
{
	const struct trace *t = &slice_rec(q)->tr;
	char *file = xstrdup(spec), *colon = strrchr(file, ':'), *hash = strchr(file, '#');
	int64_t line = 0, n = 0;
	bool ok = colon && (!hash || hash > colon);
	if (ok && hash) {
		*hash = 0;
		ok = str_to_i64(hash + 1, &n) && n > 0;
	}
	if (ok) {
		*colon = 0;
		ok = *file && str_to_i64(colon + 1, &line) && line > 0;
	}
	*inst = -1;
	for (size_t i = 0; ok && i < s->nmembers; i++) {
		const struct trace_inst tiv = trace_inst_get(t, slice_member_at(s, i)), *ti = &tiv;
		const struct trace_stmt *st = &t->stmts[ti->stmt];
		if (st->line != line || !st->file || strcmp(str_basename(st->file), str_basename(file)))
			continue;
		if (n ? ti->n == (uint64_t)n : *inst < 0 || ti->n > trace_inst_get(t, *inst).n)
			*inst = slice_member_at(s, i);
	}
	free(file);
	if (!ok)
		return qz_error(q, "Expected FILE:LINE or FILE:LINE#N, not \"%s\".", spec);
	if (*inst < 0)
		return qz_error(q, "%s is not in slice %d (\"info slice %d\" lists its statements).",
				spec, s->id, s->id);
	return 0;
}

static int ex_edges(struct qz *q, const char *a)
{
	struct slice *s = ex_slice_arg(q, &a);
	if (!s)
		return -1;
	if (!*a)
		return qz_error(q, "Usage: explain ID FILE:LINE[#N]");
	int32_t inst;
	char *spec = str_trim(a);
	int rc = ex_member(q, s, spec, &inst);
	free(spec);
	if (rc < 0)
		return -1;
	struct sbuf b = {0};
	ex_inst(q, &b, s, inst);
	ex_emit(q, b.s);
	sbuf_free(&b);
	return 0;
}

static int ex_dispatch(struct qz *q, const char *p)
{
	if (!*p)
		return ex_stop(q);
	if (str_starts(p, "slice") && (p[5] == 0 || p[5] == ' ' || p[5] == '\t'))
		return ex_slice(q, p + 5);
	if (*p >= '0' && *p <= '9')
		return ex_edges(q, p);
	return qz_error(q, "Usage: explain [--json] | explain slice ID [--json] | "
			"explain ID FILE:LINE[#N] [--json]");
}

int cmd_explain(struct qz *q, const char *a)
{
	char *args = xstrdup(str_skip_space(a ? a : ""));
	ex_json = js_flag(args);
	int rc = ex_dispatch(q, args);
	ex_json = false;
	free(args);
	return rc;
}
