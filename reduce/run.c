/* run: native test runs under a minimal ptrace (see run.h). The tracer
 * only sees the exec, signals and --at breakpoints; it never steps, so a
 * run costs about what the program costs. */
#define _GNU_SOURCE
#include "run.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <linux/close_range.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dinfo/dinfo.h"
#include "proc/proc.h"
#include "proc/sandbox.h"
#include "dinfo/lines.h"
#include "dinfo/unwind.h"
#include "util/util.h"

/* One run in flight. */
struct rr_slot {
	pid_t pid;
	pid_t group;               /* its process group (the first pid) */
	size_t idx;
	char *dir;
	double start;
	bool execed;
	uint64_t bias;             /* the program's load bias */
	uint64_t lo, hi;           /* its executable mapping */
	uint8_t *orig;             /* bytes under the --at int3s */
};

char *rr_env[] = { "PATH=/usr/local/bin:/usr/bin:/bin", "LC_ALL=C", NULL };

/* Libraries' CFI, opened at the first fatal signal inside each: a crash
 * in libc (abort, strlen) is unwound through it to the program. */
static struct rr_lib { char *path; struct unw *unw; } rr_libs[8];
static int rr_nlibs;

double rr_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int rr_rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st; (void)flag; (void)f;
	remove(path);
	return 0;
}

static void rr_rm_tree(const char *dir)
{
	nftw(dir, rr_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

int rr_scratch(struct rr_prog *p)
{
	const char *tmp = getenv("TMPDIR");
	char *t = xasprintf("%s/qzdb-reduce-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(t)) {
		free(t);
		return -1;
	}
	p->scratch = t;
	return 0;
}

int rr_sandbox(struct rr_prog *p, char *err, size_t errlen)
{
	struct sandbox *sb = xcalloc(1, sizeof *sb);
	sb->on = true;
	sb->scratch = xstrdup(p->scratch);
	if (sandbox_prepare(sb, err, errlen) < 0) {
		sandbox_free(sb);
		free(sb);
		return -1;
	}
	p->sandbox = sb;
	return 0;
}

void rr_cleanup(struct rr_prog *p)
{
	if (p->sandbox) {
		sandbox_free(p->sandbox);
		free(p->sandbox);
		p->sandbox = NULL;
	}
	for (int i = 0; i < rr_nlibs; i++) {
		free(rr_libs[i].path);
		unw_close(rr_libs[i].unw);
	}
	rr_nlibs = 0;
	if (p->scratch)
		rr_rm_tree(p->scratch);
	free(p->scratch);
	p->scratch = NULL;
}

static int rr_write_file(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	int rc = file_pwrite_all(fd, data, len, 0);
	close(fd);
	return rc;
}

static void rr_redirect(const char *path, int to, int flags)
{
	int fd = open(path, flags, 0600);
	if (fd >= 0 && fd != to) {
		dup2(fd, to);
		close(fd);
	}
}

/* In the child: the run's directory, its input, no core file, traced. */
static void rr_child(const struct rr_prog *p, const struct rr_input *in, const char *dir,
		     char **argv)
{
	personality(ADDR_NO_RANDOMIZE);
	setpgid(0, 0);   /* its own group: a timeout kills what it started, and
	                    the terminal's Ctrl-C reaches qzdb alone */
	if (chdir(dir) < 0)
		_exit(126);
	rr_redirect(in->where == RR_STDIN ? ".stdin" : "/dev/null", 0, O_RDONLY);
	const char *out = p->want_output ? ".out" : "/dev/null";
	rr_redirect(out, 1, O_WRONLY | O_CREAT | O_TRUNC);
	dup2(1, 2);
	struct rlimit no = { 0, 0 };
	setrlimit(RLIMIT_CORE, &no);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	sigset_t none;   /* the front end may block signals it reads by fd */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	syscall(SYS_close_range, 3u, ~0u, CLOSE_RANGE_CLOEXEC);   /* qzdb's own files */
	if (ptrace(PTRACE_TRACEME, 0, 0, 0) < 0 || (p->sandbox && sandbox_enter(p->sandbox)))
		_exit(126);
	execve(p->path, argv, rr_env);
	_exit(127);
}

static int rr_launch(struct rr_prog *p, const struct rr_input *in, struct rr_slot *s)
{
	s->dir = xasprintf("%s/r%lu", p->scratch, p->serial++);
	if (mkdir(s->dir, 0700) < 0)
		return -1;
	char *path = NULL;
	char **argv = xcalloc((size_t)p->argc + 1, sizeof *argv);
	memcpy(argv, p->argv, (size_t)p->argc * sizeof *argv);
	int rc = 0;
	if (in->where == RR_STDIN) {
		path = xasprintf("%s/.stdin", s->dir);
	} else if (in->where == RR_FILE) {
		path = xasprintf("%s/%s", s->dir, in->name);
		argv[in->argn] = path;
	} else {
		argv[in->argn] = xstrndup(in->data, in->len);
	}
	if (path && rr_write_file(path, in->data, in->len) < 0)
		rc = -1;
	if (rc == 0) {
		s->pid = fork();
		if (s->pid == 0)
			rr_child(p, in, s->dir, argv);
		rc = s->pid < 0 ? -1 : 0;
		if (s->pid > 0 && p->sandbox && !proc_sandbox_start(s->pid))
			s->pid = 0, rc = -1;   /* killed and reaped */
		s->group = s->pid > 0 ? s->pid : 0;
	}
	if (in->where == RR_ARG)
		free(argv[in->argn]);
	free(path);
	free(argv);
	s->start = rr_now();
	return rc;
}

/* The program's lowest PT_LOAD address: its bias is where that is mapped
 * minus this (0 for a position-independent executable). */
static uint64_t rr_link_base(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf64_Ehdr eh;
	uint64_t base = 0;
	if (fd < 0)
		return 0;
	if (pread(fd, &eh, sizeof eh, 0) == sizeof eh && eh.e_phentsize == sizeof(Elf64_Phdr))
		for (int i = 0; i < eh.e_phnum; i++) {
			Elf64_Phdr ph;
			if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + i * sizeof ph)) != sizeof ph)
				break;
			if (ph.p_type == PT_LOAD) {
				base = ph.p_vaddr & ~0xfffull;
				break;
			}
		}
	close(fd);
	return base;
}

