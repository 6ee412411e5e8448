/* nullp: looks up four keys in a table and sums their values; it
 * crashes with a NULL pointer dereference on the third key.
 *
 * Where does the NULL come from, and which condition should have kept the
 * program from using it? Walk through it with
 *     qzdb --replay examples/nullp.qzs --step
 * (make demo opens qzdb on this program). */
#include <stdio.h>
#include <string.h>

struct entry {
	const char *key;
	int value;
};

struct entry table[] = { { "alpha", 1 }, { "beta", 2 }, { "gamma", 3 } };
const char *keys[] = { "alpha", "gamma", "delta", "beta" };

static struct entry *find_entry(const char *key)
{
	for (int i = 0; i < 3; i++)
		if (strcmp(table[i].key, key) == 0)
			return &table[i];
	return NULL;
}

int main(void)
{
	int sum = 0;
	for (int k = 0; k < 4; k++) {
		struct entry *e = find_entry(keys[k]);
		if (strlen(keys[k]) > 4)
			sum += e->value;
	}
	printf("sum %d\n", sum);
	return 0;
}
