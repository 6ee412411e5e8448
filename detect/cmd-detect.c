/* cmd-detect: detect on/off/load, info detect, info vpc. */
#include "cmd-detect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect-int.h"
#include "dinfo/source.h"
#include "cmd/cmd.h"
#include "target/session.h"

/* The events the engine delivers (all but deref). */
static bool class_supported(const struct spec *s, enum spec_event *missing)
{
	for (int i = 0; i < s->nrules; i++) {
		enum spec_event e = s->rules[i].ev;
		if (e == EV_DEREF) {
			*missing = e;
			return false;
		}
	}
	return true;
}

static int class_set(struct qz *q, struct det_class *c, bool on)
{
	enum spec_event miss;
	if (on && !class_supported(c->spec, &miss))
		return qz_error(q, "Detector %s needs %s events, which this qzdb does not "
				"deliver yet (every event but deref).",
				c->spec->name,
				spec_event_name(miss));
	c->on = on;
	return 0;
}

/* Each word of args names a class (none: every class); all are checked
 * before any is switched, so an error changes nothing. */
static int detect_switch(struct qz *q, const char *args, bool on)
{
	struct detect_state *st = det_state(q);
	det_load_shipped(q);
	bool was = det_any_on(st);
	char *words = xstrdup(args);
	int r = 0, n = 0;
	for (int pass = 0; pass < 2 && r == 0; pass++) {
		char *copy = xstrdup(words);
		n = 0;
		for (char *save, *w = strtok_r(copy, " \t", &save); w && r == 0;
		     w = strtok_r(NULL, " \t", &save), n++) {
			struct det_class *c = det_find_class(st, w);
			enum spec_event miss;
			if (!c)
				r = qz_error(q, "No detector class \"%s\" (info detect lists them).", w);
			else if (pass == 0 && on && !class_supported(c->spec, &miss))
				r = class_set(q, c, on);   /* says why */
			else if (pass == 1)
				c->on = on;
		}
		free(copy);
	}
	free(words);
	for (size_t i = 0; r == 0 && n == 0 && i < st->nclasses; i++) {
		enum spec_event miss;
		if (!on || class_supported(st->classes[i].spec, &miss))
			st->classes[i].on = on;
	}
	if (!was && det_any_on(st))
		det_heap_arm(q);
	else if (was && !det_any_on(st))
		det_heap_disarm(q);
	else if (was && qz_running(q) && !st->entry_site) {
		det_heap_repick(q);
		det_lw_plant(q, st);   /* a libwrite class on */
		det_acc_arm(q);   /* a read or write class on or off */
	}
	det_acc_libc(st);
	det_pre_env(st);
	return r;
}

static int cmd_detect_on(struct qz *q, const char *args)
{
	if (detect_switch(q, args, true) < 0)
		return -1;
	struct detect_state *st = det_state(q);
	qz_puts(q, "Detectors on:");
	for (size_t i = 0; i < st->nclasses; i++)
		if (st->classes[i].on)
			qz_printf(q, " %s", st->classes[i].spec->name);
	qz_puts(q, ".\n");
	return 0;
}

static int cmd_detect_off(struct qz *q, const char *args)
{
	if (detect_switch(q, args, false) < 0)
		return -1;
	if (!det_any_on(det_state(q)))
		qz_puts(q, "No detector is on.\n");
	return 0;
}

static int cmd_detect_load(struct qz *q, const char *args)
{
	char *path = str_trim(args);
	if (!*path) {
		free(path);
		return qz_error(q, "Usage: detect load FILE");
	}
	det_load_shipped(q);
	char err[512];
	struct spec *s;
	int r = spec_load(path, &s, err, sizeof err);
	free(path);
	if (r < 0)
		return qz_error(q, "%s", err);
	struct detect_state *st = det_state(q);
	bool had = det_find_class(st, s->name) != NULL;
	struct det_class *c = det_add_class(st, s);
	det_pre_env(st);
	qz_printf(q, "%s detector class %s (%d rule%s) from %s%s\n", had ? "Replaced" : "Loaded",
		  s->name, s->nrules, s->nrules == 1 ? "" : "s", s->path,
		  c->on ? "." : "; turn it on with `detect on NAME`.");
	return 0;
}