/* The program's mapping in the child, from /proc/PID/maps. */
static void rr_find_exe(const struct rr_prog *p, struct rr_slot *s)
{
	char mp[64], line[4200];
	snprintf(mp, sizeof mp, "/proc/%d/maps", (int)s->pid);
	FILE *f = fopen(mp, "re");
	uint64_t first = 0;
	s->lo = s->hi = 0;
	while (f && fgets(line, sizeof line, f)) {
		unsigned long long lo, hi, off;
		char perms[8];
		int pos = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &lo, &hi, perms, &off, &pos) < 4 ||
		    !pos)
			continue;
		char *name = line + pos;
		name[strcspn(name, "\n")] = 0;
		if (strcmp(name, p->exe_real) != 0)
			continue;
		if (!first)
			first = lo;
		if (perms[2] == 'x' && !s->lo) {
			s->lo = lo;
			s->hi = hi;
		}
	}
	if (f)
		fclose(f);
	s->bias = first - rr_link_base(p->path);
}

static int rr_read_mem(void *arg, uint64_t addr, void *buf, size_t len)
{
	return vm_read(*(pid_t *)arg, addr, buf, len) == len ? 0 : -1;
}

static void rr_regs(const struct user_regs_struct *u, struct di_regs *d)
{
	const uint64_t v[DI_NREGS] = { u->rax, u->rdx, u->rcx, u->rbx, u->rsi, u->rdi, u->rbp,
				       u->rsp, u->r8, u->r9, u->r10, u->r11, u->r12, u->r13,
				       u->r14, u->r15, u->rip };
	for (int i = 0; i < DI_NREGS; i++) {
		d->r[i] = v[i];
		d->valid[i] = true;
	}
}

