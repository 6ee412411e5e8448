/* report: the interpreter of the rules (spec.h): a condition evaluated
 * over an event's fields and the heap model, and a report written from
 * its template. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/user.h>

#include "detect-int.h"
#include "target/session.h"

static struct det_block *blk_at(struct detect_state *st, uint64_t a)
{
	return hmap_get(&st->blocks, a);
}

static bool holds(const struct det_block *c, uint64_t a)
{
	return a >= c->addr && a < c->addr + (c->size ? c->size : 1);
}

/* The live block holding a, else the record starting at a (freed), else
 * a freed block holding a. */
static const struct det_block *blk_holding(struct detect_state *st, uint64_t a)
{
	struct det_block *b = blk_at(st, a);
	if (b && b->live)
		return b;
	for (size_t i = 0; i < st->nall; i++)
		if (st->all[i]->live && holds(st->all[i], a))
			return st->all[i];
	for (size_t i = 0; !b && i < st->nall; i++)
		if (holds(st->all[i], a))
			b = st->all[i];
	return b;
}

static bool pred(struct detect_state *st, const struct det_event *e, enum spec_pred p,
		 uint64_t a)
{
	const struct det_block *b = e->blk && e->blk->addr == a ? e->blk : blk_at(st, a);
	switch (p) {
	case P_ALLOCATED: return b && b->live;
	case P_FREED: return b && !b->live;
	case P_REACHABLE: return b && b->reachable;
	case P_INDIRECT: return b && b->indirect;
	case P_INBLOCK:
		b = blk_holding(st, a);
		return b && b->live;
	case P_INFREED:
		b = blk_holding(st, a);
		return b && !b->live;
	default: return false;
	}
}

static uint64_t val(const struct det_event *e, const struct spec_val *v)
{
	return v->is_field ? e->f[v->field] : v->num;
}

static bool eval(struct detect_state *st, const struct det_event *e, const struct spec_cond *c)
{
	uint64_t a = val(e, &c->a), b = val(e, &c->b);
	switch (c->op) {
	case OP_OR: return eval(st, e, c->l) || eval(st, e, c->r);
	case OP_AND: return eval(st, e, c->l) && eval(st, e, c->r);
	case OP_NOT: return !eval(st, e, c->l);
	case OP_PRED: return pred(st, e, c->pred, a);
	case OP_EQ: return a == b;
	case OP_NE: return a != b;
	case OP_LT: return a < b;
	case OP_GT: return a > b;
	case OP_LE: return a <= b;
	case OP_GE: return a >= b;
	}
	return false;
}

bool det_site_line(struct qz *q, uint64_t ret, const char **file, int *line)
{
	struct qz_module *m = ret ? qz_module_at(q, ret - 1) : NULL;
	const struct lines_row *r = m && m->lines ? lines_at(m->lines, ret - 1 - m->bias) : NULL;
	if (!r || !r->file)
		return false;
	*file = r->file;
	*line = r->line;
	return true;
}

void det_site_text(struct qz *q, uint64_t ret, char *buf, size_t len)
{
	const char *file;
	int line;
	if (det_site_line(q, ret, &file, &line)) {
		snprintf(buf, len, "%s:%d", str_basename(file), line);
		return;
	}
	char sym[128];
	if (ret && qz_symbolize(q, ret - 1, sym, sizeof sym))
		snprintf(buf, len, "0x%llx <%s>", (unsigned long long)(ret - 1), sym);
	else
		snprintf(buf, len, "an unknown site");
}

/* One placeholder's text. */
static void expand(struct qz *q, const struct det_class *c, const struct det_event *e,
		   const char *name, size_t n, struct sbuf *out)
{
	struct detect_state *st = det_state(q);
	const struct det_block *b = e->blk ? e->blk : e->near ? e->near :
				    blk_holding(st, e->f[F_ADDR]);
	char site[256];
#define IS(w) (n == strlen(w) && memcmp(name, w, n) == 0)
	if (IS("addr") || IS("result"))
		sbuf_printf(out, "0x%llx", (unsigned long long)e->f[IS("addr") ? F_ADDR : F_RESULT]);
	else if (IS("size") || IS("over") || IS("under"))
		sbuf_printf(out, "%llu", (unsigned long long)e->f[IS("size") ? F_SIZE :
								  IS("over") ? F_OVER : F_UNDER]);
	else if (IS("origin"))
		sbuf_add(out, e->origin ? e->origin : "?");
	else if (IS("access"))
		sbuf_add(out, e->access ? e->access : spec_event_name(e->ev));
	else if (IS("fn"))
		sbuf_add(out, e->fn ? e->fn : spec_event_name(e->ev));
	else if (IS("indirect")) {
		if (b && b->ind_blocks)
			sbuf_printf(out, " (and %llu bytes in %u blocks lost with it)",
				    (unsigned long long)b->ind_bytes, b->ind_blocks);
	} else if (IS("buffer"))
		sbuf_add(out, e->obj ? e->obj : "an array of its frame (not identified)");
	else if (IS("class"))
		sbuf_add(out, c->spec->name);
	else if (IS("here")) {
		det_site_text(q, e->site, site, sizeof site);
		sbuf_add(out, site);
	} else if (!b) {
		sbuf_add(out, "?");
	} else if (IS("bsize") || IS("offset")) {
		sbuf_printf(out, "%llu", (unsigned long long)(IS("bsize") ? b->size :
							      e->f[F_ADDR] - b->addr));
	} else if (IS("alloc") || IS("freed")) {
		det_site_text(q, IS("alloc") ? b->alloc_site : b->free_site, site, sizeof site);
		sbuf_add(out, site);
	} else if (IS("allocfn") || IS("freefn")) {
		const char *fn = IS("allocfn") ? b->alloc_fn : b->free_fn;
		sbuf_add(out, fn[0] ? fn : "?");
	}
#undef IS
}

