/* debuglink: where the separate debug file of an ELF object lives, found
 * as gdb finds it: by the object's GNU build-id under each debug-file
 * directory, else by its .gnu_debuglink name (checked by CRC-32) next to
 * the object, in its .debug subdirectory and under each debug-file
 * directory followed by the object's directory. */
#ifndef QZ_DEBUGLINK_H
#define QZ_DEBUGLINK_H

#include <stddef.h>
#include <stdint.h>

/* The debug file of the object at path (build_id: lowercase hex or NULL;
 * dirs: gdb's debug-file-directory, colon-separated), malloc'd, or NULL
 * when none is found. A candidate that exists but fails its check (an
 * unreadable file, a CRC mismatch) is skipped with a reason in warn
 * (empty if nothing was wrong). */
char *dbg_find_file(const char *path, const char *build_id, const char *dirs,
		    char *warn, size_t warnlen);

/* The name and CRC of path's .gnu_debuglink section: 0, or -1 if it has
 * none or it is malformed. */
int dbg_read_link(const char *path, char *name, size_t namelen, uint32_t *crc);

/* CRC-32 (the .gnu_debuglink one, as zlib's) of the whole file at path:
 * 0, or -1 if it cannot be read. */
int dbg_file_crc(const char *path, uint32_t *crc);

#endif