static const struct unw *rr_lib_unw(const char *path)
{
	for (int i = 0; i < rr_nlibs; i++)
		if (strcmp(rr_libs[i].path, path) == 0)
			return rr_libs[i].unw;
	char err[256];
	if (rr_nlibs == (int)ARRAY_LEN(rr_libs))
		return NULL;
	struct unw *u = unw_open(path, err, sizeof err);
	if (u)
		rr_libs[rr_nlibs++] = (struct rr_lib){ xstrdup(path), u };
	return u;
}

/* The library mapped at pc: its CFI and load bias (its first mapping). */
static const struct unw *rr_lib_at(pid_t pid, uint64_t pc, uint64_t *bias)
{
	char mp[64], line[4200], path[4096] = "";
	snprintf(mp, sizeof mp, "/proc/%d/maps", (int)pid);
	FILE *f = fopen(mp, "re");
	uint64_t first = 0;
	char last[4096] = "";
	while (f && fgets(line, sizeof line, f)) {
		unsigned long long lo, hi;
		int pos = 0;
		if (sscanf(line, "%llx-%llx %*s %*s %*s %*s %n", &lo, &hi, &pos) < 2 || !pos)
			continue;
		char *name = line + pos;
		name[strcspn(name, "\n")] = 0;
		if (strcmp(name, last) != 0) {
			snprintf(last, sizeof last, "%s", name);
			first = lo;
		}
		if (pc >= lo && pc < hi && name[0] == '/') {
			snprintf(path, sizeof path, "%s", name);
			*bias = first;
			break;
		}
	}
	if (f)
		fclose(f);
	return path[0] ? rr_lib_unw(path) : NULL;
}

/* The innermost frames in the program's own code. Frames outside it (a
 * libc function that aborted) are walked through with a frame-pointer-free
 * rule only while the program's CFI covers them: outside, the walk looks
 * for the first return address into the program on the stack. */
static void rr_frames(const struct rr_prog *p, struct rr_slot *s, const struct user_regs_struct *u,
		      struct rr_result *r)
{
	struct di_regs regs, caller;
	rr_regs(u, &regs);
	bool innermost = true;
	for (int depth = 0; depth < 64 && r->nframes < RR_FRAMES; depth++) {
		uint64_t pc = regs.r[DI_REG_RIP];
		if (pc >= s->lo && pc < s->hi) {
			if (!p->lines || !p->unw)
				break;   /* no debug information: the signal alone */
			const struct lines_row *row = lines_at(p->lines, pc - s->bias - (innermost ? 0 : 1));
			if (row) {
				r->file[r->nframes] = row->file;
				r->line[r->nframes++] = row->line;
			}
			uint64_t cfa;
			bool sig = false;
			if (unw_step_ex(p->unw, s->bias, &regs, innermost, rr_read_mem, &s->pid,
					&caller, &cfa, &sig) < 0 || !caller.valid[DI_REG_RIP])
				break;
			regs = caller;
			innermost = sig;
			continue;
		}
		/* outside the program: a library's CFI, else scan the stack for a
		 * return into the program */
		uint64_t lbias = 0, cfa;
		const struct unw *lu = rr_lib_at(s->pid, pc, &lbias);
		bool sig = false;
		if (lu && unw_step_ex(lu, lbias, &regs, innermost, rr_read_mem, &s->pid, &caller,
				      &cfa, &sig) == 0 && caller.valid[DI_REG_RIP]) {
			regs = caller;
			innermost = sig;
			continue;
		}
		uint64_t sp = regs.r[DI_REG_RSP], word = 0;
		bool found = false;
		for (int k = 0; k < 4096 && !found; k++, sp += 8)
			if (rr_read_mem(&s->pid, sp, &word, 8) == 0 && word >= s->lo && word < s->hi)
				found = true;
		if (!found)
			break;
		regs.r[DI_REG_RIP] = word;
		regs.r[DI_REG_RSP] = sp;   /* just past the return address */
		regs.valid[DI_REG_RBP] = false;
		innermost = false;
	}
}

static bool rr_fatal(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL ||
	       sig == SIGABRT || sig == SIGSYS || sig == SIGTRAP;
}

