/* cmd-ui: table entries for the full-screen UI's commands, forwarded to
 * the implementation the UI installed in q->ui (see cmd-ui.h). */
#include "target/session.h"
#include "cmd-ui.h"

static int cmd_ui(struct qz *q, const char *name, const char *a)
{
	if (!q->ui || !q->ui->cmd)
		return qz_error(q, "\"%s\" works only in the full-screen UI.", name);
	return q->ui->cmd(q, name, a);
}

int cmd_ui_tui(struct qz *q, const char *a)
{
	return cmd_ui(q, "tui", a);
}

int cmd_ui_pane(struct qz *q, const char *a)
{
	return cmd_ui(q, "pane", a);
}

int cmd_ui_theme(struct qz *q, const char *a)
{
	return cmd_ui(q, "theme", a);
}

int cmd_ui_bind(struct qz *q, const char *a)
{
	return cmd_ui(q, "bind", a);
}

int cmd_ui_color(struct qz *q, const char *a)
{
	return cmd_ui(q, "color", a);
}
