/* qzs-parse: reading a session file. A session file is data from anyone
 * (a teacher, a bug report), so the parser is strict: every malformed file
 * is refused with the line that is wrong. A file that merely stops before
 * its end marker (qzdb died while recording it) is kept up to its last
 * complete command. */
#define _GNU_SOURCE
#include "qzs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dinfo/image.h"
#include "qzs-int.h"

#define QZS_MAX_SIZE (64u << 20)     /* a transcript is text: refuse huge files */

struct qzs_parser {
	struct qzs_file *f;
	struct sbuf comment;          /* comments since the last command */
	struct sbuf output;           /* output lines of the last command so far */
	size_t args_cap, entries_cap; /* capacities of f->args and f->entries */
	bool have_version, ended;
	int lineno;
	char *err;
	size_t errlen;
};

static int qzs_fail(struct qzs_parser *p, const char *fmt, const char *arg)
{
	int n = snprintf(p->err, p->errlen, "%s:%d: ", p->f->path, p->lineno);
	struct sbuf b = {0};
	str_sanitize(&b, arg, strnlen(arg, 200));   /* the file's bytes, quoted */
	if (n >= 0 && (size_t)n < p->errlen)
		snprintf(p->err + n, p->errlen - (size_t)n, fmt, b.s ? b.s : "");
	sbuf_free(&b);
	return -1;
}

/* The header key (klen bytes of line) is exactly key. */
static bool qzs_key(const char *line, size_t klen, const char *key)
{
	return strlen(key) == klen && !strncmp(line, key, klen);
}

static int qzs_header(struct qzs_parser *p, const char *line)
{
	struct qzs_file *f = p->f;
	const char *v = strchr(line, ' ');
	size_t klen = v ? (size_t)(v - line) : strlen(line);
	v = v ? v + 1 : "";
	if (f->n && !qzs_key(line, klen, "end"))
		return qzs_fail(p, "header field \"%s\" after the first command", line);
	if (qzs_key(line, klen, "version")) {
		int64_t ver = 0;
		if (str_num_all(v, 1, INT32_MAX, &ver) != STR_NUM_OK)
			return qzs_fail(p, "bad format version \"%s\"", v);
		if (ver > QZS_VERSION)
			return qzs_fail(p, "format version %s is newer than this qzdb reads (1)", v);
		p->have_version = true;
	} else if (qzs_key(line, klen, "program") && *v) {
		free(f->program);
		f->program = xstrdup(v);
	} else if (qzs_key(line, klen, "arg")) {
		XGROW(f->args, p->args_cap, f->nargs + 1);
		f->args[f->nargs++] = xstrdup(v);
	} else if (qzs_key(line, klen, "build-id") && *v) {
		free(f->build_id);
		f->build_id = xstrdup(v);
	} else if (qzs_key(line, klen, "size")) {
		int64_t size;
		if (str_num_all(v, 0, INT64_MAX, &size) != STR_NUM_OK)
			return qzs_fail(p, "bad program size \"%s\"", v);
		f->size = size;
	} else if (qzs_key(line, klen, "tty")) {
		if (strcmp(v, "0") && strcmp(v, "1"))
			return qzs_fail(p, "tty is 0 or 1, not \"%s\"", v);
		f->batch = v[0] == '0';
	} else if (qzs_key(line, klen, "stdin")) {
		/* informational: the transcript's own `run <FILE` commands redirect */
	} else if (qzs_key(line, klen, "end")) {
		p->ended = true;
	} else {
		return qzs_fail(p, "unknown header field \"%s\"", line);
	}
	return 0;
}

static char *qzs_take_comment(struct qzs_parser *p)
{
	if (!p->comment.len)
		return NULL;
	return sbuf_take(&p->comment);
}

/* The output of the last command is gathered in p->output and handed
 * over when the next command (or the end) comes: appending to the entry's
 * string line by line would copy it again for every line. */
static void qzs_close_output(struct qzs_parser *p)
{
	if (p->f->n) {
		free(p->f->entries[p->f->n - 1].output);
		p->f->entries[p->f->n - 1].output = sbuf_take(&p->output);
	}
}

static void qzs_command(struct qzs_parser *p, const char *cmd)
{
	struct qzs_file *f = p->f;
	qzs_close_output(p);
	XGROW(f->entries, p->entries_cap, f->n + 1);
	struct qzs_entry *e = &f->entries[f->n++];
	e->lineno = p->lineno;
	e->cmd = xstrdup(cmd);
	e->comment = qzs_take_comment(p);
	e->output = xstrdup("");
}

