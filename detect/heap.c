/* heap: the heap events the detectors see during a normal run. Internal
 * stops (bp_site_add) on the allocator's entries, found the way the
 * dynamic linker binds them (the program first, then the libraries in load
 * order), planted once the program reaches its entry point (the libraries
 * are loaded then, and the program has allocated nothing yet): free and
 * _exit decide at their entry, malloc/calloc/realloc and the aligned
 * allocations (memalign, aligned_alloc, posix_memalign: malloc events) at
 * their return (an internal stop at the return address, for the result).
 * Every event's site is the program's call site: a call from inside a
 * library (strdup's malloc) is charged to the program's call of that
 * library function. While the memory watcher runs the program in the
 * emulator, heap-machine.c sees most of these calls there instead. A
 * static program's allocator is its own (its symbols; libc's code is
 * told from the program's by qz_in_program), and it starts at its entry. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "detect-int.h"
#include "dinfo/disasm.h"
#include "slice/view.h"
#include "target/frame.h"
#include "target/run.h"
#include "target/session.h"

static const char *const fn_names[DF_COUNT] = {
	"malloc", "calloc", "realloc", "free", "_exit", "__stack_chk_fail", "memalign",
	"aligned_alloc", "posix_memalign",
};

void det_blocks_clear(struct detect_state *st)
{
	for (size_t i = 0; i < st->nall; i++)
		free(st->all[i]);
	st->nall = 0;
	hmap_free(&st->blocks);
	memset(&st->blocks, 0, sizeof st->blocks);
}

void det_heap_reset(struct detect_state *st)
{
	det_blocks_clear(st);
	st->npend = 0;
	det_mrets_sync(st);
	st->entry_site = 0;
	memset(st->fn_at, 0, sizeof st->fn_at);
	memset(st->lw_at, 0, sizeof st->lw_at);
	st->late = st->exit_seen = st->pre = false;
	st->skip_sp = st->skip_ret = 0;
	st->acc_on = st->un_on = false;
	memset(st->callsites, 0, sizeof st->callsites);
	det_shadow_reset(&st->sh);
	det_undef_reset(&st->un);
}

bool det_user_bp_at(struct qz *q, uint64_t pc)
{
	for (size_t i = 0; i < q->bps.n; i++)
		for (size_t j = 0; q->bps.bps[i].enabled && j < q->bps.bps[i].nlocs; j++)
			if (q->bps.bps[i].locs[j].addr == pc)
				return true;
	return false;
}

const struct qz_module *det_bound_in(struct qz *q, const char *name, uint64_t *at)
{
	for (size_t i = 0; i <= q->nlibs; i++) {
		const struct qz_module *m = i ? &q->libs[i - 1] : &q->exe;
		const struct img_sym *s = m->img ? img_sym_named_global(m->img, name) : NULL;
		if (s && s->addr && !img_in_plt(m->img, s->addr)) {
			*at = s->addr + m->bias;
			return m;
		}
	}
	return NULL;
}

/* No malloc to plant at the entry: say why, in a static program (its
 * allocator is inside it, found by its symbols), never silently. */
static void no_allocator(struct qz *q, struct detect_state *st)
{
	if (!qz_exe_static(q))
		return;
	uint64_t off;
	bool stripped = !img_sym_at(q->exe.img, img_entry(q->exe.img), &off);
	st->heap_note = stripped ?
		"not seen: a static program without a symbol table (stripped): the "
		"detectors cannot find its allocator (malloc, free...)" :
		"not seen: a static program with no malloc of its own";
	qz_warn(q, "Heap events are %s.", st->heap_note);
}

/* Where function name is in module m (runtime), 0 if not there. A static
 * program's libc may hold it as a local symbol (-static-pie makes malloc
 * and _exit local) or under glibc's own name only (__libc_malloc). */
static uint64_t fn_in(struct qz *q, const struct qz_module *m, const char *name)
{
	const struct img_sym *s = img_sym_named_global(m->img, name);
	if (!s && m == &q->exe && qz_exe_static(q)) {
		char alt[48];
		snprintf(alt, sizeof alt, "__libc_%s", name);
		s = img_sym_named(m->img, name);
		if (!s || !s->is_func)
			s = img_sym_named(m->img, alt);
	}
	return s && s->addr && s->is_func && !s->is_ifunc ? s->addr + m->bias : 0;
}

