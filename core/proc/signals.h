/* signals: names, descriptions and the `handle` table (stop, print, pass)
 * with gdb's defaults. */
#ifndef QZ_SIGNALS_H
#define QZ_SIGNALS_H

#include <stdbool.h>

#define SIG_MAX 65

struct sig_action {
	bool stop, print, pass;
};

struct sig_table {
	struct sig_action act[SIG_MAX];
};

void sig_table_init(struct sig_table *t);
/* "SIGSEGV" for 11; "SIG37" for realtime signals without a name. */
const char *sig_name(int sig);
/* "Segmentation fault" as gdb words it. */
const char *sig_desc(int sig);
/* Parse "SIGSEGV", "segv", "11"; 0 if unknown. */
int sig_parse(const char *s);

#endif
