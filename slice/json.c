/* json: escaping and the --json flag for the slice commands (json.h). */
#include "json.h"

#include <stdio.h>
#include <string.h>

#include "target/session.h"

void js_str(struct sbuf *b, const char *s)
{
	sbuf_addc(b, '"');
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			sbuf_printf(b, "\\%c", c);
		else if (c == '\n')
			sbuf_add(b, "\\n");
		else if (c == '\t')
			sbuf_add(b, "\\t");
		else if (c < 0x20)
			sbuf_printf(b, "\\u%04x", c);
		else
			sbuf_addc(b, (char)c);
	}
	sbuf_addc(b, '"');
}

bool js_flag(char *args)
{
	size_t n = strlen(args);
	while (n && (args[n - 1] == ' ' || args[n - 1] == '\t'))
		args[--n] = 0;
	if (n < 6 || strcmp(args + n - 6, "--json") != 0 ||
	    (n > 6 && args[n - 7] != ' ' && args[n - 7] != '\t'))
		return false;
	args[n -= 6] = 0;
	while (n && (args[n - 1] == ' ' || args[n - 1] == '\t'))
		args[--n] = 0;
	return true;
}

void js_lines(struct sbuf *b, const char *key, const char *text)
{
	sbuf_printf(b, "{\"%s\": [", key);
	for (const char *p = text, *nl; p && *p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		char line[4096];
		snprintf(line, sizeof line, "%.*s", (int)(nl ? nl - p : (long)strlen(p)), p);
		if (p != text)
			sbuf_add(b, ", ");
		js_str(b, line);
		if (!nl)
			break;
	}
	sbuf_add(b, "]}\n");
}
