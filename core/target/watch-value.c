/* watch-value: a watchpoint's value and what it depends on. The
 * expression is evaluated with lookups and memory reads that record what
 * they touched (variables, pointers and indexes on the way, as gdb's value
 * chain), so that every byte the value is computed from is watched. */
#include "watch-int.h"

#include <stdlib.h>
#include <string.h>

#include "eval.h"
#include "frame.h"

static bool watch_is_local(struct qz *q, const char *name)
{
	if (!qz_running(q))
		return false;
	const struct frame *f = frame_get(q, q->sel_frame);
	const struct di_var *vars[256];
	size_t n = f ? frame_vars(f, vars, 256) : 0;
	for (size_t i = 0; i < n; i++)
		if (vars[i]->name && !strcmp(vars[i]->name, name))
			return !vars[i]->is_static;
	return false;
}

static void watch_touched(struct watch_state *ws, uint64_t addr, uint64_t len,
			  bool leaf, bool aggregate)
{
	XGROW(ws->touch, ws->touch_cap, ws->ntouch + 1);
	ws->touch[ws->ntouch++] = (struct watch_touch){{addr, len}, leaf, aggregate};
}

static bool watch_aggregate(const struct di_type *t)
{
	t = val_type_strip(t);
	return t && (t->kind == DI_STRUCT || t->kind == DI_UNION || t->kind == DI_ARRAY);
}

static int watch_lookup(void *arg, const char *name, struct val *out,
			char *err, size_t errlen)
{
	struct qz *q = arg;
	struct watch_state *ws = q->watch;
	int r = ws->lookup(arg, name, out, err, errlen);
	if (r != 0 || !ws->recording)
		return r;
	if (out->where == VAL_MEM)
		watch_touched(ws, out->addr, out->size, true, watch_aggregate(out->type));
	else if (out->where == VAL_REG)
		ws->touch_reg = true;
	if (watch_is_local(q, name))
		ws->touch_local = true;
	return 0;
}

static int watch_read_mem(void *arg, uint64_t addr, void *buf, size_t len)
{
	struct qz *q = arg;
	struct watch_state *ws = q->watch;
	if (ws->recording)
		watch_touched(ws, addr, len, false, false);
	return ws->read_mem(arg, addr, buf, len);
}

int watch_eval(struct qz *q, struct watch *w, struct val *out, bool record)
{
	struct watch_state *ws = watch_state(q);
	struct expr_env env;
	char err[512];
	eval_env(q, &env);
	ws->lookup = env.lookup_var;
	ws->read_mem = env.read_mem;
	env.lookup_var = watch_lookup;
	env.read_mem = watch_read_mem;
	ws->recording = record;
	ws->ntouch = 0;
	ws->touch_reg = ws->touch_local = false;
	int r = expr_eval(w->expr, &env, out, err, sizeof err);
	ws->recording = false;
	if (r < 0)
		return qz_error(q, "%s", err);
	return 0;
}

void watch_add_range(struct watch *w, uint64_t addr, uint64_t len)
{
	for (size_t i = 0; i < w->nranges; i++)
		if (addr >= w->ranges[i].addr &&
		    addr + len <= w->ranges[i].addr + w->ranges[i].len)
			return;
	XGROW(w->ranges, w->ranges_cap, w->nranges + 1);
	w->ranges[w->nranges++] = (struct watch_range){addr, len};
}

void watch_set_ranges(struct qz *q, struct watch *w, const struct val *v)
{
	struct watch_state *ws = q->watch;
	bool lvalue = v->where == VAL_MEM;
	w->nranges = 0;
	if (lvalue)
		watch_add_range(w, v->addr, v->size);
	for (size_t i = 0; !w->location && i < ws->ntouch; i++) {
		const struct watch_touch *t = &ws->touch[i];
		if (lvalue && (!t->leaf || t->aggregate))
			continue;
		if (t->r.len)
			watch_add_range(w, t->r.addr, t->r.len);
	}
	w->direct = lvalue && (w->location || w->nranges == 1);
	w->in_reg = !w->location && (ws->touch_reg || v->where == VAL_REG);
	w->type = v->type;
	w->located |= qz_running(q) && w->nranges > 0;
}

/* Select the frame w's locals live in for the evaluation; false if it is
 * not on the stack any more. */
static bool watch_select(struct qz *q, const struct watch *w, int *saved)
{
	*saved = q->sel_frame;
	if (!w->cfa)
		return true;
	for (int n = 0; n < WATCH_MAX_FRAMES; n++) {
		const struct frame *f = frame_get(q, n);
		if (!f)
			break;
		frame_get(q, f->set_real + 1);   /* unwinding the caller gives f its CFA */
		f = frame_get(q, n);             /* (the frame array may have moved) */
		if (f->has_cfa && f->cfa == w->cfa) {
			q->sel_frame = n;
			return true;
		}
	}
	return false;
}

static int watch_read_direct(struct qz *q, const struct watch *w, struct val *out)
{
	uint64_t len = w->ranges[0].len;
	uint8_t *b = xmalloc(len ? len : 1);
	int r = qz_read(q, w->ranges[0].addr, b, len);
	if (r == 0)
		*out = val_from_bytes(w->type, b, len);
	free(b);
	return r < 0 ? -1 : 0;
}

int watch_value(struct qz *q, struct watch *w, struct val *out, bool *moved)
{
	*moved = false;
	if (w->direct)
		return watch_read_direct(q, w, out);
	int saved;
	if (!watch_select(q, w, &saved))
		return -1;
	int r = watch_eval(q, w, out, true);
	q->sel_frame = saved;
	if (r < 0) {
		sbuf_reset(&q->err);
		return -1;
	}
	size_t n = w->nranges;
	struct watch_range *before = xmemdup(w->ranges, n * sizeof *before);   /* n may be 0 */
	watch_set_ranges(q, w, out);
	*moved = n != w->nranges || (n && memcmp(before, w->ranges, n * sizeof *before) != 0);
	free(before);
	return 0;
}

bool watch_same(const struct val *a, const struct val *b)
{
	return a->size == b->size && memcmp(a->bytes, b->bytes, a->size) == 0;
}

void watch_set_old(struct watch *w, struct val *v)
{
	if (w->have_old)
		val_free(&w->old);
	w->old = *v;
	w->have_old = true;
	memset(v, 0, sizeof *v);
}
