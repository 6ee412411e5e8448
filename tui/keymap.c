/* keymap: actions, key names and the bindings table (see keymap.h). The
 * default bindings are data, so the help screen lists exactly what the
 * keys do, including the user's own `bind` lines. */
#include "keymap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

static const char *const action_names[] = {
#define TUI_ACT_NAME(id, name, help) name,
	TUI_ACTIONS(TUI_ACT_NAME)
#undef TUI_ACT_NAME
};

static const char *const action_help[] = {
#define TUI_ACT_HELP(id, name, help) help,
	TUI_ACTIONS(TUI_ACT_HELP)
#undef TUI_ACT_HELP
};

/* "generic", the UI's panes (tui_keymap_init), "help", "walk"; NULL ends it. */
#define KEYMAP_MAX_PANES 64
static const char *pane_names[KEYMAP_MAX_PANES + 4];

struct binding {
	int pane;
	int key;
	char *cmd;
};

/* The defaults: pane, key, command. The rule for them (help keys says
 * it): a plain lower-case letter only moves the view (j k g n) or starts
 * the command line; what changes the program or the debugging state is on
 * a function key, a Ctrl- or Alt- key, Space, Enter or Delete. */
static const char *const default_bindings[][3] = {
	{"generic", "F5", "tui run-continue"},
	{"generic", "F10", "next"},
	{"generic", "F11", "step"},
	{"generic", "S-F11", "finish"},
	{"generic", "S-F5", "reverse-continue"},
	{"generic", "S-F10", "reverse-next"},
	{"generic", "S-F12", "reverse-step"},
	{"generic", "S-F8", "reverse-finish"},
	{"generic", "F9", "tui toggle-break"},
	{"generic", "F2", "tui checkpoint"},
	{"generic", "F6", "tui cycle"},
	{"generic", "C-l", "tui redraw"},
	{"generic", "F1", "tui help"},
	{"cmd", "Esc", "tui focus-source"},
	{"cmd", "PgUp", "tui page-up"},
	{"cmd", "PgDn", "tui page-down"},
	{"output", "Esc", "tui focus-source"},
	{"output", "PgUp", "tui page-up"},
	{"output", "PgDn", "tui page-down"},
	{"source", ":", "tui focus-cmd"},
	{"source", "O", "tui focus-output"},
	{"source", "j", "tui line-down"},
	{"source", "Down", "tui line-down"},
	{"source", "k", "tui line-up"},
	{"source", "Up", "tui line-up"},
	{"source", "PgDn", "tui page-down"},
	{"source", "PgUp", "tui page-up"},
	{"source", "g", "tui top"},
	{"source", "G", "tui bottom"},
	{"source", "/", "tui search-prompt"},
	{"source", "?", "tui search-prompt back"},
	{"source", "n", "tui search-next"},
	{"source", "N", "tui search-prev"},
	{"source", "C-p", "tui files"},
	{"source", "Space", "tui toggle-break"},
	{"source", ".", "tui current"},
	{"source", "Enter", "tui focus-cmd"},
	{"source", "Tab", "tui focus-next"},
	{"source", "]", "tui next-member"},
	{"source", "[", "tui prev-member"},
	{"source", "F3", "tui switch-line"},
	{"source", "S-F3", "tui switch-line all"},
	{"source", "F4", "tui suppress-line"},
	{"source", "S-F4", "tui suppress-line all"},
	{"source", "F7", "tui slice-line"},
	{"source", "S-F7", "tui sbreak-line"},
	{"source", "F8", "tui toggle-record"},
	{"source", "I", "tui slice-numbers"},
	{"source", "Backspace", "tui back"},
	{"deps", "Backspace", "tui back"},
	{"generic", "M-Left", "tui back"},
	{"generic", "M-Right", "tui forward"},
	{"deps", "Enter", "tui follow-edge"},
	{"deps", "C-g", "tui goto-instance"},
	{"source", "C-g", "tui goto-instance"},
	{"deps", "Delete", "tui prune-edge"},
	{"deps", "]", "tui next-member"},
	{"deps", "[", "tui prev-member"},
	{"ckpts", "Enter", "tui select"},
	{"ckpts", "Delete", "tui delete-item"},
	{"slices", "Enter", "tui select"},
	{"slices", "Delete", "tui delete-item"},
	{"chain", "Enter", "tui select"},
	{"walk", "Space", "tui walk-next"},
	{"walk", "F5", "tui walk-next"},
	{"walk", "Backspace", "tui walk-back"},
	{"walk", "C-x", "tui walk-stop"},
};

