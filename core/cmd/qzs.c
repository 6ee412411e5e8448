/* qzs: session files. The transcript is kept in memory for every session
 * (it is small: commands and what qzdb printed, not the program's output),
 * so `save session` can write it at any time. A file is a header of
 * "#@ key value" lines, then "(qzdb) COMMAND" lines each followed by its
 * output; other "#" lines are comments, kept as captions for the command
 * that follows. An output line that could be mistaken for one of those
 * starts with a backslash, which the parser removes. */
#define _GNU_SOURCE
#include "qzs.h"

#include <ctype.h>
#include <fcntl.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "dinfo/image.h"
#include "qzs-int.h"
#include "target/mod.h"

struct qzs_log *qzs_log(struct qz *q)
{
	if (!q->qzs) {
		q->qzs = xcalloc(1, sizeof *q->qzs);
		q->qzs->rec_fd = -1;
	}
	return q->qzs;
}

static void qzs_rec_close(struct qzs_log *l);

static void qzs_free_log(struct qz *q)
{
	struct qzs_log *l = q->qzs;
	if (!l)
		return;
	qzs_rec_close(l);
	free(l->replay_dir);
	for (size_t i = 0; i < l->n; i++) {
		free(l->items[i].cmd);
		free(l->items[i].directive);
		sbuf_free(&l->items[i].out);
	}
	qzs_task_log_free(l);
	free(l->items);
	free(l);
	q->qzs = NULL;
}

static void qzs_item_add(struct qzs_log *l, const char *line, bool hidden)
{
	XGROW(l->items, l->cap, l->n + 1);
	struct qzs_item *it = &l->items[l->n++];
	memset(it, 0, sizeof *it);
	it->cmd = xstrdup(line);
	it->hidden = hidden;
	sbuf_add(&it->out, "");
}

/* A key of the UI runs `tui switch`, which runs `switch FILE:LINE`: the
 * file records the command the key ran, not the key's own. */
void qzs_cmd_begin(struct qz *q, const char *line, bool hidden)
{
	struct qzs_log *l = qzs_log(q);
	if (l->viewing)
		return;
	if (l->depth++ == 0) {
		qzs_item_add(l, line, hidden);
		return;
	}
	if (!hidden && !l->shown_depth && l->items[l->n - 1].hidden) {
		qzs_item_add(l, line, false);
		l->shown_depth = l->depth;
	}
}

void qzs_view(struct qz *q, bool on)
{
	qzs_log(q)->viewing += on ? 1 : -1;
}

const char *qzs_last_output(struct qz *q)
{
	struct qzs_log *l = q->qzs;
	return l && l->n && l->items[l->n - 1].out.s ? l->items[l->n - 1].out.s : "";
}

static void qzs_capture(struct qz *q, enum qz_out_kind kind, const char *text)
{
	struct qzs_log *l = q->qzs;
	if (!l || l->depth == 0 || !l->n || l->viewing || kind == QZ_OUT_VOLATILE)
		return;   /* (volatile text is not the command's to check) */
	struct sbuf *o = &l->items[l->n - 1].out;
	if (kind == QZ_OUT_ERROR) {
		sbuf_printf(o, "error: %s\n", text);
		return;
	}
	sbuf_add(o, text);
}

/* An output line that the parser would read as a command, a comment or an
 * escaped line gets a backslash in front. Backtrace lines ("#0  main ...")
 * are output as they are: a comment is "#" not followed by a digit. */
bool qzs_is_comment(const char *line)
{
	return line[0] == '#' && !isdigit((unsigned char)line[1]);
}

static void qzs_write_output(struct sbuf *b, const char *out)
{
	const char *s = out;
	while (*s) {
		size_t n = strcspn(s, "\n");
		if (str_starts(s, "(qzdb) ") || qzs_is_comment(s) || *s == '\\')
			sbuf_addc(b, '\\');
		sbuf_addn(b, s, n);
		sbuf_addc(b, '\n');
		s += n;
		if (*s == '\n')
			s++;
	}
}

