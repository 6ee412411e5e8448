/* prune: names and scopes a slice's dependences are cut at, resolved at
 * the slice's criterion instance (prune.c). */
#ifndef QZ_SLICE_PRUNE_H
#define QZ_SLICE_PRUNE_H

struct qz;
struct slice;

/* One name (VAR, FUNC::VAR, any lvalue print takes, $REG, ADDR [SIZE])
 * into s's pruned registers or memory. 0, or -1 with the error set. */
int prune_add(struct qz *q, struct slice *s, const char *spec);
/* what: "function", "file" or "library"; every variable of name's
 * recorded frames, every static of that file, all of the library's
 * memory. 0, or -1 with the error set. */
int prune_scope(struct qz *q, struct slice *s, const char *what, const char *name);

#endif