/* Plant the allocator's entries (with qzheap's allocator, its bad-free
 * site for free's and none for the others): false if there is no malloc
 * yet. A static program's way is said in info detect (heap_note). */
static bool plant_fns(struct qz *q, struct detect_state *st)
{
	uint64_t at;
	const struct qz_module *m = det_bound_in(q, "malloc", &at);
	if (!m && fn_in(q, &q->exe, "malloc"))
		m = &q->exe;
	if (!m) {
		no_allocator(q, st);
		return false;
	}
	if (qz_exe_static(q))
		st->heap_note = "a static program: internal stops on the allocator's entries in "
				"the program (qzheap.so cannot be preloaded into it)";
	bool pre = det_pre_arm(q, st);
	for (int i = 0; i < DF_COUNT; i++) {
		if (pre && i != DF_EXIT && i != DF_STACKCHK)
			continue;
		uint64_t a = fn_in(q, m, fn_names[i]);
		if (!a && !det_bound_in(q, fn_names[i], &a))
			continue;
		if (bp_site_add(&q->bps, q->proc, a) == 0)
			st->fn_at[i] = a;
	}
	return true;
}

/* The program is at its entry: the libraries are loaded and nothing is
 * allocated yet. can_stop: a start rule's report may stop it here (else,
 * at the start of a static program, it is shown and the run goes on). */
static int at_entry(struct qz *q, struct detect_state *st, bool can_stop)
{
	plant_fns(q, st);
	det_lw_plant(q, st);
	det_acc_arm(q);
	if (st->record && slice_view_record(q) < 0)
		sbuf_reset(&q->err);
	st->events[EV_START]++;
	struct det_event e = { .ev = EV_START };
	struct sbuf out = {0};
	if (!det_fire(q, &e, &out))
		return RUN_AGAIN;
	if (can_stop)
		return det_stop(q, &out);
	det_show_report(q, &out, false);
	return RUN_AGAIN;
}

void det_heap_start(struct qz *q)
{
	struct detect_state *st = det_state(q);
	det_heap_reset(st);
	memset(st->events, 0, sizeof st->events);   /* counted per run */
	st->acc_engine = st->acc_lost = NULL;
	st->acc_checked = 0;
	st->un_slow = st->un_switches = 0;
	st->traps = st->mtraps = st->mlwtraps = 0;
	st->seconds = 0;
	st->heap_note = NULL;
	if (!det_any_on(st) || !q->exe.img)
		return;
	if (q->attached) {   /* past its entry: the libraries are there */
		det_heap_arm(q);
		return;
	}
	uint64_t a = img_entry(q->exe.img) + q->exe.bias;
	/* a static program starts at its entry: a site there would be
	 * stepped over (resuming lifts the site at the pc) */
	if (proc_pc(q->proc) == a)
		at_entry(q, st, false);
	else if (bp_site_add(&q->bps, q->proc, a) == 0)
		st->entry_site = a;
}

void det_heap_arm(struct qz *q)
{
	struct detect_state *st = det_state(q);
	if (!qz_running(q) || st->entry_site || st->fn_at[DF_FREE])
		return;
	if (plant_fns(q, st)) {
		det_lw_plant(q, st);
		det_acc_arm(q);
		st->late = !st->pre;   /* qzheap's blocks are all in its memory */
		if (st->pre)
			det_pre_sync(q, st);
		else
			qz_warn(q, "The program is running: heap events are seen from now on, and "
				"blocks allocated before are not known (run again to see them all).");
	}
}

void det_heap_repick(struct qz *q)
{
	struct detect_state *st = det_state(q);
	if (!st->pre || !qz_running(q) || det_pre_rules_ok(st))
		return;
	/* a class now needs every heap call: qzheap's entries and returns
	 * become internal stops like glibc's, from the model read now */
	det_pre_sync(q, st);
	bp_site_del(&q->bps, q->proc, st->fn_at[DF_FREE]);
	memset(st->fn_at, 0, sizeof st->fn_at);
	plant_fns(q, st);
	det_lw_plant(q, st);
	det_acc_arm(q);
	det_acc_rebuild(q, st);
}

void det_heap_disarm(struct qz *q)
{
	struct detect_state *st = det_state(q);
	if (qz_running(q)) {
		if (st->entry_site)
			bp_site_del(&q->bps, q->proc, st->entry_site);
		for (int i = 0; i < DF_COUNT; i++)
			if (st->fn_at[i])
				bp_site_del(&q->bps, q->proc, st->fn_at[i]);
		for (size_t i = 0; i < st->npend; i++)
			if (!st->pend[i].machine)
				bp_site_del(&q->bps, q->proc, st->pend[i].ret);
		det_lw_unplant(q, st);
		det_acc_disarm(q);
	}
	det_heap_reset(st);
}

