/* objects: the loaded ELF objects of a session, the program and its
 * shared libraries, where each is mapped and which one holds an address. */
#define _GNU_SOURCE
#include "objects.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dinfo/dwcu.h"
#include "dinfo/inlidx.h"
#include "frame.h"
#include "session.h"
#include "solib.h"

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
	di_inlidx_free(m->inlidx);
	dwcu_file_put(m->dw);
	free(m->path);
	free(m->name);
	free(m->debug_path);
	memset(m, 0, sizeof *m);
}

void qz_libs_free(struct qz *q)
{
	for (size_t i = 0; i < q->nlibs; i++)
		qz_module_free(&q->libs[i]);
	q->nlibs = 0;
}

void qz_objects_free(struct qz *q)
{
	qz_libs_free(q);
	free(q->libs);
	q->libs = NULL;
	q->libs_cap = 0;
	qz_module_free(&q->exe);
}

void qz_exe_open(struct qz *q, const char *path, struct img *im)
{
	char err[512];
	q->exe.path = xstrdup(path);
	q->exe.img = im;
	qz_mod_read_debug(&q->exe, path);
	q->exe.unw = unw_open(path, err, sizeof err);
}

void qz_mod_read_debug(struct qz_module *m, const char *path)
{
	char err[512];
	struct dwcu_file *dw = dwcu_file_open(path, err, sizeof err);
	if (!dw)
		return;
	m->lines = lines_from(dw);
	m->di = di_from(dw, false);
	dwcu_file_put(dw);
}

/* The separate debug file, opened once for the line tables and the DIEs
 * (held until both have been read from it); NULL with err. */
static struct dwcu_file *qz_mod_dwarf(struct qz_module *m, char *err, size_t len)
{
	if (!m->dw)
		m->dw = dwcu_file_open(m->debug_path, err, len);
	return m->dw;
}

static void qz_mod_dwarf_done(struct qz_module *m)
{
	if (m->lines_tried && m->di_tried) {
		dwcu_file_put(m->dw);
		m->dw = NULL;
	}
}

/* A separate debug file is read when an address or a name inside the
 * library first needs it, never at startup (libc's: 4 MB, 2,000 units). */
struct lines *qz_mod_lines(struct qz *q, struct qz_module *m)
{
	char err[512];
	if (m->lines || !m->debug_path || m->lines_tried)
		return m->lines;
	m->lines_tried = true;
	struct dwcu_file *dw = qz_mod_dwarf(m, err, sizeof err);
	m->lines = dw ? lines_from(dw) : NULL;
	qz_mod_dwarf_done(m);
	if (!m->lines)
		qz_warn(q, "Could not read line tables of \"%s\": %s", m->debug_path, err);
	else if (lines_empty(m->lines)) {   /* a damaged file reads as empty */
		qz_warn(q, "No line tables could be read from \"%s\".", m->debug_path);
		lines_close(m->lines);
		m->lines = NULL;
	}
	return m->lines;
}

/* Its units are indexed on demand: libc's debug file has 2,000, of which
 * a stop inside fgets needs one. */
struct di_info *qz_mod_di(struct qz *q, struct qz_module *m)
{
	char err[512];
	if (m->di || !m->debug_path || m->di_tried)
		return m->di;
	m->di_tried = true;
	struct dwcu_file *dw = qz_mod_dwarf(m, err, sizeof err);
	m->di = dw ? di_from(dw, true) : NULL;
	qz_mod_dwarf_done(m);
	if (!m->di)
		qz_warn(q, "Could not read debug information of \"%s\": %s", m->debug_path, err);
	return m->di;
}

/* $XDG_CACHE_HOME/qzdb/ID.inl (else ~/.cache/qzdb/), its directories
 * made; NULL without an absolute home for it. */
static char *qz_inlidx_path(const char *id)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char *base = xdg && xdg[0] == '/' ? xstrdup(xdg) :
		     home && home[0] == '/' ? xasprintf("%s/.cache", home) : NULL;
	if (!base)
		return NULL;
	char *dir = xasprintf("%s/qzdb", base);
	mkdir(base, 0700);
	mkdir(dir, 0700);
	char *path = xasprintf("%s/%s.inl", dir, id);
	free(base);
	free(dir);
	return path;
}

/* The module's name index: from the cache, else built (reading all of its
 * DWARF) and saved there; NULL if neither works. */
