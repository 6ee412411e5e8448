/* spill: unlinked temporary files; see spill.h. */
#define _GNU_SOURCE
#include "spill.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "target/out.h"

static bool spill_off;           /* set record tmpfile off */
static bool spill_warned;        /* the fallback was said */
static char spill_why[512];      /* why the last attempt failed, not said yet */

void spill_set_enabled(bool on)
{
	spill_off = !on;
}

bool spill_enabled(void)
{
	return !spill_off;
}

static const char *spill_dir(void)
{
	const char *d = getenv("TMPDIR");
	return d && *d ? d : "/tmp";
}

/* O_TMPFILE where the file system has it, else a named file unlinked at
 * once. */
static int spill_open(const char *dir)
{
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return fd;
	char path[4096];
	if (snprintf(path, sizeof path, "%s/qzdb-XXXXXX", dir) >= (int)sizeof path) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	return fd;
}

/* A file that cannot take a page is as good as none (a full disk). */
static bool spill_probe(int fd)
{
	static const char page[4096];
	bool ok = pwrite(fd, page, sizeof page, 0) == (ssize_t)sizeof page;
	return ftruncate(fd, 0) == 0 && ok;
}

int spill_fd(struct qz *q)
{
	int fd = -1;
	if (spill_off) {
		snprintf(spill_why, sizeof spill_why, "temporary files are off (set record tmpfile)");
	} else if ((fd = spill_open(spill_dir())) < 0 || !spill_probe(fd)) {
		snprintf(spill_why, sizeof spill_why, "no temporary file can be made in %s (%s)",
			 spill_dir(), strerror(errno));
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	if (fd < 0 && q && spill_why[0] && !spill_warned) {
		qz_warn(q, "%s: the recording, its undo log and slices stay in memory", spill_why);
		spill_warned = true;
	}
	return fd;
}

FILE *spill_file(void)
{
	int fd = spill_fd(NULL);
	FILE *f = fd >= 0 ? fdopen(fd, "w+") : NULL;
	if (!f && fd >= 0)
		close(fd);
	return f;
}
