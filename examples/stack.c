/* stack: greets a list of users, and crashes after greeting the third.
 *
 * The crash is a SIGSEGV at a strange address when greet() returns: its
 * return address was overwritten. Which statement wrote it, and which
 * condition let that happen? Walk through it with
 *     qzdb --replay examples/stack.qzs --step
 * (or debug it yourself: ./qzdb examples/build/stack). */
#include <stdio.h>
#include <string.h>

const char *names[] = {
	"ann",
	"bob",
	"a-name-much-too-long-for-the-buffer-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
	"dan",
};

static int greet(const char *name)
{
	char buf[16] = "";
	strcpy(buf, name);
	return printf("hello %s\n", buf);
}

int main(void)
{
	int total = 0;
	for (int i = 0; i < 4; i++) {
		if (strlen(names[i]) < 80)
			total += greet(names[i]);
	}
	printf("greeted, %d bytes\n", total);
	return 0;
}
