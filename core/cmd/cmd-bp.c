/* cmd-bp: setting, listing and changing breakpoints. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cmds.h"
#include "value/expr.h"
#include "target/frame.h"
#include "target/loc.h"
#include "target/session.h"
#include "target/watch.h"

/* Split "LOCATION if COND" at a standalone "if". */
static char *cmd_bp_split(const char *a, char **cond)
{
	*cond = NULL;
	for (const char *p = a; *p; p++) {
		bool start = p == a || isspace((unsigned char)p[-1]);
		if (start && strncmp(p, "if", 2) == 0 &&
		    (isspace((unsigned char)p[2]) || p[2] == '(' || !p[2])) {
			*cond = str_trim(p + 2);
			char *spec = xstrndup(a, (size_t)(p - a));
			char *t = str_trim(spec);
			free(spec);
			return t;
		}
	}
	return xstrdup(a);
}

static int cmd_bp_set_cond(struct qz *q, struct bp *b, const char *cond)
{
	char err[512];
	struct expr *e = NULL;
	if (cond && *cond) {
		e = expr_parse(cond, err, sizeof err);
		if (!e)
			return qz_error(q, "%s", err);
	}
	expr_free(b->cond_expr);
	free(b->cond);
	b->cond_expr = e;
	b->cond = e ? xstrdup(cond) : NULL;
	return 0;
}

static void cmd_bp_announce(struct qz *q, const struct bp *b)
{
	const struct bp_loc *l = &b->locs[0];
	const char *kind = b->temp ? "Temporary breakpoint" : "Breakpoint";
	if (b->nlocs > 1 && l->file && b->spec[strspn(b->spec, "0123456789")] == '\0') {
		/* a bare LINE: gdb names it by the default file's full path */
		qz_printf(q, "%s %d at 0x%llx: %s:%s. (%zu locations)\n", kind, b->num,
			  (unsigned long long)l->addr, l->file, b->spec, b->nlocs);
	} else if (b->nlocs > 1) {
		qz_printf(q, "%s %d at 0x%llx: %s. (%zu locations)\n", kind, b->num,
			  (unsigned long long)l->addr, b->spec, b->nlocs);
	} else if (l->file) {
		qz_printf(q, "%s %d at 0x%llx: file %s, line %d.\n", kind, b->num,
			  (unsigned long long)l->addr, frame_file_name(q, l->file), l->line);
	} else {
		qz_printf(q, "%s %d at 0x%llx\n", kind, b->num, (unsigned long long)l->addr);
	}
}

/* A function or file nowhere yet may come with a library loaded later.
 * gdb asks; in batch mode it answers no unless `set breakpoint pending
 * on`: qzdb does the same (auto and off refuse, with a hint). */
static bool cmd_bp_may_pend(struct qz *q)
{
	const char *e = q->err.s ? q->err.s : "";
	if (strncmp(e, "Function \"", 10) != 0 && strncmp(e, "No source file named", 20) != 0)
		return false;
	if (q->bp_pending == 1) {
		qz_printf(q, "%s\n", e);
		sbuf_reset(&q->err);
		return true;
	}
	if (q->bp_pending == -1) {
		char *msg = xasprintf("%s\n(Use \"set breakpoint pending on\" to make it "
				      "pending on a future shared library load.)", e);
		qz_error(q, "%s", msg);
		free(msg);
	}
	return false;
}

static int cmd_bp_create(struct qz *q, const char *a, bool temp)
{
	char *cond;
	char *spec = cmd_bp_split(a, &cond);
	struct loc_addr *locs = NULL;
	size_t n = 0;
	int r = -1;
	int mod = cond ? mod_break(q, spec, cond, temp) : 0;
	if (mod) {   /* a module took it: `break FUNC if argN==V`, ... */
		r = mod > 0 ? 0 : -1;
		goto out;
	}
	if (!*spec) {
		const struct frame *f = qz_running(q) ? frame_get(q, q->sel_frame) : NULL;
		if (!f) {
			qz_error(q, "No default breakpoint location now selected.");
			goto out;
		}
		free(spec);
		spec = xasprintf("*0x%llx", (unsigned long long)f->pc);
	}
	bool pending = false;
	if (loc_resolve(q, spec, &locs, &n) < 0 && !(pending = cmd_bp_may_pend(q)))
		goto out;
	struct bp *b = bp_new(&q->bps);
	b->temp = temp;
	b->spec = spec;
	spec = NULL;
	loc_fill_bp(q, b, locs, n);
	if (cmd_bp_set_cond(q, b, cond) < 0) {
		bp_delete(&q->bps, q->proc, b->num);
		q->bps.next_num--;
		goto out;
	}
	if (pending)   /* gdb shows what was typed, condition included */
		qz_printf(q, "%s %d (%s) pending.\n", temp ? "Temporary breakpoint" : "Breakpoint",
			  b->num, str_skip_space(a));
	else
		cmd_bp_announce(q, b);
	bp_sync(&q->bps, q->proc);
	r = 0;
out:
	free(locs);
	free(spec);
	free(cond);
	return r;
}