static void info_events(struct qz *q, struct detect_state *st)
{
	qz_puts(q, "Events seen this run:");
	for (int e = 0; e < EV_COUNT; e++)
		if (e < EV_READ)   /* the events the engine delivers */
			qz_printf(q, " %s %lu", spec_event_name((enum spec_event)e), st->events[e]);
	size_t live = 0;
	for (size_t i = 0; i < st->nall; i++)
		live += st->all[i]->live;
	qz_printf(q, ".\nHeap: %zu block%s known, %zu live.\n", st->nall,
		  st->nall == 1 ? "" : "s", live);
	qz_printf(q, "Cost: %lu internal stops, %.3f ms in the detectors (%.1f us a stop)",
		  st->traps, st->seconds * 1e3, st->traps ? st->seconds * 1e6 / (double)st->traps : 0.0);
	if (st->mtraps)
		qz_printf(q, "; %lu heap calls seen inside the emulator, without a stop", st->mtraps);
	if (st->mlwtraps)
		qz_printf(q, "; %lu calls of the library's bulk writers (memcpy...) seen inside the "
			  "emulator, without a stop", st->mlwtraps);
	if (st->pre)
		qz_printf(q, "; heap calls made by qzdb's allocator in the program (qzheap.so), "
			  "without a stop");
	qz_puts(q, ".\n");
	if (st->heap_note)
		qz_printf(q, "Heap calls: %s.\n", st->heap_note);
	if (st->acc_engine)
		qz_printf(q, "Memory accesses: the %s engine %s the program; %lu of its "
			  "instructions checked, read %lu write %lu events, shadow %zu KiB%s%s.\n",
			  st->acc_engine, st->acc_on ? "runs" : "ran", st->acc_checked,
			  st->events[EV_READ], st->events[EV_WRITE], det_shadow_bytes(&st->sh) >> 10,
			  st->acc_lost ? "; off since " : "", st->acc_lost ? st->acc_lost : "");
	else if (st->acc_lost)
		qz_printf(q, "Memory accesses: %s.\n", st->acc_lost);
	else if (det_acc_wanted(st))
		qz_puts(q, "Memory accesses: not watched in this run (read and write events are "
			"seen from the program's entry, when a class that needs them is on).\n");
	if (st->acc_engine && det_un_wanted(st))
		qz_printf(q, "Definedness: %lu loads of undefined bytes into a register turned "
			  "per-instruction propagation on; %lu instructions propagated.\n",
			  st->un_switches, st->un_slow);
	if (st->acc_engine && slice_view_loops_unhooked(q))
		qz_printf(q, "Hot loops touching no memory run unchecked so far: %llu.\n",
			  (unsigned long long)slice_view_loops_unhooked(q));
	uint64_t looked, cpu;
	slice_view_lib_blocks(q, &looked, &cpu);
	if (st->acc_engine && looked)
		qz_printf(q, "Library code runs without the per-instruction hook: %llu blocks so far, "
			  "%llu of them run on the CPU up to an instruction the emulator leaves to it.\n",
			  (unsigned long long)looked, (unsigned long long)cpu);
	const char *broken;
	uint64_t lean = slice_view_lean_blocks(q, &broken);
	if (st->acc_engine && (lean || broken))
		qz_printf(q, "Hot blocks of the program run with the hook on only the instructions "
			  "that need it: %llu made so far%s%s.\n", (unsigned long long)lean,
			  broken ? "; off since " : "", broken ? broken : "");
}