static void qzs_write_item(struct sbuf *b, const struct qzs_item *it)
{
	if (it->directive) {   /* caption, task, expect, done */
		sbuf_printf(b, "#@ %s\n", it->directive);
		return;
	}
	if (it->hidden)
		return;
	sbuf_printf(b, "(qzdb) %s\n", it->cmd);
	qzs_write_output(b, it->out.s ? it->out.s : "");
}

/* The program's path as the file should name it: relative to the file's
 * directory when both are under the current directory's tree. */
static char *qzs_rel_program(const char *prog, const char *file)
{
	char dir[PATH_MAX], *slash;
	if (!realpath(file, dir)) {
		char *copy = xstrdup(file);
		slash = strrchr(copy, '/');
		if (slash)
			*slash = 0;
		if (!slash || !realpath(slash == copy ? "/" : copy, dir)) {
			free(copy);
			return xstrdup(prog);
		}
		free(copy);
	} else if ((slash = strrchr(dir, '/'))) {
		*slash = 0;
	}
	/* Walk up from the file's directory until it prefixes the program. */
	struct sbuf up = {0};
	sbuf_add(&up, "");
	for (;;) {
		size_t n = strlen(dir);
		if (!strncmp(prog, dir, n) && (prog[n] == '/' || n == 1)) {
			char *r = xasprintf("%s%s", up.s, prog + n + (n > 1));
			sbuf_free(&up);
			return r;
		}
		slash = strrchr(dir, '/');
		if (!slash || slash == dir)
			break;
		*slash = 0;
		sbuf_add(&up, "../");
	}
	sbuf_free(&up);
	return xstrdup(prog);
}

static void qzs_write_header(struct qz *q, struct sbuf *f, const char *path)
{
	sbuf_printf(f, "# qzdb session\n#@ version %d\n", QZS_VERSION);
	if (q->prog) {
		char *rel = qzs_rel_program(q->prog, path);
		sbuf_printf(f, "#@ program %s\n", rel);
		free(rel);
		struct stat st;
		if (stat(q->prog, &st) == 0)
			sbuf_printf(f, "#@ size %lld\n", (long long)st.st_size);
	}
	const char *id = q->exe.img ? img_build_id(q->exe.img) : NULL;
	if (id)
		sbuf_printf(f, "#@ build-id %s\n", id);
	for (size_t i = 0; i < q->nargs; i++)
		sbuf_printf(f, "#@ arg %s\n", q->args[i]);
	if (q->stdin_path)
		sbuf_printf(f, "#@ stdin %s\n", q->stdin_path);
	if (!q->from_tty)   /* batch shapes (gdb -batch's): the replay prints the same */
		sbuf_add(f, "#@ tty 0\n");
}

static void qzs_rec_close(struct qzs_log *l)
{
	if (l->rec_fd >= 0) {
		fsync(l->rec_fd);
		close(l->rec_fd);
	}
	l->rec_fd = -1;
	free(l->rec_path);
	l->rec_path = NULL;
}

/* Write the commands completed since the last flush. On a write error
 * (a full disk, ulimit -f) the file is cut back to the last complete
 * command and its end marker, which fit where they were before. */
static void qzs_flush_rec(struct qz *q, struct qzs_log *l)
{
	if (l->rec_fd < 0 || l->rec_done >= l->n)
		return;
	struct sbuf b = {0};
	for (; l->rec_done < l->n; l->rec_done++)
		qzs_write_item(&b, &l->items[l->rec_done]);
	size_t body = b.len;
	sbuf_add(&b, "#@ end\n");
	if (file_pwrite_all(l->rec_fd, b.s, b.len, l->rec_end) == 0) {
		l->rec_end += (long long)body;
	} else {
		char *msg = xasprintf("%s: %s: recording stopped; the file keeps every command "
				      "completed before this one.", l->rec_path, strerror(errno));
		if (ftruncate(l->rec_fd, (off_t)l->rec_end) == 0)
			file_pwrite_all(l->rec_fd, "#@ end\n", 7, l->rec_end);
		qzs_rec_close(l);
		qz_emit(q, QZ_OUT_ERROR, msg);
		free(msg);
	}
	sbuf_free(&b);
}

