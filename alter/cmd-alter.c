/* cmd-alter: parsing and checking for switch, suppress and instance; the
 * work is in alter.c. */
#include "cmd-alter.h"

#include <stdlib.h>
#include <string.h>

#include "alter.h"
#include "alter-int.h"
#include "cmd/cmds.h"
#include "dinfo/dinfo.h"
#include "dinfo/disasm.h"
#include "target/frame.h"
#include "target/loc.h"
#include "target/session.h"

/* "FILE:LINE" or "LINE" (in the file list shows) to an interned path. */
static int cmd_alter_loc(struct qz *q, const char *spec, const char **file, int *line)
{
	if (!q->exe.lines || lines_empty(q->exe.lines))
		return qz_error(q, "No line information in %s.", q->prog ? q->prog : "the program");
	const char *colon = strrchr(spec, ':');
	int64_t n;
	if (!str_to_i64(colon ? colon + 1 : spec, &n) || n <= 0 || n > 1000000)
		return qz_error(q, "Expected FILE:LINE, got \"%s\".", spec);
	*line = (int)n;
	if (!colon) {
		*file = q->list_file;
		return *file ? 0 : qz_error(q, "No default source file: give FILE:LINE.");
	}
	char *name = xstrndup(spec, (size_t)(colon - spec));
	*file = lines_file(q->exe.lines, name);
	if (!*file)
		qz_error(q, "No source file named %s.", name);
	free(name);
	return *file ? 0 : -1;
}

/* "all", "once" (the default) or an instance number N >= 1. */
static int cmd_alter_sel(struct qz *q, const char *s, int *sel)
{
	int64_t n;
	*sel = ALTER_ONCE;
	if (!*s || strcmp(s, "once") == 0)
		return 0;
	if (strcmp(s, "all") == 0) {
		*sel = ALTER_ALL;
		return 0;
	}
	if (!str_to_i64(s, &n) || n < 1 || n > 1000000000)
		return qz_error(q, "Expected all, once or an instance number >= 1, got \"%s\".", s);
	*sel = (int)n;
	return 0;
}

/* Split "LOC [REST]" and resolve LOC to a line record. */
static struct alter_line *cmd_alter_line(struct qz *q, const char *args, char **rest)
{
	char *a = str_trim(args);
	char *sp = strpbrk(a, " \t");
	*rest = xstrdup(sp ? str_skip_space(sp) : "");
	if (sp)
		*sp = 0;
	const char *file = NULL;
	int line = 0;
	struct alter_line *ln = NULL;
	if (!*a)
		qz_error(q, "Give a location: FILE:LINE.");
	else if (cmd_alter_loc(q, a, &file, &line) == 0)
		ln = alter_line_get(q, file, line);
	free(a);
	return ln;
}

static int cmd_alter_switchable(struct qz *q, struct alter_line *ln)
{
	const struct lcode *lc = &ln->code;
	const char *base = str_basename(lc->file);
	char *ex = lcode_exits_text(&q->exe, lc);
	int r = 0;
	size_t n = lc->nexits + lc->exit_ret + lc->exit_indirect;
	if (lc->ndexits == 2 || lc->nflips)
		r = 0;
	else if (lc->exit_indirect)
		r = qz_error(q, "%s:%d leaves through a jump table; a switch needs exactly two "
			     "exits, it has: %s.", base, lc->line, ex);
	else if (n < 2)
		r = qz_error(q, "%s:%d has no branch to switch (its code has one way out: %s, "
			     "and no condition with two outcomes).",
			     base, lc->line, ex);
	else if (n > 2)
		r = qz_error(q, "%s:%d has %zu exits, a switch needs exactly two: %s.",
			     base, lc->line, n, ex);
	else if (lc->exit_ret || lc->fallout)
		r = qz_error(q, "%s:%d leaves by %s, not by a branch alone; cannot switch it "
			     "exactly (exits: %s).", base, lc->line,
			     lc->exit_ret ? "a return" : "falling through", ex);
	free(ex);
	return r;
}

