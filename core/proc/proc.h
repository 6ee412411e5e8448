/* proc: one traced process under ptrace: launch with address randomisation
 * off, stop and resume it, read and write its registers and memory. The
 * registers are cached between stops so a stop costs one GETREGS at most.
 * Threads: every thread is traced; a stop of one thread for the user stops
 * all (all-stop, as gdb). The register and pc functions act on the selected
 * thread, which a stop sets to the thread that stopped. proc_cont resumes
 * every thread, proc_step only the selected one (it stops the others
 * first). After proc_cont, proc_wait returns with the thread that stopped
 * stopped and the others possibly still running: a never-true breakpoint
 * condition then costs no stop of every thread. Call proc_stop_all before
 * showing a stop, looking at other threads or lifting an int3. Forks are
 * reported through the notify callback; the child is detached unless
 * followed. */
#ifndef QZ_PROC_H
#define QZ_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

enum proc_event {
	PROC_TRAP,      /* SIGTRAP: breakpoint or single-step */
	PROC_SIGNAL,    /* stopped by another signal (sig) */
	PROC_EXITED,    /* exited with code */
	PROC_KILLED,    /* terminated by signal sig */
	PROC_ERROR,     /* waitpid failed: the process is gone */
	PROC_EXEC       /* the process executed a new program (stopped) */
};

struct proc_stop {
	enum proc_event ev;
	int sig;
	int code;
	bool quit;      /* PROC_SIGNAL SIGSTOP sent because qzdb must leave */
};

struct proc;
struct sandbox;

struct proc_launch {
	const char *path;
	char *const *argv;       /* argv[0] included, NULL-terminated */
	const char *stdin_path;  /* NULL: inherit */
	const char *stdout_path; /* NULL: inherit */
	bool pin_cpu;            /* pin tracer and debuggee to one CPU */
	const char *tty_path;    /* NULL: inherit; else the program's own terminal
	                            (a front end's pty): stdin, stdout and stderr
	                            on it, in a new session it controls */
	/* NULL: none; else applied in the child before execve (Landlock and
	 * a seccomp filter), and its seccomp stops judged while it runs. Must
	 * outlive the process. */
	const struct sandbox *sandbox;
};

/* Start the program stopped at its first instruction (after execve).
 * NULL plus err on failure (the reason from execve or ptrace). */
struct proc *proc_launch(const struct proc_launch *l, char *err, size_t errlen);
/* The start of a child that called sandbox_enter (sandbox.h) after
 * PTRACE_TRACEME: its SIGSTOP before the filter (seccomp stops asked for
 * now, with PTRACE_O_EXITKILL and PTRACE_O_TRACEEXEC), the filter's stop at
 * its execve of our program, the only exec let through, and the exec: the
 * child is then stopped at PTRACE_EVENT_EXEC. False when the child died or
 * strayed (then killed and reaped). Blocks while it starts. */
bool proc_sandbox_start(pid_t pid);
/* A numeric field of /proc/PID/status ("TracerPid:", "Seccomp:"), -1 if
 * unreadable. */
long proc_status_field(pid_t pid, const char *key);
/* A hexadecimal mask of /proc/PID/status ("SigCgt:"); false if unreadable. */
bool proc_status_mask(pid_t pid, const char *key, uint64_t *mask);
/* Attach to a running process (PTRACE_ATTACH) and wait for it to stop.
 * NULL plus err on failure: "ptrace: No such process.", or for EPERM the
 * reason (Yama's ptrace_scope, another owner or tracer). */
struct proc *proc_attach(pid_t pid, char *err, size_t errlen);
/* Attach-free cleanup: kill the process (if alive), reap it, free. */
void proc_kill(struct proc *p);
/* Restore nothing (the caller removes breakpoints first), detach, free. */
int proc_detach(struct proc *p);
pid_t proc_pid(const struct proc *p);
bool proc_alive(const struct proc *p);

/* Resume; sig is a signal to deliver (0 for none). The register cache is
 * written back first if dirty. */
int proc_cont(struct proc *p, int sig);
int proc_step(struct proc *p, int sig);
/* While on, proc_cont also stops each thread at the entry and exit of its
 * system calls (PTRACE_SYSCALL: a SIGTRAP stop whose siginfo code is
 * SIGTRAP|0x80), for page-protection watchpoints that must see the
 * program's own mprotect/munmap/mmap. */
void proc_trace_syscalls(struct proc *p, bool on);
/* A system-call hook (ckpt/'s re-execution log): while set, proc_cont
 * stops each thread at the entry and exit of its system calls and a
 * single step over a `syscall` instruction runs it the same way, so that
 * no call goes unseen. fn is called at each such stop with the thread
 * selected (entry: true at the entry); it may change registers (orig_rax
 * -1 at the entry skips the call) and memory. It returns true to resume
 * silently, false to report the stop (PROC_TRAP, SIGTRAP). NULL: none. */
typedef bool (*proc_sys_fn)(void *ctx, struct proc *p, bool entry);
void proc_set_syscall_hook(struct proc *p, proc_sys_fn fn, void *ctx);
/* Wait for the next stop of the process (see above for the other threads). */
void proc_wait(struct proc *p, struct proc_stop *st);
/* All-stop: stop every thread still running (SIGSTOP, collected). Events
 * they had meanwhile are kept and come first from the next proc_wait. */
void proc_stop_all(struct proc *p);
/* Ask a running process to stop (SIGSTOP through tgkill). */
void proc_interrupt(struct proc *p);

/* qzdb must leave (SIGTERM, SIGHUP, SIGPIPE): safe in a signal handler.
 * A wait for a process proc_cont resumed then ends with a stop whose quit
 * is set (the program stopped by SIGSTOP) instead of blocking for ever. */
