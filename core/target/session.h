/* session: the debugger's state for one program: its modules and debug
 * info, the process, breakpoints, settings, value history and the output
 * sink every command writes through. Front ends drive it with cmd_run()
 * and receive text through the sink. */
#ifndef QZ_SESSION_H
#define QZ_SESSION_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bp.h"
#include "dinfo/dinfo.h"
#include "dinfo/image.h"
#include "dinfo/lines.h"
#include "proc/proc.h"
#include "proc/sandbox.h"
#include "proc/signals.h"
#include "thread.h"
#include "dinfo/unwind.h"
#include "mod.h"
#include "objects.h"
#include "out.h"
#include "util/util.h"
#include "value/value.h"

/* Why the program last stopped, for `info program` and front ends. */
enum qz_stop_kind {
	QZ_STOP_NONE, QZ_STOP_BREAKPOINT, QZ_STOP_STEP, QZ_STOP_SIGNAL,
	QZ_STOP_EXITED, QZ_STOP_KILLED, QZ_STOP_LOCATION
};

struct qz_display {
	int num;
	char *expr;
	char fmt;                     /* 0, a print format, or i/s for x */
	int count;                    /* for display/Ni */
	bool enabled;
	/* gdb's display block: the innermost block of the locals the
	 * expression names, when set; it is shown only where the selected
	 * frame's pc is inside it. NULL (no locals): everywhere. owner is the
	 * di_func or di_inline the block belongs to. */
	const struct di_scope *block;
	const void *owner;
	const struct di_info *di;     /* the debug info block points into */
};

struct qz;
struct run_target;


struct qz {
	char *prog;                   /* path of the program */
	char **args;                  /* its arguments (without argv[0]) */
	size_t nargs;
	char *stdin_path, *stdout_path;
	struct qz_module exe;
	bool exe_loaded;
	struct qz_module *libs;
	size_t nlibs, libs_cap;
	bool libs_stale;              /* re-read /proc/PID/maps before use */

	struct proc *proc;
	int last_exit_code;
	enum qz_stop_kind stop;
	int stop_sig;                 /* signal the process stopped with, to pass
	                                 on resume */
	uint64_t nstops;              /* stops so far: names the current one (a
	                                 module's note of why it stopped) */
	int sel_frame;                /* selected frame number */
	/* At the first instruction of an inlined call gdb shows the caller at
	 * the call site; this many of those hidden calls are shown instead
	 * (after `step` into one, or a breakpoint on the inlined function). */
	int inline_unskip;
	struct frame *frames;         /* unwound so far at this stop */
	size_t nframes, frames_cap;
	bool frames_done;             /* the outermost frame was reached */

	struct bp_table bps;
	struct sig_table sigs;

	struct val *history;          /* value history $1, $2, ... */
	size_t nhistory, history_cap;
	struct qz_display *displays;
	size_t ndisplays, displays_cap;
	int next_display;

	/* settings */
	bool pin_cpu;
	int print_elements;
	int listsize;
	bool confirm_batch;
	/* A signal in a function called from the debugger ends the call and
	 * puts the registers back (gdb's unwindonsignal); off: the program
	 * stays where the signal came. */
	bool unwind_on_signal;
	/* Commands come from a terminal (gdb's from_tty): false in batch
	 * mode, where gdb -batch leaves out "Run till exit from ...", a new
	 * display's first showing and "(More stack frames follow...)". */
	bool from_tty;

	/* x's defaults: the next `x` continues after the last one */
	uint64_t x_next;
	char x_fmt;
	int x_size;
	int x_count;
	int stops_shown;              /* stop reports so far, for displays */
	/* Printed after the stop's displays, as gdb prints finish's
	 * "Value returned is ..." after them. */
	struct sbuf after_stop;

	/* list's position: the next `list` continues from here */
	const char *list_file;
	/* The file of the last source line shown at a stop and whether it
	 * could not be read: gdb says "No such file or directory" once per
	 * file in a row, then "in FILE". */
	const char *src_last;
	bool src_last_err;
	int list_line;
	int list_first, list_last;
	/* gdb's last_line_listed after an `info line`: the line after the
	 * one it showed, the next bare `info line`'s, while list_file,
	 * list_line and list_first are still info_line_at's. */
	int info_line_next;
	int info_line_at[2];
	const char *info_line_file;

	/* A page in the debuggee holding out-of-line copies of instructions
	 * replaced by breakpoints, so a hit resumes without a single-step. */
	uint64_t scratch;
	int scratch_state;            /* 0 not tried, 1 mapped, -1 unavailable */
	size_t scratch_used;

	/* Debug registers alter/ holds for watched calls (break FUNC if write
	 * ...): while it holds any, watchpoints are software ones, and while
	 * hardware watchpoints hold them, calls are not watched: the two
	 * never share DR0-DR3. */
	int dr_held_by_calls;