static int cmd_info_detect(struct qz *q, const char *args)
{
	(void)args;
	struct detect_state *st = det_state(q);
	det_load_shipped(q);
	if (qz_running(q))
		det_pre_sync(q, st);
	qz_printf(q, "%-18s %-4s %-5s %-6s %s\n", "Class", "On", "Rules", "Fired", "Title");
	for (size_t i = 0; i < st->nclasses; i++) {
		const struct det_class *c = &st->classes[i];
		struct sbuf title = {0};
		str_sanitize(&title, c->spec->title, strlen(c->spec->title));
		qz_printf(q, "%-18s %-4s %-5d %-6lu %s\n", c->spec->name, c->on ? "yes" : "no",
			  c->spec->nrules, c->hits, title.s ? title.s : "");
		sbuf_free(&title);
	}
	info_events(q, st);
	return 0;
}

/* info vpc links: the chain a link a line, numbered for `vpc N` (the
 * UI's chain pane lists these). */
static int vpc_links(struct qz *q, struct detect_state *st)
{
	if (!st->nlinks)
		return qz_error(q, "No value propagation chain (the region was not recorded).");
	for (size_t i = 0; i < st->nlinks; i++)
		qz_printf(q, "%2zu  %s\n", i + 1, st->links[i].text);
	return 0;
}

static int cmd_info_vpc(struct qz *q, const char *args)
{
	struct detect_state *st = det_state(q);
	if (!st->last_report)
		return qz_error(q, "No detector has fired.");
	if (args && !strcmp(str_skip_space(args), "links"))
		return vpc_links(q, st);
	if (args && *str_skip_space(args))
		return qz_error(q, "Usage: info vpc [links]");
	qz_puts(q, st->last_report);
	if (st->last_chain)
		qz_puts(q, st->last_chain);
	else
		qz_puts(q, "No value propagation chain (the region was not recorded).\n");
	return 0;
}

/* vpc N: link N of the last chain: its line, and in the UI the source
 * pane shows it. */
static int cmd_vpc(struct qz *q, const char *args)
{
	struct detect_state *st = det_state(q);
	int64_t n;
	if (str_num_all(str_skip_space(args ? args : ""), 1, INT32_MAX, &n) != STR_NUM_OK)
		return qz_error(q, "Usage: vpc N (a link of info vpc links)");
	if (!st->nlinks)
		return qz_error(q, "No value propagation chain (the region was not recorded).");
	if ((size_t)n > st->nlinks)
		return qz_error(q, "The chain has %zu links.", st->nlinks);
	const struct det_link *k = &st->links[n - 1];
	if (!k->file)
		return qz_error(q, "Link %lld is before the recording began: no line.", (long long)n);
	const char *why = NULL, *text = src_line(k->file, k->line, &why);
	struct sbuf b = {0};
	sbuf_printf(&b, "%s:%d\t", str_basename(k->file), k->line);
	if (text)
		str_sanitize(&b, text, strlen(text));
	sbuf_addc(&b, '\n');
	qz_puts(q, b.s);
	sbuf_free(&b);
	if (q->ui) {   /* the source pane follows */
		char *go = xasprintf("tui goto %s:%d", k->file, k->line);
		cmd_run(q, go);
		free(go);
	}
	return 0;
}

static int cmd_set_detect_record(struct qz *q, const char *args)
{
	int r = cmd_onoff(q, args, &det_state(q)->record);   /* gdb's words for a boolean */
	det_pre_env(det_state(q));
	return r;
}

static int cmd_set_detect_preload(struct qz *q, const char *args)
{
	bool on = det_pre_allowed();
	int r = cmd_onoff(q, args, &on);
	det_pre_allow(on);
	det_pre_env(det_state(q));
	return r;
}

#include "cmd/cmd-flags.h"

