/* panes: every pane of the UI, one entry each. Adding a pane is a line
 * here and a file for its type (or a new use of an existing type). The
 * loop iterates this table to lay the panes out, draw them, refresh
 * them after each command and find them by name; the keymap and the
 * `pane` command take their names from it.
 * X(ID, name, type ops, where, rows, title, what it shows):
 *  - where: TUI_MAIN, TUI_BOTTOM (stacked up from the status line in
 *    this order), TUI_SIDE or TUI_SIDE_WIDE (stacked at the right in this
 *    order; WIDE ones shown from the start on 120 columns or more);
 *  - what it shows: commands (separated by ';') whose output the pane
 *    shows, run after each command while the pane is shown; NULL: it
 *    reads the engine. */
#ifndef TUI_PANES_H
#define TUI_PANES_H

#include "pane.h"

#define TUI_PANES(X) \
	X(SOURCE, "source", tui_source_pane, TUI_MAIN, 0, " source", NULL) \
	X(CMD, "cmd", tui_cmd_pane, TUI_BOTTOM, 8, " commands", NULL) \
	X(OUTPUT, "output", tui_output_pane, TUI_BOTTOM, 5, " program output", NULL) \
	X(LOCALS, "locals", tui_info_pane, TUI_SIDE_WIDE, 0, " locals", "info args;info locals") \
	X(STACK, "stack", tui_info_pane, TUI_SIDE_WIDE, 0, " stack", "backtrace") \
	X(REGS, "regs", tui_info_pane, TUI_SIDE, 0, " registers", "info registers") \
	X(BPS, "bps", tui_info_pane, TUI_SIDE, 0, " breakpoints", "info breakpoints") \
	X(DISASM, "disasm", tui_info_pane, TUI_SIDE, 0, " disassembly", "disassemble") \
	X(DEPS, "deps", tui_deps_pane, TUI_SIDE, 0, " deps", NULL) \
	X(CKPTS, "ckpts", tui_ckpts_pane, TUI_SIDE, 0, \
	  " checkpoints (Enter: rollback, d: delete)", "info checkpoints") \
	X(SLICES, "slices", tui_slices_pane, TUI_SIDE, 0, \
	  " slices (Enter: make current, d: delete)", "info slices") \
	X(CHAIN, "chain", tui_chain_pane, TUI_SIDE, 0, \
	  " value propagation chain (Enter: its line)", "info vpc links")

enum tui_pane_id {
#define TUI_PANE_ID(id, name, ops, where, rows, title, shows) TP_##id,
	TUI_PANES(TUI_PANE_ID)
#undef TUI_PANE_ID
	TP_COUNT
};

/* The pane types' ops (pane-*.c). */
#define TUI_PANE_OPS(id, name, ops, where, rows, title, shows) \
	extern const struct tui_pane_ops ops;
TUI_PANES(TUI_PANE_OPS)
#undef TUI_PANE_OPS

extern const struct tui_pane_def tui_panes[TP_COUNT];

#endif