int cmd_break(struct qz *q, const char *a)
{
	return cmd_bp_create(q, a, false);
}

int cmd_tbreak(struct qz *q, const char *a)
{
	return cmd_bp_create(q, a, true);
}

/* Apply fn to each breakpoint number in a list ("1 3 5-7"); all if empty. */
/* Apply fn to breakpoints lo..hi. Numbers that do not exist are named in
 * a short range; in a long one only the breakpoints that exist are visited
 * (their numbers are collected first: fn may delete). */
static int cmd_bp_range(struct qz *q, int64_t lo, int64_t hi,
			void (*fn)(struct qz *, struct bp *))
{
	int rc = 0;
	if (hi - lo < 1000) {
		for (int64_t n = lo; n <= hi; n++) {
			struct bp *b = bp_find(&q->bps, (int)n);
			if (b)
				fn(q, b);
			else
				rc = qz_error(q, "No breakpoint number %lld.", (long long)n);
		}
		return rc;
	}
	int *nums = xcalloc(q->bps.n + 1, sizeof *nums);
	size_t k = 0;
	for (size_t i = 0; i < q->bps.n; i++)
		if (q->bps.bps[i].num >= lo && q->bps.bps[i].num <= hi)
			nums[k++] = q->bps.bps[i].num;
	for (size_t i = 0; i < k; i++) {
		struct bp *b = bp_find(&q->bps, nums[i]);
		if (b)
			fn(q, b);
	}
	free(nums);
	return 0;
}

/* enable/disable N.M or N.M-K: locations of breakpoint num alone, in
 * gdb's words for bad numbers; *a is past the dot. */
static int cmd_bp_locs(struct qz *q, int64_t num, const char **a, int on)
{
	int64_t lo, hi;
	const char *start = *a;
	int r = str_num(a, 0, INT32_MAX, &lo);
	if (r == STR_NUM_OK && **a == '-') {
		(*a)++;
		r = str_num(a, 0, INT32_MAX, &hi);
	} else {
		hi = lo;
	}
	struct bp *b = bp_find(&q->bps, (int)num);
	if (!b)
		return qz_error(q, "No breakpoint number %lld.", (long long)num);
	if (r != STR_NUM_OK || (**a && !isspace((unsigned char)**a)))
		return qz_error(q, "Bad breakpoint location number '%.*s'",
				(int)strcspn(start, " \t"), start);
	if (lo > hi)
		return qz_error(q, "Inverted breakpoint location range at '%.*s'",
				(int)strcspn(start, " \t"), start);
	if (lo == 0 || (size_t)hi > b->nlocs)
		return qz_error(q, "Bad breakpoint location number '%lld'",
				(long long)(lo == 0 ? 0 : hi));
	for (int64_t i = lo; i <= hi; i++)
		b->locs[i - 1].disabled = !on;
	bp_sync(&q->bps, q->proc);
	return 0;
}

/* on: 1 enable, 0 disable, -1 neither (delete: no N.M). */
static int cmd_bp_each(struct qz *q, const char *a, void (*fn)(struct qz *, struct bp *),
		       int on)
{
	if (!*a) {
		for (size_t i = q->bps.n; i-- > 0;)
			fn(q, &q->bps.bps[i]);
		return 0;
	}
	int rc = 0;
	while (*(a = str_skip_space(a))) {
		int64_t lo, hi;
		const char *start = a;
		char why[160];
		int r = str_num(&a, 1, INT32_MAX, &lo);
		if (r == STR_NUM_OK && *a == '.' && on >= 0) {
			a++;
			if (cmd_bp_locs(q, lo, &a, on) < 0) {
				rc = -1;
				a += strcspn(a, " \t");
			}
			continue;
		}
		if (r == STR_NUM_OK && *a == '-') {
			a++;
			r = str_num(&a, 1, INT32_MAX, &hi);
		} else {
			hi = lo;
		}
		if (r == STR_NUM_NONE)
			return qz_error(q, "Convenience variable must have integer value.\n"
					"Args must be numbers or '$' variables.");
		if (r != STR_NUM_OK)
			return qz_error(q, "%s", str_num_error(r, "A breakpoint number", start,
							      1, INT32_MAX, why, sizeof why));
		if (lo > hi)
			return qz_error(q, "inverted range");
		if (cmd_bp_range(q, lo, hi, fn) < 0)
			rc = -1;
	}
	return rc;
}

