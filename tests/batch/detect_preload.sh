#!/bin/sh
# detect_preload (issue 20): the heap-call classes without a stop per heap
# call. A program started while only double-free, invalid-free, leak,
# null-deref and stack-overflow are on gets qzheap.so (LD_PRELOAD): its
# allocator runs natively and qzdb stops only at a bad free and at exit
# (detect/preload.c). Checked: the reports (sites, sizes, the library
# function named, what is lost through a leak) equal those of the
# allocator's internal stops (set detect-preload off) on every det_libcall
# bug, bug_dfree, det_badfree and det_leak at -O0 and -O2, with 2 internal
# stops instead of dozens; continuing after a double free goes on (the
# bad free does nothing); a class that needs read events turned on
# mid-run finds the dangling read with the sites of blocks allocated
# before; detect off mid-run; and the fallbacks, each forced: set
# detect-preload off, a spec of the user's with a free rule, a program
# with its own malloc, qzheap.so missing beside qzdb, a static program.
. tests/lib.sh
. tests/detect-lib.sh
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
H='detect on double-free invalid-free leak null-deref stack-overflow'
via='; heap calls made by qzdb.s allocator in the program \(qzheap\.so\), without a stop\.$'

# the reports and events, addresses and the pid left out (the allocators
# place blocks differently)
reports() {
	printf '%s\n' "$OUT" | grep -E "$report|^Events seen" | sed -E 's/0x[0-9a-f]+/ADDR/g'
}
# glibc's realloc(NULL) and memalign call its malloc: one malloc event
# more; libwrite events are not counted with qzheap (no class has a rule
# on them: the PLT slots are not planted)
events_glibc() { sed -E 's/^(Events seen this run: malloc )([0-9]+)/\1N/; s/ libwrite [0-9]+ / libwrite N /'; }

# pre NAME BINARY ARGS...: with and without qzheap, the same reports
# (but for lines matching $EXTRA, which only qzheap's run must have)
EXTRA='^$'
pre() {
	_n=$1
	shift
	qz -ex "$H" -ex run -ex 'info detect' "$@"
	expect "$_n: heap calls inside the program" "$via"
	expect "$_n: two internal stops" '^Cost: 2 internal stops'
	[ "$EXTRA" = '^$' ] || expect "$_n: what only qzheap finds" "$EXTRA"
	_a=$(reports | grep -Ev "$EXTRA")
	qz -ex 'set detect-preload off' -ex "$H" -ex run -ex 'info detect' "$@"
	expect_not "$_n: off: the allocator's stops" "$via"
	expect "$_n: off: an internal stop a heap call" '^Cost: [0-9]{2,} internal stops'
	expect_same "$_n: the same reports" "$(printf '%s\n' "$_a" | events_glibc)" \
		"$(reports | events_glibc)"
}

for o in O0 O2; do
	for bug in none leak double inner aligned; do
		# at -O2 the posix_memalign'd block is definitely lost (Valgrind
		# says so too); with glibc's allocator the leak scan finds a copy
		# of its address somewhere it reads, and calls it reachable
		[ $o$bug = O2aligned ] &&
			EXTRA='^Memory leak of (0x[0-9a-f]+|ADDR) \(40 bytes, allocated at det_libcall.c:[0-9]+ by posix_memalign\), not freed at exit$'
		pre "libcall-$o $bug" $B/det_libcall-$o $bug
		EXTRA='^$'
	done
	pre "dfree-$o" $B/bug_dfree-$o
	for a in interior stack fixed; do
		pre "badfree-$o $a" $B/det_badfree-$o $a
	done
	for a in "" fixed list; do
		pre "leak-$o $a" $B/det_leak-$o $a
	done
done

_f=$(line bug_dfree.c 'free(r->name)') _a=$(line bug_dfree.c 'strdup(name)')
qz -ex "$H" -ex run -ex continue $B/bug_dfree-O0
expect "dfree report" "^Double free of $hex \(5 bytes, allocated at bug_dfree.c:$_a by strdup, freed at bug_dfree.c:$_f\) at bug_dfree.c:$_f$"
expect "dfree stops on the caller's line" "^$_f	+free\(r->name\);$"
expect "dfree continue: the bad free does nothing, the program ends" "$normal"

