/* cmd-solib: the shared-library commands: info sharedlibrary, set
 * breakpoint pending, set/show debug-file-directory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "target/session.h"
#include "target/solib.h"

static void cmd_solib_row(struct sbuf *out, const struct qz_module *m, bool *missing)
{
	uint64_t lo, hi;
	if (img_section_range(m->img, ".text", &lo, &hi)) {
		lo += m->bias;
		hi += m->bias;
	} else {
		lo = m->lo;
		hi = m->hi;
	}
	bool dbg = qz_mod_has_debug(m);
	*missing |= !dbg;
	sbuf_printf(out, "0x%016llx  0x%016llx  %-12s%s\n", (unsigned long long)lo,
		    (unsigned long long)hi, dbg ? "Yes" : "Yes (*)",
		    m->name ? m->name : m->path);
}

int cmd_info_sharedlibrary(struct qz *q, const char *a)
{
	(void)a;
	if (!qz_running(q) || !q->nlibs) {
		qz_puts(q, "No shared libraries loaded at this time.\n");
		return 0;
	}
	struct sbuf out = {0};
	bool missing = false;
	sbuf_add(&out, "From                To                  Syms Read   Shared Object Library\n");
	for (size_t i = 0; i < q->nlibs; i++)
		if (q->libs[i].img)
			cmd_solib_row(&out, &q->libs[i], &missing);
	if (missing)
		sbuf_add(&out, "(*): Shared library is missing debugging information.\n");
	qz_puts(q, out.s);
	sbuf_free(&out);
	return 0;
}

/* For the tests of lazy loading: which debug files were read so far
 * ("lines read", "DWARF read") and which are only known. */
int cmd_maint_debug_files(struct qz *q, const char *a)
{
	(void)a;
	for (size_t i = 0; i < q->nlibs; i++) {
		const struct qz_module *m = &q->libs[i];
		if (!m->debug_path)
			continue;
		qz_printf(q, "%s: %s: lines %s, DWARF %s\n", m->name ? m->name : m->path,
			  m->debug_path, m->lines_tried ? "read" : "not read",
			  m->di_tried ? "read" : "not read");
	}
	return 0;
}

int cmd_set_breakpoint(struct qz *q, const char *a)
{
	static const char *const vals[] = {"off", "on", "auto"};
	if (!str_starts(a, "pending"))
		return qz_error(q, "Undefined set breakpoint command: \"%s\".", a);
	a = str_skip_space(a + 7);
	if (!*a)
		a = "on";
	for (int i = 0; i < 3; i++)
		if (!strcmp(a, vals[i])) {
			q->bp_pending = i == 2 ? -1 : i;
			return 0;
		}
	return qz_error(q, "\"on\", \"off\" or \"auto\" expected.");
}

/* gdb's setting, for the same effect: separate debug files are looked up
 * under DIR/.build-id/ (libc6-dbg's are in /usr/lib/debug). Libraries
 * loaded from now on see it. */
int cmd_set_debug_file_directory(struct qz *q, const char *a)
{
	free(q->debug_dir);
	q->debug_dir = xstrdup(a);
	return 0;
}

int cmd_show_debug_file_directory(struct qz *q, const char *a)
{
	(void)a;
	qz_printf(q, "The directory where separate debug symbols are searched for is \"%s\".\n",
		  q->debug_dir);
	return 0;
}