/* Every side pane scrolls with the same keys. */
static const char *const side_bindings[][2] = {
	{"j", "tui line-down"}, {"Down", "tui line-down"}, {"k", "tui line-up"},
	{"Up", "tui line-up"}, {"PgDn", "tui page-down"}, {"PgUp", "tui page-up"},
	{"g", "tui top"}, {"G", "tui bottom"}, {"Tab", "tui focus-next"},
	{"Esc", "tui focus-source"}, {":", "tui focus-cmd"},
};

/* The rule the defaults follow, first in the help. */
static const char tui_keymap_rule[] =
	"The rule: no plain letter changes the program. In the source and side\n"
	"panes a lower-case letter is a view key (j k: line, g G: top/bottom,\n"
	"n N: search again) or starts the command line with itself typed; `:`\n"
	"and Enter open an empty one. Letters typed in a row that begin a\n"
	"command (next, kill, continue) are that command: the view key gives way\n"
	"and the view goes back. What changes the program or the debugging\n"
	"state (run, step, breakpoints, checkpoints, switch, suppress, record,\n"
	"slice, prune, delete, rollback) is on a function key, Space, Enter,\n"
	"Delete or a Ctrl-/Alt- key, and is also a command (tui ACTION).\n"
	"In the command line: Tab completes, Up/Down and C-r search the history,\n"
	"a bare number goes to that line, Esc returns to the source.\n"
	"A walkthrough (--replay --step) waits between its commands: look around\n"
	"with any command that changes nothing (print, info, bt, list, the view\n"
	"keys); its keys (walk:) or Enter on an empty line go on.\n"
	"Instance numbers (#N: the gutter's counts, I, the deps rows) are the\n"
	"ones info slice prints: the N-th execution of the statement.\n";

static struct binding *binds;
static size_t nbinds, binds_cap;

static const struct {
	const char *name;
	int key;
} key_names[] = {
	{"Space", ' '}, {"Enter", TK_ENTER}, {"Tab", TK_TAB}, {"Esc", TK_ESC},
	{"Backspace", TK_BACKSPACE}, {"Up", TK_UP}, {"Down", TK_DOWN},
	{"Left", TK_LEFT}, {"Right", TK_RIGHT}, {"PgUp", TK_PGUP},
	{"PgDn", TK_PGDN}, {"Home", TK_HOME}, {"End", TK_END}, {"Delete", TK_DEL},
	{"M-Left", TK_M_LEFT}, {"M-Right", TK_M_RIGHT},
};

int tui_action_lookup(const char *name)
{
	for (int i = 0; i < TUI_ACT_COUNT; i++)
		if (!strcmp(action_names[i], name))
			return i;
	return -1;
}

const char *tui_action_name(enum tui_action a)
{
	return action_names[a];
}

const char *tui_action_help(enum tui_action a)
{
	return action_help[a];
}

static int key_fn(const char *s)
{
	char *end;
	long n = strtol(s, &end, 10);
	return *end || n < 1 || n > 12 ? -1 : (int)n - 1;
}

int tui_key_parse(const char *name)
{
	for (size_t i = 0; i < sizeof key_names / sizeof *key_names; i++)
		if (!strcasecmp(key_names[i].name, name))
			return key_names[i].key;
	if (name[0] == 'F' && key_fn(name + 1) >= 0)
		return TK_F1 + key_fn(name + 1);
	if (!strncmp(name, "S-F", 3) && key_fn(name + 3) >= 0)
		return TK_SF1 + key_fn(name + 3);
	if (!strncmp(name, "C-", 2) && name[2] >= 'a' && name[2] <= 'z' && !name[3])
		return name[2] - 'a' + 1;
	if ((unsigned char)name[0] > ' ' && (unsigned char)name[0] < 127 && !name[1])
		return (unsigned char)name[0];
	return -1;
}

