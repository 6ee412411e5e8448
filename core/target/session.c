/* session: the debugger state for one program, its output sink, modules and
 * memory access with breakpoints hidden. */
#define _GNU_SOURCE
#include "session.h"
#include "dinfo/source.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "cmd/qzs.h"
#include "solib.h"
#include "watch.h"
#include "resume.h"
#include "watch.h"

/* The session a fatal error inside qzdb cleans up after (qz_signals). */
static struct qz *qz_live;

struct qz *qz_new(struct qz_sink sink)
{
	struct qz *q = xcalloc(1, sizeof *q);
	q->sink = sink;
	q->pin_cpu = true;
	q->print_elements = 200;
	q->listsize = 10;
	q->next_display = 1;
	q->bp_pending = -1;
	q->debug_dir = xstrdup("/usr/lib/debug");
	sig_table_init(&q->sigs);
	return q;
}

static void qz_module_free(struct qz_module *m)
{
	if (m->img)
		img_close(m->img);
	if (m->lines)
		lines_close(m->lines);
	if (m->di)
		di_close(m->di);
	if (m->unw)
		unw_close(m->unw);
	free(m->path);
	free(m->name);
	memset(m, 0, sizeof *m);
}

static void qz_libs_free(struct qz *q)
{
	for (size_t i = 0; i < q->nlibs; i++)
		qz_module_free(&q->libs[i]);
	q->nlibs = 0;
}

int qz_detach(struct qz *q)
{
	int pid = proc_pid(q->proc);
	bp_remove_all(&q->bps, q->proc);
	watch_disarm(q);   /* a debug register left set would trap it */
	int sig = q->stop_sig;
	q->stop_sig = 0;
	if (sig)   /* hand a pending signal back so the program sees it */
		kill(pid, sig);
	proc_detach(q->proc);
	q->proc = NULL;
	qz_process_gone(q);
	qz_printf(q, "[Inferior 1 (process %d) detached]\n", pid);
	return 0;
}

void qz_user_stop(struct qz *q)
{
	if (!q->proc || !proc_alive(q->proc))
		return;
	proc_stop_all(q->proc);
	bp_take_out(&q->bps, q->proc);
	proc_settle(q->proc);
}

/* SIGTERM, SIGHUP (the terminal or SSH connection is gone), SIGPIPE: a
 * wait for the program ends at a stop (proc_quit_signal), the command
 * ends, cmd_run answers CMD_QUIT and the front end leaves as at `quit`. */
static void qz_on_quit(int sig)
{
	proc_quit_signal(sig);
}

/* A crash inside qzdb: the int3s out and the registers written back with
 * nothing but system calls, then die as we would have; the kernel detaches
 * the program (and kills it if qzdb started it: PTRACE_O_EXITKILL). */
static void qz_on_fatal(int sig)
{
	struct qz *q = qz_live;
	if (q && q->proc && proc_alive(q->proc)) {
		bp_restore_raw(&q->bps, q->proc);
		proc_flush(q->proc);
	}
	raise(sig);   /* SA_RESETHAND: the default action now */
}

