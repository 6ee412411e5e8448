/* rec: recording by single-stepping; see rec.h. Statement instances
 * follow DESIGN.md: an instance of a line starts when execution reaches an
 * is_stmt row start of that line coming from another statement; returning
 * from a call resumes the caller's instance. Library code belongs to the
 * user statement that called it (its dependences are squashed there). */
#include "rec.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/sched.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <time.h>
#include <unistd.h>

#include "cfg.h"
#include "dinfo/image.h"
#include "dinfo/lines.h"
#include "proc/proc.h"
#include "target/loc.h"
#include "target/run.h"
#include "target/session.h"
#include "util/progress.h"
#include "rec-int.h"
#include "slice.h"

void rec_init(struct rec *r)
{
	memset(r, 0, sizeof *r);
	r->engine = &rec_step_engine;
	r->cur = -1;
	r->last_id = -1;
	r->cfg = cfg_new();
}

void rec_fini(struct rec *r)
{
	trace_free(&r->tr);
	free(r->hkeys);
	free(r->hvals);
	hmap_free(&r->code_pages);
	free(r->count);
	free(r->latest);
	free(r->calls);
	free(r->pcalls);
	free(r->cds);
	free(r->unknown);
	rec_emu_free(r->emu);
	rev_log_free(&r->undo);
	cfg_free(r->cfg);
	memset(r, 0, sizeof *r);
}

static int32_t rec_stmt(struct rec *r, const char *file, int line)
{
	struct trace *t = &r->tr;
	for (size_t i = 0; i < t->nstmts; i++)
		if (t->stmts[i].file == file && t->stmts[i].line == line)
			return (int32_t)i;
	XGROW(t->stmts, t->stmts_cap, t->nstmts + 1);
	t->stmts[t->nstmts] = (struct trace_stmt){ file, line };
	if (t->nstmts >= r->count_cap) {
		size_t cap = r->count_cap;
		XGROW(r->count, cap, t->nstmts + 1);
		XGROW(r->latest, r->count_cap, t->nstmts + 1);
	}
	r->count[t->nstmts] = 0;
	r->latest[t->nstmts] = -1;
	return (int32_t)t->nstmts++;
}

const char *rec_stmt_name(const struct rec *r, int32_t s, char *buf, size_t len)
{
	if (s < 0 || (size_t)s >= r->tr.nstmts)
		snprintf(buf, len, "??");
	else
		snprintf(buf, len, "%s:%d", str_basename(r->tr.stmts[s].file), r->tr.stmts[s].line);
	return buf;
}

static void rec_fill_stmt(struct qz *q, struct rec *r, struct trace_insn *e)
{
	e->stmt = -1;
	if (!q->exe_loaded || e->pc < q->exe.lo || e->pc >= q->exe.hi || !q->exe.lines)
		return;
	const struct lines_row *row = lines_at(q->exe.lines, e->pc - q->exe.bias);
	/* a static program holds libc's code too: that is library code
	 * (qz_in_program's rule, without its second lookup) */
	if (!row && qz_exe_static(q) && !qz_exe_mixed(q))
		return;
	e->user = true;
	if (!row)
		return;
	e->stmt = rec_stmt(r, row->file, row->line);
	e->row_start = row->addr == e->pc - q->exe.bias && row->is_stmt;
}