const struct cmd_def detect_cmds[] = {
	{"detect", NULL, "detect on|off|load ...", CMD_PREFIX | Y, NULL,
	 "Bug detectors from specifications (the .spec files in detect/specs).",
	 "detect on [CLASS...], detect off [CLASS...], detect load FILE;\n"
	 "info detect lists the classes, the events seen and the cost."},
	{"detect on", NULL, "detect on [CLASS...]", Y, cmd_detect_on,
	 "Turn detector classes on (all without a name).",
	 "While a class is on, `run` and `continue` watch the heap calls\n"
	 "(malloc, calloc, realloc, memalign, aligned_alloc, posix_memalign,\n"
	 "free) and the program's exit; when a rule's\n"
	 "condition holds the program stops like at a breakpoint, with a report.\n"
	 "Classes with read or write rules (dangling, heap-overflow) also check\n"
	 "each load and store of the program's own code against the heap, and\n"
	 "uninit follows which bytes nothing wrote (a branch, an address or a\n"
	 "system call argument made from them is reported): the program then\n"
	 "runs under the recorder's emulator from its entry (one thread; a second\n"
	 "thread turns them off), stopping before the bad access; heap calls are\n"
	 "then seen inside the emulator, and programs started get glibc's SSE2\n"
	 "string functions (as with set record-libc baseline).\n"
	 "`detect on double-free invalid-free leak null-deref stack-overflow`\n"
	 "keeps the program native, with qzdb's allocator preloaded: no stop per\n"
	 "heap call (set detect-preload). A static program's own allocator is\n"
	 "found by its symbols (none if it is stripped: said); only code with\n"
	 "debug information is the program's there (without -g its accesses\n"
	 "are not checked: said)."},
	{"detect off", NULL, "detect off [CLASS...]", Y, cmd_detect_off,
	 "Turn detector classes off (all without a name).", NULL},
	{"detect load", NULL, "detect load FILE", 0, cmd_detect_load,
	 "Load a detector class from a spec file (spec.h has the language).",
	 "A class of the same name is replaced. Errors give FILE:LINE:COLUMN."},
	{"info detect", NULL, "info detect", Y, cmd_info_detect,
	 "List detector classes, the heap events seen and their cost.",
	 "With read or write classes on: the engine that runs the program, the\n"
	 "instructions checked and the shadow's size; with uninit, how often a\n"
	 "load of undefined bytes turned per-instruction propagation on."},
	{"set detect-record", NULL, "set detect-record on|off", Y, cmd_set_detect_record,
	 "Whether detectors record the whole run, for value propagation chains.",
	 "With it on, a run with detectors on is recorded from the program's entry\n"
	 "(single-stepped: slower), so a report can show how the bad value got\n"
	 "there. Without it, chains are shown when a region was recorded (record\n"
	 "on) up to the report."},
	{"set detect-preload", NULL, "set detect-preload on|off", Y, cmd_set_detect_preload,
	 "Whether heap-call detectors preload qzdb's allocator (on: no stop per call).",
	 "On (the default), a program started while only classes that look at\n"
	 "frees, the exit, signals and the canary are on (double-free,\n"
	 "invalid-free, leak, null-deref, stack-overflow) gets qzheap.so in\n"
	 "LD_PRELOAD: its malloc and free run in the program with no stop, keep\n"
	 "the sites in block headers, and stop only on a free of something that\n"
	 "is not a live block (the free then does nothing when the program goes\n"
	 "on; glibc would abort). Static programs, programs with their own\n"
	 "malloc and classes that need every call keep internal stops on the\n"
	 "allocator. Off: always those stops. Applies to programs started after."},
	{"info vpc", NULL, "info vpc [links]", Y, cmd_info_vpc,
	 "Show the last detector report and its value propagation chain.",
	 "links: the chain a link a line, numbered for `vpc N`."},
	{"vpc", NULL, "vpc N", Y, cmd_vpc,
	 "Show link N of the last value propagation chain (its line; the UI's source pane).",
	 NULL},
	CMD_END,
};
