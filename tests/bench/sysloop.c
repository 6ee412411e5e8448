/* sysloop N [vdso]: N getppid() system calls (with "vdso": N
 * clock_gettime() calls, which the vDSO answers without the kernel), for
 * the re-execution log's cost per call (tests/bench/reexec.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, sum = 0;
	int vdso = argc > 2 && !strcmp(argv[2], "vdso");
	struct timespec ts;
	for (long i = 0; i < n; i++) {
		if (vdso) {
			clock_gettime(CLOCK_MONOTONIC, &ts);
			sum += ts.tv_nsec & 1;
		} else {
			sum += syscall(SYS_getppid) & 1;
		}
	}
	printf("done %ld\n", sum >= 0 ? n : -1);
	return 0;
}
