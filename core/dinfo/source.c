/* source: a cache of source files split into lines. */
#include "source.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

struct src_file {
	char *path;
	char *text;
	char **lines;
	int nlines;
	int err;                /* errno of a failed read, 0 if read */
};

static struct src_file *src_files;
static size_t src_nfiles, src_cap;

static void src_split(struct src_file *f)
{
	size_t cap = 0;
	char *p = f->text;
	while (*p) {
		XGROW(f->lines, cap, (size_t)f->nlines + 1);
		f->lines[f->nlines++] = p;
		char *nl = strchr(p, '\n');
		if (!nl)
			break;
		*nl = 0;
		if (nl > p && nl[-1] == '\r')
			nl[-1] = 0;
		p = nl + 1;
	}
}

/* The program's directory (absolute): a relative source path that is not
 * found from the current directory is looked for there and in its parents
 * (a program built with its source directory mapped to "." and debugged
 * from elsewhere, e.g. a session file replayed from another directory). */
static char *src_prog_dir;

void src_set_program(const char *path)
{
	free(src_prog_dir);
	src_prog_dir = path[0] == '/' ? xstrdup(path) : NULL;
	char *slash = src_prog_dir ? strrchr(src_prog_dir, '/') : NULL;
	if (slash)
		*slash = 0;
}

static FILE *src_open_near_program(const char *path)
{
	if (!src_prog_dir || path[0] == '/')
		return NULL;
	char *dir = xstrdup(src_prog_dir);
	FILE *fp = NULL;
	for (int up = 0; up < 4 && !fp && *dir; up++) {
		char *p = xasprintf("%s/%s", dir, path);
		fp = fopen(p, "re");
		free(p);
		char *slash = strrchr(dir, '/');
		if (!slash)
			break;
		*slash = 0;
	}
	free(dir);
	return fp;
}

static void src_load(struct src_file *f)
{
	FILE *fp = fopen(f->path, "re");
	int err = errno;
	if (!fp)
		fp = src_open_near_program(f->path);
	if (!fp) {
		errno = err;
		f->err = errno;
		return;
	}
	struct sbuf b = {0};
	char buf[8192];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, fp)) > 0)
		sbuf_addn(&b, buf, n);
	fclose(fp);
	f->text = sbuf_take(&b);
	src_split(f);
}

static struct src_file *src_get(const char *path)
{
	for (size_t i = 0; i < src_nfiles; i++)
		if (strcmp(src_files[i].path, path) == 0)
			return &src_files[i];
	XGROW(src_files, src_cap, src_nfiles + 1);
	struct src_file *f = &src_files[src_nfiles++];
	memset(f, 0, sizeof *f);
	f->path = xstrdup(path);
	src_load(f);
	return f;
}

const char *src_line(const char *path, int n, const char **why)
{
	struct src_file *f = src_get(path);
	if (why)
		*why = f->err ? strerror(f->err) : NULL;
	if (f->err || n < 1 || n > f->nlines)
		return NULL;
	return f->lines[n - 1];
}

int src_count(const char *path)
{
	struct src_file *f = src_get(path);
	return f->err ? -1 : f->nlines;
}

void src_flush(void)
{
	for (size_t i = 0; i < src_nfiles; i++) {
		free(src_files[i].path);
		free(src_files[i].text);
		free(src_files[i].lines);
	}
	free(src_files);
	src_files = NULL;
	src_nfiles = src_cap = 0;
}