static size_t rec_hash(uint64_t pc, size_t cap)
{
	return (size_t)((pc * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1);
}

static void rec_hash_put(struct rec *r, uint64_t pc, uint32_t id)
{
	if (2 * (r->hn + 1) > r->hcap) {
		size_t ocap = r->hcap;
		uint64_t *ok = r->hkeys;
		uint32_t *ov = r->hvals;
		r->hcap = ocap ? ocap * 2 : 4096;
		r->hkeys = xcalloc(r->hcap, sizeof *r->hkeys);
		r->hvals = xcalloc(r->hcap, sizeof *r->hvals);
		r->hn = 0;
		for (size_t i = 0; i < ocap; i++)
			if (ok[i])
				rec_hash_put(r, ok[i], ov[i]);
		free(ok);
		free(ov);
	}
	size_t h = rec_hash(pc, r->hcap);
	while (r->hkeys[h])
		h = (h + 1) & (r->hcap - 1);
	r->hkeys[h] = pc;
	r->hvals[h] = id;
	r->hn++;
}

static const char rec_code_on, rec_code_off;   /* code_pages' values */

/* The decode cache read [pc, pc+len). */
static void rec_code_note(struct rec *r, uint64_t pc, uint64_t len)
{
	r->code_noted++;
	for (uint64_t p = pc >> 12; p <= (pc + len - 1) >> 12; p++)
		if (hmap_get(&r->code_pages, p) != &rec_code_on)
			hmap_put(&r->code_pages, p, (void *)&rec_code_on);
	if (!r->code_hi || pc < r->code_lo)
		r->code_lo = pc & ~0xfffull;
	if (pc + len > r->code_hi)
		r->code_hi = (pc + len + 0xfff) & ~0xfffull;
}

/* Forget the decoded instructions that overlap pages [p0, p1]: a new
 * decode gives them new ids (the old ones stay for the records made). */
static void rec_code_drop(struct rec *r, uint64_t p0, uint64_t p1)
{
	size_t ocap = r->hcap;
	uint64_t *ok = r->hkeys;
	uint32_t *ov = r->hvals;
	r->hkeys = xcalloc(ocap, sizeof *r->hkeys);
	r->hvals = xcalloc(ocap, sizeof *r->hvals);
	r->hn = 0;
	for (size_t i = 0; i < ocap; i++) {
		if (!ok[i])
			continue;
		const struct trace_insn *e = &r->tr.insns[ov[i]];
		if (e->pc >> 12 <= p1 && (e->pc + e->in.len - 1) >> 12 >= p0)
			continue;
		rec_hash_put(r, ok[i], ov[i]);
	}
	free(ok);
	free(ov);
	r->code_gen++;
}

void rec_code_written(struct rec *r, uint64_t addr, uint64_t len)
{
	if (!len || addr >= r->code_hi || addr + len <= r->code_lo)
		return;
	uint64_t p0 = addr >> 12, p1 = (addr + len - 1) >> 12;
	if (p0 == p1 && p0 + 1 == r->cw_page && r->cw_noted == r->code_noted)
		return;   /* looked at since the last decode: no code page */
	if (p1 - p0 > 4096) {   /* a large mapping: look at the cache itself */
		rec_code_drop(r, p0, p1);
		return;
	}
	bool hit = false;
	for (uint64_t p = p0; p <= p1; p++)
		if (hmap_get(&r->code_pages, p) == &rec_code_on) {
			hmap_put(&r->code_pages, p, (void *)&rec_code_off);
			hit = true;
		}
	if (hit)
		rec_code_drop(r, p0, p1);
	if (p0 == p1) {   /* off now, if it was on */
		r->cw_page = p0 + 1;
		r->cw_noted = r->code_noted;
	}
}

int64_t rec_insn_id(struct qz *q, struct rec *r, uint64_t pc)
{
	if (r->hcap) {
		for (size_t h = rec_hash(pc, r->hcap); r->hkeys[h]; h = (h + 1) & (r->hcap - 1))
			if (r->hkeys[h] == pc)
				return r->hvals[h];
	}
	uint8_t bytes[16];
	int n = 16;
	while (n > 0 && (r->read_code ? r->read_code(r->read_code_ctx, pc, bytes, (size_t)n) :
			 qz_read(q, pc, bytes, (size_t)n)) < 0)
		n--;
	struct trace *t = &r->tr;
	XGROW(t->insns, t->insns_cap, t->ninsns + 1);
	struct trace_insn *e = &t->insns[t->ninsns];
	memset(e, 0, sizeof *e);
	e->pc = pc;
	if (n <= 0 || !insn_decode(bytes, n, pc, &e->in))
		return -1;
	rec_fill_stmt(q, r, e);
	rec_hash_put(r, pc, (uint32_t)t->ninsns);
	rec_code_note(r, pc, e->in.len);
	return (int64_t)t->ninsns++;
}

/* A new instance of the statement at a row start reached from another
 * statement; otherwise the statement's latest instance continues. */
static bool rec_track_stmt(struct rec *r, const struct trace_insn *e)
{
	struct trace *t = &r->tr;
	int32_t s = e->stmt;
	bool same = r->cur >= 0 && trace_inst_get(t, r->cur).stmt == (uint32_t)s;
	bool fresh = false;
	if (same)
		return false;
	if (e->row_start || r->latest[s] < 0) {
		r->latest[s] = trace_new_inst(t, (uint32_t)s, ++r->count[s]);
		fresh = true;
	}
	r->cur = r->latest[s];
	return fresh;
}

/* Branches whose immediate post-dominator is reached (in their frame or
 * after it returned) stop governing what runs. */
static void rec_cd_reach(struct rec *r, uint64_t pc, uint64_t sp)
{
	while (r->ncds && r->cds[r->ncds - 1].ipdom == pc && sp >= r->cds[r->ncds - 1].sp)
		r->ncds--;
}

bool rec_pre_may_stop(struct qz *q, const struct rec *r, const struct trace_insn *e)
{
	if (!e->user || e->stmt < 0 || (!slice_state(q)->nsb && !slice_state(q)->snext))
		return false;
	if (r->cur >= 0 && trace_inst_get(&r->tr, r->cur).stmt == (uint32_t)e->stmt)
		return false;
	return e->row_start || r->latest[e->stmt] < 0;
}

/* Before an instruction runs: its statement instance and control parent.
 * true if an sbreak stops here, before the instance's first instruction. */
bool rec_pre(struct qz *q, struct rec *r, const struct trace_insn *e, uint64_t sp)
{
	bool fresh = false;
	if (e->user) {
		rec_cd_reach(r, e->pc, sp);
		if (e->stmt >= 0)
			fresh = rec_track_stmt(r, e);
	}
	if (r->on) {
		trace_set_inst(&r->tr, r->cur);
		trace_set_cd(&r->tr, r->ncds ? r->cds[r->ncds - 1].rec : -1);
	}
	return fresh && (slice_state(q)->nsb || slice_state(q)->snext) && slice_sbreak_hit(q, r->cur);
}

/* A branch executed in the program's code: until its post-dominator is
 * reached, what runs is control dependent on it. A loop's branch replaces
 * its own earlier instance in the same frame. */
static void rec_branch(struct qz *q, struct rec *r, const struct trace_insn *e,
		       uint64_t sp, uint64_t next, int64_t recno)
{
	uint64_t off;
	const struct img_sym *fs = img_sym_at(q->exe.img, e->pc - q->exe.bias, &off);
	if (!fs || !fs->size)
		return;
	uint64_t lo = fs->addr + q->exe.bias, hi = lo + fs->size;
	if (e->in.kind == INSN_JMP_IND)
		cfg_add_target(r->cfg, lo, hi, next);
	for (size_t i = r->ncds; i-- > 0 && r->cds[i].sp == sp;)
		if (r->cds[i].branch == e->pc) {
			r->ncds = i;
			break;
		}
	uint64_t ipdom = cfg_ipdom(r->cfg, q, lo, hi, e->pc);
	XGROW(r->cds, r->cds_cap, r->ncds + 1);
	r->cds[r->ncds++] = (struct rec_cd){ sp, ipdom, e->pc, recno };
}

/* After a call or return: the shadow stack keeps the caller's instance. */
static void rec_call_ret(struct rec *r, const struct trace_insn *e, uint64_t sp)
{
	if (e->in.kind == INSN_CALL || e->in.kind == INSN_CALL_IND) {
		XGROW(r->calls, r->calls_cap, r->ncalls + 1);
		r->calls[r->ncalls++] = (struct rec_call){ sp, r->cur };
		return;
	}
	bool popped = false;
	while (r->ncalls && r->calls[r->ncalls - 1].sp < sp) {
		r->cur = r->calls[--r->ncalls].inst;
		popped = true;
	}
	if (!popped && e->user)
		r->cur = -1;
	while (r->ncds && r->cds[r->ncds - 1].sp < sp)
		r->ncds--;
}

void rec_post(struct qz *q, struct rec *r, const struct trace_insn *e, int64_t recno,
	      uint64_t sp, uint64_t pc)
{
	switch (e->in.kind) {
	case INSN_JCC:
	case INSN_JMP_IND:
		if (e->user && e->stmt >= 0 && recno >= 0)
			rec_branch(q, r, e, sp, pc, recno);
		break;
	case INSN_CALL:
	case INSN_CALL_IND:
	case INSN_RET:
		rec_call_ret(r, e, sp);
		break;
	default:
		break;
	}
}

/* Are instance counts exact from here? Yes if stepping covered the run
 * from its start, or the program stands where `break main` stops, before
 * any statement of its own ran (constructors aside). */
static bool rec_exact_here(struct qz *q, struct rec *r)
{
	if (r->insns_seen && r->exact)
		return true;
	struct loc_addr *locs;
	size_t n;
	if (loc_resolve(q, "main", &locs, &n) < 0) {
		sbuf_reset(&q->err);
		return false;
	}
	bool at = n && locs[0].addr == proc_pc(q->proc);
	free(locs);
	return at;
}

void rec_start(struct qz *q, struct rec *r)
{
	trace_reset(&r->tr);
	r->exact = rec_exact_here(q, r);
	r->on = true;
	rec_emu_pick(q, r);   /* for info record; each region picks again */
	q->driver = &slice_mod;
}

void rec_stop(struct qz *q, struct rec *r)
{
	r->on = false;
	if (!r->counting)
		q->driver = NULL;
}

static bool rec_peek(void *ctx, uint64_t addr, void *buf, size_t len)
{
	return proc_read(ctx, addr, buf, len) == 0;
}

bool rec_sys_writes(struct qz *q, const struct user_regs_struct *a, long ret,
		    struct sys_writes *out)
{
	return sys_writes(a, ret, rec_peek, q->proc, out);
}

static void rec_unknown_sys(struct rec *r, long nr)
{
	for (size_t i = 0; i < r->nunknown; i++)
		if (r->unknown[i].nr == nr) {
			r->unknown[i].count++;
			return;
		}
	XGROW(r->unknown, r->unknown_cap, r->nunknown + 1);
	r->unknown[r->nunknown++] = (struct rec_sysnr){ nr, 1 };
}

/* A read (pread) of fd returned ret bytes: which file it read and at what
 * offset, from /proc (reduce/ maps the bytes back into its input). */
static void rec_read_origin(struct qz *q, struct trace_sys *s, const struct user_regs_struct *pre,
			    long ret)
{
	char path[64], line[128];
	struct stat st;
	pid_t pid = proc_pid(q->proc);
	snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)pid, (int)pre->rdi);
	if (stat(path, &st) < 0)
		return;
	s->file = rec_file_id(st.st_dev, st.st_ino);
	if (pre->rax == 17) {
		s->off = (int64_t)pre->r10;
		return;
	}
	snprintf(path, sizeof path, "/proc/%d/fdinfo/%d", (int)pid, (int)pre->rdi);
	FILE *f = fopen(path, "re");
	long long pos;
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "pos: %lld", &pos) == 1 && pos >= ret)
			s->off = pos - ret;
	if (f)
		fclose(f);
}

