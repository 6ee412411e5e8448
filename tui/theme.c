/* theme: element colours and theme files (see theme.h). A theme is an
 * array of {fg, bg, attrs} indexed by element; loading parses into a copy
 * and swaps it in only when the whole file is good. */
#include "theme.h"

#include <curses.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"

#define COLOR_DEFAULT (-1)

struct elem_style {
	short fg, bg;             /* -1 terminal default, 0-255 */
	unsigned attrs;           /* A_BOLD | A_REVERSE ... */
};

static const char *const elem_names[] = {
#define TUI_ELEM_NAME(id, name) name,
	TUI_ELEMENTS(TUI_ELEM_NAME)
#undef TUI_ELEM_NAME
};

static struct elem_style theme[TUI_EL_COUNT];
static unsigned attr_cache[TUI_EL_COUNT];
static char theme_name[64] = "default";
static bool theme_mono;          /* NO_COLOR or no colours: attributes only */

/* The built-in default, the same as themes/default.theme. */
static const char *const default_lines[] = {
	"title white blue", "title-focus black cyan bold", "status black white",
	"lineno yellow default", "cursor default color236", "current black green bold",
	"bp-enabled bright-red default bold", "bp-disabled color244 default",
	"mark bright-magenta default bold", "prompt cyan default bold", "error bright-red default bold",
	"warning yellow default", "echo cyan default", "output default default",
	"search-match black yellow", "help default default", "slice black yellow",
	"alter-mark cyan default bold", "caption black cyan bold", "default default default",
	"changed bright-yellow default bold", "heading cyan default bold",
	"chain black cyan",
};

static const char *const color_names[] = {
	"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white", NULL,
};

static int parse_color(const char *s)
{
	if (!strcmp(s, "default"))
		return COLOR_DEFAULT;
	for (int i = 0; color_names[i]; i++)
		if (!strcmp(s, color_names[i]))
			return i;
	if (!strncmp(s, "bright-", 7))
		for (int i = 0; color_names[i]; i++)
			if (!strcmp(s + 7, color_names[i]))
				return i + 8;
	if (!strncmp(s, "color", 5) && s[5]) {
		char *end;
		long n = strtol(s + 5, &end, 10);
		if (!*end && n >= 0 && n < 256)
			return (int)n;
	}
	return INT_MIN;
}

static unsigned parse_attr(const char *s)
{
	static const struct { const char *name; unsigned attr; } attrs[] = {
		{"bold", A_BOLD}, {"underline", A_UNDERLINE}, {"reverse", A_REVERSE},
		{"dim", A_DIM}, {"standout", A_STANDOUT}, {"italic", A_ITALIC},
		{"blink", A_BLINK}, {"normal", A_NORMAL},
	};
	for (size_t i = 0; i < sizeof attrs / sizeof *attrs; i++)
		if (!strcmp(s, attrs[i].name))
			return attrs[i].attr;
	return ~0u;
}

static int elem_lookup(const char *s)
{
	for (int i = 0; i < TUI_EL_COUNT; i++)
		if (!strcmp(elem_names[i], s))
			return i;
	return -1;
}

/* Parse "ELEMENT FG BG [ATTRS]" into th. */
static int theme_parse(struct elem_style *th, const char *args, char *err, size_t n)
{
	char w[8][32];
	int nw = 0;
	const char *s = str_skip_space(args);
	while (*s && nw < 8) {
		size_t l = strcspn(s, " \t\r\n");
		snprintf(w[nw++], sizeof w[0], "%.*s", (int)l, s);
		s = str_skip_space(s + l);
	}
	if (nw < 3)
		return snprintf(err, n, "usage: color ELEMENT FG BG [ATTRS...]"), -1;
	int e = elem_lookup(w[0]), fg = parse_color(w[1]), bg = parse_color(w[2]);
	if (e < 0)
		return snprintf(err, n, "unknown element '%s'", w[0]), -1;
	if (fg == INT_MIN || bg == INT_MIN)
		return snprintf(err, n, "unknown colour '%s' (black..white, bright-NAME, "
				"colorN, default)", fg == INT_MIN ? w[1] : w[2]), -1;
	unsigned attrs = 0;
	for (int i = 3; i < nw; i++) {
		unsigned a = parse_attr(w[i]);
		if (a == ~0u)
			return snprintf(err, n, "unknown attribute '%s'", w[i]), -1;
		attrs |= a;
	}
	th[e] = (struct elem_style){(short)fg, (short)bg, attrs};
	return 0;
}

