/* dangle: keeps a log of messages and aborts inside malloc with
 * "malloc(): unaligned tcache chunk detected" when it allocates two new
 * messages after freeing the old ones.
 *
 * A freed block was written after free. Through which pointer, and why
 * was that pointer still in use? Walk through it with
 *     qzdb --replay examples/dangle.qzs --step */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct msg {
	char text[24];
	int level;
};

const char *texts[] = { "boot", "disk", "halt", "panic" };
int levels[] = { 0, 1, 0, 2 };

static struct msg *repeat;

static struct msg *msg_new(const char *text, int level)
{
	struct msg *m = malloc(sizeof *m);
	strcpy(m->text, text);
	m->level = level;
	return m;
}

int main(void)
{
	struct msg *msgs[4];
	for (int i = 0; i < 4; i++) {
		msgs[i] = msg_new(texts[i], levels[i]);
		if (msgs[i]->level > 1)
			repeat = msgs[i];
	}
	for (int i = 0; i < 4; i++)
		free(msgs[i]);
	if (repeat)
		strcpy(repeat->text, "repeated message!");
	struct msg *a = msg_new("after", 0);
	struct msg *b = msg_new("later", 0);
	printf("%s %s\n", a->text, b->text);
	return 0;
}