uint64_t rec_file_id(uint64_t dev, uint64_t ino)
{
	return (dev * 0x9e3779b97f4a7c15ull) ^ ino ^ 1;
}

/* What a system call may have put where code was decoded: its writes
 * (below) and the mappings it made, moved or removed. */
static void rec_code_sys(struct rec *r, const struct user_regs_struct *a, long ret)
{
	if (ret < 0 && ret > -4096)
		return;
	switch (a->rax) {
	case SYS_mmap:
		rec_code_written(r, (uint64_t)ret, a->rsi);
		break;
	case SYS_munmap:
		rec_code_written(r, a->rdi, a->rsi);
		break;
	case SYS_mremap:
		rec_code_written(r, a->rdi, a->rsi);
		rec_code_written(r, (uint64_t)ret, a->rdx);
		break;
	case SYS_execve:
	case SYS_execveat:
		rec_code_written(r, 0, UINT64_MAX);
		break;
	default:
		break;
	}
}

static void rec_syscall(struct qz *q, struct rec *r, const struct user_regs_struct *pre)
{
	long ret = (long)proc_regs(q->proc)->rax;
	rec_code_sys(r, pre, ret);
	struct sys_writes w;
	if (!rec_sys_writes(q, pre, ret, &w)) {
		rec_unknown_sys(r, (long)pre->rax);
		return;
	}
	size_t had = r->tr.nsys;
	for (int k = 0; k < w.n; k++) {
		trace_add_sys(&r->tr, w.v[k].addr, w.v[k].len);
		rec_code_written(r, w.v[k].addr, w.v[k].len);
	}
	if ((pre->rax == 0 || pre->rax == 17) && r->tr.nsys > had)
		rec_read_origin(q, &r->tr.sys[had], pre, ret);
}