/* "[SEL] [if EXPR]": the selector (with a condition: every instance where
 * it holds, unless a selector says otherwise) and the condition. */
static int cmd_alter_sel_cond(struct qz *q, char *rest, int *sel, const char **cond)
{
	char *p = rest;
	*cond = NULL;
	while (*p && !(str_starts(p, "if") && (p[2] == ' ' || p[2] == '\t' || !p[2]) &&
		       (p == rest || p[-1] == ' ' || p[-1] == '\t')))
		p++;
	if (*p) {
		*cond = str_skip_space(p + 2);
		*p = 0;
		if (!**cond)
			return qz_error(q, "Give a condition after \"if\".");
	}
	char *s = str_trim(rest);
	int r = cmd_alter_sel(q, s, sel);
	if (r == 0 && *cond && !*s)
		*sel = ALTER_ALL;
	free(s);
	return r;
}

static int cmd_alter_suppressible(struct qz *q, struct alter_line *ln);

static int cmd_alter_do(struct qz *q, const char *args, enum bp_kind kind)
{
	char *rest;
	struct alter_line *ln = cmd_alter_line(q, args, &rest);
	const char *cond;
	int sel = ALTER_ONCE, r = -1;
	if (ln && cmd_alter_sel_cond(q, rest, &sel, &cond) == 0 &&
	    (kind == BP_KIND_SWITCH ? cmd_alter_switchable(q, ln) : cmd_alter_suppressible(q, ln)) == 0)
		r = alter_arm(q, kind, ln, sel, cond);
	free(rest);
	return r;
}

static int cmd_switch(struct qz *q, const char *args)
{
	return cmd_alter_do(q, args, BP_KIND_SWITCH);
}

static int cmd_alter_suppressible(struct qz *q, struct alter_line *ln)
{
	if (ln->stmt_planned)
		return 0;
	const struct lcode *lc = &ln->code;
	ln->stmts = xcalloc(lc->ncopies + 1, sizeof *ln->stmts);
	for (size_t i = 0; i < lc->ncopies; i++, ln->nstmts++)   /* each copy of its code */
		if (lstmt_plan(q, &q->exe, lc, lc->copies[i].lo, lc->copies[i].hi,
			       &ln->stmts[i]) < 0) {
			for (size_t k = 0; k < ln->nstmts; k++)
				lstmt_free(&ln->stmts[k]);
			free(ln->stmts);
			ln->stmts = NULL;
			ln->nstmts = 0;
			return -1;
		}
	ln->stmt_planned = true;
	return 0;
}

static int cmd_suppress(struct qz *q, const char *args)
{
	return cmd_alter_do(q, args, BP_KIND_SUPPRESS);
}

static int cmd_instance(struct qz *q, const char *args)
{
	char *rest;
	struct alter_line *ln = cmd_alter_line(q, args, &rest);
	int r = -1;
	if (!ln)
		goto out;
	const char *base = str_basename(ln->code.file);
	if (strcmp(rest, "watch") == 0) {
		alter_watch(q, ln);
		qz_printf(q, "Counting instances of %s:%d%s.\n", base, ln->code.line,
			  ln->exact ? "" : " from now on (the count will not be exact this run)");
		r = 0;
	} else if (*rest) {
		qz_error(q, "Usage: instance FILE:LINE [watch]");
	} else {
		uint64_t n;
		if (alter_instance_of(q, ln->code.file, ln->code.line, &n) == 0)
			qz_printf(q, "%s:%d: instance %llu\n", base, ln->code.line,
				  (unsigned long long)n);
		else
			qz_printf(q, "%s:%d: instance count not known (not counted from the start "
				  "of the run; use `instance %s:%d watch` before `run`)\n",
				  base, ln->code.line, base, ln->code.line);
		r = 0;
	}
out:
	free(rest);
	return r;
}

/* gdb's jump: resume at LINE or *ADDR (without prologue skipping); to
 * another function only after gdb's question, answered as gdb answers it
 * without a terminal. */
