/* cmd-alter: the commands of alter/ (switch, suppress, instance, set
 * alter-verbose), for core/cmd/cmd-table.c. */
#ifndef ALTER_CMD_ALTER_H
#define ALTER_CMD_ALTER_H

struct qz;

int cmd_switch(struct qz *q, const char *args);
int cmd_suppress(struct qz *q, const char *args);
int cmd_instance(struct qz *q, const char *args);
int cmd_set_alter_verbose(struct qz *q, const char *args);

#endif
