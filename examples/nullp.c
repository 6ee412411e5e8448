/* nullp: a directory walker that crashes on a NULL name.
 *
 * note_directory() records each directory's name and modification time.
 * One entry of the table has no name; the length computation dereferences
 * it. Run it under qzdb (make demo) and find where the NULL comes from:
 *
 *   (qzdb) run
 *   (qzdb) bt
 *   (qzdb) frame 1
 *   (qzdb) break note_directory if name == 0
 *   (qzdb) run
 */
#include <stdio.h>
#include <string.h>

struct dir {
	const char *name;
	int mtime;
};

static struct dir table[] = {
	{"usr", 1000},
	{"bin", 1200},
	{"lib", 1300},
	{NULL, 1400},     /* the bug: a hole in the table */
	{"var", 1500},
};

static long total_len;
static int newest;

static size_t name_length(const char *name)
{
	return strlen(name);
}

void note_directory(const char *name, int mtime)
{
	total_len += (long)name_length(name);
	if (mtime > newest)
		newest = mtime;
}

int main(void)
{
	int n = (int)(sizeof table / sizeof table[0]);
	for (int i = 0; i < n; i++)
		note_directory(table[i].name, table[i].mtime);
	printf("%d directories, %ld bytes of names, newest %d\n", n, total_len, newest);
	return 0;
}