static void rr_kill(struct rr_slot *s)
{
	int st;
	kill(-s->group, SIGKILL);
	kill(s->pid, SIGKILL);
	while (waitpid(s->pid, &st, __WALL) < 0 && errno == EINTR)
		;
	s->pid = 0;
}

static void rr_plant(const struct rr_prog *p, struct rr_slot *s)
{
	s->orig = xcalloc(p->nat ? p->nat : 1, 1);
	for (size_t i = 0; i < p->nat; i++) {
		uint64_t a = p->at[i] + s->bias;
		errno = 0;
		long w = ptrace(PTRACE_PEEKTEXT, s->pid, (void *)a, 0);
		if (errno)
			continue;
		s->orig[i] = (uint8_t)w;
		ptrace(PTRACE_POKETEXT, s->pid, (void *)a, (void *)((w & ~0xffL) | 0xcc));
	}
}

/* The program is exec'd (the child stopped there): where it is mapped,
 * the --at breakpoints, and on. */
static void rr_on_exec(const struct rr_prog *p, struct rr_slot *s)
{
	s->execed = true;
	long opts = PTRACE_O_EXITKILL | (p->sandbox ? PTRACE_O_TRACESECCOMP : 0);
	ptrace(PTRACE_SETOPTIONS, s->pid, 0, (void *)opts);
	rr_find_exe(p, s);
	if (p->nat)
		rr_plant(p, s);
	ptrace(PTRACE_CONT, s->pid, 0, 0);
}

/* A confined run's call stopped by its filter: let through or failed
 * with EPERM (sandbox_judge), silently: the program sees EPERM. */
static void rr_judge(const struct rr_prog *p, struct rr_slot *s)
{
	struct user_regs_struct u;
	if (ptrace(PTRACE_GETREGS, s->pid, 0, &u) == 0 && !sandbox_judge(p->sandbox, s->pid, &u))
		ptrace(PTRACE_SETREGS, s->pid, 0, &u);
	ptrace(PTRACE_CONT, s->pid, 0, 0);
}

/* A stop of the child (waitpid's status): true when its run is over (r
 * filled). A confined run starts stopped at its exec event. */
static bool rr_stopped(const struct rr_prog *p, struct rr_slot *s, int status, struct rr_result *r)
{
	int sig = WSTOPSIG(status), ev = status >> 16;
	if (ev == PTRACE_EVENT_SECCOMP && p->sandbox) {
		rr_judge(p, s);
		return false;
	}
	if (!s->execed && sig == SIGTRAP) {
		rr_on_exec(p, s);
		return false;
	}
	struct user_regs_struct u;
	if (ptrace(PTRACE_GETREGS, s->pid, 0, &u) < 0)
		memset(&u, 0, sizeof u);
	if (sig == SIGTRAP && p->nat)
		for (size_t i = 0; i < p->nat; i++)
			if (u.rip - 1 == p->at[i] + s->bias) {
				r->how = RR_REACHED;
				rr_kill(s);
				return true;
			}
	if (!rr_fatal(sig)) {
		ptrace(PTRACE_CONT, s->pid, 0, (void *)(long)sig);
		return false;
	}
	r->how = RR_SIGNAL;
	r->code = sig;
	rr_frames(p, s, &u, r);
	rr_kill(s);
	return true;
}

static void rr_output(const struct rr_prog *p, const struct rr_slot *s, struct rr_result *r)
{
	if (!p->want_output)
		return;
	char *path = xasprintf("%s/.out", s->dir);
	struct sbuf b = {0};
	FILE *f = fopen(path, "re");
	char buf[4096];
	size_t n;
	while (f && (n = fread(buf, 1, sizeof buf, f)) > 0 && b.len < (1u << 24))
		sbuf_addn(&b, buf, n);
	if (f)
		fclose(f);
	r->output_len = b.len;
	r->output = b.s ? sbuf_take(&b) : xstrdup("");
	free(path);
}