static int qzs_output(struct qzs_parser *p, const char *line)
{
	if (!p->f->n)
		return qzs_fail(p, "text before the first command: \"%s\"", line);
	if (line[0] == '\\')
		line++;
	sbuf_add(&p->output, line);
	sbuf_addc(&p->output, '\n');
	return 0;
}

/* A walkthrough's directive in the body: 1, 0 (a header field), -1. */
static int qzs_directive(struct qzs_parser *p, const char *line)
{
	char msg[300];
	const char *v = strchr(line, ' ');
	size_t klen = v ? (size_t)(v - line) : strlen(line);
	v = v ? v + 1 : "";
	if (klen == 7 && !strncmp(line, "caption", 7)) {   /* shown as a comment is */
		if (qzs_caption_check(v, msg, sizeof msg) < 0)
			return qzs_fail(p, "%s", msg);
		sbuf_add(&p->comment, v);
		sbuf_addc(&p->comment, '\n');
		return 1;
	}
	if (!p->have_version || !p->f->program)
		return 0;
	int r = qzs_task_directive(p->f, p->lineno, line, klen, v, msg, sizeof msg);
	return r < 0 ? qzs_fail(p, "%s", msg) : r;
}

static int qzs_line(struct qzs_parser *p, const char *line)
{
	if (p->lineno == 1)
		return strcmp(line, "# qzdb session") ?
			qzs_fail(p, "not a qzdb session file (the first line must be \"%s\")",
				 "# qzdb session") : 0;
	if (p->ended)
		return qzs_fail(p, "text after the end marker: \"%s\"", line);
	if (str_starts(line, "#@ ")) {
		int r = qzs_directive(p, line + 3);
		return r ? (r < 0 ? -1 : 0) : qzs_header(p, line + 3);
	}
	if (qzs_is_comment(line)) {
		sbuf_add(&p->comment, line[1] == ' ' ? line + 2 : line + 1);
		sbuf_addc(&p->comment, '\n');
		return 0;
	}
	if (str_starts(line, "(qzdb) ")) {
		if (!p->have_version || !p->f->program)
			return qzs_fail(p, "command before the header's %s",
					p->have_version ? "program" : "version");
		qzs_command(p, line + 7);
		return 0;
	}
	if (!*line && !p->f->n)
		return 0;
	return qzs_output(p, line);
}

/* The file ends without "#@ end": the recording stopped mid-way, maybe in
 * the middle of the last command's output. Commands followed by another
 * are complete; the last one is dropped. */
static void qzs_cut(struct qzs_parser *p)
{
	struct qzs_file *f = p->f;
	qzs_close_output(p);
	if (f->n) {
		struct qzs_entry *e = &f->entries[--f->n];
		free(e->cmd);
		free(e->comment);
		free(e->output);
	}
	sbuf_free(&p->comment);   /* comments of the dropped command */
	f->cut = xasprintf("%s: truncated: the file ends without its \"#@ end\" line; "
			   "replaying its %zu complete command%s.", f->path, f->n,
			   f->n == 1 ? "" : "s");
}

static int qzs_lines(struct qzs_parser *p, const char *text, size_t len)
{
	const char *s = text, *end = text + len;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
		p->lineno++;
		if (memchr(s, '\0', n))
			return qzs_fail(p, "%s", "binary data (a NUL byte)");
		char *line = xstrndup(s, n);
		int r = qzs_line(p, line);
		free(line);
		if (r < 0)
			return r;
		s += n + (nl != NULL);
	}
	if (!p->ended)
		qzs_cut(p);
	return 0;
}

struct qzs_file *qzs_parse_text(const char *text, size_t len, const char *path,
				char *err, size_t errlen)
{
	struct qzs_file *f = xcalloc(1, sizeof *f);
	f->path = xstrdup(path);
	f->size = -1;
	struct qzs_parser p = { .f = f, .err = err, .errlen = errlen };
	int r = qzs_lines(&p, text, len);
	if (!f->cut)
		qzs_close_output(&p);
	if (r == 0 && !p.have_version) {
		p.lineno = 1;
		r = qzs_fail(&p, "%s", "no \"#@ version\" line in the header");
	}
	if (r == 0 && !f->program) {
		p.lineno = 1;
		r = qzs_fail(&p, "%s", "no \"#@ program\" line in the header");
	}
	if (r == 0)
		r = qzs_task_finish(f, err, errlen);
	if (r == 0) {
		f->trailer = qzs_take_comment(&p);
		return f;
	}
	sbuf_free(&p.comment);
	sbuf_free(&p.output);
	qzs_file_free(f);
	return NULL;
}

