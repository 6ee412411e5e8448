/* cmd-ckpt: checkpoint, rollback, cdelete, info checkpoints, the
 * checkpoint settings, and maintenance dumps of the program's state (for
 * tests: a rollback must give back a byte-identical state). */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>

#include "cmd-ckpt.h"
#include "ckpt-int.h"
#include "rx.h"
#include "cmd/qzs.h"
#include "target/pagewatch.h"
#include "target/regs.h"

static int ckpt_arg_id(struct qz *q, const char *a, int *id)
{
	int64_t v;
	if (!*a)
		return qz_error(q, "Argument required (checkpoint id).");
	if (!str_to_i64(a, &v) || v <= 0 || v > 1000000000)
		return qz_error(q, "Invalid checkpoint id \"%s\".", a);
	*id = (int)v;
	return 0;
}

static int cmd_checkpoint(struct qz *q, const char *a)
{
	if (*a)
		return qz_error(q, "checkpoint takes no argument.");
	if (qz_present(q) < 0)
		return -1;
	return ckpt_take(q, false);
}

static int cmd_rollback(struct qz *q, const char *a)
{
	struct ckpt_state *s = ckpt_state(q);
	int id;
	if (ckpt_arg_id(q, a, &id) < 0 || qz_present(q) < 0)
		return -1;
	if (!q->proc || !ckpt_process_check(q)) {
		if (s->lost)
			return qz_error(q, "The program is gone (it exited or was killed): its "
				       "checkpoints went with it.");
		return qz_error(q, "The program is not being run.");
	}
	struct ckpt *c = ckpt_find(s, id);
	if (!c && id > 0 && id < s->exec_below)
		return qz_error(q, "Checkpoint %d was discarded when the process executed a new "
			       "program.", id);
	if (!c)
		return qz_error(q, "No checkpoint number %d.", id);
	return ckpt_rollback(q, c);
}

static int cmd_cdelete(struct qz *q, const char *a)
{
	int id;
	if (ckpt_arg_id(q, a, &id) < 0)
		return -1;
	return ckpt_delete(q, id);
}

static void ckpt_fmt_bytes(char *buf, size_t len, uint64_t b)
{
	snprintf(buf, len, "%llu KiB", (unsigned long long)((b + 1023) >> 10));
}

int ckpt_count(struct qz *q)
{
	const struct ckpt_state *s = ckpt_state(q);
	int n = 0;
	for (size_t i = 0; s && i < s->n; i++)   /* a walkthrough's own are not the user's */
		n += !s->cps[i]->dead && !s->cps[i]->hidden;
	return n;
}

/* The ranges the kernel refused to write-protect (copied instead). */
static void ckpt_say_refused(struct qz *q, const struct ckpt_state *s)
{
	struct ckpt_undo_stats st = {0};
	if (!s->undo)
		return;
	ckpt_undo_counts(s->undo, &st);
	if (st.nrefused)
		qz_printf(q, "Write-protection refused by the kernel for %zu range%s (%llu pages, "
			  "copied instead): %s\n", st.nrefused, st.nrefused == 1 ? "" : "s",
			  (unsigned long long)st.refused_pages, st.refused.s);
	sbuf_free(&st.refused);
}

/* `info checkpoints all` also lists a walkthrough's hidden ones (taken
 * before each of its steps, for going back), marked so. */
static int cmd_info_checkpoints(struct qz *q, const char *a)
{
	struct ckpt_state *s = ckpt_state(q);
	bool all = !strcmp(str_skip_space(a), "all");
	if (!all && *str_skip_space(a))
		return qz_error(q, "Usage: info checkpoints [all].");
	size_t shown = 0;
	if (q->proc && proc_alive(q->proc))
		ckpt_undo_sync(q, s);   /* the base's pre-images so far */
	const struct ckpt *cur = s->base;   /* a replay's hidden ones are not shown */
	while (cur && cur->hidden)
		cur = cur->parent;
	for (size_t i = 0; i < s->n; i++) {
		const struct ckpt *c = s->cps[i];
		char bytes[32];
		if (c->dead || (c->hidden && !all))
			continue;
		if (!shown++)
			qz_printf(q, "  Id   Time       Pages    Held         Found by  Where\n");
		ckpt_fmt_bytes(bytes, sizeof bytes, ckpt_bytes(c));
		qz_printf(q, "%c %-4d %8.3f s %-8zu %-12s %-9s %s%s\n", c == cur ? '*' : ' ',
			  c->id, (double)c->at_ns / 1e9, c->ndata, bytes, c->method, c->where,
			  c->hidden ? " (walkthrough)" : c->automatic ? " (auto)" : "");
	}
	if (!shown)
		qz_puts(q, "No checkpoints.\n");
	ckpt_say_refused(q, s);
	return 0;
}

