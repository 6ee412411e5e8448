/* source: source files read once and kept as arrays of lines, for list and
 * for the line shown at every stop. */
#ifndef QZ_SOURCE_H
#define QZ_SOURCE_H

#include <stdbool.h>

/* The text of line n (1-based) of file without its newline, or NULL if the
 * file cannot be read (errno-style reason in *why) or has fewer lines. */
const char *src_line(const char *path, int n, const char **why);
/* Number of lines of the file; -1 if it cannot be read. */
int src_count(const char *path);
/* The program being debugged (absolute path): relative source paths not
 * found from the current directory are looked for near it. */
void src_set_program(const char *path);
/* Forget cached files (they may have changed on disk). */
void src_flush(void);

#endif
