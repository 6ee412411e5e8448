/* cmds: core's command array and the handlers it points at, grouped by
 * the file that owns them. */
#ifndef QZ_CMDS_H
#define QZ_CMDS_H

#include <stdbool.h>

#include "cmd.h"

struct qz;

/* cmd-table.c: core's commands, ended by an entry with a NULL name. */
extern const struct cmd_def core_cmds[];

/* cmd-sandbox.c */
int cmd_set_sandbox(struct qz *q, const char *a);
int cmd_show_sandbox(struct qz *q, const char *a);

/* qzs.c */
int cmd_save_session(struct qz *q, const char *a);
int cmd_caption(struct qz *q, const char *a);
int cmd_task(struct qz *q, const char *a);
int cmd_expect(struct qz *q, const char *a);

/* cmd-platform.c */
int cmd_info_platform(struct qz *q, const char *a);
int cmd_maint_set(struct qz *q, const char *a);
int cmd_maint_show(struct qz *q, const char *a);
int cmd_maint_crash_at_breakpoint(struct qz *q, const char *a);

/* cmd-run.c */
int cmd_run_prog(struct qz *q, const char *a);
int cmd_start(struct qz *q, const char *a);
int cmd_continue(struct qz *q, const char *a);
int cmd_next(struct qz *q, const char *a);
int cmd_step(struct qz *q, const char *a);
int cmd_stepi(struct qz *q, const char *a);
int cmd_nexti(struct qz *q, const char *a);
int cmd_finish(struct qz *q, const char *a);
int cmd_until(struct qz *q, const char *a);
int cmd_set_exec_direction(struct qz *q, const char *a);
int cmd_show_exec_direction(struct qz *q, const char *a);
int cmd_advance(struct qz *q, const char *a);
int cmd_kill(struct qz *q, const char *a);
int cmd_detach(struct qz *q, const char *a);
int cmd_attach(struct qz *q, const char *a);
int cmd_quit(struct qz *q, const char *a);

/* cmd-bp.c */
int cmd_break(struct qz *q, const char *a);
int cmd_tbreak(struct qz *q, const char *a);
int cmd_delete(struct qz *q, const char *a);
int cmd_disable(struct qz *q, const char *a);
int cmd_enable(struct qz *q, const char *a);
int cmd_condition(struct qz *q, const char *a);
int cmd_ignore(struct qz *q, const char *a);
int cmd_info_breakpoints(struct qz *q, const char *a);
int cmd_info_watchpoints(struct qz *q, const char *a);

/* cmd-stack.c */
int cmd_backtrace(struct qz *q, const char *a);
int cmd_frame(struct qz *q, const char *a);
int cmd_info_frame(struct qz *q, const char *a);
int cmd_up(struct qz *q, const char *a);
int cmd_down(struct qz *q, const char *a);

/* cmd-data.c */
struct frame;
struct sbuf;
int cmd_frame_vars(struct qz *q, const struct frame *f, bool params, int indent,
		   struct sbuf *out);
int cmd_print(struct qz *q, const char *a);
int cmd_call(struct qz *q, const char *a);
int cmd_set_unwindonsignal(struct qz *q, const char *a);
int cmd_show_unwindonsignal(struct qz *q, const char *a);
int cmd_output(struct qz *q, const char *a);
/* cmd-sym.c */
int cmd_info_symbol(struct qz *q, const char *a);
int cmd_info_address(struct qz *q, const char *a);
int cmd_info_scope(struct qz *q, const char *a);
int cmd_info_registers(struct qz *q, const char *a);
int cmd_info_all_registers(struct qz *q, const char *a);
int cmd_info_locals(struct qz *q, const char *a);
int cmd_info_args(struct qz *q, const char *a);

/* cmd-inspect.c */
int cmd_whatis(struct qz *q, const char *a);
int cmd_ptype(struct qz *q, const char *a);
int cmd_x(struct qz *q, const char *a);
int cmd_display(struct qz *q, const char *a);
int cmd_undisplay(struct qz *q, const char *a);
int cmd_info_display(struct qz *q, const char *a);
int cmd_set_var(struct qz *q, const char *a);
void cmd_show_displays(struct qz *q);

/* cmd-src.c */
int cmd_list(struct qz *q, const char *a);
int cmd_info_line(struct qz *q, const char *a);
int cmd_info_source(struct qz *q, const char *a);
int cmd_disassemble(struct qz *q, const char *a);

/* cmd-solib.c */
int cmd_info_sharedlibrary(struct qz *q, const char *a);
int cmd_maint_debug_files(struct qz *q, const char *a);
int cmd_set_breakpoint(struct qz *q, const char *a);
int cmd_set_debug_file_directory(struct qz *q, const char *a);
int cmd_show_debug_file_directory(struct qz *q, const char *a);

/* cmd-thread.c */
int cmd_info_threads(struct qz *q, const char *a);
int cmd_thread(struct qz *q, const char *a);
int cmd_thread_apply(struct qz *q, const char *a);
int cmd_set_follow_fork_mode(struct qz *q, const char *a);
int cmd_show_follow_fork_mode(struct qz *q, const char *a);

/* cmd-watch.c */
int cmd_watch(struct qz *q, const char *a);
int cmd_rwatch(struct qz *q, const char *a);
int cmd_awatch(struct qz *q, const char *a);
int cmd_set_can_use_hw_watchpoints(struct qz *q, const char *a);
int cmd_show_can_use_hw_watchpoints(struct qz *q, const char *a);

/* cmd-misc.c */
int cmd_help(struct qz *q, const char *a);
int cmd_info(struct qz *q, const char *a);
int cmd_info_signals(struct qz *q, const char *a);
int cmd_info_program(struct qz *q, const char *a);
int cmd_handle(struct qz *q, const char *a);
int cmd_set(struct qz *q, const char *a);
int cmd_set_args(struct qz *q, const char *a);
int cmd_set_listsize(struct qz *q, const char *a);
int cmd_set_print(struct qz *q, const char *a);
int cmd_set_cpu_pinning(struct qz *q, const char *a);
int cmd_set_confirm(struct qz *q, const char *a);
int cmd_show(struct qz *q, const char *a);
int cmd_show_args(struct qz *q, const char *a);
int cmd_echo(struct qz *q, const char *a);
int cmd_set_ignored(struct qz *q, const char *a);

#endif
