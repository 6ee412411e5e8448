/* tui: the full-screen UI's entry point for main.c. */
#ifndef TUI_TUI_H
#define TUI_TUI_H

#include <stdbool.h>
#include <stddef.h>

struct qz;
struct qzs_file;

struct tui_opts {
	const char *theme;        /* --theme NAME, or NULL */
	const char **cmds;        /* -ex commands to run first ("\1FILE" for -x) */
	size_t ncmds;
	const struct qzs_file *replay;  /* --replay: shown live in the panes */
	bool step;                /* --step: a key before each command */
	int replay_rc;            /* out: the replay's result (0 or 1) */
};

/* Run the UI on the terminal until quit; returns the exit status, or -1
 * (nothing done) if curses cannot drive this terminal. */
int tui_main(struct qz *q, struct tui_opts *o);
/* Make `help keys` print the keymap (from main, before any command). */
void tui_help_keys_install(void);
/* --tui-bench N: the CPU time of N redraws after `next` at 120x40 in a
 * virtual terminal, printed on stdout. */
int tui_bench(struct qz *q, int n);

#endif
