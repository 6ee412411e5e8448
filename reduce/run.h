/* run: one test of a candidate input, as an independent native process:
 * fork, exec with address randomisation off, the same environment and a
 * fresh scratch directory each time, under a small ptrace of its own that
 * only waits for a fatal signal (then reads the pc and unwinds a few
 * frames with the program's CFI), a breakpoint on --at lines, the exit,
 * or the timeout. Many run at once: one per core. */
#ifndef QZ_REDUCE_RUN_H
#define QZ_REDUCE_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lines;
struct sandbox;
struct unw;

#define RR_FRAMES 3

/* What is the same for every run of one reduction. */
struct rr_prog {
	const char *path;          /* the program */
	const char *exe_real;      /* its realpath, to find it in maps */
	char **argv;               /* argv[0] = path; the input's slot is replaced */
	int argc;
	const struct lines *lines; /* the program's line table, for locations */
	const struct unw *unw;     /* and its CFI, for frames */
	uint64_t *at;              /* link-time addresses of --at lines */
	size_t nat;
	double timeout;            /* seconds */
	bool want_output;          /* keep stdout+stderr (--output) */
	char *scratch;             /* the reduction's directory */
	/* Runs confined (rr_sandbox): writes only under scratch, no exec, no
	 * network, no signals to other processes; NULL: not confined. */
	struct sandbox *sandbox;
	unsigned long serial;      /* runs so far, names their directories */
};

enum rr_how { RR_EXIT, RR_SIGNAL, RR_TIMEOUT, RR_REACHED, RR_ERROR };

struct rr_result {
	int how;                   /* enum rr_how */
	int code;                  /* exit status or signal */
	/* The innermost frames in the program's own code: file and line
	 * (the pc's, then call sites), for the same-failure oracle. */
	const char *file[RR_FRAMES];
	int line[RR_FRAMES];
	int nframes;
	char *output;              /* with want_output */
	size_t output_len;
};

/* Where the candidate goes. */
enum rr_where { RR_FILE, RR_STDIN, RR_ARG };

struct rr_input {
	int where;                 /* enum rr_where */
	int argn;                  /* RR_FILE, RR_ARG: argv index */
	const char *name;          /* RR_FILE: the file's base name */
	const char *data;
	size_t len;
};

/* Run n inputs, at most jobs at a time; res[i] for in[i]. Returns 0, or -1
 * when interrupted (SIGINT seen by the session): res is then partial. */
int rr_run_many(struct rr_prog *p, const struct rr_input *in, struct rr_result *res,
		size_t n, int jobs, volatile bool *interrupted);
void rr_result_free(struct rr_result *r);
/* "SIGSEGV at parse.c:41 < parse.c:77", "exit status 3", "timeout". */
char *rr_describe(const struct rr_result *r);
/* Same failure: same signal or status, same innermost frames. */
bool rr_same(const struct rr_result *a, const struct rr_result *b);
/* The environment of every run (and of the guided analysis's recorded
 * run): fixed, so that memory layout and behaviour do not follow qzdb's. */
extern char *rr_env[];

/* Seconds on the monotonic clock. */
double rr_now(void);
/* A temporary directory for the reduction's runs; rr_cleanup removes it. */
int rr_scratch(struct rr_prog *p);
/* Confine the runs (after rr_scratch): 0, or -1 with why it cannot be
 * done on this machine in err (the runs are then not confined). */
int rr_sandbox(struct rr_prog *p, char *err, size_t errlen);
void rr_cleanup(struct rr_prog *p);

#endif