static void report(struct qz *q, const struct det_class *c, const struct spec_rule *r,
		   const struct det_event *e, struct sbuf *out)
{
	for (const char *t = r->report; *t; t++) {
		const char *end = *t == '{' ? strchr(t, '}') : NULL;
		if (!end) {
			sbuf_addc(out, *t);
			continue;
		}
		expand(q, c, e, t + 1, (size_t)(end - t - 1), out);
		t = end;
	}
	sbuf_addc(out, '\n');
}

uint64_t det_reg_value(struct qz *q, int reg)
{
	const struct user_regs_struct *r = proc_regs(q->proc);
	const unsigned long long v[16] = {
		r->rax, r->rcx, r->rdx, r->rbx, r->rsp, r->rbp, r->rsi, r->rdi,
		r->r8, r->r9, r->r10, r->r11, r->r12, r->r13, r->r14, r->r15,
	};
	return reg >= 0 && reg < 16 ? v[reg] : 0;
}

/* The chain of the rule's locator field: from memory (loc_mem: the
 * field is where the bad value is) or from the register holding it. */
static void locate(struct qz *q, const struct spec_rule *r, const struct det_event *e)
{
	char what[64];
	snprintf(what, sizeof what, "%s %s", spec_event_name(e->ev), spec_field_name(r->locate));
	if (e->loc_mem) {
		uint64_t value = 0;
		qz_read(q, e->f[r->locate], &value, 8);
		det_vpc_mem(q, what, e->f[r->locate], value);
		return;
	}
	if (e->reg[r->locate] <= 0)
		return;
	int reg = e->reg[r->locate] - 1;
	uint64_t value = e->f[r->locate];
	/* an access's address is its pointer plus an offset: follow it */
	det_state(q)->vpc_offsets = e->ev == EV_READ || e->ev == EV_WRITE;
	if (e->faulted) {   /* the pointer, not the address */
		snprintf(what, sizeof what, "%s %s", spec_event_name(e->ev),
			 e->ev == EV_UNINIT ? "value" : "pointer");
		value = det_reg_value(q, reg);
	}
	det_vpc(q, what, reg, value, e->faulted);
	det_state(q)->vpc_offsets = false;
}

static bool rule_holds(struct detect_state *st, const struct det_event *e,
		       const struct spec_rule *r)
{
	return r->ev == e->ev && r->each_block == (e->blk != NULL) &&
	       (!r->cond || eval(st, e, r->cond));
}

bool det_would_fire(struct detect_state *st, const struct det_event *e)
{
	for (size_t i = 0; i < st->nclasses; i++)
		for (int k = 0; st->classes[i].on && k < st->classes[i].spec->nrules; k++)
			if (rule_holds(st, e, &st->classes[i].spec->rules[k]))
				return true;
	return false;
}

bool det_rule_on(const struct detect_state *st, enum spec_event ev)
{
	for (size_t i = 0; st && i < st->nclasses; i++)
		for (int k = 0; st->classes[i].on && k < st->classes[i].spec->nrules; k++)
			if (st->classes[i].spec->rules[k].ev == ev)
				return true;
	return false;
}

bool det_fire(struct qz *q, struct det_event *e, struct sbuf *out)
{
	struct detect_state *st = det_state(q);
	bool any = false;
	for (size_t i = 0; i < st->nclasses; i++) {
		struct det_class *c = &st->classes[i];
		for (int k = 0; c->on && k < c->spec->nrules; k++) {
			const struct spec_rule *r = &c->spec->rules[k];
			if (!rule_holds(st, e, r))
				continue;
			c->hits++;
			if (!any) {
				free(st->last_chain);
				st->last_chain = NULL;
			}
			/* a spec is a file: its text is made safe to print */
			struct sbuf one = {0};
			report(q, c, r, e, &one);
			str_sanitize(out, one.s, one.len);
			sbuf_free(&one);
			if (r->has_locator && !st->last_chain)
				locate(q, r, e);
			any = true;
			break;   /* one report per class and event */
		}
	}
	return any;
}

void det_show_report(struct qz *q, struct sbuf *out, bool made_stop)
{
	struct detect_state *st = det_state(q);
	free(st->last_report);
	st->last_report = xstrdup(out->s ? out->s : "");
	st->report_stop = q->nstops;
	st->report_made_stop = made_stop;
	qz_printf(q, "\n%s", st->last_report);
	if (st->last_chain)
		qz_puts(q, st->last_chain);
	sbuf_free(out);
}

bool det_explain_stop(struct qz *q, struct sbuf *out)
{
	struct detect_state *st = det_state(q);
	if (!st || !st->last_report || st->report_stop != q->nstops)
		return false;
	sbuf_printf(out, "A bug detector (detect on) found here: %s", st->last_report);
	if (st->last_chain)
		sbuf_add(out, st->last_chain);
	else
		sbuf_add(out, "Record the run (set detect-record on, or record on before the bug) "
			 "to see how the bad value got there.\n");
	if (st->report_made_stop)
		sbuf_add(out, "The program is stopped at that call, which has not run yet; "
			 "continue runs it as it would have run without qzdb.\n");
	return st->report_made_stop;
}
