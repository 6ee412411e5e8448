/* debuglink: finding an object's separate debug file (libc6-dbg's
 * /usr/lib/debug/.build-id/xx/rest.debug). Everything read here comes from
 * files the user did not write: every length is checked and a bad file is
 * a skipped candidate, never a failure. */
#define _GNU_SOURCE
#include "debuglink.h"
#include "util/util.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define DBG_NAME_MAX 255   /* a debuglink name is a file name, not a path */

static bool dbg_readable(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, R_OK) == 0;
}

/* The section's name is checked, its data bounded by its own size: a
 * truncated file gives elf_getdata NULL, not a read past the end. */
static int dbg_link_from_elf(Elf *e, char *name, size_t namelen, uint32_t *crc)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(e, &shstrndx) != 0)
		return -1;
	for (Elf_Scn *s = NULL; (s = elf_nextscn(e, s));) {
		GElf_Shdr sh;
		const char *n;
		if (!gelf_getshdr(s, &sh) || !(n = elf_strptr(e, shstrndx, sh.sh_name)) ||
		    strcmp(n, ".gnu_debuglink") != 0)
			continue;
		Elf_Data *d = elf_getdata(s, NULL);
		if (!d || !d->d_buf || d->d_size < 8)
			return -1;
		const char *p = d->d_buf;
		size_t len = strnlen(p, d->d_size);
		/* name, NUL, padding to 4, then the CRC */
		size_t at = (len + 4) & ~(size_t)3;
		if (len == 0 || len > DBG_NAME_MAX || len + 1 > namelen || at + 4 > d->d_size ||
		    strchr(p, '/'))
			return -1;
		memcpy(name, p, len + 1);
		memcpy(crc, p + at, 4);
		return 0;
	}
	return -1;
}

int dbg_read_link(const char *path, char *name, size_t namelen, uint32_t *crc)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	int r = e && elf_kind(e) == ELF_K_ELF ? dbg_link_from_elf(e, name, namelen, crc) : -1;
	if (e)
		elf_end(e);
	close(fd);
	return r;
}

int dbg_file_crc(const char *path, uint32_t *crc)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	uLong c = crc32(0L, Z_NULL, 0);
	unsigned char buf[65536];
	ssize_t n;
	while ((n = read(fd, buf, sizeof buf)) > 0)
		c = crc32(c, buf, (uInt)n);
	close(fd);
	if (n < 0)
		return -1;
	*crc = (uint32_t)c;
	return 0;
}

/* One debug-file directory of the colon-separated list, into dir. */
static const char *dbg_next_dir(const char *dirs, char *dir, size_t len)
{
	size_t n = strcspn(dirs, ":");
	snprintf(dir, len, "%.*s", (int)n, dirs);
	return dirs[n] ? dirs + n + 1 : NULL;
}

static char *dbg_by_build_id(const char *build_id, const char *dirs)
{
	char dir[4096];
	if (!build_id || strlen(build_id) < 3 || strspn(build_id, "0123456789abcdef") != strlen(build_id))
		return NULL;
	for (const char *d = dirs; d;) {
		d = dbg_next_dir(d, dir, sizeof dir);
		if (!dir[0])
			continue;
		char *p = xasprintf("%s/.build-id/%.2s/%s.debug", dir, build_id, build_id + 2);
		if (dbg_readable(p))
			return p;
		free(p);
	}
	return NULL;
}

/* A debuglink candidate: present and with the CRC the object names. */
static bool dbg_link_ok(const char *cand, const char *obj, uint32_t want,
			char *warn, size_t warnlen)
{
	uint32_t got;
	if (!dbg_readable(cand) || strcmp(cand, obj) == 0)
		return false;
	if (dbg_file_crc(cand, &got) < 0)
		return false;
	if (got != want) {
		snprintf(warn, warnlen, "the debug information found in \"%s\" does not match \"%s\" (CRC mismatch).",
			 cand, obj);
		return false;
	}
	return true;
}

static char *dbg_by_link(const char *path, const char *dirs, char *warn, size_t warnlen)
{
	char name[DBG_NAME_MAX + 1], dir[4096];
	uint32_t crc;
	if (dbg_read_link(path, name, sizeof name, &crc) < 0)
		return NULL;
	const char *slash = strrchr(path, '/');
	char *odir = slash ? xasprintf("%.*s", (int)(slash - path), path) : xstrdup(".");
	char *found = NULL;
	for (int i = 0; i < 2 && !found; i++) {   /* DIR/NAME, DIR/.debug/NAME */
		char *c = xasprintf(i ? "%s/.debug/%s" : "%s/%s", odir, name);
		if (dbg_link_ok(c, path, crc, warn, warnlen))
			found = c;
		else
			free(c);
	}
	for (const char *d = dirs; d && !found;) {   /* DEBUGDIR/DIR/NAME */
		d = dbg_next_dir(d, dir, sizeof dir);
		char *c = xasprintf("%s%s/%s", dir, odir, name);
		if (dir[0] && dbg_link_ok(c, path, crc, warn, warnlen))
			found = c;
		else
			free(c);
	}
	free(odir);
	return found;
}

char *dbg_find_file(const char *path, const char *build_id, const char *dirs,
		    char *warn, size_t warnlen)
{
	warn[0] = 0;
	if (!dirs)
		dirs = "";
	char *p = dbg_by_build_id(build_id, dirs);
	return p ? p : dbg_by_link(path, dirs, warn, warnlen);
}