	/* The registered modules (mod.c) and the state each one's init made,
	 * opaque here: a module reads its own with mod_state. */
	const struct qz_mod *mods[QZ_MAX_MODS];
	void *mod_state[QZ_MAX_MODS];
	int nmods;

	struct qzs_log *qzs;          /* the transcript (qzs.c) */
	bool replaying;               /* running a session file's commands */
	bool quiet;                   /* output goes to the transcript only */

	struct qz_sink sink;
	struct sbuf err;              /* the failing command's message */
	bool interrupted;             /* SIGINT from the user while running */
	struct watch_state *watch;    /* watchpoints' registers (core/target/watch.c) */
	struct pw_state *pw;          /* page-protection watches (core/target/pagewatch.c) */

	/* Shared libraries (core/target/solib.c) and attach. */
	struct solib_state *solib;
	bool libs_tracked;            /* the module list follows r_debug: no
	                                 re-reading of /proc/PID/maps */
	int bp_pending;               /* set breakpoint pending: -1 auto, 0, 1 */
	bool attached;                /* the process was attached to: quit
	                                 detaches instead of killing */
	bool crash_at_int3;           /* maint crash-at-breakpoint: a test of
	                                 qzdb dying before it answers a trap */
	/* Positioned in a recording's past (slice/rev.c): what the process
	 * shows is the past; writes are refused (qz_present). replay_insn is
	 * the position (instructions run since recording began, gdb's insn
	 * number) of replay_insns recorded, for a status bar. */
	bool in_past;
	uint64_t replay_insn, replay_insns;
	/* set exec-direction reverse: while a module can go back
	 * (mod_can_reverse), step, next, continue... run backwards. */
	bool exec_reverse;
	char *debug_dir;              /* set debug-file-directory: where
	                                 .build-id/xx/rest.debug files are */
	/* The program ended (exit or fatal signal) but the process is kept,
	 * stopped, for a rollback (ckpt/): commands see no process. */
	bool held;

	/* threads and fork (core/target/thread.c) */
	struct thread_state thr;

	/* The module that drives the program now (its qz_mod.drive: slice/
	 * while a region is recorded), or NULL: the program runs freely. */
	const struct qz_mod *driver;

	/* Front ends (tui/) */
	char *tty_path;               /* the program's terminal (the UI's pty), or
	                                 NULL to share qzdb's */
	int term_sig;                 /* signal that killed the program last */
	const struct qz_ui *ui;       /* the full-screen UI's commands, or NULL */

	/* set sandbox, --replay (core/cmd/cmd-sandbox.c): how the next run is
	 * confined; the process points at it while it lives. */
	struct sandbox sandbox;
};

struct qz *qz_new(struct qz_sink sink);
/* Make q->sandbox ready for a launch (cmd-sandbox.c); -1 plus err. */
int sandbox_session_prepare(struct qz *q, char *err, size_t errlen);
/* A replay's sandbox (--replay, the session fuzzer): on, with its scratch
 * directory, and no command may turn it off. -1 plus err when the kernel
 * cannot sandbox or no scratch directory can be made. */
int sandbox_session_force(struct qz *q, char *err, size_t errlen);
void qz_free(struct qz *q);
/* Load the program's ELF and debug info; -1 with an error printed. */
int qz_load(struct qz *q, const char *prog, char **args, size_t nargs);

bool qz_running(const struct qz *q);
/* Memory of the process with breakpoint bytes hidden; 0 on success. */
int qz_read(struct qz *q, uint64_t addr, void *buf, size_t len);
int qz_read_cb(void *q, uint64_t addr, void *buf, size_t len);
/* Write the process's memory; a planted breakpoint in the range keeps its
 * int3 and remembers the new byte as the original. */
int qz_write(struct qz *q, uint64_t addr, const void *buf, size_t len);
/* 0, or -1 with the error set while replaying the past: the state is the
 * recording's and changing it would make the log lie. */
int qz_present(struct qz *q);

/* Forget the process (it exited or was killed): breakpoints back to
 * unrelocated addresses, modules dropped. */
void qz_process_gone(struct qz *q);

/* Leave an attached process as it was before qzdb touched it (int3s,
 * debug registers, a pending signal handed back) and detach: it runs on. */
int qz_detach(struct qz *q);
/* A command ended with the program stopped for the user: registers
 * written back to the kernel and the int3s out of its memory (they go back
 * in when it resumes), so that qzdb dying now leaves a clean program. */
void qz_user_stop(struct qz *q);
/* Front ends: SIGTERM, SIGHUP and SIGPIPE end the running command at a stop
 * and make cmd_run answer CMD_QUIT (proc_quit_pending()); a crash inside
 * qzdb puts q's program back as it was before dying. */
void qz_signals(struct qz *q);

/* Add v to the value history; returns its number. Takes ownership. */
int qz_history_add(struct qz *q, struct val *v);

#endif