void tui_theme_init(bool mono)
{
	char err[128];
	theme_mono = mono;
	for (int i = 0; i < TUI_EL_COUNT; i++)
		theme[i] = (struct elem_style){COLOR_DEFAULT, COLOR_DEFAULT, 0};
	for (size_t i = 0; i < sizeof default_lines / sizeof *default_lines; i++)
		theme_parse(theme, default_lines[i], err, sizeof err);
	snprintf(theme_name, sizeof theme_name, "default");
}

int tui_theme_color(const char *args, char *err, size_t errlen)
{
	if (theme_parse(theme, args, err, errlen) < 0)
		return -1;
	tui_theme_apply();
	return 0;
}

const char *tui_theme_dir(void)
{
	static char dir[PATH_MAX];
	return dir[0] ? dir : path_beside_exe("themes", dir, sizeof dir);
}

static int theme_read(FILE *f, const char *path, struct elem_style *th,
		      char *err, size_t errlen)
{
	char line[256], why[160];
	for (int ln = 1; fgets(line, sizeof line, f); ln++) {
		const char *s = str_skip_space(line);
		if (!*s || *s == '#' || *s == '\n')
			continue;
		if (strncmp(s, "color ", 6) && strncmp(s, "colour ", 7)) {
			snprintf(err, errlen, "%s:%d: expected 'color ELEMENT FG BG [ATTRS]'",
				 path, ln);
			return -1;
		}
		if (theme_parse(th, s + strcspn(s, " "), why, sizeof why) < 0) {
			snprintf(err, errlen, "%s:%d: %s", path, ln, why);
			return -1;
		}
	}
	return 0;
}

int tui_theme_load(const char *name, char *err, size_t errlen)
{
	struct elem_style th[TUI_EL_COUNT];
	if (!*name || strchr(name, '/'))
		return snprintf(err, errlen, "bad theme name '%s'", name), -1;
	char *path = xasprintf("%s/%s.theme", tui_theme_dir(), name);
	FILE *f = fopen(path, "re");
	if (!f) {
		snprintf(err, errlen, "cannot open theme '%s' (%s: %s); keeping '%s'",
			 name, path, strerror(errno), theme_name);
		free(path);
		return -1;
	}
	for (int i = 0; i < TUI_EL_COUNT; i++)
		th[i] = (struct elem_style){COLOR_DEFAULT, COLOR_DEFAULT, 0};
	int r = theme_read(f, path, th, err, errlen);
	fclose(f);
	free(path);
	if (r < 0)
		return -1;
	memcpy(theme, th, sizeof theme);
	snprintf(theme_name, sizeof theme_name, "%s", name);
	tui_theme_apply();
	return 0;
}

const char *tui_theme_name(void)
{
	return theme_name;
}

/* A colour the terminal can show: 256-colour values fold to the 8 basic
 * ones (bright ones and the colour cube by their strongest channels). */
static short theme_fold(short c, unsigned *attrs)
{
	if (c < 8 || COLORS >= 256)
		return c;
	if (c < 16) {
		*attrs |= A_BOLD;
		return (short)(c - 8);
	}
	if (c >= 232)
		return c >= 244 ? COLOR_WHITE : COLOR_BLACK;
	int v = c - 16, r = v / 36, g = v / 6 % 6, b = v % 6;
	int hi = r > g ? (r > b ? r : b) : (g > b ? g : b);
	if (hi < 2)
		return COLOR_BLACK;
	return (short)((r * 2 >= hi * 2 && r >= hi) | (g >= hi) << 1 | (b >= hi) << 2);
}

void tui_theme_apply(void)
{
	bool color = !theme_mono && has_colors();
	for (int i = 0; i < TUI_EL_COUNT; i++) {
		unsigned a = theme[i].attrs;
		if (color) {
			short fg = theme_fold(theme[i].fg, &a), bg = theme_fold(theme[i].bg, &(unsigned){0});
			init_pair((short)(i + 1), fg, bg);
			a |= (unsigned)COLOR_PAIR(i + 1);
		}
		attr_cache[i] = a;
	}
}

unsigned tui_theme_attr(enum tui_elem e)
{
	return attr_cache[e];
}
