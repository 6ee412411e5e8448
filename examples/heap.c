/* heap: fills three tables of squares and aborts inside malloc with a
 * "malloc assertion failure" - far from the code that caused it.
 *
 * Something corrupted malloc's bookkeeping. Which write, and which loop
 * bound let it run past its block? Walk through it with
 *     qzdb --replay examples/heap.qzs --step */
#include <stdio.h>
#include <stdlib.h>

int sizes[] = { 4, 6, 8 };

static int *make_squares(int n)
{
	int *a = malloc(n * sizeof *a);
	for (int i = 0; i <= n; i++)
		a[i] = i * i;
	return a;
}

int main(void)
{
	int *tables[3];
	long sum = 0;
	for (int k = 0; k < 3; k++)
		tables[k] = make_squares(sizes[k]);
	for (int k = 0; k < 3; k++)
		sum += tables[k][sizes[k] - 1];
	for (int k = 0; k < 3; k++)
		free(tables[k]);
	printf("sum %ld\n", sum);
	return 0;
}
