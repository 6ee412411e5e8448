/* progress: the latest progress line, shared between the engine's thread
 * (which writes it) and a front end's drawing thread (which reads it);
 * see progress.h. */
#include "progress.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t progress_lock = PTHREAD_MUTEX_INITIALIZER;
static char progress_line[160];
static unsigned progress_gen;
static bool progress_front;

void progress_claim(void)
{
	progress_front = true;
}

bool progress_claimed(void)
{
	return progress_front;
}

void progress_set(const char *line)
{
	pthread_mutex_lock(&progress_lock);
	snprintf(progress_line, sizeof progress_line, "%s", line);
	progress_line[strcspn(progress_line, "\n")] = 0;
	progress_gen++;
	pthread_mutex_unlock(&progress_lock);
}

void progress_clear(void)
{
	pthread_mutex_lock(&progress_lock);
	if (*progress_line)
		progress_gen++;
	*progress_line = 0;
	pthread_mutex_unlock(&progress_lock);
}

unsigned progress_read(char *buf, size_t len)
{
	pthread_mutex_lock(&progress_lock);
	snprintf(buf, len, "%s", progress_line);
	unsigned gen = progress_gen;
	pthread_mutex_unlock(&progress_lock);
	return gen;
}
