/* fuzz_qzs: libFuzzer harness for the session-file parser. Every input
 * either parses or is refused with a message naming a line; a parsed file
 * is then walked the way a replay reads it: its arguments (every "#@ arg"
 * line once corrupted memory), its outputs compared and sanitised for the
 * terminal. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/qzs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512];
	struct qzs_file *f = qzs_parse_text((const char *)data, size, "fuzz.qzs", err, sizeof err);
	if (!f) {
		if (!strstr(err, "fuzz.qzs:"))
			abort();   /* every refusal names the file and the line */
		return 0;
	}
	size_t total = 0;
	for (size_t i = 0; i < f->n; i++) {
		total += strlen(f->entries[i].cmd) + strlen(f->entries[i].output);
		if (f->entries[i].comment)
			total += strlen(f->entries[i].comment);
		(void)qzs_output_matches(f->entries[i].output, f->entries[i].cmd);
	}
	for (size_t i = 0; i < f->nargs; i++)
		total += strlen(f->args[i]);
	struct sbuf b = {0};
	for (size_t i = 0; i < f->n; i++)
		str_sanitize(&b, f->entries[i].output, strlen(f->entries[i].output));
	sbuf_free(&b);
	char *prog = qzs_program_path(f);
	free(prog);
	qzs_file_free(f);
	return total > size * 2 ? 1 : 0;
}
