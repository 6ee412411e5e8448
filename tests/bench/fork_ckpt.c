/* fork_ckpt: the kernel's share of a fork-based checkpoint (what gdb's
 * `checkpoint` does by calling fork() in the program): with a heap of
 * argv[1] MiB written once, time (fork + writing the heap again, which
 * copies every page on write + switching to the fork, i.e. killing the
 * original) minus the time of writing it again without a fork. Prints
 * microseconds, best of 5. A lower bound of gdb's cost (gdb adds its own
 * work: an inferior call, attaching to the fork). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* In a child of ours, so that "killing the original" is possible. */
static double one_round(size_t len, int with_fork)
{
	int fd[2];
	if (pipe(fd) < 0)
		exit(1);
	pid_t worker = fork();
	if (worker == 0) {
		char *p = malloc(len);
		memset(p, 1, len);
		__asm__ volatile("" ::"r"(p) : "memory");
		double t0 = now_us();
		pid_t snap = with_fork ? fork() : 0;
		if (with_fork && snap == 0) {
			pause();   /* the checkpoint: waits to be restarted */
			_exit(0);
		}
		memset(p, 2, len);
		__asm__ volatile("" ::"r"(p) : "memory");   /* the writes happen */
		if (with_fork) {   /* restart: the fork takes over */
			kill(snap, SIGKILL);
			waitpid(snap, NULL, 0);
		}
		double t = now_us() - t0;
		if (write(fd[1], &t, sizeof t) < 0)
			_exit(1);
		_exit(0);
	}
	double t = 0;
	if (read(fd[0], &t, sizeof t) < 0)
		t = 0;
	waitpid(worker, NULL, 0);
	close(fd[0]);
	close(fd[1]);
	return t;
}

int main(int argc, char **argv)
{
	size_t len = (size_t)(argc > 1 ? atoi(argv[1]) : 64) << 20;
	double best_fork = 1e18, best_plain = 1e18;
	for (int i = 0; i < 5; i++) {
		double f = one_round(len, 1), p = one_round(len, 0);
		best_fork = f < best_fork ? f : best_fork;
		best_plain = p < best_plain ? p : best_plain;
	}
	printf("%.0f\n", best_fork - best_plain);
	return 0;
}
