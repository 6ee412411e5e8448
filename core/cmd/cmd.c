/* cmd: command dispatch and help, generated from the command table. */
#include "cmd.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "qzs.h"
#include "target/mod.h"
#include "target/session.h"
#include "util/util.h"

/* The assembled table: the modules' arrays one after the other, made
 * again when a module type registers for the first time. */
static const struct cmd_def **cmd_all;
static size_t cmd_nall, cmd_cap;
static int cmd_nmods;

static void cmd_assemble(void)
{
	int nmods = 0;
	while (mod_known(nmods))
		nmods++;
	if (nmods == cmd_nmods)
		return;
	cmd_nall = 0;
	for (int k = 0; k < nmods; k++)
		for (const struct cmd_def *c = mod_known(k)->cmds; c && c->name; c++) {
			XGROW(cmd_all, cmd_cap, cmd_nall + 1);
			cmd_all[cmd_nall++] = c;
		}
	cmd_nmods = nmods;
}

const struct cmd_def *cmd_at(size_t i)
{
	cmd_assemble();
	return i < cmd_nall ? cmd_all[i] : NULL;
}

/* The parent word of a subcommand entry ("info" of "info line"), or "" */
static size_t cmd_parent_len(const char *name)
{
	const char *sp = strchr(name, ' ');
	return sp ? (size_t)(sp - name) : 0;
}

static bool cmd_under(const struct cmd_def *c, const char *prefix)
{
	size_t n = cmd_parent_len(c->name);
	size_t pl = strlen(prefix);
	return n == pl && strncmp(c->name, prefix, pl) == 0;
}

static const char *cmd_leaf(const struct cmd_def *c)
{
	size_t n = cmd_parent_len(c->name);
	return n ? c->name + n + 1 : c->name;
}

static bool cmd_has_alias(const struct cmd_def *c, const char *word)
{
	if (!c->aliases)
		return false;
	size_t wl = strlen(word);
	for (const char *a = c->aliases; *a;) {
		size_t l = strcspn(a, " ");
		if (l == wl && strncmp(a, word, l) == 0)
			return true;
		a += l;
		while (*a == ' ')
			a++;
	}
	return false;
}

const struct cmd_def *cmd_lookup(const char *prefix, const char *word,
				 bool *ambiguous)
{
	const struct cmd_def *c, *found = NULL;
	int nfound = 0;
	*ambiguous = false;
	for (size_t i = 0; (c = cmd_at(i)); i++)
		if (cmd_under(c, prefix) &&
		    (strcmp(cmd_leaf(c), word) == 0 || cmd_has_alias(c, word)))
			return c;
	for (size_t i = 0; (c = cmd_at(i)); i++) {
		if (cmd_under(c, prefix) && !(c->flags & CMD_HIDDEN) &&
		    str_starts(cmd_leaf(c), word)) {
			found = c;
			nfound++;
		}
	}
	if (nfound > 1) {
		*ambiguous = true;
		return NULL;
	}
	return found;
}

/* Split the first word (letters, digits, '-', '_') off s. */
static const char *cmd_word(const char *s, char *word, size_t len)
{
	s = str_skip_space(s);
	size_t n = 0;
	while (s[n] && (isalnum((unsigned char)s[n]) || s[n] == '-' || s[n] == '_'))
		n++;
	if (n == 0 && s[0] && !isspace((unsigned char)s[0]))
		n = 1;	/* a lone punctuation command such as "!" */
	if (n >= len)
		n = len - 1;
	memcpy(word, s, n);
	word[n] = 0;
	return str_skip_space(s + n);
}

static int cmd_strcmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void cmd_ambiguous(struct qz *q, const char *prefix, const char *word)
{
	struct sbuf b = {0};
	const char *names[256];
	const struct cmd_def *c;
	size_t n = 0;
	for (size_t i = 0; (c = cmd_at(i)) && n < 256; i++)
		if (cmd_under(c, prefix) && !(c->flags & CMD_HIDDEN) &&
		    str_starts(cmd_leaf(c), word))
			names[n++] = cmd_leaf(c);
	qsort(names, n, sizeof names[0], cmd_strcmp);
	for (size_t i = 0; i < n; i++)
		sbuf_printf(&b, "%s%s", i ? ", " : "", names[i]);
	if (*prefix)
		qz_error(q, "Ambiguous %s command \"%s\": %s.", prefix, word, b.s);
	else
		qz_error(q, "Ambiguous command \"%s\": %s.", word, b.s);
	sbuf_free(&b);
}

