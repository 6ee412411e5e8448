/* tiny: the smallest program with every kind of DWARF qzdb reads (struct,
 * typedef, enum, union, array, static and global variables, an inlined
 * function, lexical blocks), built without libc into the fuzzers' small
 * ELF seeds by tests/fuzz/make-elf-seeds.sh. */
struct node {
	int key;
	struct node *next;
};
typedef struct node node_t;
enum color { RED, GREEN, BLUE };
union u {
	int i;
	float f;
};

int counter;
static long total = 5;

static inline int square(int x)
{
	int y = x * x;
	return y;
}

int sum(node_t *h, enum color c)
{
	int s = 0;
	for (struct node *p = h; p; p = p->next) {
		int k = p->key;
		s += square(k) + c;
	}
	return s;
}

void _start(void)
{
	struct node a = { 3, 0 };
	union u v = { 1 };
	int arr[3] = { 1, 2, 3 };
	counter = sum(&a, BLUE) + v.i + arr[total & 1];
	for (;;)
		;
}