static int cmd_set_checkpoint_interval(struct qz *q, const char *a)
{
	int64_t v;
	struct ckpt_state *s = ckpt_state(q);
	if (!strcmp(a, "off") || !strcmp(a, "0")) {
		s->interval_ms = 0;
	} else {
		if (!str_to_i64(a, &v) || v <= 0 || v > 86400000)
			return qz_error(q, "Usage: set checkpoint-interval MS|off.");
		s->interval_ms = (int)v;
	}
	ckpt_timer_arm(q);
	rx_arm(q);
	return 0;
}

static int cmd_info_reexec(struct qz *q, const char *a)
{
	(void)a;
	return rx_info(q);
}

static int cmd_maint_info_reexec_log(struct qz *q, const char *a)
{
	(void)a;
	return rx_info_log(q);
}

static int cmd_set_checkpoint_budget(struct qz *q, const char *a)
{
	int64_t v;
	struct ckpt_state *s = ckpt_state(q);
	if (!strcmp(a, "unlimited") || !strcmp(a, "0")) {
		s->budget = 0;
		return 0;
	}
	if (!str_to_i64(a, &v) || v <= 0 || v > (1 << 30))
		return qz_error(q, "Usage: set checkpoint-budget MIB|unlimited.");
	s->budget = (uint64_t)v << 20;
	ckpt_check_budget(q);
	return 0;
}

static int cmd_set_checkpoint_method(struct qz *q, const char *a)
{
	static const char *const names[] = {"auto", "pagemap", "hash", "both", "undo", NULL};
	struct ckpt_state *s = ckpt_state(q);
	for (int i = 0; names[i]; i++) {
		if (strcmp(a, names[i]))
			continue;
		if (s->n)
			return qz_error(q, "Delete the checkpoints first: the method is chosen "
				       "with the first checkpoint.");
		s->want = (enum ckpt_method)i;
		return 0;
	}
	return qz_error(q, "Usage: set checkpoint-method auto|undo|pagemap|hash.");
}

static int cmd_maint_checkpoint_stats(struct qz *q, const char *a)
{
	const struct ckpt_state *s = ckpt_state(q);
	struct ckpt_undo_stats st = {0};
	(void)a;
	qz_printf(q, "last checkpoint %.1f us, last rollback %.1f us\n",
		  (double)s->took_ckpt_ns / 1e3, (double)s->took_rollback_ns / 1e3);
	if (s->undo) {
		ckpt_undo_counts(s->undo, &st);
		qz_printf(q, "undo log: %llu write faults, %llu pages saved in %.1f ms\n",
			  (unsigned long long)st.faults, (unsigned long long)st.pages,
			  (double)st.save_ns / 1e6);
		qz_printf(q, "undo log fills: %llu of those pages repeat one word, held without "
			  "a copy\n", (unsigned long long)st.fills);
		struct sbuf ag = {0};
		ckpt_undo_agent_counts(s->undo, &ag);
		if (ag.len)
			qz_printf(q, "%s", ag.s);
		sbuf_free(&ag);
		qz_printf(q, "write-protection: %.1f ms in the background, %.1f ms waited for "
			  "before the program ran\n", (double)st.prot_bg_ns / 1e6,
			  (double)st.prot_wait_ns / 1e6);
		sbuf_free(&st.refused);
		ckpt_say_refused(q, s);
	}
	return 0;
}

