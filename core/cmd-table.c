/* cmd-table: every command qzdb has, in one table. Help, completion and
 * dispatch all read it; handlers live next to the module they drive. */
#include <stddef.h>

#include "cmd.h"
#include "cmds.h"
#include "cmd-ui.h"

#define P CMD_NEEDS_PROCESS
#define S CMD_NEEDS_STACK
#define F CMD_NEEDS_FRAME
#define R CMD_NEEDS_REGS

const struct cmd_def cmd_table[] = {
	/* running */
	{"run", "r", "run [ARGS...] [<IN] [>OUT]", 0, cmd_run_prog,
	 "Start the program (again), with ARGS and redirections if given.",
	 "Without ARGS the previous arguments are used. A running program is\n"
	 "killed and started afresh."},
	{"start", NULL, "start [ARGS...]", 0, cmd_start,
	 "Start the program and stop at the beginning of main.", NULL},
	{"continue", "c cont fg", "continue [N]", P, cmd_continue,
	 "Continue the program; with N, ignore this breakpoint N-1 more times.", NULL},
	{"next", "n", "next [N]", P, cmd_next,
	 "Step to the next source line, stepping over calls.", NULL},
	{"step", "s", "step [N]", P, cmd_step,
	 "Step to the next source line, entering calls that have line information.", NULL},
	{"stepi", "si", "stepi [N]", P, cmd_stepi,
	 "Execute one machine instruction (N instructions).", NULL},
	{"nexti", "ni", "nexti [N]", P, cmd_nexti,
	 "Execute one machine instruction, stepping over calls.", NULL},
	{"finish", "fin", "finish", P, cmd_finish,
	 "Run until the selected frame returns; print the returned value.", NULL},
	{"until", "u", "until [LOCATION]", P, cmd_until,
	 "Step past the current line without going back in loops, or run to LOCATION.", NULL},
	{"advance", NULL, "advance LOCATION", P, cmd_advance,
	 "Run until LOCATION is reached or the current frame returns.", NULL},
	{"kill", "k", "kill", P, cmd_kill, "Kill the program being debugged.", NULL},
	{"detach", NULL, "detach", P, cmd_detach,
	 "Detach from the program, removing every breakpoint; it runs on.", NULL},
	{"quit", "q exit", "quit", 0, cmd_quit,
	 "Kill the program (if any) and leave qzdb.", NULL},

	/* breakpoints */
	{"break", "b br brea", "break [LOCATION] [if CONDITION]", 0, cmd_break,
	 "Set a breakpoint at LOCATION: FILE:LINE, LINE, FUNCTION, FILE:FUNCTION or *ADDRESS.",
	 "With a condition the program stops only when CONDITION (a C expression\n"
	 "over locals, globals and $registers) is true."},
	{"tbreak", "tb", "tbreak [LOCATION] [if CONDITION]", 0, cmd_tbreak,
	 "Set a temporary breakpoint: deleted when hit.", NULL},
	{"delete", "d", "delete [N...]", 0, cmd_delete,
	 "Delete breakpoints N (ranges like 2-4 allowed), or all of them.", NULL},
	{"disable", "dis disa", "disable [N...]", 0, cmd_disable,
	 "Disable breakpoints N, or all of them.", NULL},
	{"enable", "en", "enable [N...]", 0, cmd_enable,
	 "Enable breakpoints N, or all of them.", NULL},
	{"condition", NULL, "condition N [EXPR]", 0, cmd_condition,
	 "Stop at breakpoint N only if EXPR is true; no EXPR removes the condition.", NULL},
	{"ignore", NULL, "ignore N COUNT", 0, cmd_ignore,
	 "Ignore the next COUNT crossings of breakpoint N.", NULL},

	/* stack */
	{"backtrace", "bt where", "backtrace [N] [full]", S, cmd_backtrace,
	 "Print the call stack (the innermost N frames).", NULL},
	{"frame", "f", "frame [N]", S, cmd_frame, "Select and print frame N.", NULL},
	{"up", NULL, "up [N]", S, cmd_up, "Select the frame N levels up (the caller).", NULL},
	{"down", "do", "down [N]", S, cmd_down, "Select the frame N levels down.", NULL},

	/* data */
	{"print", "p inspect", "print[/FMT] EXPR", 0, cmd_print,
	 "Evaluate a C expression and print its value.",
	 "FMT is one of x d u o t c a s z. The value is recorded as $N."},

	{"whatis", NULL, "whatis EXPR|TYPE", 0, cmd_whatis,
	 "Print the type of an expression or the name a type stands for.", NULL},
	{"ptype", NULL, "ptype EXPR|TYPE", 0, cmd_ptype,
	 "Print a type in full: struct, union and enum members spelled out.", NULL},
	{"x", NULL, "x[/NFU] ADDRESS", 0, cmd_x,
	 "Examine memory: N units of size U (b h w g) in format F (x d u o t a c f s i).",
	 "With no address, x continues after the last one it showed."},
	{"display", "disp", "display[/FMT] EXPR", 0, cmd_display,
	 "Print EXPR now and each time the program stops.", NULL},
	{"undisplay", NULL, "undisplay [N...]", 0, cmd_undisplay,
	 "Stop displaying expressions N (all if none given).", NULL},

	/* source */
	{"list", "l", "list [LOCATION | FIRST,LAST | -]", 0, cmd_list,
	 "List source lines around LOCATION, or the next lines.", NULL},
	{"disassemble", NULL, "disassemble[/r] [FUNCTION | ADDRESS | START,END | START,+LEN]", 0,
	 cmd_disassemble, "Disassemble a function or an address range.", NULL},

	/* signals, settings, misc */
	{"handle", NULL, "handle SIGNAL [stop|nostop|print|noprint|pass|nopass]...", 0,
	 cmd_handle, "Say what to do when the program receives SIGNAL.", NULL},
	{"help", "h", "help [COMMAND]", 0, cmd_help, "Describe commands.", NULL},
	{"echo", NULL, "echo TEXT", 0, cmd_echo, "Print TEXT (\\n for a newline).", NULL},

	{"info", "i inf", "info SUBCOMMAND", CMD_PREFIX, cmd_info,
	 "Show things about the program being debugged.", NULL},
	{"info breakpoints", "b break", NULL, 0, cmd_info_breakpoints,
	 "List breakpoints with their conditions and hit counts.", NULL},
	{"info line", NULL, "info line [LOCATION]", 0, cmd_info_line,
	 "Show where the code of a source line starts and ends.", NULL},
	{"info source", NULL, NULL, 0, cmd_info_source,
	 "Describe the current source file.", NULL},
	{"info signals", "handle", "info signals [SIGNAL]", 0, cmd_info_signals,
	 "What qzdb does when the program receives each signal.", NULL},
	{"info registers", "r", "info registers [REG...]", R, cmd_info_registers,
	 "General registers of the selected frame.", NULL},
	{"info all-registers", NULL, "info all-registers", R, cmd_info_all_registers,
	 "All registers: general, x87, SSE, AVX and AVX-512 state.", NULL},
	{"info locals", NULL, NULL, F, cmd_info_locals,
	 "Local variables of the selected frame.", NULL},
	{"info args", NULL, NULL, F, cmd_info_args,
	 "Arguments of the selected frame.", NULL},
	{"info frame", "f", NULL, S, cmd_info_frame,
	 "Describe the selected frame: its CFA, saved pc, caller and callee.", NULL},
	{"info display", NULL, NULL, 0, cmd_info_display,
	 "Expressions displayed at each stop.", NULL},
	{"info program", NULL, NULL, 0, cmd_info_program,
	 "Execution status of the program.", NULL},

	{"set", NULL, "set SETTING VALUE", CMD_PREFIX, cmd_set,
	 "Change a setting.", NULL},
	{"set var", "variable", "set var LVALUE = EXPR", 0, cmd_set_var,
	 "Assign to a variable, register or memory of the program.", NULL},
	{"set args", NULL, "set args [ARGS...]", 0, cmd_set_args,
	 "Arguments for the next run.", NULL},
	{"set listsize", NULL, "set listsize N", 0, cmd_set_listsize,
	 "How many lines list shows.", NULL},
	{"set print", NULL, "set print elements N|unlimited", 0, cmd_set_print,
	 "Printing settings.", NULL},
	{"set cpu-pinning", NULL, "set cpu-pinning on|off", 0, cmd_set_cpu_pinning,
	 "Pin qzdb and the program to one CPU while tracing (faster stops).", NULL},
	{"set confirm", NULL, NULL, CMD_HIDDEN, cmd_set_confirm, "Ask before killing.", NULL},
	{"set pagination", NULL, NULL, CMD_HIDDEN, cmd_set_ignored, "gdb compatibility.", NULL},
	{"set width", NULL, NULL, CMD_HIDDEN, cmd_set_ignored, "gdb compatibility.", NULL},
	{"set height", NULL, NULL, CMD_HIDDEN, cmd_set_ignored, "gdb compatibility.", NULL},
	{"show", NULL, "show SETTING", CMD_PREFIX, cmd_show, "Show a setting.", NULL},
	{"show args", NULL, NULL, 0, cmd_show_args, "Arguments for the next run.", NULL},

	/* full-screen UI (tui/ implements them through q->ui) */
	{"tui", NULL, "tui ACTION [ARGS]", 0, cmd_ui_tui,
	 "Carry out an action of the full-screen UI, as its key would.",
	 "Every key of the full-screen UI runs a command; `tui ACTION` runs the\n"
	 "UI's own actions (toggle-break, search TEXT, goto FILE:LINE, ...).\n"
	 "`tui` alone lists them, and F1 shows them with their keys."},
	{"pane", NULL, "pane show|hide|toggle|size NAME [N]", 0, cmd_ui_pane,
	 "Show, hide or resize a pane of the full-screen UI.",
	 "Side panes: locals, stack, regs, bps, disasm; size also takes cmd and\n"
	 "output (rows) and side (columns)."},
	{"theme", NULL, "theme NAME", 0, cmd_ui_theme,
	 "Load the colour theme themes/NAME.theme.", NULL},
	{"bind", NULL, "bind PANE KEY COMMAND", 0, cmd_ui_bind,
	 "Make KEY run COMMAND in PANE (generic, source, cmd, output, ...).",
	 "Keys: a letter, Space, Enter, Tab, Esc, Backspace, Up, Down, Left,\n"
	 "Right, PgUp, PgDn, Home, End, F1-F12, S-F1-S-F12, C-a-C-z."},
	{"color", "colour", "color ELEMENT FG BG [ATTRS...]", 0, cmd_ui_color,
	 "Set the colours of a UI element (as a theme file line does).", NULL},
	{NULL, NULL, NULL, 0, NULL, NULL, NULL},
};