static int cmd_jump(struct qz *q, const char *args)
{
	char *spec = str_trim(args ? args : "");
	struct loc_addr *locs = NULL;
	size_t n = 0;
	int r = -1;
	if (!*spec)
		qz_error(q, "Argument required (starting address).");
	else if (!qz_running(q))
		qz_error(q, "The program is not being run.");
	else if (loc_resolve_ex(q, spec, false, &locs, &n) == 0) {
		const struct frame *f = frame_get(q, 0);
		struct qz_module *m = locs[0].mod ? locs[0].mod : &q->exe;
		const struct di_func *to = m->di ? di_func_at(m->di, locs[0].link_addr) : NULL;
		if (f && f->func && (!to || to->lo != f->func->lo) && !locs[0].absolute)
			qz_printf(q, "Line %d is not in `%s'.  Jump anyway? (y or n) [answered Y; "
				  "input not from terminal]\n", locs[0].line, f->func->name);
		qz_printf(q, "Continuing at 0x%llx.\n", (unsigned long long)locs[0].addr);
		proc_set_pc(q->proc, locs[0].addr);
		frame_invalidate(q);
		r = cmd_continue(q, "");
	}
	free(locs);
	free(spec);
	return r;
}

static int cmd_set_alter_verbose(struct qz *q, const char *args)
{
	return cmd_onoff(q, args, &alter_state(q)->verbose);   /* gdb's words for a boolean */
}

#include "cmd/cmd-flags.h"

/* The module's commands (core assembles its table from every module's). */
const struct cmd_def alter_cmds[] = {
	{"switch", NULL, "switch FILE:LINE [all|once|N] [if EXPR]", Y, cmd_switch,
	 "Invert the branch on a line: every instance, the next one, or the N-th.",
	 "The line's condition is evaluated as usual, then control goes to the\n"
	 "line's other exit (so `if (a && b)` and loop tests switch as a whole; a\n"
	 "condition written over several lines is one). The line must have exactly\n"
	 "two exits, or (a `?:`, a one-line if) one exit and a condition with two\n"
	 "outcomes, or (-O2) be decided without a branch by setcc or cmov: those\n"
	 "run once with the flags flipped. `if EXPR` (in the line's frame) alters\n"
	 "only the instances where EXPR holds (all of them unless once or N says\n"
	 "otherwise). Shown by info breakpoints; delete, disable, enable work on it."},
	{"suppress", NULL, "suppress FILE:LINE [all|once|N] [if EXPR]", Y, cmd_suppress,
	 "Skip the statement on a line (a call with its argument set-up).",
	 "The whole statement is skipped, also when it is written over several\n"
	 "lines; its effect on the stack pointer is kept (stack arguments). At -O2,\n"
	 "code of other lines scheduled inside it still runs, and so does its own\n"
	 "register-only work (later statements may share it): only its stores and\n"
	 "calls are skipped. A loop is refused (switch its condition instead).\n"
	 "`if EXPR` as for switch."},
	{"instance", NULL, "instance FILE:LINE [watch]", Y, cmd_instance,
	 "Show how many times a statement has started executing in this run.",
	 "Counts are exact for lines a switch, suppression or watch covers from\n"
	 "the start of the run; `watch` starts counting (one trap per execution)."},
	{"jump", "j", "jump LINE | jump FILE:LINE | jump *ADDR", P | Y, cmd_jump,
	 "Continue at another line or address (as gdb's jump).",
	 "Sets the pc to the line's first address (no prologue skipping) and\n"
	 "continues. Nothing is undone or skipped on the way: registers, the stack\n"
	 "and memory stay as they are, so jumping out of a function unbalances it\n"
	 "(gdb asks first; without a terminal it answers yes, and so does qzdb)."},
	{"set alter-verbose", NULL, "set alter-verbose on|off", Y, cmd_set_alter_verbose,
	 "Whether a switch or suppression prints a line when it fires.", NULL},
	CMD_END,
};