struct qzs_file *qzs_parse(const char *path, char *err, size_t errlen)
{
	FILE *fp = fopen(path, "re");   /* O_CLOEXEC */
	if (!fp) {
		snprintf(err, errlen, "%s: %s.", path, strerror(errno));
		return NULL;
	}
	struct stat st;
	if (fstat(fileno(fp), &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > QZS_MAX_SIZE) {
		snprintf(err, errlen, "%s: not a regular file of at most 64 MiB.", path);
		fclose(fp);
		return NULL;
	}
	char *text = xmalloc((size_t)st.st_size + 1);
	size_t len = fread(text, 1, (size_t)st.st_size, fp);
	fclose(fp);
	struct qzs_file *f = qzs_parse_text(text, len, path, err, errlen);
	free(text);
	return f;
}

void qzs_file_free(struct qzs_file *f)
{
	if (!f)
		return;
	qzs_tasks_free(f);
	for (size_t i = 0; i < f->n; i++) {
		free(f->entries[i].cmd);
		free(f->entries[i].comment);
		free(f->entries[i].output);
	}
	FREE_ALL(f->args, f->nargs);
	free(f->entries);
	free(f->cut);
	free(f->program);
	free(f->build_id);
	free(f->trailer);
	free(f->path);
	free(f);
}

char *qzs_program_path(const struct qzs_file *f)
{
	if (f->program[0] == '/')
		return xstrdup(f->program);
	const char *slash = strrchr(f->path, '/');
	if (!slash)
		return xstrdup(f->program);
	return xasprintf("%.*s/%s", (int)(slash - f->path), f->path, f->program);
}

char *qzs_file_dir(const struct qzs_file *f)
{
	char *copy = xstrdup(f->path), *slash = strrchr(copy, '/');
	const char *dir = !slash ? "." : slash == copy ? "/" : (*slash = 0, copy);
	char *real = realpath(dir, NULL);
	free(copy);
	return real;
}

bool qzs_path_inside(const char *dir, const char *path, char **real)
{
	if (!dir || !*path)
		return false;
	char *full = path[0] == '/' ? xstrdup(path) : xasprintf("%s/%s", dir, path);
	char *r = realpath(full, NULL);
	free(full);
	size_t n = strlen(dir);
	struct stat st;
	bool ok = r && !strncmp(r, dir, n) && (r[n] == '/' || n == 1) &&
		  stat(r, &st) == 0 && S_ISREG(st.st_mode);
	if (ok && real)
		*real = r;
	else
		free(r);
	return ok;
}

char *qzs_replay_program(const struct qzs_file *f, const char *given, char *err, size_t errlen)
{
	struct stat st;
	if (given) {
		if (stat(given, &st) < 0 || !S_ISREG(st.st_mode)) {
			snprintf(err, errlen, "--program %s: not a regular file.", given);
			return NULL;
		}
		return xstrdup(given);
	}
	char *dir = qzs_file_dir(f), *real = NULL;
	bool ok = qzs_path_inside(dir, f->program, &real);
	free(dir);
	if (ok)
		return real;
	struct sbuf b = {0};
	str_sanitize(&b, f->program, strlen(f->program));
	snprintf(err, errlen, "%s: the session names the program \"%s\", which is not a regular "
		 "file inside the session file's directory; refused. To replay it with a program "
		 "you choose, give --program PATH.", f->path, b.s);
	sbuf_free(&b);
	return NULL;
}

int qzs_check_program(const struct qzs_file *f, const char *path, char *err, size_t errlen)
{
	struct stat st;
	if (stat(path, &st) < 0) {
		snprintf(err, errlen, "%s: %s.", path, strerror(errno));
		return -1;
	}
	if (f->size >= 0 && st.st_size != f->size) {
		snprintf(err, errlen, "%s is %lld bytes, the session was recorded with %lld "
			 "(use --force to replay anyway).", path, (long long)st.st_size, f->size);
		return -1;
	}
	if (!f->build_id)
		return 0;
	char e[256];
	struct img *im = img_open(path, e, sizeof e);
	const char *id = im ? img_build_id(im) : NULL;
	int r = 0;
	if (!id || strcmp(id, f->build_id)) {
		snprintf(err, errlen, "%s has build-id %s, the session was recorded with %s "
			 "(use --force to replay anyway).", path, id ? id : "(none)", f->build_id);
		r = -1;
	}
	if (im)
		img_close(im);
	return r;
}
