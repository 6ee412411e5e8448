/* proc-int: what the proc*.c files share: struct proc and its threads,
 * and the functions one file calls in another. Not for use outside
 * core/proc. */
#ifndef QZ_PROC_INT_H
#define QZ_PROC_INT_H

#include "proc.h"

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/user.h>

/* One traced thread. The register cache is per thread: a stop of one thread
 * costs one GETREGS at most, and only for the threads looked at. */
struct proc_thr {
	pid_t tid;
	int num;                      /* gdb's thread number, never reused */
	bool running;
	bool stop_expected;           /* a SIGSTOP we sent has still to arrive */
	bool has_pending;             /* an event kept from a stop-all */
	int pending;                  /* its wait status */
	enum __ptrace_request last_req;
	bool regs_valid;              /* cache holds this stop's registers */
	bool regs_dirty;              /* cache must be written before resuming */
	uint64_t fs_base;             /* the thread pointer, gdb's pthread_t */
	struct user_regs_struct regs;
	bool parked;                  /* moved from its step's SIGTRAP stop to a
	                                 SIGSTOP one (proc_settle): si is the
	                                 siginfo of the stop the user sees */
	siginfo_t si;
	bool in_sys;                  /* between a system call's entry and exit
	                                 stops (the syscall hook's) */
	bool sys_step;                /* a single step over a syscall made by
	                                 its entry and exit stops */
};

/* A wait status of a pid we did not know yet (a new thread or child whose
 * first stop came before its parent's event). */
struct proc_early {
	pid_t pid;
	int status;
};

struct proc {
	pid_t pid;
	int memfd;                    /* /proc/PID/mem */
	bool alive;
	struct proc_thr **thr;        /* thr[0] is the leader while it lives */
	size_t nthr, cap;
	struct proc_thr *cur;         /* the selected thread */
	pid_t event_tid;              /* the thread of the last reported stop */
	int next_num;
	bool stepping;                /* last resume stepped cur alone */
	struct proc_early *early;
	size_t nearly, early_cap;
	struct proc_notify notify;
	bool conting;                 /* resumed by proc_cont, not a step */
	/* A single step made by a temporary int3 on the next instruction
	 * (core/proc/platform.c found this instruction kind's trap comes late). */
	uint64_t over_addr;           /* where the int3 is; 0: none planted */
	uint8_t over_orig;            /* the byte it replaced */
	const struct sandbox *sandbox;   /* judges its seccomp stops, or NULL */
	bool sys_stops;               /* proc_cont stops at system calls too */
	proc_sys_fn sys_hook;         /* proc_set_syscall_hook's, or NULL */
	void *sys_ctx;
	void (*write_hook)(void *ctx, uint64_t addr, size_t len);
	void *write_ctx;              /* proc_set_write_hook's */
	void (*run_hook)(void *ctx);
	void *run_ctx;                /* proc_set_run_hook's */
	struct proc_guard *guard;     /* proc-guard.c, attached programs */
};

/* proc-guard.c */
/* The int3s in the program now, to the guard (before a resume). */
void proc_guard_sync(struct proc *p);
/* qzdb leaves the program itself: the guard ends without writing. */
void proc_guard_off(struct proc *p);

/* proc.c */
/* waitpid for a traced pid (its threads too), retrying on EINTR. */
pid_t proc_waitpid(pid_t pid, int *status);
/* Open /proc/PID/mem into p->memfd; 0, or -1. */
int proc_open_mem(struct proc *p);
/* After detaching: a SIGSTOP we sent and never collected would stop the
 * process for good; SIGCONT discards pending stop signals. */
void proc_discard_stops(struct proc *p);

/* proc-thread.c */
struct proc_thr *proc_thr_add(struct proc *p, pid_t tid);
struct proc_thr *proc_thr_find(struct proc *p, pid_t tid);
void proc_thr_del(struct proc *p, struct proc_thr *t);
void proc_thr_clear(struct proc *p);
/* Tell the session a thread appeared or exited (proc_set_notify). */
void proc_notify_thread(struct proc *p, struct proc_thr *t, bool created);
/* Fill t's register cache (once per stop); 0, or -1. */
int proc_getregs(struct proc_thr *t);
/* Write t's register cache back if it changed; 0, or -1. */
int proc_flush_regs(struct proc_thr *t);
/* Resume one stopped thread the way it was last resumed (or as req). */
int proc_thr_run(struct proc *p, struct proc_thr *t, enum __ptrace_request req, int sig);

/* proc-resume.c */
/* How proc_cont resumes: PTRACE_SYSCALL while anything wants system-call
 * stops. */
enum __ptrace_request proc_cont_req(const struct proc *p);
/* The stop after a step over: the int3 comes out, and its trap looks like
 * the single step's (pc on the next instruction). */
void proc_step_over_done(struct proc *p, struct proc_stop *st);

/* proc-wait.c */
/* Collect the stop of one thread we sent SIGSTOP to. */
void proc_collect(struct proc *p, struct proc_thr *u);
/* All-stop: once one thread stops for the user, stop the others (SIGSTOP
 * through tgkill) and collect their stops. */
void proc_stop_others(struct proc *p);

#endif