/* Walking the trace back from its end: the latest record that wrote into
 * [a, a+8) (*writer, an instance), and the call that stored the original
 * return address there (*orig, its value). false if none is recorded. */
static bool rec_slot_history(const struct rec *r, uint64_t a, int32_t *writer, uint64_t *orig)
{
	const struct trace *t = &r->tr;
	struct trace_rec *recs = xmalloc(TRACE_BLK * sizeof *recs);
	*writer = -1;
	*orig = 0;
	for (size_t b = t->nblks; b-- > 0 && !*orig;) {
		size_t n = trace_block(t, b, recs);
		for (size_t k = n; k-- > 0 && !*orig;) {
			const struct trace_insn *e = &t->insns[recs[k].id];
			for (int i = 0; i < e->in.nmem && !recs[k].skipped; i++) {
				const struct insn_mem *m = &e->in.mem[i];
				uint64_t lo = recs[k].addr[i];
				if (!(m->rw & INSN_MEM_W) || lo >= a + 8 || lo + m->size <= a)
					continue;
				if (e->in.kind == INSN_CALL || e->in.kind == INSN_CALL_IND)
					*orig = e->pc + e->in.len;
				else if (*writer < 0)
					*writer = trace_inst_at(t, (uint64_t)b * TRACE_BLK + k);
			}
		}
	}
	free(recs);
	return *orig != 0;
}

