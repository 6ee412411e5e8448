/* status: the status line (see status.c). */
#ifndef TUI_STATUS_H
#define TUI_STATUS_H

struct tui;
struct _win_st;

/* Long recordings and slices report their progress in the status line
 * (the recorder would print it on stderr, under curses). */
void tui_status_progress_install(struct tui *t);
/* After each command: read the program's state from the engine. */
void tui_status_update(struct tui *t);
/* Draw it from that copy (the runner thread draws too). */
void tui_status_draw(struct tui *t, struct _win_st *w);

#endif
