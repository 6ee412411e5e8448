/* revwatch: reverse-continue to a watchpoint far back (tests/bench/reverse.sh):
 * mark is written once, then a loop of n iterations runs without touching
 * it; the program is recorded from mark's write to the return. */
#include <stdlib.h>
volatile int mark, sink;

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	sink = 0;
	mark = 1;
	for (int i = 0; i < n; i++)
		sink = i * 3;
	return mark - 1;
}
