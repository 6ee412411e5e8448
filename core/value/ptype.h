/* ptype: a type spelled out as gdb's ptype shows it: structs, unions and
 * enums with their members, names inside their declarators. */
#ifndef QZ_PTYPE_H
#define QZ_PTYPE_H

#include "dinfo/dinfo.h"
#include "util/util.h"

/* "struct node {\n    int key;\n    struct node *next;\n} *" for
 * struct node *: the first struct, union or enum behind pointers, arrays
 * and typedefs is expanded. */
void ptype_print(struct sbuf *out, const struct di_type *t);
/* "char buf[16]", "int (*fp)(int)", "struct node *next". */
void ptype_declarator(struct sbuf *out, const struct di_type *t, const char *name);

#endif
