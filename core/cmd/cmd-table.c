/* cmd-table: core's own commands (running, breakpoints, stack, data,
 * source, settings, threads, the UI's). The command table qzdb runs is
 * assembled from every module's array (cmd.c); this is core's. */
#include <stddef.h>

#include "cmd.h"
#include "cmds.h"
#include "cmd-ui.h"
#include "cmd-flags.h"

const struct cmd_def core_cmds[] = {
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
	{"disable", "dis disa", "disable [N|N.M|N.M-K...]", Y, cmd_disable,
	 "Disable breakpoints N, or locations M..K of breakpoint N alone, or all.", NULL},
	{"enable", "en", "enable [N|N.M|N.M-K...]", Y, cmd_enable,
	 "Enable breakpoints N, or locations M..K of breakpoint N alone, or all.", NULL},
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

	{"call", NULL, "call[/FMT] EXPR", Y, cmd_call,
	 "Call a function of the program and print what it returns.",
	 "As print, but a function that returns nothing prints nothing. Any\n"
	 "expression may call functions of the stopped program (print f(1, x)):\n"
	 "the arguments are converted to the parameters' types and passed as the\n"
	 "x86-64 ABI says, the registers are put back after. If the function stops\n"
	 "on a breakpoint or a signal, the program stays there; `finish` or\n"
	 "`continue` end the call, and with `set unwindonsignal on` a signal ends\n"
	 "it at once."},

	{"output", NULL, "output[/FMT] EXPR", Y, cmd_output,
	 "Print the value of EXPR as print does, with no newline and no $N.",
	 "For scripts and echo lines: the value is not recorded in the history."},
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
	{"caption", NULL, "caption TEXT", Y, cmd_caption,
	 "Write a caption into the session file here (#@ caption): a walkthrough shows it.",
	 "A replay with --step shows the caption while it waits before the next command."},
	{"task", NULL, "task TEXT", Y, cmd_task,
	 "Start an exercise in the session file here (#@ task); then expect, then answer it.",
	 "On replay a student must reach a state where every expectation holds before the\n"
	 "walkthrough goes on; --check checks that the recorded answer reaches it. The\n"
	 "recording writes #@ done after the first command at which they all hold."},
	{"expect", NULL, "expect COMMAND => REGEX", Y, cmd_expect,
	 "What the open task's answer must show: COMMAND's output matches REGEX.",
	 "COMMAND changes nothing (print, info, backtrace, list...), or is `printed`:\n"
	 "what the latest command printed (the student must print it). REGEX is a\n"
	 "POSIX extended regular expression, e.g. expect print e => = 0x0"},

	{"save", NULL, "save SUBCOMMAND", CMD_PREFIX, NULL,
	 "Save things to a file: save session FILE.", NULL},
	{"save session", NULL, "save session FILE", 0, cmd_save_session,
	 "Write the commands so far and what they printed to FILE (a .qzs session).",
	 "The file can be annotated with # comments and replayed with\n"
	 "qzdb --replay FILE [--step] [--check]."},

	{"info", "i inf", "info SUBCOMMAND", CMD_PREFIX | Y, cmd_info,
	 "Show things about the program being debugged.", NULL},
	{"info breakpoints", "b break", NULL, Y, cmd_info_breakpoints,
	 "List breakpoints with their conditions and hit counts.", NULL},
	{"info watchpoints", NULL, NULL, Y, cmd_info_watchpoints,
	 "List watchpoints with their conditions and hit counts.", NULL},
	{"info line", NULL, "info line [LOCATION]", Y, cmd_info_line,
	 "Show where the code of a source line starts and ends.", NULL},
	{"info symbol", NULL, "info symbol ADDR", Y, cmd_info_symbol,
	 "Which symbol an address is in: SYMBOL + OFFSET in section SECTION.",
	 "ADDR is an expression ($pc, &var, a function). With a running program\n"
	 "the object file is named too."},
	{"info address", NULL, "info address SYMBOL", Y, cmd_info_address,
	 "Where a symbol lives: a register, a frame offset, static storage, a function.",
	 "A location that changes along the function is shown range by range\n"
	 "(multi-location), an expression as its DWARF operations."},
	{"info scope", NULL, "info scope LOCATION", Y, cmd_info_scope,
	 "The variables visible at LOCATION and where each lives.",
	 "From the innermost block at LOCATION (after the prologue, as break\n"
	 "places it) out to its function: \"Symbol N is ..., length SIZE.\""},
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
	{"set confirm", NULL, NULL, CMD_HIDDEN | Y, cmd_set_confirm, "Ask before killing.", NULL},
	{"set pagination", NULL, NULL, CMD_HIDDEN | Y, cmd_set_ignored, "gdb compatibility.", NULL},
	{"set width", NULL, NULL, CMD_HIDDEN | Y, cmd_set_ignored, "gdb compatibility.", NULL},
	{"set height", NULL, NULL, CMD_HIDDEN | Y, cmd_set_ignored, "gdb compatibility.", NULL},
	{"show", NULL, "show SETTING", CMD_PREFIX | Y, cmd_show, "Show a setting.", NULL},
	{"show args", NULL, NULL, Y, cmd_show_args, "Arguments for the next run.", NULL},
	{"set unwindonsignal", NULL, "set unwindonsignal on|off", Y, cmd_set_unwindonsignal,
	 "Whether a signal in a function called from an expression ends the call.",
	 "on: the call is abandoned and the registers are put back as before it;\n"
	 "off (the default, as gdb): the program stays where the signal came."},
	{"show unwindonsignal", NULL, NULL, Y, cmd_show_unwindonsignal,
	 "Whether a signal in a called function ends the call.", NULL},
	{"show sandbox", NULL, NULL, Y, cmd_show_sandbox,
	 "Whether the program runs sandboxed, and where it may write.", NULL},
	{"show can-use-hw-watchpoints", NULL, NULL, Y, cmd_show_can_use_hw_watchpoints,
	 "Whether watchpoints may use the debug registers.", NULL},

	{"maint", "mt", "maint SUBCOMMAND", CMD_PREFIX | CMD_HIDDEN | Y, NULL,
	 "Maintenance commands, for tests.", NULL},
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
	{"maint crash-at-breakpoint", NULL, "maint crash-at-breakpoint", CMD_HIDDEN,
	 cmd_maint_crash_at_breakpoint, "Crash qzdb at the next breakpoint trap, for tests.",
	 "qzdb raises SIGSEGV when a thread next stops at one of its int3s,\n"
	 "before it answers the trap: the test that an attached program outlives\n"
	 "qzdb's crash unharmed. Refused in a replayed session."},
	{"maint debug-files", NULL, "maint debug-files", CMD_HIDDEN | Y, cmd_maint_debug_files,
	 "Each library's separate debug file and whether it has been read yet.", NULL},
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
	{"set exec-direction", NULL, "set exec-direction forward|reverse", Y,
	 cmd_set_exec_direction, "Make step, next, stepi, nexti, continue, finish go backwards.",
	 "reverse: while the program is recorded (record on), step, next, stepi, nexti,\n"
	 "continue and finish do what reverse-step, reverse-next... do (those are then\n"
	 "refused, as gdb does); until and advance are refused. Without a recording the\n"
	 "setting is refused; when recording stops it stays, but has no effect."},
	{"show exec-direction", NULL, NULL, Y, cmd_show_exec_direction,
	 "The direction of execution commands: Forward. or Reverse.", NULL},

	/* full-screen UI (tui/ implements them through q->ui) */
	{"tui", NULL, "tui ACTION [ARGS]", Y | CMD_UNRECORDED, cmd_ui_tui,
	 "Carry out an action of the full-screen UI, as its key would.",
	 "Every key of the full-screen UI runs a command; `tui ACTION` runs the\n"
	 "UI's own actions (toggle-break, search TEXT, goto FILE:LINE, ...).\n"
	 "`tui` alone lists them, and F1 shows them with their keys."},
	{"pane", NULL, "pane show|hide|toggle|size NAME [N]", Y | CMD_UNRECORDED, cmd_ui_pane,
	 "Show, hide or resize a pane of the full-screen UI.",
	 "Side panes: locals, stack, regs, bps, disasm, deps, ckpts, slices, chain (a\n"
	 "detector's value propagation chain); size also takes cmd and\n"
	 "output (rows) and side (columns)."},
	{"theme", NULL, "theme NAME", CMD_UNRECORDED, cmd_ui_theme,
	 "Load the colour theme themes/NAME.theme.", NULL},
	{"bind", NULL, "bind PANE KEY COMMAND", CMD_UNRECORDED, cmd_ui_bind,
	 "Make KEY run COMMAND in PANE (generic, source, cmd, output, ...).",
	 "Keys: a letter, Space, Enter, Tab, Esc, Backspace, Up, Down, Left,\n"
	 "Right, PgUp, PgDn, Home, End, F1-F12, S-F1-S-F12, C-a-C-z."},
	{"color", "colour", "color ELEMENT FG BG [ATTRS...]", Y | CMD_UNRECORDED, cmd_ui_color,
	 "Set the colours of a UI element (as a theme file line does).", NULL},
	CMD_END,
};