const char *tui_key_name(int key, char *buf, size_t len)
{
	for (size_t i = 0; i < sizeof key_names / sizeof *key_names; i++)
		if (key_names[i].key == key)
			return key_names[i].name;
	if (key >= TK_F1 && key < TK_SF1)
		snprintf(buf, len, "F%d", key - TK_F1 + 1);
	else if (key >= TK_SF1 && key < TK_LAST)
		snprintf(buf, len, "S-F%d", key - TK_SF1 + 1);
	else if (key >= 1 && key <= 26)
		snprintf(buf, len, "C-%c", 'a' + key - 1);
	else
		snprintf(buf, len, "%c", key);
	return buf;
}

int tui_keymap_pane(const char *name)
{
	for (int i = 0; pane_names[i]; i++)
		if (!strcmp(pane_names[i], name))
			return i;
	return -1;
}

static struct binding *keymap_find(int pane, int key)
{
	for (size_t i = 0; i < nbinds; i++)
		if (binds[i].pane == pane && binds[i].key == key)
			return &binds[i];
	return NULL;
}

int tui_keymap_bind(const char *pane, const char *key, const char *cmd,
		    char *err, size_t errlen)
{
	int p = tui_keymap_pane(pane), k = tui_key_parse(key);
	if (p < 0) {
		size_t n = (size_t)snprintf(err, errlen, "unknown pane '%s' (", pane);
		for (int i = 0; pane_names[i] && n < errlen; i++)
			n += (size_t)snprintf(err + n, errlen - n, "%s%s", i ? ", " : "",
					      pane_names[i]);
		if (n < errlen)
			snprintf(err + n, errlen - n, ")");
		return -1;
	}
	if (k < 0) {
		snprintf(err, errlen, "unknown key name '%s'", key);
		return -1;
	}
	struct binding *b = keymap_find(p, k);
	if (!b) {
		XGROW(binds, binds_cap, nbinds + 1);
		b = &binds[nbinds++];
		*b = (struct binding){p, k, NULL};
	}
	free(b->cmd);
	b->cmd = xstrdup(cmd);
	return 0;
}

void tui_keymap_init(const char *const panes[], const bool side[], int n)
{
	char err[512];
	int k = 0;
	tui_keymap_free();
	pane_names[k++] = "generic";
	for (int i = 0; i < n && i < KEYMAP_MAX_PANES; i++)
		pane_names[k++] = panes[i];
	pane_names[k++] = "help";
	pane_names[k++] = "walk";   /* a walkthrough waiting, in normal mode */
	pane_names[k] = NULL;
	for (size_t i = 0; i < sizeof default_bindings / sizeof *default_bindings; i++)
		tui_keymap_bind(default_bindings[i][0], default_bindings[i][1],
				default_bindings[i][2], err, sizeof err);
	for (int p = 0; p < n; p++)
		for (size_t i = 0; side[p] && i < sizeof side_bindings / sizeof *side_bindings; i++)
			tui_keymap_bind(panes[p], side_bindings[i][0], side_bindings[i][1], err,
					sizeof err);
}

void tui_keymap_free(void)
{
	for (size_t i = 0; i < nbinds; i++)
		free(binds[i].cmd);
	free(binds);
	binds = NULL;
	nbinds = binds_cap = 0;
}

bool tui_keymap_ready(void)
{
	return nbinds > 0;
}

const char *tui_keymap_key_for(const char *pane, const char *cmd, char *buf, size_t len)
{
	int p = tui_keymap_pane(pane);
	for (size_t i = 0; i < nbinds; i++)
		if (binds[i].pane == p && !strcmp(binds[i].cmd, cmd))
			return tui_key_name(binds[i].key, buf, len);
	return NULL;
}

const char *tui_keymap_lookup(int pane, int key)
{
	struct binding *b = keymap_find(pane, key);
	return b && *b->cmd ? b->cmd : NULL;
}