/* set NAME on|off for *off, fixed once a checkpoint exists (the engine
 * and its setup are chosen with the first). */
static int ckpt_set_off(struct qz *q, const char *a, const char *name, bool *off)
{
	if (strcmp(a, "on") && strcmp(a, "off"))
		return qz_error(q, "Usage: set %s on|off.", name);
	if (ckpt_state(q)->n)
		return qz_error(q, "Delete the checkpoints first: the method is chosen "
			       "with the first checkpoint.");
	*off = !strcmp(a, "off");
	return 0;
}

static int cmd_maint_set_checkpoint_undo_background(struct qz *q, const char *a)
{
	return ckpt_set_off(q, a, "checkpoint-undo-background", &ckpt_state(q)->undo_fg);
}

static int cmd_maint_set_checkpoint_undo_protect(struct qz *q, const char *a)
{
	return ckpt_set_off(q, a, "checkpoint-undo-protect", &ckpt_state(q)->undo_noprot);
}

static int cmd_maint_set_checkpoint_undo_fill(struct qz *q, const char *a)
{
	return ckpt_set_off(q, a, "checkpoint-undo-fill", &ckpt_state(q)->undo_nofill);
}

static int cmd_maint_set_checkpoint_undo_agent(struct qz *q, const char *a)
{
	return ckpt_set_off(q, a, "checkpoint-undo-agent", &ckpt_state(q)->undo_noagent);
}

static int cmd_maint_set_checkpoint_undo(struct qz *q, const char *a)
{
	return ckpt_set_off(q, a, "checkpoint-undo", &ckpt_state(q)->undo_off);
}

/* ---- state dumps ---- */

/* Registers, then each run of adjacent tracked maps with one protection,
 * with its contents; int3 bytes hidden. */
struct ckpt_dumper {
	FILE *f;
	uint64_t run_lo, run_hi;
	int run_prot;
};

static void ckpt_dump_regs(FILE *f, const struct user_regs_struct *r, const uint8_t *x,
			   size_t xlen)
{
	fprintf(f, "regs %zu\n", sizeof *r);
	fwrite(r, sizeof *r, 1, f);
	fprintf(f, "\nxstate %zu\n", xlen);
	if (xlen)
		fwrite(x, xlen, 1, f);
	fputc('\n', f);
}

/* Page contents of [lo, hi): live (c NULL) or as checkpoint c had them. */
static int ckpt_dump_range(struct qz *q, const struct ckpt *c, FILE *f, uint64_t lo,
			   uint64_t hi, int prot)
{
	static uint8_t page[CKPT_PAGE];
	fprintf(f, "map %llx-%llx %d\n", (unsigned long long)lo, (unsigned long long)hi, prot);
	for (uint64_t a = lo; a < hi; a += CKPT_PAGE) {
		if (c && ckpt_state(q)->undo) {
			if (ckpt_undo_page(q, c, a, page) < 0)
				return -1;
		} else if (c) {
			const struct ckpt_blob *b = ckpt_lookup(c, a);
			if (b)
				memcpy(page, b->data, CKPT_PAGE);
			else
				memset(page, 0, CKPT_PAGE);
		} else {
			uint8_t *p = page;
			if (ckpt_mem_read(q, &a, 1, &p) < 0)
				return -1;
			bp_mask(&q->bps, a, page, CKPT_PAGE);
		}
		fwrite(page, CKPT_PAGE, 1, f);
	}
	return 0;
}

static int ckpt_dump_maps(struct qz *q, const struct ckpt *c, const struct ckpt_os *os, FILE *f)
{
	uint64_t lo = 0, hi = 0;
	int prot = -1;
	for (size_t i = 0; i <= os->nmaps; i++) {
		const struct ckpt_map *m = i < os->nmaps ? &os->maps[i] : NULL;
		if (m && !ckpt_map_tracked(ckpt_state(q), m))
			continue;
		if (m && m->lo == hi && m->prot == prot) {
			hi = m->hi;
			continue;
		}
		if (prot >= 0 && ckpt_dump_range(q, c, f, lo, hi, prot) < 0)
			return -1;
		if (m) {
			lo = m->lo;
			hi = m->hi;
			prot = m->prot;
		}
	}
	return 0;
}

