/* cmd-table: every command qzdb has, in one table. Help, completion and
 * dispatch all read it; handlers live next to the module they drive. */
#include <stddef.h>

#include "cmd.h"
#include "cmds.h"
#include "alter/cmd-alter.h"
#include "ckpt/cmd-ckpt.h"
#include "slice/cmd-slice.h"
#include "slice/explain.h"
#include "cmd-ui.h"

#define P CMD_NEEDS_PROCESS
#define S CMD_NEEDS_STACK
#define F CMD_NEEDS_FRAME
#define R CMD_NEEDS_REGS
#define Y CMD_REPLAY_SAFE   /* may run in a replayed session file (cmd.h) */

const struct cmd_def cmd_table[] = {
	/* running */
	{"run", "r", "run [ARGS...] [<IN] [>OUT]", Y, cmd_run_prog,
	 "Start the program (again), with ARGS and redirections if given.",
	 "Without ARGS the previous arguments are used. A running program is\n"
	 "killed and started afresh."},
	{"start", NULL, "start [ARGS...]", Y, cmd_start,
	 "Start the program and stop at the beginning of main.", NULL},
	{"continue", "c cont fg", "continue [N]", P | Y, cmd_continue,
	 "Continue the program; with N, ignore this breakpoint N-1 more times.", NULL},
	{"next", "n", "next [N]", P | Y, cmd_next,
	 "Step to the next source line, stepping over calls.", NULL},
	{"step", "s", "step [N]", P | Y, cmd_step,
	 "Step to the next source line, entering calls that have line information.", NULL},
	{"stepi", "si", "stepi [N]", P | Y, cmd_stepi,
	 "Execute one machine instruction (N instructions).", NULL},
	{"nexti", "ni", "nexti [N]", P | Y, cmd_nexti,
	 "Execute one machine instruction, stepping over calls.", NULL},
	{"finish", "fin", "finish", P | Y, cmd_finish,
	 "Run until the selected frame returns; print the returned value.", NULL},
	{"until", "u", "until [LOCATION]", P | Y, cmd_until,
	 "Step past the current line without going back in loops, or run to LOCATION.", NULL},
	{"advance", NULL, "advance LOCATION", P | Y, cmd_advance,
	 "Run until LOCATION is reached or the current frame returns.", NULL},
	{"kill", "k", "kill", P | Y, cmd_kill, "Kill the program being debugged.", NULL},
	{"detach", NULL, "detach", P | Y, cmd_detach,
	 "Detach from the program, removing every breakpoint; it runs on.", NULL},
	{"quit", "q exit", "quit", Y, cmd_quit,
	 "Kill the program (if any) and leave qzdb.",
	 "A process that was attached to is detached instead and runs on."},

	/* shared libraries and attach (core/target/solib.c) */
	{"attach", NULL, "attach PID", 0, cmd_attach,
	 "Attach to the running process PID; it stops where it is.",
	 "The program is read from /proc/PID/exe unless one is loaded, its\n"
	 "libraries from the dynamic linker's link map. `detach` or `quit`\n"
	 "leave it running; `kill` kills it."},
	{"info sharedlibrary", "dll shared", NULL, Y, cmd_info_sharedlibrary,
	 "The shared libraries loaded, with their code ranges.",
	 "Syms Read \"Yes (*)\": the library has no line information (a\n"
	 "stripped system library: its symbols, also those of its separate\n"
	 "debug file, are read, but not that file's line tables)."},
	{"set breakpoint", NULL, "set breakpoint pending on|off|auto", Y, cmd_set_breakpoint,
	 "Whether `break` on an unknown function makes it pending.",
	 "on: the breakpoint waits for a shared library that defines it and is\n"
	 "placed when one loads (dlopen too); it goes back to pending when the\n"
	 "library is unloaded. off and auto (the default, as gdb in batch mode)\n"
	 "refuse it with an error."},
	{"set debug-file-directory", NULL, "set debug-file-directory DIR", 0,
	 cmd_set_debug_file_directory,
	 "Where separate debug files are found (DIR/.build-id/xx/rest.debug).",
	 "Default /usr/lib/debug (libc6-dbg). A library's separate debug file gives\n"
	 "its full symbol table (libc's local functions such as _int_free); its\n"
	 "line tables are not read yet. Applies to libraries loaded afterwards."},
	{"show debug-file-directory", NULL, NULL, Y, cmd_show_debug_file_directory,
	 "Where separate debug files are found.", NULL},

	/* breakpoints */
	{"break", "b br brea", "break [LOCATION] [if CONDITION]", Y, cmd_break,
	 "Set a breakpoint at LOCATION: FILE:LINE, LINE, FUNCTION, FILE:FUNCTION or *ADDRESS.",
	 "With a condition the program stops only when CONDITION (a C expression\n"
	 "over locals, globals and $registers) is true.\n"
	 "On a function, call conditions stop at the call site in the caller:\n"
	 "  break FUNC if argN==V     argument N (1-6, System V registers) is V\n"
	 "  break FUNC if ret==V      the call returned V\n"
	 "  break FUNC if write|read|access ADDR [SIZE]\n"
	 "                            the call (and what it calls) touched that memory\n"
	 "V and ADDR are expressions, evaluated when the breakpoint is set (before\n"
	 "`run`: at the first call)."},
	{"tbreak", "tb", "tbreak [LOCATION] [if CONDITION]", Y, cmd_tbreak,
	 "Set a temporary breakpoint: deleted when hit.", NULL},
	{"delete", "d", "delete [N...]", Y, cmd_delete,
	 "Delete breakpoints N (ranges like 2-4 allowed), or all of them.", NULL},
	{"disable", "dis disa", "disable [N...]", Y, cmd_disable,
	 "Disable breakpoints N, or all of them.", NULL},
	{"enable", "en", "enable [N...]", Y, cmd_enable,
	 "Enable breakpoints N, or all of them.", NULL},
	{"condition", NULL, "condition N [EXPR]", Y, cmd_condition,
	 "Stop at breakpoint N only if EXPR is true; no EXPR removes the condition.", NULL},
	{"ignore", NULL, "ignore N COUNT", Y, cmd_ignore,
	 "Ignore the next COUNT crossings of breakpoint N.", NULL},

	/* watchpoints (core/target/watch.c) */
	{"watch", NULL, "watch [-l|-location] EXPR [if CONDITION]", Y, cmd_watch,
	 "Stop when the value of EXPR changes.",
	 "Uses the x86 debug registers (4 of them, 1 to 8 bytes each); when none\n"
	 "is free, a software watchpoint single-steps the program. With -location\n"
	 "the address EXPR has now is watched, whatever EXPR means later. A\n"
	 "watchpoint on local variables is deleted when their frame returns."},
	{"rwatch", NULL, "rwatch EXPR [if CONDITION]", Y, cmd_rwatch,
	 "Stop when EXPR is read.",
	 "x86 cannot watch reads alone: an access that changed the value counts\n"
	 "as a write and is not reported, as in gdb."},
	{"awatch", NULL, "awatch EXPR [if CONDITION]", Y, cmd_awatch,
	 "Stop when EXPR is read or written.", NULL},

	/* stack */
	{"backtrace", "bt where", "backtrace [N] [full]", S | Y, cmd_backtrace,
	 "Print the call stack (the innermost N frames).", NULL},
	{"frame", "f", "frame [N]", S | Y, cmd_frame, "Select and print frame N.", NULL},
	{"up", NULL, "up [N]", S | Y, cmd_up, "Select the frame N levels up (the caller).", NULL},
	{"down", "do", "down [N]", S | Y, cmd_down, "Select the frame N levels down.", NULL},

	/* data */
	{"print", "p inspect", "print[/FMT] EXPR", Y, cmd_print,
	 "Evaluate a C expression and print its value.",
	 "FMT is one of x d u o t c a s z. The value is recorded as $N."},

	{"whatis", NULL, "whatis EXPR|TYPE", Y, cmd_whatis,
	 "Print the type of an expression or the name a type stands for.", NULL},
	{"ptype", NULL, "ptype EXPR|TYPE", Y, cmd_ptype,
	 "Print a type in full: struct, union and enum members spelled out.", NULL},
	{"x", NULL, "x[/NFU] ADDRESS", Y, cmd_x,
	 "Examine memory: N units of size U (b h w g) in format F (x d u o t a c f s i).",
	 "With no address, x continues after the last one it showed."},
	{"display", "disp", "display[/FMT] EXPR", Y, cmd_display,
	 "Print EXPR now and each time the program stops.", NULL},
	{"undisplay", NULL, "undisplay [N...]", Y, cmd_undisplay,
	 "Stop displaying expressions N (all if none given).", NULL},

	/* source */
	{"list", "l", "list [LOCATION | FIRST,LAST | -]", Y, cmd_list,
	 "List source lines around LOCATION, or the next lines.", NULL},
	{"disassemble", NULL, "disassemble[/r] [FUNCTION | ADDRESS | START,END | START,+LEN]", Y,
	 cmd_disassemble, "Disassemble a function or an address range.", NULL},

	/* signals, settings, misc */
	{"handle", NULL, "handle SIGNAL [stop|nostop|print|noprint|pass|nopass]...", Y,
	 cmd_handle, "Say what to do when the program receives SIGNAL.", NULL},
	{"help", "h", "help [COMMAND]", Y, cmd_help, "Describe commands.", NULL},
	{"echo", NULL, "echo TEXT", Y, cmd_echo, "Print TEXT (\\n for a newline).", NULL},

	{"save", NULL, "save SUBCOMMAND", CMD_PREFIX, NULL,
	 "Save things to a file: save session FILE.", NULL},
	{"save session", NULL, "save session FILE", 0, cmd_save_session,
	 "Write the commands so far and what they printed to FILE (a .qzs session).",
	 "The file can be annotated with # comments and replayed with\n"
	 "qzdb --replay FILE [--step] [--check]."},

	/* alter/: switch, suppress, instances */
	{"switch", NULL, "switch FILE:LINE [all|once|N]", Y, cmd_switch,
	 "Invert the branch on a line: every instance, the next one, or the N-th.",
	 "The line's condition is evaluated as usual, then control goes to the\n"
	 "line's other exit (so `if (a && b)` and loop tests switch as a whole).\n"
	 "The line must have exactly two exits, or (a `?:`, a one-line if) one\n"
	 "exit and a condition with two outcomes. Shown by info breakpoints;\n"
	 "delete, disable and enable work on it."},
	{"suppress", NULL, "suppress FILE:LINE [all|once|N]", Y, cmd_suppress,
	 "Skip the statement on a line (a call with its argument set-up).",
	 "For the selected instances the pc moves to where the next statement\n"
	 "starts; the stack stays balanced."},
	{"instance", NULL, "instance FILE:LINE [watch]", Y, cmd_instance,
	 "Show how many times a statement has started executing in this run.",
	 "Counts are exact for lines a switch, suppression or watch covers from\n"
	 "the start of the run; `watch` starts counting (one trap per execution)."},
	/* end alter/ */
	{"info", "i inf", "info SUBCOMMAND", CMD_PREFIX | Y, cmd_info,
	 "Show things about the program being debugged.", NULL},
	{"info breakpoints", "b break", NULL, Y, cmd_info_breakpoints,
	 "List breakpoints with their conditions and hit counts.", NULL},
	{"info watchpoints", NULL, NULL, Y, cmd_info_watchpoints,
	 "List watchpoints with their conditions and hit counts.", NULL},
	{"info line", NULL, "info line [LOCATION]", Y, cmd_info_line,
	 "Show where the code of a source line starts and ends.", NULL},
	{"info source", NULL, NULL, Y, cmd_info_source,
	 "Describe the current source file.", NULL},
	{"info signals", "handle", "info signals [SIGNAL]", Y, cmd_info_signals,
	 "What qzdb does when the program receives each signal.", NULL},
	{"info registers", "r", "info registers [REG...]", R | Y, cmd_info_registers,
	 "General registers of the selected frame.", NULL},
	{"info all-registers", NULL, "info all-registers", R | Y, cmd_info_all_registers,
	 "All registers: general, x87, SSE, AVX and AVX-512 state.", NULL},
	{"info locals", NULL, NULL, F | Y, cmd_info_locals,
	 "Local variables of the selected frame.", NULL},
	{"info args", NULL, NULL, F | Y, cmd_info_args,
	 "Arguments of the selected frame.", NULL},
	{"info frame", "f", NULL, S | Y, cmd_info_frame,
	 "Describe the selected frame: its CFA, saved pc, caller and callee.", NULL},
	{"info display", NULL, NULL, Y, cmd_info_display,
	 "Expressions displayed at each stop.", NULL},
	{"info platform", NULL, NULL, Y, cmd_info_platform,
	 "What this CPU, kernel and hypervisor really do, and the fallbacks used.",
	 "Found by a probe at the first need: whether debug-register watchpoints\n"
	 "really trap, whether single steps over cpuid and kin stop on time,\n"
	 "userfaultfd write-protect and PAGEMAP_SCAN, the XSAVE layout, AVX-512,\n"
	 "Landlock and seccomp. Where a capability is missing, the line names the\n"
	 "mechanism qzdb uses instead."},
	{"info program", NULL, NULL, Y, cmd_info_program,
	 "Execution status of the program.", NULL},

	{"set", NULL, "set SETTING VALUE", CMD_PREFIX | Y, cmd_set,
	 "Change a setting.", NULL},
	{"set var", "variable", "set var LVALUE = EXPR", Y, cmd_set_var,
	 "Assign to a variable, register or memory of the program.", NULL},
	{"set args", NULL, "set args [ARGS...]", Y, cmd_set_args,
	 "Arguments for the next run.", NULL},
	{"set listsize", NULL, "set listsize N", Y, cmd_set_listsize,
	 "How many lines list shows.", NULL},
	{"set print", NULL, "set print elements N|unlimited", Y, cmd_set_print,
	 "Printing settings.", NULL},
	{"set cpu-pinning", NULL, "set cpu-pinning on|off", Y, cmd_set_cpu_pinning,
	 "Pin qzdb and the program to one CPU while tracing (faster stops).", NULL},
	{"set sandbox", NULL, "set sandbox on|off", Y, cmd_set_sandbox,
	 "Run the program confined from the next run: writes only under a scratch directory.",
	 "Landlock lets the program read everywhere and write only under the scratch\n"
	 "directory (--scratch DIR, else a fresh one), /dev/null and its terminal; a\n"
	 "seccomp filter denies exec, ptrace, signals to other processes, sockets\n"
	 "(unless --allow-network), mounts and namespaces. Each denied call fails\n"
	 "with EPERM and is reported as [sandbox: denied ...]. Always on in --replay."},
	{"set can-use-hw-watchpoints", NULL, "set can-use-hw-watchpoints 0|1", Y,
	 cmd_set_can_use_hw_watchpoints,
	 "0: watchpoints are software ones (single-stepping), never debug registers.", NULL},
	/* alter/: switch, suppress, instances */
	{"set alter-verbose", NULL, "set alter-verbose on|off", Y, cmd_set_alter_verbose,
	 "Whether a switch or suppression prints a line when it fires.", NULL},
	/* end alter/ */
	{"set confirm", NULL, NULL, CMD_HIDDEN | Y, cmd_set_confirm, "Ask before killing.", NULL},
	{"set pagination", NULL, NULL, CMD_HIDDEN | Y, cmd_set_ignored, "gdb compatibility.", NULL},
	{"set width", NULL, NULL, CMD_HIDDEN | Y, cmd_set_ignored, "gdb compatibility.", NULL},
	{"set height", NULL, NULL, CMD_HIDDEN | Y, cmd_set_ignored, "gdb compatibility.", NULL},
	{"show", NULL, "show SETTING", CMD_PREFIX | Y, cmd_show, "Show a setting.", NULL},
	{"show args", NULL, NULL, Y, cmd_show_args, "Arguments for the next run.", NULL},
	{"show sandbox", NULL, NULL, Y, cmd_show_sandbox,
	 "Whether the program runs sandboxed, and where it may write.", NULL},
	{"show can-use-hw-watchpoints", NULL, NULL, Y, cmd_show_can_use_hw_watchpoints,
	 "Whether watchpoints may use the debug registers.", NULL},

	/* checkpoints (ckpt/) */
	{"checkpoint", NULL, "checkpoint", P | Y, cmd_checkpoint,
	 "Save the program's state; prints Checkpoint N at FILE:LINE (P pages, K KiB).",
	 "No fork: registers, memory map, the writable pages changed since the\n"
	 "previous checkpoint, brk and file offsets are kept by qzdb. Output already\n"
	 "written, shared mappings, sockets, children and threads are not undone."},
	{"rollback", NULL, "rollback N", Y, cmd_rollback,
	 "Put the program back in the state of checkpoint N.",
	 "Works any number of times, also after the program exited or crashed\n"
	 "(it is held while checkpoints exist)."},
	{"cdelete", NULL, "cdelete N", Y, cmd_cdelete, "Delete checkpoint N.", NULL},
	{"info checkpoints", NULL, NULL, Y, cmd_info_checkpoints,
	 "List checkpoints: id, time since start, pages and bytes held, method, place.", NULL},
	{"set checkpoint-interval", NULL, "set checkpoint-interval MS|off", Y,
	 cmd_set_checkpoint_interval, "Take a checkpoint every MS ms while the program runs.", NULL},
	{"set checkpoint-budget", NULL, "set checkpoint-budget MIB|unlimited", Y,
	 cmd_set_checkpoint_budget, "Delete the oldest checkpoints beyond MIB MiB.", NULL},
	{"set checkpoint-method", NULL, "set checkpoint-method auto|pagemap|hash", Y,
	 cmd_set_checkpoint_method, "How checkpoints find changed pages.", NULL},
	{"maint", "mt", "maint SUBCOMMAND", CMD_PREFIX | CMD_HIDDEN | Y, cmd_maint,
	 "Maintenance commands, for tests.", NULL},
	{"maint dump-state", NULL, "maint dump-state FILE", CMD_HIDDEN, cmd_maint_dump_state,
	 "Write registers and every writable private mapping to FILE.", NULL},
	{"maint dump-checkpoint", NULL, "maint dump-checkpoint N FILE", CMD_HIDDEN,
	 cmd_maint_dump_checkpoint, "Write checkpoint N as dump-state would.", NULL},
	{"maint set", NULL, "maint set debug-registers|step-traps on|off", CMD_HIDDEN | Y,
	 cmd_maint_set, "Force a machine capability off, to test its fallback.",
	 "debug-registers off: watchpoints and library-call memory conditions use\n"
	 "page protection, as on machines whose debug registers never trap.\n"
	 "step-traps off: single steps over cpuid, rdtsc, rdtscp, xgetbv, rdpid,\n"
	 "rdrand and rdseed go by a temporary breakpoint on the next instruction,\n"
	 "as on hypervisors that deliver their trap late. `info platform` shows\n"
	 "what the probe found and what is forced."},
	{"maint show", NULL, "maint show debug-registers|step-traps", CMD_HIDDEN | Y,
	 cmd_maint_show, "Whether a machine capability is forced off.", NULL},
	{"maint checkpoint-stats", NULL, NULL, CMD_HIDDEN | Y, cmd_maint_checkpoint_stats,
	 "Time taken by the last checkpoint and rollback.", NULL},
	/* threads and fork (core/target/thread.c) */
	{"info threads", NULL, "info threads", Y, cmd_info_threads,
	 "List the threads: number, LWP, name, innermost frame.", NULL},
	{"thread", NULL, "thread [N] | thread apply all|N... CMD", Y, cmd_thread,
	 "Show or switch the current thread; run a command in threads.",
	 "thread N selects thread N (see info threads) and prints its frame.\n"
	 "thread apply all bt runs bt in every thread, newest first;\n"
	 "thread apply 1 3-4 CMD runs CMD in the listed threads."},
	{"set follow-fork-mode", NULL, "set follow-fork-mode parent|child", Y,
	 cmd_set_follow_fork_mode, "Which process to debug after a fork.",
	 "parent (default): the child is detached, its breakpoints removed.\n"
	 "child: the parent is detached, the child keeps the breakpoints."},
	{"show follow-fork-mode", NULL, NULL, Y, cmd_show_follow_fork_mode,
	 "Which process is debugged after a fork.", NULL},

	/* recording and slicing (slice/cmd-slice.c) */
	{"record", "rec", "record on|off | record FILE:LINE on|off", Y, cmd_record,
	 "Record every instruction the program executes (for slicing).",
	 "While recording is on, continue/next/step/finish execute one instruction\n"
	 "at a time and log each with its statement instance, the registers and\n"
	 "memory it read and wrote. `record FILE:LINE on|off` starts or stops\n"
	 "recording when execution reaches that line."},
	{"info record", "rec", NULL, Y, cmd_info_record,
	 "Recording status: instructions, instances, bytes per instruction.", NULL},
	{"slice", NULL, "slice [FILE:LINE [N]] [VAR | ADDR [SIZE] | $REG]", Y, cmd_slice,
	 "Backward dynamic slice from a statement instance of the recording.",
	 "The criterion defaults to the last statement executed (the crash point\n"
	 "after a crash) and its latest instance; with no variable, everything that\n"
	 "instance used. Prints the slice's number."},
	{"prune", NULL, "prune ID VAR|$REG...", Y, cmd_prune,
	 "Drop a slice's dependences through those variables or registers.", NULL},
	{"deps", NULL, "deps ID FILE:LINE[#N]", Y, cmd_deps,
	 "Dependence edges out of a statement instance of a slice.", NULL},
	{"sbreak", NULL, "sbreak ID S1[,S2...] | sbreak all ID", Y, cmd_sbreak,
	 "Break at a slice's statements, only at their slice instances (next run).", NULL},
	{"snext", NULL, "snext [ID]", P | Y, cmd_snext,
	 "Continue to the next instance of a statement of the slice.", NULL},
	{"sdelete", NULL, "sdelete ID", Y, cmd_sdelete, "Delete a slice.", NULL},
	{"info slices", NULL, NULL, Y, cmd_info_slices, "List the slices.", NULL},
	{"info slice", NULL, "info slice ID", Y, cmd_info_slice,
	 "Members of a slice: one statement a line with its instances.", NULL},
	/* plain-words explanations (slice/explain.c) */
	{"explain", NULL, "explain | explain slice ID | explain ID FILE:LINE[#N]", Y, cmd_explain,
	 "Explain in plain words the last stop, a slice, or a statement's dependences.",
	 "With no argument: why the program stopped (the signal and what it means, where,\n"
	 "the statement, and your call site if it stopped inside a library).\n"
	 "explain slice ID: the chain from the slice's criterion back to its roots.\n"
	 "explain ID FILE:LINE[#N]: what that statement instance used and why it ran."},
	{"set record", NULL, "set record spill BYTES", Y, cmd_set_record,
	 "Keep at most BYTES of recording in memory; the rest goes to a temporary file.", NULL},

	/* full-screen UI (tui/ implements them through q->ui) */
	{"tui", NULL, "tui ACTION [ARGS]", Y, cmd_ui_tui,
	 "Carry out an action of the full-screen UI, as its key would.",
	 "Every key of the full-screen UI runs a command; `tui ACTION` runs the\n"
	 "UI's own actions (toggle-break, search TEXT, goto FILE:LINE, ...).\n"
	 "`tui` alone lists them, and F1 shows them with their keys."},
	{"pane", NULL, "pane show|hide|toggle|size NAME [N]", Y, cmd_ui_pane,
	 "Show, hide or resize a pane of the full-screen UI.",
	 "Side panes: locals, stack, regs, bps, disasm; size also takes cmd and\n"
	 "output (rows) and side (columns)."},
	{"theme", NULL, "theme NAME", 0, cmd_ui_theme,
	 "Load the colour theme themes/NAME.theme.", NULL},
	{"bind", NULL, "bind PANE KEY COMMAND", 0, cmd_ui_bind,
	 "Make KEY run COMMAND in PANE (generic, source, cmd, output, ...).",
	 "Keys: a letter, Space, Enter, Tab, Esc, Backspace, Up, Down, Left,\n"
	 "Right, PgUp, PgDn, Home, End, F1-F12, S-F1-S-F12, C-a-C-z."},
	{"color", "colour", "color ELEMENT FG BG [ATTRS...]", Y, cmd_ui_color,
	 "Set the colours of a UI element (as a theme file line does).", NULL},
	{NULL, NULL, NULL, 0, NULL, NULL, NULL},
};