void det_heap_gone(struct qz *q)
{
	struct detect_state *st = det_state(q);
	st->npend = 0;   /* the sites went with the process */
	det_mrets_sync(st);
	st->entry_site = 0;
	memset(st->fn_at, 0, sizeof st->fn_at);
	memset(st->lw_at, 0, sizeof st->lw_at);
	st->acc_on = st->un_on = false;   /* the watcher went with the process */
	det_shadow_reset(&st->sh);
	det_undef_reset(&st->un);
}

/* The call instruction that returns to ret, decoded into d: false if
 * there is none (a tail call's return address, a jump). */
static bool call_decode(struct qz *q, uint64_t ret, struct dis_insn *d)
{
	static const int lens[] = { 5, 6, 2, 3, 7 };
	for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
		uint8_t code[16];
		uint64_t at = ret - (uint64_t)lens[i];
		if (qz_read(q, at, code, sizeof code) == 0 && dis_decode(code, sizeof code, at, d) &&
		    d->is_call && d->len == (size_t)lens[i])
			return true;
	}
	return false;
}

/* The target of the direct call before ret: false if there is none (a
 * tail call's return address, a jump, an indirect call). A return address
 * in the program's own code is decoded once a run (its code does not
 * change while it runs; sed's regex made 187,000 reads of the process for
 * the same few sites); a library's each time (dlclose can put other code
 * there). */
bool det_call_target(struct qz *q, uint64_t ret, uint64_t *target)
{
	struct dis_insn d;
	if (!qz_in_program(q, ret)) {
		if (!call_decode(q, ret, &d) || !d.has_target)
			return false;
		*target = d.target;
		return true;
	}
	struct det_callsite *c = &det_state(q)->callsites[(ret ^ ret >> 8) & (DET_CALLSITES - 1)];
	if (c->ret != ret) {
		c->direct = call_decode(q, ret, &d) && d.has_target;
		c->target = c->direct ? d.target : 0;
		c->ret = ret;
	}
	*target = c->target;
	return c->direct;
}

/* The name of the function the call before ret calls ("strdup" for a
 * call to strdup@plt); false if it is not known. */
bool det_callee_name(struct qz *q, uint64_t ret, char *buf, size_t len)
{
	uint64_t to;
	if (!det_call_target(q, ret, &to) || !qz_symbolize(q, to, buf, len))
		return false;
	buf[strcspn(buf, "@+")] = 0;
	return buf[0] != 0;
}

/* The program's call site of the heap call whose return address is ret
 * (at its entry): ret itself, or the first frame in the program when a
 * library called (fn then names the library function the program called). */
static uint64_t program_site(struct qz *q, uint64_t ret, char *fn, size_t len)
{
	if (qz_in_program(q, ret))
		return ret;
	const struct frame *f = det_program_frame(q);
	if (!f)
		return 0;
	det_callee_name(q, f->pc, fn, len);
	return f->pc;
}

struct det_block *det_block_add(struct detect_state *st, uint64_t addr)
{
	struct det_block *b = hmap_get(&st->blocks, addr);
	if (!b) {
		b = xcalloc(1, sizeof *b);
		b->addr = addr;
		hmap_put(&st->blocks, addr, b);
		XGROW(st->all, st->all_cap, st->nall + 1);
		st->all[st->nall++] = b;
	}
	return b;
}

void det_apply_free(struct qz *q, struct detect_state *st, uint64_t addr, uint64_t site,
		       const char *fn)
{
	struct det_block *b = hmap_get(&st->blocks, addr);
	if (!b || !b->live)
		return;
	det_acc_free(q, st, b);
	b->live = false;
	b->free_site = site;
	snprintf(b->free_fn, sizeof b->free_fn, "%s", fn);
}

/* A report was printed: the stop, shown like a breakpoint's. */
int det_stop(struct qz *q, struct sbuf *out)
{
	det_show_report(q, out, true);
	frame_invalidate(q);
	q->sel_frame = 0;
	const struct frame *f = frame_get(q, 0);
	if (f)
		frame_print_stop(q, f, true);
	q->stop = QZ_STOP_BREAKPOINT;
	return RUN_STOPPED;
}