# a read class turned on mid-run: qzheap's calls become internal stops,
# the blocks allocated before are known (no warning, their sites)
_r=$(line det_uaf.c 'struct node *n = malloc') _d=$(line det_uaf.c '	free(n);')
qz -ex "$H" -ex 'break main' -ex run -ex 'detect on dangling' -ex continue -ex 'info detect' \
   $B/det_uaf-O0
expect "mid-run dangling found" "^Dangling pointer dereference: read of 4 bytes at $hex, 0 bytes into a 24-byte block allocated at det_uaf.c:$_r by malloc and freed at det_uaf.c:$_d by free, at det_uaf.c:[0-9]+$"
expect_not "mid-run: no 'not known' warning" 'blocks allocated before are not known'
expect_not "mid-run: the allocator's stops from then on" "$via"
qz -ex "$H" -ex 'break node_drop' -ex run -ex 'detect off' -ex continue $B/det_uaf-O0
expect "detect off mid-run: runs to its end" "$normal"

# glibc's functions that allocate for the program (reallocarray, asprintf,
# open_memstream, getline), a 50 MiB block grown, threads, and forks while
# another thread allocates (the child must not find the lock held)
cat > $T/libc.c <<'EOF'
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
static volatile int stop;
static void *churn(void *a)
{
	while (!stop) {
		void *volatile p = malloc(64);
		free(p);
	}
	return a;
}
int main(void)
{
	int *a = reallocarray(NULL, 10, sizeof *a);
	a[9] = 1;
	a = reallocarray(a, 1000, sizeof *a);
	a[999] = 2;
	char *s, *buf, *ln = NULL;
	size_t len, n = 0;
	if (asprintf(&s, "x%dy", 42) < 0)
		return 1;
	FILE *f = open_memstream(&buf, &len);
	fprintf(f, "hello %s", s);
	fclose(f);
	FILE *g = fmemopen("l1\nline2\n", 9, "r");
	while (getline(&ln, &n, g) > 0)
		;
	fclose(g);
	char *big = malloc(50 << 20);
	memset(big, 1, 50 << 20);
	big = realloc(big, 60 << 20);
	pthread_t t;
	pthread_create(&t, 0, churn, 0);
	for (int i = 0; i < 50; i++) {
		pid_t c = fork();
		if (!c) {
			free(malloc(10));
			_exit(0);
		}
		waitpid(c, 0, 0);
	}
	stop = 1;
	pthread_join(t, 0);
	printf("%s %zu %zu %d %d\n", buf, len, malloc_usable_size(s), a[9] + a[999], big[60 << 19]);
	free(a), free(s), free(buf), free(ln), free(big);
	return 0;
}
EOF
if gcc -g -O1 -pthread -o $T/libc $T/libc.c; then
	qz -ex "$H" -ex run -ex 'info detect' $T/libc
	expect "glibc's allocating functions, threads, forks: the output" '^hello x42y 10 5 3 1$'
	expect "glibc's allocating functions, threads, forks: ends" "$normal"
	expect_not "glibc's allocating functions, threads, forks: nothing found" "$report"
	expect "glibc's allocating functions, threads, forks: with qzheap" "$via"
fi

# a library's malloc on a stack of the program's own (makecontext) whose
# top is right under a PROT_NONE page, no program frame on it (tzset runs
# there): qzheap's search for the program's call site must not read past
# the stack (it read 4 KiB up and crashed the program with SIGSEGV)
cat > $T/ctx.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
static ucontext_t mctx, cctx;
int main(void)
{
	char *m = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	mprotect(m + 2 * 4096, 4096, PROT_NONE);
	getcontext(&cctx);
	cctx.uc_stack.ss_sp = m;
	cctx.uc_stack.ss_size = 2 * 4096;
	cctx.uc_link = &mctx;
	setenv("TZ", "UTC0", 1);
	makecontext(&cctx, tzset, 0);   /* strdups TZ: no program frame on that stack */
	swapcontext(&mctx, &cctx);
	printf("%s\n", tzname[0]);
	return 0;
}
EOF
if gcc -g -O0 -o $T/ctx $T/ctx.c; then
	qz -ex "$H" -ex run -ex 'info detect' $T/ctx
	expect "a library's malloc at a coroutine stack's top: the output" "^UTC$"
	expect "a library's malloc at a coroutine stack's top: ends" "$normal"
	expect "a library's malloc at a coroutine stack's top: with qzheap" "$via"