void tui_keymap_help(struct sbuf *b)
{
	char kb[16];
	sbuf_printf(b, "Keys (bind PANE KEY COMMAND changes them; Esc closes this help)\n\n%s",
		    tui_keymap_rule);
	for (int p = 0; pane_names[p]; p++) {
		bool head = false;
		for (size_t i = 0; i < nbinds; i++) {
			if (binds[i].pane != p || !*binds[i].cmd)
				continue;
			if (!head)
				sbuf_printf(b, "\n%s:\n", pane_names[p]);
			head = true;
			sbuf_printf(b, "  %-10s %s\n", tui_key_name(binds[i].key, kb, sizeof kb),
				    binds[i].cmd);
		}
	}
	sbuf_printf(b, "\nActions (tui ACTION):\n");
	for (int i = 0; i < TUI_ACT_COUNT; i++)
		sbuf_printf(b, "  %-14s %s\n", action_names[i], action_help[i]);
	sbuf_printf(b, "\nOther UI commands: pane show|hide|toggle|size NAME [N], "
		    "theme NAME, color ELEMENT FG BG [ATTRS], bind PANE KEY COMMAND\n");
}

/* CSI/SS3 sequences: final byte (and parameter) to key. */
static int key_csi(const char *params, char final)
{
	int n = atoi(params), mod = 0;
	const char *semi = strchr(params, ';');
	if (semi)
		mod = atoi(semi + 1);
	switch (final) {
	case 'A': return TK_UP;
	case 'B': return TK_DOWN;
	case 'C': return mod == 3 ? TK_M_RIGHT : TK_RIGHT;
	case 'D': return mod == 3 ? TK_M_LEFT : TK_LEFT;
	case 'H': return TK_HOME;
	case 'F': return TK_END;
	case 'P': case 'Q': case 'R': case 'S':
		return (mod == 2 ? TK_SF1 : TK_F1) + final - 'P';
	case '~': break;
	default: return -1;
	}
	static const int tilde[][2] = {
		{1, TK_HOME}, {7, TK_HOME}, {4, TK_END}, {8, TK_END}, {3, TK_DEL},
		{5, TK_PGUP}, {6, TK_PGDN}, {15, TK_F1 + 4}, {17, TK_F1 + 5},
		{18, TK_F1 + 6}, {19, TK_F1 + 7}, {20, TK_F1 + 8}, {21, TK_F1 + 9},
		{23, TK_F1 + 10}, {24, TK_F1 + 11},
	};
	for (size_t i = 0; i < sizeof tilde / sizeof *tilde; i++)
		if (tilde[i][0] == n) {
			int k = tilde[i][1];
			return mod == 2 && k >= TK_F1 ? k + 12 : k;
		}
	return -1;
}

static int key_escape(const unsigned char *s, size_t n, size_t *used)
{
	char params[16];
	size_t i = 2, p = 0;
	if (n < 2)
		return *used = 1, TK_ESC;   /* a lone Esc (read in one go) */
	if (s[1] != '[' && s[1] != 'O')
		return *used = 1, TK_ESC;
	while (i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == ';')) {
		if (p + 1 < sizeof params)
			params[p++] = (char)s[i];
		i++;
	}
	if (i >= n)
		return *used = 0, -1;
	params[p] = 0;
	*used = i + 1;
	return key_csi(params, (char)s[i]);
}

static int key_utf8(const unsigned char *s, size_t n, size_t *used)
{
	int len = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc0 ? 2 : 1;
	if ((size_t)len > n)
		return *used = 0, -1;
	int c = len == 1 ? s[0] : s[0] & (0x7f >> len);
	for (int i = 1; i < len; i++)
		c = c << 6 | (s[i] & 0x3f);
	*used = (size_t)len;
	return c;
}

int tui_key_decode(const unsigned char *s, size_t n, size_t *used)
{
	*used = 0;
	if (!n)
		return -1;
	switch (s[0]) {
	case 27: return key_escape(s, n, used);
	case '\r': case '\n': *used = 1; return TK_ENTER;
	case '\t': *used = 1; return TK_TAB;
	case 8: case 127: *used = 1; return TK_BACKSPACE;
	}
	return key_utf8(s, n, used);
}