static int cmd_dispatch(struct qz *q, const struct cmd_def *c, const char *args)
{
	if (q->replaying && qzs_replay_allows(q, c, args) < 0)
		return CMD_FAIL;   /* also nested ones: thread apply all CMD */
	if (!qz_running(q)) {   /* gdb's words for each kind of need */
		if (c->flags & CMD_NEEDS_STACK)
			return qz_error(q, "No stack.");
		if (c->flags & CMD_NEEDS_FRAME)
			return qz_error(q, "No frame selected.");
		if (c->flags & CMD_NEEDS_REGS)
			return qz_error(q, "The program has no registers now.");
		if (c->flags & CMD_NEEDS_PROCESS)
			return qz_error(q, "The program is not being run.");
	}
	return c->fn(q, args);
}

/* Resolve "info breakpoints 2" style lines; c is the prefix entry. */
static int cmd_run_sub(struct qz *q, const struct cmd_def *c, const char *rest)
{
	char word[64];
	const char *args = cmd_word(rest, word, sizeof word);
	if (!*word)
		return c->fn ? cmd_dispatch(q, c, rest) :
			       qz_error(q, "\"%s\" must be followed by the name of a subcommand.", c->name);
	bool amb;
	const struct cmd_def *sub = cmd_lookup(c->name, word, &amb);
	if (amb) {
		cmd_ambiguous(q, c->name, word);
		return CMD_FAIL;
	}
	if (!sub) {
		if (c->fn && !strcmp(c->name, "set"))	/* "set x = 3" */
			return cmd_dispatch(q, c, rest);
		return qz_error(q, "Undefined %s command: \"%s\".  Try \"help %s\".",
				c->name, word, c->name);
	}
	return cmd_dispatch(q, sub, args);
}

static int cmd_run_line(struct qz *q, const char *line)
{
	char word[64];
	const char *s = str_skip_space(line);
	if (!*s || *s == '#')
		return CMD_OK;
	const char *args = cmd_word(s, word, sizeof word);
	bool amb;
	const struct cmd_def *c = cmd_lookup("", word, &amb);
	if (amb) {
		cmd_ambiguous(q, "", word);
		return CMD_FAIL;
	}
	if (!c)
		return qz_error(q, "Undefined command: \"%s\".  Try \"help\".", word);
	if (c->flags & CMD_PREFIX)
		return cmd_run_sub(q, c, args);
	return cmd_dispatch(q, c, args);
}

const struct cmd_def *cmd_resolve(const char *line, const char **args)
{
	char word[64];
	bool amb;
	const char *rest = cmd_word(line, word, sizeof word);
	const struct cmd_def *c = *word ? cmd_lookup("", word, &amb) : NULL;
	*args = rest;
	if (!c || !(c->flags & CMD_PREFIX))
		return c;
	const char *sub_args = cmd_word(rest, word, sizeof word);
	const struct cmd_def *sub = *word ? cmd_lookup(c->name, word, &amb) : NULL;
	if (sub)
		*args = sub_args;
	return sub ? sub : c;
}

int cmd_run(struct qz *q, const char *line)
{
	sbuf_reset(&q->err);
	char *trimmed = str_trim(line);
	int stops = q->stops_shown;
	const char *args;
	const struct cmd_def *c = cmd_resolve(trimmed, &args);
	qzs_cmd_begin(q, trimmed, c && (c->flags & CMD_UNRECORDED));
	int r = cmd_run_line(q, trimmed);
	free(trimmed);
	if (r < 0 && q->err.len)
		qz_emit(q, QZ_OUT_ERROR, q->err.s);
	if (q->stops_shown != stops && q->ndisplays && r != CMD_QUIT)
		cmd_show_displays(q);   /* the command ended at a new stop */
	if (q->after_stop.len) {
		qz_puts(q, q->after_stop.s);
		sbuf_reset(&q->after_stop);
	}
	qzs_cmd_end(q);
	qz_user_stop(q);   /* int3s out, registers written: qzdb may die now */
	if (proc_quit_pending())   /* SIGTERM, SIGHUP, SIGPIPE: leave */
		return CMD_QUIT;
	return r < 0 ? CMD_FAIL : r;
}

int cmd_run_view(struct qz *q, const char *line)
{
	qzs_view(q, true);
	int r = cmd_run(q, line);
	qzs_view(q, false);
	return r;
}
