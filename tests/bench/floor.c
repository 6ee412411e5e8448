/* floor: the cost of the kernel round trips a debugger cannot avoid, the
 * floor of qzdb's figures (tests/bench.sh). With no debugger logic at all:
 *   floor step N   PTRACE_SINGLESTEP + waitpid, N times, on a child in a
 *                  loop: microseconds per step (stepi's floor)
 *   floor int3 N   a child that executes int3 N times; PTRACE_CONT +
 *                  waitpid + PTRACE_GETREGS each (a breakpoint hit's
 *                  floor; a real one also puts the byte back and steps)
 * Prints the figure in microseconds per round trip. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static pid_t floor_child(int int3s)
{
	pid_t c = fork();
	if (c < 0)
		exit(1);
	if (c == 0) {
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		raise(SIGSTOP);
		for (volatile long i = 0;; i++)
			if (int3s)
				__asm__ volatile("int3");
	}
	int st;
	waitpid(c, &st, 0);
	return c;
}

int main(int argc, char **argv)
{
	if (argc != 3 || (strcmp(argv[1], "step") && strcmp(argv[1], "int3")))
		return fprintf(stderr, "usage: floor step|int3 N\n"), 2;
	long n = atol(argv[2]);
	int int3 = !strcmp(argv[1], "int3");
	pid_t c = floor_child(int3);
	struct user_regs_struct r;
	int st;
	double t0 = now_us();
	for (long i = 0; i < n; i++) {
		ptrace(int3 ? PTRACE_CONT : PTRACE_SINGLESTEP, c, 0, 0);
		waitpid(c, &st, 0);
		if (!WIFSTOPPED(st))
			return fprintf(stderr, "floor: the child ended\n"), 1;
		ptrace(PTRACE_GETREGS, c, 0, &r);
	}
	double t1 = now_us();
	kill(c, SIGKILL);
	waitpid(c, &st, 0);
	printf("%.3f\n", (t1 - t0) / n);
	return 0;
}