static struct di_inlidx *qz_mod_inlidx(struct qz *q, struct qz_module *m, const char *id)
{
	if (m->inlidx_tried)
		return m->inlidx;
	m->inlidx_tried = true;
	char *path = qz_inlidx_path(id);
	m->inlidx = path ? di_inlidx_load(path, id) : NULL;
	struct di_info *di = m->inlidx || !path ? NULL : qz_mod_di(q, m);
	if (di && di_inlidx_save(di, path, id) == 0)
		m->inlidx = di_inlidx_load(path, id);
	free(path);
	return m->inlidx;
}

size_t qz_mod_inlined(struct qz *q, struct qz_module *m, const char *name,
		      const struct di_inline **out, size_t max)
{
	const char *id = m->img ? img_build_id(m->img) : NULL;
	size_t n = 0;
	if (!(m->di && di_index_complete(m->di)) && id && qz_mod_inlidx(q, m, id)) {
		uint64_t *units = xcalloc(4096, sizeof *units);
		size_t k = di_inlidx_units(m->inlidx, name, units, 4096);
		/* none: its DWARF need not even be opened */
		struct di_info *di = k ? qz_mod_di(q, m) : NULL;
		int r = di ? di_inline_instances_in(di, name, units, k, out, max, &n) : 0;
		free(units);
		if (r == 0)
			return n;
		/* not this file's units: a stale or damaged index, rebuilt */
		di_inlidx_free(m->inlidx);
		m->inlidx = NULL;
		char *path = qz_inlidx_path(id);
		if (path)
			di_inlidx_save(di, path, id);
		free(path);
	}
	struct di_info *di = qz_mod_di(q, m);
	/* every unit is indexed (or the index could not be kept); a lazy
	 * index without a build-id stays lazy */
	return di && di_index_complete(di) ? di_inline_instances(di, name, out, max) : 0;
}

bool qz_mod_has_debug(const struct qz_module *m)
{
	return m->lines || (m->debug_path && !m->lines_tried);
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
	if (m->img)   /* ld.so, mapped before the link map lists it */
		solib_debug_info(q, m);
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
	/* .bss lies past the file's last mapping, in anonymous memory */
	uint64_t end = m->lo ? m->bias + img_end_vaddr(m->img) : 0;
	if (end > m->hi)
		m->hi = end;
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

bool qz_exe_static(const struct qz *q)
{
	return q->exe.img && !img_has_interp(q->exe.img);
}

bool qz_exe_mixed(const struct qz *q)
{
	return qz_exe_static(q) && (!q->exe.lines || lines_empty(q->exe.lines));
}

void qz_program_span(const struct qz *q, uint64_t *lo, uint64_t *hi)
{
	size_t n = 0;
	const struct lines_row *r = qz_exe_static(q) && !qz_exe_mixed(q) ?
				    lines_rows(q->exe.lines, &n) : NULL;
	*lo = q->exe.lo;
	*hi = q->exe.hi;
	if (!n || !q->exe.hi)
		return;
	uint64_t a = r[0].addr + q->exe.bias, b = r[n - 1].end + q->exe.bias;
	if (a >= *lo && b <= *hi && a < b) {
		*lo = a;
		*hi = b;
	}
}

bool qz_in_program(struct qz *q, uint64_t pc)
{
	if (qz_module_at(q, pc) != &q->exe)
		return false;
	if (!qz_exe_static(q) || qz_exe_mixed(q))
		return true;
	return lines_at(q->exe.lines, pc - q->exe.bias) != NULL;
}

const char *qz_symbolize(struct qz *q, uint64_t addr, char *buf, size_t len)
{
	struct qz_module *m = qz_module_at(q, addr);
	if (!m || !m->img)
		return NULL;
	uint64_t off, link = addr - m->bias;
	const struct img_sym *s = img_sym_at(m->img, link, &off);
	const char *name = s ? s->name : NULL;
	/* gdb's build_address_symbolic: the function of the debug info
	 * (func_5, not its clone's symbol func_5.constprop.0) unless the
	 * symbol starts later in it (func_5.cold) or exactly here. */
	const struct di_func *f = qz_mod_di(q, m) ? di_func_at(m->di, link) : NULL;
	if (f && f->name && link >= f->lo && (!s || (link - off <= f->lo && !(off == 0 && f->lo != link)))) {
		name = f->name;
		off = link - f->lo;
	}
	if (!name)
		return NULL;
	if (off)
		snprintf(buf, len, "%s+%llu", name, (unsigned long long)off);
	else
		snprintf(buf, len, "%s", name);
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
	qz_exe_open(q, path, im);
	q->list_file = NULL;
	return 0;
}