/* Back to the call instruction in the program (it runs again on continue,
 * unseen: skip_sp), so that the stop is on the caller's line. */
bool det_rewind_to_call(struct qz *q, uint64_t ret, const char *fn)
{
	struct dis_insn d;
	char callee[64];
	/* only a direct call of the function entered reruns unchanged: after
	 * a tail call the call before ret is of another function */
	if (!qz_in_program(q, ret) || !call_decode(q, ret, &d) || !d.has_target)
		return false;
	bool ours = d.target == proc_pc(q->proc) ||
		    (det_callee_name(q, ret, callee, sizeof callee) && strcmp(callee, fn) == 0);
	if (!ours)
		return false;
	struct user_regs_struct *r = proc_regs(q->proc);
	r->rip = d.addr;
	r->rsp += 8;
	proc_regs_dirty(q->proc);
	return true;
}

static int on_free(struct qz *q, struct detect_state *st, uint64_t ret)
{
	struct user_regs_struct *r = proc_regs(q->proc);
	uint64_t addr = r->rdi;
	char fn[32] = "free";
	uint64_t site = program_site(q, ret, fn, sizeof fn);
	if (st->skip_sp && r->rsp + 8 == st->skip_sp && ret == st->skip_ret) {
		st->skip_sp = 0;   /* the free a report stopped at, running now */
	} else if (!st->late || hmap_get(&st->blocks, addr)) {
		struct det_event e = { .ev = EV_FREE, .f = { [F_ADDR] = addr }, .site = site,
				       .reg = { [F_ADDR] = 1 + DET_REG_RDI } };
		struct sbuf out = {0};
		if (!st->pre)   /* qzheap counted it (det_pre_sync) */
			st->events[EV_FREE]++;
		if (det_fire(q, &e, &out)) {
			uint64_t sp = r->rsp + 8;
			if (site == ret && det_rewind_to_call(q, ret, "free")) {
				st->skip_sp = sp;
				st->skip_ret = ret;
			}
			return det_stop(q, &out);
		}
	}
	det_apply_free(q, st, addr, site, fn);
	return RUN_AGAIN;
}

struct det_pending det_pend_make(int which, uint64_t rdi, uint64_t rsi, uint64_t rdx,
				 uint64_t ret, uint64_t sp)
{
	/* the aligned allocations are malloc events (the spec language's) */
	struct det_pending p = { .ev = which == DF_CALLOC ? EV_CALLOC :
					which == DF_REALLOC ? EV_REALLOC : EV_MALLOC,
				 .ret = ret, .sp = sp + 8 };
	snprintf(p.fn, sizeof p.fn, "%s", fn_names[which]);
	if (which == DF_MALLOC)
		p.size = rdi;
	else if (which == DF_MEMALIGN || which == DF_ALIGNED_ALLOC)
		p.size = rsi;
	else if (which == DF_POSIX_MEMALIGN)
		p.out = rdi, p.size = rdx;
	else if (which == DF_CALLOC)
		p.size = __builtin_mul_overflow(rdi, rsi, &p.size) ? UINT64_MAX : p.size;
	else
		p.addr = rdi, p.size = rsi;
	return p;
}

void det_pend_add(struct detect_state *st, struct det_pending *p)
{
	p->seq = ++st->pend_seq;
	XGROW(st->pend, st->pend_cap, st->npend + 1);
	st->pend[st->npend++] = *p;
	det_mrets_sync(st);
}

static int on_alloc_entry(struct qz *q, struct detect_state *st, int which, uint64_t ret)
{
	struct user_regs_struct *r = proc_regs(q->proc);
	struct det_pending p = det_pend_make(which, r->rdi, r->rsi, r->rdx, ret, r->rsp);
	p.site = program_site(q, ret, p.fn, sizeof p.fn);
	if (bp_site_add(&q->bps, q->proc, ret) < 0)
		return RUN_AGAIN;
	det_pend_add(st, &p);
	return RUN_AGAIN;
}

/* Pending event i has returned (r's result): the model, then the rules;
 * true when a report was added to out. */
static bool on_alloc_return(struct qz *q, struct detect_state *st, size_t i, struct sbuf *out)
{
	struct det_pending p = st->pend[i];
	st->pend[i] = st->pend[--st->npend];
	if (!p.machine)
		bp_site_del(&q->bps, q->proc, p.ret);
	struct det_event e;
	det_alloc_apply(q, st, &p, det_alloc_result(q, st, &p, proc_regs(q->proc)->rax), &e);
	return det_fire(q, &e, out);
}