fi

# a limited address space (ulimit -v): qzheap reserves less
# (not under AddressSanitizer: qzdb itself cannot reserve its shadow there)
if ldd "$QZDB" 2>/dev/null | grep -q libasan; then
	skip "ulimit -v" "qzdb is built with AddressSanitizer, which needs the address space"
else
	OUT=$(ulimit -v 800000; timeout 60 $QZDB --batch -ex "$H" -ex run -ex 'info detect' $B/bug_dfree-O0 2>&1 </dev/null)
	expect "ulimit -v: double free found" "^Double free of $hex \(5 bytes, allocated at bug_dfree.c:$_a by strdup"
	expect "ulimit -v: with qzheap" "$via"
fi

# fallbacks, each forced
qz -ex 'set detect-preload off' -ex "$H" -ex run -ex 'info detect' $B/bug_dfree-O0
expect "off: double free still found" "^Double free of $hex \(5 bytes, allocated at bug_dfree.c:$_a by strdup"
expect_not "off: no qzheap" "$via"
qz -ex 'set detect-preload maybe'
expect "set detect-preload: usage" '^error: .*(on|off)'
printf 'class myfree "Any free"\non free\nwhen allocated(addr)\nreport "free of {addr} at {here}"\n' > $T/my.spec
qz -ex "detect load $T/my.spec" -ex "$H" -ex 'detect on myfree' -ex run -ex 'info detect' \
   $B/bug_dfree-O0
expect "a user's free rule: every free seen" '^free of 0x[0-9a-f]+ at bug_dfree.c:[0-9]+$'
expect_not "a user's free rule: no qzheap" "$via"
cat > $T/own.c <<'EOF'
#include <stdlib.h>
#include <string.h>
static char pool[1 << 16];
static size_t used;
void *malloc(size_t n) { void *p = pool + used; used += (n + 15) & ~15ul; return p; }
void free(void *p) { (void)p; }
void *calloc(size_t a, size_t b) { void *p = malloc(a * b); memset(p, 0, a * b); return p; }
void *realloc(void *o, size_t n) { void *p = malloc(n); if (o) memcpy(p, o, n); return p; }
int main(void) { char *p = malloc(10); free(p); free(p); return 0; }
EOF
if gcc -g -O0 -o $T/own $T/own.c; then
	qz -ex "$H" -ex run -ex 'info detect' $T/own
	expect "own malloc: its double free found" '^Double free of 0x[0-9a-f]+ \(10 bytes, allocated at own.c:9 by malloc, freed at own.c:9\) at own.c:9$'
	expect_not "own malloc: no qzheap" "$via"
fi
mkdir -p $T/bin/detect
cp $QZDB $T/bin/qzdb
ln -s "$PWD/detect/specs" $T/bin/detect/specs
OUT=$(timeout 60 $T/bin/qzdb --batch -ex "$H" -ex run -ex 'info detect' $B/bug_dfree-O0 2>&1 </dev/null)
expect "qzheap.so missing: double free still found" "^Double free of $hex \(5 bytes, allocated at bug_dfree.c:$_a by strdup"
expect_not "qzheap.so missing: the allocator's stops" "$via"
printf '#include <stdlib.h>\nint main(void) { char *p = malloc(4); free(p); return 0; }\n' > $T/st.c
if gcc -O0 -static -o $T/st $T/st.c 2>/dev/null; then
	qz -ex "$H" -ex run -ex 'info detect' $T/st
	expect "static: runs to its end" "$normal"
	expect_not "static: no qzheap" "$via"
else
	skip "static program" "no static libc"
fi
