/* list: a linked list of four values whose sum leaves out the last one.
 * The loop's test looks one node ahead (p->next) instead of at the node
 * itself. The walkthrough (list.qzs) has two tasks: stop in the loop at
 * the node holding 30, then look at the caller's frame. */
#include <stdio.h>
#include <stdlib.h>

struct node {
	int value;
	struct node *next;
};

static struct node *push(struct node *head, int value)
{
	struct node *n = malloc(sizeof *n);
	n->value = value;
	n->next = head;
	return n;
}

static int sum(const struct node *p)
{
	int s = 0;
	while (p->next) {
		s += p->value;
		p = p->next;
	}
	return s;
}

int main(void)
{
	struct node *list = NULL;
	for (int v = 40; v >= 10; v -= 10)
		list = push(list, v);
	printf("sum %d\n", sum(list));
	return 0;
}
