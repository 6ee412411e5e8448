/* bp: breakpoint table and int3 sites. */
#include "bp.h"

#include <stdlib.h>
#include <string.h>

#include "value/expr.h"
#include "proc/proc.h"
#include "util/util.h"
#include "watch.h"

static const uint8_t INT3 = 0xcc;

void bp_free_locs(struct bp *b)
{
	for (size_t i = 0; i < b->nlocs; i++)
		free(b->locs[i].func);
	free(b->locs);
	b->locs = NULL;
	b->nlocs = 0;
}

static void bp_free(struct bp *b)
{
	if (b->ext_ops && b->ext_ops->free)
		b->ext_ops->free(b);
	bp_free_locs(b);
	free(b->spec);
	free(b->cond);
	expr_free(b->cond_expr);
	watch_free(b->watch);
}

void bp_table_free(struct bp_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		bp_free(&t->bps[i]);
	free(t->bps);
	free(t->sites);
	memset(t, 0, sizeof *t);
}

struct bp *bp_new(struct bp_table *t)
{
	XGROW(t->bps, t->cap, t->n + 1);
	struct bp *b = &t->bps[t->n++];
	memset(b, 0, sizeof *b);
	b->num = ++t->next_num;
	b->enabled = true;
	return b;
}

struct bp *bp_find(struct bp_table *t, int num)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->bps[i].num == num)
			return &t->bps[i];
	return NULL;
}

void bp_delete(struct bp_table *t, struct proc *p, int num)
{
	for (size_t i = 0; i < t->n; i++) {
		if (t->bps[i].num != num)
			continue;
		bp_free(&t->bps[i]);
		memmove(&t->bps[i], &t->bps[i + 1], (t->n - i - 1) * sizeof t->bps[0]);
		t->n--;
		break;
	}
	bp_sync(t, p);
}

struct bp_site *bp_site_at(struct bp_table *t, uint64_t addr)
{
	for (size_t i = 0; i < t->nsites; i++)
		if (t->sites[i].addr == addr)
			return &t->sites[i];
	return NULL;
}

int bp_site_drop(struct bp_table *t, struct proc *p, struct bp_site *s)
{
	(void)t;
	if (s->inserted && p && proc_alive(p)) {
		if (proc_write(p, s->addr, &s->orig, 1) < 0)
			return -1;
	}
	s->inserted = false;
	return 0;
}

int bp_site_lift(struct bp_table *t, struct proc *p, struct bp_site *s)
{
	if (s->inserted || t->out || !p || !proc_alive(p))
		return 0;
	uint8_t now;
	if (proc_read(p, s->addr, &now, 1) < 0 || proc_write(p, s->addr, &INT3, 1) < 0)
		return -1;
	if (now != s->orig)   /* the code changed while the int3 was out */
		s->resume = BP_RESUME_UNKNOWN;
	s->orig = now;
	s->inserted = true;
	return 0;
}

static struct bp_site *bp_site_get(struct bp_table *t, uint64_t addr)
{
	struct bp_site *s = bp_site_at(t, addr);
	if (s)
		return s;
	XGROW(t->sites, t->sites_cap, t->nsites + 1);
	s = &t->sites[t->nsites++];
	memset(s, 0, sizeof *s);
	s->addr = addr;
	return s;
}

int bp_site_add(struct bp_table *t, struct proc *p, uint64_t addr)
{
	struct bp_site *s = bp_site_get(t, addr);
	s->internal++;
	return bp_site_lift(t, p, s);
}

/* Count how many enabled user locations sit at addr. */
static int bp_users_at(const struct bp_table *t, uint64_t addr)
{
	int n = 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct bp *b = &t->bps[i];
		if (!b->enabled)
			continue;
		for (size_t j = 0; j < b->nlocs; j++)
			n += b->locs[j].addr == addr && !b->locs[j].disabled;
	}
	return n;
}

static void bp_site_gc(struct bp_table *t, struct proc *p)
{
	for (size_t i = 0; i < t->nsites;) {
		struct bp_site *s = &t->sites[i];
		if (s->internal <= 0 && bp_users_at(t, s->addr) == 0) {
			bp_site_drop(t, p, s);
			*s = t->sites[--t->nsites];
			continue;
		}
		i++;
	}
}

void bp_site_del(struct bp_table *t, struct proc *p, uint64_t addr)
{
	struct bp_site *s = bp_site_at(t, addr);
	if (!s)
		return;
	s->internal--;
	bp_site_gc(t, p);
}

void bp_sync(struct bp_table *t, struct proc *p)
{
	for (size_t i = 0; i < t->n; i++) {
		struct bp *b = &t->bps[i];
		for (size_t j = 0; b->enabled && j < b->nlocs; j++) {
			if (b->locs[j].addr && !b->locs[j].disabled)
				bp_site_lift(t, p, bp_site_get(t, b->locs[j].addr));
		}
	}
	bp_site_gc(t, p);
}

void bp_take_out(struct bp_table *t, struct proc *p)
{
	for (size_t i = 0; i < t->nsites; i++)
		bp_site_drop(t, p, &t->sites[i]);
	t->out = true;
}

void bp_put_back(struct bp_table *t, struct proc *p)
{
	t->out = false;
	for (size_t i = 0; i < t->nsites; i++)
		bp_site_lift(t, p, &t->sites[i]);
}

void bp_restore_raw(const struct bp_table *t, struct proc *p)
{
	for (size_t i = 0; i < t->nsites; i++)
		if (t->sites[i].inserted)
			proc_write(p, t->sites[i].addr, &t->sites[i].orig, 1);
}

void bp_remove_all(struct bp_table *t, struct proc *p)
{
	for (size_t i = 0; i < t->nsites; i++)
		bp_site_drop(t, p, &t->sites[i]);
	t->nsites = 0;
}

void bp_mask(const struct bp_table *t, uint64_t addr, void *buf, size_t len)
{
	uint8_t *b = buf;
	for (size_t i = 0; i < t->nsites; i++) {
		const struct bp_site *s = &t->sites[i];
		if (s->inserted && s->addr >= addr && s->addr < addr + len)
			b[s->addr - addr] = s->orig;
	}
}
