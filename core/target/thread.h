/* thread: the threads of the process as the user sees them (gdb's thread
 * numbers, names, "[New Thread ...]" messages, stop reports naming the
 * thread, info threads, thread N, thread apply) and what happens at a fork
 * (follow-fork-mode). The tracing itself is in proc.c. */
#ifndef QZ_THREAD_H
#define QZ_THREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct qz;
struct sbuf;

/* Per-session state, in struct qz. */
struct thread_state {
	bool follow_child;       /* set follow-fork-mode child */
	int shown_tid;           /* the thread the user last saw stop */
	int inferior;            /* gdb's inferior number: 2 after following a child */
	uint64_t *vfork_sites;   /* int3s taken out while a vfork child runs */
	size_t nvfork_sites, vfork_cap;
};

/* A process was just started: listen to its thread and fork events. */
void thread_attach(struct qz *q);
/* Before a stop report: "[Switching to Thread ...]" when the stopping
 * thread is not the one last shown. */
void thread_report_switch(struct qz *q);
/* "Thread 2 \"prog\" " for stop reports once the process has had several
 * threads; nothing otherwise. */
void thread_who(struct qz *q, struct sbuf *b);
/* The inferior number for "[Inferior N (process P) ...]". */
int thread_inferior(const struct qz *q);

int cmd_info_threads(struct qz *q, const char *a);
int cmd_thread(struct qz *q, const char *a);
int cmd_thread_apply(struct qz *q, const char *a);
int cmd_set_follow_fork_mode(struct qz *q, const char *a);
int cmd_show_follow_fork_mode(struct qz *q, const char *a);

#endif
