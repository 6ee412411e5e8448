/* dfree: builds three records, backs one up, frees everything, and
 * aborts with "free(): double free detected in tcache 2".
 *
 * Which block is freed twice, who freed it first, and why do two records
 * own it? Walk through it with
 *     qzdb --replay examples/dfree.qzs --step */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct record {
	char *name;
	int id;
};

const char *names[] = { "alpha", "beta", "gamma" };

static struct record *record_new(const char *name, int id)
{
	struct record *r = malloc(sizeof *r);
	r->name = strdup(name);
	r->id = id;
	return r;
}

static struct record *record_copy(const struct record *r)
{
	struct record *c = malloc(sizeof *c);
	*c = *r;
	return c;
}

static void record_free(struct record *r)
{
	free(r->name);
	free(r);
}

int main(void)
{
	struct record *recs[3];
	struct record *backup = NULL;
	for (int i = 0; i < 3; i++)
		recs[i] = record_new(names[i], i);
	for (int i = 0; i < 3; i++) {
		if (recs[i]->id == 1)
			backup = record_copy(recs[i]);
	}
	for (int i = 0; i < 3; i++)
		record_free(recs[i]);
	if (backup)
		record_free(backup);
	printf("freed all records\n");
	return 0;
}
