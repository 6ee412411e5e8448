/* fuzz_spec: libFuzzer harness for the detector rule language
 * (detect/spec.c). The input is a spec file's bytes (NULs included); it
 * parses or is refused with a "WHERE:LINE:COL: " message, never crashes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect/spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct spec *s = NULL;
	char err[256] = "";
	if (spec_parse((const char *)data, size, "f", &s, err, sizeof err) == 0) {
		if (!s->name || !s->nrules)
			abort();
		spec_free(s);
	} else if (strncmp(err, "f:", 2) != 0) {
		abort();   /* every refusal says where */
	}
	return 0;
}