uint64_t det_alloc_result(struct qz *q, struct detect_state *st, const struct det_pending *p,
			  uint64_t rax)
{
	uint64_t res = 0;
	if (!p->out)
		return rax;
	if (rax == 0 && det_read(q, st, p->out, &res, sizeof res) < 0)   /* 0: success */
		res = 0;
	return rax == 0 ? res : 0;
}

void det_alloc_apply(struct qz *q, struct detect_state *st, const struct det_pending *pp,
		     uint64_t res, struct det_event *e)
{
	struct det_pending p = *pp;
	if (p.ev == EV_REALLOC && p.addr && res != p.addr && (res || !p.size))
		det_apply_free(q, st, p.addr, p.site, p.fn);
	if (res) {
		struct det_block *b = det_block_add(st, res);
		b->live = true;
		b->size = p.size;
		b->alloc_site = p.site;
		b->free_site = 0;
		snprintf(b->alloc_fn, sizeof b->alloc_fn, "%s", p.fn);
		b->free_fn[0] = 0;
		det_acc_alloc(q, st, b);
		if (p.ev != EV_REALLOC)   /* realloc's block holds the old contents */
			det_un_alloc(st, b, p.ev == EV_CALLOC);
	}
	st->events[p.ev]++;
	*e = (struct det_event){ .ev = p.ev, .site = p.site,
				 .f = { [F_ADDR] = p.addr, [F_SIZE] = p.size, [F_RESULT] = res },
				 .reg = { [F_RESULT] = 1 + DET_REG_RAX } };
}

/* The returns awaited at pc with this sp. A tail call (realloc(NULL, n)
 * jumping to malloc) leaves two events awaiting the same return: both end
 * here, the inner one (entered last) first, so that none is left to match
 * a later return at the same place by mistake. */
static int on_returns(struct qz *q, struct detect_state *st, uint64_t pc, uint64_t sp)
{
	struct sbuf out = {0};
	bool fired = false, any = true;
	while (any) {
		any = false;
		size_t last = 0;
		for (size_t i = 0; i < st->npend; i++)
			if (st->pend[i].ret == pc && st->pend[i].sp == sp &&
			    (!any || st->pend[i].seq > st->pend[last].seq))
				last = i, any = true;
		if (any)
			fired |= on_alloc_return(q, st, last, &out);
	}
	det_mrets_sync(st);
	if (fired)
		return det_stop(q, &out);
	sbuf_free(&out);
	return RUN_AGAIN;
}

static int det_heap_trap_in(struct qz *q, struct detect_state *st, uint64_t pc)
{
	if (pc == st->entry_site) {
		bp_site_del(&q->bps, q->proc, pc);
		st->entry_site = 0;
		return at_entry(q, st, true);
	}
	uint64_t sp = proc_regs(q->proc)->rsp;
	for (size_t i = 0; i < st->npend; i++)
		if (st->pend[i].ret == pc && st->pend[i].sp == sp)
			return on_returns(q, st, pc, sp);
	int which = -1;
	for (int i = 0; i < DF_COUNT; i++)
		if (st->fn_at[i] && st->fn_at[i] == pc)
			which = i;
	uint64_t ret;
	if (qz_read(q, sp, &ret, 8) < 0)
		return RUN_TARGET;
	if (which < 0)
		return det_lw_trap(q, st, pc, ret);
	if (st->pre && (which == DF_FREE || which == DF_EXIT))
		det_pre_sync(q, st);   /* the model as qzheap has it now */
	if (which == DF_FREE)
		return on_free(q, st, ret);
	if (which == DF_EXIT)
		return det_heap_exit(q, st, ret);
	if (which == DF_STACKCHK)
		return det_stack_canary(q, st, ret);
	return on_alloc_entry(q, st, which, ret);
}

int det_heap_trap(struct qz *q, uint64_t pc)
{
	struct detect_state *st = det_state(q);
	if (!st)
		return RUN_TARGET;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int ev = det_heap_trap_in(q, st, pc);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (ev != RUN_TARGET) {
		st->traps++;
		st->seconds += (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	}
	/* a user's breakpoint on the same address still stops */
	if (ev == RUN_AGAIN && det_user_bp_at(q, proc_pc(q->proc)))
		return RUN_TARGET;
	return ev;
}
