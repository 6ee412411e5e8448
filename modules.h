/* modules: every module qzdb has, in one list (modules.c). Front ends
 * and tests make a session with qz_new and give it its modules here. */
#ifndef QZ_MODULES_H
#define QZ_MODULES_H

struct qz;

/* Register every module with q, in the list's order (mod_add). 0, or -1
 * with q's error set. */
int modules_init(struct qz *q);

#endif