void qz_signals(struct qz *q)
{
	static const int quit[] = {SIGTERM, SIGHUP, SIGPIPE};
	static const int fatal[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
	struct sigaction sa = {.sa_handler = qz_on_quit};   /* no SA_RESTART: */
	sigemptyset(&sa.sa_mask);                          /* waits end */
	for (size_t i = 0; i < sizeof quit / sizeof quit[0]; i++)
		sigaction(quit[i], &sa, NULL);
	sa.sa_handler = qz_on_fatal;
	sa.sa_flags = SA_RESETHAND | SA_NODEFER;
	for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
		sigaction(fatal[i], &sa, NULL);
	qz_live = q;
}

void qz_free(struct qz *q)
{
	if (!q)
		return;
	if (q->proc && q->attached)   /* not ours to kill: gdb detaches too */
		qz_detach(q);
	else if (q->proc)
		proc_kill(q->proc);
	if (qz_live == q)
		qz_live = NULL;
	for (int i = q->nhooks - 1; i >= 0; i--)
		if (q->hooks[i]->fini)
			q->hooks[i]->fini(q);
	qzs_free_log(q);
	frame_invalidate(q);
	free(q->frames);
	qz_libs_free(q);
	free(q->libs);
	qz_module_free(&q->exe);
	bp_table_free(&q->bps);
	free(q->thr.vfork_sites);
	for (size_t i = 0; i < q->nhistory; i++)
		val_free(&q->history[i]);
	free(q->history);
	for (size_t i = 0; i < q->ndisplays; i++)
		free(q->displays[i].expr);
	free(q->displays);
	for (size_t i = 0; i < q->nargs; i++)
		free(q->args[i]);
	free(q->args);
	free(q->prog);
	free(q->stdin_path);
	free(q->stdout_path);
	free(q->debug_dir);
	free(q->tty_path);
	sandbox_free(&q->sandbox);
	sbuf_free(&q->err);
	free(q);
}

int qz_load(struct qz *q, const char *prog, char **args, size_t nargs)
{
	char err[512];
	char real[PATH_MAX];
	if (!realpath(prog, real))
		return qz_error(q, "%s: %s.", prog, strerror(errno));
	struct img *im = img_open(real, err, sizeof err);
	if (!im)
		return qz_error(q, "\"%s\": %s.", real, err);
	q->prog = xstrdup(real);
	src_set_program(real);
	q->exe.path = xstrdup(real);
	q->exe.img = im;
	q->exe.lines = lines_open(real, err, sizeof err);
	q->exe.di = di_open(real, err, sizeof err);
	q->exe.unw = unw_open(real, err, sizeof err);
	q->exe_loaded = true;
	for (size_t i = 0; i < nargs; i++) {
		XGROW(q->args, q->nargs, i + 1);
		q->args[i] = xstrdup(args[i]);
	}
	q->nargs = nargs;
	if (!q->exe.lines || lines_empty(q->exe.lines))
		qz_printf(q, "(No debugging symbols found in %s)\n", prog);
	return 0;
}

void qz_emit(struct qz *q, enum qz_out_kind kind, const char *text)
{
	qzs_capture(q, kind, text);
	if (!q->quiet)
		q->sink.write(q->sink.arg, kind, text);
}

void qz_printf(struct qz *q, const char *fmt, ...)
{
	struct sbuf b = {0};
	va_list ap;
	va_start(ap, fmt);
	sbuf_vprintf(&b, fmt, ap);
	va_end(ap);
	if (b.s)
		qz_emit(q, QZ_OUT_TEXT, b.s);
	sbuf_free(&b);
}

void qz_puts(struct qz *q, const char *s)
{
	qz_emit(q, QZ_OUT_TEXT, s);
}

int qz_error(struct qz *q, const char *fmt, ...)
{
	va_list ap;
	sbuf_reset(&q->err);
	va_start(ap, fmt);
	sbuf_vprintf(&q->err, fmt, ap);
	va_end(ap);
	return -1;
}

void qz_warn(struct qz *q, const char *fmt, ...)
{
	struct sbuf b = {0};
	va_list ap;
	sbuf_add(&b, "warning: ");
	va_start(ap, fmt);
	sbuf_vprintf(&b, fmt, ap);
	va_end(ap);
	sbuf_addc(&b, '\n');
	qz_emit(q, QZ_OUT_WARN, b.s);
	sbuf_free(&b);
}

bool qz_running(const struct qz *q)
{
	return q->proc && proc_alive(q->proc) && !q->held;
}

int qz_read(struct qz *q, uint64_t addr, void *buf, size_t len)
{
	if (!qz_running(q)) {   /* no process: the file's contents, as gdb */
		if (!q->exe.img)
			return -1;
		/* After a run the sections stay where the run had them (gdb). */
		uint64_t bias = q->exe.bias;
		if (addr < bias)
			return -1;
		return img_read(q->exe.img, addr - bias, buf, len) ? 0 : -1;
	}
	if (proc_read(q->proc, addr, buf, len) < 0)
		return -1;
	bp_mask(&q->bps, addr, buf, len);
	return 0;
}

int qz_write(struct qz *q, uint64_t addr, const void *buf, size_t len)
{
	if (!qz_running(q) || proc_write(q->proc, addr, buf, len) < 0)
		return -1;
	const uint8_t *b = buf;
	for (size_t i = 0; i < q->bps.nsites; i++) {
		struct bp_site *s = &q->bps.sites[i];
		uint64_t end = s->addr + (s->len ? s->len : 1);
		if (end > addr && s->addr < addr + len)
			s->resume = BP_RESUME_UNKNOWN;   /* the instruction changed */
		if (!s->inserted || s->addr < addr || s->addr >= addr + len)
			continue;
		s->orig = b[s->addr - addr];
		uint8_t int3 = 0xcc;
		proc_write(q->proc, s->addr, &int3, 1);
	}
	frame_invalidate(q);
	return 0;
}

int qz_read_cb(void *q, uint64_t addr, void *buf, size_t len)
{
	return qz_read(q, addr, buf, len);
}

/* One line of /proc/PID/maps: start, offset and path of a file mapping. */
static bool qz_parse_map(const char *line, uint64_t *lo, uint64_t *hi,
			 uint64_t *off, const char **path)
{
	unsigned long long a, b, o;
	int pos = 0;
	if (sscanf(line, "%llx-%llx %*s %llx %*s %*s%n", &a, &b, &o, &pos) < 3 || !pos)
		return false;
	const char *p = str_skip_space(line + pos);
	if (*p != '/')
		return false;
	*lo = a;
	*hi = b;
	*off = o;
	*path = p;
	return true;
}

static struct qz_module *qz_module_for_path(struct qz *q, const char *path)
{
	if (q->exe.path && strcmp(q->exe.path, path) == 0)
		return &q->exe;
	for (size_t i = 0; i < q->nlibs; i++)
		if (strcmp(q->libs[i].path, path) == 0)
			return &q->libs[i];
	XGROW(q->libs, q->libs_cap, q->nlibs + 1);
	struct qz_module *m = &q->libs[q->nlibs++];
	memset(m, 0, sizeof *m);
	m->path = xstrdup(path);
	char err[256];
	m->img = img_open(path, err, sizeof err);
	return m;
}

static void qz_map_add(struct qz *q, uint64_t lo, uint64_t hi, uint64_t off,
		       const char *path)
{
	struct qz_module *m = qz_module_for_path(q, path);
	if (!m->img)
		return;
	if (off == 0 && (m->lo == 0 || lo < m->lo)) {
		m->lo = lo;
		m->bias = lo - img_base_vaddr(m->img);
	}
	if (hi > m->hi)
		m->hi = hi;
}

/* Give a module the name the dynamic linker uses for it. */
static void qz_name_module(struct qz *q, int n, uint64_t bias, const char *name, void *arg)
{
	(void)n;
	(void)arg;
	for (size_t i = 0; name[0] && i < q->nlibs; i++) {
		struct qz_module *m = &q->libs[i];
		if (m->bias == bias && !m->name)
			m->name = xstrdup(name);
	}
}

/* The dynamic linker's list of loaded objects (r_debug.r_map, found
 * through DT_DEBUG in the program's dynamic section): the names it uses,
 * which gdb shows, and which /proc/PID/maps canonicalises. */
static void qz_read_link_map(struct qz *q)
{
	const struct img_sym *dyn = img_sym_named(q->exe.img, "_DYNAMIC");
	uint64_t d[2], rdebug = 0;
	if (!dyn)
		return;
	for (uint64_t a = dyn->addr + q->exe.bias; !rdebug; a += 16) {
		if (qz_read(q, a, d, sizeof d) < 0 || d[0] == 0)
			return;
		if (d[0] == 21)   /* DT_DEBUG */
			rdebug = d[1];
	}
	solib_walk(q, rdebug, qz_name_module, NULL);
}

void qz_refresh_modules(struct qz *q)
{
	char path[64], line[4096];
	if (!qz_running(q))
		return;
	/* The selected thread's view: a leader gone by pthread_exit has none. */
	snprintf(path, sizeof path, "/proc/%d/task/%d/maps", proc_pid(q->proc),
		 proc_cur_tid(q->proc));
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	q->exe.lo = q->exe.hi = 0;
	for (size_t i = 0; i < q->nlibs; i++)
		q->libs[i].lo = q->libs[i].hi = 0;
	while (fgets(line, sizeof line, f)) {
		uint64_t lo, hi, off;
		const char *p;
		line[strcspn(line, "\n")] = 0;
		if (qz_parse_map(line, &lo, &hi, &off, &p))
			qz_map_add(q, lo, hi, off, p);
	}
	fclose(f);
	q->libs_stale = false;
	qz_read_link_map(q);
}

static struct qz_module *qz_module_find(struct qz *q, uint64_t addr)
{
	if (q->exe.img && addr >= q->exe.lo && addr < q->exe.hi)
		return &q->exe;
	for (size_t i = 0; i < q->nlibs; i++)
		if (q->libs[i].img && addr >= q->libs[i].lo && addr < q->libs[i].hi)
			return &q->libs[i];
	return NULL;
}

/* The library list is re-read at most once per stop, and only when an
 * address falls outside every known module: reading /proc/PID/maps on every
 * breakpoint hit would cost more than the hit itself. */
struct qz_module *qz_module_at(struct qz *q, uint64_t addr)
{
	struct qz_module *m = qz_module_find(q, addr);
	if (!m && q->libs_stale && !q->libs_tracked && qz_running(q)) {
		qz_refresh_modules(q);
		m = qz_module_find(q, addr);
	}
	if (!m && !qz_running(q) && q->exe.img)
		return &q->exe;   /* before run: unrelocated addresses */
	return m;
}

const char *qz_symbolize(struct qz *q, uint64_t addr, char *buf, size_t len)
{
	struct qz_module *m = qz_module_at(q, addr);
	if (!m || !m->img)
		return NULL;
	uint64_t off;
	const struct img_sym *s = img_sym_at(m->img, addr - m->bias, &off);
	if (!s)
		return NULL;
	if (off)
		snprintf(buf, len, "%s+%llu", s->name, (unsigned long long)off);
	else
		snprintf(buf, len, "%s", s->name);
	return buf;
}

const char *qz_symbolize_cb(void *q, uint64_t addr, char *buf, size_t len)
{
	return qz_symbolize(q, addr, buf, len);
}

void qz_module_drop(struct qz *q, size_t i)
{
	if (i >= q->nlibs)
		return;
	qz_module_free(&q->libs[i]);
	memmove(&q->libs[i], &q->libs[i + 1], (q->nlibs - i - 1) * sizeof *q->libs);
	q->nlibs--;
	frame_invalidate(q);
}

int qz_exec_reload(struct qz *q, const char *path)
{
	char err[512];
	struct img *im = img_open(path, err, sizeof err);
	if (!im)
		return qz_error(q, "\"%s\": %s.", path, err);
	frame_invalidate(q);
	qz_libs_free(q);
	qz_module_free(&q->exe);
	free(q->prog);
	q->prog = xstrdup(path);
	q->exe.path = xstrdup(path);
	q->exe.img = im;
	q->exe.lines = lines_open(path, err, sizeof err);
	q->exe.di = di_open(path, err, sizeof err);
	q->exe.unw = unw_open(path, err, sizeof err);
	q->list_file = NULL;
	return 0;
}

void qz_process_gone(struct qz *q)
{
	if (q->proc) {
		proc_kill(q->proc);
		q->proc = NULL;
	}
	bp_remove_all(&q->bps, NULL);
	frame_invalidate(q);
	qz_libs_free(q);
	resume_reset(q);
	q->sel_frame = 0;
	q->stop_sig = 0;
	q->attached = false;
	q->held = false;
	qz_hooks_gone(q);
}

void qz_add_hooks(struct qz *q, const struct qz_hooks *h)
{
	if (q->nhooks >= QZ_MAX_HOOKS)
		abort();   /* a fixed set of modules registers: a programming error */
	q->hooks[q->nhooks++] = h;
}

void qz_hooks_start(struct qz *q)
{
	for (int i = 0; i < q->nhooks; i++)
		if (q->hooks[i]->on_start)
			q->hooks[i]->on_start(q);
}

void qz_hooks_gone(struct qz *q)
{
	for (int i = 0; i < q->nhooks; i++)
		if (q->hooks[i]->on_gone)
			q->hooks[i]->on_gone(q);
}

int qz_hooks_break(struct qz *q, const char *spec, const char *cond, bool temp)
{
	for (int i = 0; i < q->nhooks; i++) {
		if (!q->hooks[i]->on_break)
			continue;
		int r = q->hooks[i]->on_break(q, spec, cond, temp);
		if (r)
			return r;
	}
	return 0;
}

int qz_history_add(struct qz *q, struct val *v)
{
	XGROW(q->history, q->history_cap, q->nhistory + 1);
	q->history[q->nhistory++] = *v;
	memset(v, 0, sizeof *v);
	return (int)q->nhistory;
}
