/* progress: one line saying what a long engine command is doing (a
 * reduction's runs, a recording's instructions, a slice's walk). Plain
 * mode prints such lines on stderr; a full-screen front end claims them
 * instead and shows the latest in its status line while the command
 * blocks the engine (its drawing thread reads them). Process-wide: one
 * terminal, one front end. */
#ifndef QZ_UTIL_PROGRESS_H
#define QZ_UTIL_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

/* The front end shows progress itself: nothing goes to stderr. */
void progress_claim(void);
bool progress_claimed(void);
/* The latest line (a trailing newline is dropped). */
void progress_set(const char *line);
/* The command ended: no line. */
void progress_clear(void);
/* Copy the latest line into buf ("" when none); returns a number that
 * changes whenever the line does, so a reader redraws only then. */
unsigned progress_read(char *buf, size_t len);

#endif
