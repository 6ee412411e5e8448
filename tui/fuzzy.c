/* fuzzy: see fuzzy.h. */
#include "fuzzy.h"

#include <ctype.h>
#include <string.h>
#include <unistd.h>

/* The span of the shortest match of pat in s from each start, or -1. */
static int fuzzy_span(const char *pat, const char *s)
{
	int best = -1;
	for (const char *from = s; *from; from++) {
		if (tolower((unsigned char)*from) != tolower((unsigned char)*pat))
			continue;
		const char *p = pat, *c = from;
		while (*p && *c) {
			if (tolower((unsigned char)*c) == tolower((unsigned char)*p))
				p++;
			c++;
		}
		if (*p)
			break;   /* a later start cannot match either */
		int span = (int)(c - from);
		if (best < 0 || span < best)
			best = span;
	}
	return best;
}

int tui_fuzzy_score(const char *pat, const char *name)
{
	/* a path under the working directory is matched from there: the
	 * directories above it are no part of what the user types (a letter
	 * of /home/NAME would match every file) */
	char cwd[4096];
	size_t cl = getcwd(cwd, sizeof cwd) ? strlen(cwd) : 0;
	if (cl > 1 && name[0] == '/' && strncmp(name, cwd, cl) == 0 && name[cl] == '/')
		name += cl + 1;
	if (cl > 1 && pat[0] == '/' && strncmp(pat, cwd, cl) == 0 && pat[cl] == '/')
		pat += cl + 1;   /* a completed name is matched the same way */
	const char *base = strrchr(name, '/');
	base = base ? base + 1 : name;
	if (!*pat)
		return (int)strlen(base);
	int span = fuzzy_span(pat, base);
	if (span >= 0)   /* tight first, then short names */
		return span * 64 + (int)strlen(base) - (int)strlen(pat);
	span = fuzzy_span(pat, name);
	return span < 0 ? -1 : 1 << 20 | span;
}
