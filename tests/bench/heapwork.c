/* heapwork: N rounds of a small linked structure built on the heap and
 * freed, with W units of arithmetic between allocations: N=20000 W=0 is
 * allocation-bound, W large is work-bound. Prints a checksum. The workload
 * of tests/bench/detect.sh (detectors against Valgrind memcheck). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node { struct node *next; char name[24]; unsigned v; };

static unsigned work(unsigned x, long w)
{
	for (long i = 0; i < w; i++)
		x = x * 1103515245u + 12345u;
	return x;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, w = argc > 2 ? atol(argv[2]) : 0;
	unsigned sum = 0;
	for (long i = 0; i < n; i++) {
		struct node *head = NULL;
		for (int k = 0; k < 4; k++) {
			struct node *p = malloc(sizeof *p);
			if (!p)
				return 1;
			snprintf(p->name, sizeof p->name, "node %ld.%d", i, k);
			p->v = work((unsigned)(i + k), w);
			p->next = head;
			head = p;
		}
		char *copy = strdup(head->name);
		sum += (unsigned)strlen(copy);
		free(copy);
		while (head) {
			struct node *next = head->next;
			sum += head->v;
			free(head);
			head = next;
		}
	}
	printf("heapwork %ld %ld: %u\n", n, w, sum);
	return 0;
}
