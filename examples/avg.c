/* avg: the average of five scores comes out too high. The loop that adds
 * them up runs once too often and reads the int after the array (here, a
 * bonus meant for something else). The walkthrough (avg.qzs) has two
 * tasks: stop at the iteration that reads past the array, then see what
 * it read. */
#include <stdio.h>

static int scores[5] = { 70, 85, 90, 65, 80 };
static int bonus = 1000;

static int average(const int *v, int n)
{
	int total = 0;
	for (int i = 0; i <= n; i++)
		total += v[i];
	return total / n;
}

int main(void)
{
	printf("average %d (bonus %d)\n", average(scores, 5), bonus);
	return 0;
}