static int cmd_maint_dump_state(struct qz *q, const char *a)
{
	FILE *f;
	struct ckpt_os os;
	if (!q->proc || !ckpt_process_check(q))
		return qz_error(q, "The program is not being run.");
	pw_protect(q, false);   /* the program's own map, as a checkpoint sees it */
	int r = ckpt_os_read(q, &os, CKPT_OS_MAPS);
	if (r < 0) {
		pw_protect(q, true);
		return qz_error(q, "Cannot read the program's memory map.");
	}
	if (!(f = qzs_open_write(q, a))) {   /* a replayed session is data */
		pw_protect(q, true);
		ckpt_os_free(&os);
		return -1;
	}
	size_t xlen;
	uint8_t *x = regs_xstate_read(proc_cur_tid(q->proc), &xlen);
	ckpt_dump_regs(f, proc_regs(q->proc), x, xlen);
	free(x);
	r = ckpt_dump_maps(q, NULL, &os, f);
	pw_protect(q, true);
	ckpt_os_free(&os);
	fclose(f);
	return r < 0 ? qz_error(q, "Cannot read the program's memory.") : 0;
}

static int cmd_maint_dump_checkpoint(struct qz *q, const char *a)
{
	char *sp = strchr(a, ' ');
	int id;
	FILE *f;
	char *num = sp ? xstrndup(a, (size_t)(sp - a)) : xstrdup(a);
	int r = ckpt_arg_id(q, num, &id);
	free(num);
	if (r < 0)
		return -1;
	struct ckpt *c = ckpt_find(ckpt_state(q), id);
	if (!c)
		return qz_error(q, "No checkpoint number %d.", id);
	if (!(f = qzs_open_write(q, sp ? str_skip_space(sp) : "")))
		return -1;
	ckpt_undo_sync(q, ckpt_state(q));
	ckpt_dump_regs(f, &c->regs, c->xstate, c->xlen);
	r = ckpt_dump_maps(q, c, &c->os, f);
	fclose(f);
	return r;
}

#include "cmd/cmd-flags.h"