void proc_quit_signal(int sig);
/* The signal passed to proc_quit_signal, 0 if none came. */
int proc_quit_pending(void);

struct user_regs_struct *proc_regs(struct proc *p);   /* cached */
void proc_regs_dirty(struct proc *p);                  /* after changing them */
/* Write every thread's changed registers to the kernel now rather than at
 * the next resume (a stop for the user: qzdb may die before it resumes).
 * Only ptrace calls: usable from a fatal signal's handler. */
void proc_flush(struct proc *p);
/* proc_flush for an attached program qzdb is dying under (a fatal signal's
 * handler: ptrace calls only), then each stopped thread detached, without
 * the trap it stopped for: a thread stopped at one of qzdb's int3s (is_int3:
 * the int3 taken out by now) whose stop qzdb had not answered gets its pc
 * back onto the instruction. Left to the kernel's detach at qzdb's exit, it
 * would run on from one byte into the instruction with its SIGTRAP pending. */
void proc_fatal_detach(struct proc *p, bool (*is_int3)(void *ctx, uint64_t addr), void *ctx);
/* The program stops for the user: proc_flush, and no thread left with the
 * single-step trap flag set (it would kill the program with SIGTRAP if
 * qzdb died before resuming it). */
void proc_settle(struct proc *p);
int proc_fpregs(struct proc *p, struct user_fpregs_struct *fp);
/* Write the current thread's SSE/x87 state (a call made from the debugger
 * passes doubles in xmm registers and puts them back after). */
int proc_set_fpregs(struct proc *p, const struct user_fpregs_struct *fp);
uint64_t proc_pc(struct proc *p);
void proc_set_pc(struct proc *p, uint64_t pc);

/* Memory of the process, through /proc/PID/mem (writes reach read-only code
 * pages). Return 0 on success, -1 if any byte is not accessible. */
int proc_read(struct proc *p, uint64_t addr, void *buf, size_t len);
int proc_write(struct proc *p, uint64_t addr, const void *buf, size_t len);

/* While on, SIGALRM is blocked except while waiting for a process resumed
 * with proc_cont: a periodic timer (checkpoint-interval) then fires only
 * while the program runs, never in the middle of qzdb's own work. */
void proc_alarm_window(bool on);

/* The siginfo of the current stop (si_code tells int3 from single-step). */
int proc_siginfo(struct proc *p, void *siginfo);

/* ---- threads, fork and exec ---- */

struct proc_thread_info {
	pid_t tid;
	int num;                 /* 1, 2, ... in creation order, never reused */
	uint64_t fs_base;        /* thread pointer (what gdb shows as pthread_t) */
	bool gone;               /* no registers: a zombie (a leader that left) */
};

/* Events the process reports while it runs; ctx is passed back. */
struct proc_notify {
	void *ctx;
	/* A thread was created or exited. */
	void (*thread)(void *ctx, const struct proc_thread_info *t, bool created);
	/* A fork: the child is traced and stopped. To follow the child (only
	 * possible when may_follow), remove your breakpoints from the parent
	 * and return true: the parent is then detached and the child traced
	 * instead. Otherwise remove them from the child (proc_write_pid) and
	 * return false: the child is detached. */
	bool (*fork)(void *ctx, struct proc *p, pid_t child, bool may_follow);
	/* A vfork: the child (detached after the call) shares the memory until
	 * it execs or exits, when the call comes again with done set: take the
	 * int3s out, then put them back. The child is never followed. */
	void (*vfork)(void *ctx, struct proc *p, pid_t child, bool done);
};
void proc_set_notify(struct proc *p, const struct proc_notify *n);
/* Called before every proc_write with the range about to be written (the
 * checkpoint module's undo log saves what is there first and lets the
 * write through its write-protection); NULL for none. */
void proc_set_write_hook(struct proc *p, void (*fn)(void *ctx, uint64_t addr, size_t len),
			 void *ctx);
/* Called before any thread of the program is resumed (continue, step,
 * an injected call): the undo log finishes protecting the memory it
 * protects in the background; NULL for none. */
void proc_set_run_hook(struct proc *p, void (*fn)(void *ctx), void *ctx);
/* An attached program outlives qzdb: start a guard process that puts
 * back the original bytes of qzdb's int3s if qzdb dies without taking
 * them out (SIGKILL). list is called before every resume and names each
 * inserted int3 with proc_guard_put. 0, or -1 (no guard). */
int proc_guard_on(struct proc *p, void (*list)(void *ctx, struct proc *p), void *ctx);
void proc_guard_put(struct proc *p, uint64_t addr, uint8_t orig);
/* Write to the memory of another (stopped, traced) process. */
int proc_write_pid(pid_t pid, uint64_t addr, const void *buf, size_t len);

size_t proc_nthreads(const struct proc *p);
int proc_thread_at(struct proc *p, size_t i, struct proc_thread_info *ti);
int proc_thread_cur(struct proc *p, struct proc_thread_info *ti);
/* Select the thread the register functions act on; -1 if unknown. */
int proc_select(struct proc *p, pid_t tid);
/* The selected thread's id (for /proc/PID/task/TID files: the leader's
 * own /proc files go empty when it leaves with pthread_exit). */
pid_t proc_cur_tid(const struct proc *p);
/* The thread of the last reported stop. */
pid_t proc_event_tid(const struct proc *p);
/* Has the process ever had more than one thread (gdb then names threads in
 * stop reports)? */
bool proc_multi(const struct proc *p);
/* A thread other than the leader that the caller made exit and reaped
 * itself (a rollback ending threads started after a checkpoint): dropped
 * from the list, reported as exited. */
void proc_thread_forget(struct proc *p, pid_t tid);

#endif
