/* proc: one traced process under ptrace: launch with address randomisation
 * off, stop and resume it, read and write its registers and memory. The
 * registers are cached between stops so a stop costs one GETREGS at most. */
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
	PROC_ERROR      /* waitpid failed: the process is gone */
};

struct proc_stop {
	enum proc_event ev;
	int sig;
	int code;
};

struct proc;

struct proc_launch {
	const char *path;
	char *const *argv;       /* argv[0] included, NULL-terminated */
	const char *stdin_path;  /* NULL: inherit */
	const char *stdout_path; /* NULL: inherit */
	bool pin_cpu;            /* pin tracer and debuggee to one CPU */
	const char *tty_path;    /* NULL: inherit; else the program's own terminal
	                            (a front end's pty): stdin, stdout and stderr
	                            on it, in a new session it controls */
};

/* Start the program stopped at its first instruction (after execve).
 * NULL plus err on failure (the reason from execve or ptrace). */
struct proc *proc_launch(const struct proc_launch *l, char *err, size_t errlen);
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
/* Wait for the next stop of the process. */
void proc_wait(struct proc *p, struct proc_stop *st);
/* Ask a running process to stop (SIGSTOP through tgkill). */
void proc_interrupt(struct proc *p);

struct user_regs_struct *proc_regs(struct proc *p);   /* cached */
void proc_regs_dirty(struct proc *p);                  /* after changing them */
int proc_fpregs(struct proc *p, struct user_fpregs_struct *fp);
uint64_t proc_pc(struct proc *p);
void proc_set_pc(struct proc *p, uint64_t pc);

/* Memory of the process, through /proc/PID/mem (writes reach read-only code
 * pages). Return 0 on success, -1 if any byte is not accessible. */
int proc_read(struct proc *p, uint64_t addr, void *buf, size_t len);
int proc_write(struct proc *p, uint64_t addr, const void *buf, size_t len);

/* The siginfo of the current stop (si_code tells int3 from single-step). */
int proc_siginfo(struct proc *p, void *siginfo);

#endif