/* Look at one slot: true when its run is over. */
static bool rr_poll(const struct rr_prog *p, struct rr_slot *s, struct rr_result *r)
{
	int st;
	pid_t w = waitpid(s->pid, &st, WNOHANG | __WALL);
	if (w == 0) {
		if (rr_now() - s->start < p->timeout)
			return false;
		r->how = RR_TIMEOUT;
		rr_kill(s);
		return true;
	}
	if (w < 0) {
		r->how = RR_ERROR;
		return true;
	}
	if (WIFSTOPPED(st))
		return rr_stopped(p, s, st, r);
	if (WIFEXITED(st)) {
		r->how = WEXITSTATUS(st) == 127 && !s->execed ? RR_ERROR : RR_EXIT;
		r->code = WEXITSTATUS(st);
	} else {
		r->how = RR_SIGNAL;
		r->code = WTERMSIG(st);
	}
	s->pid = 0;
	return true;
}

static void rr_finish(const struct rr_prog *p, struct rr_slot *s, struct rr_result *r)
{
	if (s->group)
		kill(-s->group, SIGKILL);   /* what the run left running */
	rr_output(p, s, r);
	rr_rm_tree(s->dir);
	free(s->dir);
	free(s->orig);
	memset(s, 0, sizeof *s);
}

int rr_run_many(struct rr_prog *p, const struct rr_input *in, struct rr_result *res,
		size_t n, int jobs, volatile bool *interrupted)
{
	if (jobs < 1)
		jobs = 1;
	struct rr_slot *slots = xcalloc((size_t)jobs, sizeof *slots);
	size_t next = 0, done = 0;
	int rc = 0;
	memset(res, 0, n * sizeof *res);
	while (done < n) {
		bool moved = false;
		for (int j = 0; j < jobs; j++) {
			struct rr_slot *s = &slots[j];
			if (!s->pid && !s->dir && next < n && !(interrupted && *interrupted)) {
				s->idx = next++;
				if (rr_launch(p, &in[s->idx], s) < 0) {
					res[s->idx].how = RR_ERROR;
					rr_finish(p, s, &res[s->idx]);
					done++;
				} else if (p->sandbox) {
					rr_on_exec(p, s);   /* a confined start ends there */
				}
				moved = true;
				continue;
			}
			if (s->dir && rr_poll(p, s, &res[s->idx])) {
				rr_finish(p, s, &res[s->idx]);
				done++;
				moved = true;
			}
		}
		if (interrupted && *interrupted && next < n) {
			rc = -1;
			bool busy = false;
			for (int j = 0; j < jobs; j++)
				busy |= slots[j].dir != NULL;
			if (!busy)
				break;
		}
		if (!moved)
			usleep(200);
	}
	free(slots);
	return rc;
}

void rr_result_free(struct rr_result *r)
{
	free(r->output);
	r->output = NULL;
}

static const char *rr_signame(int sig, char *buf, size_t len)
{
	const char *a = sigabbrev_np(sig);
	if (a)
		snprintf(buf, len, "SIG%s", a);
	else
		snprintf(buf, len, "signal %d", sig);
	return buf;
}

char *rr_describe(const struct rr_result *r)
{
	struct sbuf b = {0};
	char sb[32];
	switch (r->how) {
	case RR_EXIT: sbuf_printf(&b, "exit status %d", r->code); break;
	case RR_SIGNAL: sbuf_add(&b, rr_signame(r->code, sb, sizeof sb)); break;
	case RR_TIMEOUT: sbuf_add(&b, "timeout"); break;
	case RR_REACHED: sbuf_add(&b, "reached the --at line"); break;
	default: sbuf_add(&b, "could not run"); break;
	}
	for (int i = 0; i < r->nframes; i++)
		sbuf_printf(&b, "%s%s:%d", i ? " < " : " at ", str_basename(r->file[i]), r->line[i]);
	return sbuf_take(&b);
}

bool rr_same(const struct rr_result *a, const struct rr_result *b)
{
	if (a->how != b->how || a->code != b->code || a->nframes != b->nframes)
		return false;
	for (int i = 0; i < a->nframes; i++)
		if (a->line[i] != b->line[i] || a->file[i] != b->file[i])
			return false;
	return true;
}