/* The pc came from memory that was overwritten (a smashed return
 * address): say which instruction loaded it, what it was and became, and
 * which statement overwrote it. */
static void rec_report_smash(struct qz *q, struct rec *r, uint64_t bad)
{
	if (r->last_id < 0)
		return;
	const struct trace_insn *e = &r->tr.insns[r->last_id];
	if (e->in.kind != INSN_RET && e->in.kind != INSN_JMP_IND && e->in.kind != INSN_CALL_IND)
		return;
	if (e->in.kind == INSN_RET && qz_read(q, r->last_sp, &bad, 8) < 0)
		return;
	char nb[256] = "", wb[256];
	if (r->cur >= 0)
		snprintf(nb, sizeof nb, " (%s#%u)", rec_stmt_name(r, (int32_t)trace_inst_get(&r->tr, r->cur).stmt,
						  wb, sizeof wb), trace_inst_get(&r->tr, r->cur).n);
	qz_printf(q, "The pc was loaded from memory by `%s` at 0x%llx%s: new pc 0x%llx.\n",
		  e->in.text, (unsigned long long)e->pc, nb, (unsigned long long)bad);
	int32_t w;
	uint64_t orig;
	if (e->in.kind != INSN_RET || !r->on || !rec_slot_history(r, r->last_sp, &w, &orig))
		return;
	qz_printf(q, "The return address at 0x%llx was 0x%llx", (unsigned long long)r->last_sp,
		  (unsigned long long)orig);
	if (w >= 0)
		qz_printf(q, "; %s#%u overwrote it", rec_stmt_name(r, (int32_t)trace_inst_get(&r->tr, w).stmt,
								 wb, sizeof wb), trace_inst_get(&r->tr, w).n);
	qz_puts(q, ".\n");
}

/* A SIGSEGV right at a ret or indirect jump (a non-canonical target) or at
 * a pc no module maps: report where the pc came from. */
static void rec_check_smash(struct qz *q, struct rec *r, int64_t id)
{
	if (!q->proc || q->stop != QZ_STOP_SIGNAL || q->stop_sig != SIGSEGV)
		return;
	uint64_t pc = proc_pc(q->proc);
	if (id >= 0 && r->tr.insns[id].pc == pc) {   /* it faulted itself */
		r->last_id = id;
		r->last_sp = proc_regs(q->proc)->rsp;
	} else if (qz_module_at(q, pc))
		return;
	rec_report_smash(q, r, pc);
}

/* Is the system call about to run (regs) one that starts a thread? The
 * recorder follows one thread and holds the others stopped, so the new
 * thread would never run and a pthread_join would wait for ever. */