/* The module's commands (core assembles its table from every module's). */
const struct cmd_def ckpt_cmds[] = {
	{"checkpoint", NULL, "checkpoint", P | Y, cmd_checkpoint,
	 "Save the program's state; prints Checkpoint N at FILE:LINE (P pages, K KiB).",
	 "No fork: registers, memory map, brk and file offsets are kept by qzdb, and\n"
	 "memory by the method in use (set checkpoint-method): with undo, the old\n"
	 "content of each page written after the checkpoint. Output already\n"
	 "written, shared mappings, sockets, children and threads are not undone."},
	{"rollback", NULL, "rollback N", Y, cmd_rollback,
	 "Put the program back in the state of checkpoint N.",
	 "Works any number of times, also after the program exited or crashed\n"
	 "(it is held while checkpoints exist)."},
	{"cdelete", NULL, "cdelete N", Y, cmd_cdelete, "Delete checkpoint N.", NULL},
	{"info checkpoints", NULL, "info checkpoints [all]", Y, cmd_info_checkpoints,
	 "List checkpoints: id, time since start, pages and bytes held, method, place.",
	 "* marks the one the program's memory comes from. With the undo method a\n"
	 "checkpoint holds the old content of the pages written after it (the\n"
	 "newest holds nothing until the program writes); with pagemap and hash,\n"
	 "the pages written before it since the previous one. With all, also a\n"
	 "walkthrough's own (taken before each of its steps)."},
	{"set checkpoint-interval", NULL, "set checkpoint-interval MS|off", Y,
	 cmd_set_checkpoint_interval, "Take a checkpoint every MS ms while the program runs.",
	 "While on, every system call of a single-threaded program is logged (its\n"
	 "result and the bytes it wrote; time() and clock_gettime() are made system\n"
	 "calls for it), so that reverse-continue with no recorded region can\n"
	 "re-execute from the newest checkpoint with the same results: see\n"
	 "`info reexec`. The log costs two stops per system call."},
	{"info reexec", NULL, "info reexec", Y, cmd_info_reexec,
	 "What re-execution from checkpoints has logged, and where the program is in it.",
	 "reverse-continue with no recorded region rolls back to the newest automatic\n"
	 "checkpoint before the present and runs forward again, system calls fed\n"
	 "from the log (not run: a file changed since reads as it did), to the last\n"
	 "breakpoint hit before the present. Continuing from there feeds the log too,\n"
	 "up to where the program was; a call that differs from the log (the past\n"
	 "altered) stops it with a message and it runs live from there. Needs a\n"
	 "single-threaded program; rdtsc, rdrand and asynchronous signals are not\n"
	 "reproduced."},
	{"set checkpoint-budget", NULL, "set checkpoint-budget MIB|unlimited", Y,
	 cmd_set_checkpoint_budget, "Delete the oldest checkpoints beyond MIB MiB.", NULL},
	{"set checkpoint-method", NULL, "set checkpoint-method auto|undo|pagemap|hash", Y,
	 cmd_set_checkpoint_method, "How checkpoints find changed pages.",
	 "undo: a checkpoint write-protects memory and copies nothing; the first\n"
	 "write to a page after it saves the page's old content (a synchronous\n"
	 "userfaultfd, Linux 6.4, privileged). pagemap: the pages written since\n"
	 "the last checkpoint are copied at the next (asynchronous write-protect and\n"
	 "PAGEMAP_SCAN, Linux 6.7). hash: every page compared. auto: the first of\n"
	 "these that works here; `info checkpoints` says which."},
	{"set checkpoint-undo", NULL, "set checkpoint-undo on|off", CMD_HIDDEN | Y,
	 cmd_maint_set_checkpoint_undo,
	 "off: auto does not use the undo method, as where the kernel refuses it.", NULL},
	{"set checkpoint-undo-background", NULL, "set checkpoint-undo-background on|off",
	 CMD_HIDDEN | Y, cmd_maint_set_checkpoint_undo_background,
	 "off: the undo engine's write-protection is left pending until the program\n"
	 "runs (tests: what the protector would do in the background, done then).", NULL},
	{"set checkpoint-undo-protect", NULL, "set checkpoint-undo-protect on|off",
	 CMD_HIDDEN | Y, cmd_maint_set_checkpoint_undo_protect,
	 "off: the undo engine's write-protection is refused, as the kernel may refuse\n"
	 "it for a second on end (tests: the ranges are copied at once instead).", NULL},
	{"set checkpoint-undo-fill", NULL, "set checkpoint-undo-fill on|off",
	 CMD_HIDDEN | Y, cmd_maint_set_checkpoint_undo_fill,
	 "off: the undo engine copies every pre-image, none is held as the word it\n"
	 "repeats (tests: both ways must roll back alike).", NULL},
	{"set checkpoint-undo-agent", NULL, "set checkpoint-undo-agent on|off",
	 CMD_HIDDEN | Y, cmd_maint_set_checkpoint_undo_agent,
	 "off: the undo engine saves pre-images from qzdb, with no save agent in the\n"
	 "program (tests: both ways must roll back alike; taken with the next first\n"
	 "checkpoint).", NULL},
	{"maint dump-state", NULL, "maint dump-state FILE", CMD_HIDDEN, cmd_maint_dump_state,
	 "Write registers and every writable private mapping to FILE.", NULL},
	{"maint dump-checkpoint", NULL, "maint dump-checkpoint N FILE", CMD_HIDDEN,
	 cmd_maint_dump_checkpoint, "Write checkpoint N as dump-state would.", NULL},
	{"maint print-reexec-log", NULL, NULL, CMD_HIDDEN | Y, cmd_maint_info_reexec_log,
	 "The logged system calls, one per line (> marks the next to feed).", NULL},
	{"maint checkpoint-stats", NULL, NULL, CMD_HIDDEN | Y, cmd_maint_checkpoint_stats,
	 "Time taken by the last checkpoint and rollback.", NULL},
	CMD_END,
};
