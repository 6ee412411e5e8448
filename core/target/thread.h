/* thread: the threads of the process as the user sees them (gdb's thread
 * numbers, names, "[New Thread ...]" messages, stop reports naming the
 * thread, info threads, thread N, thread apply) and what happens at a fork
 * (follow-fork-mode). The tracing itself is in proc.c, the commands in
 * cmd/cmd-thread.c. */
#ifndef QZ_THREAD_H
#define QZ_THREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct qz;
struct sbuf;
struct proc_thread_info;

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

/* The name the kernel keeps for a thread (its comm). */
void thread_name(struct qz *q, int tid, char *buf, size_t len);
/* gdb names a thread by its pthread_t (the thread pointer); before libc
 * set one up, by its process. */
void thread_target_id(const struct proc_thread_info *t, struct sbuf *b);
/* gdb's thread id: "2", or "2.1" once there are several inferiors. */
void thread_id(struct qz *q, int num, struct sbuf *b);
/* Select thread tid; frames are computed afresh for it. */
void thread_select(struct qz *q, pid_t tid);

#endif
