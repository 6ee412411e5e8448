/* uicmd: the UI's side of the commands core forwards through q->ui
 * (tui ACTION, pane, theme, bind, color). */
#ifndef TUI_UICMD_H
#define TUI_UICMD_H

struct tui;

/* Install them for t's session (q->ui). */
void tui_uicmd_install(struct tui *t);

#endif