static void cmd_bp_do_delete(struct qz *q, struct bp *b)
{
	bool w = b->watch != NULL;
	bp_delete(&q->bps, q->proc, b->num);
	if (w)
		watch_sync(q);
}

static void cmd_bp_do_disable(struct qz *q, struct bp *b)
{
	b->enabled = false;
	bp_sync(&q->bps, q->proc);
	if (b->watch)
		watch_sync(q);
}

static void cmd_bp_do_enable(struct qz *q, struct bp *b)
{
	b->enabled = true;
	bp_sync(&q->bps, q->proc);
	if (b->watch)
		watch_sync(q);
}

int cmd_delete(struct qz *q, const char *a)
{
	if (str_starts(a, "breakpoints"))
		a = str_skip_space(a + 11);
	return cmd_bp_each(q, a, cmd_bp_do_delete, -1);
}

int cmd_disable(struct qz *q, const char *a)
{
	if (str_starts(a, "breakpoints"))
		a = str_skip_space(a + 11);
	return cmd_bp_each(q, a, cmd_bp_do_disable, 0);
}

int cmd_enable(struct qz *q, const char *a)
{
	if (str_starts(a, "breakpoints"))
		a = str_skip_space(a + 11);
	bool once = str_starts(a, "once ");
	if (once)
		return qz_error(q, "enable once is not supported yet.");
	return cmd_bp_each(q, a, cmd_bp_do_enable, 1);
}

static struct bp *cmd_bp_arg(struct qz *q, const char **a)
{
	int64_t n;
	char why[160];
	int r = str_num(a, 1, INT32_MAX, &n);
	if (r == STR_NUM_NONE) {
		qz_error(q, "Argument required (breakpoint number).");
		return NULL;
	}
	if (r != STR_NUM_OK) {
		qz_error(q, "%s", str_num_error(r, "A breakpoint number", *a, 1, INT32_MAX, why, sizeof why));
		return NULL;
	}
	struct bp *b = bp_find(&q->bps, (int)n);
	if (!b)
		qz_error(q, "No breakpoint number %lld.", (long long)n);
	*a = str_skip_space(*a);
	return b;
}

/* condition and ignore apply to plain breakpoints only: a module's entry
 * (switch, suppress, call breakpoint) selects by its own rules. */
static struct bp *cmd_bp_plain_arg(struct qz *q, const char **a)
{
	struct bp *b = cmd_bp_arg(q, a);
	if (b && b->ext_ops) {
		qz_error(q, "Breakpoint %d is a %s entry; condition and ignore do not apply to it.",
			 b->num, b->kind == BP_KIND_SWITCH ? "switch" :
			 b->kind == BP_KIND_SUPPRESS ? "suppress" :
			 b->kind == BP_KIND_SBREAK ? "slice-breakpoint" : "call-condition");
		return NULL;
	}
	return b;
}

int cmd_condition(struct qz *q, const char *a)
{
	struct bp *b = cmd_bp_plain_arg(q, &a);
	if (!b)
		return -1;
	if (cmd_bp_set_cond(q, b, a) < 0)
		return -1;
	if (!*a)
		qz_printf(q, "Breakpoint %d now unconditional.\n", b->num);
	return 0;
}

int cmd_ignore(struct qz *q, const char *a)
{
	struct bp *b = cmd_bp_plain_arg(q, &a);
	int64_t n;
	if (!b)
		return -1;
	if (!*a)
		return qz_error(q, "Second argument (specified ignore-count) is missing.");
	char why[160];
	int r = str_num_all(a, INT32_MIN, INT32_MAX, &n);
	if (r != STR_NUM_OK)
		return qz_error(q, "%s", str_num_error(r, "The ignore count", a, INT32_MIN, INT32_MAX,
						      why, sizeof why));
	b->ignore = n < 0 ? 0 : (int)n;
	if (b->ignore == 0)
		qz_printf(q, "Will stop next time breakpoint %d is reached.\n", b->num);
	else if (b->ignore == 1)
		qz_printf(q, "Will ignore next crossing of breakpoint %d.\n", b->num);
	else
		qz_printf(q, "Will ignore next %d crossings of breakpoint %d.\n", b->ignore, b->num);
	return 0;
}