void qzs_cmd_end(struct qz *q)
{
	struct qzs_log *l = qzs_log(q);
	if (l->viewing)
		return;
	if (l->shown_depth == l->depth)
		l->shown_depth = 0;
	if (l->depth > 0 && --l->depth == 0) {
		qzs_task_after(q);
		qzs_flush_rec(q, l);
	}
}

/* The file is made whole (header and end marker) in a temporary file and
 * renamed into place; commands are then written in place as they
 * complete, so a killed qzdb leaves a readable session. */
int qzs_record_to(struct qz *q, const char *path)
{
	struct qzs_log *l = qzs_log(q);
	struct sbuf b = {0};
	qzs_write_header(q, &b, path);
	size_t head = b.len;
	sbuf_add(&b, "#@ end\n");
	char *tmp = NULL;
	int fd = file_temp_near(path, &tmp);
	if (fd < 0 || file_pwrite_all(fd, b.s, b.len, 0) < 0 || fsync(fd) < 0 ||
	    rename(tmp, path) < 0) {
		int e = errno;
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		free(tmp);
		sbuf_free(&b);
		return qz_error(q, "%s: %s.", path, strerror(e));
	}
	free(tmp);
	sbuf_free(&b);
	qzs_rec_close(l);
	l->rec_fd = fd;
	l->rec_path = xstrdup(path);
	l->rec_end = (long long)head;
	l->rec_done = 0;
	qzs_flush_rec(q, l);
	return 0;
}

/* save session FILE: the transcript so far, without this command. */
static int qzs_save(struct qz *q, const char *path)
{
	if (!*path)
		return qz_error(q, "Argument required (file name).");
	if (qzs_check_write(q, path) < 0)
		return -1;
	struct qzs_log *l = qzs_log(q);
	struct sbuf b = {0};
	qzs_write_header(q, &b, path);
	for (size_t i = 0; i + 1 < l->n; i++)
		qzs_write_item(&b, &l->items[i]);
	sbuf_add(&b, "#@ end\n");
	int r = file_replace(path, b.s, b.len);
	sbuf_free(&b);
	if (r < 0)
		return qz_error(q, "%s: %s.", path, strerror(errno));
	qz_printf(q, "Saved %zu commands to %s.\n", l->n ? l->n - 1 : 0, path);
	return 0;
}

int cmd_save_session(struct qz *q, const char *a)
{
	char *path = str_trim(a);
	int r = qzs_save(q, path);
	free(path);
	return r;
}

/* A replayed file writes nothing (--allow-unsafe aside): the refusal
 * stops the replay like a refused command. */
int qzs_check_write(struct qz *q, const char *path)
{
	struct qzs_log *l = qzs_log(q);
	if (!q->replaying || l->allow_unsafe)
		return 0;
	l->refused = true;
	struct sbuf b = {0};
	str_sanitize(&b, path, strlen(path));
	qz_error(q, "a replayed session may not write files, not \"%s\" (replay with "
		 "--allow-unsafe to allow it).", b.s ? b.s : "");
	sbuf_free(&b);
	return -1;
}

FILE *qzs_open_write(struct qz *q, const char *path)
{
	if (!*path)
		return qz_error(q, "Argument required (file name)."), NULL;
	if (qzs_check_write(q, path) < 0)
		return NULL;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		qz_error(q, "%s: %s.", path, errno == ELOOP ? "a symbolic link (not followed)" :
			 strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	return f;
}

/* The transcript is a part of core that watches output through the
 * module contract: it keeps what each command printed. */
static const struct qz_mod qzs_mod = {
	.name = "transcript",
	.fini = qzs_free_log,
	.on_output = qzs_capture,
};

void qzs_init(struct qz *q)
{
	mod_add(q, &qzs_mod);
}
