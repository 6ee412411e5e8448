/* detect: the module (struct qz_mod) and its detector classes: the shipped
 * specs (detect/specs/ next to the program, loaded at the first use),
 * those a user loads, and which are on. */
#include "detect.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "detect-int.h"
#include "cmd-detect.h"
#include "target/run.h"
#include "target/session.h"

struct detect_state *det_state(struct qz *q)
{
	return mod_state(q, &detect_mod);
}

bool det_any_on(const struct detect_state *st)
{
	for (size_t i = 0; st && i < st->nclasses; i++)
		if (st->classes[i].on)
			return true;
	return false;
}

const char *det_spec_dir(void)
{
	static char dir[PATH_MAX];
	return dir[0] ? dir : path_beside_exe("detect/specs", dir, sizeof dir);
}

struct det_class *det_find_class(struct detect_state *st, const char *name)
{
	for (size_t i = 0; i < st->nclasses; i++)
		if (strcmp(st->classes[i].spec->name, name) == 0)
			return &st->classes[i];
	return NULL;
}

struct det_class *det_add_class(struct detect_state *st, struct spec *s)
{
	struct det_class *c = det_find_class(st, s->name);
	if (c) {
		spec_free(c->spec);
		c->spec = s;
		return c;
	}
	XGROW(st->classes, st->classes_cap, st->nclasses + 1);
	c = &st->classes[st->nclasses++];
	*c = (struct det_class){ .spec = s };
	return c;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The .spec files of the directory, sorted (the order info detect shows). */
void det_load_shipped(struct qz *q)
{
	struct detect_state *st = det_state(q);
	if (st->shipped_loaded)
		return;
	st->shipped_loaded = true;
	DIR *d = opendir(det_spec_dir());
	if (!d) {
		qz_warn(q, "No detector specs in %s.", det_spec_dir());
		return;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	for (struct dirent *e; (e = readdir(d));) {
		size_t len = strlen(e->d_name);
		if (len > 5 && strcmp(e->d_name + len - 5, ".spec") == 0) {
			XGROW(names, cap, n + 1);
			names[n++] = xasprintf("%s/%s", det_spec_dir(), e->d_name);
		}
	}
	closedir(d);
	qsort(names, n, sizeof *names, cmp_str);
	for (size_t i = 0; i < n; i++) {
		char err[512];
		struct spec *s;
		if (spec_load(names[i], &s, err, sizeof err) == 0)
			det_add_class(st, s);
		else
			qz_warn(q, "%s", err);
		free(names[i]);
	}
	free(names);
}

static void *det_init(struct qz *q)
{
	(void)q;
	return xcalloc(1, sizeof(struct detect_state));
}

static void det_fini(struct qz *q)
{
	struct detect_state *st = det_state(q);
	if (!st)
		return;
	det_heap_reset(st);
	free(st->all);
	free(st->pend);
	for (size_t i = 0; i < st->nclasses; i++)
		spec_free(st->classes[i].spec);
	free(st->classes);
	free(st->last_report);
	free(st->last_chain);
	det_links_free(st);
	free(st);
}

static void det_on_start(struct qz *q)
{
	det_heap_start(q);
}

static void det_on_gone(struct qz *q)
{
	det_heap_gone(q);
}

const struct qz_mod detect_mod = {
	.name = "detect",
	.cmds = detect_cmds,
	.init = det_init,
	.fini = det_fini,
	.save = det_save,
	.restore = det_restore,
	.free_saved = det_free_saved,
	.on_start = det_on_start,
	.on_gone = det_on_gone,
	.on_trap = det_heap_trap,
	.on_signal = det_on_signal,
	.explain_stop = det_explain_stop,
};