static bool rec_starts_thread(struct qz *q, const struct user_regs_struct *regs)
{
	uint64_t flags = regs->rdi;
	if (regs->rax == SYS_clone3 && qz_read(q, regs->rdi, &flags, sizeof flags) < 0)
		return false;
	return (regs->rax == SYS_clone || regs->rax == SYS_clone3) && (flags & CLONE_THREAD);
}

/* Recording and counting stop for good; the program runs on natively. */
static void rec_give_up(struct qz *q, struct rec *r)
{
	rec_stop(q, r);
	r->counting = false;
	q->driver = NULL;
}

/* A general register of the stopped process (the watcher's reg). */
static uint64_t rec_proc_reg(void *ctx, int r)
{
	struct qz *q = ctx;
	return insn_reg_value(proc_regs(q->proc), r);
}

int rec_step_one(struct qz *q, struct rec *r)
{
	struct user_regs_struct *regs = proc_regs(q->proc), pre;
	uint64_t pc = regs->rip;
	int64_t id = rec_insn_id(q, r, pc);
	if (id < 0 && !qz_module_at(q, pc)) {   /* jumped into nowhere */
		enum run_ev ev = run_step_raw(q);
		if (ev == RUN_STOPPED)
			rec_check_smash(q, r, -1);
		return ev;
	}
	if (id < 0) {
		qz_warn(q, "cannot decode the instruction at 0x%llx: recording stops",
			(unsigned long long)pc);
		rec_give_up(q, r);
		return run_step_raw(q);
	}
	const struct trace_insn *e = &r->tr.insns[id];
	if (e->in.kind == INSN_SYSCALL && rec_starts_thread(q, regs)) {
		if (r->on || !r->watch.check)
			qz_warn(q, "the program starts a thread (%s) at 0x%llx: qzdb records one thread, "
				"so %s stops here and the program runs on",
				regs->rax == SYS_clone ? "clone" : "clone3", (unsigned long long)pc,
				r->on ? "recording" : "counting for sbreaks");
		if (r->watch.check)   /* the detectors' memory events end too */
			rec_watch_drop(q, r);
		rec_give_up(q, r);
		return run_step_raw(q);
	}
	if (r->watch.check && (e->in.nmem || rec_watch_every(r))) {
		uint64_t a[INSN_MAX_MEM];
		for (int i = 0; i < e->in.nmem; i++)
			a[i] = insn_mem_addr(&e->in, &e->in.mem[i], regs, pc);
		struct rec_watch_src src = { rec_proc_reg, q, false };
		if (rec_watch_ask(r, e, a, e->in.rep && regs->rcx == 0, regs->rsp, &src)) {
			int ev = rec_watch_fire(q, r, e);
			if (ev != RUN_STEPPED)
				return ev;
			regs = proc_regs(q->proc);
		}
	}
	if (rec_pre(q, r, e, regs->rsp))
		return RUN_STOPPED;
	int64_t recno = -1;
	pre = *regs;
	if (r->on && r->tr.n >= TRACE_MAX) {
		qz_warn(q, "the recording is full (%llu instructions): recording stops",
			(unsigned long long)r->tr.n);
		rec_stop(q, r);
	}
	uint64_t addr[INSN_MAX_MEM];
	bool skipped = e->in.rep && regs->rcx == 0;
	for (int i = 0; i < e->in.nmem; i++)
		addr[i] = insn_mem_addr(&e->in, &e->in.mem[i], regs, pc);
	if (r->on) {
		recno = (int64_t)r->tr.n;
		trace_add(&r->tr, (uint32_t)id, addr, skipped);
		rev_note_insn_proc(q, &r->undo, (uint64_t)recno, e, addr, skipped, regs);
		if (e->in.kind == INSN_SYSCALL)
			rev_note_sys(q, &r->undo, (uint64_t)recno, regs);
	}
	r->insns_seen++;
	rec_tick(r, 1);
	enum run_ev ev = run_step_raw(q);
	if (ev != RUN_STEPPED) {
		if (ev == RUN_STOPPED)
			rec_check_smash(q, r, id);
		return ev;
	}
	r->last_id = id;
	r->last_sp = pre.rsp;
	for (int i = 0; i < e->in.nmem && !skipped; i++)
		if (e->in.mem[i].rw & INSN_MEM_W)
			rec_code_written(r, addr[i], e->in.mem[i].size);
	if (e->in.kind == INSN_SYSCALL && r->on)
		rec_syscall(q, r, &pre);
	if (e->in.kind == INSN_SYSCALL && r->watch.sys)
		rec_watch_sys(q, r, &pre, (long)proc_regs(q->proc)->rax);
	rec_post(q, r, e, recno, proc_regs(q->proc)->rsp, proc_regs(q->proc)->rip);
	return RUN_STEPPED;
}