static void cmd_bp_what(struct qz *q, const struct bp_loc *l, struct sbuf *b)
{
	if (l->func && l->file)
		sbuf_printf(b, "in %s at %s:%d", l->func, frame_file_name(q, l->file), l->line);
	else if (l->func)
		sbuf_printf(b, "<%s>", l->func);
}

/* Column widths of `info breakpoints`: gdb widens Type for the longer
 * watchpoint names and narrows Address when no row has one. */
struct cmd_bp_cols {
	int type, addr;
};

static void cmd_bp_row(struct qz *q, const struct bp *b, struct sbuf *out,
		       const struct cmd_bp_cols *c)
{
	if (b->ext_ops && b->ext_ops->row) {   /* switch, suppress, ... */
		sbuf_printf(out, "%-7d ", b->num);
		b->ext_ops->row(b, out);
		return;
	}
	sbuf_printf(out, "%-7d %-*s %-4s %-3s ", b->num, c->type, watch_type_name(b),
		    b->temp ? "del" : "keep", b->enabled ? "y" : "n");
	if (b->watch) {
		sbuf_printf(out, "%-*s ", c->addr, "");
		watch_what(b, out);
	} else if (b->nlocs == 0) {   /* pending: no address yet */
		sbuf_printf(out, "%-*s %s", c->addr, "<PENDING>", b->spec);
	} else if (b->nlocs == 1) {
		sbuf_printf(out, "0x%016llx ", (unsigned long long)b->locs[0].addr);
		cmd_bp_what(q, &b->locs[0], out);
	} else {
		sbuf_printf(out, "%-*s ", c->addr, "<MULTIPLE>");   /* gdb pads it */
	}
	sbuf_addc(out, '\n');
	if (b->cond)
		sbuf_printf(out, "\tstop only if %s\n", b->cond);
	if (b->hits)
		sbuf_printf(out, "\tbreakpoint already hit %d time%s\n", b->hits,
			    b->hits == 1 ? "" : "s");
	if (b->ignore)
		sbuf_printf(out, "\tWill ignore next %d crossings of breakpoint.\n", b->ignore);
	for (size_t i = 0; b->nlocs > 1 && i < b->nlocs; i++) {
		char num[32];
		snprintf(num, sizeof num, "%d.%zu", b->num, i + 1);
		/* gdb: "y-" for a location on whose breakpoint is off */
		const char *on = b->locs[i].disabled ? "n" : b->enabled ? "y" : "y-";
		sbuf_printf(out, "%-28s%-3s 0x%016llx ", num, on,
			    (unsigned long long)b->locs[i].addr);
		cmd_bp_what(q, &b->locs[i], out);
		sbuf_addc(out, '\n');
	}
}

static struct cmd_bp_cols cmd_bp_widths(const struct qz *q, bool watch_only)
{
	struct cmd_bp_cols c = {14, 10};
	for (size_t i = 0; i < q->bps.n; i++) {
		const struct bp *b = &q->bps.bps[i];
		if (watch_only && !b->watch)
			continue;
		int n = (int)strlen(watch_type_name(b));
		if (n > c.type)
			c.type = n;
		if (b->watch ? watch_located(b) : b->nlocs > 0 || b->ext_ops != NULL)
			c.addr = 18;
	}
	return c;
}

static int cmd_bp_list(struct qz *q, bool watch_only)
{
	struct cmd_bp_cols c = cmd_bp_widths(q, watch_only);
	struct sbuf out = {0};
	sbuf_printf(&out, "Num     %-*s Disp Enb %-*s What\n", c.type, "Type", c.addr, "Address");
	size_t shown = 0;
	for (size_t i = 0; i < q->bps.n; i++) {
		if (watch_only && !q->bps.bps[i].watch)
			continue;
		cmd_bp_row(q, &q->bps.bps[i], &out, &c);
		shown++;
	}
	if (shown)
		qz_puts(q, out.s);
	else
		qz_puts(q, watch_only ? "No watchpoints.\n" : "No breakpoints or watchpoints.\n");
	sbuf_free(&out);
	return 0;
}

int cmd_info_breakpoints(struct qz *q, const char *a)
{
	(void)a;
	return cmd_bp_list(q, false);
}

int cmd_info_watchpoints(struct qz *q, const char *a)
{
	(void)a;
	return cmd_bp_list(q, true);
}