const struct rec_engine rec_step_engine = { "single-step", rec_step_one, NULL };

static double rec_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void rec_progress_start(struct rec *r)
{
	struct rec_progress *p = &r->prog;
	p->active = false;
	p->start = rec_now();
	p->last_print = p->start - 0.5;   /* the first line after half a second */
	p->base = r->insns_seen;
	p->tick = 0;
}

/* Once a second, from half a second on: true when a report is due. */
static bool rec_progress_due(struct rec *r)
{
	struct rec_progress *p = &r->prog;
	double now = rec_now();
	p->secs = now - p->start;
	if (now - p->last_print < 1.0)
		return false;
	p->last_print = now;
	p->active = true;
	return true;
}

/* To the front end's status line, else to stderr in plain mode. */
static void rec_progress_show(struct rec *r, const char *line)
{
	if (progress_claimed())
		progress_set(line);
	else if (r->progress_mode > 0 || (r->progress_mode == 0 && isatty(2)))
		fputs(line, stderr);
}

void rec_tick(struct rec *r, uint32_t n)
{
	struct rec_progress *p = &r->prog;
	if ((p->tick += n) < 4096)
		return;
	p->tick = 0;
	if (!rec_progress_due(r))
		return;
	p->insns = r->insns_seen - p->base;
	p->rate = p->secs > 0 ? (double)p->insns / p->secs : 0;
	p->bytes = r->tr.len;
	char line[160];
	snprintf(line, sizeof line, "%s: %llu instructions, %.0f per second, trace %.1f MiB\n",
		 r->on ? "recording" : "counting", (unsigned long long)p->insns, p->rate,
		 (double)p->bytes / (1 << 20));
	rec_progress_show(r, line);
}

void rec_slice_tick(struct rec *r, uint64_t done, uint64_t total)
{
	struct rec_progress *p = &r->prog;
	if (!rec_progress_due(r))
		return;
	p->insns = done;
	p->rate = p->secs > 0 ? (double)done / p->secs : 0;
	char line[160];
	snprintf(line, sizeof line, "slicing: %llu of %llu instructions (%.0f%%), %.0f per second\n",
		 (unsigned long long)done, (unsigned long long)total,
		 100.0 * (double)done / (double)(total ? total : 1), p->rate);
	rec_progress_show(r, line);
}

static int rec_region_loop(struct qz *q, struct rec *r, const struct run_target *t, bool one)
{
	for (;;) {
		if (r->watch.check)
			rec_watch_keep(q, r);
		if (!r->on && !r->counting) {
			q->driver = NULL;
			return one ? run_step_raw(q) : run_until_target(q, t);
		}
		const struct rec_engine *eng = one ? &rec_step_engine : r->engine;
		if (r->watch.at && eng == &rec_step_engine) {
			r->pcalls_ok = false;   /* its calls are not seen */
			if (*r->watch.nrets)
				r->watch.native(r->watch.ctx);
		}
		int ev = eng->step_one(q, r);
		if (ev != RUN_STEPPED)
			return ev;
		if (one)
			return run_step_landed(q);
		ev = run_region_check(q, t);
		if (ev != RUN_STEPPED && ev != RUN_AGAIN)
			return ev;
	}
}

int rec_region(struct qz *q, const struct run_target *t, bool one)
{
	struct rec *r = slice_rec(q);
	if (rev_in_past(q))   /* forward in the past: the log, not the CPU */
		return rev_forward(q, t, one);
	rec_emu_pick(q, r);
	r->target = t;
	rec_progress_start(r);
	const struct rec_engine *eng = r->engine;
	int ev = rec_region_loop(q, r, t, one);
	if (eng->end)
		eng->end(q, r);
	r->target = NULL;
	r->prog.active = false;
	return ev;
}
